/* merge: several results files of one device joined into one, so a sweep
 * split over invocations (or shards), and PyTorch's baseline measured by
 * tools/torch_baseline.py, are selected, compared and plotted as one run.
 *
 * Refused unless forced, each with the file and the value that differs:
 *  - a file of another tool (neither convt-bench nor its torch_baseline);
 *  - another backend, GPU model (device.name) or compute capability than
 *    the first file's;
 *  - one record (shape key, variant, launch, tier) in two files: merge
 *    joins runs of different things; forced, the first file's record stays.
 * Always refused: a file with no "records" array, or of a newer schema.
 * Different drivers, toolkits, git revisions or configs are warnings.
 *
 * The merged document keeps the first convt-bench file's head (device,
 * ceilings, config, seed), lists every input under "merged_from" (path,
 * tool, version, git revision, time, host, config path, seed, drift, record
 * count) and marks each record with the path it came from ("source"). */
#ifndef CONVT_SRC_MERGE_H
#define CONVT_SRC_MERGE_H

#include <stdbool.h>
#include <stdio.h>

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

/* Joins docs[0..n) (read from paths[0..n), used in messages). Warnings go
 * to warn (may be NULL). Returns a new document (the caller frees it with
 * cJSON_Delete), or NULL with the refusal in e. */
cJSON *convt_merge(const cJSON *const *docs, const char *const *paths, int n, bool force,
                   FILE *warn, convt_err *e);

#ifdef __cplusplus
}
#endif
#endif
