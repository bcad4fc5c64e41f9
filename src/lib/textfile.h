/* Whole files, with the messages a person needs: reading a text file,
 * telling whether two paths name one file, and finding out before any work
 * whether a results path can be written. */
#ifndef CONVT_SRC_TEXTFILE_H
#define CONVT_SRC_TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest config file read: a config is a page of text; anything near
 * this size is the wrong file. */
#define CONVT_CONFIG_MAX_BYTES ((size_t)64 << 20)
/* The largest results file read (compare, merge, select): a sweep of tens of
 * thousands of records, with their samples, stays well below it. */
#define CONVT_RESULTS_MAX_BYTES ((size_t)1 << 30)

/* The file's bytes, NUL-terminated, malloc'd (the caller frees them); NULL
 * with e set: "PATH: cannot open: ...", not a regular file (a directory, a
 * FIFO, a device: said which), larger than max_bytes ("too large"), a read
 * error, or a NUL byte inside. */
char *convt_read_text_file_max(const char *path, size_t max_bytes, convt_err *e);
/* The same with CONVT_RESULTS_MAX_BYTES. */
char *convt_read_text_file(const char *path, convt_err *e);

/* True when a and b name the same file: the same device and inode when both
 * exist; when neither does, the same path once their directories are
 * resolved (./x.json and x.json are one file to be). */
bool convt_same_file(const char *a, const char *b);

/* Whether a file can be written at path: creates its missing parent
 * directories, then creates and removes a probe file "PATH.probe.PID" beside
 * it. 0, or -1 with e naming path as given and what stood in the way. */
int convt_check_writable(const char *path, convt_err *e);

/* Writes text and a newline to path.tmp.PID.N (N: a counter, so that two
 * threads never share the file), fsyncs it and renames it over
 * path: a reader sees the old file or the new one, never a part. */
int convt_write_text_atomic(const char *path, const char *text, convt_err *e);

#ifdef __cplusplus
}
#endif
#endif
