/* cpu_scatter: the scatter form on the CPU.
 *
 * Walks the input instead of the output: every input element x[n][ci][i]
 * adds x*w[ci][co][k] into y[n][co][i*stride - pad + k*dil] for each tap k
 * that lands inside the output. To scatter without atomics, each OpenMP
 * thread owns whole output planes y[n][co] and visits the input channels of
 * co's group; the plane starts from the bias (or zero), inside the launch.
 * Deterministic: each plane is summed in one fixed order.
 *
 *   convt-bench --backend cpu --config configs/sweep.json */
#include <stddef.h>

#include "cpu_common.h"
#include "stride_phase.h"
#include "variant.h"

extern const convt_variant convt_variant_cpu_scatter;

static bool cpu_scatter_supports(const convt_problem *p, const convt_launch *l,
                                 const convt_context *ctx, char *why, size_t why_len)
{
    (void)p, (void)ctx;
    return cpu_check_threads(convt_launch_get(&convt_variant_cpu_scatter, l, "threads"), why, why_len);
}

static int cpu_scatter_launch(const convt_problem *p, const convt_launch *l,
                              const convt_tensors *t, void *workspace, void *state,
                              const convt_context *ctx, convt_err *e)
{
    (void)workspace, (void)state, (void)ctx, (void)e;
    const convt_shape3 s = convt_problem_as_3d(p);
    const int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    const int64_t plane = s.out[0] * s.out[1] * s.out[2];
    const int64_t in_plane = s.in[0] * s.in[1] * s.in[2];
    const int64_t taps = s.k[0] * s.k[1] * s.k[2];
    int nt = cpu_threads(convt_launch_get(&convt_variant_cpu_scatter, l, "threads"));
    (void)nt;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int64_t nco = 0; nco < p->n * p->cout; nco++) {
        int64_t co = nco % p->cout, n = nco / p->cout;
        int64_t g = co / cout_g, col = co - g * cout_g;
        float *yp = t->y + nco * plane;
        float init = t->b ? t->b[co] : 0.0f;
        for (int64_t j = 0; j < plane; j++)
            yp[j] = init;
        for (int64_t ci = g * cin_g; ci < (g + 1) * cin_g; ci++) {
            const float *xp = t->x + (n * p->cin + ci) * in_plane;
            const float *wp = t->w + (ci * cout_g + col) * taps;
            for (int64_t i0 = 0; i0 < s.in[0]; i0++)
                for (int64_t i1 = 0; i1 < s.in[1]; i1++)
                    for (int64_t i2 = 0; i2 < s.in[2]; i2++) {
                        float xv = xp[(i0 * s.in[1] + i1) * s.in[2] + i2];
                        for (int64_t k0 = 0; k0 < s.k[0]; k0++) {
                            int64_t o0 = convt_scatter_dst(i0, k0, s.stride[0], s.pad[0], s.dil[0]);
                            if (o0 < 0 || o0 >= s.out[0])
                                continue;
                            for (int64_t k1 = 0; k1 < s.k[1]; k1++) {
                                int64_t o1 = convt_scatter_dst(i1, k1, s.stride[1], s.pad[1], s.dil[1]);
                                if (o1 < 0 || o1 >= s.out[1])
                                    continue;
                                for (int64_t k2 = 0; k2 < s.k[2]; k2++) {
                                    int64_t o2 = convt_scatter_dst(i2, k2, s.stride[2], s.pad[2], s.dil[2]);
                                    if (o2 < 0 || o2 >= s.out[2])
                                        continue;
                                    yp[(o0 * s.out[1] + o1) * s.out[2] + o2] +=
                                        xv * wp[(k0 * s.k[1] + k1) * s.k[2] + k2];
                                }
                            }
                        }
                    }
        }
    }
    return 0;
}

const convt_variant convt_variant_cpu_scatter = {
    .name = "cpu_scatter",
    .summary = "CPU scatter: walk the input, add into output planes owned per thread (no atomics)",
    .backend = CONVT_BACKEND_CPU,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 1,
    .knobs = {{.name = "threads", .help = "OpenMP threads (0: all)", .n_defaults = 1, .defaults = {0}}},
    .supports = cpu_scatter_supports,
    .launch = cpu_scatter_launch,
};
