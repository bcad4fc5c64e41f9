#include "worker_io.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void close_pipes(convt_worker *w)
{
    if (w->to_fd >= 0)
        close(w->to_fd);
    if (w->from_fd >= 0)
        close(w->from_fd);
    w->to_fd = w->from_fd = -1;
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}

int convt_worker_start(convt_worker *w, char *const argv[], convt_err *e)
{
    memset(w, 0, sizeof *w);
    w->to_fd = w->from_fd = -1;
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC))
        return convt_fail(e, "pipe: %s", strerror(errno));
    if (pipe2(out, O_CLOEXEC)) {
        close(in[0]), close(in[1]);
        return convt_fail(e, "pipe: %s", strerror(errno));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    /* The worker starts with default dispositions of the signals the
     * orchestrator changes (it ignores SIGPIPE, and catches SIGINT and
     * SIGTERM, and exec keeps an ignored signal ignored): a SIGINT meant for
     * the orchestrator reaches the worker too (same process group) and ends
     * it, and a write to an orchestrator gone ends it. */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    int rc = posix_spawn(&w->pid, argv[0], &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    if (rc) {
        close(in[1]), close(out[0]);
        w->pid = 0;
        return convt_fail(e, "cannot start the worker %s: %s", argv[0], strerror(rc));
    }
    w->to_fd = in[1];
    w->from_fd = out[0];
    /* a worker that died must not take the orchestrator down with SIGPIPE */
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

int convt_worker_send(convt_worker *w, const cJSON *msg, convt_err *e)
{
    char *text = cJSON_PrintUnformatted(msg);
    if (!text)
        return convt_fail(e, "out of memory");
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the terminator; len + 1 bytes go out */
    size_t done = 0;
    while (done < len + 1) {
        ssize_t n = write(w->to_fd, text + done, len + 1 - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            free(text);
            return convt_fail(e, "the worker is gone (writing to it: %s)", strerror(errno));
        }
        done += (size_t)n;
    }
    free(text);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A whole line in w->buf: parsed and removed. 1 with *msg, 0 without. */
static int take_line(convt_worker *w, cJSON **msg, convt_err *e, bool *bad)
{
    char *nl = w->len ? memchr(w->buf, '\n', w->len) : NULL;
    if (!nl)
        return 0;
    *nl = 0;
    *msg = cJSON_Parse(w->buf);
    if (!*msg) {
        convt_fail(e, "the worker wrote a line that is not JSON: %.120s", w->buf);
        *bad = true;
    }
    size_t used = (size_t)(nl - w->buf) + 1;
    memmove(w->buf, nl + 1, w->len - used);
    w->len -= used;
    return 1;
}

convt_receive convt_worker_receive(convt_worker *w, double timeout_s, cJSON **msg, convt_err *e)
{
    *msg = NULL;
    double deadline = now_s() + timeout_s;
    for (;;) {
        bool bad = false;
        if (take_line(w, msg, e, &bad))
            return bad ? CONVT_ENDED : CONVT_RECEIVED;
        int wait_ms = -1;
        if (timeout_s > 0) {
            double left = deadline - now_s();
            if (left <= 0)
                return CONVT_TIMED_OUT;
            wait_ms = left > 3600 ? 3600000 : (int)(left * 1000) + 1;
        }
        struct pollfd p = {.fd = w->from_fd, .events = POLLIN};
        int r = poll(&p, 1, wait_ms);
        if (r < 0 && errno == EINTR)
            return CONVT_INTERRUPTED;
        if (r < 0) {
            convt_fail(e, "poll: %s", strerror(errno));
            return CONVT_ENDED;
        }
        if (r == 0)
            continue; /* the deadline is checked above */
        if (w->cap - w->len < 65536) {
            size_t cap = w->cap ? 2 * w->cap : 1 << 20;
            char *grown = realloc(w->buf, cap);
            if (!grown) {
                convt_fail(e, "out of memory reading the worker");
                return CONVT_ENDED;
            }
            w->buf = grown;
            w->cap = cap;
        }
        ssize_t n = read(w->from_fd, w->buf + w->len, w->cap - w->len - 1);
        if (n < 0 && errno == EINTR)
            return CONVT_INTERRUPTED;
        if (n <= 0) {
            if (n < 0)
                convt_fail(e, "reading the worker: %s", strerror(errno));
            return CONVT_ENDED;
        }
        w->len += (size_t)n;
    }
}

void convt_worker_kill(convt_worker *w)
{
    if (w->pid > 0) {
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    w->pid = 0;
    close_pipes(w);
}

int convt_worker_reap(convt_worker *w, char *how, size_t len)
{
    int status = 0;
    if (w->pid > 0) {
        /* it closed its stdout: it is exiting; a worker that closed the
         * pipe and lives on is killed after a grace period */
        for (int i = 0; i < 500; i++) {
            pid_t r = waitpid(w->pid, &status, WNOHANG);
            if (r == w->pid)
                break;
            if (r < 0 && errno != EINTR)
                break;
            if (i == 499) {
                kill(w->pid, SIGKILL);
                waitpid(w->pid, &status, 0);
            }
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *name = sigabbrev_np(sig);
        snprintf(how, len, "killed by signal %d (SIG%s: %s)", sig, name ? name : "?",
                 strsignal(sig));
    } else if (WIFEXITED(status)) {
        snprintf(how, len, "exit status %d", WEXITSTATUS(status));
    } else {
        snprintf(how, len, "ended (wait status %d)", status);
    }
    w->pid = 0;
    close_pipes(w);
    return status;
}
