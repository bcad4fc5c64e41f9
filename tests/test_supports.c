/* Every variant's supports(), run on the host with a described device (no
 * GPU needed): default launches of a plain shape are accepted, and every
 * refusal comes with a reason that names the knob or limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "build_config.h"
#include "fold_phases.h"
#include "row_fold.h"
#include "variant.h"

/* An H100 as cudaGetDeviceProperties describes it. */
static const convt_device_info h100 = {.name = "described H100",
                                       .backend = CONVT_BACKEND_CUDA,
                                       .cc_major = 9,
                                       .cc_minor = 0,
                                       .sm_count = 132,
                                       .max_threads_per_block = 1024,
                                       .smem_per_block = 48 * 1024,
                                       .smem_per_block_optin = 227 * 1024};

static convt_context ctx_with(size_t workspace)
{
    return (convt_context){.dev = &h100, .workspace_limit = workspace};
}

static convt_problem plain(void)
{
    convt_problem p = convt_problem_default(2);
    p.n = 2, p.cin = 16, p.cout = 32, p.in[0] = 20, p.in[1] = 24, p.k[0] = p.k[1] = 3;
    p.stride[0] = 2, p.pad[0] = 1, p.out_pad[0] = 1, p.bias = true;
    return p;
}

/* Expects v to accept launch l on p; a failure names `what` and v's reason. */
static void accepts(const convt_variant *v, const convt_problem *p, const convt_launch *l,
                    const convt_context *ctx, const char *what)
{
    char why[512] = "";
    if (!v->supports(p, l, ctx, why, sizeof why))
        fail_msg("%s refused %s: %s", v->name, what, why);
}

/* v's first default launch with knobs[i] set to values[i]. */
static convt_launch launch_with(const convt_variant *v, int n, const char *const *knobs,
                                const int64_t *values)
{
    convt_launch l = convt_launch_first_default(v);
    for (int i = 0; i < n; i++)
        l.value[convt_knob_index(v, knobs[i])] = values[i];
    return l;
}

/* `variant`'s supports() on its first default launch with knobs[i] set to
 * values[i]: 1 or 0 (why says why), -1 where the variant is not built into
 * this binary. */
static int supports_with(const char *variant, const convt_problem *p, int n,
                         const char *const *knobs, const int64_t *values, size_t workspace,
                         char *why, size_t why_len)
{
    const convt_variant *v = convt_variant_find(variant);
    if (!v)
        return -1;
    const convt_launch l = launch_with(v, n, knobs, values);
    const convt_context ctx = ctx_with(workspace);
    return v->supports(p, &l, &ctx, why, why_len);
}

/* Expects `variant` (if built) to accept that launch on p. */
static void accepts_with(const char *variant, const convt_problem *p, int n,
                         const char *const *knobs, const int64_t *values, size_t workspace,
                         const char *what)
{
    char why[512] = "";
    if (supports_with(variant, p, n, knobs, values, workspace, why, sizeof why) == 0)
        fail_msg("%s refused %s: %s", variant, what, why);
}

/* Expects `variant` (if built) to refuse its first default launch with
 * knobs[i] set to values[i] on p, with a reason containing `fragment`. */
static void refuses_with(const char *variant, const convt_problem *p, int n,
                         const char *const *knobs, const int64_t *values, size_t workspace,
                         const char *fragment)
{
    char why[512] = "";
    const int ok = supports_with(variant, p, n, knobs, values, workspace, why, sizeof why);
    if (ok < 0)
        return; /* not built into this binary */
    if (ok)
        fail_msg("%s accepted %s = %lld%s", variant, n ? knobs[0] : "(defaults)",
                 n ? (long long)values[0] : 0LL, n > 1 ? " and the rest" : "");
    if (!strstr(why, fragment))
        fail_msg("%s: reason \"%s\" lacks \"%s\"", variant, why, fragment);
}

/* The same with one knob set (none where knob is NULL). */
static void refuses(const char *variant, const convt_problem *p, const char *knob, int64_t value,
                    size_t workspace, const char *fragment)
{
    refuses_with(variant, p, knob ? 1 : 0, &knob, &value, workspace, fragment);
}

/* The same with two knobs set. */
static void refuses2(const char *variant, const convt_problem *p, const char *knob1,
                     int64_t value1, const char *knob2, int64_t value2, size_t workspace,
                     const char *fragment)
{
    const char *knobs[2] = {knob1, knob2};
    const int64_t values[2] = {value1, value2};
    refuses_with(variant, p, 2, knobs, values, workspace, fragment);
}

/* Every default launch of v on p is accepted; but three knobs' second
 * values need more shared memory and may be refused for it, as long as
 * some launch with that value is accepted: ping-pong's resident = 1 (the
 * whole weight image beside the stages), and, at the wider bk, the wgmma
 * variants' plane = 1 (a tap plane's weights, every tap of the phase here,
 * and a longer stretch) and co_block = 256 (the weights of 256 channels:
 * the folded and split-K kernels' knob, polyphase_wgmma_wide_tf32's every
 * launch), which is refused outright where the channels the launch computes
 * (folded or not) are 128 or fewer per group; split-K's fold = 1 where
 * p does not fold; and im2col_gemm's merge = 1 with images = 1. */
static void accepts_every_default(const convt_variant *v, const convt_problem *p)
{
    convt_context ctx = ctx_with((size_t)4 << 30);
    const int plane = convt_knob_index(v, "plane");
    const int co_block = convt_knob_index(v, "co_block");
    const int fold = convt_knob_index(v, "fold");
    /* a partial fold's (fold_phases.h): the fold_inner variant's, and split-K's
     * with fold = 1, where 0 is the whole fold (CONVT_FOLD_ALL) */
    const int fold_dims = convt_knob_index(v, "fold_dims");
    const int resident = convt_knob_index(v, "resident");
    const bool always_wide = !strcmp(v->name, "polyphase_wgmma_wide_tf32");
    const bool always_folded = !strcmp(v->name, "polyphase_wgmma_fold_tf32") ||
                               !strcmp(v->name, "polyphase_wgmma_fold_3xtf32") ||
                               !strcmp(v->name, "polyphase_wgmma_fold_inplace_tf32") ||
                               !strcmp(v->name, "polyphase_wgmma_fold_inner_tf32");
    int plane_accepted = 0, plane_could_run = 0, co_block_accepted = 0, co_block_could_run = 0;
    int resident_accepted = 0, resident_tried = 0;
    const int stages = convt_knob_index(v, "stages");
    const bool five_stage_default = !strcmp(v->name, "polyphase_wgmma_tf32") && stages >= 0;
    /* 3xTF32's chunks of 32 (its folded and split-K kernels): a stage of
     * both parts of both operands fits only taps few enough */
    const int bk = convt_knob_index(v, "bk");
    int deep_accepted = 0, deep_tried = 0;
    /* the product of every knob's defaults */
    int at[CONVT_MAX_KNOBS] = {0};
    for (;;) {
        convt_launch l = {{0}};
        for (int k = 0; k < v->n_knobs; k++)
            l.value[k] = v->knobs[k].defaults[at[k]];
        char why[512] = "", fold_why[200];
        const int inner = fold_dims >= 0 ? (int)l.value[fold_dims] : CONVT_FOLD_ALL;
        const bool folds = !convt_fold_check(p, inner, fold_why, sizeof fold_why);
        const bool ok = v->supports(p, &l, &ctx, why, sizeof why);
        const bool wide = always_wide || (co_block >= 0 && l.value[co_block] == 256);
        /* the channels per group of the problem the launch computes */
        const bool folded = folds && (always_folded || (fold >= 0 && l.value[fold] == 1));
        const int64_t channels = (folded ? convt_fold_problem(p, inner).cout : p->cout) / p->groups;
        const bool resides = resident >= 0 && l.value[resident] == 1;
        /* polyphase_wgmma_tf32's 5-stage default fits only small stages */
        const bool deep = five_stage_default && l.value[stages] == 5;
        const bool wide_chunks = v->tier == CONVT_TIER_FP32 && bk >= 0 && l.value[bk] == 32;
        const bool may_refuse =
            (((plane >= 0 && l.value[plane] == 1) || wide || deep || wide_chunks) && strstr(why, "shared memory")) ||
            (resides && strstr(why, "resident = 1 needs")); /* too large, or (the row fold) without ping-pong */
        const bool few_channels = wide && channels <= 128 && strstr(why, "is for more than 128 output channels");
        const bool no_fold = fold >= 0 && l.value[fold] == 1 &&
                             ((!folds && !strcmp(why, fold_why)) ||
                              (plane >= 0 && l.value[plane] == 1 &&
                               strstr(why, "plane = 1 is for the stride phases apart")));
        /* clusters: a shape whose every phase fits one tile leaves the second block none */
        const bool one_tile = strstr(why, "a cluster's second block would have none") != NULL;
        /* the weights in place: a tap row's box must be rows of 16 bytes and
         * one stretch of w (fold_box.h); the 1-D k 4 shape has both */
        const bool no_box = !strcmp(v->name, "polyphase_wgmma_fold_inplace_tf32") &&
                            (strstr(why, "are no multiple of 4") || strstr(why, "along dimension 0") ||
                             (!folds && !strcmp(why, fold_why)));
        /* a partial fold of every dimension is polyphase_wgmma_fold_tf32's (or
         * split-K's fold_dims = 0); split-K's fold_dims > 0 needs fold = 1 */
        const bool whole_fold = fold_dims >= 0 && inner >= p->dims && strstr(why, "folds every dimension");
        const bool apart_dims = fold >= 0 && l.value[fold] == 0 && fold_dims >= 0 && inner != CONVT_FOLD_ALL &&
                                strstr(why, "chooses the dimensions that fold = 1 folds");
        /* 3xTF32's consumers in turn (knob turns) are the channels-as-M kernel's */
        const int turns = convt_knob_index(v, "turns"), pos_m = convt_knob_index(v, "pos_m");
        const bool turns_positions = turns >= 0 && pos_m >= 0 && l.value[turns] == 1 && l.value[pos_m] == 1 &&
                                     !strcmp(why, "turns = 1 is the kernel with output channels as M (pos_m = 0)");
        /* im2col_gemm's merge = 1 needs a batch of two images or more (images = 1 is the other default) */
        const bool merge_one = convt_knob_index(v, "merge") >= 0 &&
                               l.value[convt_knob_index(v, "merge")] == 1 &&
                               strstr(why, "merge = 1 with one image a GEMM");
        if (!ok && !may_refuse && !few_channels && !no_fold && !one_tile && !no_box && !whole_fold &&
            !apart_dims && !turns_positions && !merge_one)
            fail_msg("%s refused a default launch: %s", v->name, why);
        plane_accepted += ok && plane >= 0 && l.value[plane] == 1;
        plane_could_run += plane >= 0 && l.value[plane] == 1 && !few_channels && !no_fold;
        co_block_accepted += ok && wide;
        co_block_could_run += wide && channels > 128 && !no_fold;
        resident_accepted += ok && resides;
        resident_tried += resides;
        deep_accepted += ok && deep;
        deep_tried += deep;
        int k = v->n_knobs - 1;
        while (k >= 0 && ++at[k] == v->knobs[k].n_defaults)
            at[k--] = 0;
        if (k < 0)
            break;
    }
    if (plane_could_run > 0 && plane_accepted == 0)
        fail_msg("%s refused every default launch with plane = 1", v->name);
    if (co_block_could_run > 0 && co_block_accepted == 0)
        fail_msg("%s refused every default launch with co_block = 256", v->name);
    if (resident_tried > 0 && resident_accepted == 0)
        fail_msg("%s refused every default launch with resident = 1", v->name);
    if (deep_tried > 0 && deep_accepted == 0)
        fail_msg("%s refused every default launch with 5 stages", v->name);
}

/* PyTorch's 3-D decoder layer: k 3, stride 2, pad 1, out_pad 1 (a volume
 * of in^3 inputs to twice that), which folds along one or two of its
 * innermost dimensions but not whole (27 of 64 padded taps are w's). */
static convt_problem decoder_volume(int64_t n, int64_t cin, int64_t cout, int64_t in)
{
    convt_problem p = convt_problem_default(3);
    p.n = n, p.cin = cin, p.cout = cout;
    for (int d = 0; d < 3; d++)
        p.in[d] = in, p.k[d] = 3, p.stride[d] = 2, p.pad[d] = 1, p.out_pad[d] = 1;
    return p;
}

