/* A plugin whose cost is a knob (tests/test_prune.py): paced_reference
 * writes every output element from the float64 reference point function,
 * `repeat` times over. Every launch is correct; repeat = 10 takes ten times
 * as long as repeat = 1, which is what measure.prune must notice and stop
 * after the first round, while repeat = 1 gets every round.
 *
 * paced_fragile is the same, except that its fast launch (repeat = 1)
 * fails once the shape's output has moved to new memory, that is in the
 * second round of timing: the launch measure.prune stopped for being slow
 * must then get its other rounds, or the variant has nothing to select. */
#include <convt/reference.h>
#include <convt/variant.h>
#include <stddef.h>

static bool any_shape(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                      char *why, size_t why_len)
{
    (void)p, (void)l, (void)ctx, (void)why, (void)why_len;
    return true;
}

static void paced(const convt_problem *p, const convt_launch *l, const convt_tensors *t)
{
    for (int64_t rep = 0; rep < l->value[0]; rep++)
        for (int64_t i = 0; i < convt_y_elems(p); i++) {
            double value, magnitude;
            convt_reference_point(p, t->x, t->w, t->b, i, &value, &magnitude);
            t->y[i] = (float)value;
        }
}

static int paced_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                        void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)workspace, (void)state, (void)ctx, (void)e;
    paced(p, l, t);
    return 0;
}

static int fragile_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                          void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)workspace, (void)state, (void)ctx;
    static const convt_problem *shape; /* the shape seen last, and its first output */
    static const float *first_y;
    if (l->value[0] == 1) {
        if (shape != p) {
            shape = p;
            first_y = t->y;
        } else if (t->y != first_y) {
            return convt_fail(e, "TESTING ONLY: the fast launch fails once the output moved");
        }
    }
    paced(p, l, t);
    return 0;
}

/* both variants' one knob: the cost, 1x or 10x */
#define REPEAT_KNOB {"repeat", "times the whole output is computed", 2, {1, 10}}

static const convt_variant paced_variant = {
    .name = "paced_reference",
    .summary = "TESTING ONLY: the reference point function, repeat times over",
    .backend = CONVT_BACKEND_CPU,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 1,
    .knobs = {REPEAT_KNOB},
    .supports = any_shape,
    .launch = paced_launch,
};

static const convt_variant fragile = {
    .name = "paced_fragile",
    .summary = "TESTING ONLY: paced_reference whose repeat = 1 fails once the output moved",
    .backend = CONVT_BACKEND_CPU,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 1,
    .knobs = {REPEAT_KNOB},
    .supports = any_shape,
    .launch = fragile_launch,
};

CONVT_PLUGIN_EXPORT const convt_plugin convt_plugin_entry = {
    .abi_version = CONVT_VARIANT_ABI_VERSION,
    .name = "paced",
    .variants = (const convt_variant *const[]){&paced_variant, &fragile, NULL},
};
