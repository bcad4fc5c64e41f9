/* Selection: per shape and precision tier, the variant to run, chosen from a
 * results document alone (so it can be rebuilt from any results file, merged
 * or not). The table is what the run-time dispatch reads.
 *
 * The rules (README.md, "Selection"):
 *  - Tier rule: a tier's candidates are the valid (ok, timed) records of
 *    that tier or of any stricter one: fp32 records compete in tf32, never
 *    the reverse. Each row says which tier its winner's variant has.
 *  - Only records a program can dispatch win: PyTorch's records (torch_*)
 *    are measured beside ours as a baseline, never selected.
 *  - Ties: every candidate whose median is within the noise both recorded
 *    of the fastest one's (m - m_fast <= m_fast * (noise + noise_fast)) is
 *    tied with it. Among the tied, the pick is, in order: deterministic
 *    before not; the previous table's choice for this shape and tier, when
 *    a previous table is given; the faster median; the variant name, then
 *    the launch key. (Not prepare_ms: a kernel's first prepare in a worker
 *    carries its load, a cost of the process, not of the plan.) Without a
 *    previous table a winner changes between two runs only where a tie
 *    was declared.
 *  - Baseline: the fastest vendor record (any cuDNN path, cudnn_*, or
 *    PyTorch, torch_*) of the tier or a stricter one; its name, launch and
 *    time are in the row, and speedup = baseline median / winner median. */
#ifndef CONVT_SRC_SELECT_H
#define CONVT_SRC_SELECT_H

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

/* True for a vendor record's variant name (cudnn_*, torch_*). */
bool convt_is_vendor_variant(const char *variant);

/* A new selection document (caller frees with cJSON_Delete), NULL when out
 * of memory. `previous` is an earlier selection document whose choices break
 * ties, or NULL. */
cJSON *convt_select(const cJSON *results, const cJSON *previous);
/* The table for people: shape, tier, winner (its tier where stricter),
 * launch, time and noise, ties, the fastest vendor record and the speedup
 * over it, fraction of the floor; then per tier the geometric mean of the
 * speedups. markdown: a Markdown table instead of aligned text. */
void convt_selection_print(const cJSON *selection, bool markdown, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