static void every_default_launch_is_accepted(void **state)
{
    (void)state;
    const convt_problem p = plain();
    convt_problem whole = p; /* a kernel of whole strides: polyphase_wgmma_fold_tf32 takes it */
    whole.k[0] = 4;
    int variants = 0;
    convt_problem unit = p; /* stride 1: fft_overlap_save and rows_tma_tf32 take only that */
    unit.stride[0] = 1, unit.out_pad[0] = 0;
    for (const convt_variant *const *v = convt_variants; *v; v++) {
        if (!strcmp((*v)->name, "fft_overlap_save") || !strcmp((*v)->name, "rows_tma_tf32")) {
            accepts_every_default(*v, &unit);
            variants++;
            continue;
        }
        if (!strcmp((*v)->name, "polyphase_wgmma_fold_inner_tf32")) {
            /* a partial fold is of 2-D and 3-D shapes (refusals_name_their_reason):
             * PyTorch's decoder layer, k 3 stride 2, folded along one or two
             * innermost dimensions, and a 2-D one of 80 channels (160 folded,
             * co_block = 256 runs) */
            const convt_problem vol = decoder_volume(2, 24, 16, 6);
            convt_problem img = convt_problem_default(2);
            img.n = 2, img.cin = 16, img.cout = 80;
            for (int d = 0; d < 2; d++)
                img.in[d] = 12, img.k[d] = 3, img.stride[d] = 2, img.pad[d] = 1, img.out_pad[d] = 1;
            accepts_every_default(*v, &vol);
            accepts_every_default(*v, &img);
            variants++;
            continue;
        }
        if (!strcmp((*v)->name, "polyphase_wgmma_fold_posm_3xtf32")) {
            /* the fold with positions as M takes up to 32 folded channels a
             * group (wgmma's N; refusals_name_their_reason): whole's k 4 at
             * stride 2 of 3 channels (6 folded, N 8), a 2-D layer to RGB
             * (k 4 stride 2: 4 phases x 3 = 12, N 16) and a 1-D one of stride
             * 5 to 5 channels (25, S no power of two, N 32) */
            convt_problem few = whole;
            few.cout = 3;
            convt_problem rgb = convt_problem_default(2);
            rgb.n = 2, rgb.cin = 16, rgb.cout = 3;
            for (int d = 0; d < 2; d++)
                rgb.in[d] = 9, rgb.k[d] = 4, rgb.stride[d] = 2, rgb.pad[d] = 1;
            convt_problem s5 = whole;
            s5.cout = 5, s5.k[0] = 10, s5.stride[0] = 5, s5.pad[0] = 2;
            accepts_every_default(*v, &few);
            accepts_every_default(*v, &rgb);
            accepts_every_default(*v, &s5);
            variants++;
            continue;
        }
        if (!strcmp((*v)->name, "polyphase_wgmma_rowfold_tf32")) {
            /* the row fold (src/lib/row_fold.h) is of stride-1 rows, an even
             * input along them: unit's 20 rows, and a 3-D volume of stride 1
             * (its middle dimension's 6), of 8 input channels so that the
             * resident image (18 folded taps x 16 channels) fits */
            convt_problem vol = decoder_volume(2, 8, 16, 6);
            for (int d = 0; d < 3; d++)
                vol.stride[d] = 1, vol.out_pad[d] = 0;
            accepts_every_default(*v, &unit);
            accepts_every_default(*v, &vol);
            variants++;
            continue;
        }
        if (!strncmp((*v)->name, "polyphase_wgmma_splitk_", strlen("polyphase_wgmma_splitk_"))) {
            /* split-K's defaults (either precision's) (fold_dims 0 alone) on the same short
             * decoder volume: its whole fold refused (27 of 64 taps are
             * w's), the rest run; fold_dims 1 and 2 are taken below
             * (refusals_name_their_reason) */
            const convt_problem vol = decoder_volume(2, 24, 16, 6);
            accepts_every_default(*v, &vol);
        }
        /* the folded kernel refuses k = 3 at stride 2 (refusals_name_their_reason) */
        if (strcmp((*v)->name, "polyphase_wgmma_fold_tf32") && strcmp((*v)->name, "polyphase_wgmma_fold_3xtf32") &&
            strcmp((*v)->name, "polyphase_wgmma_fold_inplace_tf32"))
            accepts_every_default(*v, &p);
        accepts_every_default(*v, &whole);
        if (!strcmp((*v)->name, "polyphase_wgmma_fold_tf32")) {
            /* 80 channels x 2 phases: 160 folded, co_block = 256 runs */
            convt_problem many = whole;
            many.cout = 80;
            accepts_every_default(*v, &many);
        }
        if (!strcmp((*v)->name, "polyphase_wgmma_wide_tf32") ||
            !strcmp((*v)->name, "polyphase_wgmma_splitk_tf32") ||
            !strcmp((*v)->name, "polyphase_wgmma_cluster_tf32")) {
            /* 160 channels unfolded, k 4 x 1 (a tap plane's 2 taps of
             * 256 channels fit where whole's 6 do not): co_block = 256
             * runs, folded or not */
            convt_problem many = convt_problem_default(2);
            many.n = 2, many.cin = 16, many.cout = 160, many.in[0] = 20, many.in[1] = 24;
            many.k[0] = 4, many.k[1] = 1, many.stride[0] = 2, many.pad[0] = 1, many.bias = true;
            accepts_every_default(*v, &many);
        }
        variants++;
    }
    assert_true(variants >= 2);
}

