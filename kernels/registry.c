/* The table of every variant built into this binary. Adding a variant: write
 * kernels/<name>.c or .cu defining `const convt_variant convt_variant_<name>`,
 * add the file to meson.build, and add one line to convt_variants and one to
 * convt_all_variant_names below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_config.h"
#include "variant.h"

extern const convt_variant convt_variant_cpu_gather;
extern const convt_variant convt_variant_cpu_scatter;
#if CONVT_HAVE_CUDA
extern const convt_variant convt_variant_gather;
extern const convt_variant convt_variant_scatter_atomic;
extern const convt_variant convt_variant_im2col_gemm;
extern const convt_variant convt_variant_im2col_gemm_tf32;
extern const convt_variant convt_variant_tiled_smem;
extern const convt_variant convt_variant_polyphase_igemm_tf32;
extern const convt_variant convt_variant_polyphase_igemm_3xtf32;
extern const convt_variant convt_variant_direct_grouped;
extern const convt_variant convt_variant_direct_grouped_staged;
extern const convt_variant convt_variant_direct_window;
extern const convt_variant convt_variant_direct_window_split;
extern const convt_variant convt_variant_direct_periods;
extern const convt_variant convt_variant_row_mma_tf32;
extern const convt_variant convt_variant_fft_overlap_save;
#endif
#if CONVT_HAVE_WGMMA
extern const convt_variant convt_variant_polyphase_wgmma_tf32;
extern const convt_variant convt_variant_polyphase_wgmma_3xtf32;
extern const convt_variant convt_variant_polyphase_wgmma_fold_tf32;
extern const convt_variant convt_variant_polyphase_wgmma_fold_3xtf32;
extern const convt_variant convt_variant_polyphase_wgmma_fold_posm_3xtf32;
extern const convt_variant convt_variant_polyphase_wgmma_fold_inplace_tf32;
extern const convt_variant convt_variant_polyphase_wgmma_splitk_tf32;
extern const convt_variant convt_variant_polyphase_wgmma_splitk_3xtf32;
extern const convt_variant convt_variant_polyphase_wgmma_cluster_tf32;
extern const convt_variant convt_variant_polyphase_wgmma_wide_tf32;
extern const convt_variant convt_variant_polyphase_wgmma_colsum_tf32;
extern const convt_variant convt_variant_polyphase_wgmma_pingpong_tf32;
extern const convt_variant convt_variant_polyphase_wgmma_fold_inner_tf32;
extern const convt_variant convt_variant_polyphase_wgmma_rowfold_tf32;
extern const convt_variant convt_variant_polyphase_wgmma_pair_tf32;
extern const convt_variant convt_variant_rows_tma_tf32;
#endif
#if CONVT_HAVE_CUDNN
extern const convt_variant convt_variant_cudnn_fp32;
extern const convt_variant convt_variant_cudnn_tf32;
extern const convt_variant convt_variant_cudnn_graph_fp32;
extern const convt_variant convt_variant_cudnn_graph_tf32;
#endif
#if CONVT_PLANTED_FAULTS /* convt-bench-faults only (meson.build) */
extern const convt_variant convt_variant_planted_segfault;
extern const convt_variant convt_variant_planted_abort;
extern const convt_variant convt_variant_planted_spin;
extern const convt_variant convt_variant_planted_nan;
#if CONVT_HAVE_CUDA
extern const convt_variant convt_variant_planted_cuda_illegal_address;
extern const convt_variant convt_variant_planted_cuda_hang;
#endif
#endif

