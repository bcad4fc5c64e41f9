/* The records of one run found by what they ran (json_same_run: shape key,
 * variant, launch key, tier) in constant time: a hash set of record
 * pointers. compare and merge looked each record up by scanning the other
 * file's records, quadratic in the records: 6,562 records (a KernelBench
 * run) compared with themselves took 5.8 s, test_gpu's 53,700 would take
 * minutes (results/notes.md, "Session 41"). */
#ifndef CONVT_SRC_RUN_INDEX_H
#define CONVT_SRC_RUN_INDEX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

typedef struct {
    const cJSON **slot; /* open addressing, linear probing; NULL: empty */
    size_t cap;         /* a power of two, at least twice the records */
    size_t n;
} convt_run_index;

/* An empty index for about `expected` records (it grows); -1 when out of
 * memory. */
int convt_run_index_init(convt_run_index *ix, size_t expected);
/* Every record of `records` (a JSON array, or NULL), in its order. */
int convt_run_index_of(convt_run_index *ix, const cJSON *records);
/* Adds r (not copied: it must outlive the index); -1 when out of memory or
 * r is NULL. A zeroed or freed index starts empty. */
int convt_run_index_add(convt_run_index *ix, const cJSON *r);
/* The first record added that ran what r ran, or NULL: the record a scan
 * of the records in their order would find. */
const cJSON *convt_run_index_find(const convt_run_index *ix, const cJSON *r);
/* The same by the four fields json_same_run compares (a selection row's). */
const cJSON *convt_run_index_find_fields(const convt_run_index *ix, const char *key,
                                         const char *variant, const char *launch_key,
                                         const char *tier);
void convt_run_index_free(convt_run_index *ix);

#ifdef __cplusplus
}
#endif
#endif