static void refusals_name_their_reason(void **state)
{
    (void)state;
    convt_problem p = plain();
    size_t ws = (size_t)4 << 30;
    refuses("gather", &p, "block", 100, ws, "block = 100 must be a multiple of 32");
    refuses("gather", &p, "block", 2048, ws, "in [32, 1024]");
    refuses("gather", &p, "outs", 3, ws, "outs = 3 must be 1, 2 or 4");
    refuses("gather", &p, "wcache", 2, ws, "wcache = 2 must be 0 or 1");
    refuses("scatter_atomic", &p, "cout_per_thread", 64, ws, "exceeds the 32 output channels");
    refuses("scatter_atomic", &p, "block", 0, ws, "block = 0");
    refuses("tiled_smem", &p, "tile_co", 5, ws, "tile_co = 5 must be 4, 8 or 16");
    refuses("tiled_smem", &p, "tile_w", 48, ws, "tile_w = 48 must be a multiple of 32");
    refuses("tiled_smem", &p, "tile_ci", 100000, ws, "unroll = 1 needs tile_ci = 8");
    refuses("tiled_smem", &p, "unroll", 2, ws, "unroll = 2 must be 0 or 1");
    refuses("polyphase_igemm_tf32", &p, "tile", 10, ws, "tile = 10 must be 0..9");
    refuses("polyphase_igemm_3xtf32", &p, "tile", 6, ws, "tile = 6 is compiled for TF32 only");
    convt_problem tall = convt_problem_default(1);
    tall.n = 1 << 20, tall.cin = tall.cout = 4, tall.in[0] = 4096, tall.k[0] = 3;
    /* 2^20 images x 4098 outputs: one phase's rows overflow the kernel's int */
    refuses("polyphase_igemm_tf32", &tall, NULL, 0, ws, "output positions in one stride phase");
    refuses("polyphase_igemm_tf32", &p, "bk", 12, ws, "bk = 12 must be 8, 16 or 32");
    refuses("polyphase_igemm_3xtf32", &p, "stages", 5, ws, "stages = 5 must be 2, 3 or 4");
    /* offsets of ~2^30 wrapped the kernels' ints (a reviewer's input: the
     * wgmma kernel read the wrong rows, 4080 of 4096 outputs wrong) */
    convt_problem far = convt_problem_default(1);
    far.n = 1, far.cin = far.cout = 16, far.in[0] = 256, far.k[0] = 3;
    far.dil[0] = (int64_t)1 << 30, far.pad[0] = (int64_t)1 << 30; /* out = 256 */
    const char *far_why = "(k - 1) x dilation + padding + output size over 2^31";
    refuses("polyphase_igemm_tf32", &far, NULL, 0, ws, far_why);
    refuses("polyphase_wgmma_tf32", &far, NULL, 0, ws, far_why);
    convt_problem many_co = convt_problem_default(1); /* 2^23 output channels */
    many_co.n = 1, many_co.cin = 1, many_co.cout = (int64_t)1 << 23, many_co.in[0] = 1, many_co.k[0] = 1;
    refuses("polyphase_igemm_tf32", &many_co, NULL, 0, (size_t)1 << 40, "exceed the grid's y limit");
    refuses("polyphase_wgmma_tf32", &many_co, NULL, 0, (size_t)1 << 40, "exceed the grid's y limit");
    /* sm_90a builds only */
    refuses("polyphase_wgmma_tf32", &p, "bn", 100, ws, "bn = 100 must be 0 (chosen for the shape) or 64 to 256 in steps of 16");
    refuses("polyphase_wgmma_tf32", &p, "bk", 12, ws, "bk = 12 must be 8, 16 or 32");
    refuses("polyphase_wgmma_tf32", &p, "stages", 2, ws, "stages = 2 must be 3, 4 or 5");
    refuses("polyphase_wgmma_tf32", &p, "kpad", 32, ws, "kpad = 32 must be 0 or 64");
    convt_problem long_k = p; /* 31 taps in a row at bk 32, 3 stages: over 227 KiB */
    long_k.k[1] = 31, long_k.cout = 128;
    refuses("polyphase_wgmma_tf32", &long_k, "bk", 32, ws, "31 taps staged together");
    /* 3xTF32: its partial sums cap the width at 160, a stage holds two parts */
    refuses("polyphase_wgmma_3xtf32", &p, "bn", 176, ws, "bn = 176 must be 0 (chosen for the shape) or 64 to 160 in steps of 16");
    refuses("polyphase_wgmma_3xtf32", &p, "bk", 32, ws, "bk = 32 must be 8 or 16");
    refuses("polyphase_wgmma_3xtf32", &long_k, "bk", 16, ws, "31 taps staged together");
    /* positions as M: wgmma's N holds the group's channels, up to 32 */
    refuses("polyphase_wgmma_tf32", &p, "pos_m", 2, ws, "pos_m = 2 must be 0");
    /* tap planes: 0 or 1; where every plane is one row (1-D), nothing to gain */
    refuses("polyphase_wgmma_tf32", &p, "plane", 2, ws, "plane = 2 must be 0");
    convt_problem one_d = convt_problem_default(1);
    one_d.n = 2, one_d.cin = 16, one_d.cout = 32, one_d.in[0] = 40, one_d.k[0] = 5;
    refuses("polyphase_wgmma_tf32", &one_d, "plane", 1, ws, "would stage what plane = 0 does");
    refuses("polyphase_wgmma_3xtf32", &one_d, "plane", 1, ws, "would stage what plane = 0 does");
    convt_problem many_per_group = p;
    many_per_group.cout = 40;
    const convt_variant *wg3 = convt_variant_find("polyphase_wgmma_3xtf32");
    if (wg3) {
        convt_context ctx = ctx_with(ws);
        convt_launch l = convt_launch_first_default(wg3);
        l.value[convt_knob_index(wg3, "pos_m")] = 1;
        char why[512] = "";
        /* the consumers in turn are the channels-as-M kernel's */
        l.value[convt_knob_index(wg3, "turns")] = 1;
        assert_false(wg3->supports(&p, &l, &ctx, why, sizeof why));
        assert_non_null(strstr(why, "turns = 1 is the kernel with output channels as M"));
        l.value[convt_knob_index(wg3, "turns")] = 2;
        l.value[convt_knob_index(wg3, "pos_m")] = 0;
        assert_false(wg3->supports(&p, &l, &ctx, why, sizeof why));
        assert_non_null(strstr(why, "turns = 2 must be 0"));
        l.value[convt_knob_index(wg3, "turns")] = 0;
        l.value[convt_knob_index(wg3, "pos_m")] = 1;
        assert_false(wg3->supports(&many_per_group, &l, &ctx, why, sizeof why));
        assert_non_null(strstr(why, "up to 32 output channels per group"));
        l.value[convt_knob_index(wg3, "bn")] = 80; /* compiled at 64, 128, 256 only */
        assert_false(wg3->supports(&p, &l, &ctx, why, sizeof why));
        assert_non_null(strstr(why, "bn = 80 must be 0 (chosen for the shape), 64, 128 or 256"));
        l.value[convt_knob_index(wg3, "bn")] = 256; /* 3xTF32's partial sums fit there */
        assert_true(wg3->supports(&p, &l, &ctx, why, sizeof why));
    }
    /* column sets (polyphase_wgmma_colsum_tf32): positions as M, stride 1
     * and 3, 5 or 7 taps along the innermost dimension, widths 64 and 128 where
     * the sets' accumulators fit */
    convt_problem dense = convt_problem_default(3); /* kb70 at a tenth of its size */
    dense.n = 2, dense.cin = 48, dense.cout = 24, dense.in[0] = dense.in[1] = dense.in[2] = 10;
    dense.k[0] = dense.k[1] = dense.k[2] = 3;
    const convt_variant *wcs = convt_variant_find("polyphase_wgmma_colsum_tf32");
    if (wcs) {
        convt_context ctx = ctx_with(ws);
        convt_launch l = convt_launch_first_default(wcs);
        l.value[convt_knob_index(wcs, "bk")] = 16; /* at 32, a plane's 9 taps fill 227 KiB at bn 128 */
        char why[512] = "";
        for (int bn = 0; bn <= 128; bn += 64)
            for (int plane = 0; plane <= 1; plane++) {
                l.value[convt_knob_index(wcs, "bn")] = bn;
                l.value[convt_knob_index(wcs, "plane")] = plane;
                if (!wcs->supports(&dense, &l, &ctx, why, sizeof why))
                    fail_msg("column sets refused kb70's class at bn %d plane %d: %s", bn, plane, why);
            }
        /* stride 2 along dimensions 0 and 1 leaves every row whole */
        convt_problem outer = dense;
        outer.stride[0] = outer.stride[1] = 2;
        assert_true(wcs->supports(&outer, &l, &ctx, why, sizeof why));
        /* its weight image is polyphase_wgmma_tf32's with positions as M */
        const convt_variant *wgt = convt_variant_find("polyphase_wgmma_tf32");
        convt_launch lt = convt_launch_first_default(wgt);
        lt.value[convt_knob_index(wgt, "pos_m")] = 1;
        lt.value[convt_knob_index(wgt, "bk")] = l.value[convt_knob_index(wcs, "bk")];
        assert_int_equal(wcs->workspace_size(&dense, &l), wgt->workspace_size(&dense, &lt));
    }
    convt_problem inner_strided = dense;
    inner_strided.stride[2] = 2;
    refuses("polyphase_wgmma_colsum_tf32", &inner_strided, NULL, 0, ws,
            "column sets need stride 1 along the innermost dimension (every phase all of a row's "
            "taps); stride[2] = 2");
    convt_problem taps4 = dense, taps9 = dense;
    taps4.k[2] = 4, taps9.k[2] = 9;
    refuses("polyphase_wgmma_colsum_tf32", &taps4, NULL, 0, ws,
            "column sets are compiled for 3, 5 or 7 taps along the innermost dimension (one "
            "accumulator set each); k[2] = 4");
    refuses("polyphase_wgmma_colsum_tf32", &taps9, NULL, 0, ws, "k[2] = 9");
    convt_problem wide_co = dense;
    wide_co.cout = 48;
    refuses("polyphase_wgmma_colsum_tf32", &wide_co, NULL, 0, ws,
            "positions as M takes up to 32 output channels per group");
    convt_problem row7 = dense; /* 7 sets x 2 blocks x 12 accumulators: 168 */
    row7.k[2] = 7;
    refuses("polyphase_wgmma_colsum_tf32", &row7, "bn", 128, ws,
            "bn = 128 with 7 taps along a row and 24 channels: 7 column sets x 24 accumulators a "
            "thread, over 112 (take bn 64)");
    convt_problem row7_16 = row7; /* 7 x 2 x 8 = 112 accumulators fit; at bk 32 + 64 registers do not */
    row7_16.cout = 16;
    refuses2("polyphase_wgmma_colsum_tf32", &row7_16, "bn", 128, "bk", 32, ws,
             "bn = 128, bk = 32 with 7 taps along a row and 16 channels: 112 accumulators and the A "
             "fragments' 64 registers a thread, over 160 (take bn 64 or a smaller bk)");
    convt_problem row7_dil10 = row7; /* 7 taps 10 apart: a span of 60 positions */
    row7_dil10.dil[2] = 10;
    refuses("polyphase_wgmma_colsum_tf32", &row7_dil10, NULL, 0, ws,
            "the column shifts span 60 positions (7 taps 10 apart): a warpgroup of 64 rows would "
            "store 4, fewer than half (bn = 0 tried 128 and 64)");
    refuses("polyphase_wgmma_colsum_tf32", &dense, "bn", 256, ws,
            "bn = 256 must be 0 (chosen for the shape), 64 or 128 with column sets");
    refuses("polyphase_wgmma_colsum_tf32", &dense, "bk", 12, ws, "bk = 12 must be 8, 16 or 32");
    /* ping-pong (polyphase_wgmma_pingpong_tf32): up to 64 output channels a
     * group, a whole tile a consumer warpgroup, widths 64, 128, 192, 256 */
    const convt_variant *wpp = convt_variant_find("polyphase_wgmma_pingpong_tf32");
    if (wpp) {
        convt_context ctx = ctx_with(ws);
        convt_launch l = convt_launch_first_default(wpp);
        char why[512] = "";
        convt_problem sq = convt_problem_default(2); /* kb57's class, smaller */
        sq.n = 2, sq.cin = sq.cout = 64, sq.in[0] = 64, sq.in[1] = 256, sq.k[0] = sq.k[1] = 3;
        for (int bn = 0; bn <= 256; bn += 64)
            for (int bk = 8; bk <= (bn == 256 ? 16 : 32); bk *= 2) { /* 256 x 32: 240 KiB at 4 stages */
                l.value[convt_knob_index(wpp, "bn")] = bn;
                l.value[convt_knob_index(wpp, "bk")] = bk;
                if (!wpp->supports(&sq, &l, &ctx, why, sizeof why))
                    fail_msg("ping-pong refused kb57's class at bn %d bk %d: %s", bn, bk, why);
            }
        l = convt_launch_first_default(wpp);
        l.value[convt_knob_index(wpp, "plane")] = 1; /* kb70's class by tap planes */
        assert_true(wpp->supports(&dense, &l, &ctx, why, sizeof why));
        /* strided, grouped and with bias: plain() */
        convt_problem grouped = plain();
        grouped.groups = 2;
        assert_true(wpp->supports(&grouped, &l, &ctx, why, sizeof why) ||
                    strstr(why, "plane = 1 would stage what plane = 0 does"));
        /* its weight image is polyphase_wgmma_tf32's (64 channels a block) */
        const convt_variant *wgt = convt_variant_find("polyphase_wgmma_tf32");
        convt_launch lp = convt_launch_first_default(wpp), lt = convt_launch_first_default(wgt);
        lt.value[convt_knob_index(wgt, "bk")] = lp.value[convt_knob_index(wpp, "bk")];
        assert_int_equal(wpp->workspace_size(&sq, &lp), wgt->workspace_size(&sq, &lt));
    }
    /* segmented rows (knob seg): 2-D shapes, a multiple of 8 up to 1024 */
    if (wpp) {
        convt_context ctx = ctx_with(ws);
        convt_launch l = convt_launch_first_default(wpp);
        char why[512] = "";
        convt_problem sq = convt_problem_default(2);
        sq.n = 2, sq.cin = sq.cout = 64, sq.in[0] = 64, sq.in[1] = 1024, sq.k[0] = sq.k[1] = 3;
        l.value[convt_knob_index(wpp, "seg")] = 56;
        for (int plane = 0; plane <= 1; plane++) {
            l.value[convt_knob_index(wpp, "plane")] = plane;
            l.value[convt_knob_index(wpp, "stages")] = 3;
            if (!wpp->supports(&sq, &l, &ctx, why, sizeof why))
                fail_msg("segments refused kb57's class at plane %d: %s", plane, why);
        }
        /* a segment longer than the row: one segment a row */
        l.value[convt_knob_index(wpp, "seg")] = 1024;
        convt_problem narrow = sq;
        narrow.in[1] = 40;
        accepts(wpp, &narrow, &l, &ctx, "segments of 1024 on rows of 42");
    }
    refuses("polyphase_wgmma_pingpong_tf32", &dense, "seg", 56, ws,
            "seg > 0 segments the rows of 2-D shapes (the lifted dimension 0 counts a row's "
            "segments); this shape is 3-D");
    convt_problem flat2 = plain();
    refuses("polyphase_wgmma_pingpong_tf32", &flat2, "seg", 12, ws,
            "seg = 12 must be 0 (whole rows) or a multiple of 8 from 8 to 1024");
    refuses("polyphase_wgmma_pingpong_tf32", &flat2, "seg", 2048, ws, "seg = 2048 must be 0");
    convt_problem co96 = dense;
    co96.cout = 96;
    refuses("polyphase_wgmma_pingpong_tf32", &co96, NULL, 0, ws,
            "ping-pong takes up to 64 output channels per group (a whole tile a consumer "
            "warpgroup, wgmma's M); this shape has 96");
    refuses("polyphase_wgmma_pingpong_tf32", &dense, "bn", 80, ws,
            "bn = 80 must be 0 (chosen for the shape), 64, 128, 192 or 256 (ping-pong's compiled widths)");
    refuses("polyphase_wgmma_pingpong_tf32", &dense, "stages", 6, ws, "stages = 6 must be 3, 4 or 5");
    /* resident weights (knob resident): the whole image beside the stages */
    if (wpp) {
        convt_context ctx = ctx_with(ws);
        convt_problem kb57 = convt_problem_default(2); /* kb57's class: 64 x 9 K rows, 144 KiB at kpad 0 */
        kb57.n = 2, kb57.cin = kb57.cout = 64, kb57.in[0] = 64, kb57.in[1] = 1024, kb57.k[0] = kb57.k[1] = 3;
        convt_launch l = convt_launch_first_default(wpp);
        l.value[convt_knob_index(wpp, "resident")] = 1;
        l.value[convt_knob_index(wpp, "kpad")] = 0;
        /* tap rows at bk 16 and 3 stages; segments of 56 by tap planes at bk 8 and 5 */
        l.value[convt_knob_index(wpp, "bk")] = 16;
        l.value[convt_knob_index(wpp, "stages")] = 3;
        accepts(wpp, &kb57, &l, &ctx, "kb57's class by tap rows with resident weights");
        l.value[convt_knob_index(wpp, "bk")] = 8;
        l.value[convt_knob_index(wpp, "stages")] = 5;
        l.value[convt_knob_index(wpp, "seg")] = 56;
        l.value[convt_knob_index(wpp, "plane")] = 1;
        accepts(wpp, &kb57, &l, &ctx, "kb57's class by segment planes with resident weights");
        /* strided and grouped: the image of every phase and group, if it fits */
        convt_problem grouped = plain();
        grouped.groups = 2;
        l = convt_launch_first_default(wpp);
        l.value[convt_knob_index(wpp, "resident")] = 1;
        accepts(wpp, &grouped, &l, &ctx, "a small grouped strided shape with resident weights");
        /* the workspace is the image all the same */
        convt_launch l0 = l;
        l0.value[convt_knob_index(wpp, "resident")] = 0;
        assert_int_equal(wpp->workspace_size(&grouped, &l), wpp->workspace_size(&grouped, &l0));
    }
    convt_problem kb65 = convt_problem_default(2); /* 64 x 21 K rows: 336 KiB of weights */
    kb65.n = 2, kb65.cin = kb65.cout = 64, kb65.in[0] = 32, kb65.in[1] = 64, kb65.k[0] = 3, kb65.k[1] = 7;
    refuses("polyphase_wgmma_pingpong_tf32", &kb65, "resident", 1, ws,
            "resident = 1 needs ");
    refuses("polyphase_wgmma_pingpong_tf32", &kb65, "resident", 1, ws,
            "the weight image (84 tap tiles of 16 input channels x 64 output channels) is 357.0 KiB");
    refuses("polyphase_wgmma_pingpong_tf32", &dense, "resident", 2, ws,
            "resident = 2 must be 0 (each stage copies its taps' weights) or 1");
    /* rows_tma_tf32: stride 1 along every dimension, 3, 5 or 7 taps along
     * the row, rows a multiple of 4 floats; the channel blocks as wide as
     * the sets' registers allow */
    convt_problem rtd = dense; /* kb70's class with rows of 12 */
    rtd.in[2] = 12;
    const convt_variant *rt = convt_variant_find("rows_tma_tf32");
    if (rt) {
        convt_context ctx = ctx_with(ws);
        char why[512] = "";
        convt_problem sq = convt_problem_default(2); /* kb57 at a sixteenth of its rows */
        sq.n = 2, sq.cin = sq.cout = 64, sq.in[0] = 64, sq.in[1] = 1024, sq.k[0] = sq.k[1] = 3;
        convt_problem k7 = sq; /* kb65's class: 7 sets of 64 channels would need 224 accumulators */
        k7.k[1] = 7;
        convt_problem g3 = rtd; /* 3 groups of 16 input channels */
        g3.groups = 3;
        convt_problem wide = sq; /* 130 channels: three blocks of 48 */
        wide.cout = 130;
        const convt_problem *takes[] = {&sq, &k7, &rtd, &g3, &wide};
        for (int i = 0; i < 5; i++) {
            convt_launch l = convt_launch_first_default(rt);
            l.value[convt_knob_index(rt, "bm")] = 64;
            l.value[convt_knob_index(rt, "bk")] = 16;
            l.value[convt_knob_index(rt, "resident")] = 0;
            if (!rt->supports(takes[i], &l, &ctx, why, sizeof why))
                fail_msg("rows_tma_tf32 refused stride-1 shape %d: %s", i, why);
            /* resident weights: kb57's class fits (157 KiB of weights, 4
             * stages of 8.5 KiB); kb65's 21 taps of 2 x 32 channels do not */
            l.value[convt_knob_index(rt, "resident")] = 1;
            const bool ok = rt->supports(takes[i], &l, &ctx, why, sizeof why);
            if (takes[i] == &sq && !ok)
                fail_msg("rows_tma_tf32 refused kb57's class with resident weights: %s", why);
            if (takes[i] == &k7 && (ok || !strstr(why, "or resident = 0")))
                fail_msg("rows_tma_tf32 on kb65's class with resident weights: %s", ok ? "accepted" : why);
        }
        /* the weight image: a stage's bytes for each channel block, outer
         * tap and chunk; kb57's class at bk 16: one block of 64 channels, 3
         * outer taps (k 1 x 3), 4 chunks, each stage 3 taps x 4 K core
         * matrices of 64 x 16 bytes and 64 of padding */
        convt_launch l = convt_launch_first_default(rt);
        l.value[convt_knob_index(rt, "bm")] = 64;
        l.value[convt_knob_index(rt, "bk")] = 16;
        assert_int_equal(rt->workspace_size(&sq, &l), (size_t)3 * 4 * 3 * 4 * (64 * 16 + 64));
    }
    convt_problem rt_strided = rtd;
    rt_strided.stride[0] = 2;
    refuses("rows_tma_tf32", &rt_strided, NULL, 0, ws, "stride 2x1x1: takes stride 1 along every dimension");
    convt_problem rt_k4 = rtd;
    rt_k4.k[2] = 4;
    refuses("rows_tma_tf32", &rt_k4, NULL, 0, ws, "4 taps along the innermost dimension");
    convt_problem rt_odd_row = rtd;
    rt_odd_row.in[2] = 10 + 1;
    refuses("rows_tma_tf32", &rt_odd_row, NULL, 0, ws, "input rows of 11 floats");
    convt_problem rt_g5 = rtd; /* 4 groups of 12 input channels */
    rt_g5.groups = 4, rt_g5.cout = 24;
    refuses2("rows_tma_tf32", &rt_g5, "bm", 64, "bk", 8, ws, "bk = 8 does not divide the 12 input channels");
    convt_problem rt_k7 = rtd; /* 7 sets of 24 channels over 128 positions */
    rt_k7.k[2] = 7;
    refuses2("rows_tma_tf32", &rt_k7, "bm", 128, "cob", 24, ws, "try cob = 0");
    convt_problem rt_span = rtd; /* 7 taps 10 apart: 60 of 64 positions */
    rt_span.k[2] = 7, rt_span.dil[2] = 10, rt_span.cout = 8;
    refuses2("rows_tma_tf32", &rt_span, "bm", 64, "bk", 8, ws, "would store 4 of its 64");
    refuses("rows_tma_tf32", &rtd, "cob", 40, ws, "cob = 40 must be 0, 8, 16, 24, 32, 48 or 64");
    /* the phases folded into the channels: k a whole number of strides */
    convt_problem vocoder = convt_problem_default(1);
    vocoder.n = 16, vocoder.cin = 256, vocoder.cout = 128, vocoder.in[0] = 1024;
    vocoder.k[0] = 16, vocoder.stride[0] = 8, vocoder.pad[0] = 4;
    convt_problem unstrided = vocoder;
    unstrided.stride[0] = 1;
    refuses("polyphase_wgmma_fold_tf32", &unstrided, NULL, 0, ws, "nothing to fold");
    refuses("polyphase_wgmma_fold_tf32", &vocoder, "bn", 200, ws,
            "bn = 200 must be 0 (chosen for the shape) or 64 to 256 in steps of 16");
    refuses("polyphase_wgmma_fold_tf32", &vocoder, "bk", 8, ws, "bk = 8 must be 16 or 32");
    /* at float32 accuracy: 3xTF32's chunks (up to 32 folded: blocks of few
     * channels) and widths (a stage holds both parts, the stage's sums
     * double the accumulators) */
    refuses("polyphase_wgmma_fold_3xtf32", &vocoder, "bk", 64, ws, "bk = 64 must be 8, 16 or 32");
    /* with positions as M: the folded channels are wgmma's N, up to 32
     * (vocoder's 8 phases x 128 channels are 1024); bk 8 or 16 */
    refuses("polyphase_wgmma_fold_posm_3xtf32", &vocoder, NULL, 0, ws,
            "positions as M takes up to 32 output channels per group (wgmma's N); this shape has 1024 once "
            "folded");
    {
        convt_problem rgb_s8 = vocoder;
        rgb_s8.cout = 3; /* 24 folded */
        refuses("polyphase_wgmma_fold_posm_3xtf32", &rgb_s8, "bk", 32, ws, "bk = 32 must be 8 or 16");
        refuses("polyphase_wgmma_fold_posm_3xtf32", &rgb_s8, "bn", 192, ws,
                "bn = 192 must be 0 (chosen for the shape), 64, 128 or 256 with pos_m = 1");
    }
    {
        /* bk 32 where a stage's two taps of few folded channels fit three
         * times (Conv-TasNet's decoder, 512 -> 1, k 16 stride 8, on a
         * stretch short enough for stream-K's one round of tiles) */
        convt_problem tasnet = vocoder;
        tasnet.n = 2, tasnet.cin = 512, tasnet.cout = 1, tasnet.in[0] = 256, tasnet.k[0] = 16, tasnet.stride[0] = 8;
        tasnet.pad[0] = 0;
        static const char *const chunked32[] = {"polyphase_wgmma_fold_3xtf32", "polyphase_wgmma_splitk_3xtf32"};
        for (size_t i = 0; i < sizeof chunked32 / sizeof chunked32[0]; i++) {
            const convt_variant *v3 = convt_variant_find(chunked32[i]);
            if (!v3)
                continue;
            convt_context ctx = ctx_with(ws);
            convt_launch l = convt_launch_first_default(v3);
            l.value[convt_knob_index(v3, "bk")] = 32;
            l.value[convt_knob_index(v3, "kpad")] = 0; /* 64 needs 227.2 KiB here (WG_KNOB_KPAD_64_0) */
            if (convt_knob_index(v3, "fold") >= 0)
                l.value[convt_knob_index(v3, "fold")] = 1;
            if (convt_knob_index(v3, "ksplit") >= 0)
                l.value[convt_knob_index(v3, "ksplit")] = 0; /* stream-K: admitted at any length */
            char why[512] = "";
            if (!v3->supports(&tasnet, &l, &ctx, why, sizeof why))
                fail_msg("%s refused bk 32 on a decoder to 1 channel: %s", v3->name, why);
        }
    }
    refuses("polyphase_wgmma_fold_3xtf32", &vocoder, "bn", 176, ws, "64 to 160 in steps of 16");
    refuses("polyphase_wgmma_fold_3xtf32", &unstrided, NULL, 0, ws, "nothing to fold");
    /* a kernel no whole number of strides long folds padded with zero
     * taps (odd_k, and p's k 3 at stride 2), unless most taps would be
     * zeros (sparse_k: 1 tap of 6) */
    convt_problem odd_k = vocoder;
    odd_k.k[0] = 15;
    convt_problem sparse_k = p;
    sparse_k.k[0] = sparse_k.k[1] = 1, sparse_k.stride[0] = 3, sparse_k.stride[1] = 2;
    sparse_k.pad[0] = sparse_k.pad[1] = 0, sparse_k.out_pad[0] = sparse_k.out_pad[1] = 0;
    refuses("polyphase_wgmma_fold_tf32", &sparse_k, NULL, 0, ws, "83% zero taps: folding takes at most 50%");
    convt_problem s20 = vocoder; /* more phases than an epilogue warp's lanes take to a column */
    s20.k[0] = 20, s20.stride[0] = 20, s20.pad[0] = 0;
    refuses("polyphase_wgmma_fold_tf32", &s20, NULL, 0, ws, "20 stride phases: folding takes 2 to 16");
    const convt_variant *wgf = convt_variant_find("polyphase_wgmma_fold_tf32");
    if (wgf) {
        convt_context ctx = ctx_with(ws);
        const convt_launch l = convt_launch_first_default(wgf);
        char why[512] = "";
        assert_true(wgf->supports(&vocoder, &l, &ctx, why, sizeof why));
        convt_launch l144 = l; /* every width the unfolded kernel has */
        l144.value[convt_knob_index(wgf, "bn")] = 144;
        assert_true(wgf->supports(&vocoder, &l144, &ctx, why, sizeof why));
        /* W: 256 input channels x 1024 folded channels x 2 taps, in 128-channel tiles */
        assert_int_equal(wgf->workspace_size(&vocoder, &l), (size_t)256 * 1024 * 2 * 4 +
                         (size_t)256 / 4 * 64 * 8 * 2 /* kpad 64 bytes per K core row */);
        /* 256 folded channels a block: widths to 160, the same bytes but
         * for half the kpad (4 blocks of 256 where 8 of 128 were); bk =
         * 16, as at 32 a stage's weights alone are 2 taps x 33 KiB */
        convt_launch wide = l;
        wide.value[convt_knob_index(wgf, "co_block")] = 256;
        assert_false(wgf->supports(&vocoder, &wide, &ctx, why, sizeof why));
        assert_non_null(strstr(why, "of shared memory"));
        wide.value[convt_knob_index(wgf, "bk")] = 16;
        assert_true(wgf->supports(&vocoder, &wide, &ctx, why, sizeof why));
        assert_int_equal(wgf->workspace_size(&vocoder, &wide), (size_t)256 * 1024 * 2 * 4 +
                         (size_t)256 / 4 * 64 * 4 * 2);
        wide.value[convt_knob_index(wgf, "bn")] = 160;
        assert_true(wgf->supports(&vocoder, &wide, &ctx, why, sizeof why));
        /* 5 phases, no power of two, fold too (EnCodec's k 10 stride 5):
         * W is 256 x 640 folded channels x 2 taps, 5 blocks of 128 */
        convt_problem encodec = vocoder;
        encodec.k[0] = 10, encodec.stride[0] = 5, encodec.pad[0] = 0;
        assert_true(wgf->supports(&encodec, &l, &ctx, why, sizeof why));
        assert_int_equal(wgf->workspace_size(&encodec, &l), (size_t)256 * 640 * 2 * 4 +
                         (size_t)256 / 4 * 64 * 5 * 2);
        /* k 15 at stride 8 is the vocoder's image (a zero tap in 16) */
        if (!wgf->supports(&odd_k, &l, &ctx, why, sizeof why))
            fail_msg("the fold refused k 15 at stride 8: %s", why);
        assert_int_equal(wgf->workspace_size(&odd_k, &l), wgf->workspace_size(&vocoder, &l));
        if (!wgf->supports(&p, &l, &ctx, why, sizeof why))
            fail_msg("the fold refused k 3 at stride 2: %s", why);
    }
    /* the weights read in place: a tap row's box of w must be rows of 16 bytes,
     * one stretch of w (no phase along dimension 0), and needs no workspace */
    refuses("polyphase_wgmma_fold_inplace_tf32", &unstrided, NULL, 0, ws, "nothing to fold");
    refuses("polyphase_wgmma_fold_inplace_tf32", &odd_k, NULL, 0, ws,
            "k[0] = 15 is no multiple of stride[0] = 8: the fold's zero taps live in a weight image");
    convt_problem encodec_k10 = vocoder;
    encodec_k10.k[0] = 10, encodec_k10.stride[0] = 5, encodec_k10.pad[0] = 0;
    refuses("polyphase_wgmma_fold_inplace_tf32", &encodec_k10, NULL, 0, ws,
            "the kernel's 10 taps (a row's box 10) are no multiple of 4");
    convt_problem vol_s2 = convt_problem_default(3);
    vol_s2.cin = 32, vol_s2.cout = 16;
    for (int d = 0; d < 3; d++)
        vol_s2.in[d] = 6, vol_s2.k[d] = 4, vol_s2.stride[d] = 2, vol_s2.pad[d] = 1;
    refuses("polyphase_wgmma_fold_inplace_tf32", &vol_s2, NULL, 0, ws, "stride 2 along dimension 0 of a 3-D fold");
    refuses("polyphase_wgmma_fold_inplace_tf32", &vocoder, "bk", 8, ws, "bk = 8 must be 16 or 32");
    /* the row fold: a 2-D or 3-D shape, stride 1, dilation 1 and an even
     * input along dimension dims - 2; the whole fold of the row-folded
     * problem, its phases a power of two */
    refuses("polyphase_wgmma_rowfold_tf32", &vocoder, NULL, 0, ws, "a 1-D shape");
    refuses("polyphase_wgmma_rowfold_tf32", &p, NULL, 0, ws, "stride[0] = 2: the row fold pairs the rows of a stride-1 dimension");
    convt_problem odd_rows = p;
    odd_rows.stride[0] = 1, odd_rows.out_pad[0] = 0, odd_rows.in[0] = 21;
    refuses("polyphase_wgmma_rowfold_tf32", &odd_rows, NULL, 0, ws, "in[0] = 21 is odd");
    odd_rows.in[0] = 20, odd_rows.stride[1] = 3;
    refuses("polyphase_wgmma_rowfold_tf32", &odd_rows, NULL, 0, ws, "6 phases once the rows are folded");
    odd_rows.stride[1] = 1, odd_rows.dil[1] = 2;
    refuses("polyphase_wgmma_rowfold_tf32", &odd_rows, NULL, 0, ws, "does not fold its phases: dil[1] = 2");
    odd_rows.dil[1] = 1, odd_rows.cout = 40;
    refuses("polyphase_wgmma_rowfold_tf32", &odd_rows, NULL, 0, ws, "40 output channels a group: the row fold is for 32 or fewer");
    /* row pairs: 2-D and 3-D shapes, up to 64 output channels a group,
     * widths 128, 192, 256, bk 8 or 16 (two tap rows' weights a stage) */
    convt_problem line = convt_problem_default(1);
    line.n = 2, line.cin = line.cout = 16, line.in[0] = 300, line.k[0] = 3;
    refuses("polyphase_wgmma_pair_tf32", &line, NULL, 0, ws, "row pairs take two neighbouring rows");
    convt_problem pair96 = p;
    pair96.cout = 96;
    refuses("polyphase_wgmma_pair_tf32", &pair96, NULL, 0, ws,
            "row pairs take up to 64 output channels per group (each consumer warpgroup one row of a pair");
    refuses("polyphase_wgmma_pair_tf32", &p, "bn", 64, ws,
            "bn = 64 must be 0 (chosen for the shape), 128, 192 or 256 (row pairs' compiled widths)");
    refuses("polyphase_wgmma_pair_tf32", &p, "bk", 32, ws, "bk = 32 must be 8 or 16");
    refuses("polyphase_wgmma_pair_tf32", &p, "persist", 0, ws, "row pairs walk the tile list with a block per SM");
    /* 64 channels, 7 taps a row: a stage holds 14 taps' weights, so that
     * at bk 16 three stages fit (bn 128: 225 KiB) and five at no width;
     * bn = 0 must then be refused for its shared memory, not planned at a
     * width the variant does not compile (64: session 47's 5 wrong runs) */
    const convt_variant *wpair = convt_variant_find("polyphase_wgmma_pair_tf32");
    if (wpair) {
        convt_problem k7 = convt_problem_default(2);
        k7.n = 2, k7.cin = k7.cout = 64, k7.in[0] = 40, k7.in[1] = 300, k7.k[0] = 3, k7.k[1] = 7;
        refuses2("polyphase_wgmma_pair_tf32", &k7, "bk", 16, "stages", 5, ws, "KiB of shared memory");
        convt_context ctx = ctx_with(ws);
        convt_launch l = convt_launch_first_default(wpair);
        l.value[convt_knob_index(wpair, "bk")] = 16;
        l.value[convt_knob_index(wpair, "stages")] = 3;
        accepts(wpair, &k7, &l, &ctx, "bk 16 at 3 stages (bn 128)");
    }
    const convt_variant *rowfold = convt_variant_find("polyphase_wgmma_rowfold_tf32");
    if (rowfold) {
        /* its workspace holds the weight image and W' after it (written
         * each launch from w): more than the plain fold's image of the
         * same row-folded problem, by at least W''s floats; none where
         * it refuses */
        odd_rows.cout = 32;
        const convt_launch l = convt_launch_first_default(rowfold);
        const size_t need = rowfold->workspace_size(&odd_rows, &l);
        const size_t w2 = (size_t)convt_row_fold_w_of(&odd_rows).elems; /* W''s floats */
        assert_true(need >= sizeof(float) * w2);
        const convt_variant *fold = convt_variant_find("polyphase_wgmma_fold_tf32");
        const convt_problem q = convt_row_fold_problem(&odd_rows);
        convt_launch lf = convt_launch_first_default(fold);
        lf.value[convt_knob_index(fold, "bk")] = 16;
        const size_t image = fold->workspace_size(&q, &lf) / sizeof(float); /* floats */
        assert_true(image > 0);
        assert_int_equal(need, sizeof(float) * ((image + 63) / 64 * 64 + w2));
        odd_rows.in[0] = 21;
        assert_int_equal(rowfold->workspace_size(&odd_rows, &l), 0);
    }
    /* a partial fold: fewer dimensions than the shape has, each folded one
     * strided and of dilation 1 */
    refuses("polyphase_wgmma_fold_inner_tf32", &p, "fold_dims", 1, ws,
            "stride 1 along the innermost dimension: one phase there");
    refuses("polyphase_wgmma_fold_inner_tf32", &p, "fold_dims", 2, ws,
            "fold_dims = 2 folds every dimension of a 2-D shape: that is polyphase_wgmma_fold_tf32");
    refuses("polyphase_wgmma_fold_inner_tf32", &p, "fold_dims", 0, ws, "fold_dims = 0 must be 1 or 2");
    refuses("polyphase_wgmma_fold_inner_tf32", &vocoder, "fold_dims", 1, ws,
            "fold_dims = 1 folds every dimension of a 1-D shape");
    convt_problem vol_k3 = vol_s2;
    for (int d = 0; d < 3; d++)
        vol_k3.k[d] = 3, vol_k3.out_pad[d] = 1;
    refuses("polyphase_wgmma_fold_inner_tf32", &vol_k3, "fold_dims", 3, ws,
            "fold_dims = 3 folds every dimension of a 3-D shape");
    vol_k3.dil[2] = 2, vol_k3.pad[2] = 2, vol_k3.out_pad[2] = 1;
    refuses("polyphase_wgmma_fold_inner_tf32", &vol_k3, "fold_dims", 1, ws,
            "dil[2] = 2: folding the phases needs dilation 1");
    const convt_variant *wgi = convt_variant_find("polyphase_wgmma_fold_inplace_tf32");
    if (wgi) {
        convt_context ctx = ctx_with(0); /* no workspace: there is no weight image */
        const convt_launch l = convt_launch_first_default(wgi);
        char why[512] = "";
        assert_int_equal(wgi->workspace_size(&vocoder, &l), 0);
        if (!wgi->supports(&vocoder, &l, &ctx, why, sizeof why))
            fail_msg("the in-place fold refused the vocoder layer: %s", why);
        convt_problem img = convt_problem_default(2); /* 4 x 4 stride 2: a row's box is 2 x 4 taps */
        img.n = 2, img.cin = 64, img.cout = 64, img.in[0] = img.in[1] = 16;
        img.k[0] = img.k[1] = 4, img.stride[0] = img.stride[1] = 2, img.pad[0] = img.pad[1] = 1;
        if (!wgi->supports(&img, &l, &ctx, why, sizeof why))
            fail_msg("the in-place fold refused a 4 x 4 stride-2 image layer: %s", why);
    }
    /* split-K at either precision, and the unsplit variant of the same */
    static const char *const split_unsplit[][2] = {{"polyphase_wgmma_splitk_tf32", "polyphase_wgmma_tf32"},
                                                   {"polyphase_wgmma_splitk_3xtf32", "polyphase_wgmma_3xtf32"}};
    for (size_t i = 0; i < sizeof split_unsplit / sizeof split_unsplit[0]; i++) {
        const convt_variant *wgs = convt_variant_find(split_unsplit[i][0]);
        if (!wgs)
            continue;
        /* a short layer of many channels (32 x 16 positions, 1024 -> 512,
         * k 4 stride 2): folded, 1024 channels in 8 blocks x 3 stretches of
         * 17 x 32 positions; unfolded, 2 phases x 4 blocks x a few stretches:
         * well under 4 rounds of 132 SMs, split either way, every ksplit,
         * stream-K (0) and balance (1: a tile's 64 stages against a share
         * of a few) among them */
        convt_problem music = convt_problem_default(1);
        music.n = 32, music.cin = 1024, music.cout = 512, music.in[0] = 16;
        music.k[0] = 4, music.stride[0] = 2, music.pad[0] = 1;
        convt_context ctx = ctx_with(ws);
        convt_launch l = convt_launch_first_default(wgs);
        char why[512] = "";
        for (int fold = 0; fold <= 1; fold++)
            for (int ks = 0; ks <= 8; ks++) {
                l.value[convt_knob_index(wgs, "fold")] = fold;
                l.value[convt_knob_index(wgs, "ksplit")] = ks;
                if (!wgs->supports(&music, &l, &ctx, why, sizeof why))
                    fail_msg("%s fold %d ksplit %d refused a short layer: %s", wgs->name, fold, ks, why);
            }
        /* its workspace is the weight image of the kernel it splits */
        const convt_variant *wgt = convt_variant_find(split_unsplit[i][1]);
        l.value[convt_knob_index(wgs, "fold")] = 0;
        convt_launch lt = convt_launch_first_default(wgt);
        lt.value[convt_knob_index(wgt, "bk")] = l.value[convt_knob_index(wgs, "bk")];
        assert_int_equal(wgs->workspace_size(&music, &l), wgt->workspace_size(&music, &lt));
    }
    refuses("polyphase_wgmma_fold_tf32", &vocoder, "co_block", 128, ws,
            "co_block = 128 must be 0 (64 or 128 output channels a block, by the channels) or 256");
    /* 16 output channels x 8 phases: 128 folded, a block of 128 holds them */
    convt_problem narrow = vocoder;
    narrow.cout = 16;
    refuses("polyphase_wgmma_fold_tf32", &narrow, "co_block", 256, ws,
            "co_block = 256 is for more than 128 output channels per group (folded: the stride "
            "phases x the channels); this shape has 128");
    /* split-K: its knobs, and shapes whose tiles fill the SMs */
    refuses("polyphase_wgmma_splitk_tf32", &vocoder, "ksplit", 9, ws,
            "ksplit = 9 must be 0 (stream-K: the SMs share the tiles' stages), 1 (balance: the "
            "tiles longer than the SMs' even share cut) or 2 to 8");
    refuses2("polyphase_wgmma_splitk_tf32", &vocoder, "ksplit", 1, "persist", 0, ws,
             "ksplit = 1 (balance) shares the stages between persistent blocks: it needs persist = 1");
    refuses2("polyphase_wgmma_splitk_tf32", &vocoder, "ksplit", 0, "persist", 0, ws,
             "ksplit = 0 (stream-K) shares the stages between persistent blocks: it needs persist = 1");
    refuses("polyphase_wgmma_splitk_tf32", &vocoder, "fold", 2, ws, "fold = 2 must be 0");
    refuses("polyphase_wgmma_splitk_tf32", &vocoder, "bn", 80, ws,
            "bn = 80 must be 0 (chosen for the shape) or 64, 96, 128, 192 or 256 with split-K");
    refuses("polyphase_wgmma_splitk_tf32", &vocoder, "bk", 8, ws, "bk = 8 must be 16 or 32");
    refuses("polyphase_wgmma_splitk_tf32", &sparse_k, "fold", 1, ws, "83% zero taps");
    /* at float32 accuracy: 3xTF32's chunks, split-K's widths up to 128 (the
     * stage's sums double the accumulators), no co_block knob */
    refuses("polyphase_wgmma_splitk_3xtf32", &vocoder, "bk", 64, ws, "bk = 64 must be 8, 16 or 32");
    refuses("polyphase_wgmma_splitk_3xtf32", &vocoder, "bn", 192, ws,
            "bn = 192 must be 0 (chosen for the shape) or 64, 96 or 128 at float32 accuracy with split-K");
    refuses("polyphase_wgmma_splitk_3xtf32", &vocoder, "ksplit", 9, ws, "ksplit = 9 must be 0");
    refuses("polyphase_wgmma_splitk_3xtf32", &sparse_k, "fold", 1, ws, "83% zero taps");
    /* 256 channels a block: for more than 128 a group (vocoder has 128),
     * bk 16 or 32, widths up to 160 (BN accumulators a thread, twice) */
    refuses("polyphase_wgmma_wide_tf32", &vocoder, NULL, 0, ws,
            "256 output channels a block is for more than 128 output channels per group; this "
            "shape has 128");
    convt_problem short_many = vocoder; /* 8 x 64 positions, 512 -> 256 channels */
    short_many.n = 8, short_many.cin = 512, short_many.cout = 256, short_many.in[0] = 64;
    refuses("polyphase_wgmma_wide_tf32", &short_many, "bn", 176, ws,
            "bn = 176 must be 0 (chosen for the shape) or 64 to 160 in steps of 16");
    refuses("polyphase_wgmma_wide_tf32", &short_many, "bk", 8, ws, "bk = 8 must be 16 or 32");
    refuses("polyphase_wgmma_splitk_tf32", &p, "plane", 2, ws, "plane = 2 must be 0");
    refuses2("polyphase_wgmma_splitk_tf32", &short_many, "fold", 1, "plane", 1, ws,
             "plane = 1 is for the stride phases apart (fold = 0)");
    refuses("polyphase_wgmma_splitk_tf32", &vocoder, "co_block", 256, ws,
            "co_block = 256 is for more than 128 output channels per group");
    refuses("polyphase_wgmma_splitk_tf32", &vocoder, "co_block", 128, ws,
            "co_block = 128 must be 0 (64 or 128 output channels a block, by the channels) or 256");
    /* split-K's partial fold: fold_dims with fold = 1, fewer than the dimensions */
    const convt_problem dec3d = decoder_volume(2, 128, 64, 8);
    refuses2("polyphase_wgmma_splitk_tf32", &dec3d, "fold", 0, "fold_dims", 1, ws,
             "fold_dims = 1 chooses the dimensions that fold = 1 folds; with fold = 0 the stride "
             "phases run apart");
    refuses2("polyphase_wgmma_splitk_tf32", &dec3d, "fold", 1, "fold_dims", 3, ws,
             "fold_dims = 3 folds every dimension of a 3-D shape: that is fold_dims = 0");
    refuses2("polyphase_wgmma_splitk_tf32", &dec3d, "fold", 1, "fold_dims", 4, ws,
             "fold_dims = 4 must be 0 (every dimension), 1 or 2");
    refuses2("polyphase_wgmma_splitk_tf32", &dec3d, "fold", 1, "fold_dims", 0, ws, "zero taps");
    refuses2("polyphase_wgmma_splitk_tf32", &dec3d, "fold", 0, "fold_dims", 2, ws,
             "fold_dims = 2 chooses the dimensions that fold = 1 folds");
    refuses2("polyphase_wgmma_splitk_tf32", &dec3d, "fold", 2, "fold_dims", 1, ws, "fold = 2 must be 0");
    refuses2("polyphase_wgmma_splitk_tf32", &p, "fold", 1, "fold_dims", 1, ws,
             "stride 1 along the innermost dimension");
    const convt_variant *wgs = convt_variant_find("polyphase_wgmma_splitk_tf32");
    if (wgs) {
        convt_context ctx = ctx_with(ws);
        convt_launch l = convt_launch_first_default(wgs);
        char why[512] = "";
        /* the partial fold fold_inner runs, split: its workspace is that
         * variant's weight image of the same fold, bk and channel block */
        const convt_variant *wgi_inner = convt_variant_find("polyphase_wgmma_fold_inner_tf32");
        convt_launch li = convt_launch_first_default(wgi_inner);
        l.value[convt_knob_index(wgs, "fold")] = 1;
        li.value[convt_knob_index(wgi_inner, "bk")] = l.value[convt_knob_index(wgs, "bk")];
        li.value[convt_knob_index(wgi_inner, "co_block")] = l.value[convt_knob_index(wgs, "co_block")];
        for (int dims = 1; dims <= 2; dims++) {
            l.value[convt_knob_index(wgs, "fold_dims")] = dims;
            li.value[convt_knob_index(wgi_inner, "fold_dims")] = dims;
            for (int ks = 0; ks <= 2; ks += 2) { /* stream-K and 2 parts */
                l.value[convt_knob_index(wgs, "ksplit")] = ks;
                if (!wgs->supports(&dec3d, &l, &ctx, why, sizeof why))
                    fail_msg("split-K (ksplit %d) folding %d of dec3d's dimensions refused: %s", ks,
                             dims, why);
                assert_int_equal(wgs->workspace_size(&dec3d, &l), wgi_inner->workspace_size(&dec3d, &li));
            }
            assert_true(wgs->workspace_size(&dec3d, &l) > 0);
            l.value[convt_knob_index(wgs, "plane")] = 1; /* tap rows only (not validated with planes) */
            if (wgs->supports(&dec3d, &l, &ctx, why, sizeof why) ||
                !strstr(why, "plane = 1 is for the stride phases apart"))
                fail_msg("split-K folding %d dimensions with plane = 1: \"%s\"", dims, why);
            l.value[convt_knob_index(wgs, "plane")] = 0;
        }
    }
    refuses2("polyphase_wgmma_splitk_tf32", &short_many, "co_block", 256, "bn", 192, ws,
             "bn = 192 must be 0 (chosen for the shape) or 64, 96 or 128 at co_block = 256 "
             "with split-K");
    if (wgs) {
        convt_context ctx = ctx_with(ws);
        convt_launch l = convt_launch_first_default(wgs);
        char why[512] = "";
        l.value[convt_knob_index(wgs, "co_block")] = 256;
        l.value[convt_knob_index(wgs, "bn")] = 128;
        l.value[convt_knob_index(wgs, "bk")] = 16; /* at 32, 2 taps x 256 channels: 268 KiB */
        if (!wgs->supports(&short_many, &l, &ctx, why, sizeof why))
            fail_msg("split-K refused co_block = 256 at bn 128 on a short layer: %s", why);
    }
    /* clusters of two: their knobs, and a shape whose every phase fits one
     * tile (tiny_image below: one image, 4 x 4 outputs a phase, 64 flat
     * positions at a pitch of 16, one tile of 128 at bn 128) */
    refuses("polyphase_wgmma_cluster_tf32", &vocoder, "fold", 2, ws, "fold = 2 must be 0");
    refuses("polyphase_wgmma_cluster_tf32", &vocoder, "bn", 80, ws,
            "bn = 80 must be 0 (chosen for the shape) or 64, 96, 128, 192 or 256 with clusters");
    refuses("polyphase_wgmma_cluster_tf32", &vocoder, "bk", 8, ws, "bk = 8 must be 16 or 32");
    refuses("polyphase_wgmma_cluster_tf32", &sparse_k, "fold", 1, ws, "83% zero taps");
    refuses2("polyphase_wgmma_cluster_tf32", &short_many, "co_block", 256, "bn", 192, ws,
             "bn = 192 must be 0 (chosen for the shape) or 64, 96 or 128 at co_block = 256 "
             "with clusters");
    refuses("polyphase_wgmma_cluster_tf32", &vocoder, "co_block", 256, ws,
            "co_block = 256 is for more than 128 output channels per group");
    convt_problem tiny_image = convt_problem_default(2); /* StyleGAN 4 -> 8, one image */
    tiny_image.n = 1, tiny_image.cin = tiny_image.cout = 512, tiny_image.in[0] = tiny_image.in[1] = 4;
    tiny_image.k[0] = tiny_image.k[1] = 4, tiny_image.stride[0] = tiny_image.stride[1] = 2;
    tiny_image.pad[0] = tiny_image.pad[1] = 1;
    /* rows = 0 lays its phases out tight: 4 rows of 4 outputs + a span of 1 */
    refuses2("polyphase_wgmma_cluster_tf32", &tiny_image, "bn", 128, "bk", 16, ws,
             "every phase fits one tile of 128 positions (the longest phase has 20): a cluster's "
             "second block would have none");
    /* in octets, rows of 16 (lead 7 + 4 + 1, rounded up) */
    refuses2("polyphase_wgmma_cluster_tf32", &tiny_image, "bn", 128, "rows", 1, ws,
             "every phase fits one tile of 128 positions (the longest phase has 64): a cluster's "
             "second block would have none");
    refuses("polyphase_wgmma_tf32", &tiny_image, "rows", 3, ws,
            "rows = 3 must be 0 (tight rows where octet rows would be a tenth longer in a 2-D or "
            "3-D layout, a third below 32 positions), 1 (octet rows) or 2 (tight rows)");
    const convt_variant *wgc = convt_variant_find("polyphase_wgmma_cluster_tf32");
    if (wgc) {
        /* pix2pix_dec1 (16 images of 8 x 8, 512 -> 512, k 4 stride 2):
         * every default launch, and the weight image polyphase_wgmma_tf32's
         * (or the folded one's) of the same bk */
        convt_problem pix = tiny_image;
        pix.n = 16, pix.in[0] = pix.in[1] = 8, pix.bias = true;
        accepts_every_default(wgc, &pix);
        convt_context ctx = ctx_with(ws);
        char why[512] = "";
        convt_launch l = convt_launch_first_default(wgc);
        if (!wgc->supports(&pix, &l, &ctx, why, sizeof why))
            fail_msg("clusters refused pix2pix_dec1: %s", why);
        const convt_variant *wgt = convt_variant_find("polyphase_wgmma_tf32");
        convt_launch lt = convt_launch_first_default(wgt);
        lt.value[convt_knob_index(wgt, "bk")] = l.value[convt_knob_index(wgc, "bk")];
        assert_int_equal(wgc->workspace_size(&pix, &l), wgt->workspace_size(&pix, &lt));
    }
    /* vocoder (16 x 1024 positions a phase, 8 phases, 128 channels): over
     * 2000 tiles at bn 64, 15 rounds of 132 SMs */
    refuses2("polyphase_wgmma_splitk_tf32", &vocoder, "bn", 64, "ksplit", 2, ws,
             "split-K is for shapes of few tiles: this one has");
    refuses2("polyphase_wgmma_splitk_tf32", &vocoder, "bn", 64, "ksplit", 2, ws,
             "more than 50% of the device's 132 SMs");
    /* stream-K takes one round of tiles at most */
    refuses2("polyphase_wgmma_splitk_tf32", &vocoder, "bn", 64, "ksplit", 0, ws,
             "stream-K (ksplit = 0) is for shapes of at most one round of tiles: this one has");
    refuses2("polyphase_wgmma_splitk_tf32", &vocoder, "bn", 64, "ksplit", 0, ws,
             "more than the device's 132 SMs");
    /* balance cuts only walks longer than the even share: the vocoder's
     * phases all have 2 taps (one tap row, 8 chunks of 32 channels), 2000 equal tiles over 132 SMs */
    refuses2("polyphase_wgmma_splitk_tf32", &vocoder, "bn", 64, "ksplit", 1, ws,
             "ksplit = 1 (balance) cuts the tiles longer than the SMs' even share of the stages: here the "
             "longest has 8 stages");
    if (wgs) {
        /* 3-D k 3 at stride 2 (phases of 1 to 8 taps), 2 x 16^3 inputs of
         * 128 channels to 64: the 8-tap phase's tiles are longer than the
         * share, so balance takes it, fold 0 (this layer does not fold) */
        const convt_problem dec3d_16 = decoder_volume(2, 128, 64, 16);
        convt_context ctx = ctx_with(ws);
        convt_launch l = convt_launch_first_default(wgs);
        l.value[convt_knob_index(wgs, "fold")] = 0;
        l.value[convt_knob_index(wgs, "ksplit")] = 1;
        char why[512] = "";
        if (!wgs->supports(&dec3d_16, &l, &ctx, why, sizeof why))
            fail_msg("balance refused 3-D k 3 at stride 2: %s", why);
        l.value[convt_knob_index(wgs, "ksplit")] = 2; /* 160 tiles or more: parts are refused */
        assert_false(wgs->supports(&dec3d_16, &l, &ctx, why, sizeof why));
        assert_non_null(strstr(why, "split-K is for shapes of few tiles"));
    }
    if (wgf) {
        /* the widest with two 64-channel blocks a warpgroup: BN accumulators a thread */
        convt_context ctx = ctx_with(ws);
        convt_launch l = convt_launch_first_default(wgf);
        l.value[convt_knob_index(wgf, "co_block")] = 256;
        l.value[convt_knob_index(wgf, "bk")] = 16;
        l.value[convt_knob_index(wgf, "bn")] = 176;
        char why[512] = "";
        assert_false(wgf->supports(&vocoder, &l, &ctx, why, sizeof why));
        assert_non_null(strstr(why, "bn = 176 must be 0 (chosen for the shape) or 64 to 160 in steps of 16"));
        /* co_block's own reason comes first: the widest width depends on it */
        assert_false(wgf->supports(&narrow, &l, &ctx, why, sizeof why));
        assert_non_null(strstr(why, "co_block = 256 is for more than 128"));
    }
    const convt_variant *wg = convt_variant_find("polyphase_wgmma_tf32");
    if (wg) {
        convt_device_info a100 = h100;
        a100.cc_major = 8;
        convt_context ctx = {.dev = &a100, .workspace_limit = ws};
        convt_launch l = convt_launch_first_default(wg);
        char why[512] = "";
        assert_false(wg->supports(&p, &l, &ctx, why, sizeof why));
        assert_non_null(strstr(why, "this device is 8.0"));
    }
    refuses("im2col_gemm", &p, NULL, 0, 1024, "MiB of workspace");
    refuses("im2col_gemm_tf32", &p, "block", 31, ws, "block = 31");
    {
        /* col2im's index and tap walks are 32-bit: a batch of 2^32 outputs, a dilation of 2^30 */
        convt_problem big = convt_problem_default(2);
        big.n = 64, big.cin = 4, big.cout = 64, big.in[0] = big.in[1] = 1024;
        refuses("im2col_gemm", &big, "images", 0, (size_t)1 << 40, "outputs in 32 bits");
        convt_problem wide_dil = convt_problem_default(1);
        wide_dil.in[0] = 4, wide_dil.k[0] = 2, wide_dil.dil[0] = (int64_t)1 << 30;
        refuses("im2col_gemm", &wide_dil, NULL, 0, (size_t)1 << 40, "walks the taps in 32 bits");
    }
    refuses("direct_grouped", &p, "outs", 3, ws, "outs = 3 must be 2, 4 or 8");
    refuses("direct_grouped", &p, "block", 48, ws, "block = 48 must be a multiple of 32");
    refuses("direct_grouped", &p, "lanes", 8, ws, "lanes = 8 must be 1 or 32");
    refuses("direct_grouped", &p, "walk", 0, ws, "walk = 0 must be 1 to 64");
    refuses("direct_grouped", &p, "walk", 65, ws, "walk = 65 must be 1 to 64");
    convt_problem wide = plain();
    wide.cin = 64; /* 64 channels per group: a GEMM's work */
    refuses("direct_grouped", &wide, NULL, 0, ws, "64 input channels per group");
    refuses("direct_grouped_staged", &wide, NULL, 0, ws, "64 input channels per group");
    refuses("direct_grouped_staged", &p, "block", 96, ws, "block = 96 must be 64, 128 or 256");
    refuses("direct_grouped_staged", &p, "outs", 3, ws, "outs = 3 must be 2, 4 or 8");
    /* a 1-D kernel of 60000 taps: its weights and its stretch of 59999 more
     * inputs than outputs do not fit in 227 KiB of shared memory */
    convt_problem reach = convt_problem_default(1);
    reach.n = reach.cin = reach.cout = reach.groups = 1;
    reach.in[0] = 100, reach.k[0] = 60000;
    refuses("direct_grouped_staged", &reach, NULL, 0, ws, "KiB of shared memory");
    refuses("direct_window", &reach, NULL, 0, ws, "KiB of shared memory");
    refuses("direct_window", &p, "couts", 2, ws, "couts = 2 must be 1, 4 or 8");
    {
        convt_problem depthwise = plain();
        depthwise.groups = depthwise.cin = depthwise.cout = 16;
        refuses("direct_window", &depthwise, "couts", 4, ws,
                "couts = 4 takes as many blocks of a group's 1 output channels (1) as couts = 1");
        /* 3 channels (an RGB output): one block of 4, the fourth channel
         * zero-weight; 8 would take the same one block */
        convt_problem rgb = plain();
        const char *couts[] = {"couts"}, *couts_csplit[] = {"couts", "csplit"};
        rgb.cout = 3;
        accepts_with("direct_window", &rgb, 1, couts, (const int64_t[]){4}, ws,
                     "couts 4 on 3 output channels");
        rgb.cout = 19; /* 5 blocks of 4, 3 of 8: both worth it */
        accepts_with("direct_window", &rgb, 1, couts, (const int64_t[]){8}, ws,
                     "couts 8 on 19 output channels");
        rgb.cout = 3;
        refuses("direct_window", &rgb, "couts", 8, ws, "as many blocks of a group's 3 output");
        /* the channel sets: 4 sets over 16 channels, not over 2 a group */
        accepts_with("direct_window_split", &rgb, 2, couts_csplit, (const int64_t[]){4, 4}, ws,
                     "4 channel sets on 16 input channels");
        convt_problem grouped = plain();
        grouped.groups = 8; /* 2 input channels a group */
        refuses("direct_window_split", &grouped, "csplit", 4, ws,
                "csplit = 4 sets of input channels need as many channels a stage");
        refuses("direct_window_split", &p, "csplit", 3, ws, "csplit = 3 must be 1, 2 or 4");
    }
    refuses("direct_window", &p, "block", 96, ws, "block = 96 must be 64, 128 or 256");
    refuses("direct_window", &p, "passes", 2, ws, "passes = 2 must be 1 or 4");
    /* a dilation of 2 at stride 1 or 3 (5 taps: two a phase at stride 3): a
     * phase's taps read every other input, which the window does not hold */
    convt_problem dilated = plain();
    dilated.dil[dilated.dims - 1] = 2;
    dilated.k[dilated.dims - 1] = 5;
    refuses("direct_window", &dilated, NULL, 0, ws, "inputs 2 apart");
    dilated.stride[dilated.dims - 1] = 3;
    refuses("direct_window", &dilated, NULL, 0, ws, "inputs 2 apart");
    /* at stride 2 the phase absorbs it; at stride 5 each phase has one tap */
    for (int stride = 2; stride <= 5; stride += 3) {
        dilated.stride[dilated.dims - 1] = stride;
        const convt_variant *v = convt_variant_find("direct_window");
        if (v) {
            convt_launch l = convt_launch_first_default(v);
            convt_context ctx = ctx_with(ws);
            char why[512] = "";
            if (!v->supports(&dilated, &l, &ctx, why, sizeof why))
                fail_msg("direct_window refused dilation 2 at stride %d: %s", stride, why);
        }
    }
    /* direct_periods: its compiled knobs, a channel block inside a group,
     * an accumulator per innermost tap (8 at most), the grid's y, and the
     * weights of a row's outer taps in shared memory */
    refuses("direct_periods", &p, "block", 96, ws, "block = 96 must be 64, 128 or 256");
    refuses("direct_periods", &p, "couts", 2, ws, "couts = 2 must be 4, 8 or 16");
    {
        convt_problem grouped = plain();
        grouped.groups = 8; /* 4 output channels a group */
        refuses("direct_periods", &grouped, "couts", 8, ws, "couts = 8 does not divide the 4");
        convt_problem nine_taps = plain();
        nine_taps.k[nine_taps.dims - 1] = 9;
        refuses("direct_periods", &nine_taps, NULL, 0, ws, "has 9 taps");
        convt_problem many_out = plain();
        many_out.cout = 8 * 70000;
        refuses("direct_periods", &many_out, "couts", 8, ws, "grid's y axis");
        convt_problem heavy = convt_problem_default(3);
        heavy.cin = heavy.cout = 512; /* 27 taps x 512 x 8 x 8 floats of weights */
        heavy.k[0] = heavy.k[1] = 3, heavy.k[2] = 8;
        refuses("direct_periods", &heavy, NULL, 0, ws, "KiB of shared memory");
        /* exactly 227 KiB of dynamic shared memory at block 64, couts 8
         * (1020 x 7 x 8 floats of weights, 2 ints of taps, 2 x 33 x 15
         * floats of write-back): the kernel's 16 static bytes put it over
         * (a review found it accepted, to fail at launch) */
        convt_problem edge = convt_problem_default(1);
        edge.n = 1, edge.cin = 1020, edge.cout = 8, edge.in[0] = 10;
        edge.k[0] = 7, edge.stride[0] = 15;
        refuses("direct_periods", &edge, NULL, 0, ws, "227.0 KiB of shared memory");
    }
    /* row_mma_tf32: its compiled knobs, 64 accumulators a thread, an n-tile
     * for every phase of the innermost stride, its taps' phases as
     * arguments (32 at most), the grid's y and the staged weights */
    refuses("row_mma_tf32", &p, "bm", 48, ws, "bm = 48 must be 16, 32 or 64");
    refuses("row_mma_tf32", &p, "bn", 96, ws, "bn = 96 must be 64, 128 or 256");
    {
        const convt_variant *v = convt_variant_find("row_mma_tf32");
        if (v) {
            convt_launch l = convt_launch_first_default(v);
            l.value[convt_knob_index(v, "bm")] = 64;
            l.value[convt_knob_index(v, "bn")] = 256;
            convt_context ctx = ctx_with(ws);
            char why[512] = "";
            assert_false(v->supports(&p, &l, &ctx, why, sizeof why));
            assert_non_null(strstr(why, "128 accumulators"));
        }
        convt_problem nine_phases = plain();
        nine_phases.stride[nine_phases.dims - 1] = 9; /* 9 n-tiles; bn 64 has 8 */
        refuses("row_mma_tf32", &nine_phases, "bn", 64, ws, "needs one for each of its phases");
        convt_problem taps33 = plain();
        taps33.k[taps33.dims - 1] = 33;
        refuses("row_mma_tf32", &taps33, NULL, 0, ws, "has 33 taps");
        convt_problem many_out = plain();
        many_out.cout = 32 * 70000;
        refuses("row_mma_tf32", &many_out, "bm", 32, ws, "grid's y axis");
        /* 32 taps x 32 channels x 72 floats of weights at bm 64: 288 KiB */
        convt_problem heavy = plain();
        heavy.cin = heavy.cout = 64, heavy.k[heavy.dims - 1] = 32;
        refuses("row_mma_tf32", &heavy, "bm", 64, ws, "KiB of shared memory");
    }
    /* fft_overlap_save: stride 1 only, the knob's range, a dilated kernel
     * larger than the point budget, and the workspace of its spectra */
    {
        convt_problem unit = plain();
        unit.stride[0] = 1, unit.out_pad[0] = 0;
        refuses("fft_overlap_save", &p, NULL, 0, ws, "stride 2: overlap-save");
        refuses("fft_overlap_save", &unit, "points", 4, ws, "points 4: an FFT tile has 8");
        convt_problem far_taps = unit;
        far_taps.k[1] = 9, far_taps.dil[1] = 4; /* 3 x 33 points at least */
        refuses("fft_overlap_save", &far_taps, "points", 64, ws, "above the knob's 64");
        convt_problem big = unit;
        big.n = 64, big.cin = big.cout = 256;
        refuses("fft_overlap_save", &big, NULL, 0, 1 << 20, "workspace_limit_mb");
        /* shapes a review found accepted or slow (all valid for PyTorch):
         * taps 2^30 - 1 apart, whose smooth lengths' product wrapped to a
         * negative point count and a workspace of 0 ... */
        convt_problem wrap = convt_problem_default(3);
        wrap.n = 1, wrap.cin = 2, wrap.cout = 1;
        wrap.in[0] = wrap.in[1] = wrap.in[2] = 1;
        wrap.k[0] = wrap.k[1] = 3, wrap.k[2] = 2;
        wrap.dil[0] = wrap.dil[1] = wrap.pad[0] = wrap.pad[1] = (1 << 30) - 1;
        refuses("fft_overlap_save", &wrap, NULL, 0, ws, "dilated kernel spans 2147483647 points");
        /* ... an output row of 2^40 - 1 points, whose smooth length took
         * 30 s to find before it was refused ... */
        convt_problem long_row = convt_problem_default(1);
        long_row.n = long_row.cin = long_row.cout = 1, long_row.in[0] = 1;
        long_row.k[0] = 1025, long_row.dil[0] = 1 << 30, long_row.pad[0] = 1;
        refuses("fft_overlap_save", &long_row, NULL, 0, ws, "above 2^30");
        /* ... and a row of 2^31 - 1, where a lane's 32-bit position wrapped */
        convt_problem wide_row = convt_problem_default(1);
        wide_row.n = wide_row.cin = wide_row.cout = 1, wide_row.in[0] = 1 << 30, wide_row.k[0] = 1;
        wide_row.dil[0] = 1 << 30, wide_row.out_pad[0] = (1 << 30) - 1;
        refuses("fft_overlap_save", &wide_row, NULL, 0, (size_t)1 << 40, "above 2^30");
        /* the channel products' shared memory on a device without the opt-in */
        const convt_variant *v = convt_variant_find("fft_overlap_save");
        if (v) {
            convt_device_info small = h100;
            small.smem_per_block_optin = 48 * 1024;
            convt_context ctx = {.dev = &small, .workspace_limit = ws};
            convt_launch l = convt_launch_first_default(v);
            char why[512] = "";
            assert_false(v->supports(&unit, &l, &ctx, why, sizeof why));
            assert_non_null(strstr(why, "KiB of shared memory a block"));
        }
    }
    /* direct_grouped's 32-bit indices (the shapes a review found wrapping):
     * the padding outputs of a stride of 2^30 past the row's end ... */
    convt_problem wide_stride = convt_problem_default(1);
    wide_stride.n = wide_stride.cin = wide_stride.cout = wide_stride.groups = 1, wide_stride.in[0] = 1;
    wide_stride.k[0] = 3;
    wide_stride.stride[0] = (int64_t)1 << 30;
    refuses("direct_grouped", &wide_stride, "outs", 8, ws, "beyond the kernel's 32-bit indices");
    /* ... a row of 2^31 - 200 threads, whose grid-stride step wraps ... */
    convt_problem rows = convt_problem_default(2);
    rows.n = rows.cin = rows.cout = rows.groups = 1, rows.in[0] = rows.in[1] = 1;
    rows.k[0] = 2, rows.k[1] = 3, rows.stride[1] = ((int64_t)1 << 30) - 100;
    refuses("direct_grouped", &rows, "lanes", 1, ws, "beyond the kernel's 32-bit indices");
    /* ... and out + pad at 2^31 - 1, where the unchecked path's test wraps */
    convt_problem edge = convt_problem_default(1);
    edge.n = edge.cin = edge.cout = edge.groups = 1;
    edge.in[0] = ((int64_t)1 << 30) - 500, edge.k[0] = 2, edge.pad[0] = ((int64_t)1 << 30) - 1000;
    edge.dil[0] = ((int64_t)1 << 30) - 1, edge.out_pad[0] = ((int64_t)1 << 30) - 500;
    refuses("direct_grouped", &edge, "outs", 8, ws, "beyond the kernel's 32-bit indices");
    convt_problem q = plain();
    q.stride[1] = 1, q.dil[1] = 3, q.out_pad[1] = 2; /* PyTorch allows it, cuDNN cannot */
    refuses("cudnn_fp32", &q, NULL, 0, ws, "out_pad[1] = 2 is not below stride[1] = 1");
    refuses("cudnn_tf32", &q, NULL, 0, ws, "cuDNN's backward-data cannot express it");
    refuses("cudnn_graph_fp32", &q, NULL, 0, ws, "out_pad[1] = 2 is not below stride[1] = 1");
    refuses("cudnn_graph_tf32", &q, NULL, 0, ws, "cuDNN's backward-data cannot express it");
    /* 100000 OpenMP threads overflowed libgomp's stack: a skip now */
    refuses("cpu_gather", &p, "threads", 100000, ws, "threads = 100000 is above");
    refuses("cpu_scatter", &p, "threads", 100000, ws, "threads = 100000 is above");
    refuses("cpu_gather", &p, "threads", 1025, ws, "at most 1024");
}

