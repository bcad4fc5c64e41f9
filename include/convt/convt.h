/* libconvt: the fastest validated transposed convolution for a shape, at run
 * time. convt-bench measures every variant on a device and writes a
 * selection table; a program loads the table and asks for a plan per shape:
 *
 *     convt_ctx *ctx;       convt_ctx_create(0, &ctx, &e);      // CUDA device 0 (-1: CPU)
 *     convt_table *table;   convt_table_load(ctx, "kb.selection.json", 0, &table, &e);
 *     convt_plan *plan;     convt_plan_create(ctx, table, &problem, CONVT_TIER_TF32, &plan, &e);
 *     size_t ws = convt_plan_workspace_size(plan);            // allocate ws bytes
 *     convt_execute(plan, x, w, b, y, workspace, stream, &e); // enqueued on stream
 *     convt_plan_destroy(plan); convt_table_destroy(table); convt_ctx_destroy(ctx);
 *
 * Which variant a plan runs (convt_plan_describe says, and why):
 *  1. "exact": the table's row of the same shape key and tier.
 *  2. "nearest": the nearest measured shape of the same class: same
 *     dimensionality, stride class (1, or the same stride), kernel class (the
 *     same kernel extent and dilation), group structure (dense, depthwise, or
 *     grouped), bias or not, inputs of one position (a latent: a GEMM) or
 *     not; nearest by the sum of |log| differences of the
 *     implicit GEMM's M (output pixels), N (output channels per group) and K
 *     (input channels per group times taps). Its variant and launch are used
 *     only if they support this shape; else the next nearest.
 *  3. "heuristic": no row of the class fits: a fixed order of this build's
 *     own variants for the tier (the polyphase implicit GEMM, then the
 *     direct grouped kernel, then the gather), the first that supports the
 *     shape with its first default launch; on a GPU a layer that is one
 *     GEMM (convt_problem_is_gemm) takes im2col_gemm's (images 0) first.
 *
 * No global mutable state: handles, streams, the plan cache and the plugins
 * belong to the context. Plan creation is thread-safe (one mutex per
 * context; run-time tuning holds only its table's) and cached per (shape,
 * tier, table): a second create returns the same plan with one more
 * reference; a plan may outlive its table. convt_execute may be called from
 * several threads: the enqueue itself is serialised per context, because the
 * context's cuBLAS and cuDNN handles are shared (set stream, then launch).
 * Tensors are in the context's memory: device pointers for a CUDA
 * context, host pointers for the CPU one; layouts are PyTorch's (NC[D]HW,
 * weight [Cin][Cout/groups][k...]). */
#ifndef CONVT_CONVT_H
#define CONVT_CONVT_H

#include <stddef.h>

#include "errors.h"
#include "problem.h"
#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version; a table written by another major version is refused. */
#define CONVT_VERSION_MAJOR 0
#define CONVT_VERSION_MINOR 1
/* The selection table's schema this library reads. */
#define CONVT_TABLE_SCHEMA 1

typedef struct convt_ctx convt_ctx;
typedef struct convt_table convt_table;
typedef struct convt_plan convt_plan;

/* device >= 0: that CUDA device; -1: the CPU backend (host memory). */
int convt_ctx_create(int device, convt_ctx **ctx, convt_err *e);
void convt_ctx_destroy(convt_ctx *ctx);
/* The device's name, as tables record it ("NVIDIA H100 80GB HBM3", or the CPU's). */
const char *convt_ctx_device_name(const convt_ctx *ctx);
/* Bytes a variant may ask for as workspace (default 4 GiB). */
void convt_ctx_set_workspace_limit(convt_ctx *ctx, size_t bytes);
/* Loads the variants of a plugin (convt/variant.h, CONVT_PLUGIN_ENTRY) into
 * this context: tables may name them and plans may run them. */
int convt_ctx_load_plugin(convt_ctx *ctx, const char *path, convt_err *e);

/* Table flags. */
#define CONVT_TABLE_ANY_DEVICE 1u /* use a table measured on another device model */

/* Reads a selection table written by convt-bench (X.selection.json). Refused,
 * with the reason: another schema or major version; another device model or
 * backend than ctx's unless CONVT_TABLE_ANY_DEVICE. Rows naming a variant
 * this build and ctx lack are kept out, and counted (convt_table_describe). */
int convt_table_load(convt_ctx *ctx, const char *path, unsigned flags, convt_table **table,
                     convt_err *e);
/* An empty table: every plan comes from the heuristic (or run-time tuning). */
int convt_table_empty(convt_ctx *ctx, convt_table **table, convt_err *e);
/* One line: file, device, rows used, rows left out and why. */
void convt_table_describe(const convt_table *table, char *buf, size_t len);
void convt_table_destroy(convt_table *table);

/* Run-time tuning: a shape the table has no exact row for is measured on
 * first use by convt-bench (validated against the float64 reference, timed
 * over the candidates, in a worker process: a faulting candidate costs its
 * record), and the winner is added to the table and written to `path`
 * (atomically) for the next run. convt-bench is CONVT_BENCH, or the one
 * installed beside this library. NULL path: off (the default). Refused for a
 * table of another device (CONVT_TABLE_ANY_DEVICE): one file, one device. */
int convt_table_enable_tuning(convt_table *table, const char *path, convt_err *e);

int convt_plan_create(convt_ctx *ctx, convt_table *table, const convt_problem *problem,
                      convt_tier tier, convt_plan **plan, convt_err *e);
/* "exact: polyphase_igemm_tf32 tile=6,bk=32,stages=3 (table row kb64_1d, 3.52 ms)";
 * where the variant runs an equivalent form of the problem
 * (convt_problem_for), ", run as KEY" inside the parentheses. */
void convt_plan_describe(const convt_plan *plan, char *buf, size_t len);
const char *convt_plan_variant(const convt_plan *plan);
/* "exact", "nearest", "heuristic" or "tuned". */
const char *convt_plan_rule(const convt_plan *plan);
size_t convt_plan_workspace_size(const convt_plan *plan);
/* Enqueues y = conv_transpose(x, w) + b on stream (a cudaStream_t, NULL
 * for the default stream; ignored on the CPU, where it runs now). b may be
 * NULL when the problem has no bias. */
int convt_execute(convt_plan *plan, const float *x, const float *w, const float *b, float *y,
                  void *workspace, void *stream, convt_err *e);
void convt_plan_destroy(convt_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
