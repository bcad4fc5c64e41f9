/* --devices 0,1,...|all: the devices of one host a sweep runs on, one worker
 * process each, shapes handed out from one queue into one results file
 * (orchestrator.c). */
#ifndef CONVT_SRC_DEVICE_LIST_H
#define CONVT_SRC_DEVICE_LIST_H

#include <stdbool.h>

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CONVT_MAX_DEVICES 64

typedef struct convt_device_list {
    int n;                        /* 0 with all: every device the backend sees */
    bool all;
    int index[CONVT_MAX_DEVICES]; /* distinct, in the order given */
} convt_device_list;

/* Parses "all" or a comma-separated list of distinct device numbers
 * ("0,1,3"). 0, or -1 with e set. */
int convt_device_list_parse(const char *text, convt_device_list *out, convt_err *e);

#ifdef __cplusplus
}
#endif
#endif
