/* One error carrier for the whole harness: a function that can fail returns
 * 0 on success and -1 on failure, after writing a complete, human-readable
 * sentence into the caller's convt_err (owned by the caller). */
#ifndef CONVT_SRC_ERRORS_H
#define CONVT_SRC_ERRORS_H

#include <stdarg.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct convt_err {
    char msg[1024];
    /* Set by convt_skip: the step did not fail, the run cannot happen (a
     * vendor library offers nothing for this launch). The driver records
     * such a run as skipped with msg as the reason, not as failed. */
    int skip;
} convt_err;

/* printf into e->msg (NULL e is allowed and ignored); always returns -1 so
 * that `return convt_fail(e, ...)` reads as what it does. */
int convt_fail(convt_err *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* As convt_fail, and marks the error as a reason to skip the run. */
int convt_skip(convt_err *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
