/* NumPy .npy files (format version 1.0, little-endian, C order) for float32
 * and float64 arrays: --dump writes them so that NumPy or PyTorch can check
 * any result independently, and the golden tests read PyTorch's. */
#ifndef CONVT_SRC_NPY_H
#define CONVT_SRC_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum convt_npy_type { CONVT_NPY_F32, CONVT_NPY_F64 } convt_npy_type;

int convt_npy_write(const char *path, convt_npy_type type, const void *data, int ndim,
                    const int64_t *shape, convt_err *e);

/* Reads path; *data is malloc'd (the caller frees it), shape holds up to 8
 * dimensions. */
int convt_npy_read(const char *path, convt_npy_type *type, void **data, int *ndim,
                   int64_t shape[8], convt_err *e);

#ifdef __cplusplus
}
#endif
#endif
