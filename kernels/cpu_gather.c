/* cpu_gather: the gather form on the CPU, one output row at a time.
 *
 * Each (n, co, o0, o1) row of the output is owned by one OpenMP thread, which
 * for every output position sums over the input channels of the group and
 * the taps that reach it (convt_gather_src). float32 accumulation, fixed
 * order: deterministic. The CPU backend's counterpart of CUDA `gather`.
 *
 *   convt-bench --backend cpu --config configs/sweep.json */
#include <stddef.h>
#include <time.h>

#include "build_config.h"

#include "cpu_common.h"
#include "hostdevice.h"
#include "stride_phase.h"
#include "variant.h"

extern const convt_variant convt_variant_cpu_gather;

static bool cpu_gather_supports(const convt_problem *p, const convt_launch *l,
                                const convt_context *ctx, char *why, size_t why_len)
{
    (void)p, (void)ctx;
    return cpu_check_threads(convt_launch_get(&convt_variant_cpu_gather, l, "threads"), why, why_len);
}

#if CONVT_PLANTED_DELAY_US > 0
/* A planted slowdown (meson -Dplanted_delay_us=N, testing only): proves that
 * compare catches a real regression (tools/check-slowdown.sh). */
static void planted_delay(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 <
           CONVT_PLANTED_DELAY_US);
}
#endif

static int cpu_gather_launch(const convt_problem *p, const convt_launch *l,
                             const convt_tensors *t, void *workspace, void *state,
                             const convt_context *ctx, convt_err *e)
{
    (void)workspace, (void)state, (void)ctx, (void)e;
    const convt_shape3 s = convt_problem_as_3d(p);
    const int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    const int64_t rows = p->n * p->cout * s.out[0] * s.out[1];
    const float *x = t->x, *w = t->w, *b = t->b;
    float *y = t->y;
    int nt = cpu_threads(convt_launch_get(&convt_variant_cpu_gather, l, "threads"));
    (void)nt;
#if CONVT_PLANTED_DELAY_US > 0
    planted_delay();
#endif
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t row = 0; row < rows; row++) {
        int64_t o1 = row % s.out[1], r = row / s.out[1];
        int64_t o0 = r % s.out[0];
        r /= s.out[0];
        int64_t co = r % p->cout, n = r / p->cout;
        int64_t g = co / cout_g, col = co - g * cout_g;
        float *yrow = y + row * s.out[2];
        for (int64_t o2 = 0; o2 < s.out[2]; o2++) {
            float acc = b ? b[co] : 0.0f;
            for (int64_t ci = g * cin_g; ci < (g + 1) * cin_g; ci++)
                for (int64_t k0 = 0; k0 < s.k[0]; k0++) {
                    int64_t i0 = convt_gather_src(o0, k0, s.stride[0], s.pad[0], s.dil[0], s.in[0]);
                    if (i0 < 0)
                        continue;
                    for (int64_t k1 = 0; k1 < s.k[1]; k1++) {
                        int64_t i1 =
                            convt_gather_src(o1, k1, s.stride[1], s.pad[1], s.dil[1], s.in[1]);
                        if (i1 < 0)
                            continue;
                        const float *xrow =
                            x + ((n * p->cin + ci) * s.in[0] + i0) * s.in[1] * s.in[2] +
                            i1 * s.in[2];
                        const float *wrow =
                            w + ((ci * cout_g + col) * s.k[0] + k0) * s.k[1] * s.k[2] +
                            k1 * s.k[2];
                        for (int64_t k2 = 0; k2 < s.k[2]; k2++) {
                            int64_t i2 = convt_gather_src(o2, k2, s.stride[2], s.pad[2],
                                                          s.dil[2], s.in[2]);
                            if (i2 >= 0)
                                acc += xrow[i2] * wrow[k2];
                        }
                    }
                }
            yrow[o2] = acc;
        }
    }
    return 0;
}

const convt_variant convt_variant_cpu_gather = {
    .name = "cpu_gather",
    .summary = "CPU gather: each output row owned by one OpenMP thread, taps filtered by divisibility",
    .backend = CONVT_BACKEND_CPU,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 1,
    .knobs = {{.name = "threads", .help = "OpenMP threads (0: all)", .n_defaults = 1, .defaults = {0}}},
    .supports = cpu_gather_supports,
    .launch = cpu_gather_launch,
};
