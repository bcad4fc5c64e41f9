/* A plugin whose cost is a knob (tests/test_prune.py): paced_reference
 * writes every output element from the float64 reference point function,
 * `repeat` times over. Every launch is correct; repeat = 10 takes ten times
 * as long as repeat = 1, which is what measure.prune must notice and stop
 * after the first round, while repeat = 1 gets every round. */
#include <convt/reference.h>
#include <convt/variant.h>
#include <stddef.h>

static bool any_shape(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                      char *why, size_t why_len)
{
    (void)p, (void)l, (void)ctx, (void)why, (void)why_len;
    return true;
}

static int paced_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                        void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)workspace, (void)state, (void)ctx, (void)e;
    for (int64_t rep = 0; rep < l->value[0]; rep++)
        for (int64_t i = 0; i < convt_y_elems(p); i++) {
            double value, magnitude;
            convt_reference_point(p, t->x, t->w, t->b, i, &value, &magnitude);
            t->y[i] = (float)value;
        }
    return 0;
}

static const convt_variant paced = {
    .name = "paced_reference",
    .summary = "TESTING ONLY: the reference point function, repeat times over",
    .backend = CONVT_BACKEND_CPU,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 1,
    .knobs = {{"repeat", "times the whole output is computed", 2, {1, 10}}},
    .supports = any_shape,
    .launch = paced_launch,
};

CONVT_PLUGIN_EXPORT const convt_plugin convt_plugin_entry = {
    .abi_version = CONVT_VARIANT_ABI_VERSION,
    .name = "paced",
    .variants = (const convt_variant *const[]){&paced, NULL},
};
