/* --shard I/N: a stable share of a sweep's shapes, for job arrays on a
 * cluster (README, "Sweeps across machines"). A shape belongs to shard
 * 1 + (FNV-1a of its canonical key mod N): the same shape lands in the same
 * shard whatever the config's order or the other shapes, and `convt-bench
 * merge` joins the shards' results into one. */
#ifndef CONVT_SRC_SHARD_H
#define CONVT_SRC_SHARD_H

#include "errors.h"
#include "sweep_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses "I/N" (1 <= I <= N). 0, or -1 with e set. */
int convt_shard_parse(const char *text, int *index, int *count, convt_err *e);
/* The shard (1..count) shape p belongs to. */
int convt_shard_of(const convt_problem *p, int count);
/* Keeps only cfg's shapes of shard index/count, in their order. */
void convt_shard_apply(convt_config *cfg, int index, int count);

#ifdef __cplusplus
}
#endif
#endif
