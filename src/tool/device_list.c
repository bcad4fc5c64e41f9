#include "device_list.h"

#include <string.h>

int convt_device_list_parse(const char *text, convt_device_list *out, convt_err *e)
{
    memset(out, 0, sizeof *out);
    if (!strcmp(text, "all")) {
        out->all = true;
        return 0;
    }
    const char *p = text;
    for (;;) {
        if (*p < '0' || *p > '9')
            return convt_fail(e, "--devices: expected 'all' or device numbers separated by "
                                 "commas (0,1,3), got '%s'", text);
        long v = 0;
        while (*p >= '0' && *p <= '9') {
            v = 10 * v + (*p++ - '0');
            if (v >= 1000000)
                return convt_fail(e, "--devices: '%s': a device number past any host's", text);
        }
        for (int i = 0; i < out->n; i++)
            if (out->index[i] == v)
                return convt_fail(e, "--devices: '%s' names device %ld twice", text, v);
        if (out->n == CONVT_MAX_DEVICES)
            return convt_fail(e, "--devices: more than %d devices", CONVT_MAX_DEVICES);
        out->index[out->n++] = (int)v;
        if (!*p)
            return 0;
        if (*p++ != ',' || !*p)
            return convt_fail(e, "--devices: expected 'all' or device numbers separated by "
                                 "commas (0,1,3), got '%s'", text);
    }
}
