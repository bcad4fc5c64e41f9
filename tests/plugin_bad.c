/* Plugins that must be refused (tests/test_plugin.py): built with
 * -DBAD_ABI, one claiming another variant ABI; with -DCOLLIDE, one offering
 * a variant named like a built-in; with -DCRASH, one whose kernel
 * stores to an unmapped address (a crash in the worker costs one record). */
#include <convt/variant.h>
#include <stddef.h>
#include <stdint.h>

static bool any_shape(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                      char *why, size_t why_len)
{
    (void)p, (void)l, (void)ctx, (void)why, (void)why_len;
    return true;
}

static int crash(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                 void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)p, (void)l, (void)t, (void)workspace, (void)state, (void)ctx, (void)e;
    /* a wild store to the first page, which no process maps (not NULL
     * itself: UndefinedBehaviorSanitizer would stop the worker first) */
    volatile uintptr_t first_page = 64;
    *(volatile float *)first_page = 1.0f;
    return 0;
}

static const convt_variant bad = {
#ifdef COLLIDE
    .name = "cpu_gather",
#else
    .name = "bad_crash",
#endif
    .summary = "TESTING ONLY",
    .backend = CONVT_BACKEND_CPU,
    .tier = CONVT_TIER_FP32,
    .supports = any_shape,
    .launch = crash,
};

CONVT_PLUGIN_EXPORT const convt_plugin convt_plugin_entry = {
#ifdef BAD_ABI
    .abi_version = CONVT_VARIANT_ABI_VERSION + 1,
#else
    .abi_version = CONVT_VARIANT_ABI_VERSION,
#endif
    .name = "bad",
    .variants = (const convt_variant *const[]){&bad, NULL},
};
