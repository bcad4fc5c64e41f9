/* rows_tma_tf32: stride-1 layers on Hopper's warpgroup MMA, the input's
 * rows loaded by the TMA engine from the NCHW tensor, a row's taps as
 * column sets (the kernel and why: kernels/rows_tma_tf32.cuh). Host side:
 * which layers and knobs it takes, the geometry, the input's tensor map
 * and the weight image.
 *
 *   convt-bench --config configs/rows-tma-check.json */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_config.h"

#if CONVT_HAVE_WGMMA
#include <cudaTypedefs.h>

#include "cuda_check.h"
#include "direct_grouped_taps.cuh"
#include "rows_tma_tf32.cuh"
#include "tensor_map_encoder.h"
#include "variant.h"

extern "C" const convt_variant convt_variant_rows_tma_tf32;

/* Output channels a block, as compiled (wgmma's N for one set). */
static const int64_t rt_ncs[] = {8, 16, 24, 32, 48, 64};

/* A launch's geometry: the channel blocks, the window and box, the stage
 * and the shared memory. */
typedef struct rt_geometry {
    int64_t mb, bk, nc, kw, cobs, blocks, chunks, span, lead, col_out, boxw, segs, rows, tiles;
    int64_t lbo, in_bytes, w_bytes, stage_bytes, res_bytes, stages_at, ys_at, smem, image_bytes;
} rt_geometry;

/* The narrowest compiled N that holds `channels`. */
static int64_t rt_nc_of(int64_t channels)
{
    for (int i = 0; i < (int)(sizeof rt_ncs / sizeof rt_ncs[0]); i++)
        if (rt_ncs[i] >= channels)
            return rt_ncs[i];
    return RT_MAX_NC;
}

/* A group's output channels in blocks of at most `cap` (a compiled N):
 * the blocks' count and the N that holds the widest. */
static void rt_channel_blocks(int64_t cout_g, int64_t cap, int64_t *cobs, int64_t *nc)
{
    *cobs = (cout_g + cap - 1) / cap;
    *nc = rt_nc_of((cout_g + *cobs - 1) / *cobs);
}

/* The channel blocks' cap: the knob's, or (cob = 0) the widest whose sets
 * fit the registers, fewest restagings of the input. */
static int64_t rt_cap_of(int64_t cob, int64_t cout_g, int64_t bm, int64_t bk, int64_t kw)
{
    if (cob)
        return cob;
    for (int i = (int)(sizeof rt_ncs / sizeof rt_ncs[0]) - 1; i > 0; i--) {
        int64_t cobs, nc;
        rt_channel_blocks(cout_g, rt_ncs[i], &cobs, &nc);
        if (rt_fits((int)(bm / 64), (int)bk, (int)nc, (int)kw))
            return rt_ncs[i];
    }
    return rt_ncs[0];
}

