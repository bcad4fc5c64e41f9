/* A user's kernels, in their own folder, built against the installed
 * libconvt (pkg-config convt) into a plugin that convt-bench loads:
 *
 *   my_direct: a plain output-stationary loop over the taps that reach each
 *              output (correct for every PyTorch parameter);
 *   my_wrong:  the same loop with a planted bug (it drops the last input
 *              channel of each group), which convt-bench must report `wrong`.
 *
 * Both run on the CPU backend so that the walkthrough works on any machine;
 * a CUDA kernel is written the same way with .backend = CONVT_BACKEND_CUDA,
 * launched on ctx->stream (examples/plugin/README.md). */
#include <convt/variant.h>
#include <string.h>

static bool any_shape(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                      char *why, size_t why_len)
{
    (void)p, (void)l, (void)ctx, (void)why, (void)why_len;
    return true;
}

/* y[n][co][o] = b[co] + sum over ci of the group, taps k with
 * o = i*stride - pad + k*dil for a whole input position i. */
static int direct(const convt_problem *p, const convt_tensors *t, int drop_last_channel)
{
    convt_shape3 s = convt_problem_as_3d(p);
    int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    int64_t in_sp = s.in[0] * s.in[1] * s.in[2], out_sp = s.out[0] * s.out[1] * s.out[2];
    int64_t taps = s.k[0] * s.k[1] * s.k[2];
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t co = 0; co < p->cout; co++) {
            int64_t g = co / cout_g, col = co % cout_g;
            for (int64_t o = 0; o < out_sp; o++) {
                int64_t od[3] = {o / (s.out[1] * s.out[2]), o / s.out[2] % s.out[1], o % s.out[2]};
                float acc = t->b ? t->b[co] : 0.0f;
                for (int64_t ci = g * cin_g; ci < (g + 1) * cin_g - drop_last_channel; ci++)
                    for (int64_t k = 0; k < taps; k++) {
                        int64_t kd[3] = {k / (s.k[1] * s.k[2]), k / s.k[2] % s.k[1], k % s.k[2]};
                        int64_t i = 0;
                        int ok = 1;
                        for (int d = 0; d < 3 && ok; d++) {
                            int64_t num = od[d] + s.pad[d] - kd[d] * s.dil[d];
                            ok = num >= 0 && num % s.stride[d] == 0 && num / s.stride[d] < s.in[d];
                            i = i * s.in[d] + (ok ? num / s.stride[d] : 0);
                        }
                        if (ok)
                            acc += t->x[(n * p->cin + ci) * in_sp + i] *
                                   t->w[(ci * cout_g + col) * taps + k];
                    }
                t->y[(n * p->cout + co) * out_sp + o] = acc;
            }
        }
    return 0;
}

static int my_direct_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                            void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)l, (void)workspace, (void)state, (void)ctx, (void)e;
    return direct(p, t, 0);
}

static int my_wrong_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                           void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)l, (void)workspace, (void)state, (void)ctx, (void)e;
    return direct(p, t, p->cin / p->groups > 1);
}

static const convt_variant my_direct = {
    .name = "my_direct",
    .summary = "a user's plain direct loop (examples/plugin)",
    .backend = CONVT_BACKEND_CPU,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .supports = any_shape,
    .launch = my_direct_launch,
};

static const convt_variant my_wrong = {
    .name = "my_wrong",
    .summary = "the same loop, dropping the last input channel of each group (a planted bug)",
    .backend = CONVT_BACKEND_CPU,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .supports = any_shape,
    .launch = my_wrong_launch,
};

CONVT_PLUGIN_EXPORT const convt_plugin convt_plugin_entry = {
    .abi_version = CONVT_VARIANT_ABI_VERSION,
    .name = "my_kernels",
    .variants = (const convt_variant *const[]){&my_direct, &my_wrong, NULL},
};