const convt_variant *const convt_variants[] = {
    &convt_variant_cpu_gather,
    &convt_variant_cpu_scatter,
#if CONVT_HAVE_CUDA
    &convt_variant_gather,
    &convt_variant_scatter_atomic,
    &convt_variant_im2col_gemm,
    &convt_variant_im2col_gemm_tf32,
    &convt_variant_tiled_smem,
    &convt_variant_polyphase_igemm_tf32,
    &convt_variant_polyphase_igemm_3xtf32,
    &convt_variant_direct_grouped,
    &convt_variant_direct_grouped_staged,
    &convt_variant_direct_window,
    &convt_variant_direct_window_split,
    &convt_variant_direct_periods,
    &convt_variant_row_mma_tf32,
    &convt_variant_fft_overlap_save,
#endif
#if CONVT_HAVE_WGMMA
    &convt_variant_polyphase_wgmma_tf32,
    &convt_variant_polyphase_wgmma_3xtf32,
    &convt_variant_polyphase_wgmma_fold_tf32,
    &convt_variant_polyphase_wgmma_fold_3xtf32,
    &convt_variant_polyphase_wgmma_fold_posm_3xtf32,
    &convt_variant_polyphase_wgmma_fold_inplace_tf32,
    &convt_variant_polyphase_wgmma_splitk_tf32,
    &convt_variant_polyphase_wgmma_splitk_3xtf32,
    &convt_variant_polyphase_wgmma_wide_tf32,
    &convt_variant_polyphase_wgmma_cluster_tf32,
    &convt_variant_polyphase_wgmma_colsum_tf32,
    &convt_variant_polyphase_wgmma_pingpong_tf32,
    &convt_variant_polyphase_wgmma_fold_inner_tf32,
    &convt_variant_polyphase_wgmma_rowfold_tf32,
    &convt_variant_polyphase_wgmma_pair_tf32,
    &convt_variant_rows_tma_tf32,
#endif
#if CONVT_HAVE_CUDNN
    &convt_variant_cudnn_fp32,
    &convt_variant_cudnn_tf32,
    &convt_variant_cudnn_graph_fp32,
    &convt_variant_cudnn_graph_tf32,
#endif
#if CONVT_PLANTED_FAULTS
    &convt_variant_planted_segfault,
    &convt_variant_planted_abort,
    &convt_variant_planted_spin,
    &convt_variant_planted_nan,
#if CONVT_HAVE_CUDA
    &convt_variant_planted_cuda_illegal_address,
    &convt_variant_planted_cuda_hang,
#endif
#endif
    NULL,
};

/* Independent of the #if guards above: the names a config may use on any
 * build (tests/test_supports.c checks that every built variant is here). */
