#include "textfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *convt_read_text_file(const char *path, convt_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        convt_fail(e, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *grown = realloc(text, cap);
            if (!grown) {
                free(text);
                fclose(f);
                convt_fail(e, "%s: out of memory reading the file", path);
                return NULL;
            }
            text = grown;
        }
        size_t got = fread(text + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    bool read_error = ferror(f);
    fclose(f);
    if (read_error) {
        free(text);
        convt_fail(e, "%s: read error", path);
        return NULL;
    }
    text[len] = 0;
    if (strlen(text) != len) {
        free(text);
        convt_fail(e, "%s: the file contains a NUL byte; expected JSON text", path);
        return NULL;
    }
    return text;
}