static rt_geometry rt_geometry_of(const convt_problem *p, const convt_shape3 &s, int64_t bm,
                                  int64_t bk, int64_t stages, int64_t cob, int64_t resident)
{
    rt_geometry g;
    const int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    g.mb = bm / 64;
    g.bk = bk;
    rt_channel_blocks(cout_g, rt_cap_of(cob, cout_g, bm, bk, s.k[2]), &g.cobs, &g.nc);
    g.blocks = p->groups * g.cobs;
    g.kw = s.k[2];
    g.chunks = (cin_g + bk - 1) / bk;
    g.span = (s.k[2] - 1) * s.dil[2];
    /* The box starts 16-byte aligned (the TMA engine faulted with an
     * illegal instruction wherever its first position was not a multiple
     * of 4: 504 of 714 launches, session 30), lead positions before the
     * window: col_out a multiple of 4 keeps every tile's start aligned, so
     * lead is the same for all. The box's pitch is 8 past a multiple of 16
     * floats (conflict-free fragment loads). */
    g.lead = ((s.pad[2] - g.span) % 4 + 4) % 4;
    g.col_out = (bm - g.span) / 4 * 4;
    g.boxw = (g.lead + bm + 7) / 16 * 16 + 8;
    g.segs = g.col_out > 0 ? (s.out[2] + g.col_out - 1) / g.col_out : 0;
    g.rows = p->n * s.out[0] * s.out[1];
    g.tiles = g.rows * g.segs * g.blocks;
    /* the weights' K core matrices 64 bytes past a multiple of 128 apart
     * (polyphase_wgmma.cuh's kpad: the two K halves in opposite banks) */
    g.lbo = g.nc * 16 + 64;
    g.in_bytes = bk * g.boxw * 4;
    g.w_bytes = g.kw * (bk / 4) * g.lbo;
    /* resident: a channel block's weights, every outer tap and chunk, once */
    g.res_bytes = resident ? s.k[0] * s.k[1] * g.chunks * g.w_bytes : 0;
    g.stage_bytes = g.in_bytes + (resident ? 0 : g.w_bytes);
    g.stages_at = RT_BARRIER_BYTES + g.res_bytes;
    g.ys_at = g.stages_at + stages * g.stage_bytes;
    g.smem = g.ys_at + 2 * g.nc * rt_epilogue_pitch((int)g.mb) * 4;
    g.image_bytes = g.blocks * s.k[0] * s.k[1] * g.chunks * g.w_bytes;
    return g;
}

struct rt_knobs {
    int64_t bm, bk, stages, cob, resident;
};

static rt_knobs rt_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_rows_tma_tf32;
    return {convt_launch_get(v, l, "bm"), convt_launch_get(v, l, "bk"),
            convt_launch_get(v, l, "stages"), convt_launch_get(v, l, "cob"),
            convt_launch_get(v, l, "resident")};
}

