/* Helpers shared by the tests: paths, temporary files, running the binary. */
#ifndef CONVT_TESTS_TEST_UTIL_H
#define CONVT_TESTS_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

typedef struct cJSON cJSON;
typedef struct convt_problem convt_problem;

/* $CONVT_SOURCE_ROOT/rel (meson sets it; "." otherwise). */
void source_path(const char *rel, char *buf, size_t len);
/* A fresh directory under /tmp, removed by nobody: tests are cheap. */
void temp_dir(char *buf, size_t len);
void write_file(const char *path, const char *text);
/* Reads a whole file (malloc'd, NUL-terminated) or NULL. */
char *read_file(const char *path);
cJSON *read_json(const char *path);
/* Runs "$CONVT_BENCH args" with stdout+stderr captured into *output
 * (malloc'd); returns the exit status. */
int run_bench(const char *args, char **output);
/* The output extent of one dimension of a transposed convolution
 * (convt_out_size), for the tests that draw dimensions one at a time. */
int64_t out_extent(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil,
                   int64_t out_pad);
/* n floats uniform in [-1, 1) from seed (convt_uniform), malloc'd (at
 * least one float); aborts when memory runs out. */
float *random_tensor(int64_t n, uint64_t seed);

/* The dimensions d of p with bit d of mask set get an input of one position
 * (and, where the padding would leave no output, less padding): the shapes
 * that the built-in variants run as an equivalent (convt_problem_equivalent). */
void one_position_inputs(convt_problem *p, unsigned mask);

#endif