/* im2col_gemm on a latent (every input one position, nothing padded): one
 * GEMM over all the images writes the output, so no workspace and one
 * launch of the images knob (0); with padding the columns come back. */
static void a_latent_is_one_gemm(void **state)
{
    (void)state;
    const convt_variant *v = convt_variant_find("im2col_gemm");
    if (!v)
        return; /* not built into this binary */
    convt_problem p = convt_problem_default(2);
    p.n = 64, p.cin = 100, p.cout = 512, p.in[0] = p.in[1] = 1, p.k[0] = p.k[1] = 4;
    const char *images = "images";
    const int64_t all = 0, one = 1;
    accepts_with("im2col_gemm", &p, 1, &images, &all, 0, "a latent, images 0, no workspace");
    accepts_with("im2col_gemm_tf32", &p, 1, &images, &all, 0, "a latent, images 0");
    const convt_launch l = launch_with(v, 1, &images, &all);
    assert_int_equal(v->workspace_size(&p, &l), 0);
    refuses("im2col_gemm", &p, "images", one, 0, "takes every image at once");
    p.pad[1] = 1; /* output 4 x 2: col2im crops */
    const convt_launch l1 = launch_with(v, 1, &images, &one);
    assert_int_equal(v->workspace_size(&p, &l1), (size_t)512 * 16 * 4);
    accepts_with("im2col_gemm", &p, 1, &images, &one, (size_t)1 << 30, "a padded latent, images 1");
}