const convt_variant_name convt_all_variant_names[] = {
    {"cpu_gather", CONVT_BACKEND_CPU, NULL},
    {"cpu_scatter", CONVT_BACKEND_CPU, NULL},
    {"gather", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"scatter_atomic", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"im2col_gemm", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"im2col_gemm_tf32", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"tiled_smem", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"polyphase_igemm_tf32", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"polyphase_igemm_3xtf32", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"direct_grouped", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"direct_grouped_staged", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"direct_window", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"direct_window_split", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"direct_periods", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"row_mma_tf32", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"fft_overlap_save", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"polyphase_wgmma_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_3xtf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_fold_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_fold_3xtf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_fold_posm_3xtf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_fold_inplace_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_splitk_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_splitk_3xtf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_wide_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_cluster_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_colsum_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_pingpong_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_fold_inner_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_rowfold_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"polyphase_wgmma_pair_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"rows_tma_tf32", CONVT_BACKEND_CUDA, "a build for Hopper's sm_90a (meson -Dsm=90a)"},
    {"cudnn_fp32", CONVT_BACKEND_CUDA, "the CUDA Toolkit and cuDNN"},
    {"cudnn_tf32", CONVT_BACKEND_CUDA, "the CUDA Toolkit and cuDNN"},
    {"cudnn_graph_fp32", CONVT_BACKEND_CUDA, "the CUDA Toolkit and cuDNN"},
    {"cudnn_graph_tf32", CONVT_BACKEND_CUDA, "the CUDA Toolkit and cuDNN"},
#if CONVT_PLANTED_FAULTS /* known to convt-bench-faults alone */
    {"planted_segfault", CONVT_BACKEND_CPU, NULL},
    {"planted_abort", CONVT_BACKEND_CPU, NULL},
    {"planted_spin", CONVT_BACKEND_CPU, NULL},
    {"planted_nan", CONVT_BACKEND_CPU, NULL},
    {"planted_cuda_illegal_address", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
    {"planted_cuda_hang", CONVT_BACKEND_CUDA, "the CUDA Toolkit"},
#endif
    {NULL, CONVT_BACKEND_CPU, NULL},
};

const convt_variant_name *convt_variant_name_find(const char *name)
{
    for (const convt_variant_name *n = convt_all_variant_names; n->name; n++)
        if (!strcmp(n->name, name))
            return n;
    return NULL;
}

const char *convt_backend_kind_name(convt_backend_kind k)
{
    return k == CONVT_BACKEND_CUDA ? "cuda" : "cpu";
}

const convt_variant *convt_variant_find(const char *name)
{
    for (const convt_variant *const *v = convt_variants; *v; v++)
        if (!strcmp((*v)->name, name))
            return *v;
    return NULL;
}

/* The vendor libraries' variants: timed on the problem as a caller asks. */
static bool is_vendor(const convt_variant *v)
{
#if CONVT_HAVE_CUDNN
    return v == &convt_variant_cudnn_fp32 || v == &convt_variant_cudnn_tf32 ||
           v == &convt_variant_cudnn_graph_fp32 || v == &convt_variant_cudnn_graph_tf32;
#else
    (void)v;
    return false;
#endif
}

convt_problem convt_problem_for(const convt_variant *v, const convt_problem *p)
{
    bool built_in = false;
    for (const convt_variant *const *b = convt_variants; *b && !built_in; b++)
        built_in = *b == v;
    return built_in && !is_vendor(v) ? convt_problem_equivalent(p) : *p;
}

int convt_knob_index(const convt_variant *v, const char *name)
{
    for (int i = 0; i < v->n_knobs; i++)
        if (!strcmp(v->knobs[i].name, name))
            return i;
    return -1;
}

int64_t convt_launch_get(const convt_variant *v, const convt_launch *l, const char *name)
{
    int i = convt_knob_index(v, name);
    if (i < 0) {
        fprintf(stderr, "convt: variant %s has no knob %s (a bug in the variant)\n", v->name, name);
        abort();
    }
    return l->value[i];
}

convt_launch convt_launch_first_default(const convt_variant *v)
{
    convt_launch l;
    memset(&l, 0, sizeof l);
    for (int i = 0; i < v->n_knobs; i++)
        l.value[i] = v->knobs[i].defaults[0];
    return l;
}

void convt_launch_format(const convt_variant *v, const convt_launch *l, char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = 0;
    if (v->n_knobs == 0) {
        snprintf(buf, len, "-");
        return;
    }
    for (int i = 0; i < v->n_knobs && at < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%s=%lld", i ? "," : "", v->knobs[i].name,
                         (long long)l->value[i]);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

bool convt_check_block(int64_t threads, const char *knob, const convt_context *ctx, char *why,
                       size_t why_len)
{
    if (threads >= 32 && threads <= ctx->dev->max_threads_per_block && threads % 32 == 0)
        return true;
    snprintf(why, why_len, "%s = %lld must be a multiple of 32 in [32, %d]", knob,
             (long long)threads, ctx->dev->max_threads_per_block);
    return false;
}

bool convt_check_row_blocks(const convt_problem *p, const char *what, char *why,
                            size_t why_len)
{
    size_t smem = sizeof(float) * (size_t)(p->cin / p->groups) * (size_t)convt_taps(p);
    if (smem > 48 * 1024) {
        snprintf(why, why_len, "%s needs %.1f KiB of shared memory for the group's weights, "
                 "above the 48 KiB a block gets without opt-in", what, smem / 1024.0);
        return false;
    }
    if (p->n * p->cout > 65535) {
        snprintf(why, why_len, "%s puts n x cout = %lld rows on the grid's y axis (limit 65535)",
                 what, (long long)(p->n * p->cout));
        return false;
    }
    return true;
}
