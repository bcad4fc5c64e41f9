#include "npy.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int convt_npy_write(const char *path, convt_npy_type type, const void *data, int ndim,
                    const int64_t *shape, convt_err *e)
{
    char header[256], dims[160] = "";
    int64_t count = 1;
    for (int i = 0; i < ndim; i++) {
        size_t l = strlen(dims);
        snprintf(dims + l, sizeof dims - l, "%lld,%s", (long long)shape[i],
                 i + 1 < ndim ? " " : "");
        count *= shape[i];
    }
    int len = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                       type == CONVT_NPY_F32 ? "<f4" : "<f8", dims);
    /* Magic (6) + version (2) + length (2) + header + '\n', padded to 64. */
    int total = (10 + len + 1 + 63) / 64 * 64;
    while (10 + len + 1 < total)
        header[len++] = ' ';
    header[len++] = '\n';
    FILE *f = fopen(path, "wb");
    if (!f)
        return convt_fail(e, "%s: cannot create: %s", path, strerror(errno));
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xff),
                             (unsigned char)(len >> 8)};
    size_t elem = type == CONVT_NPY_F32 ? 4 : 8;
    bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)len, f) == (size_t)len &&
              fwrite(data, elem, (size_t)count, f) == (size_t)count;
    ok &= fclose(f) == 0;
    return ok ? 0 : convt_fail(e, "%s: write failed: %s", path, strerror(errno));
}

int convt_npy_read(const char *path, convt_npy_type *type, void **data, int *ndim,
                   int64_t shape[8], convt_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return convt_fail(e, "%s: cannot open: %s", path, strerror(errno));
    unsigned char pre[10];
    char header[4096];
    int rc = -1;
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) || pre[6] != 1) {
        convt_fail(e, "%s: not a version-1 .npy file", path);
        goto out;
    }
    size_t hlen = pre[8] | (size_t)pre[9] << 8;
    if (hlen >= sizeof header || fread(header, 1, hlen, f) != hlen) {
        convt_fail(e, "%s: truncated .npy header", path);
        goto out;
    }
    header[hlen] = 0;
    if (strstr(header, "'<f4'"))
        *type = CONVT_NPY_F32;
    else if (strstr(header, "'<f8'"))
        *type = CONVT_NPY_F64;
    else {
        convt_fail(e, "%s: only little-endian float32 and float64 are supported (%s)", path, header);
        goto out;
    }
    if (!strstr(header, "'fortran_order': False")) {
        convt_fail(e, "%s: Fortran-ordered arrays are not supported", path);
        goto out;
    }
    const char *sh = strstr(header, "'shape': (");
    if (!sh) {
        convt_fail(e, "%s: no shape in the .npy header", path);
        goto out;
    }
    sh += strlen("'shape': (");
    *ndim = 0;
    int64_t count = 1;
    while (*sh && *sh != ')' && *ndim < 8) {
        char *end;
        long long v = strtoll(sh, &end, 10);
        if (end == sh)
            break;
        shape[(*ndim)++] = v;
        count *= v;
        sh = end;
        while (*sh == ',' || *sh == ' ')
            sh++;
    }
    size_t elem = *type == CONVT_NPY_F32 ? 4 : 8;
    *data = malloc((size_t)count * elem + 1);
    if (!*data || fread(*data, elem, (size_t)count, f) != (size_t)count) {
        free(*data);
        *data = NULL;
        convt_fail(e, "%s: truncated data (expected %lld elements)", path, (long long)count);
        goto out;
    }
    rc = 0;
out:
    fclose(f);
    return rc;
}
