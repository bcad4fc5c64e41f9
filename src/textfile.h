/* Reading a whole text file, with the messages a person needs. */
#ifndef CONVT_SRC_TEXTFILE_H
#define CONVT_SRC_TEXTFILE_H

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The file's bytes, NUL-terminated, malloc'd (the caller frees them); NULL
 * with e set ("PATH: cannot open: ...", a read error, or a NUL byte inside). */
char *convt_read_text_file(const char *path, convt_err *e);

#ifdef __cplusplus
}
#endif
#endif