static bool rt_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                        char *why, size_t why_len)
{
    const rt_knobs k = rt_knobs_of(l);
    static const int64_t bms[] = {64, 128}, bks[] = {8, 16, 32}, depths[] = {2, 3, 4, 5, 6, 7, 8},
                         cobs[] = {0, 8, 16, 24, 32, 48, 64}, flags[] = {0, 1};
    if (!dg_knob_compiled("bm", k.bm, bms, 2, why, why_len) ||
        !dg_knob_compiled("bk", k.bk, bks, 3, why, why_len) ||
        !dg_knob_compiled("stages", k.stages, depths, 7, why, why_len) ||
        !dg_knob_compiled("cob", k.cob, cobs, 7, why, why_len) ||
        !dg_knob_compiled("resident", k.resident, flags, 2, why, why_len))
        return false;
    if (ctx->dev->cc_major != 9) {
        snprintf(why, why_len, "needs an sm_90 device (wgmma and the TMA engine); this is sm_%d%d",
                 ctx->dev->cc_major, ctx->dev->cc_minor);
        return false;
    }
    const convt_shape3 s = convt_problem_as_3d(p);
    if (s.stride[0] != 1 || s.stride[1] != 1 || s.stride[2] != 1) {
        snprintf(why, why_len, "stride %lldx%lldx%lld: takes stride 1 along every dimension, "
                 "where each tap reads the input at a fixed offset (a box the TMA engine copies)",
                 (long long)s.stride[0], (long long)s.stride[1], (long long)s.stride[2]);
        return false;
    }
    if (s.k[2] != 3 && s.k[2] != 5 && s.k[2] != 7) {
        snprintf(why, why_len, "%lld taps along the innermost dimension: kernels are compiled "
                 "for 3, 5 or 7 (a column set each)",
                 (long long)s.k[2]);
        return false;
    }
    const int64_t cin_g = p->cin / p->groups;
    if (p->groups > 1 && cin_g % k.bk) {
        snprintf(why, why_len, "bk = %lld does not divide the %lld input channels of a group: "
                 "a box past them would read the next group's",
                 (long long)k.bk, (long long)cin_g);
        return false;
    }
    if (s.in[2] % 4) {
        snprintf(why, why_len, "input rows of %lld floats: the TMA engine needs rows a multiple "
                 "of 16 bytes (4 floats)",
                 (long long)s.in[2]);
        return false;
    }
    const rt_geometry g = rt_geometry_of(p, s, k.bm, k.bk, k.stages, k.cob, k.resident);
    if (!rt_fits((int)g.mb, (int)k.bk, (int)g.nc, (int)g.kw)) {
        snprintf(why, why_len, "%lld sets of %lld output channels over bm = %lld positions, with "
                 "bk = %lld channels of A fragments twice, need more registers than a thread "
                 "has (%d accumulators at most, %d with the fragments)%s",
                 (long long)g.kw, (long long)g.nc, (long long)k.bm, (long long)k.bk,
                 (int)WG_COLSUM_MAX_ACC, (int)WG_COLSUM_MAX_REGS,
                 k.cob ? ": try cob = 0 (the widest block that fits)"
                 : k.bm > 64 ? ": try bm = 64" : k.bk > 8 ? ": try a smaller bk" : "");
        return false;
    }
    if (2 * g.col_out < k.bm) {
        snprintf(why, why_len, "the row's taps span %lld positions: a warpgroup would store "
                 "%lld of its %lld (fewer than half)",
                 (long long)g.span, (long long)g.col_out, (long long)k.bm);
        return false;
    }
    if ((size_t)g.smem > ctx->dev->smem_per_block_optin) {
        char res[64] = "";
        if (k.resident)
            snprintf(res, sizeof res, "; the resident weights take %lld bytes", (long long)g.res_bytes);
        snprintf(why, why_len, "needs %.1f KiB of shared memory (%s%lld stages of %lld bytes, the "
                 "epilogue's %lld), the device allows %.1f KiB: try fewer stages%s%s",
                 g.smem / 1024.0, k.resident ? "the resident weights' " : "",
                 (long long)k.stages, (long long)g.stage_bytes, (long long)(g.smem - g.ys_at),
                 ctx->dev->smem_per_block_optin / 1024.0,
                 k.resident ? ", or resident = 0 (the weights staged with each input box)" : " or a smaller bk",
                 res);
        return false;
    }
    const int64_t widest = dg_widest_extent(s);
    if (widest > INT32_MAX / 4 || g.tiles > INT32_MAX || p->cin > INT32_MAX || p->n > INT32_MAX) {
        snprintf(why, why_len, "%lld tiles, or a dimension of %lld, beyond the kernel's 32-bit "
                 "indices and TMA's coordinates",
                 (long long)g.tiles, (long long)widest);
        return false;
    }
    return true;
}

static size_t rt_workspace(const convt_problem *p, const convt_launch *l)
{
    const rt_knobs k = rt_knobs_of(l);
    return (size_t)rt_geometry_of(p, convt_problem_as_3d(p), k.bm, k.bk, k.stages, k.cob, k.resident).image_bytes;
}

typedef void (*rt_kernel_fn)(const __grid_constant__ CUtensorMap, rt_args, const unsigned char *,
                             const float *, float *);

/* The kernel compiled for (MB, BK, NC, KW), or NULL where its sets and
 * fragments would not fit the registers (rt_supports refuses those). */
template <int MB, int BK, int NC, int KW>
static rt_kernel_fn rt_pick()
{
    if constexpr (rt_fits(MB, BK, NC, KW))
        return rows_tma_kernel<MB, BK, NC, KW>;
    else
        return NULL;
}

template <int MB, int BK, int NC>
static rt_kernel_fn rt_kernel_by_kw(int64_t kw)
{
    return kw == 3 ? rt_pick<MB, BK, NC, 3>() : kw == 5 ? rt_pick<MB, BK, NC, 5>()
                                                        : rt_pick<MB, BK, NC, 7>();
}

