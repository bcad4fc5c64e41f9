#include "errors.h"

static void set(convt_err *e, int skip, const char *fmt, va_list ap)
{
    if (!e)
        return;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    e->skip = skip;
}

int convt_fail(convt_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set(e, 0, fmt, ap);
    va_end(ap);
    return -1;
}

int convt_skip(convt_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set(e, 1, fmt, ap);
    va_end(ap);
    return -1;
}