/* im2col_gemm's merge = 1: a batch's images as one GEMM, its input copied
 * to [ci][image][p] in the workspace after the columns; refused where it
 * would merge one image or where the layer is already one GEMM. merge = 2
 * copies it channels last into the same room, and takes one image (the
 * copy then only transposes). */
static void im2col_merges_images_into_one_gemm(void **state)
{
    (void)state;
    const convt_variant *v = convt_variant_find("im2col_gemm");
    if (!v)
        return; /* not built into this binary */
    convt_problem p = convt_problem_default(2); /* SimpleBaseline's class, small */
    p.n = 4, p.cin = 16, p.cout = 8, p.groups = 2, p.in[0] = 8, p.in[1] = 6;
    p.k[0] = p.k[1] = 4, p.stride[0] = p.stride[1] = 2, p.pad[0] = p.pad[1] = 1;
    const char *knobs[2] = {"merge", "images"};
    const int64_t all[2] = {1, 0}, two[2] = {1, 2}, one[2] = {1, 1};
    const size_t columns = (size_t)2 * (8 / 2 * 16) * 48; /* an image: groups x M x P */
    accepts_with("im2col_gemm", &p, 2, knobs, all, (size_t)1 << 30, "merge 1, every image");
    accepts_with("im2col_gemm_tf32", &p, 2, knobs, two, (size_t)1 << 30, "merge 1, 2 images");
    const convt_launch la = launch_with(v, 2, knobs, all), l2 = launch_with(v, 2, knobs, two);
    assert_int_equal(v->workspace_size(&p, &la), (4 * columns + (size_t)4 * 16 * 48) * 4);
    assert_int_equal(v->workspace_size(&p, &l2), (2 * columns + (size_t)2 * 16 * 48) * 4);
    /* the merged input counts against the limit: the columns alone fit */
    refuses_with("im2col_gemm", &p, 2, knobs, all, 4 * columns * 4, "MiB of workspace");
    refuses_with("im2col_gemm", &p, 2, knobs, one, (size_t)1 << 30, "one image a GEMM");
    const int64_t last_all[2] = {2, 0}, last_one[2] = {2, 1};
    const convt_launch lc = launch_with(v, 2, knobs, last_all);
    assert_int_equal(v->workspace_size(&p, &lc), v->workspace_size(&p, &la));
    accepts_with("im2col_gemm_tf32", &p, 2, knobs, last_one, (size_t)1 << 30, "merge 2, 1 image");
    refuses_with("im2col_gemm", &p, 2, knobs, last_all, 4 * columns * 4, "MiB of workspace");
    refuses("im2col_gemm", &p, "merge", 3, (size_t)1 << 30, "merge = 3 must be 0, 1 or 2");
    refuses("im2col_gemm", &p, "merge", -1, (size_t)1 << 30, "merge = -1 must be 0, 1 or 2");
    /* col2im's outputs a thread: 1, 2 or 4 (a template each), 0 chosen by
     * the outputs' count (src/lib/col2im_outs.h) */
    const char *outs_knobs[2] = {"merge", "outs"};
    for (int64_t outs = 0; outs <= 4; outs = outs ? outs * 2 : 1)
        accepts_with("im2col_gemm", &p, 2, outs_knobs, (const int64_t[]){2, outs}, (size_t)1 << 30,
                     "outs 0, 1, 2 or 4");
    refuses("im2col_gemm_tf32", &p, "outs", 3, (size_t)1 << 30, "outs = 3 must be 0");
    refuses("im2col_gemm", &p, "outs", -1, (size_t)1 << 30, "outs = -1 must be 0");
    /* the merged GEMM's N (images x positions) is cuBLAS's int: 2 images of
     * 40000 x 40000 are more, where padding crops the output to 10000 x
     * 10000 and col2im's own 32-bit count holds */
    convt_problem wide = convt_problem_default(2);
    wide.n = 2, wide.cin = wide.cout = 1, wide.k[0] = wide.k[1] = 1;
    wide.in[0] = wide.in[1] = 40000, wide.pad[0] = wide.pad[1] = 15000;
    refuses_with("im2col_gemm", &wide, 2, knobs, last_all, (size_t)1 << 40, "merged GEMM's N");
    refuses_with("im2col_gemm", &wide, 2, knobs, all, (size_t)1 << 40, "merged GEMM's N");
    accepts_with("im2col_gemm", &wide, 2, knobs, last_one, (size_t)1 << 40, "merge 2, 1 image");
    convt_problem latent = convt_problem_default(2);
    latent.n = 8, latent.cin = 16, latent.cout = 8, latent.k[0] = latent.k[1] = 4;
    latent.in[0] = latent.in[1] = 1;
    refuses_with("im2col_gemm", &latent, 2, knobs, all, 0, "already takes every image");
    refuses_with("im2col_gemm", &latent, 2, knobs, last_all, 0, "already takes every image");
}

