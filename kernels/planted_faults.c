/* Planted faults (TESTING ONLY; compiled into convt-bench-faults, never into
 * convt-bench): CPU variants that crash, abort, never return, or return NaN,
 * as users' kernels do. A sweep over them and a good variant must finish
 * with every good record ok and each of these failed (or wrong) with its
 * cause: the orchestrator's worker processes (driver.h) are what makes
 * that true. tests/test_faults.c runs them in CI; tools/gpu-run.sh runs the
 * CUDA ones (planted_faults_cuda.cu) on a GPU with CONVT_FAULTS=1. */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "variant.h"

static bool any_shape(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                      char *why, size_t why_len)
{
    (void)p, (void)l, (void)ctx, (void)why, (void)why_len;
    return true;
}

static int segfault_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                           void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)p, (void)l, (void)t, (void)workspace, (void)state, (void)ctx, (void)e;
    /* a wild store, as an index bug makes one: to the first page, which no
     * process maps (not NULL itself: UndefinedBehaviorSanitizer would stop
     * the worker before the store, and the test wants the real signal) */
    volatile uintptr_t first_page = 64; /* read at run time: no compiler sees the target */
    *(volatile float *)first_page = 1.0f;
    return 0;
}

static int abort_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                        void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)p, (void)l, (void)t, (void)workspace, (void)state, (void)ctx, (void)e;
    abort(); /* a failed assert() in a user's kernel */
}

static int spin_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                       void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)p, (void)l, (void)t, (void)workspace, (void)state, (void)ctx, (void)e;
    for (volatile int forever = 1; forever;)
        ; /* a loop whose exit condition never holds */
    return 0;
}

static int nan_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                      void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)l, (void)workspace, (void)state, (void)ctx, (void)e;
    for (int64_t i = 0; i < convt_y_elems(p); i++)
        t->y[i] = NAN;
    return 0;
}

#define PLANTED(NAME, IDEA, LAUNCH)                                                          \
    const convt_variant convt_variant_##NAME = {                                              \
        .name = #NAME,                                                                        \
        .summary = "TESTING ONLY: " IDEA,                                                     \
        .backend = CONVT_BACKEND_CPU,                                                         \
        .tier = CONVT_TIER_FP32,                                                              \
        .deterministic = true,                                                                \
        .supports = any_shape,                                                                \
        .launch = LAUNCH,                                                                     \
    }

PLANTED(planted_segfault, "stores through a null pointer (SIGSEGV)", segfault_launch);
PLANTED(planted_abort, "calls abort() (SIGABRT)", abort_launch);
PLANTED(planted_spin, "never returns", spin_launch);
PLANTED(planted_nan, "writes NaN everywhere (a wrong result, not a crash)", nan_launch);