template <int MB, int BK>
static rt_kernel_fn rt_kernel_by_nc(int64_t nc, int64_t kw)
{
    switch (nc) {
    case 8: return rt_kernel_by_kw<MB, BK, 8>(kw);
    case 16: return rt_kernel_by_kw<MB, BK, 16>(kw);
    case 24: return rt_kernel_by_kw<MB, BK, 24>(kw);
    case 32: return rt_kernel_by_kw<MB, BK, 32>(kw);
    case 48: return rt_kernel_by_kw<MB, BK, 48>(kw);
    default: return rt_kernel_by_kw<MB, BK, 64>(kw);
    }
}

template <int MB>
static rt_kernel_fn rt_kernel_by_bk(int64_t bk, int64_t nc, int64_t kw)
{
    return bk == 8    ? rt_kernel_by_nc<MB, 8>(nc, kw)
           : bk == 16 ? rt_kernel_by_nc<MB, 16>(nc, kw)
                      : rt_kernel_by_nc<MB, 32>(nc, kw);
}

static rt_kernel_fn rt_kernel_of(const rt_geometry &g)
{
    return g.mb == 1 ? rt_kernel_by_bk<1>(g.bk, g.nc, g.kw) : rt_kernel_by_bk<2>(g.bk, g.nc, g.kw);
}

/* The weight image: per channel block (group g, block cob), outer tap
 * (kz, ky) and chunk, a stage's weights exactly as the stage holds them:
 * tap kx's tile at kx x (bk / 4) x lbo, input channel chunk x bk + 4 k4 +
 * e of output channel co at k4 x lbo + co x 16 + e x 4, rounded to TF32;
 * zero where no channel is, and in the 64 bytes past each K core matrix. */
struct rt_pack_args {
    int64_t floats;  /* the image's */
    int w_floats, tap_floats, lbo_floats, nc, bk, kw, kd, kh, chunks, cobs;
    int cin_g, cout_g, ktaps;
};

__global__ void rt_pack_weights(rt_pack_args pa, const float *__restrict__ w, float *__restrict__ img)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < pa.floats;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t slot = i / pa.w_floats;
        const int r = (int)(i - slot * pa.w_floats);
        const int kx = r / pa.tap_floats, r2 = r - kx * pa.tap_floats;
        const int k4 = r2 / pa.lbo_floats, r3 = r2 - k4 * pa.lbo_floats;
        const int co = r3 / 4, e = r3 % 4;
        const int ch = (int)(slot % pa.chunks);
        const int64_t t2 = slot / pa.chunks;
        const int ky = (int)(t2 % pa.kh);
        const int64_t t3 = t2 / pa.kh;
        const int kz = (int)(t3 % pa.kd);
        const int blk = (int)(t3 / pa.kd);
        const int g = blk / pa.cobs, cob = blk - g * pa.cobs;
        const int ci = ch * pa.bk + 4 * k4 + e, col = cob * pa.nc + co;
        float v = 0.0f;
        if (co < pa.nc && ci < pa.cin_g && col < pa.cout_g)
            v = __uint_as_float(tf32_exact(
                w[((int64_t)(g * pa.cin_g + ci) * pa.cout_g + col) * pa.ktaps + (kz * pa.kh + ky) * pa.kw + kx]));
        img[i] = v;
    }
}

struct rt_state {
    rt_args args;
    rt_pack_args pack;
    rt_kernel_fn kernel;
    CUtensorMap map;
    const float *map_of; /* the input the map describes */
    unsigned box[5];     /* the map's box: boxw x 1 x 1 x bk x 1 */
    unsigned grid;
    size_t smem;
    int64_t in_extent[5];
    char detail[160];
};

/* The input as TMA sees it: 5-D (x, o1, o0, channel, image; innermost
 * first), a box of boxw x 1 x 1 x bk x 1, zeros outside. */