/* im2col_gemm's knob algo indexes cuBLASLt's heuristic results (0: cuBLAS's
 * own choice): its range is refused by supports, and the workspace
 * supports declares is the columns' alone (cuBLASLt's work area is added
 * in prepare, where the pick is known). An M that is not a multiple of 4
 * (FSRCNN's 81) runs as it is: padding the weights' rows cost more than it
 * gained (session 61). */
static void im2col_algo_indexes_cublaslt_results(void **state)
{
    (void)state;
    const convt_variant *v = convt_variant_find("im2col_gemm");
    if (!v)
        return; /* not built into this binary */
    convt_problem p = convt_problem_default(2); /* FSRCNN's class: one output, 9 x 9 taps */
    p.n = 2, p.cin = 6, p.cout = 1, p.in[0] = p.in[1] = 5, p.k[0] = p.k[1] = 9;
    p.stride[0] = p.stride[1] = 3, p.pad[0] = p.pad[1] = 4;
    const char *knobs[2] = {"algo", "images"};
    const int64_t third[2] = {3, 0}, own[2] = {0, 0};
    const convt_launch l3 = launch_with(v, 2, knobs, third), l0 = launch_with(v, 2, knobs, own);
    assert_int_equal(v->workspace_size(&p, &l3), (size_t)2 * 81 * 25 * 4);
    assert_int_equal(v->workspace_size(&p, &l0), v->workspace_size(&p, &l3));
    accepts_with("im2col_gemm_tf32", &p, 2, knobs, third, (size_t)1 << 30, "algo 3");
    const int64_t last[2] = {16, 1};
    accepts_with("im2col_gemm", &p, 2, knobs, last, (size_t)1 << 30, "algo 16");
    refuses("im2col_gemm", &p, "algo", 17, (size_t)1 << 30, "algo = 17 must be 0");
    refuses("im2col_gemm_tf32", &p, "algo", -1, (size_t)1 << 30, "algo = -1 must be 0");
}

