/* The orchestrator's side of a worker process: start it, send it one JSON
 * message per line on its stdin, read its JSON lines from its stdout with a
 * deadline, and, when it dies or stops answering, say how.
 *
 * Why a process: a CUDA context that hit a sticky error (an illegal address)
 * cannot be repaired inside its process (cudaDeviceReset then fails on the
 * H100: "busy or unavailable"), a kernel that never ends cannot be stopped
 * from the host thread waiting on it, and a CPU variant's segfault ends its
 * process. Only the process that owns the device is lost; the orchestrator
 * records why and starts another. */
#ifndef CONVT_SRC_WORKER_IO_H
#define CONVT_SRC_WORKER_IO_H

#include <stdbool.h>
#include <sys/types.h>

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

typedef struct convt_worker {
    pid_t pid;          /* 0: none running */
    int to_fd, from_fd; /* its stdin, its stdout */
    char *buf;          /* bytes read and not yet split into lines */
    size_t len, cap;
} convt_worker;

typedef enum convt_receive {
    CONVT_RECEIVED = 0, /* *msg is a new message (the caller frees it) */
    CONVT_TIMED_OUT,    /* nothing within the deadline */
    CONVT_ENDED,        /* the worker closed its side: it exited or died */
    CONVT_INTERRUPTED,  /* a signal arrived (the caller checks its flags) */
} convt_receive;

/* Starts argv[0] (a path) with argv; its stderr stays ours. */
int convt_worker_start(convt_worker *w, char *const argv[], convt_err *e);
/* One message as one line. -1 when the worker is gone. */
int convt_worker_send(convt_worker *w, const cJSON *msg, convt_err *e);
/* The next message within timeout_s seconds (<= 0: wait for ever). A line
 * that is not JSON is an error the worker cannot make: it ends as
 * CONVT_ENDED with e saying so. */
convt_receive convt_worker_receive(convt_worker *w, double timeout_s, cJSON **msg, convt_err *e);
/* Kills the worker (SIGKILL) if it runs, reaps it, closes the pipes. */
void convt_worker_kill(convt_worker *w);
/* After CONVT_ENDED: reaps the worker and describes how it ended ("killed
 * by signal 11 (SIGSEGV)", "exit status 4"). Returns the raw wait status. */
int convt_worker_reap(convt_worker *w, char *how, size_t len);

#ifdef __cplusplus
}
#endif
#endif