static int rt_encode_map(rt_state *st, const float *x, convt_err *e)
{
    if ((uintptr_t)x % 16)
        return convt_fail(e, "the input at %p is not 16-byte aligned, as the TMA engine needs",
                          (const void *)x);
    const PFN_cuTensorMapEncodeTiled_v12000 encode = convt_tensor_map_encoder(e);
    if (!encode)
        return -1;
    cuuint64_t dims[5], strides[4];
    cuuint64_t stride = 4;
    for (int d = 0; d < 5; d++) {
        dims[d] = (cuuint64_t)st->in_extent[d];
        if (d > 0)
            strides[d - 1] = stride;
        stride *= dims[d];
    }
    const cuuint32_t *box = st->box;
    const cuuint32_t elem[5] = {1, 1, 1, 1, 1};
    const CUresult r = encode(&st->map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 5, (void *)x, dims, strides,
                              box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return convt_fail(e, "cuTensorMapEncodeTiled failed (CUresult %d) for the input %lldx%lldx"
                             "%lldx%lldx%lld (x, o1, o0, channels, images), box %lldx%lld",
                          (int)r, (long long)dims[0], (long long)dims[1], (long long)dims[2],
                          (long long)dims[3], (long long)dims[4], (long long)box[0], (long long)box[3]);
    st->map_of = x;
    return 0;
}

static int rt_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                      const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)workspace;
    const rt_knobs k = rt_knobs_of(l);
    const convt_shape3 s = convt_problem_as_3d(p);
    const rt_geometry g = rt_geometry_of(p, s, k.bm, k.bk, k.stages, k.cob, k.resident);
    rt_state *st = (rt_state *)calloc(1, sizeof *st);
    if (!st)
        return convt_fail(e, "out of host memory");
    rt_args &a = st->args;
    for (int d = 0; d < 3; d++) {
        a.in[d] = (int)s.in[d];
        a.out[d] = (int)s.out[d];
        a.pad[d] = (int)s.pad[d];
        a.dil[d] = (int)s.dil[d];
    }
    a.kd = (int)s.k[0];
    a.kh = (int)s.k[1];
    a.cout = (int)p->cout;
    a.cin_g = (int)(p->cin / p->groups);
    a.cout_g = (int)(p->cout / p->groups);
    a.cobs = (int)g.cobs;
    a.blocks = (int)g.blocks;
    a.chunks = (int)g.chunks;
    a.segs = (int)g.segs;
    a.col_out = (int)g.col_out;
    a.lead = (int)g.lead;
    a.tiles = (int)g.tiles;
    a.boxw = (int)g.boxw;
    a.lbo = (int)g.lbo;
    a.in_bytes = (int)g.in_bytes;
    a.w_bytes = (int)g.w_bytes;
    a.stage_bytes = (int)g.stage_bytes;
    a.stages = (int)k.stages;
    a.resident = (int)k.resident;
    a.stages_at = (int)g.stages_at;
    a.ys_at = (int)g.ys_at;
    rt_pack_args &pa = st->pack;
    pa.floats = g.image_bytes / 4;
    pa.w_floats = (int)(g.w_bytes / 4);
    pa.tap_floats = (int)(k.bk / 4 * g.lbo / 4);
    pa.lbo_floats = (int)(g.lbo / 4);
    pa.nc = (int)g.nc;
    pa.bk = (int)k.bk;
    pa.kw = (int)g.kw;
    pa.kd = a.kd;
    pa.kh = a.kh;
    pa.chunks = a.chunks;
    pa.cobs = a.cobs;
    pa.cin_g = a.cin_g;
    pa.cout_g = a.cout_g;
    pa.ktaps = (int)(s.k[0] * s.k[1] * s.k[2]);
    const int64_t ext[5] = {s.in[2], s.in[1], s.in[0], p->cin, p->n};
    for (int d = 0; d < 5; d++)
        st->in_extent[d] = ext[d];
    st->kernel = rt_kernel_of(g);
    if (!st->kernel) {
        free(st);
        return convt_fail(e, "no kernel compiled for bm %lld, bk %lld, %lld channels, %lld taps",
                          (long long)k.bm, (long long)k.bk, (long long)g.nc, (long long)g.kw);
    }
    const int64_t sms = ctx->dev->sm_count > 0 ? ctx->dev->sm_count : 1;
    /* resident: a multiple of the channel blocks, so that each block's
     * tiles keep its channel block */
    const int64_t grid = g.tiles < sms ? g.tiles : sms;
    st->grid = (unsigned)(k.resident && grid >= g.blocks ? grid / g.blocks * g.blocks : grid);
    st->smem = (size_t)g.smem;
    const unsigned box[5] = {(unsigned)g.boxw, 1, 1, (unsigned)k.bk, 1};
    memcpy(st->box, box, sizeof box);
    if (rt_encode_map(st, t->x, e)) {
        free(st);
        return -1;
    }
    snprintf(st->detail, sizeof st->detail,
             "nc=%lld blocks=%lld col_out=%lld lead=%lld boxw=%lld segs=%lld tiles=%lld stage=%lld smem=%lld",
             (long long)g.nc, (long long)g.blocks, (long long)g.col_out, (long long)g.lead, (long long)g.boxw,
             (long long)g.segs, (long long)g.tiles, (long long)g.stage_bytes, (long long)g.smem);
    return dg_hand_over(st, ctx, state, e);
}