/* A CPU variant takes a few threads per processor (oversubscription is worth
 * measuring), up to the limit its reason names. */
static void cpu_threads_within_the_limit_are_accepted(void **state)
{
    (void)state;
    convt_problem p = plain();
    convt_context ctx = ctx_with(0);
    const char *names[] = {"cpu_gather", "cpu_scatter"};
    for (int i = 0; i < 2; i++) {
        const convt_variant *v = convt_variant_find(names[i]);
        assert_non_null(v);
        convt_launch l = convt_launch_first_default(v);
        char why[512] = "";
        for (int64_t t = 0; t <= 4; t++) {
            l.value[0] = t;
            if (!v->supports(&p, &l, &ctx, why, sizeof why))
                fail_msg("%s refused threads = %lld: %s", names[i], (long long)t, why);
        }
    }
}

/* The list of every variant name, which configs are checked against on any
 * build, holds every variant this binary has, each once, with its backend. */
static void every_built_variant_is_in_the_list_of_all(void **state)
{
    (void)state;
    for (const convt_variant *const *v = convt_variants; *v; v++) {
        const convt_variant_name *n = convt_variant_name_find((*v)->name);
        if (!n)
            fail_msg("%s is missing from convt_all_variant_names (kernels/registry.c)",
                     (*v)->name);
        assert_int_equal(n->backend, (*v)->backend);
    }
    int count = 0;
    for (const convt_variant_name *n = convt_all_variant_names; n->name; n++, count++) {
        assert_true(convt_variant_name_find(n->name) == n); /* once */
        assert_true((n->needs == NULL) == (n->backend == CONVT_BACKEND_CPU));
    }
    assert_true(count >= 14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_default_launch_is_accepted),
        cmocka_unit_test(refusals_name_their_reason),
        cmocka_unit_test(cpu_threads_within_the_limit_are_accepted),
        cmocka_unit_test(a_latent_is_one_gemm),
        cmocka_unit_test(im2col_merges_images_into_one_gemm),
        cmocka_unit_test(im2col_algo_indexes_cublaslt_results),
        cmocka_unit_test(every_built_variant_is_in_the_list_of_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