/* Per launch: the weight image (the weights are data), then the tiles. The
 * input's map is encoded again only if the input moved since. */
static int rt_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                     void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)p, (void)l;
    rt_state *st = (rt_state *)state;
    const cudaStream_t stream = (cudaStream_t)ctx->stream;
    if (t->x != st->map_of && rt_encode_map(st, t->x, e))
        return -1;
    if (st->grid == 0)
        return 0;
    const int64_t fl = st->pack.floats;
    const unsigned pack_blocks = (unsigned)((fl + 255) / 256 < 4096 ? (fl + 255) / 256 : 4096);
    rt_pack_weights<<<pack_blocks, 256, 0, stream>>>(st->pack, t->w, (float *)workspace);
    CUDA_TRY_LAUNCH(e);
    st->kernel<<<st->grid, WG_THREADS, st->smem, stream>>>(st->map, st->args,
                                                           (const unsigned char *)workspace, t->b, t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

extern "C" const convt_variant convt_variant_rows_tma_tf32 = {
    .name = "rows_tma_tf32",
    .summary = "stride-1 layers on Hopper's warpgroup MMA (sm_90a): each input row's box of "
               "channels x positions copied by the TMA engine from the NCHW tensor (zeros at "
               "the borders), loaded into registers as wgmma's A, a row's taps as column sets "
               "summed at their shifts in the epilogue, output rows stored whole",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 5,
    .knobs = {{.name = "bm",
               .help = "input positions a tile multiplies (64 or 128), one consumer "
                       "warpgroup's; it stores bm - (kw - 1) x dilation of them, rounded down "
                       "to 4. 128 needs the sets' accumulators to fit twice: few output channels",
               .n_defaults = 2,
               .defaults = {64, 128}},
              {.name = "bk",
               .help = "input channels a stage (8, 16 or 32): the box's depth",
               .n_defaults = 3,
               .defaults = {16, 32, 8}},
              {.name = "stages",
               .help = "the pipeline's depth (2 to 8), as shared memory allows: the input "
                       "boxes in flight that hide the TMA engine's latency",
               .n_defaults = 2,
               .defaults = {6, 4}},
              {.name = "cob",
               .help = "output channels a block at most (8 to 64, as compiled; 0: the widest "
                       "whose kw sets of accumulators fit the registers). A group's channels "
                       "beyond it take more blocks, each staging the input again",
               .n_defaults = 1,
               .defaults = {0}},
              {.name = "resident",
               .help = "1: the block's weights (every tap and chunk of its channel block) loaded "
                       "into shared memory once, the stages holding the input alone; 0: each "
                       "stage's weights copied with its input box (from L2, for every tile)",
               .n_defaults = 2,
               .defaults = {1, 0}}},
    .supports = rt_supports,
    .workspace_size = rt_workspace,
    .prepare = rt_prepare,
    .launch = rt_launch,
    .release = dg_free_state,
    .describe = dg_describe_detail<rt_state>,
};
#endif /* CONVT_HAVE_WGMMA */
