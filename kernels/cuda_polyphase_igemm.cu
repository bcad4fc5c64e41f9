/* polyphase_igemm_tf32, polyphase_igemm_3xtf32: the transposed convolution
 * split into its stride phases, each an implicit GEMM on tensor cores.
 *
 * Along each dimension, output o receives tap k from input
 * i = (o + pad - k*dil) / stride exactly when k*dil == o + pad (mod stride).
 * Outputs with the same residue ph = (o + pad) mod stride (a phase) receive
 * the same taps, and with o = q*stride + ph - pad, tap k reads input
 * i = q - off(k), off(k) = (k*dil - ph) / stride: within a phase the
 * transposed convolution is a plain correlation over the phase's taps only,
 * so no multiply ever lands on an inserted zero. Each phase is a GEMM:
 *     M = images x output positions of the phase  (rows, q fastest)
 *     N = output channels of the group
 *     K = taps of the phase x input channels of the group
 *     A[m][(t, ci)] = x[n][g, ci][q - off(t)]   (0 outside the input)
 *     B[(t, ci)][co] = w[g, ci][co][t]
 * Every phase with taps, every group and every tile of output channels is
 * one block row of one launch. Phases that no tap reaches are not launched:
 * where they exist, the output is first filled with the bias (or zero) by
 * coalesced stores.
 *
 * The block computes a BM x BN tile of C with mma.sync m16n8k8 (TF32 in,
 * float32 accumulate), K in chunks of BK staged in shared memory through a
 * cp.async pipeline of `stages` buffers. A is gathered element by element
 * (4-byte cp.async with zero fill: consecutive rows m are consecutive input
 * positions, so the loads coalesce); B comes from the weights repacked at
 * the start of every launch (part of the timed work) as
 * wp[g][tap][ci][co padded to 4], read with 16-byte cp.async.
 * Operands are rounded to TF32 to nearest (one integer add, see tf32_round). polyphase_igemm_3xtf32 splits
 * each operand into big + small TF32 parts and adds small*big + big*small +
 * big*big (three mma), which carries float32 accuracy: fp32 tier.
 * Deterministic: the summation order is fixed.
 *
 *   convt-bench --config configs/kernelbench-l1.json   (variants: ["polyphase*"]) */
#include <stdlib.h>
#include <string.h>

#include "build_config.h"

#include "cuda_check.h"
#include "fastdiv.h"
#include "fold_box.h"
#include "hostdevice.h"
#include "polyphase_plan.h"
#include "row_fold.h"
#include "row_pairs.h"
#include "stride_phase.h"
#include "tensor_map_encoder.h" /* polyphase_wgmma_fold_inplace_tf32's weight map */
#include "variant.h"
#include "wgmma_flat.h"

#include "polyphase_common.cuh"
#include "polyphase_wgmma.cuh"
#include "smem_limit.cuh"

/* The compiled tile shapes: block tile BM x BN, warps WM x WN. Shapes 5-9
 * give each warp 64 rows, so every B fragment and every A element staged
 * feeds twice the mma of the 32-row warps of shapes 0-4. */
struct tile_shape {
    int bm, bn, wm, wn;
};
static constexpr tile_shape tile_shapes[] = {
    {128, 64, 4, 2},  /* 0: 8 warps of 32 x 32 */
    {128, 128, 2, 4}, /* 1: 8 warps of 64 x 32 */
    {64, 64, 2, 2},   /* 2: 4 warps of 32 x 32 */
    {256, 16, 8, 1},  /* 3: 8 warps of 32 x 16, for few channels per group */
    {128, 32, 4, 2},  /* 4: 8 warps of 32 x 16, for 32 channels per group */
    {128, 64, 2, 2},  /* 5: 4 warps of 64 x 32 */
    {128, 128, 2, 2}, /* 6: 4 warps of 64 x 64 (TF32 only: 3xTF32 would spill) */
    {256, 32, 4, 1},  /* 7: 4 warps of 64 x 32, for 32 channels per group */
    {256, 16, 4, 1},  /* 8: 4 warps of 64 x 16, for 16 channels per group */
    {256, 64, 4, 2},  /* 9: 8 warps of 64 x 32 */
};
enum { N_TILE_SHAPES = sizeof tile_shapes / sizeof tile_shapes[0] };
static constexpr int tile_threads(int t) { return tile_shapes[t].wm * tile_shapes[t].wn * 32; }
/* The one shape whose 3xTF32 accumulators (two sets of 64 x 64 per warp) do
 * not fit in registers. */
static constexpr bool tile_fits_split3(int t) { return t != 6; }

/* Shared-memory rows padded by 8 floats: fragment loads of lanes (gid, tig)
 * hit bank (8*tig + gid) mod 32, all different. */
enum { A_PAD = 8, B_PAD = 8 };

static size_t smem_bytes(int bm, int bn, int bk, int stages)
{
    return sizeof(float) * (size_t)stages * bk * ((bm + A_PAD) + (bn + B_PAD));
}

/* wp[g][t][ci][co_pad] = w[g*cin_g + ci][co][t], zero in the padding;
 * rounded to TF32 here once (round) rather than in every block. */
__global__ void pack_weights(const float *__restrict__ w, float *__restrict__ wp, int64_t cin_g,
                             int64_t cout_g, int64_t co_pad, int64_t ktaps, int64_t total,
                             bool round)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t co = i % co_pad, r = i / co_pad;
        int64_t ci = r % cin_g;
        r /= cin_g;
        int64_t t = r % ktaps, g = r / ktaps;
        float v = co < cout_g ? w[((g * cin_g + ci) * cout_g + co) * ktaps + t] : 0.0f;
        wp[i] = round ? __uint_as_float(tf32_exact(v)) : v;
    }
}

/* Row m of a phase -> (image, q0, q1, q2), q absolute; m < 2^31. */
__device__ __forceinline__ void split_row(const phase_desc &ph, int m, int &n, int (&q)[3])
{
    unsigned u = (unsigned)m;
#pragma unroll
    for (int d = 2; d >= 0; d--) {
        unsigned t = convt_fastdiv_div(ph.q_div[d], u);
        q[d] = (int)(u - t * (unsigned)ph.q_count[d]) + ph.q_min[d];
        u = t;
    }
    n = (int)u;
}

/* Shared-memory position of A column `col` (of BM): within each group of 32
 * columns (two m16 tiles of one warp) the 4 values a lane needs for one k
 * (rows gid and gid+8 of both tiles) sit side by side, so fragments load as
 * float4; a group of 32 keeps those loads free of bank conflicts. */
__device__ __forceinline__ int a_col_phys(int col)
{
    int r = col % 32;
    return col - r + (r % 8) * 4 + (r / 16) * 2 + (r % 16) / 8;
}

/* A warp's accumulator tile, summed (cleared by zero_tile, polyphase_common.cuh). */
template <int MI, int NI>
__device__ __forceinline__ void add_tile(float (&acc)[MI][NI][4], const float (&part)[MI][NI][4])
{
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[i][j][r] += part[i][j][r];
}

template <int TILE, int BK, bool SPLIT3>
__global__ void __launch_bounds__(tile_threads(TILE), 1)
    polyphase_kernel(poly_args a, const float *__restrict__ x, const float *__restrict__ wp,
                     const float *__restrict__ bias, float *__restrict__ y)
{
    constexpr int BM = tile_shapes[TILE].bm, BN = tile_shapes[TILE].bn;
    constexpr int WM = tile_shapes[TILE].wm, WN = tile_shapes[TILE].wn;
    constexpr int THREADS = WM * WN * 32;
    constexpr int WTM = BM / WM, WTN = BN / WN, MI = WTM / 16, NI = WTN / 8;
    constexpr int AS = BM + A_PAD, BS = BN + B_PAD;
    /* A: each thread stages A_COLS columns, rows a_row0 + j*A_ROW_STEP */
    constexpr int A_COLS = BM > THREADS ? BM / THREADS : 1;
    constexpr int A_ROW_STEP = BM >= THREADS ? 1 : THREADS / BM;
    constexpr int A_ROWS = BK / A_ROW_STEP;
    /* B: BK rows of BN/4 float4 */
    constexpr int B_ROW_VECS = BN / 4, B_VECS = BK * B_ROW_VECS;
    constexpr int B_PER_THREAD = (B_VECS + THREADS - 1) / THREADS;
    static_assert(BM % THREADS == 0 || THREADS % BM == 0, "A tile mapping");
    static_assert(BK % A_ROW_STEP == 0, "A tile mapping");
    static_assert(WTM % 32 == 0 && WTN % 8 == 0 && BK % 8 == 0, "mma tiling");

    extern __shared__ float smem[];
    float *As = smem;                              /* [stages][BK][AS] */
    float *Bs = smem + (size_t)a.stages * BK * AS; /* [stages][BK][BS] */

    /* The phases' M tiles are interleaved, phase fastest: blocks running
     * together write the same stretch of the output (each phase every
     * stride-th element), so its sectors are complete in L2 before they are
     * written back; phase-major order left partly written sectors to HBM. */
    const phase_desc &ph = a.phases[blockIdx.x % a.nphases];
    const int m_tile = blockIdx.x / a.nphases;
    if (m_tile >= ph.m_tiles)
        return; /* this phase has fewer tiles than the longest */
    const int m0 = m_tile * BM;
    const int co0 = blockIdx.y * BN;
    const int g = blockIdx.z;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int gid = lane >> 2, tig = lane & 3;
    const int wm0 = (warp / WN) * WTM, wn0 = (warp % WN) * WTN;

    /* This thread's A columns: output positions of the phase, and where
     * their images' channel a_row0 starts in x. */
    const int a_row0 = BM >= THREADS ? 0 : tid / BM;
    int a_dst[A_COLS], aq[A_COLS][3];
    bool a_m_ok[A_COLS];
    const float *a_base[A_COLS];
#pragma unroll
    for (int c = 0; c < A_COLS; c++) {
        int col = BM >= THREADS ? tid + c * THREADS : tid % BM;
        a_dst[c] = a_row0 * AS + a_col_phys(col);
        a_m_ok[c] = m0 + col < ph.m_count; /* a phase with M tiles has every q_count >= 1 */
        int n;
        split_row(ph, a_m_ok[c] ? m0 + col : 0, n, aq[c]);
        a_base[c] = x + ((int64_t)n * a.cin + (int64_t)g * a.cin_g + a_row0) * a.in_plane;
    }
    const int64_t a_row_step = (int64_t)A_ROW_STEP * a.in_plane;
    const int chunks = (a.cin_g + BK - 1) / BK;
    const int ktiles = ph.ntaps * chunks;

    /* The loader walks K in order (tap, then channel chunk) and keeps its
     * place, so no K tile pays for a division: a_src[c] is column c's
     * source for the next chunk, wtap the tap's packed weights. */
    int ld_tap = 0, ld_ci0 = 0;
    const float *a_src[A_COLS];
    bool a_ok[A_COLS];
    const float *wtap = wp;
    auto load_tile = [&](int buf) {
        if (ld_ci0 == 0) { /* a new tap */
            const phase_tap tap = a.taps[ph.tap_begin + ld_tap];
#pragma unroll
            for (int c = 0; c < A_COLS; c++) {
                int i0 = aq[c][0] - tap.off[0], i1 = aq[c][1] - tap.off[1],
                    i2 = aq[c][2] - tap.off[2];
                a_ok[c] = a_m_ok[c] && (unsigned)i0 < (unsigned)a.in[0] &&
                          (unsigned)i1 < (unsigned)a.in[1] && (unsigned)i2 < (unsigned)a.in[2];
                a_src[c] = a_base[c] + (a_ok[c] ? (i0 * a.in[1] + i1) * a.in[2] + i2 : 0);
            }
            wtap = wp + ((int64_t)g * a.ktaps + tap.lin) * a.cin_g * a.co_pad + co0;
        }
        const int a_rows_left = a.cin_g - ld_ci0 - a_row0;
        float *adst = As + (size_t)buf * BK * AS;
#pragma unroll
        for (int c = 0; c < A_COLS; c++) {
            const float *src = a_src[c];
#pragma unroll
            for (int j = 0; j < A_ROWS; j++) {
                cp_async4(adst + a_dst[c] + j * A_ROW_STEP * AS, src,
                          a_ok[c] && j * A_ROW_STEP < a_rows_left);
                src += a_row_step;
            }
            a_src[c] += (int64_t)BK * a.in_plane;
        }
        const float *wsrc = wtap + (int64_t)ld_ci0 * a.co_pad;
        float *bdst = Bs + (size_t)buf * BK * BS;
#pragma unroll
        for (int u = 0; u < B_PER_THREAD; u++) {
            int v = tid + u * THREADS;
            /* a branch, not a predicate: a zero-filling cp.async still
             * writes, and past B_VECS it would write outside the buffer */
            if (B_VECS % THREADS != 0 && v >= B_VECS)
                break;
            int r = v / B_ROW_VECS, c4 = (v % B_ROW_VECS) * 4;
            bool p = ld_ci0 + r < a.cin_g && co0 + c4 < a.co_pad;
            cp_async16(bdst + r * BS + c4, wsrc + r * a.co_pad + c4, p);
        }
        ld_ci0 += BK;
        if (ld_ci0 >= a.cin_g) {
            ld_ci0 = 0;
            ld_tap++;
        }
    };

    float acc[MI][NI][4];
    zero_tile(acc);

    const int stages = a.stages;
    for (int st = 0; st < stages - 1; st++) {
        if (st < ktiles)
            load_tile(st);
        cp_async_commit(); /* empty groups keep the count uniform */
    }
    int buf = 0; /* the buffer of tile kt */
    for (int kt = 0; kt < ktiles; kt++) {
        cp_async_wait(stages - 2);
        __syncthreads(); /* tile kt is in; buffer (kt-1) % stages is free */
        if (kt + stages - 1 < ktiles)
            load_tile(buf == 0 ? stages - 1 : buf - 1);
        cp_async_commit();
        const float *At = As + (size_t)buf * BK * AS;
        const float *Bt = Bs + (size_t)buf * BK * BS;
        buf = buf + 1 == stages ? 0 : buf + 1;
        /* 3xTF32 sums each K tile apart and adds it to acc with FADD: the
         * tensor core's own accumulation does not round to nearest, and over
         * thousands of K steps its bias exceeded float32 accuracy (normwise
         * 2e-5 on kb58 on the H100, against a bound of 1e-5). */
        float part[SPLIT3 ? MI : 1][SPLIT3 ? NI : 1][4];
        if constexpr (SPLIT3)
            zero_tile(part);
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            unsigned ab[MI][4], bb[NI][2];
            unsigned as[SPLIT3 ? MI : 1][4], bsm[SPLIT3 ? NI : 1][2];
            float av[2][2 * MI]; /* [k, k+4][i*2 + h]: rows gid + 8h of m16 tile i */
            {
                const float *p = At + (kk + tig) * AS + wm0 + gid * 4;
#pragma unroll
                for (int s = 0; s < MI / 2; s++) {
                    *(float4 *)&av[0][4 * s] = *(const float4 *)(p + 32 * s);
                    *(float4 *)&av[1][4 * s] = *(const float4 *)(p + 4 * AS + 32 * s);
                }
            }
#pragma unroll
            for (int i = 0; i < MI; i++) {
                float v[4] = {av[0][2 * i], av[0][2 * i + 1], av[1][2 * i], av[1][2 * i + 1]};
#pragma unroll
                for (int r = 0; r < 4; r++) {
                    if (SPLIT3) {
                        ab[i][r] = tf32_exact(v[r]);
                        as[i][r] = tf32_round(v[r] - __uint_as_float(ab[i][r]));
                    } else {
                        ab[i][r] = tf32_round(v[r]);
                    }
                }
            }
#pragma unroll
            for (int j = 0; j < NI; j++) {
                const float *p = Bt + (kk + tig) * BS + wn0 + j * 8 + gid;
                float v[2] = {p[0], p[4 * BS]};
#pragma unroll
                for (int r = 0; r < 2; r++) {
                    if (SPLIT3) {
                        bb[j][r] = tf32_exact(v[r]);
                        bsm[j][r] = tf32_round(v[r] - __uint_as_float(bb[j][r]));
                    } else {
                        bb[j][r] = __float_as_uint(v[r]); /* rounded by pack_weights */
                    }
                }
            }
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int j = 0; j < NI; j++) {
                    if (SPLIT3) {
                        float(&pc)[4] = part[SPLIT3 ? i : 0][SPLIT3 ? j : 0];
                        mma_tf32(pc, as[i], bb[j]);
                        mma_tf32(pc, ab[i], bsm[j]);
                        mma_tf32(pc, ab[i], bb[j]);
                    } else {
                        mma_tf32(acc[i][j], ab[i], bb[j]);
                    }
                }
        }
        if constexpr (SPLIT3)
            add_tile(acc, part);
    }
    cp_async_wait(0);

    /* Epilogue: row m -> (n, q) -> output o = q*stride + ph - pad. The
     * channel offsets and biases of this thread's columns are the same for
     * every row. */
    const int co_w = co0 + wn0 + tig * 2; /* + j*8 + c */
    float bv[NI][2];
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
        for (int c = 0; c < 2; c++) {
            int co = co_w + j * 8 + c;
            bv[j][c] = bias && co < a.cout_g ? bias[g * a.cout_g + co] : 0.0f;
        }
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int m = m0 + wm0 + i * 16 + gid + 8 * h;
            if (m >= ph.m_count)
                continue;
            int n, q[3], o[3];
            split_row(ph, m, n, q);
#pragma unroll
            for (int d = 0; d < 3; d++)
                o[d] = q[d] * a.stride[d] + ph.ph[d] - a.pad[d];
            float *yrow = y + ((int64_t)n * a.cout + (int64_t)g * a.cout_g + co_w) * a.out_plane +
                          (o[0] * a.out[1] + o[1]) * a.out[2] + o[2];
#pragma unroll
            for (int j = 0; j < NI; j++)
#pragma unroll
                for (int c = 0; c < 2; c++)
                    if (co_w + j * 8 + c < a.cout_g)
                        yrow[(j * 8 + c) * a.out_plane] = acc[i][j][2 * h + c] + bv[j][c];
        }
}


#if CONVT_HAVE_WGMMA
/* The weight image that polyphase_wgmma_kernel's stages copy whole
 * (wg_weight_slot): its dimensions. */
struct wg_pack_args {
    int cin_g, cout_g, groups;
    int w_rows, bk, chunks, co_blocks, taps_total; /* taps_total / taps_block < 65535 (the
                                                    * grid's y): the kernel's tap table in
                                                    * shared memory bounds it far below */
    int a_lbo_f; /* a tap tile's distance between K core matrices, in floats (a_lbo / 4) */
    int parts;   /* 1 (TF32), or 2 (3xTF32: each tap tile's big part, then its small part) */
    int tap_f;   /* floats of a tap tile: parts x bk / 4 x a_lbo_f */
    int taps_block; /* taps per block (TAPS, the grid's y): 1, 2 or 4 */
    int64_t ci_step; /* w's index step from one input channel to the next (convt_fold_weight_index) */
    int64_t total;
    /* The fold w is read through (S = 1 where none). The tables made in
     * prepare carry its terms (wg_upload, from the wgmma kernel's own
     * copy); the kernel reads S alone, where the fold has zero taps
     * (ABSENT). Kept whole because the repack compiled differently without
     * it (SASS, session 16). */
    convt_fold fold;
};

/* The image, one K core row of every tap tile per block: block (x, z) =
 * (chunk * bk/4 + k4, cob + co_blocks * g) writes row k4 of the tiles of
 * every tap T of the plan for chunk, block of output channels cob and
 * group g; the tile's float j of part pt (pt < parts) holds channel
 * chunk*bk + 4*k4 + e of output channel cob*w_rows + co at j =
 * pt*tap_f/parts + k4*a_lbo_f + co*4 + e: part 0 the weight rounded to
 * TF32, part 1 (3xTF32) the rest, rounded; zero where no such channel is
 * and in the kpad floats past the w_rows channels, and (ABSENT: a fold
 * whose kernel was padded to whole strides) in the taps a phase does not
 * have. tap_info[T]: T's row's term of wg_weight_slot plus T's place in
 * the row, the row's tap count, where T's phase 0 lies among w's taps
 * (convt_fold_tap_base), and the phases that have T (convt_fold_tap_phases).
 *
 * A thread takes an output channel co of the row (its 4 input channels,
 * one 16-byte store a tap) and TAPS taps (the grid's y: 1, 2 or 4, the
 * fewest that cover the plan's taps up to 4), their loads issued before
 * their stores. w's index (convt_fold_weight_index; the identity fold
 * where none) is a sum of an input-channel term (ci x ci_step), an
 * output-channel term (co_term[cog], a table made in prepare) and the
 * tap's place, so a thread finds its channels' indices with one load and
 * one product and adds each tap's. The block has a thread per channel of
 * the row, kpad's included (wg_pack_threads). All the taps of one (ci, co)
 * lie together in w, so a warp's loads of neighbouring taps share lines.
 * Measured on vocoder_up1 (Nsight Compute, fold / 3xTF32; results/notes.md
 * "Session 15"): this version 8.4 / 13.8 us (the fold issue-bound at 42%,
 * 3xTF32 latency-bound); a block per tap, a float per thread (session 14),
 * 16.7 / 15.9, each of ktaps blocks reading one float of every sector's 8
 * (3xTF32) or half its lines (fold); the block's (tap, float) pairs spread
 * over its threads by a division, 20.2 / 20.3 at 146 instructions a
 * float; a float per thread walking all the taps, 17.1 / 15.3; a channel
 * per thread walking all the taps in blocks of 128, 10.7 / 15.3. Split per
 * float with eight 64-bit divisions, 58. */
template <int TAPS, bool ABSENT>
__global__ void pack_weights_stages(const float *__restrict__ w, float *__restrict__ wk,
                                    const int4 *__restrict__ tap_info,
                                    const int64_t *__restrict__ co_term, wg_pack_args pa)
{
    /* bk/4 is 2, 4 or 8 (wg_bk_compiled): the row's place by shifts */
    const int lg_kg = __ffs(pa.bk / 4) - 1, part_f = pa.tap_f / pa.parts, co = (int)threadIdx.x;
    const int k4 = (int)blockIdx.x & ((1 << lg_kg) - 1), chunk = (int)blockIdx.x >> lg_kg;
    const int ci0 = chunk * pa.bk + 4 * k4, T0 = (int)blockIdx.y * TAPS;
    /* the wgmma kernel after it may be scheduled once every block of this
     * one runs: it sets up meanwhile and waits for this grid's end before
     * reading the image (wg_wait_prior_grids) */
    wg_allow_dependents();
    if (co >= pa.a_lbo_f / 4)
        return;
    for (int z = blockIdx.z; z < pa.co_blocks * pa.groups; z += gridDim.z) {
        const int cob = z % pa.co_blocks, g = z / pa.co_blocks, cog = cob * pa.w_rows + co;
        /* wg_weight_slot is a sum of a (g, cob) term, a tap-row term and a
         * chunk term: tap_info[T].x holds T's tap-row term (and T's place
         * in its row), the chunk term is T's row's taps x chunk */
        float *row = wk + wg_weight_slot(g, cob, pa.co_blocks, pa.taps_total, pa.chunks, 0, 0, 0) * pa.tap_f +
                     k4 * pa.a_lbo_f;
        /* the thread's 4 (ci, co) at w's tap 0, the input channels' terms
         * a fixed step apart; a missing one reads w[0] and stores zero */
        const bool co_ok = co < pa.w_rows && cog < pa.cout_g;
        const int64_t gci = (int64_t)g * pa.cin_g + ci0, ci_step = pa.ci_step;
        const int64_t at0 = co_ok ? gci * ci_step + co_term[cog] : 0;
        bool have[4];
#pragma unroll
        for (int e = 0; e < 4; e++)
            have[e] = co_ok && ci0 + e < pa.cin_g;
        /* cog's phase: whether it has a tap is bit phase of the tap's mask */
        const int phase = ABSENT ? cog % pa.fold.S : 0;
        float v[TAPS][4];
        int64_t slot[TAPS];
        bool here[TAPS];
#pragma unroll
        for (int u = 0; u < TAPS; u++) {
            const int4 ti = tap_info[T0 + u < pa.taps_total ? T0 + u : T0];
            here[u] = !ABSENT || ((ti.w >> phase) & 1);
#pragma unroll
            for (int e = 0; e < 4; e++)
                v[u][e] = w[have[e] && here[u] ? at0 + e * ci_step + ti.z : 0];
            slot[u] = ti.x + wg_weight_slot(0, 0, pa.co_blocks, pa.taps_total, pa.chunks, 0, ti.y, chunk);
        }
#pragma unroll
        for (int u = 0; u < TAPS; u++)
            if (T0 + u < pa.taps_total) {
                float4 big;
                float *b = &big.x;
#pragma unroll
                for (int e = 0; e < 4; e++)
                    b[e] = __uint_as_float(tf32_exact(have[e] && here[u] ? v[u][e] : 0.0f));
                float *out = row + slot[u] * pa.tap_f + 4 * co; /* 16-byte aligned: tap_f, a_lbo_f are multiples of 4 */
                *(float4 *)out = big;
                if (pa.parts == 2) {
                    float4 small;
                    float *sm = &small.x;
#pragma unroll
                    for (int e = 0; e < 4; e++)
                        sm[e] = __uint_as_float(tf32_exact((have[e] && here[u] ? v[u][e] : 0.0f) - b[e]));
                    *(float4 *)(out + part_f) = small;
                }
            }
    }
}

/* polyphase_wgmma_rowfold_tf32: W', the row fold's weights
 * (src/lib/row_fold.h), from w, a float a thread (kb78's 57 344), before
 * pack_weights_stages makes the image from it; each launch, as the weights
 * are data. */
__global__ void row_fold_weights(const float *__restrict__ w, float *__restrict__ w2, convt_row_fold_w m)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m.elems; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t src = convt_row_fold_weight_source(&m, i);
        w2[i] = src >= 0 ? w[src] : 0.0f;
    }
}
#endif /* CONVT_HAVE_WGMMA */

// ----------------------------------------------------------------------------
// host side

static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

static size_t poly_workspace(const convt_problem *p, const convt_launch *l)
{
    (void)l;
    return sizeof(float) * (size_t)poly_packed_weight_floats(p);
}

typedef void (*poly_kernel_fn)(poly_args, const float *, const float *, const float *, float *);

/* Everything a launch needs that depends on the shape and launch only, made
 * once in prepare: the plan on the device, the kernel arguments, the
 * compiled kernel and its launch shape. */
typedef struct poly_state {
    phase_desc *d_phases;
    phase_tap *d_taps;
    poly_args args;
    poly_kernel_fn kernel;
    dim3 grid;
    int threads;
    size_t smem;
    bool split3;
    bool prefill; /* the output is filled with the bias (or zero) first */
} poly_state;

/* The plan's device copies (upload_plan's), in either kernel's state. */
static void free_plan(poly_state *st)
{
    cudaFree(st->d_phases);
    cudaFree(st->d_taps);
}

static void poly_release(void *state)
{
    poly_state *st = (poly_state *)state;
    if (!st)
        return;
    free_plan(st);
    free(st);
}

/* both have the knob list: either decodes a launch */
extern "C" const convt_variant convt_variant_polyphase_igemm_tf32;

/* The launch, decoded by name. */
struct poly_knobs {
    int64_t tile, bk, stages;
};

static poly_knobs poly_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_polyphase_igemm_tf32;
    return {convt_launch_get(v, l, "tile"), convt_launch_get(v, l, "bk"),
            convt_launch_get(v, l, "stages")};
}

/* Whether the shape's sizes fit the kernels' 32-bit index arithmetic and
 * the grid, with M tiles of bm rows and blocks of co_block output channels
 * (both polyphase kernels). */
static bool poly_sizes_fit(const convt_problem *p, int bm, int co_block, char *why, size_t why_len)
{
    if (p->groups > 65535) {
        snprintf(why, why_len, "groups = %lld exceeds the grid's z limit 65535",
                 (long long)p->groups);
        return false;
    }
    const int64_t co_blocks = (p->cout / p->groups + co_block - 1) / co_block;
    if (co_blocks > 65535) {
        snprintf(why, why_len, "%lld blocks of %d output channels exceed the grid's y limit 65535",
                 (long long)co_blocks, co_block);
        return false;
    }
    convt_shape3 s = convt_problem_as_3d(p);
    int64_t sp = s.stride[0] * s.stride[1] * s.stride[2];
    if (sp > (1 << 20)) {
        snprintf(why, why_len, "%lld stride phases are more than this variant plans for",
                 (long long)sp);
        return false;
    }
    /* The kernel indexes within a plane, a phase's rows and the channels in
     * 32 bits (int64 only for plane strides); all must fit with a tile to
     * spare. */
    const int64_t lim = 0x7fffffff - 1024;
    int64_t in_plane = s.in[0] * s.in[1] * s.in[2], out_plane = s.out[0] * s.out[1] * s.out[2];
    int64_t phase_rows = p->n;
    for (int d = 0; d < 3; d++)
        phase_rows *= (s.out[d] + s.stride[d] - 1) / s.stride[d];
    if (in_plane > lim || out_plane > lim) {
        snprintf(why, why_len, "an input or output plane of over 2^31 elements");
        return false;
    }
    if (phase_rows > lim) {
        snprintf(why, why_len, "%lld output positions in one stride phase: over 2^31",
                 (long long)phase_rows);
        return false;
    }
    if (p->cin > lim || p->cout > lim || convt_taps(p) * (p->cin / p->groups) > lim) {
        snprintf(why, why_len, "channels x taps over 2^31");
        return false;
    }
    /* the taps' offsets (k*dil - ph) / stride, the positions q (o + pad - ph)
     * / stride and their differences are ints: a dilation or padding near
     * 2^30 wrapped them (polyphase_wgmma_tf32 read the wrong rows) */
    for (int d = 0; d < 3; d++)
        if ((s.k[d] - 1) * s.dil[d] + s.pad[d] + s.out[d] + 2 * s.stride[d] > lim) {
            snprintf(why, why_len,
                     "dimension %d: (k - 1) x dilation + padding + output size over 2^31", d);
            return false;
        }
    if ((phase_rows / bm + 2) * sp > 0x7fffffff) {
        snprintf(why, why_len, "more than 2^31-1 M tiles");
        return false;
    }
    return true;
}

static bool poly_supports_common(const convt_problem *p, const convt_launch *l,
                                 const convt_context *ctx, bool split3, char *why, size_t why_len)
{
    const poly_knobs k = poly_knobs_of(l);
    int64_t tile = k.tile, bk = k.bk, stages = k.stages;
    if (tile < 0 || tile >= N_TILE_SHAPES) {
        snprintf(why, why_len, "tile = %lld must be 0..%d (the compiled tile shapes)",
                 (long long)tile, N_TILE_SHAPES - 1);
        return false;
    }
    if (bk != 8 && bk != 16 && bk != 32) {
        snprintf(why, why_len, "bk = %lld must be 8, 16 or 32", (long long)bk);
        return false;
    }
    if (stages < 2 || stages > 4) {
        snprintf(why, why_len, "stages = %lld must be 2, 3 or 4", (long long)stages);
        return false;
    }
    const tile_shape ts = tile_shapes[tile];
    size_t smem = smem_bytes(ts.bm, ts.bn, (int)bk, (int)stages);
    if (smem > ctx->dev->smem_per_block_optin) {
        snprintf(why, why_len, "needs %.1f KiB of shared memory, the device allows %.1f KiB",
                 smem / 1024.0, ctx->dev->smem_per_block_optin / 1024.0);
        return false;
    }
    if (split3 && !tile_fits_split3((int)tile)) {
        snprintf(why, why_len, "tile = %lld is compiled for TF32 only (3xTF32's accumulators "
                 "would spill)", (long long)tile);
        return false;
    }
    return poly_sizes_fit(p, ts.bm, ts.bn, why, why_len);
}

static bool poly_supports_tf32(const convt_problem *p, const convt_launch *l,
                               const convt_context *ctx, char *why, size_t why_len)
{
    return poly_supports_common(p, l, ctx, false, why, why_len);
}

static bool poly_supports_3x(const convt_problem *p, const convt_launch *l,
                             const convt_context *ctx, char *why, size_t why_len)
{
    return poly_supports_common(p, l, ctx, true, why, why_len);
}

template <int TILE, bool SPLIT3>
static poly_kernel_fn kernel_for_bk(int bk)
{
    if constexpr (SPLIT3 && !tile_fits_split3(TILE))
        return nullptr; /* refused by supports() */
    else
        return bk == 8    ? polyphase_kernel<TILE, 8, SPLIT3>
           : bk == 16 ? polyphase_kernel<TILE, 16, SPLIT3>
                      : polyphase_kernel<TILE, 32, SPLIT3>;
}

/* The compiled kernel of (tile, bk, split3); supports() has checked both. */
template <bool SPLIT3>
static poly_kernel_fn kernel_for(int tile, int bk)
{
    switch (tile) {
    case 0: return kernel_for_bk<0, SPLIT3>(bk);
    case 1: return kernel_for_bk<1, SPLIT3>(bk);
    case 2: return kernel_for_bk<2, SPLIT3>(bk);
    case 3: return kernel_for_bk<3, SPLIT3>(bk);
    case 4: return kernel_for_bk<4, SPLIT3>(bk);
    case 5: return kernel_for_bk<5, SPLIT3>(bk);
    case 6: return kernel_for_bk<6, SPLIT3>(bk);
    case 7: return kernel_for_bk<7, SPLIT3>(bk);
    case 8: return kernel_for_bk<8, SPLIT3>(bk);
    default: return kernel_for_bk<9, SPLIT3>(bk);
    }
}
static_assert(N_TILE_SHAPES == 10, "kernel_for lists every tile shape");

/* The plan goes to the device once per (problem, launch), like a cuDNN plan:
 * it depends on the shape only, never on the data. */
static int upload_plan(poly_state *st, const convt_phase_plan *pl, convt_err *e)
{
    size_t pb = sizeof(phase_desc) * (size_t)(pl->nphases ? pl->nphases : 1);
    size_t tb = sizeof(phase_tap) * (size_t)(pl->ntaps_total ? pl->ntaps_total : 1);
    CUDA_TRY(cudaMalloc((void **)&st->d_phases, pb), e);
    CUDA_TRY(cudaMalloc((void **)&st->d_taps, tb), e);
    CUDA_TRY(cudaMemcpy(st->d_phases, pl->phases, pb, cudaMemcpyHostToDevice), e);
    if (pl->ntaps_total)
        CUDA_TRY(cudaMemcpy(st->d_taps, pl->taps, sizeof(phase_tap) * pl->ntaps_total,
                            cudaMemcpyHostToDevice),
                 e);
    return 0;
}

/* The kernels' sizes of a shape (supports() has checked that each fits an
 * int); the device pointers are filled in once the plan is uploaded. */
static poly_args poly_args_of(const convt_problem *p, int nphases, int co_pad, int stages)
{
    poly_args a = {};
    a.nphases = nphases;
    a.cin = (int)p->cin;
    a.cout = (int)p->cout;
    a.cin_g = (int)(p->cin / p->groups);
    a.cout_g = (int)(p->cout / p->groups);
    a.co_pad = co_pad;
    a.ktaps = (int)convt_taps(p);
    convt_shape3 s = convt_problem_as_3d(p);
    for (int d = 0; d < 3; d++) {
        a.in[d] = (int)s.in[d];
        a.out[d] = (int)s.out[d];
        a.stride[d] = (int)s.stride[d];
        a.pad[d] = (int)s.pad[d];
    }
    a.in_plane = s.in[0] * s.in[1] * s.in[2];
    a.out_plane = s.out[0] * s.out[1] * s.out[2];
    a.stages = stages;
    a.ksplit = 1;
    return a;
}

static int poly_prepare_common(const convt_problem *p, const convt_launch *l,
                               const convt_context *ctx, void **state, bool split3, convt_err *e)
{
    const poly_knobs k = poly_knobs_of(l);
    const int tile = (int)k.tile, bk = (int)k.bk;
    const tile_shape ts = tile_shapes[tile];
    convt_phase_plan pl;
    char why[160];
    if (convt_phase_plan_make(p, ts.bm, &pl, why, sizeof why))
        return convt_fail(e, "%s", why);
    poly_state *st = (poly_state *)calloc(1, sizeof *st);
    if (!st) {
        convt_phase_plan_free(&pl);
        return convt_fail(e, "out of host memory");
    }
    poly_args &a = st->args;
    a = poly_args_of(p, pl.nphases, (int)poly_packed_co_pad(p), (int)k.stages);
    st->split3 = split3;
    st->prefill = pl.prefill;
    st->kernel = split3 ? kernel_for<true>(tile, bk) : kernel_for<false>(tile, bk);
    st->grid = dim3((unsigned)pl.m_tiles * pl.nphases, (unsigned)((a.cout_g + ts.bn - 1) / ts.bn),
                    (unsigned)p->groups);
    st->threads = ts.wm * ts.wn * 32;
    st->smem = smem_bytes(ts.bm, ts.bn, bk, a.stages);
    int rc = upload_plan(st, &pl, e);
    convt_phase_plan_free(&pl);
    a.phases = st->d_phases;
    a.taps = st->d_taps;
    if (!rc) {
        cudaError_t err = convt_raise_smem_limit((const void *)st->kernel, ctx->dev);
        if (err != cudaSuccess)
            rc = convt_cuda_fail(err, __FILE__, __LINE__, "convt_raise_smem_limit", e);
    }
    if (rc) {
        poly_release(st);
        return -1;
    }
    *state = st;
    return 0;
}

static int poly_prepare_tf32(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                             const convt_context *ctx, void **state, size_t *workspace,
                             convt_err *e)
{
    (void)t, (void)workspace;
    return poly_prepare_common(p, l, ctx, state, false, e);
}

static int poly_prepare_3x(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                           const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t, (void)workspace;
    return poly_prepare_common(p, l, ctx, state, true, e);
}

int poly_pack_weights(const convt_problem *p, const float *w, float *wp, bool round,
                      cudaStream_t s, convt_err *e)
{
    const int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    const int64_t ktaps = convt_taps(p), co_pad = poly_packed_co_pad(p);
    const int64_t total = poly_packed_weight_floats(p);
    const int64_t blocks = (total + 255) / 256;
    pack_weights<<<(unsigned)(blocks < 65535 ? blocks : 65535), 256, 0, s>>>(
        w, wp, cin_g, cout_g, co_pad, ktaps, total, round);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

/* y[n][co][...] = bias[co] over whole planes, float4 where a plane is a
 * whole number of them (cudaMalloc's base is 256-byte aligned). A block's
 * 256 threads take 256 / tpp planes, tpp threads each (tpp a power of two:
 * the plane's float4s, or floats, rounded up, at most 256): with a block per
 * plane, dec1d_2048_short's 8192 planes of 16 float4s took 8192 blocks of
 * which 240 threads each did nothing, 17.9 us for 2 MB (Nsight Compute,
 * session 26). Planes of 256 or more float4s keep a block per plane. */
__global__ void fill_planes(float *__restrict__ y, const float *__restrict__ bias, int64_t planes,
                            int cout, int64_t out_plane, int lg_tpp)
{
    const bool vec = out_plane % 4 == 0;
    const int64_t n = vec ? out_plane / 4 : out_plane;
    const int tpp = 1 << lg_tpp, per_block = (int)blockDim.x >> lg_tpp;
    const int own = (int)threadIdx.x >> lg_tpp, lane = (int)threadIdx.x & (tpp - 1);
    for (int64_t pl = (int64_t)blockIdx.y * per_block + own; pl < planes; pl += (int64_t)gridDim.y * per_block) {
        float b = bias[pl % cout];
        float *row = y + pl * out_plane;
        for (int64_t i = blockIdx.x * (int64_t)tpp + lane; i < n; i += (int64_t)gridDim.x * tpp) {
            if (vec)
                ((float4 *)row)[i] = make_float4(b, b, b, b);
            else
                row[i] = b;
        }
    }
}

/* The whole output gets the bias (or zero) first where phases without taps
 * left the launch (see convt_phase_plan_make), or where split-K's parts add
 * into it. Filling only their rows, one block per
 * row, measured slower than filling everything: kb77's rows are 65 floats,
 * and kb77 took 1.67 ms against 0.60 with the whole output filled. p is the
 * problem as given (not the folded one a kernel may compute): its output
 * is the one filled. */
static int prefill_output(const convt_problem *p, const convt_tensors *t, cudaStream_t s,
                          convt_err *e)
{
    const int64_t planes = p->n * p->cout, out_plane = convt_out_spatial(p);
    if (!t->b) {
        CUDA_TRY(cudaMemsetAsync(t->y, 0, sizeof(float) * (size_t)planes * (size_t)out_plane, s), e);
        return 0;
    }
    int64_t per_plane = out_plane % 4 == 0 ? out_plane / 4 : out_plane;
    int lg_tpp = 0; /* fill_planes' threads a plane: per_plane rounded up to a power of two, <= 256 */
    while (lg_tpp < 8 && ((int64_t)1 << lg_tpp) < per_plane)
        lg_tpp++;
    const int64_t bx = (per_plane + 255) / 256, by = convt_ceil_div(planes, 256 >> lg_tpp);
    dim3 grid((unsigned)(bx < 4096 ? bx : 4096), (unsigned)(by < 65535 ? by : 65535));
    fill_planes<<<grid, 256, 0, s>>>(t->y, t->b, planes, (int)p->cout, out_plane, lg_tpp);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

/* Per launch: repack the weights (they are data), the prefill where phases
 * without taps exist, then the GEMMs. */
static int poly_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                       void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)l;
    const poly_state *st = (const poly_state *)state;
    const poly_args &a = st->args;
    cudaStream_t s = (cudaStream_t)ctx->stream;
    float *wp = (float *)workspace;
    if (poly_pack_weights(p, t->w, wp, !st->split3, s, e))
        return -1;
    if (st->prefill && prefill_output(p, t, s, e))
        return -1;
    if (st->grid.x == 0)
        return 0; /* an empty output, or no phase with taps */
    st->kernel<<<st->grid, st->threads, st->smem, s>>>(a, t->x, wp, t->b, t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

/* The tile defaults differ: 3xTF32 has no tile 6. Both sets come from the
 * tuning run (configs/tune-polyphase.json, results/notes.md): each problem's
 * best default launch within 10% (TF32) and 5% (3xTF32) of its best launch. */
#define POLY_KNOBS(N_TILES, ...)                                                                \
    .n_knobs = 3,                                                                               \
    .knobs = {{.name = "tile",                                                                  \
               .help = "block tile (warps of 32 or 64 rows): 0 = 128x64 (8 warps of 32x32), 1 = " \
                       "128x128 (8 of 64x32), 2 = 64x64 (4 of 32x32), 3 = 256x16 (8 of 32x16), " \
                       "4 = 128x32 (8 of 32x16), 5 = 128x64 (4 of 64x32), 6 = 128x128 (4 of " \
                       "64x64; TF32 only), 7 = 256x32 (4 of 64x32), 8 = 256x16 (4 of 64x16), " \
                       "9 = 256x64 (8 of 64x32)",                                               \
               .n_defaults = N_TILES,                                                           \
               .defaults = {__VA_ARGS__}},                                                      \
              {.name = "bk",                                                                    \
               .help = "K chunk staged per pipeline stage: input channels of one tap (8, 16, "  \
                       "32)",                                                                   \
               .n_defaults = 2,                                                                 \
               .defaults = {16, 32}},                                                           \
              {.name = "stages",                                                                \
               .help = "cp.async pipeline depth (2, 3, 4 shared-memory buffers)",               \
               .n_defaults = 1,                                                                 \
               .defaults = {3}}}

extern "C" const convt_variant convt_variant_polyphase_igemm_tf32 = {
    .name = "polyphase_igemm_tf32",
    .summary = "stride phases as implicit GEMMs on tensor cores (mma.sync TF32), cp.async pipeline; no multiply on an inserted zero",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    POLY_KNOBS(5, 0, 5, 6, 7, 8),
    .supports = poly_supports_tf32,
    .workspace_size = poly_workspace,
    .prepare = poly_prepare_tf32,
    .launch = poly_launch,
    .release = poly_release,
    .describe = NULL,
};

extern "C" const convt_variant convt_variant_polyphase_igemm_3xtf32 = {
    .name = "polyphase_igemm_3xtf32",
    .summary = "polyphase_igemm with split operands (3xTF32: small*big + big*small + big*big) for float32 accuracy",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    POLY_KNOBS(4, 3, 5, 7, 8),
    .supports = poly_supports_3x,
    .workspace_size = poly_workspace,
    .prepare = poly_prepare_3x,
    .launch = poly_launch,
    .release = poly_release,
    .describe = NULL,
};

#if CONVT_HAVE_WGMMA
// ----------------------------------------------------------------------------
// polyphase_wgmma_tf32, polyphase_wgmma_3xtf32: host side

extern "C" const convt_variant convt_variant_polyphase_wgmma_tf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_3xtf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_fold_tf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_splitk_tf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_wide_tf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_cluster_tf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_colsum_tf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_pingpong_tf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_pair_tf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_fold_inplace_tf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_fold_inner_tf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_rowfold_tf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_fold_3xtf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_splitk_3xtf32;
extern "C" const convt_variant convt_variant_polyphase_wgmma_fold_posm_3xtf32;

/* Which of the wgmma variants (fifteen, one kernel template): the
 * precision (parts 1 is TF32, 2 is 3xTF32: each staged operand a big and
 * a small part), whether the stride phases are folded into the output
 * channels (polyphase_wgmma_fold_tf32, and at float32 accuracy
 * polyphase_wgmma_fold_3xtf32: src/lib/fold_phases.h), whether
 * each tile's K walk is split between blocks (polyphase_wgmma_splitk_tf32,
 * folded or not, and at float32 accuracy polyphase_wgmma_splitk_3xtf32:
 * src/lib/split_k.h), and whether a block takes 256
 * output channels of the unfolded problem (polyphase_wgmma_wide_tf32: a
 * variant of its own rather than a knob of polyphase_wgmma_tf32, whose
 * every recorded launch key a new knob would change). */
enum wg_variant {
    WG_TF32,
    WG_3XTF32,
    WG_FOLD_TF32,
    WG_SPLITK_TF32,
    WG_WIDE_TF32,
    WG_CLUSTER_TF32,
    WG_COLSUM_TF32,
    WG_PINGPONG_TF32,
    WG_FOLD_INPLACE_TF32, /* polyphase_wgmma_fold_tf32 with the weights read in place (no image) */
    WG_FOLD_INNER_TF32,   /* polyphase_wgmma_fold_tf32's kernels on a partial fold (knob fold_dims) */
    WG_ROWFOLD_TF32,      /* the folded kernels on a row fold's problem (src/lib/row_fold.h) */
    WG_PAIR_TF32,         /* the consumer warpgroups on two neighbouring rows (src/lib/row_pairs.h) */
    WG_FOLD_3XTF32,       /* polyphase_wgmma_fold_tf32 at float32 accuracy: 3xTF32's K loop (parts 2) */
    WG_SPLITK_3XTF32,     /* polyphase_wgmma_splitk_tf32 at float32 accuracy (parts 2, no co_block 256) */
    WG_FOLD_POSM_3XTF32   /* polyphase_wgmma_fold_3xtf32 with positions as M (pos_m 1 implied) */
};

/* Whether the variant splits tiles' K walks (its knobs ksplit, fold and
 * fold_dims): split-K at either precision. */
static bool wg_kind_splits(wg_variant kind)
{
    return kind == WG_SPLITK_TF32 || kind == WG_SPLITK_3XTF32;
}

/* The launch, decoded by name, and the variant's kind. */
struct wg_knobs {
    int64_t bn, bk, stages, kpad, persist, pos_m, plane;
    int64_t co_block; /* 256, or 0 (64 or 128 by the channels): the folded and split-K
                         variants' knob; polyphase_wgmma_wide_tf32's is 256 */
    int parts;
    bool fold;
    int64_t ksplit;    /* split-K's parts of a tile, or CONVT_SPLIT_STREAM (stream-K: wg_split);
                        * 1 but for split-K's variants (wg_kind_splits) */
    int64_t fold_knob; /* split-K's and the cluster variant's knob fold, as given (0 or 1) */
    int cluster;       /* blocks a cluster: 2 for polyphase_wgmma_cluster_tf32, else 1 */
    int64_t rows;      /* the flat layout's rows (convt_wg_rows: auto, octets, tight) */
    bool colsum;       /* polyphase_wgmma_colsum_tf32 (positions as M, pos_m = 1 implied):
                        * a row's taps on one A read, summed by column shift */
    bool pingpong;     /* polyphase_wgmma_pingpong_tf32: the consumer warpgroups take
                        * whole tiles of up to 64 channels in turn (PING) */
    int64_t seg;       /* its knob seg: 0, or the outputs a segment of a 2-D shape's rows
                        * (convt_wg_segment_phases); 0 for every other variant */
    bool inplace;      /* polyphase_wgmma_fold_inplace_tf32: folded, each stage's weights a
                        * TMA box of w itself (src/lib/fold_box.h), no weight image */
    int64_t fold_dims; /* the innermost dimensions a fold folds: the knob fold_dims of
                        * polyphase_wgmma_fold_inner_tf32 and of split-K (there 0,
                        * CONVT_FOLD_ALL, folds every dimension; read only where fold is
                        * 1); CONVT_FOLD_ALL elsewhere */
    int64_t resident;  /* ping-pong's knob resident: 1 keeps the whole weight image in
                        * shared memory (RES); 0 for every other variant */
    bool row_fold;     /* polyphase_wgmma_rowfold_tf32: the fold's problem is the row fold's
                        * (wg_source), whose input the kernel reads from x (ROWFOLD) */
    int64_t rowfold_pingpong; /* its knob pingpong as given: 1 sets pingpong (PING); 0 for
                               * every other variant */
    int64_t turns;     /* polyphase_wgmma_3xtf32's knob turns: 1, the consumer warpgroups
                        * issue each stage in turn (TURNS); 0 for every other variant */
    bool pair;         /* polyphase_wgmma_pair_tf32: the K walk by row pairs (PAIR) */
};

static wg_knobs wg_knobs_of(const convt_launch *l, wg_variant kind)
{
    const convt_variant *v = kind == WG_3XTF32      ? &convt_variant_polyphase_wgmma_3xtf32
                             : kind == WG_FOLD_TF32   ? &convt_variant_polyphase_wgmma_fold_tf32
                             : kind == WG_SPLITK_TF32 ? &convt_variant_polyphase_wgmma_splitk_tf32
                             : kind == WG_WIDE_TF32   ? &convt_variant_polyphase_wgmma_wide_tf32
                             : kind == WG_CLUSTER_TF32 ? &convt_variant_polyphase_wgmma_cluster_tf32
                             : kind == WG_COLSUM_TF32  ? &convt_variant_polyphase_wgmma_colsum_tf32
                             : kind == WG_PINGPONG_TF32 ? &convt_variant_polyphase_wgmma_pingpong_tf32
                             : kind == WG_FOLD_INPLACE_TF32 ? &convt_variant_polyphase_wgmma_fold_inplace_tf32
                             : kind == WG_FOLD_INNER_TF32   ? &convt_variant_polyphase_wgmma_fold_inner_tf32
                             : kind == WG_ROWFOLD_TF32      ? &convt_variant_polyphase_wgmma_rowfold_tf32
                             : kind == WG_PAIR_TF32         ? &convt_variant_polyphase_wgmma_pair_tf32
                             : kind == WG_FOLD_3XTF32       ? &convt_variant_polyphase_wgmma_fold_3xtf32
                             : kind == WG_SPLITK_3XTF32     ? &convt_variant_polyphase_wgmma_splitk_3xtf32
                             : kind == WG_FOLD_POSM_3XTF32  ? &convt_variant_polyphase_wgmma_fold_posm_3xtf32
                                                       : &convt_variant_polyphase_wgmma_tf32;
    /* the knob pos_m: output channels as M in the others; plane: a tap row
     * staged at a time in the folded and the cluster variants; persist:
     * the clusters and ping-pong always walk the list */
    const bool has_pos_m = kind == WG_TF32 || kind == WG_3XTF32;
    const bool inplace = kind == WG_FOLD_INPLACE_TF32;
    const bool has_plane = kind != WG_FOLD_TF32 && kind != WG_FOLD_3XTF32 && kind != WG_FOLD_POSM_3XTF32 &&
                           kind != WG_CLUSTER_TF32 && !inplace && kind != WG_PAIR_TF32;
    const bool has_fold = wg_kind_splits(kind) || kind == WG_CLUSTER_TF32;
    const bool fold_inner = kind == WG_FOLD_INNER_TF32; /* folded, its knobs fold_dims and plane */
    const int64_t fold_knob = has_fold ? convt_launch_get(v, l, "fold") : 0;
    /* knob ksplit 1 (no fixed count of parts) is the balanced cut; knobs
     * take no negative values, the plan's constant is CONVT_SPLIT_BALANCE */
    const int64_t ksplit_knob = wg_kind_splits(kind) ? convt_launch_get(v, l, "ksplit") : 1;
    const int64_t ksplit = wg_kind_splits(kind) && ksplit_knob == 1 ? CONVT_SPLIT_BALANCE : ksplit_knob;
    const int64_t rowfold_pingpong = kind == WG_ROWFOLD_TF32 ? convt_launch_get(v, l, "pingpong") : 0;
    return {convt_launch_get(v, l, "bn"), convt_launch_get(v, l, "bk"),
            convt_launch_get(v, l, "stages"), convt_launch_get(v, l, "kpad"),
            kind == WG_CLUSTER_TF32 || kind == WG_PINGPONG_TF32 ? 1 : convt_launch_get(v, l, "persist"),
            has_pos_m                                                   ? convt_launch_get(v, l, "pos_m")
            : kind == WG_COLSUM_TF32 || kind == WG_FOLD_POSM_3XTF32 ? 1
                                                                    : 0,
            has_plane ? convt_launch_get(v, l, "plane") : 0,
            kind == WG_FOLD_TF32 || fold_inner || kind == WG_SPLITK_TF32 || kind == WG_CLUSTER_TF32
                ? convt_launch_get(v, l, "co_block")
            : kind == WG_WIDE_TF32           ? 256
                                             : 0,
            v->tier == CONVT_TIER_FP32 ? 2 : 1, /* the float32 tier's are the 3xTF32 kernels */
            kind == WG_FOLD_TF32 || kind == WG_FOLD_3XTF32 || kind == WG_FOLD_POSM_3XTF32 || fold_inner || inplace ||
                fold_knob == 1 || kind == WG_ROWFOLD_TF32,
            ksplit, fold_knob,
            kind == WG_CLUSTER_TF32 ? 2 : 1, convt_launch_get(v, l, "rows"), kind == WG_COLSUM_TF32,
            kind == WG_PINGPONG_TF32 || rowfold_pingpong == 1,
            kind == WG_PINGPONG_TF32 ? convt_launch_get(v, l, "seg") : 0,
            inplace,
            fold_inner || wg_kind_splits(kind) ? convt_launch_get(v, l, "fold_dims") : CONVT_FOLD_ALL,
            kind == WG_PINGPONG_TF32 || kind == WG_ROWFOLD_TF32 ? convt_launch_get(v, l, "resident") : 0,
            kind == WG_ROWFOLD_TF32, rowfold_pingpong,
            kind == WG_3XTF32 ? convt_launch_get(v, l, "turns") : 0,
            kind == WG_PAIR_TF32};
}

/* The problem a fold folds: the row fold's for
 * polyphase_wgmma_rowfold_tf32 (src/lib/row_fold.h; p must pass
 * convt_row_fold_check), else p. */
static convt_problem wg_source(const convt_problem *p, const wg_knobs &k)
{
    return k.row_fold ? convt_row_fold_problem(p) : *p;
}

/* The problem the kernel computes: the folded one for
 * polyphase_wgmma_fold_tf32 (which supports() has checked folds), else p. */
static convt_problem wg_problem(const convt_problem *p, const wg_knobs &k)
{
    const convt_problem src = wg_source(p, k);
    return k.fold ? convt_fold_problem(&src, (int)k.fold_dims) : src;
}

/* The fold the epilogue and the weight image undo: the identity (S = 1)
 * where none, through which the image reads w's own indices (W''s, the
 * row fold's weights, for polyphase_wgmma_rowfold_tf32). */
static convt_fold wg_fold(const convt_problem *p, const wg_knobs &k)
{
    const convt_problem src = wg_source(p, k);
    return k.fold ? convt_fold_of(&src, (int)k.fold_dims) : convt_fold_identity(p);
}

/* Whether the launch splits tiles' K walks (split-K's variants: ksplit
 * parts, or stream-K's shares; src/lib/split_k.h). */
static bool wg_split(const wg_knobs &k)
{
    return k.ksplit != 1;
}

/* The widest compiled tile: 3xTF32's partial sums double the accumulators
 * (with positions as M they are small at every width), and so do two
 * 64-channel blocks a warpgroup (co_block = 256). */
static int wg_max_bn(const wg_knobs &k)
{
    if (k.co_block == 256)
        return WG_MAX_BN_WIDE_M;
    return k.pos_m || k.parts == 1 ? WG_MAX_BN : WG_MAX_BN_SPLIT3;
}

/* Whether width bn is compiled: 64 to the widest in steps of 16 (the
 * folded kernel too), or with positions as M (pos_m) 64, 128 and 256, or
 * with split-K 64, 96, 128, 192 and 256 (WG_SPLITK_WIDTHS), those up to
 * 160 at co_block = 256 (WG_SPLITK_WIDE_WIDTHS: 64, 96, 128) and at
 * float32 accuracy (WG_SPLITK_SPLIT3_WIDTHS: the same three). */
static bool wg_width_compiled(const wg_knobs &k, int64_t bn)
{
#define WG_IS(BN) || bn == BN
    if (wg_split(k))
        return bn <= wg_max_bn(k) &&
               (k.parts == 2 ? (false WG_SPLITK_SPLIT3_WIDTHS(WG_IS)) : (false WG_SPLITK_WIDTHS(WG_IS)));
    if (k.cluster > 1)
        return k.co_block == 256 ? (false WG_CLUSTER_WIDE_WIDTHS(WG_IS)) : (false WG_CLUSTER_WIDTHS(WG_IS));
    if (k.pingpong)
        return false WG_PINGPONG_WIDTHS(WG_IS);
    if (k.pair)
        return false WG_PAIR_WIDTHS(WG_IS);
#undef WG_IS
    if (k.colsum)
        return bn == 64 || bn == 128;
    if (k.pos_m)
        return bn == 64 || bn == 128 || bn == 256;
    return bn >= 64 && bn <= wg_max_bn(k) && bn % 16 == 0;
}

/* Split-K's refusal (wg_supports): more tiles, at the launch's width, than
 * this many per 100 SMs. On the H100 (session 25) split-K won only on
 * shapes of 32 to 64 tiles on 132 SMs (music_k4_s2_short,
 * dec1d_2048_short, vol3d_k3_s2_4cube, bigvgan_up1: 1.03 to 1.4x the
 * unsplit kernel) and lost at every launch of 72 tiles or more
 * (pix2pix_dec1, stylegan_4to8, vae_dec_k3_s2_8x8, bigvgan_up1 unfolded):
 * its parts then take rounds as tiles do, and it adds a prefill, the
 * atomic adds and a pipeline fill a part. Session 24 refused only from 4
 * rounds on, which let those launches be timed for nothing. */
enum { WG_SPLITK_MAX_TILES_PER_100_SMS = 50 };

/* Stream-K (ksplit = 0) only up to one round of tiles: beyond it, on the
 * H100 (session 28, results/notes.md), it lost to the unsplit kernels by
 * 1.3 to 2x (vocoder_up1's 144 tiles, med3d's 326 to 525): the output's
 * prefill and the atomic adds cost more than the last round's idle SMs.
 * Within it, it beat ksplit 2 and 4 on vol3d_k3_s2_4cube (0.0666 ms
 * against 0.0728) and vae_dec_k3_s2_8x8 (0.0509 against 0.0591). */

/* The longest segment of a row (knob seg): past it a segment is a row of
 * a few hundred outputs, which whole rows serve. */
enum { WG_SEG_MAX = 1024 };

/* With positions as M, the most output channels per group (wgmma's N). */
enum { WG_POSM_MAX_CO = 32 };

/* Whether bk is compiled: TF32 8 (for groups of 8 input channels or fewer,
 * which a chunk of 16 would stage half empty), 16 or 32; the folded,
 * split-K, 256-channel and cluster TF32 kernels 16 or 32 (wg_bk_16_or_32);
 * 3xTF32 8 or 16 (a stage holds twice a TF32 stage's bytes for the same
 * channels), its folded and split-K kernels 32 too (wg_bk_8_to_32: blocks
 * of few channels, WG_BK_8_16_32_KERNELS_AS). Each a power of two:
 * pack_weights_stages splits its grid by shifts. */
static bool wg_bk_16_or_32(const wg_knobs &k)
{
    return k.parts == 1 && (k.fold || wg_split(k) || k.co_block == 256 || k.cluster > 1);
}
static bool wg_bk_8_to_32(const wg_knobs &k)
{
    return k.parts == 1 ? !k.pair : (k.fold && !k.pos_m) || wg_split(k);
}
static bool wg_bk_compiled(const wg_knobs &k, int64_t bk)
{
    if (wg_bk_16_or_32(k))
        return bk == 16 || bk == 32;
    /* row pairs: a stage holds two tap rows' weights: at bk 32, kb57's class fits 2 stages at bn 256 */
    return bk == 8 || bk == 16 || (wg_bk_8_to_32(k) && bk == 32);
}

/* What the launch needs of the plan: the block's shape (two segments, or
 * two 64-channel halves beyond 64 output channels per group), the staged
 * tiles' sizes and the grid. */
struct wg_geometry {
    int bn; /* the width: knob bn, or chosen for the shape where bn = 0 */
    int nseg;   /* tiles per block: 2 up to 64 output channels per group, else 1 */
    int w_rows; /* output channels per block (wg_block_rows) */
    int r_alloc, ntw_max, co_rows, rows_total, taps_total;
    int64_t tables_bytes; /* in int64: supports() compares the total with the device's limit */
    int64_t units;        /* tiles per phase: of the phase with the longest flat layout */
    int64_t co_blocks;    /* blocks of output channels per group */
    int64_t tiles;        /* units x phases x co_blocks x groups (wg_tile_of) */
    size_t smem;
    /* polyphase_wgmma_colsum_tf32: the taps along a row, their column step
     * and span; the rows a warpgroup stores (wg_colsum_out); 0 otherwise */
    int col_taps, col_step, col_span, col_out;
    /* polyphase_wgmma_fold_inplace_tf32: a stage's weights, w's box
     * (wg_inplace_stage_share); 0 otherwise (the image's tap tiles) */
    int64_t box_bytes;
    /* resident weights (knob resident): the image's tap tiles
     * (wg_image_slots), which shared memory holds beside the stages; 0
     * otherwise */
    int64_t res_slots;
    /* wg_size's figures: a stage's input tile and the resident image (0
     * without one), in bytes; supports()'s refusal quotes them */
    int64_t in_stage_bytes, res_bytes;
};

/* Output channels per block: two 64-channel halves beyond 64 per group,
 * else one (the consumers then take two tiles of positions); four with
 * co_block = 256 (two a consumer warpgroup); with positions as M the
 * group's channels rounded up to 8 (wgmma's N). The weight image's tiles
 * are this many channels too (wg_pack_args_of). */
static int wg_block_rows(const wg_knobs &k, int64_t cout_g)
{
    if (k.pos_m)
        return (int)round_up(cout_g, 8);
    if (k.co_block == 256)
        return 4 * WG_M;
    return cout_g > WG_M ? 2 * WG_M : WG_M;
}

/* Staged rows and shared memory of width bn. */
static void wg_size(const wg_knobs &k, int span, int bn, wg_geometry *gm)
{
    const size_t kg = (size_t)k.bk / 4;
    gm->bn = bn;
    /* row pairs: both warpgroups read the same bn positions */
    gm->r_alloc = (int)round_up((int64_t)(k.pair ? 1 : gm->nseg) * bn + span, 8);
    const size_t wtap = kg * (gm->w_rows * 16 + k.kpad); /* a tap tile's bytes */
    /* a stage's weights: w's box, its tap tiles, or none (the image resident) */
    const size_t weights = gm->box_bytes ? (size_t)gm->box_bytes : gm->res_slots ? 0 : (size_t)gm->ntw_max * wtap;
    gm->in_stage_bytes = (int64_t)(kg * (gm->r_alloc * 16 + k.kpad));
    gm->res_bytes = wg_resident_bytes(gm->res_slots, (int64_t)wtap);
    const size_t pipeline = (size_t)k.stages * (size_t)k.parts * ((size_t)gm->in_stage_bytes + weights) +
                            (size_t)gm->res_bytes;
    /* the epilogue's staging: the channels-as-M epilogue's per warp, or
     * the column sets' rows per consumer warpgroup */
    const size_t epilogue = k.colsum ? 2 * (size_t)wg_colsum_group_bytes(bn, gm->w_rows) : (size_t)WG_EPI_BYTES;
    gm->smem = (size_t)gm->tables_bytes + pipeline + epilogue;
}

/* polyphase_wgmma_colsum_tf32: the rows of bn a warpgroup stores, the
 * rest (the column shifts' span, rounded up to 4 so that a tile of two
 * warpgroups' rows is a multiple of 8: octet rows need tiles to start on
 * one) feeding those; 0 where none would. */
static int wg_colsum_out(int bn, int span)
{
    const int out = bn - (int)round_up(span, 4);
    return out > 0 ? out : 0;
}

/* Whether a warpgroup of bn rows stores at least half of them: beyond,
 * most rows are computed for nothing (7 taps at dilation 10: 4 of 64
 * stored, each with 7 accumulator sets), and the launch is refused. */
static bool wg_colsum_stores_half(int bn, int span)
{
    return 2 * wg_colsum_out(bn, span) >= bn;
}

/* The flat positions a unit of the tile list covers at width bn
 * (wg_unit_positions, as the kernel computes them). */
static int64_t wg_tile_positions(const wg_knobs &k, const wg_geometry *gm, int bn)
{
    return wg_unit_positions(k.colsum, gm->nseg, bn, k.cluster,
                             k.colsum ? wg_colsum_out(bn, gm->col_span) : 0, k.pair);
}

/* The tile list's units a phase with units of `positions`: the longest
 * phase's (wg_tile_of: units x the phases x co_tiles are the tiles). */
static int64_t wg_tile_units(const wg_phase_flat *fl, int nphases, int64_t positions)
{
    int64_t units = 0;
    for (int i = 0; i < nphases; i++) {
        const int64_t u = (fl[i].flat + positions - 1) / positions;
        units = u > units ? u : units;
    }
    return units;
}

/* Whether split-K takes this many tiles: ksplit parts up to
 * WG_SPLITK_MAX_TILES_PER_100_SMS per 100 SMs, stream-K one round (the
 * balanced cut is judged by its stages: wg_supports). wg_supports refuses
 * the rest, and wg_auto_width passes over their widths. */
static bool wg_split_tiles_fit(const wg_knobs &k, int64_t tiles, int64_t sms)
{
    if (k.ksplit == CONVT_SPLIT_STREAM)
        return tiles <= sms;
    if (k.ksplit > 1)
        return tiles * 100 <= WG_SPLITK_MAX_TILES_PER_100_SMS * sms;
    return true;
}

/* bn = 0: the width with the least predicted time, over every compiled
 * width that split-K admits (wg_split_tiles_fit: at 3xTF32's widths up to
 * 128 the cheapest could be one of too many tiles, which supports() then
 * refused, session 56). One block runs on each SM (384 threads of 168
 * registers) and takes a tile per round; a round costs bn + 64: per position, a wide tile
 * reads the weights for more positions (the 64 a guess at the weights'
 * share), and SMs left idle in the last round count in full. Long layouts
 * get 256; a small problem the width that fills the SMs in the fewest
 * rounds: vocoder_up1 folded (2176 positions, 16 channel blocks, 132 SMs)
 * 144 (256 tiles, two rounds) where 128 took three, the third nearly
 * empty. Ties go to the wider. Where no width fits the device's shared
 * memory, the narrowest compiled one, which supports() then refuses for
 * it (row pairs compile no 64: with 64 here, session 47's first check ran
 * their 256-wide kernel on a 64-wide plan, 8 launches, 5 of them wrong). */
static int wg_auto_width(const wg_knobs &k, const wg_phase_flat *fl, int nphases, int span,
                         int64_t co_blocks, const convt_device_info *dev, wg_geometry *gm)
{
    const int64_t sms = dev->sm_count > 0 ? dev->sm_count : 1;
    int best = 64;
    while (best < WG_MAX_BN && !wg_width_compiled(k, best))
        best += 16;
    double best_cost = 0;
    for (int bn = WG_MAX_BN; bn >= 64; bn -= 16) {
        if (!wg_width_compiled(k, bn))
            continue;
        wg_size(k, span, bn, gm);
        if (gm->smem > dev->smem_per_block_optin)
            continue;
        const int64_t positions = wg_tile_positions(k, gm, bn);
        if (positions <= 0 ||
            (k.colsum && (!wg_colsum_fits(bn, (int)k.bk, gm->w_rows, gm->col_taps) ||
                          !wg_colsum_stores_half(bn, gm->col_span))) ||
            !wg_split_tiles_fit(k, wg_tile_units(fl, nphases, positions) * nphases * co_blocks, sms))
            continue;
        int64_t blocks = 0; /* clusters: a pair tile's blocks both count, empty half or not */
        for (int i = 0; i < nphases; i++)
            blocks += (fl[i].flat + positions - 1) / positions * k.cluster;
        blocks *= co_blocks;
        /* split-K: each block a part of a tile; stream-K: the SMs share
         * the tiles' stages evenly, no round left part empty */
        const bool shared = k.ksplit == CONVT_SPLIT_STREAM || k.ksplit == CONVT_SPLIT_BALANCE;
        const double rounds = shared ? (double)blocks / (double)sms : (double)((blocks * k.ksplit + sms - 1) / sms);
        const double cost = rounds * (bn + 64);
        if (best_cost == 0 || cost < best_cost) {
            best = bn;
            best_cost = cost;
        }
    }
    return best;
}

/* The persistent blocks: one per SM, at most one per tile, their count
 * coprime to the period of the list's phases (co_tiles x nphases: tile L's
 * phase is (L / co_tiles) % nphases). Block b takes tiles b, b + blocks,
 * ...; with a count that shares a factor with the period it would visit
 * only some phases, and on stride-2 shapes the phases' taps differ up to
 * 8x (kb73). resident: the blocks (with clusters, the clusters) the
 * device runs at once. */
static int64_t wg_blocks(int64_t tiles, int64_t co_tiles, int nphases, int64_t resident)
{
    int64_t blocks = resident > 0 ? resident : 1;
    while (blocks > 1 && convt_gcd(blocks, co_tiles * nphases) != 1)
        blocks--;
    return tiles < blocks ? tiles : blocks;
}

/* 0, or -1 with the reason when the launch cannot run this shape. fl
 * receives every phase's flat layout. pairs, pair_begin: the row pairs'
 * steps (polyphase_wgmma_pair_tf32), the K walk and the table in the tap
 * rows' place; NULL otherwise. */
static int wg_geometry_of(const convt_problem *p, const wg_knobs &k, const convt_phase_plan *pl,
                          const convt_phase_tap_row *rows, const int *row_begin,
                          const convt_wg_row_pair *pairs, const int *pair_begin,
                          const convt_device_info *dev, int64_t box_bytes, wg_phase_flat *fl,
                          wg_geometry *gm, char *why, size_t why_len)
{
    gm->box_bytes = box_bytes;
    const int64_t cout_g = p->cout / p->groups;
    gm->w_rows = wg_block_rows(k, cout_g);
    gm->nseg = k.pingpong ? 1 : k.pos_m || gm->w_rows == WG_M ? 2 : 1; /* ping-pong: a tile a warpgroup */
    gm->co_rows = (int)round_up(cout_g, WG_M);
    /* column sets: the taps along the innermost dimension (wg_colsum_check
     * has their shifts), each a dilation further */
    const int inner = p->dims - 1;
    gm->col_taps = k.colsum ? (int)p->k[inner] : 0;
    gm->col_step = k.colsum ? (int)p->dil[inner] : 0;
    gm->col_span = k.colsum ? (gm->col_taps - 1) * gm->col_step : 0;
    int span = 0, ntw = 1; /* span: the widest tap shift, which a tile stages past its positions */
    for (int r = 0; !pairs && r < row_begin[pl->nphases]; r++)
        ntw = rows[r].ntaps > ntw ? rows[r].ntaps : ntw;
    /* a row pair's stage holds both warpgroups' tap rows' weights */
    for (int s = 0; pairs && s < pair_begin[pl->nphases]; s++)
        ntw = pairs[s].ntaps[0] + pairs[s].ntaps[1] > ntw ? pairs[s].ntaps[0] + pairs[s].ntaps[1] : ntw;
    gm->ntw_max = ntw;
    gm->rows_total = pairs ? pair_begin[pl->nphases] : row_begin[pl->nphases];
    gm->taps_total = pl->ntaps_total;
    for (int i = 0; i < pl->nphases; i++) {
        if (convt_wg_flat_make(p, pl, rows, row_begin, i, (convt_wg_rows)k.rows, &fl[i]) ||
            (pairs && convt_wg_flat_pair(&pl->phases[i], p->n, pair_begin[i], pair_begin[i + 1] - pair_begin[i],
                                         &fl[i]))) {
            snprintf(why, why_len, "a phase's rows of outputs, laid out flat, reach 2^31 positions");
            return -1;
        }
        span = fl[i].shift_max > span ? fl[i].shift_max : span;
    }
    const int64_t row_bytes = pairs ? (int64_t)sizeof(convt_wg_row_pair) : (int64_t)sizeof(convt_phase_tap_row);
    gm->tables_bytes = WG_BARRIER_BYTES +
                       round_up((int64_t)gm->rows_total * row_bytes + (int64_t)gm->taps_total * 4, 128);
    /* wgmma's descriptors hold the distance between K core matrices (LBO:
     * the staged stretch's rows x 16 bytes, + kpad) in 14 bits of 16 bytes;
     * checked for the longest stretch any width stages, two tiles of the
     * widest */
    if (round_up(2 * WG_MAX_BN + (int64_t)span, 8) + k.kpad / 16 >= (1 << 14)) {
        snprintf(why, why_len, "a tap %s spans %d staged positions: over the descriptor's reach",
                 k.plane ? "plane" : "row", span);
        return -1;
    }
    gm->co_blocks = convt_ceil_div(cout_g, gm->w_rows);
    const int64_t co_tiles = gm->co_blocks * p->groups;
    gm->res_slots = k.resident ? wg_image_slots((int)p->groups, (int)gm->co_blocks, gm->taps_total,
                                                (int)convt_ceil_div(p->cin / p->groups, k.bk))
                               : 0;
    wg_size(k, span, k.bn ? (int)k.bn : wg_auto_width(k, fl, pl->nphases, span, co_tiles, dev, gm), gm);
    if (!wg_width_compiled(k, gm->bn)) { /* a plan of one width, a kernel of another: wrong outputs */
        snprintf(why, why_len, "bn = %d is not compiled for this variant (bn = %lld given)", gm->bn,
                 (long long)k.bn);
        return -1;
    }
    gm->col_out = k.colsum ? wg_colsum_out(gm->bn, gm->col_span) : 0;
    const int64_t unit_positions = wg_tile_positions(k, gm, gm->bn);
    if (k.colsum && !wg_colsum_stores_half(gm->bn, gm->col_span)) {
        snprintf(why, why_len, "the column shifts span %d positions (%d taps %d apart): a "
                 "warpgroup of %d rows would store %d, fewer than half%s", gm->col_span, gm->col_taps,
                 gm->col_step, gm->bn, gm->col_out, k.bn ? "" : " (bn = 0 tried 128 and 64)");
        return -1;
    }
    /* with clusters, units of pair tiles (each block of a cluster one half) */
    gm->units = wg_tile_units(fl, pl->nphases, unit_positions);
    gm->tiles = gm->units * pl->nphases * co_tiles;
    /* the kernel's tile index L + gridDim.x stays an int: with a block per
     * tile (persist = 0) that is twice the tiles (x the parts, split-K) */
    if (gm->tiles * (k.ksplit > 1 ? k.ksplit : 1) > (int64_t)1 << 30) {
        snprintf(why, why_len, "more than 2^30 tiles (x ksplit, split-K's parts)");
        return -1;
    }
    return 0;
}

/* The weight image's dimensions (pack_weights_stages) for taps_total taps
 * of p (the problem the kernel computes), read from w through fold: per
 * group, per block of output channels (wg_block_rows), per tap and chunk
 * of bk input channels, a tap tile of the bytes a stage holds. */
static wg_pack_args wg_pack_args_of(const convt_problem *p, const wg_knobs &k, int64_t taps_total,
                                    const convt_fold &fold)
{
    const int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    const int w_rows = wg_block_rows(k, cout_g);
    wg_pack_args pa;
    pa.cin_g = (int)cin_g;
    pa.cout_g = (int)cout_g;
    pa.groups = (int)p->groups;
    pa.w_rows = w_rows;
    pa.bk = (int)k.bk;
    pa.chunks = (int)convt_ceil_div(cin_g, k.bk);
    pa.co_blocks = (int)convt_ceil_div(cout_g, w_rows);
    pa.taps_total = (int)taps_total;
    pa.a_lbo_f = (int)((w_rows * 16 + k.kpad) / 4);
    pa.parts = k.parts;
    pa.tap_f = k.parts * (int)(k.bk / 4) * pa.a_lbo_f;
    pa.taps_block = taps_total <= 1 ? 1 : taps_total == 2 ? 2 : 4; /* pack_weights_stages' TAPS */
    pa.total = p->groups * pa.co_blocks * taps_total * pa.chunks * (int64_t)pa.tap_f;
    /* w's index step between input channels, through the fold's map */
    pa.ci_step = convt_fold_weight_index(&fold, 1, 0, 0) - convt_fold_weight_index(&fold, 0, 0, 0);
    pa.fold = fold;
    return pa;
}

/* The weight image's kernel, grid and block: a block per K core row and
 * taps_block taps (the grid's z loops past 65535 blocks of channels x
 * groups), a thread per channel of the row (kpad's included), whole warps. */
typedef void (*wg_pack_fn)(const float *, float *, const int4 *, const int64_t *, wg_pack_args);
static wg_pack_fn wg_pack_kernel(const wg_pack_args &pa)
{
    if (convt_fold_padded(&pa.fold))
        return pa.taps_block == 1   ? pack_weights_stages<1, true>
               : pa.taps_block == 2 ? pack_weights_stages<2, true>
                                    : pack_weights_stages<4, true>;
    return pa.taps_block == 1   ? pack_weights_stages<1, false>
           : pa.taps_block == 2 ? pack_weights_stages<2, false>
                                : pack_weights_stages<4, false>;
}
static dim3 wg_pack_grid(const wg_pack_args &pa)
{
    const int zs = pa.co_blocks * pa.groups;
    return dim3((unsigned)(pa.chunks * (pa.bk / 4)), (unsigned)convt_ceil_div(pa.taps_total, pa.taps_block),
                (unsigned)(zs < 65535 ? zs : 65535));
}
static unsigned wg_pack_threads(const wg_pack_args &pa)
{
    return (unsigned)round_up(pa.a_lbo_f / 4, 32);
}

/* polyphase_wgmma_rowfold_tf32: W' (the row fold's weights, written from w
 * each launch) after the weight image, at a multiple of 64 floats; 0
 * elsewhere. p must pass convt_row_fold_check where there is a row fold. */
static int64_t wg_row_fold_at(int64_t image_floats) { return round_up(image_floats, 64); }
static int64_t wg_row_fold_w_floats(const convt_problem *p, const wg_knobs &k)
{
    return k.row_fold ? convt_row_fold_w_of(p).elems : 0;
}

/* Every tap belongs to one phase at most, so the kernel's taps bound the plan's. */
static size_t wg_workspace(const convt_problem *p, const convt_launch *l, wg_variant kind)
{
    const wg_knobs k = wg_knobs_of(l, kind);
    char why[200];
    if (k.row_fold && convt_row_fold_check(p, why, sizeof why))
        return 0; /* supports() refuses it */
    const convt_problem src = wg_source(p, k);
    if (k.fold && convt_fold_check(&src, (int)k.fold_dims, why, sizeof why))
        return 0; /* supports() refuses it */
    if (k.inplace)
        return 0; /* no weight image: the stages read w */
    const convt_problem q = wg_problem(p, k);
    const int64_t image = wg_pack_args_of(&q, k, convt_taps(&q), wg_fold(p, k)).total;
    const int64_t w2 = wg_row_fold_w_floats(p, k);
    return sizeof(float) * (size_t)(w2 ? wg_row_fold_at(image) + w2 : image);
}

/* polyphase_wgmma_fold_inplace_tf32: a block's box of w (src/lib/fold_box.h)
 * for the original problem p and its folded channels a block, and the
 * bytes a stage gives it (convt_fold_box_stage_bytes, as the kernel
 * counts them); 0 bytes for the other variants. */
static convt_fold_box wg_inplace_box(const convt_problem *p, const wg_knobs &k)
{
    const convt_fold f = convt_fold_of(p, CONVT_FOLD_ALL);
    return convt_fold_box_of(&f, wg_block_rows(k, p->cout / p->groups * f.S));
}
static int64_t wg_inplace_stage_share(const convt_problem *p, const wg_knobs &k)
{
    if (!k.inplace)
        return 0;
    const convt_fold_box b = wg_inplace_box(p, k);
    return convt_fold_box_stage_bytes(&b, (int)k.bk);
}

/* What a launch is planned from: the phases, their tap rows and flat
 * layouts, and the geometry. */
struct wg_planned {
    convt_phase_plan pl;
    convt_phase_tap_row *rows;
    int *row_begin;
    convt_wg_row_pair *pairs; /* polyphase_wgmma_pair_tf32's steps (convt_wg_row_pairs); NULL otherwise */
    int *pair_begin;
    wg_phase_flat *flat;
    wg_geometry gm;
};

static void wg_planned_free(wg_planned *w)
{
    convt_phase_plan_free(&w->pl);
    free(w->rows);
    free(w->row_begin);
    free(w->pairs);
    free(w->pair_begin);
    free(w->flat);
    memset(w, 0, sizeof *w);
}

/* 0, or -1 with the reason (nothing left to free). */
static int wg_plan(const convt_problem *p, const wg_knobs &k, const convt_device_info *dev,
                   int64_t box_bytes, wg_planned *w, char *why, size_t why_len)
{
    memset(w, 0, sizeof *w);
    if (convt_phase_plan_make(p, WG_M, &w->pl, why, why_len))
        return -1;
    if (k.seg > 0)
        convt_wg_segment_phases(&w->pl, (int)k.seg); /* supports(): a 2-D shape */
    w->flat = (wg_phase_flat *)calloc((size_t)(w->pl.nphases ? w->pl.nphases : 1), sizeof *w->flat);
    if (!w->flat || convt_phase_plan_rows(&w->pl, (int)k.plane, &w->rows, &w->row_begin) ||
        (k.pair && convt_wg_row_pairs(&w->pl, w->rows, w->row_begin, &w->pairs, &w->pair_begin))) {
        wg_planned_free(w);
        snprintf(why, why_len, "out of host memory for the tap rows");
        return -1;
    }
    if (wg_geometry_of(p, k, &w->pl, w->rows, w->row_begin, w->pairs, w->pair_begin, dev, box_bytes, w->flat,
                       &w->gm, why, why_len)) {
        wg_planned_free(w);
        return -1;
    }
    return 0;
}

/* polyphase_wgmma_colsum_tf32's precondition (polyphase_wgmma_colsum.cuh):
 * every tap row or plane is groups of col_taps consecutive taps, each
 * group at one offset along dimension 1, its j-th tap shifted (col_taps -
 * 1 - j) x col_step positions further than its last (the shift's column
 * part; convt_wg_tap_shift, the table the kernel reads). Stride 1 along
 * the innermost dimension gives that: every phase has all of a row's taps. */
static int wg_colsum_check(const wg_planned *w, char *why, size_t why_len)
{
    const int kw = w->gm.col_taps, step = w->gm.col_step;
    for (int i = 0; i < w->pl.nphases; i++)
        for (int r = w->row_begin[i]; r < w->row_begin[i + 1]; r++) {
            const convt_phase_tap_row *row = &w->rows[r];
            if (row->ntaps % kw != 0) {
                snprintf(why, why_len, "a tap %s of phase %d has %d taps, no multiple of the %d "
                         "along the innermost dimension", row->off1_min != row->off[1] ? "plane" : "row",
                         i, row->ntaps, kw);
                return -1;
            }
            for (int g = row->tap_begin; g < row->tap_begin + row->ntaps; g += kw) {
                const convt_phase_tap *last = &w->pl.taps[g + kw - 1];
                const int base = convt_wg_tap_shift(&w->flat[i], row, last->off[1], last->off[2]);
                for (int j = 0; j < kw; j++) {
                    const convt_phase_tap *t = &w->pl.taps[g + j];
                    if (t->off[1] != last->off[1] ||
                        convt_wg_tap_shift(&w->flat[i], row, t->off[1], t->off[2]) - base !=
                            (kw - 1 - j) * step) {
                        snprintf(why, why_len, "phase %d's taps are not whole rows of %d taps %d "
                                 "apart along the innermost dimension", i, kw, step);
                        return -1;
                    }
                }
            }
        }
    return 0;
}

/* The stages of the tile list (wg_tile_of: units x phases x co_tiles,
 * a tile past its phase's end empty) and the balanced cut's figures
 * (src/lib/split_k.h): the longest tile's walk, the blocks (one per SM,
 * at most one per stage, as wg_upload_work_list launches them) and their
 * even share. */
struct wg_balance {
    int64_t total, longest, blocks, share;
};
static wg_balance wg_balance_of(const wg_phase_flat *flat, int nphases, int64_t positions, int64_t units,
                                int64_t co_tiles, int64_t chunks, int64_t sms)
{
    wg_balance b = {0, 0, 0, 0};
    for (int i = 0; i < nphases; i++) {
        const int64_t used = convt_ceil_div(flat[i].flat, positions), tiles = (used < units ? used : units) * co_tiles;
        const int64_t stages = (int64_t)wg_tile_stages(flat[i], (int)chunks);
        b.total += tiles * stages;
        if (tiles > 0 && stages > b.longest)
            b.longest = stages;
    }
    b.blocks = sms < b.total ? sms : b.total;
    b.share = b.blocks > 0 ? convt_split_share(b.total, (int)b.blocks) : 0;
    return b;
}

/* The knob fold_dims as given: the innermost dimensions a partial fold
 * folds, 1 or 2 and fewer than the shape has. Split-K's also takes 0 (the
 * whole fold with fold = 1, CONVT_FOLD_ALL; nothing folded with fold = 0),
 * and 1 or 2 only with fold = 1 (its caller checks fold first). */
static bool wg_fold_dims_fit(const convt_problem *p, int64_t fold_dims, wg_variant kind,
                             int64_t fold_knob, char *why, size_t why_len)
{
    const bool splitk = wg_kind_splits(kind);
    if (splitk && fold_dims == CONVT_FOLD_ALL)
        return true;
    if (fold_dims >= 1 && fold_dims <= 3 && fold_dims >= p->dims) {
        snprintf(why, why_len, "fold_dims = %lld folds every dimension of a %d-D shape: that is %s",
                 (long long)fold_dims, p->dims,
                 splitk ? "fold_dims = 0" : "polyphase_wgmma_fold_tf32");
        return false;
    }
    if (fold_dims < 1 || fold_dims > 2) {
        snprintf(why, why_len, "fold_dims = %lld must be %s1 or 2 (the innermost dimensions "
                 "folded, fewer than the shape has)", (long long)fold_dims,
                 splitk ? "0 (every dimension), " : "");
        return false;
    }
    if (splitk && fold_knob != 1) {
        snprintf(why, why_len, "fold_dims = %lld chooses the dimensions that fold = 1 folds; "
                 "with fold = 0 the stride phases run apart", (long long)fold_dims);
        return false;
    }
    return true;
}

static bool wg_supports(const convt_problem *p_orig, const convt_launch *l,
                        const convt_context *ctx, char *why, size_t why_len, wg_variant kind)
{
    const wg_knobs k = wg_knobs_of(l, kind);
    /* split-K's fold other than 0 or 1 is refused below, by its own reason */
    if ((kind == WG_FOLD_INNER_TF32 || (wg_kind_splits(kind) && (k.fold_knob == 0 || k.fold_knob == 1))) &&
        !wg_fold_dims_fit(p_orig, k.fold_dims, kind, k.fold_knob, why, why_len))
        return false;
    if (k.row_fold && convt_row_fold_check(p_orig, why, why_len))
        return false;
    const convt_problem src = wg_source(p_orig, k);
    if (k.fold && convt_fold_check(&src, (int)k.fold_dims, why, why_len))
        return false;
    /* from here on, the problem the kernel computes */
    const convt_problem q = wg_problem(p_orig, k);
    const convt_problem *p = &q;
    if (k.pos_m != 0 && k.pos_m != 1) {
        snprintf(why, why_len, "pos_m = %lld must be 0 (output channels as wgmma's M) or 1 "
                 "(positions as M)", (long long)k.pos_m);
        return false;
    }
    if (k.pos_m && p->cout / p->groups > WG_POSM_MAX_CO) {
        snprintf(why, why_len, "%s takes up to %d output channels per group (wgmma's N); "
                 "this shape has %lld%s", k.colsum || k.fold ? "positions as M" : "pos_m = 1",
                 (int)WG_POSM_MAX_CO, (long long)(p->cout / p->groups),
                 k.fold ? " once folded (the stride phases x the channels)" : "");
        return false;
    }
    if (k.seg != 0 && (k.seg < 8 || k.seg > WG_SEG_MAX || k.seg % 8 != 0)) {
        snprintf(why, why_len, "seg = %lld must be 0 (whole rows) or a multiple of 8 from 8 to %d "
                 "(outputs a segment of a row)", (long long)k.seg, (int)WG_SEG_MAX);
        return false;
    }
    if (k.seg != 0 && p->dims != 2) {
        snprintf(why, why_len, "seg > 0 segments the rows of 2-D shapes (the lifted dimension 0 "
                 "counts a row's segments); this shape is %d-D", p->dims);
        return false;
    }
    if (k.pingpong && p->cout / p->groups > WG_M) {
        snprintf(why, why_len, "ping-pong takes up to %d output channels per group (a whole tile "
                 "a consumer warpgroup, wgmma's M); this shape has %lld%s", (int)WG_M,
                 (long long)(p->cout / p->groups), k.fold ? " once folded" : "");
        return false;
    }
    if (k.pair && p->cout / p->groups > WG_M) {
        snprintf(why, why_len, "row pairs take up to %d output channels per group (each consumer "
                 "warpgroup one row of a pair, the channels wgmma's M); this shape has %lld", (int)WG_M,
                 (long long)(p->cout / p->groups));
        return false;
    }
    if (k.pair && p->dims < 2) {
        snprintf(why, why_len, "row pairs take two neighbouring rows (dimension dims - 2) of a 2-D or "
                 "3-D shape; this shape is 1-D");
        return false;
    }
    if (k.pair && !k.persist) {
        snprintf(why, why_len, "row pairs walk the tile list with a block per SM: they need persist = 1 "
                 "(a block per tile was not validated for them)");
        return false;
    }
    if (k.colsum) {
        const int inner = p->dims - 1;
        if (p->stride[inner] != 1) {
            snprintf(why, why_len, "column sets need stride 1 along the innermost dimension "
                     "(every phase all of a row's taps); stride[%d] = %lld", inner,
                     (long long)p->stride[inner]);
            return false;
        }
        if (!wg_colsum_taps_compiled((int)p->k[inner])) {
            snprintf(why, why_len, "column sets are compiled for 3, 5 or 7 taps along the innermost "
                     "dimension (one accumulator set each); k[%d] = %lld", inner, (long long)p->k[inner]);
            return false;
        }
    }
    /* before bn's check: the widest width depends on co_block (wg_max_bn) */
    if (k.co_block != 0 && k.co_block != 256) {
        snprintf(why, why_len, "co_block = %lld must be 0 (64 or 128 output channels a block, "
                 "by the channels) or 256", (long long)k.co_block);
        return false;
    }
    if (k.co_block == 256 && p->cout / p->groups <= 2 * WG_M) {
        snprintf(why, why_len, "%s is for more than %d output channels per group%s; this shape "
                 "has %lld",
                 kind == WG_WIDE_TF32 ? "256 output channels a block" : "co_block = 256", 2 * WG_M,
                 k.fold ? " (folded: the stride phases x the channels)" : "",
                 (long long)(p->cout / p->groups));
        return false;
    }
    if (wg_kind_splits(kind)) {
        /* before bn's and bk's checks: the compiled widths and chunks depend on it */
        if (k.ksplit != CONVT_SPLIT_STREAM && k.ksplit != CONVT_SPLIT_BALANCE &&
            (k.ksplit < 2 || k.ksplit > CONVT_SPLIT_K_MAX)) {
            snprintf(why, why_len, "ksplit = %lld must be 0 (stream-K: the SMs share the tiles' "
                     "stages), 1 (balance: the tiles longer than the SMs' even share cut) or 2 to "
                     "%d (parts of a tile's K walk)",
                     (long long)k.ksplit, CONVT_SPLIT_K_MAX);
            return false;
        }
        if ((k.ksplit == CONVT_SPLIT_STREAM || k.ksplit == CONVT_SPLIT_BALANCE) && !k.persist) {
            snprintf(why, why_len, "ksplit = %s shares the stages between persistent blocks: it "
                     "needs persist = 1", k.ksplit == CONVT_SPLIT_STREAM ? "0 (stream-K)" : "1 (balance)");
            return false;
        }
    }
    if (wg_kind_splits(kind) || kind == WG_CLUSTER_TF32) {
        if (k.fold_knob != 0 && k.fold_knob != 1) {
            snprintf(why, why_len, "fold = %lld must be 0 (the stride phases apart) or 1 (folded "
                     "into the output channels)", (long long)k.fold_knob);
            return false;
        }
    }
    if (k.bn != 0 && !wg_width_compiled(k, k.bn)) {
        if (wg_split(k) || k.cluster > 1)
            snprintf(why, why_len, "bn = %lld must be 0 (chosen for the shape) or %s with %s "
                     "(the compiled widths)", (long long)k.bn,
                     k.co_block == 256 ? "64, 96 or 128 at co_block = 256"
                     : k.parts == 2    ? "64, 96 or 128 at float32 accuracy"
                                       : "64, 96, 128, 192 or 256",
                     wg_split(k) ? "split-K" : "clusters");
        else if (k.colsum)
            snprintf(why, why_len, "bn = %lld must be 0 (chosen for the shape), 64 or 128 with "
                     "column sets (the compiled widths)", (long long)k.bn);
        else if (k.pos_m)
            snprintf(why, why_len, "bn = %lld must be 0 (chosen for the shape), 64, 128 or 256 "
                     "with pos_m = 1 (the compiled widths)", (long long)k.bn);
        else if (k.pingpong)
            snprintf(why, why_len, "bn = %lld must be 0 (chosen for the shape), 64, 128, 192 or "
                     "256 (ping-pong's compiled widths)", (long long)k.bn);
        else if (k.pair)
            snprintf(why, why_len, "bn = %lld must be 0 (chosen for the shape), 128, 192 or 256 "
                     "(row pairs' compiled widths)", (long long)k.bn);
        else
            snprintf(why, why_len,
                     "bn = %lld must be 0 (chosen for the shape) or 64 to %d in steps of 16 (the "
                     "compiled wgmma widths)",
                     (long long)k.bn, wg_max_bn(k));
        return false;
    }
    if (!wg_bk_compiled(k, k.bk)) {
        snprintf(why, why_len, "bk = %lld must be %s", (long long)k.bk,
                 wg_bk_16_or_32(k)  ? "16 or 32"
                 : wg_bk_8_to_32(k) ? "8, 16 or 32"
                                    : "8 or 16");
        return false;
    }
    if (k.stages < 3 || k.stages > 5) {
        /* the barriers have room for 5; with 2 the producer could run only one stage ahead */
        snprintf(why, why_len, "stages = %lld must be 3, 4 or 5", (long long)k.stages);
        return false;
    }
    if (k.kpad != 0 && k.kpad != 64) {
        snprintf(why, why_len, "kpad = %lld must be 0 or 64 (bytes)", (long long)k.kpad);
        return false;
    }
    if (k.plane != 0 && k.plane != 1) {
        snprintf(why, why_len, "plane = %lld must be 0 (an input row staged per tap row) or 1 "
                 "(rows staged per tap plane)", (long long)k.plane);
        return false;
    }
    if (k.rows < CONVT_WG_ROWS_AUTO || k.rows > CONVT_WG_ROWS_TIGHT) {
        snprintf(why, why_len, "rows = %lld must be 0 (tight rows where octet rows would be a "
                 "tenth longer in a 2-D or 3-D layout, a third below 32 positions), 1 (octet "
                 "rows) or 2 (tight rows)", (long long)k.rows);
        return false;
    }
    if (k.plane == 1 && k.fold_knob == 1) { /* fold_inner takes planes; split-K's folds, whole or
                                              * partial, are not validated with them */
        snprintf(why, why_len, "plane = 1 is for the stride phases apart (fold = 0): split-K's "
                 "folded kernels stage a tap row at a time");
        return false;
    }
    if (k.persist != 0 && k.persist != 1) {
        snprintf(why, why_len, "persist = %lld must be 0 (a block per tile) or 1 (a block per SM)",
                 (long long)k.persist);
        return false;
    }
    if (k.resident != 0 && k.resident != 1) {
        snprintf(why, why_len, "resident = %lld must be 0 (each stage copies its taps' weights) or 1 "
                 "(the whole weight image copied once into shared memory)", (long long)k.resident);
        return false;
    }
    if (k.turns != 0 && k.turns != 1) {
        snprintf(why, why_len, "turns = %lld must be 0 (the consumer warpgroups issue their stages "
                 "side by side) or 1 (each stage in turn)", (long long)k.turns);
        return false;
    }
    if (k.turns && k.pos_m) {
        snprintf(why, why_len, "turns = 1 is the kernel with output channels as M (pos_m = 0)");
        return false;
    }
    if (k.row_fold) {
        if (k.rowfold_pingpong != 0 && k.rowfold_pingpong != 1) {
            snprintf(why, why_len, "pingpong = %lld must be 0 (the two consumer warpgroups share a "
                     "block's tile) or 1 (they take its tiles in turn)", (long long)k.rowfold_pingpong);
            return false;
        }
        if (k.resident && !k.pingpong) {
            snprintf(why, why_len, "resident = 1 needs pingpong = 1: resident weights are ping-pong's");
            return false;
        }
        if (k.pingpong && !k.persist) {
            snprintf(why, why_len, "pingpong = 1 walks the tile list with a block per SM: it needs "
                     "persist = 1");
            return false;
        }
    }
    if (ctx->dev->cc_major != 9) {
        snprintf(why, why_len, "wgmma is Hopper's (compute capability 9.x); this device is %d.%d",
                 ctx->dev->cc_major, ctx->dev->cc_minor);
        return false;
    }
    if (!poly_sizes_fit(p, WG_M, wg_block_rows(k, p->cout / p->groups), why, why_len))
        return false;
    if (k.inplace) {
        for (int d = 0; d < p_orig->dims; d++)
            if (p_orig->k[d] % p_orig->stride[d] != 0) {
                snprintf(why, why_len, "k[%d] = %lld is no multiple of stride[%d] = %lld: the fold's "
                         "zero taps live in a weight image, and the box reads w itself", d,
                         (long long)p_orig->k[d], d, (long long)p_orig->stride[d]);
                return false;
            }
        const convt_fold f = convt_fold_of(p_orig, CONVT_FOLD_ALL);
        const convt_fold_box b = wg_inplace_box(p_orig, k);
        if (convt_fold_box_check(&f, &b, (int)k.bk, why, why_len))
            return false;
        if ((uint64_t)p_orig->cin * p_orig->cout / p_orig->groups * f.ktaps * 4 >= (uint64_t)1 << 40) {
            snprintf(why, why_len, "the weights span 2^40 bytes or more: beyond a TMA map's strides");
            return false;
        }
    }
    wg_planned w;
    if (wg_plan(p, k, ctx->dev, wg_inplace_stage_share(p_orig, k), &w, why, why_len))
        return false;
    const wg_geometry gm = w.gm;
    if (k.colsum && wg_colsum_check(&w, why, why_len)) {
        wg_planned_free(&w);
        return false;
    }
    if (k.colsum && !wg_colsum_fits(gm.bn, (int)k.bk, gm.w_rows, gm.col_taps)) {
        wg_planned_free(&w);
        /* every width-64 launch fits (7 sets x 16 + 2 x 4 x 4 = 144) */
        const int acc = gm.col_taps * (gm.bn / 64) * (gm.w_rows / 2);
        const int a_regs = 2 * (gm.bn / 64) * ((int)k.bk / 8) * 4;
        if (acc > WG_COLSUM_MAX_ACC)
            snprintf(why, why_len, "bn = %d with %d taps along a row and %d channels: %d column sets "
                     "x %d accumulators a thread, over %d (take bn 64)", gm.bn, gm.col_taps, gm.w_rows,
                     gm.col_taps, acc / gm.col_taps, (int)WG_COLSUM_MAX_ACC);
        else
            snprintf(why, why_len, "bn = %d, bk = %lld with %d taps along a row and %d channels: %d "
                     "accumulators and the A fragments' %d registers a thread, over %d (take bn 64 or "
                     "a smaller bk)", gm.bn, (long long)k.bk, gm.col_taps, gm.w_rows, acc, a_regs,
                     (int)WG_COLSUM_MAX_REGS);
        return false;
    }
    bool planes_differ = false; /* some tap plane holds two offsets along dimension 1 */
    for (int r = 0; k.plane && r < gm.rows_total; r++)
        planes_differ |= w.rows[r].off1_min != w.rows[r].off[1];
    int64_t flat_max = 0; /* the longest phase's positions */
    for (int i = 0; i < w.pl.nphases; i++)
        flat_max = w.flat[i].flat > flat_max ? w.flat[i].flat : flat_max;
    const int64_t sms = ctx->dev->sm_count > 0 ? ctx->dev->sm_count : 1;
    /* the balanced cut's figures, for its refusal below */
    const wg_balance bal = k.ksplit != CONVT_SPLIT_BALANCE
                               ? wg_balance{0, 0, 0, 0}
                               : wg_balance_of(w.flat, w.pl.nphases, wg_tile_positions(k, &gm, gm.bn), gm.units,
                                               gm.co_blocks * p->groups, convt_ceil_div(p->cin / p->groups, k.bk), sms);
    wg_planned_free(&w);
    if (k.plane && !planes_differ) {
        snprintf(why, why_len, "plane = 1 would stage what plane = 0 does: no phase has taps at two "
                 "offsets along dimension 1 (a 1-D shape, or one such tap per phase)");
        return false;
    }
    if (gm.smem > ctx->dev->smem_per_block_optin && gm.res_slots) {
        snprintf(why, why_len,
                 "resident = 1 needs %.1f KiB of shared memory: the weight image (%lld tap tiles of %lld "
                 "input channels x %d output channels) is %.1f KiB beside %lld stages of %.1f KiB; the "
                 "device allows %.1f KiB (fewer stages, kpad = 0, a narrower bn or bk for smaller stages, or "
                 "resident = 0)",
                 gm.smem / 1024.0, (long long)gm.res_slots, (long long)k.bk, gm.w_rows,
                 gm.res_bytes / 1024.0, (long long)k.stages, gm.in_stage_bytes / 1024.0,
                 ctx->dev->smem_per_block_optin / 1024.0);
        return false;
    }
    if (gm.smem > ctx->dev->smem_per_block_optin) {
        snprintf(why, why_len,
                 "needs %.1f KiB of shared memory (%d taps staged together, %d positions staged), the "
                 "device allows %.1f KiB",
                 gm.smem / 1024.0, gm.ntw_max, gm.r_alloc, ctx->dev->smem_per_block_optin / 1024.0);
        return false;
    }
    /* a cluster's second block takes the second half of a pair tile: where
     * every phase fits one tile, it would gather and multiply zeros */
    if (k.cluster > 1 && flat_max <= (int64_t)gm.nseg * gm.bn) {
        snprintf(why, why_len,
                 "every phase fits one tile of %d positions (the longest phase has %lld): a "
                 "cluster's second block would have none", gm.nseg * gm.bn, (long long)flat_max);
        return false;
    }
    /* the balanced cut pays only where some tile's walk is longer than the
     * SMs' even share of all the stages: elsewhere it cuts nothing */
    if (k.ksplit == CONVT_SPLIT_BALANCE && bal.longest <= bal.share) {
        snprintf(why, why_len,
                 "ksplit = 1 (balance) cuts the tiles longer than the SMs' even share of the stages: here the "
                 "longest has %lld stages, the share is %lld (%lld stages over %lld blocks), so it "
                 "would cut none",
                 (long long)bal.longest, (long long)bal.share, (long long)bal.total, (long long)bal.blocks);
        return false;
    }
    /* split-K pays only where the tiles leave most SMs idle */
    if (k.ksplit == CONVT_SPLIT_STREAM && !wg_split_tiles_fit(k, gm.tiles, sms)) {
        snprintf(why, why_len,
                 "stream-K (ksplit = 0) is for shapes of at most one round of tiles: this one has "
                 "%lld at bn %d, more than the device's %lld SMs",
                 (long long)gm.tiles, gm.bn, (long long)sms);
        return false;
    }
    if (k.ksplit > 1 && !wg_split_tiles_fit(k, gm.tiles, sms)) {
        snprintf(why, why_len,
                 "split-K is for shapes of few tiles: this one has %lld at bn %d, more than "
                 "%d%% of the device's %lld SMs (there split-K's parts take rounds as the "
                 "unsplit tiles do)",
                 (long long)gm.tiles, gm.bn, (int)WG_SPLITK_MAX_TILES_PER_100_SMS, (long long)sms);
        return false;
    }
    return true;
}

typedef struct wg_state {
    poly_state base; /* the phases and taps on the device, grid, threads, smem, prefill */
    convt_phase_tap_row *d_rows;
    convt_wg_row_pair *d_pairs; /* polyphase_wgmma_pair_tf32: its steps, which the kernel reads in the rows' place */
    wg_phase_flat *d_flat;
    int *d_shifts; /* per tap: its shift in its phase's layout (convt_wg_tap_shift) */
    int4 *d_tap_info; /* per tap T of row r: wg_weight_slot's row term of r + T's place in r, r's
                       * tap count, T's phase 0 among w's taps (pack_weights_stages) */
    wg_pack_args pack;
    int64_t *d_co_term; /* per output channel of a group: its term of w's index (pack_weights_stages) */
    convt_split_segment *d_segs; /* split-K: the blocks' work list (convt_split_plan) */
    int *d_seg_begin;            /* split-K: block b's segments from d_seg_begin[b] */
    wg_pack_fn pack_kernel; /* pack_weights_stages<taps_block> */
    dim3 pack_grid;         /* wg_pack_grid */
    unsigned pack_threads;  /* wg_pack_threads */
    cudaLaunchConfig_t launch; /* the wgmma kernel's, with attrs; the stream set per launch */
    cudaLaunchAttribute attrs[2]; /* programmatic stream serialization; with clusters, their shape */
    wg_args args;
    wg_kernel_fn kernel;
    int bn, nseg; /* the width (knob bn, or bn = 0's choice) and tiles per block */
    bool step;    /* the producer steps an octet at a time (wg_steps) */
    /* polyphase_wgmma_fold_inplace_tf32: w's tensor map (wg_inplace_map),
     * its copy in device memory that the kernel reads (passed as its
     * weights), the weights it describes, and its box */
    CUtensorMap map;
    void *d_map;
    const float *map_of;
    convt_fold_box box;
    /* polyphase_wgmma_rowfold_tf32: W''s map from w (elems 0 where no row
     * fold) and W''s place in the workspace, in floats past the image */
    convt_row_fold_w row_fold;
    int64_t row_fold_at;
} wg_state;

/* What the launch resolved to (the record's detail): bn = 0's width, the
 * block's tiles and the grid, so that a result says which kernel ran and
 * compare does not judge a record against one of another width. */
static void wg_describe(const void *state, char *buf, size_t len)
{
    const wg_state *st = (const wg_state *)state;
    /* ksplit only where it splits: compare matches records by this detail,
     * and the other variants' must read as their earlier runs' did */
    char mode[24] = ""; /* split-K, clusters or column sets: at most one */
    if (st->args.p.ksplit == CONVT_SPLIT_STREAM)
        snprintf(mode, sizeof mode, " stream");
    else if (st->args.p.ksplit == CONVT_SPLIT_BALANCE)
        snprintf(mode, sizeof mode, " balance");
    else if (st->args.p.ksplit > 1)
        snprintf(mode, sizeof mode, " ksplit=%d", st->args.p.ksplit);
    else if (st->launch.numAttrs > 1)
        snprintf(mode, sizeof mode, " cluster=%u", st->attrs[1].val.clusterDim.x);
    else if (st->args.col_taps)
        snprintf(mode, sizeof mode, " cols=%d out=%d", st->args.col_taps, st->args.col_out);
    snprintf(buf, len, "bn=%d nseg=%d tiles=%d%s blocks=%u%s", st->bn, st->nseg, st->args.tiles, mode,
             st->base.grid.x, st->step ? " step" : "");
}

#ifdef CONVT_WG_STAGE_CLOCKS
/* diagnostic builds only: wg_stage_clocks_report.cuh, included after
 * wg_prepare (included here, the header alone, though empty otherwise,
 * changed the register allocation of polyphase_kernel<3, 32, true>) */
static int wg_stage_clocks_alloc(wg_state *st, convt_err *e);
static void wg_stage_clocks_report(wg_state *st);
#endif

static void wg_release(void *state)
{
    wg_state *st = (wg_state *)state;
    if (!st)
        return;
#ifdef CONVT_WG_STAGE_CLOCKS
    wg_stage_clocks_report(st);
#endif
    cudaFree(st->d_rows);
    cudaFree(st->d_pairs);
    cudaFree(st->d_flat);
    cudaFree(st->d_shifts);
    cudaFree(st->d_tap_info);
    cudaFree(st->d_co_term);
    cudaFree(st->d_segs);
    cudaFree(st->d_seg_begin);
    cudaFree(st->d_map);
    free_plan(&st->base);
    free(st);
}

/* Split-K's and the clusters' kernels (families KIND splitk and cluster;
 * WG_ANY_FOLD_CASE also wg_kernel_for's splitk_split3,
 * polyphase_wgmma.cuh) of (bn, bk, nseg): unfolded or folded (pow2: S a
 * power of two), 64 or 128 output channels a block, or 256 (w_rows,
 * co_block = 256; its own widths). One body for both families: they differ
 * in their names and width lists only. */
#define WG_ANY_FOLD_CASE(KIND, BN)                                                                 \
    case BN:                                                                                       \
        return !k.fold ? wg_##KIND##_kernel_bn##BN(bk, nseg)                                       \
               : pow2  ? wg_##KIND##_fold_kernel_bn##BN(bk, nseg)                                  \
                       : wg_##KIND##_fold_any_kernel_bn##BN(bk, nseg);
#define WG_WIDE_ANY_FOLD_CASE(KIND, BN)                                                            \
    case BN: return wg_##KIND##_wide_kernel_bn##BN(bk, k.fold, pow2);
#define WG_ANY_FOLD_KERNEL_FOR(KIND, WIDTHS, WIDE_WIDTHS, CASE, WIDE_CASE)                         \
    static wg_kernel_fn wg_##KIND##_kernel_for(const wg_knobs &k, int bn, int nseg, int w_rows,    \
                                               bool pow2)                                          \
    {                                                                                              \
        const int bk = (int)k.bk;                                                                  \
        if (w_rows == 4 * WG_M) {                                                                  \
            switch (bn) {                                                                          \
                WIDE_WIDTHS(WIDE_CASE)                                                             \
            default: return wg_##KIND##_wide_kernel_bn128(bk, k.fold, pow2);                       \
            }                                                                                      \
        }                                                                                          \
        switch (bn) {                                                                              \
            WIDTHS(CASE)                                                                           \
        default: return wg_##KIND##_kernel_bn256(bk, nseg);                                        \
        }                                                                                          \
    }
#define WG_SPLITK_CASE(BN) WG_ANY_FOLD_CASE(splitk, BN)
#define WG_SPLITK_SPLIT3_CASE(BN) WG_ANY_FOLD_CASE(splitk_split3, BN) /* wg_kernel_for's */
#define WG_SPLITK_WIDE_CASE(BN) WG_WIDE_ANY_FOLD_CASE(splitk, BN)
#define WG_CLUSTER_CASE(BN) WG_ANY_FOLD_CASE(cluster, BN)
#define WG_CLUSTER_WIDE_CASE(BN) WG_WIDE_ANY_FOLD_CASE(cluster, BN)
WG_ANY_FOLD_KERNEL_FOR(splitk, WG_SPLITK_WIDTHS, WG_SPLITK_WIDE_WIDTHS, WG_SPLITK_CASE, WG_SPLITK_WIDE_CASE)
WG_ANY_FOLD_KERNEL_FOR(cluster, WG_CLUSTER_WIDTHS, WG_CLUSTER_WIDE_WIDTHS, WG_CLUSTER_CASE,
                       WG_CLUSTER_WIDE_CASE)
#undef WG_SPLITK_CASE
#undef WG_SPLITK_WIDE_CASE
#undef WG_CLUSTER_CASE
#undef WG_CLUSTER_WIDE_CASE
#undef WG_ANY_FOLD_KERNEL_FOR
#undef WG_WIDE_ANY_FOLD_CASE

/* Whether the launch takes a kernel whose producer steps an octet at a
 * time (STEP, polyphase_wgmma.cuh): some phase laid out in tight rows of
 * fewer than WG_STEP_PITCH_END positions, no multiple of 8, where the row
 * walk pays its setup every octet or two and its lanes fall out of step.
 * On the H100 (session 27, probe/rows-ab2.json) stepping made rows of 4 to
 * 9 faster (pix2pix_dec1 0.1076 -> 0.0792 ms, stylegan_4to8 0.0625 ->
 * 0.0521, vae_dec_k3_s2_8x8 0.0755 -> 0.0508) and rows of 36 to 42
 * slower (vol3d_s1_k5_c16 0.0936 -> 0.1130, med3d_s1_k3_c64to32 0.0752 ->
 * 0.0879): there the walk's setup is shared by 5 octets. Rows of 10 to 15
 * were not measured. Compiled for polyphase_wgmma_tf32 and unfolded
 * split-K (channels as M, 64 or 128 a block, TF32, bk 16 or 32); the rest
 * walk rows. */
enum { WG_STEP_PITCH_END = 16 };
static bool wg_steps(const wg_knobs &k, const wg_phase_flat *fl, int nphases, int w_rows)
{
    if (k.cluster > 1 || k.fold || k.pos_m || k.pingpong || k.pair || k.parts != 1 || w_rows == 4 * WG_M ||
        (k.bk != 16 && k.bk != 32))
        return false;
    for (int i = 0; i < nphases; i++)
        if (fl[i].flat > 0 && fl[i].pitch % 8 != 0 && fl[i].pitch < WG_STEP_PITCH_END)
            return true;
    return false;
}

/* The compiled kernel of (bn, bk, nseg), the precision and the block's
 * channels (w_rows: with positions as M, or 256 with co_block = 256);
 * supports() has checked them. pow2: the fold's S is a power of two (its
 * epilogue shifts; any other S takes the kernels that divide). step:
 * wg_steps. */
static wg_kernel_fn wg_kernel_for(const wg_knobs &k, int bn, int nseg, int w_rows, bool pow2, bool step)
{
    const int bk = (int)k.bk, parts = k.parts;
    if (step && wg_split(k)) {
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return wg_splitk_step_kernel_bn##BN(bk, nseg);
            WG_SPLITK_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return wg_splitk_step_kernel_bn256(bk, nseg);
        }
    }
    if (step) {
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return wg_step_kernel_bn##BN(bk, nseg);
            WG_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return wg_step_kernel_bn256(bk, nseg);
        }
    }
    if (k.cluster > 1)
        return wg_cluster_kernel_for(k, bn, nseg, w_rows, pow2);
    if (k.pingpong && k.row_fold) {
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return wg_rowfold_pingpong_kernel_bn##BN(bk, k.resident == 1);
            WG_PINGPONG_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return wg_rowfold_pingpong_kernel_bn256(bk, k.resident == 1);
        }
    }
    if (k.pingpong) {
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return wg_pingpong_kernel_bn##BN(bk, k.seg > 0, k.resident == 1);
            WG_PINGPONG_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return wg_pingpong_kernel_bn256(bk, k.seg > 0, k.resident == 1);
        }
    }
    if (k.pair) {
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return wg_pair_kernel_bn##BN(bk);
            WG_PAIR_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return nullptr; /* no kernel of another width: wg_prepare says so */
        }
    }
    if (wg_split(k) && parts == 2) { /* polyphase_wgmma_splitk_3xtf32: 64 channels a block or 128 */
        switch (bn) {
            WG_SPLITK_SPLIT3_WIDTHS(WG_SPLITK_SPLIT3_CASE)
        default: return nullptr; /* an uncompiled width: refused, never another width's kernel */
        }
    }
    if (wg_split(k))
        return wg_splitk_kernel_for(k, bn, nseg, w_rows, pow2);
    if (k.fold && k.pos_m) { /* polyphase_wgmma_fold_posm_3xtf32: the folded channels as N */
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN:                                                                                       \
        return pow2 ? wg_fold_posm_split3_kernel_bn##BN(bk, w_rows)                                \
                    : wg_fold_any_posm_split3_kernel_bn##BN(bk, w_rows);
            WG_POSM_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return nullptr; /* an uncompiled width: refused, never another width's kernel */
        }
    }
    if (k.fold && parts == 2) { /* polyphase_wgmma_fold_3xtf32: 64 channels a block or 128 */
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return pow2 ? wg_fold_split3_kernel_bn##BN(bk, nseg) : wg_fold_any_split3_kernel_bn##BN(bk, nseg);
            WG_SPLIT3_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return nullptr; /* an uncompiled width: refused, never another width's kernel */
        }
    }
    if (k.inplace) {
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return wg_fold_inplace_kernel_bn##BN(bk, nseg, pow2);
            WG_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return wg_fold_inplace_kernel_bn256(bk, nseg, pow2);
        }
    }
    if (k.row_fold) { /* S a power of two, 64 or 128 channels a block: supports() */
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return wg_rowfold_kernel_bn##BN(bk, nseg);
            WG_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return wg_rowfold_kernel_bn256(bk, nseg);
        }
    }
    if (k.fold && w_rows == 4 * WG_M) {
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return pow2 ? wg_fold_wide_kernel_bn##BN(bk) : wg_fold_any_wide_kernel_bn##BN(bk);
            WG_WIDE_M_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return pow2 ? wg_fold_wide_kernel_bn160(bk) : wg_fold_any_wide_kernel_bn160(bk);
        }
    }
    if (k.fold) {
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return pow2 ? wg_fold_kernel_bn##BN(bk, nseg) : wg_fold_any_kernel_bn##BN(bk, nseg);
            WG_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return pow2 ? wg_fold_kernel_bn256(bk, nseg) : wg_fold_any_kernel_bn256(bk, nseg);
        }
    }
    if (w_rows == 4 * WG_M) {
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return wg_wide_kernel_bn##BN(bk);
            WG_WIDE_M_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return wg_wide_kernel_bn160(bk);
        }
    }
    if (k.pos_m)
        return bn == 64 ? wg_posm_kernel_bn64(bk, w_rows, parts)
               : bn == 128 ? wg_posm_kernel_bn128(bk, w_rows, parts)
                           : wg_posm_kernel_bn256(bk, w_rows, parts);
    if (parts == 2) {
        switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return k.turns ? wg_split3_turns_kernel_bn##BN(bk, nseg) : wg_split3_kernel_bn##BN(bk, nseg);
            WG_SPLIT3_WIDTHS(WG_CASE)
#undef WG_CASE
        default: return nullptr; /* an uncompiled width: refused, never another width's kernel */
        }
    }
    switch (bn) {
#define WG_CASE(BN)                                                                                \
    case BN: return wg_kernel_bn##BN(bk, nseg);
        WG_WIDTHS(WG_CASE)
#undef WG_CASE
    default: return wg_kernel_bn256(bk, nseg);
    }
}
#undef WG_SPLITK_SPLIT3_CASE
#undef WG_ANY_FOLD_CASE

/* polyphase_wgmma_colsum_tf32's kernel (null where none is compiled:
 * wg_colsum_fits). */
static wg_kernel_fn wg_colsum_kernel_for(const wg_geometry &gm, int bk)
{
    return gm.bn == 64 ? wg_colsum_kernel_bn64(bk, gm.w_rows, gm.col_taps)
                       : wg_colsum_kernel_bn128(bk, gm.w_rows, gm.col_taps);
}

/* n elements of `size` bytes to a new device array (of at least one
 * element, so that an empty table is still a valid pointer). */
static int wg_upload_table(void **dst, const void *src, size_t n, size_t size, convt_err *e)
{
    CUDA_TRY(cudaMalloc(dst, size * (n ? n : 1)), e);
    if (n)
        CUDA_TRY(cudaMemcpy(*dst, src, size * n, cudaMemcpyHostToDevice), e);
    return 0;
}

/* As wg_upload_table, for a table built on the host (calloc'd, NULL when
 * that failed), which it frees. */
static int wg_upload_built(void **dst, void *built, size_t n, size_t size, convt_err *e)
{
    if (!built)
        return convt_fail(e, "out of host memory");
    const int rc = wg_upload_table(dst, built, n, size, e);
    free(built);
    return rc;
}

/* The plan, its tap rows and flat layouts, and the weight image's tables
 * on the device (the caller releases what was made). */
static int wg_upload(wg_state *st, const wg_planned *w, convt_err *e)
{
    if (upload_plan(&st->base, &w->pl, e))
        return -1;
    const int nrows = w->row_begin[w->pl.nphases], nph = w->pl.nphases;
    /* row pairs: the kernel reads the steps, not the tap rows (the tables
     * below are made from the rows on the host) */
    if ((!w->pairs && wg_upload_table((void **)&st->d_rows, w->rows, (size_t)nrows, sizeof *w->rows, e)) ||
        wg_upload_table((void **)&st->d_flat, w->flat, (size_t)nph, sizeof *w->flat, e) ||
        (w->pairs && wg_upload_table((void **)&st->d_pairs, w->pairs, (size_t)w->pair_begin[nph],
                                     sizeof *w->pairs, e)))
        return -1;
    const int ntaps = w->pl.ntaps_total;
    int4 *tap_info = (int4 *)calloc((size_t)(ntaps ? ntaps : 1), sizeof *tap_info);
    for (int r = 0; tap_info && r < nrows; r++)
        for (int t = 0; t < w->rows[r].ntaps; t++) {
            const int T = w->rows[r].tap_begin + t;
            const int64_t row_slot = wg_weight_slot(0, 0, st->pack.co_blocks, st->pack.taps_total,
                                                    st->pack.chunks, w->rows[r].tap_begin, 0, 0);
            tap_info[T] = make_int4((int)row_slot + t, w->rows[r].ntaps,
                                    convt_fold_tap_base(&st->args.fold, w->pl.taps[T].lin),
                                    convt_fold_tap_phases(&st->args.fold, w->pl.taps[T].lin));
        }
    if (wg_upload_built((void **)&st->d_tap_info, tap_info, (size_t)ntaps, sizeof *tap_info, e))
        return -1;
    int *shifts = (int *)calloc((size_t)(ntaps ? ntaps : 1), sizeof *shifts);
    for (int i = 0; shifts && i < nph; i++)
        for (int r = w->row_begin[i]; r < w->row_begin[i + 1]; r++)
            for (int T = w->rows[r].tap_begin; T < w->rows[r].tap_begin + w->rows[r].ntaps; T++)
                shifts[T] = convt_wg_tap_shift(&w->flat[i], &w->rows[r], w->pl.taps[T].off[1],
                                               w->pl.taps[T].off[2]);
    if (wg_upload_built((void **)&st->d_shifts, shifts, (size_t)ntaps, sizeof *shifts, e))
        return -1;
    /* each output channel's term of w's index: the image's threads add
     * their input channel's and their tap's */
    const int cout_g = st->pack.cout_g;
    int64_t *co_term = (int64_t *)calloc((size_t)(cout_g ? cout_g : 1), sizeof *co_term);
    for (int c = 0; co_term && c < cout_g; c++)
        co_term[c] = convt_fold_weight_index(&st->args.fold, 0, c, 0);
    if (wg_upload_built((void **)&st->d_co_term, co_term, (size_t)cout_g, sizeof *co_term, e))
        return -1;
    wg_args &a = st->args;
    a.p.phases = st->base.d_phases;
    a.p.taps = st->base.d_taps;
    if (w->pairs)
        a.pairs = st->d_pairs; /* the kernel's K walk: the steps, in the rows' place */
    else
        a.rows = st->d_rows;
    a.flat = st->d_flat;
    a.shifts = st->d_shifts;
    return 0;
}

/* Split-K: the blocks' work list (src/lib/split_k.h) over the tile list
 * as the kernel reads it (wg_tile_of): a tile past its phase's end has no
 * stages, the others their phase's tap rows x channel chunks. For the
 * grid's blocks; stream-K first takes as many blocks as the SMs (fewer
 * where there are fewer stages). */
static int wg_upload_work_list(wg_state *st, const wg_phase_flat *flat, int positions, int w_rows,
                               int64_t sms, convt_err *e)
{
    const wg_args &a = st->args;
    const int tiles = a.tiles, chunks = st->pack.chunks;
    int *stages = (int *)calloc((size_t)(tiles ? tiles : 1), sizeof *stages);
    if (!stages)
        return convt_fail(e, "out of host memory");
    int64_t total = 0;
    for (int L = 0; L < tiles; L++) {
        const wg_tile tl = wg_tile_of(a, L, positions, w_rows);
        const wg_phase_flat &fl = flat[tl.phase];
        stages[L] = wg_tile_past_end(tl, fl) ? 0 : wg_tile_stages(fl, chunks);
        total += stages[L];
    }
    const int ksplit = a.p.ksplit;
    if (ksplit == CONVT_SPLIT_STREAM || ksplit == CONVT_SPLIT_BALANCE) {
        /* a device that reports no SMs still gets one block */
        const int64_t resident = sms > 0 ? sms : 1, blocks = resident < total ? resident : total;
        st->base.grid = dim3((unsigned)(blocks > 0 ? blocks : 0));
        st->launch.gridDim = st->base.grid;
    }
    const int blocks = (int)st->base.grid.x;
    if (blocks == 0) {
        free(stages);
        return 0; /* nothing to walk: wg_launch launches no kernel */
    }
    const int64_t cap = convt_split_segments_max(tiles, blocks, ksplit);
    convt_split_segment *seg = (convt_split_segment *)calloc((size_t)(cap ? cap : 1), sizeof *seg);
    int *begin = (int *)calloc((size_t)blocks + 1, sizeof *begin);
    const int n = seg && begin ? convt_split_plan(stages, tiles, blocks, ksplit, seg, begin) : -2;
    free(stages);
    if (n < 0) {
        free(seg);
        free(begin);
        return n == -2 ? convt_fail(e, "out of host memory")
                       : convt_fail(e, "split-K's work list: ksplit = %d refused by convt_split_plan", ksplit);
    }
    if (wg_upload_built((void **)&st->d_segs, seg, (size_t)n, sizeof *seg, e)) {
        free(begin);
        return -1;
    }
    if (wg_upload_built((void **)&st->d_seg_begin, begin, (size_t)blocks + 1, sizeof *begin, e))
        return -1;
    st->args.segs = st->d_segs;
    st->args.seg_begin = st->d_seg_begin;
    return 0;
}

/* With clusters: a cluster per pair of SMs that can hold one at once (the
 * hardware places a cluster's blocks in one GPC, so not every SM need
 * take part), at most one per pair tile, the count coprime to the list's
 * period as wg_blocks makes it; the grid is that many clusters' blocks. */
static int wg_cluster_grid(wg_state *st, int64_t co_tiles, int nphases, int cluster, convt_err *e)
{
    cudaLaunchConfig_t q = st->launch;
    q.gridDim = dim3((unsigned)cluster);
    int resident = 0;
    CUDA_TRY(cudaOccupancyMaxActiveClusters(&resident, (const void *)st->kernel, &q), e);
    if (resident < 1)
        return convt_fail(e, "the device holds no cluster of %d blocks of %zu bytes of shared memory",
                          cluster, st->base.smem);
    st->base.grid = dim3((unsigned)(wg_blocks(st->args.tiles, co_tiles, nphases, resident) * cluster));
    st->launch.gridDim = st->base.grid;
    return 0;
}

/* polyphase_wgmma_fold_inplace_tf32: w as a 4-D tensor map (tap, output
 * channel, input channel, group: innermost first), a box of a tap row's e0
 * taps x ncb channels x bk input channels x 1 (src/lib/fold_box.h), zeros
 * outside; encoded for the weights w and copied to the device on stream s
 * (the kernel reads it there), again only when a launch's weights move. */
static int wg_inplace_map(wg_state *st, const convt_problem *p, int bk, const float *w, cudaStream_t s,
                          convt_err *e)
{
    if ((uintptr_t)w % 16)
        return convt_fail(e, "the weights at %p are not 16-byte aligned, as the TMA engine needs",
                          (const void *)w);
    const PFN_cuTensorMapEncodeTiled_v12000 encode = convt_tensor_map_encoder(e);
    if (!encode)
        return -1;
    const int64_t ktaps = convt_taps(p), cout_g = p->cout / p->groups, cin_g = p->cin / p->groups;
    const cuuint64_t dims[4] = {(cuuint64_t)ktaps, (cuuint64_t)cout_g, (cuuint64_t)cin_g, (cuuint64_t)p->groups};
    const cuuint64_t strides[3] = {(cuuint64_t)(ktaps * 4), (cuuint64_t)(cout_g * ktaps * 4),
                                   (cuuint64_t)(cin_g * cout_g * ktaps * 4)};
    const cuuint32_t box[4] = {(cuuint32_t)st->box.e0, (cuuint32_t)st->box.ncb, (cuuint32_t)bk, 1};
    const cuuint32_t elem[4] = {1, 1, 1, 1};
    const CUresult r = encode(&st->map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, (void *)w, dims, strides, box,
                              elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return convt_fail(e, "cuTensorMapEncodeTiled failed (CUresult %d) for the weights %lldx%lldx%lldx%lld "
                             "(taps, output channels, input channels, groups), box %ux%ux%u",
                          (int)r, (long long)ktaps, (long long)cout_g, (long long)cin_g, (long long)p->groups,
                          box[0], box[1], box[2]);
    if (!st->d_map)
        CUDA_TRY(cudaMalloc(&st->d_map, sizeof st->map), e);
    CUDA_TRY(cudaMemcpyAsync(st->d_map, &st->map, sizeof st->map, cudaMemcpyHostToDevice, s), e);
    st->map_of = w;
    return 0;
}

static int wg_prepare(const convt_problem *p_orig, const convt_launch *l, const convt_tensors *t,
                      const convt_context *ctx, void **state, convt_err *e, wg_variant kind)
{
    const wg_knobs k = wg_knobs_of(l, kind);
    const convt_problem q = wg_problem(p_orig, k); /* supports() has checked the fold */
    const convt_problem *p = &q;
    wg_planned w;
    char why[160];
    if (wg_plan(p, k, ctx->dev, wg_inplace_stage_share(p_orig, k), &w, why, sizeof why))
        return convt_fail(e, "%s", why);
    const wg_geometry &gm = w.gm;
    wg_state *st = (wg_state *)calloc(1, sizeof *st);
    int rc = 0;
    if (!st) {
        rc = convt_fail(e, "out of host memory");
        goto done;
    }
    {
        poly_args &a = st->args.p;
        a = poly_args_of(p, w.pl.nphases, gm.co_rows, (int)k.stages);
        st->args.n = (int)p->n; /* poly_sizes_fit bounds it */
        st->args.r_alloc = gm.r_alloc;
        st->args.ntw_max = gm.ntw_max;
        st->args.rows_total = gm.rows_total;
        st->args.taps_total = gm.taps_total;
        st->args.co_blocks = (int)gm.co_blocks;
        st->args.groups = (int)p->groups;
        st->args.tiles = (int)gm.tiles;
        st->args.tables_bytes = (int)gm.tables_bytes; /* within smem: supports() */
        st->args.kpad = (int)k.kpad;
        st->args.fold = wg_fold(p_orig, k);
        st->args.p.ksplit = (int)k.ksplit; /* tiles x ksplit <= 2^30: wg_geometry_of */
        st->args.col_taps = gm.col_taps;
        st->args.col_step = gm.col_step;
        st->args.col_out = gm.col_out;
        st->step = wg_steps(k, w.flat, w.pl.nphases, gm.w_rows);
        st->kernel = k.colsum ? wg_colsum_kernel_for(gm, (int)k.bk)
                              : wg_kernel_for(k, gm.bn, gm.nseg, gm.w_rows, convt_fold_pow2(&st->args.fold), st->step);
        if (!st->kernel) {
            rc = convt_fail(e, "no compiled kernel for bn %d, bk %lld, %d channels a block%s (supports() "
                            "admits none)", gm.bn, (long long)k.bk, gm.w_rows,
                            k.colsum ? ", that many taps along a row" : "");
            goto done;
        }
        st->pack = wg_pack_args_of(p, k, w.pl.ntaps_total, st->args.fold);
        if (k.row_fold) {
            st->row_fold = convt_row_fold_w_of(p_orig); /* supports() has checked it */
            st->row_fold_at = wg_row_fold_at(st->pack.total);
        }
        st->pack_kernel = wg_pack_kernel(st->pack);
        st->pack_grid = wg_pack_grid(st->pack);
        st->pack_threads = wg_pack_threads(st->pack);
        if (k.inplace) {
            st->pack.total = 0; /* no image: the kernel reads w through its map */
            st->box = wg_inplace_box(p_orig, k);
            if ((rc = wg_inplace_map(st, p_orig, (int)k.bk, t->w, (cudaStream_t)ctx->stream, e)))
                goto done;
        }
        /* split-K's parts add into an output that holds the bias (or
         * zero) first */
        st->base.prefill = w.pl.prefill || wg_split(k);
        /* the kernel walks the tile list (ksplit times over, split-K) with
         * any grid: a block per tile leaves the order to the hardware's
         * block scheduler */
        const int64_t work = gm.tiles * (k.ksplit > 1 ? k.ksplit : 1);
        st->base.grid = dim3((unsigned)(k.persist ? wg_blocks(work, gm.co_blocks * p->groups, w.pl.nphases,
                                                              ctx->dev->sm_count)
                                                  : work));
        st->base.threads = WG_THREADS;
        st->base.smem = gm.smem;
        st->bn = gm.bn;
        st->nseg = gm.nseg;
        /* programmatic stream serialization: the blocks start during the
         * repack's last wave and wait for it in the kernel
         * (wg_wait_prior_grids); the stream is the launch's */
        st->attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        st->attrs[0].val.programmaticStreamSerializationAllowed = 1;
        st->attrs[1].id = cudaLaunchAttributeClusterDimension;
        st->attrs[1].val.clusterDim.x = (unsigned)k.cluster;
        st->attrs[1].val.clusterDim.y = 1;
        st->attrs[1].val.clusterDim.z = 1;
        st->launch.gridDim = st->base.grid;
        st->launch.blockDim = dim3((unsigned)st->base.threads);
        st->launch.dynamicSmemBytes = st->base.smem;
        st->launch.attrs = st->attrs;
        st->launch.numAttrs = k.cluster > 1 ? 2 : 1;
        if ((rc = wg_upload(st, &w, e)))
            goto done;
#ifdef CONVT_WG_STAGE_CLOCKS
        if ((rc = wg_stage_clocks_alloc(st, e)))
            goto done;
#endif
        cudaError_t err = convt_raise_smem_limit((const void *)st->kernel, ctx->dev);
        if (err != cudaSuccess) {
            rc = convt_cuda_fail(err, __FILE__, __LINE__, "convt_raise_smem_limit", e);
            goto done;
        }
        if (k.cluster > 1 && (rc = wg_cluster_grid(st, gm.co_blocks * p->groups, w.pl.nphases, k.cluster, e)))
            goto done;
        if (wg_split(k) && (rc = wg_upload_work_list(st, w.flat, gm.nseg * gm.bn, gm.w_rows,
                                                     ctx->dev->sm_count, e)))
            goto done;
    }
done:
    wg_planned_free(&w);
    if (rc) {
        wg_release(st);
        return -1;
    }
    *state = st;
    return 0;
}

#include "wg_stage_clocks_report.cuh" /* diagnostic builds only */

/* Per launch: the weights repacked into the stages' image (timed, as the
 * weights are data), the prefill where phases without taps exist, then the
 * GEMMs. Split-K's prefill (every launch of it has one) goes first, so that
 * the GEMMs start during the repack as where none runs (programmatic stream
 * serialization: fill_planes never lets the next kernel start early); the
 * other variants keep the order their runs measured. */
static int wg_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                     void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)l;
    const wg_state *st = (const wg_state *)state;
    cudaStream_t s = (cudaStream_t)ctx->stream;
    /* the weight image, or with the weights in place w's map, encoded
     * again where this launch's weights moved */
    const float *wk = st->d_map ? (const float *)st->d_map : (const float *)workspace;
    if (st->d_map && t->w != st->map_of &&
        wg_inplace_map((wg_state *)state, p, (int)st->pack.bk, t->w, s, e))
        return -1;
    const bool fill_first = st->args.p.ksplit != 1;
    if (fill_first && prefill_output(p, t, s, e))
        return -1;
    /* the row fold's W' from w, which the image is then made from */
    const float *w_image = t->w;
    if (st->row_fold.elems) {
        float *w2 = (float *)workspace + st->row_fold_at;
        const int64_t blocks = (st->row_fold.elems + 255) / 256;
        row_fold_weights<<<(unsigned)(blocks < 1024 ? blocks : 1024), 256, 0, s>>>(t->w, w2, st->row_fold);
        CUDA_TRY_LAUNCH(e);
        w_image = w2;
    }
    if (st->pack.total) {
        st->pack_kernel<<<st->pack_grid, st->pack_threads, 0, s>>>(w_image, (float *)workspace, st->d_tap_info,
                                                                  st->d_co_term, st->pack);
        CUDA_TRY_LAUNCH(e);
    }
    if (!fill_first && st->base.prefill && prefill_output(p, t, s, e))
        return -1;
    if (st->base.grid.x == 0)
        return 0; /* an empty output, or no phase with taps */
    cudaLaunchConfig_t cfg = st->launch;
    cfg.stream = s;
    CUDA_TRY(cudaLaunchKernelEx(&cfg, st->kernel, st->args, (const float *)t->x, wk,
                                (const float *)t->b, t->y), e);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

/* The wgmma variants' entry points: one kernel template and host side,
 * their kind passed on. */
#define WG_ENTRY_POINTS(SUFFIX, KIND)                                                              \
    static bool wg_supports_##SUFFIX(const convt_problem *p, const convt_launch *l,                \
                                     const convt_context *ctx, char *why, size_t why_len)          \
    {                                                                                              \
        return wg_supports(p, l, ctx, why, why_len, KIND);                                         \
    }                                                                                              \
    static size_t wg_workspace_##SUFFIX(const convt_problem *p, const convt_launch *l)             \
    {                                                                                              \
        return wg_workspace(p, l, KIND);                                                           \
    }                                                                                              \
    static int wg_prepare_##SUFFIX(const convt_problem *p, const convt_launch *l,                  \
                                   const convt_tensors *t, const convt_context *ctx, void **state, \
                                   size_t *workspace, convt_err *e)                                \
    {                                                                                              \
        (void)workspace;                                                                           \
        return wg_prepare(p, l, t, ctx, state, e, KIND);                                           \
    }
WG_ENTRY_POINTS(tf32, WG_TF32)
WG_ENTRY_POINTS(split3, WG_3XTF32)
WG_ENTRY_POINTS(fold, WG_FOLD_TF32)
WG_ENTRY_POINTS(splitk, WG_SPLITK_TF32)
WG_ENTRY_POINTS(wide, WG_WIDE_TF32)
WG_ENTRY_POINTS(cluster, WG_CLUSTER_TF32)
WG_ENTRY_POINTS(colsum, WG_COLSUM_TF32)
WG_ENTRY_POINTS(pingpong, WG_PINGPONG_TF32)
WG_ENTRY_POINTS(fold_inplace, WG_FOLD_INPLACE_TF32)
WG_ENTRY_POINTS(fold_inner, WG_FOLD_INNER_TF32)
WG_ENTRY_POINTS(rowfold, WG_ROWFOLD_TF32)
WG_ENTRY_POINTS(pair, WG_PAIR_TF32)
WG_ENTRY_POINTS(fold_split3, WG_FOLD_3XTF32)
WG_ENTRY_POINTS(splitk_split3, WG_SPLITK_3XTF32)
WG_ENTRY_POINTS(fold_posm_split3, WG_FOLD_POSM_3XTF32)
#undef WG_ENTRY_POINTS
/* A variant's functions: its entry points above, and what all of them share */
#define WG_VARIANT_FUNCTIONS(SUFFIX)                                                               \
    .supports = wg_supports_##SUFFIX, .workspace_size = wg_workspace_##SUFFIX,                     \
    .prepare = wg_prepare_##SUFFIX, .launch = wg_launch, .release = wg_release,                    \
    .describe = wg_describe

/* The knobs the wgmma variants share (pos_m: polyphase_wgmma_tf32's and _3xtf32's; plane: all
 * but the folded one's); bn's and bk's ranges differ
 * (wg_max_bn, wg_bk_compiled). */
#define WG_KNOB_FOLD_BN                                                                            \
    {.name = "bn",                                                                                 \
     .help = "output positions per warpgroup of the folded problem (wgmma's N: 64 "                \
             "to 256 in steps of 16), each one position of every phase; 0: the width "            \
             "with the fewest predicted rounds of tiles over the SMs x (bn + 64)",                \
     .n_defaults = 2,                                                                              \
     .defaults = {0, 128}}
/* 3xTF32's chunks (polyphase_wgmma_3xtf32's): a stage holds both parts
 * of both operands */
#define WG_KNOB_BK_3XTF32                                                                          \
    {.name = "bk",                                                                                 \
     .help = "input channels staged per pipeline stage (8 or 16: a stage holds "                   \
             "both parts of both operands)",                                                       \
     .n_defaults = 2,                                                                              \
     .defaults = {8, 16}}
/* The folded and split-K 3xTF32 kernels' chunks (wg_bk_8_to_32) */
#define WG_KNOB_BK_3XTF32_8_TO_32                                                                  \
    {.name = "bk",                                                                                 \
     .help = "input channels staged per pipeline stage (8, 16 or 32: a stage holds "               \
             "both parts of both operands, and each ends in a wait for its wgmma; "                \
             "32 where 3 stages fit the device's shared memory)",                                  \
     .n_defaults = 3,                                                                              \
     .defaults = {8, 16, 32}}
/* The knob stages with N defaults (the values after N) */
#define WG_KNOB_STAGES_OF(N, ...)                                                                  \
    {.name = "stages",                                                                             \
     .help = "shared-memory buffers (3, 4 or 5): the producer warpgroup loads up to "              \
             "stages - 1 ahead of the stage the wgmma read",                                       \
     .n_defaults = (N),                                                                            \
     .defaults = {__VA_ARGS__}}
#define WG_KNOB_STAGES WG_KNOB_STAGES_OF(1, 3)
/* 4 stages first: the row fold's and the row pairs' 2-D layers won at 4
 * (sessions 40 and 47), 3-D ones by tap planes at 3 */
#define WG_KNOB_STAGES_4_3 WG_KNOB_STAGES_OF(2, 4, 3)
/* 3 and 5: on the H200 (session 48, configs/dense-stages-probe.json) 5
 * stages took kb61 by tap planes at bk 8 from 1.54 to 1.40 ms and kb64 at
 * bk 16 from 2.14 to 2.01 (bk 8: 2.61 to 2.07); the input's gather, bound
 * by its latency there, has two more stages to land in. Where a stage is
 * large, 5 do not fit and supports() refuses them at once. */
#define WG_KNOB_STAGES_3_5 WG_KNOB_STAGES_OF(2, 3, 5)
#define WG_KNOB_BK_16_32                                                                           \
    {.name = "bk",                                                                                 \
     .help = "input channels staged per pipeline stage (16 or 32)",                                \
     .n_defaults = 2,                                                                              \
     .defaults = {32, 16}}
#define WG_KNOB_KPAD_OF(N, ...)                                                                    \
    {.name = "kpad",                                                                               \
     .help = "bytes between the K halves of a staged row beyond the rows (0, or 64 to "            \
             "put them in opposite halves of the banks)",                                          \
     .n_defaults = N,                                                                              \
     .defaults = {__VA_ARGS__}}
#define WG_KNOB_KPAD WG_KNOB_KPAD_OF(1, 64)
/* The folded and split-K 3xTF32 kernels' (WG_KNOB_BK_3XTF32_8_TO_32): 0
 * too, without which bk 32's three stages of two taps at 64 channels and
 * two tiles a block (136 positions) need 227.2 KiB, over the H100's and
 * H200's 227 (Conv-TasNet's decoder; tests/test_supports.c) */
#define WG_KNOB_KPAD_64_0 WG_KNOB_KPAD_OF(2, 64, 0)
#define WG_KNOB_PERSIST                                                                            \
    {.name = "persist",                                                                            \
     .help = "1: one block per SM walks the list of tiles, the producer filling the "              \
             "next tile's stages during this one's epilogue; 0: one block per tile, "              \
             "in the order the hardware schedules them (faster where one tap per "                 \
             "phase meets a large prefilled output: kb79, kb81)",                                  \
     .n_defaults = 2,                                                                              \
     .defaults = {1, 0}}
#define WG_KNOB_PLANE                                                                              \
    {.name = "plane",                                                                              \
     .help = "0: the input rows staged per tap row (the taps that share their offsets "          \
             "along dimensions 0 and 1), once for its taps along the row; 1: per tap plane "   \
             "(the taps that share dimension 0's), a stretch of rows staged once for all "      \
             "the plane's taps, each a shift of whole rows further: 3 x 3 x 3 taps read 3 "       \
             "stagings instead of 9, each a span of rows longer",                                \
     .n_defaults = 2,                                                                              \
     .defaults = {0, 1}}
/* the folded variants' co_block */
#define WG_KNOB_FOLD_CO_BLOCK                                                                      \
    {.name = "co_block",                                                                           \
     .help = "output channels of the folded problem per block: 0, 64 or 128 as its "               \
             "channels ask (the consumer warpgroups take two tiles of positions or "               \
             "two 64-channel halves); 256 (more than 128 per group, widths up to "                 \
             "160): two halves each, so that a staged input feeds 256 channels and a "             \
             "short problem with many channels has half the tiles (vocoder_up1: "                  \
             "one round of 128 tiles on 132 SMs)",                                                 \
     .n_defaults = 2,                                                                              \
     .defaults = {0, 256}}
#define WG_KNOB_ROWS                                                                               \
    {.name = "rows",                                                                               \
     .help = "how a phase's rows of outputs are laid out flat: 1 octets (each row a "             \
             "multiple of 8 positions, aligned reads, the producer's lanes in step), 2 tight "   \
             "(each row its outputs and the taps' span, nothing rounded: an 8 x 8 plane "         \
             "computes rows of 9, not 16), 0 tight where octet rows are a tenth longer or more "  \
             "(a third for rows under 32 positions) and an image has several rows (2-D and "     \
             "3-D; src/lib/wgmma_flat.h)",                                                        \
     .n_defaults = 1,                                                                              \
     .defaults = {0}}
#define WG_KNOB_POS_M                                                                              \
    {.name = "pos_m",                                                                              \
     .help = "0: output channels are wgmma's M (64 per warpgroup); 1: output positions are "       \
             "M and the group's channels, rounded up to 8, its N (up to 32 channels per "          \
             "group; widths 64, 128, 256): few channels compute no zeros",                         \
     .n_defaults = 2,                                                                              \
     .defaults = {0, 1}}

extern "C" const convt_variant convt_variant_polyphase_wgmma_tf32 = {
    .name = "polyphase_wgmma_tf32",
    .summary = "stride phases on Hopper's warpgroup MMA (wgmma TF32): output channels x positions, each input row staged once for all its taps; sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 8,
    .knobs = {{.name = "bn",
               .help = "output positions per warpgroup (wgmma's N: 64 to 256 in steps of 16; "
                       "with pos_m = 1, M blocks of 64: 64, 128 or 256), a stretch of the "
                       "phase's rows laid out flat; 0: the width with the fewest predicted "
                       "rounds of tiles over the SMs x (bn + 64)",
               .n_defaults = 3,
               .defaults = {0, 64, 128}},
              {.name = "bk",
               .help = "input channels staged per pipeline stage (8, 16 or 32: 8 for groups "
                       "of 8 input channels or fewer)",
               .n_defaults = 3,
               .defaults = {16, 32, 8}},
              WG_KNOB_STAGES_3_5,
              WG_KNOB_KPAD,
              WG_KNOB_PERSIST,
              WG_KNOB_POS_M,
              WG_KNOB_PLANE,
              WG_KNOB_ROWS},
    WG_VARIANT_FUNCTIONS(tf32),
};

extern "C" const convt_variant convt_variant_polyphase_wgmma_3xtf32 = {
    .name = "polyphase_wgmma_3xtf32",
    .summary = "polyphase_wgmma_tf32's pipeline at float32 accuracy: each operand split into two TF32 parts, three wgmma per product, each stage summed apart; sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 9,
    .knobs = {{.name = "bn",
               .help = "output positions per warpgroup (wgmma's N: 64 to 160 in steps of 16, "
                       "the stage's partial sums doubling the accumulators; with pos_m = 1, M "
                       "blocks of 64: 64, 128 or 256), a stretch of the phase's rows laid out "
                       "flat; 0: the width with the fewest predicted rounds of tiles over the "
                       "SMs x (bn + 64)",
               .n_defaults = 3,
               .defaults = {0, 64, 128}},
              WG_KNOB_BK_3XTF32,
              WG_KNOB_STAGES,
              WG_KNOB_KPAD,
              WG_KNOB_PERSIST,
              WG_KNOB_POS_M,
              WG_KNOB_PLANE,
              WG_KNOB_ROWS,
              {.name = "turns",
               .help = "1: the two consumer warpgroups issue each stage in turn, so that one's "
                       "wgmma run while the other waits for its own and adds the stage's partial "
                       "sums (each stage ends in a full wait: side by side, 0, both empty the "
                       "tensor pipe together); output channels as M (pos_m = 0)",
               .n_defaults = 2,
               .defaults = {1, 0}}},
    WG_VARIANT_FUNCTIONS(split3),
};
extern "C" const convt_variant convt_variant_polyphase_wgmma_fold_tf32 = {
    .name = "polyphase_wgmma_fold_tf32",
    .summary = "polyphase_wgmma_tf32 with the stride phases folded into the output channels, for dilation 1 (kernels a whole number of strides long, k = m x stride: vocoder and UNet upsampling; others padded with zero taps to one, k 3 stride 2 among them, where at least half the padded taps are w's): a stride-1 GEMM of S x the channels whose tiles store every phase of a stretch; sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 7,
    .knobs = {WG_KNOB_FOLD_BN,
              WG_KNOB_BK_16_32,
              WG_KNOB_STAGES,
              WG_KNOB_KPAD,
              WG_KNOB_PERSIST,
              WG_KNOB_FOLD_CO_BLOCK,
              WG_KNOB_ROWS},
    WG_VARIANT_FUNCTIONS(fold),
};
/* The fold (folded, as polyphase_wgmma_fold_tf32) at float32 accuracy:
 * the float32 tier had no folded kernel, and on layers of few output
 * channels (Conv-TasNet's decoder to 1, DCGAN's RGB output to 3) and
 * large strides its best was 0.29x and 0.70x of cuDNN where the TF32 fold
 * won; with this variant 0.93x, their folded 8 and 12 channels padded to
 * wgmma's M of 64, and the vocoder layers' float32 15 to 34% faster
 * (configs/unseen2.json, realistic.json; results/notes.md, session 55).
 * 64 or 128 output channels a block (co_block 256 would double 3xTF32's
 * doubled accumulators). */
extern "C" const convt_variant convt_variant_polyphase_wgmma_fold_3xtf32 = {
    .name = "polyphase_wgmma_fold_3xtf32",
    .summary = "polyphase_wgmma_fold_tf32 at float32 accuracy: the stride phases folded into the output channels, the K loop polyphase_wgmma_3xtf32's (each operand two TF32 parts, three wgmma per product, each stage summed apart); sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 6,
    .knobs = {{.name = "bn",
               .help = "output positions per warpgroup of the folded problem (wgmma's N: 64 "
                       "to 160 in steps of 16, the stage's partial sums doubling the "
                       "accumulators), each one position of every phase; 0: the width with the "
                       "fewest predicted rounds of tiles over the SMs x (bn + 64)",
               .n_defaults = 2,
               .defaults = {0, 128}},
              WG_KNOB_BK_3XTF32_8_TO_32,
              WG_KNOB_STAGES,
              WG_KNOB_KPAD_64_0,
              WG_KNOB_PERSIST,
              WG_KNOB_ROWS},
    WG_VARIANT_FUNCTIONS(fold_split3),
};
/* The fold at float32 accuracy with positions as M: the folded problem's
 * S x cout_g channels (up to 32) are wgmma's N, where the channels-as-M
 * fold pads them to 64 rows and 3xTF32 triples the padding's products
 * (Conv-TasNet's decoder to 1 channel at stride 8, DCGAN's RGB output:
 * 0.93x and 0.95x of cuDNN in session 56). A variant of its own rather
 * than a knob pos_m of polyphase_wgmma_fold_3xtf32, whose recorded launch
 * keys a new knob would change. */
extern "C" const convt_variant convt_variant_polyphase_wgmma_fold_posm_3xtf32 = {
    .name = "polyphase_wgmma_fold_posm_3xtf32",
    .summary = "polyphase_wgmma_fold_3xtf32 with positions as M: the stride phases folded into the output channels, the folded problem's positions wgmma's M and its channels (stride phases x channels per group, up to 32, rounded up to 8) its N, the epilogue the fold's map straight from the fragments, each operand two TF32 parts (three wgmma per product): for layers of few output channels and large strides in float32; sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 6,
    .knobs = {{.name = "bn",
               .help = "folded positions per warpgroup (M blocks of 64: 64, 128 or 256), the two "
                       "warpgroups neighbouring stretches; 0: the width with the fewest predicted "
                       "rounds of tiles over the SMs x (bn + 64)",
               .n_defaults = 1,
               .defaults = {0}},
              WG_KNOB_BK_3XTF32,
              WG_KNOB_STAGES,
              WG_KNOB_KPAD,
              WG_KNOB_PERSIST,
              WG_KNOB_ROWS},
    WG_VARIANT_FUNCTIONS(fold_posm_split3),
};
extern "C" const convt_variant convt_variant_polyphase_wgmma_fold_inner_tf32 = {
    .name = "polyphase_wgmma_fold_inner_tf32",
    .summary = "polyphase_wgmma_fold_tf32 with the stride phases of the innermost one or two dimensions alone folded into the output channels (knob fold_dims), the outer dimensions' phases run apart: for 2-D and 3-D kernels no whole number of strides long, where the whole fold multiplies too many zero taps (3-D k 3 stride 2: 27 of 64 taps w's folded whole, 3 of 4 along the innermost dimension) and the phases apart stage each input once per phase; dilation 1 along the folded dimensions; sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 9,
    .knobs = {WG_KNOB_FOLD_BN,
              WG_KNOB_BK_16_32,
              WG_KNOB_STAGES,
              WG_KNOB_KPAD,
              {.name = "persist",
               .help = "1: one block per SM walks the list of tiles, the producer filling the "
                       "next tile's stages during this one's epilogue; 0: one block per tile",
               .n_defaults = 1,
               .defaults = {1}},
              WG_KNOB_FOLD_CO_BLOCK,
              WG_KNOB_ROWS,
              WG_KNOB_PLANE,
              {.name = "fold_dims",
               .help = "how many of the innermost dimensions are folded (1 or 2, fewer than the "
                       "shape has): their phases become output channels, as "
                       "polyphase_wgmma_fold_tf32 folds all of them; the outer dimensions keep "
                       "their stride, and their phases are run apart",
               .n_defaults = 2,
               .defaults = {1, 2}}},
    WG_VARIANT_FUNCTIONS(fold_inner),
};
extern "C" const convt_variant convt_variant_polyphase_wgmma_rowfold_tf32 = {
    .name = "polyphase_wgmma_rowfold_tf32",
    .summary = "polyphase_wgmma_fold_tf32 on a stride-1 layer whose rows (2-D; 3-D: the middle dimension) are folded in pairs into the input channels first, making a stride-2 layer of twice the channels and a kernel one tap longer, whose phases then fold into the output channels: twice the output channels on wgmma's M of 64 (32 channels fill it where they filled half) and half the positions, at k 3 two thirds of the staged input and products (kb78, kb71); stride 1 and dilation 1 along that dimension, an even input there; sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 9,
    /* defaults from session 40's probes (results/notes.md): bn 0, bk 16 won
     * every layer (bk 32 none of 16); 4 stages the 2-D layers, 3 the 3-D
     * ones by tap planes; ping-pong the rows of 32 channels, sharing the
     * tiles the 3-D planes and 16 channels or fewer; resident weights where
     * the image is small */
    .knobs = {{.name = "bn",
               .help = "output positions per warpgroup of the folded problem (wgmma's N: 64 "
                       "to 256 in steps of 16; with pingpong = 1 64, 128, 192 or 256); 0: the "
                       "width with the fewest predicted rounds of tiles over the SMs x (bn + 64)",
               .n_defaults = 1,
               .defaults = {0}},
              {.name = "bk",
               .help = "input channels of the row-folded problem staged per pipeline stage (16 or 32)",
               .n_defaults = 1,
               .defaults = {16}},
              WG_KNOB_STAGES_4_3,
              WG_KNOB_KPAD,
              {.name = "persist",
               .help = "1: one block per SM walks the list of tiles, the producer filling the "
                       "next tile's stages during this one's epilogue; 0: one block per tile "
                       "(pingpong = 0 only)",
               .n_defaults = 1,
               .defaults = {1}},
              WG_KNOB_ROWS,
              WG_KNOB_PLANE,
              {.name = "pingpong",
               .help = "1: the two consumer warpgroups take a block's tiles in turn, each a whole "
                       "tile of the 64 folded channels (widths 64, 128, 192, 256), so that one "
                       "stores while the other's wgmma run (polyphase_wgmma_pingpong_tf32's "
                       "schedule; 32 output channels or fewer a group); 0: they share each tile",
               .n_defaults = 2,
               .defaults = {1, 0}},
              {.name = "resident",
               .help = "with pingpong = 1: 1 keeps the whole weight image in shared memory, "
                       "copied once by the producer, each stage holding only input "
                       "(polyphase_wgmma_pingpong_tf32's knob); 0: each stage copies its taps' "
                       "weights",
               .n_defaults = 2,
               .defaults = {0, 1}}},
    WG_VARIANT_FUNCTIONS(rowfold),
};
extern "C" const convt_variant convt_variant_polyphase_wgmma_fold_inplace_tf32 = {
    .name = "polyphase_wgmma_fold_inplace_tf32",
    .summary = "polyphase_wgmma_fold_tf32 reading the weights in place: each stage's weights one TMA box of w (a tap row's taps x the block's channels x bk input channels), loaded into wgmma's A registers, so that no weight image is written and read again each launch (the folded vocoder layers, whose weights outweigh their input); 1-D and 2-D folds whose taps and tap rows are multiples of 4 (k 4, 8, 12, 16; 2 x 2, 4 x 4); sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 6,
    .knobs = {WG_KNOB_FOLD_BN,
              WG_KNOB_BK_16_32,
              WG_KNOB_STAGES,
              WG_KNOB_KPAD,
              WG_KNOB_PERSIST,
              WG_KNOB_ROWS},
    WG_VARIANT_FUNCTIONS(fold_inplace),
};
/* split-K's knobs, both precisions' (polyphase_wgmma_splitk_tf32 and
 * polyphase_wgmma_splitk_3xtf32): the defaults are the TF32 variant's
 * measurements */
#define WG_KNOB_SPLITK_PERSIST                                                                     \
    {.name = "persist",                                                                            \
     .help = "1: one block per SM walks the list of parts of tiles; 0: one block per "             \
             "part (the same where the parts are fewer than the SMs)",                             \
     .n_defaults = 1,                                                                              \
     .defaults = {1}}
#define WG_KNOB_SPLITK_FOLD                                                                        \
    {.name = "fold",                                                                               \
     .help = "0: the stride phases apart, as polyphase_wgmma_tf32 (output channels as "            \
             "M); 1: folded into the output channels, as polyphase_wgmma_fold_tf32 "               \
             "(dilation 1; kernels padded with zero taps to whole strides), or with "              \
             "fold_dims 1 or 2 along the innermost dimensions alone, as "                          \
             "polyphase_wgmma_fold_inner_tf32 (dilation 1 there; tap rows only)",                  \
     .n_defaults = 2,                                                                              \
     .defaults = {0, 1}}
#define WG_KNOB_SPLITK_KSPLIT                                                                      \
    {.name = "ksplit",                                                                             \
     .help = "parts of a tile's walk over K (tap rows x input channel chunks), each a "            \
             "block's, 2 to 8, refused where the tiles, at the launch's width, are "               \
             "more than half the SMs; or 0, stream-K: one block per SM, the tiles' "               \
             "stages shared evenly between them (a block's share may cross tiles), "               \
             "refused where the tiles are more than the SMs; or 1, balance: one block "            \
             "per SM, only the tiles whose walks are longer than the blocks' even share "          \
             "of the stages cut, into parts of at most it, every tile and part to the "            \
             "least loaded block, the longest first (phases of unequal taps: k 3 at "              \
             "stride 2 in 3-D), refused where it would cut none (src/lib/split_k.h). "             \
             "Defaults 2, 4, 1 and 0: on the H100 (session 28) stream-K won no layer of "          \
             "realistic, unseen or splitk-short, its best against parts vol3d_k3_s2_4cube "        \
             "(0.0666 ms, ksplit 4 0.0728, cuDNN 0.0606); balance (session 35) beat the "          \
             "unsplit kernels on 2 of the 14 layers it was admitted to (a 2-D k 3 stride 2 "       \
             "layer of 8 x 8 inputs, 512 -> 256 channels: 0.0327 ms against 0.0419) and "          \
             "lost the rest, the 8 of unseen and realistic among them, by 6% to 2.5x; in "         \
             "session 37's probe of short layers of many channels (configs/splitk-fold-"           \
             "inner-probe.json) balance was the fastest launch of all on a 4^3 volume of "         \
             "512 -> 256 channels (0.0404 ms; 4 parts 0.0499, cuDNN 0.0531) and that 8 x 8 "       \
             "layer (0.0325; 3 parts 0.0342), stream-K the fastest own on a 12^3 volume "          \
             "of 256 -> 128 (0.0531; unsplit 0.0570, cuDNN 0.0507): the sweep's defaults "         \
             "try both where they are admitted (one round of tiles or fewer, a tile to cut)",      \
     .n_defaults = 4,                                                                              \
     .defaults = {2, 4, 1, 0}}
#define WG_KNOB_SPLITK_PLANE                                                                       \
    {.name = "plane",                                                                              \
     .help = "0: the input rows staged per tap row; 1 (fold = 0 only): per tap plane, "            \
             "as polyphase_wgmma_tf32's plane = 1. Default 0 alone: on the H100 "                  \
             "(session 25) plane = 1 split no short layer faster than the best "                   \
             "launch without it (stylegan_4to8 0.119 ms against 0.082 unsplit)",                   \
     .n_defaults = 1,                                                                              \
     .defaults = {0}}
#define WG_KNOB_SPLITK_FOLD_DIMS                                                                   \
    {.name = "fold_dims",                                                                          \
     .help = "with fold = 1, the dimensions folded: 0 every one (the whole fold); 1 or "           \
             "2 the innermost ones alone (fewer than the shape has), the outer "                   \
             "dimensions' phases run apart, as polyphase_wgmma_fold_inner_tf32, for "              \
             "short 2-D and 3-D layers whose whole fold multiplies too many zero taps. "           \
             "Default 0 alone: on the H100 (session 37, configs/splitk-fold-inner-probe.json) "    \
             "a split partial fold was the fastest launch on none of 10 short volumes and "        \
             "images of 64 to 512 channels (dec3d_c128to64: 0.0796 ms by balance along 1 "         \
             "dimension, the partial fold unsplit 0.0645, cuDNN 0.0561); the suspect, not "        \
             "measured: the parts' atomic sums into an output of 17 MB",                           \
     .n_defaults = 1,                                                                              \
     .defaults = {0}}
extern "C" const convt_variant convt_variant_polyphase_wgmma_splitk_tf32 = {
    .name = "polyphase_wgmma_splitk_tf32",
    .summary = "polyphase_wgmma_tf32 (or, fold 1, polyphase_wgmma_fold_tf32; fold 1 with fold_dims 1 or 2, polyphase_wgmma_fold_inner_tf32 by tap rows) with each tile's K walk split between ksplit blocks, or all the tiles' stages shared evenly between the SMs (stream-K, ksplit 0), or only the tiles longer than that even share cut (balance, ksplit 1: phases of unequal taps), the parts' sums added into the output by atomics, for short layers of many channels whose tiles leave SMs idle and for phases of unequal work (src/lib/split_k.h); not deterministic; sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = false, /* the parts add in the order they finish */
    .n_knobs = 11,
    .knobs = {{.name = "bn",
               .help = "output positions per warpgroup (wgmma's N: 64, 96, 128, 192 or 256); 0: "
                       "the width of the least predicted time, rounds of blocks x (bn + 64): "
                       "tiles x ksplit over the SMs, rounded up (stream-K: tiles over the SMs)",
               .n_defaults = 1,
               .defaults = {0}},
              WG_KNOB_BK_16_32,
              WG_KNOB_STAGES,
              WG_KNOB_KPAD,
              WG_KNOB_SPLITK_PERSIST,
              WG_KNOB_SPLITK_FOLD,
              WG_KNOB_SPLITK_KSPLIT,
              {.name = "co_block",
               .help = "output channels per block (of the folded problem with fold = 1): 0, 64 "
                       "or 128 as the channels ask; 256 (more than 128 per group, widths 64, 96 "
                       "and 128): two 64-channel blocks a consumer warpgroup, so that a staged "
                       "input feeds twice the channels (polyphase_wgmma_wide_tf32)",
               .n_defaults = 2,
               .defaults = {0, 256}},
              WG_KNOB_SPLITK_PLANE,
              WG_KNOB_ROWS,
              WG_KNOB_SPLITK_FOLD_DIMS},
    WG_VARIANT_FUNCTIONS(splitk),
};
/* Split-K at float32 accuracy: the float32 tier had no split kernel, and
 * on short layers of many channels at batch 1, whose few tiles leave most
 * SMs idle, its best was 0.70x of cuDNN where TF32's split-K won 1.48x
 * (pix2pix_b1, configs/unseen2.json; results/notes.md, session 55). 64 or
 * 128 output channels a block (co_block 256 would double 3xTF32's doubled
 * accumulators), widths 64, 96 and 128 (3xTF32's up to 160 among
 * split-K's). */
extern "C" const convt_variant convt_variant_polyphase_wgmma_splitk_3xtf32 = {
    .name = "polyphase_wgmma_splitk_3xtf32",
    .summary = "polyphase_wgmma_splitk_tf32 at float32 accuracy: each tile's K walk split between blocks (ksplit parts, stream-K or balance), the stride phases apart or folded, the K loop polyphase_wgmma_3xtf32's (each operand two TF32 parts, three wgmma per product, each stage summed apart), the parts' sums added into the output by atomics, for short layers whose tiles leave SMs idle; not deterministic; sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = false, /* the parts add in the order they finish */
    .n_knobs = 10,
    .knobs = {{.name = "bn",
               .help = "output positions per warpgroup (wgmma's N: 64, 96 or 128, the stage's "
                       "partial sums doubling the accumulators); 0: the width of the least "
                       "predicted time, rounds of blocks x (bn + 64): tiles x ksplit over the "
                       "SMs, rounded up (stream-K: tiles over the SMs)",
               .n_defaults = 1,
               .defaults = {0}},
              WG_KNOB_BK_3XTF32_8_TO_32,
              WG_KNOB_STAGES,
              WG_KNOB_KPAD_64_0,
              WG_KNOB_SPLITK_PERSIST,
              WG_KNOB_SPLITK_FOLD,
              WG_KNOB_SPLITK_KSPLIT,
              WG_KNOB_SPLITK_PLANE,
              WG_KNOB_ROWS,
              WG_KNOB_SPLITK_FOLD_DIMS},
    WG_VARIANT_FUNCTIONS(splitk_split3),
};
extern "C" const convt_variant convt_variant_polyphase_wgmma_wide_tf32 = {
    .name = "polyphase_wgmma_wide_tf32",
    .summary = "polyphase_wgmma_tf32 with 256 output channels a block, two 64-channel blocks a consumer warpgroup: each staged input feeds twice the channels, halving the input's traffic per multiply, for layers of more than 128 output channels per group (small images of many channels: pix2pix, StyleGAN, VAE decoders); sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 7,
    .knobs = {{.name = "bn",
               .help = "output positions per warpgroup (wgmma's N: 64 to 160 in steps of 16, "
                       "the two channel blocks' sums doubling the accumulators); 0: the width "
                       "with the fewest predicted rounds of tiles over the SMs x (bn + 64)",
               .n_defaults = 1,
               .defaults = {0}},
              WG_KNOB_BK_16_32,
              WG_KNOB_STAGES,
              WG_KNOB_KPAD,
              WG_KNOB_PERSIST,
              WG_KNOB_PLANE,
              WG_KNOB_ROWS},
    WG_VARIANT_FUNCTIONS(wide),
};
extern "C" const convt_variant convt_variant_polyphase_wgmma_cluster_tf32 = {
    .name = "polyphase_wgmma_cluster_tf32",
    .summary = "polyphase_wgmma_tf32 (or, fold 1, polyphase_wgmma_fold_tf32) run as clusters of two blocks that take the two halves of one pair tile and share each stage's weights by TMA multicast, each block's producer copying half into both: the weights come from L2 once for two tiles, for layers of many channels whose tiles read more weights than input (pix2pix, StyleGAN and VAE decoders, vocoders); sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 7,
    .knobs = {{.name = "bn",
               .help = "output positions per warpgroup (wgmma's N: 64, 96, 128, 192 or 256; 64, "
                       "96 or 128 at co_block = 256); 0: the width with the fewest predicted "
                       "rounds of blocks over the SMs x (bn + 64)",
               .n_defaults = 1,
               .defaults = {0}},
              WG_KNOB_BK_16_32,
              WG_KNOB_STAGES,
              WG_KNOB_KPAD,
              {.name = "fold",
               .help = "0: the stride phases apart, as polyphase_wgmma_tf32 (a tap row staged at "
                       "a time); 1: folded into the output channels, as "
                       "polyphase_wgmma_fold_tf32 (dilation 1; kernels padded with zero taps to "
                       "whole strides)",
               .n_defaults = 2,
               .defaults = {0, 1}},
              {.name = "co_block",
               .help = "output channels per block (of the folded problem with fold = 1): 0, 64 "
                       "or 128 as the channels ask; 256 (more than 128 per group): two 64-channel "
                       "blocks a consumer warpgroup, as polyphase_wgmma_wide_tf32",
               .n_defaults = 2,
               .defaults = {0, 256}},
              WG_KNOB_ROWS},
    WG_VARIANT_FUNCTIONS(cluster),
};
extern "C" const convt_variant convt_variant_polyphase_wgmma_colsum_tf32 = {
    .name = "polyphase_wgmma_colsum_tf32",
    .summary = "polyphase_wgmma_tf32 with positions as M (pos_m = 1: up to 32 output channels per group) and the taps along a row on one read of the staged input: each group of a row's taps loads its A fragments into registers once and multiplies them by every tap's weights into that tap's own accumulators, which the epilogue adds at their column shifts; for stride 1 along the innermost dimension and 3, 5 or 7 taps there: on the H100 (session 29) 1.03 to 1.27x pos_m 1 on small 2-D and 3-D layers of few channels by tap planes, slower on KernelBench's large dense ones (kb70 0.91x, kb78 0.74x), which the input's gather bounds; sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 7,
    .knobs = {{.name = "bn",
               .help = "staged positions per consumer warpgroup (wgmma's M blocks: 64 or 128), of "
                       "which it stores bn less the taps' column span (rounded up to 4); 128 only "
                       "where the column sets' accumulators and the A fragments fit in 160 "
                       "registers a thread (3 taps; 5 with up to 16 channels; 7 with 16 channels up "
                       "to bk 16, 8 at any bk); and where it stores at least half its rows; 0: "
                       "the width with the fewest predicted rounds of tiles over the SMs x (bn + 64)",
               .n_defaults = 2,
               .defaults = {0, 128}},
              {.name = "bk",
               .help = "input channels staged per pipeline stage (8, 16 or 32: 8 for few "
                       "input channels a group, which a chunk of 16 would stage half empty)",
               .n_defaults = 3,
               .defaults = {16, 32, 8}},
              WG_KNOB_STAGES,
              WG_KNOB_KPAD,
              {.name = "persist",
               .help = "1: one block per SM walks the list of tiles; 0: one block per tile. "
                       "Default 1 alone, and bn 0 and 128: on the H100 (session 29, "
                       "results/h100-2026-11-26-colsum-probe-s29.config.json) bn 64 won one layer of eleven (vid3d, where 128 "
                       "did not fit), and a block per tile pays where phases have one tap, "
                       "which this variant's shapes never have",
               .n_defaults = 1,
               .defaults = {1}},
              WG_KNOB_PLANE,
              WG_KNOB_ROWS},
    WG_VARIANT_FUNCTIONS(colsum),
};
extern "C" const convt_variant convt_variant_polyphase_wgmma_pingpong_tf32 = {
    .name = "polyphase_wgmma_pingpong_tf32",
    .summary = "polyphase_wgmma_tf32 with output channels as M for up to 64 per group, its two consumer warpgroups taking a block's tiles in turn (ping-pong): one stores its tile while the other's wgmma run, where polyphase_wgmma_tf32's two store at once and the tensor cores idle (Nsight Compute, session 31: the epilogue 24% of the consumers' warp samples on kb57, 38% on kb71); each tile stages its own input stretch and weights, or with resident = 1 only its input beside the whole weight image; sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 8,
    .knobs = {{.name = "bn",
               .help = "output positions per tile, a consumer warpgroup's (wgmma's N: 64, 128, 192 "
                       "or 256), a stretch of the phase's rows laid out flat; 0: the width with the "
                       "fewest predicted rounds of tiles over the SMs x (bn + 64); the default "
                       "alone, as the probe of session 31 ran it",
               .n_defaults = 1,
               .defaults = {0}},
              {.name = "bk",
               .help = "input channels staged per pipeline stage (8, 16 or 32: 8 for groups "
                       "of 8 input channels or fewer)",
               .n_defaults = 3,
               .defaults = {16, 32, 8}},
              {.name = "stages",
               .help = "shared-memory buffers (3, 4 or 5), shared by both warpgroups' tiles in "
                       "the producer's order: a stage holds one tile's input and weights (with "
                       "resident = 1 its input alone)",
               .n_defaults = 2,
               .defaults = {4, 3}},
              WG_KNOB_KPAD,
              WG_KNOB_PLANE,
              WG_KNOB_ROWS,
              {.name = "seg",
               .help = "0: each output row laid out whole; a multiple of 8 (8 to 1024, 2-D "
                       "shapes): the rows cut into segments of that many outputs, laid out "
                       "segment by segment (src/lib/wgmma_flat.h), so that a tile spans a few rows "
                       "of one segment and tap planes (plane = 1) stage each input row once for "
                       "all the taps with a span of a few segment rows; 120 among the defaults "
                       "since session 38: with resident weights and tap planes, kb71's fastest launch "
                       "(0.711 ms against 0.756 with the weights staged)",
               .n_defaults = 2,
               .defaults = {0, 120}},
              {.name = "resident",
               .help = "0: each stage copies its taps' weights beside its input (one bulk copy); "
                       "1: the whole weight image is copied once into shared memory, before the "
                       "stages, and each stage holds only its input (refused where the image and "
                       "the stages do not fit: the image takes 256 bytes per input channel and tap at "
                       "kpad 0, so about 700 of them at most)",
               .n_defaults = 2,
               .defaults = {0, 1}}},
    WG_VARIANT_FUNCTIONS(pingpong),
};
extern "C" const convt_variant convt_variant_polyphase_wgmma_pair_tf32 = {
    .name = "polyphase_wgmma_pair_tf32",
    .summary = "polyphase_wgmma_tf32 with its two consumer warpgroups on two neighbouring output rows over the same columns (2-D and 3-D, up to 64 output channels per group): each staged input row serves both, warpgroup 0 through one tap row and warpgroup 1 through the next, so that 3 tap rows stage 4 input rows of bn positions where polyphase_wgmma_tf32 stages 3 of 2 bn (a third fewer of the 4-byte copies that bound the dense layers' shared memory; src/lib/row_pairs.h); tap rows only, each stage holding both rows' weights; sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 6,
    .knobs = {{.name = "bn",
               .help = "output positions per warpgroup (wgmma's N: 128, 192 or 256), the same "
                       "columns of the pair's two rows, a stretch of the phase's row pairs laid out "
                       "flat; 0: the width with the fewest predicted rounds of tiles over the SMs x "
                       "(bn + 64)",
               .n_defaults = 1,
               .defaults = {0}},
              {.name = "bk",
               .help = "input channels staged per pipeline stage (8 or 16: a stage holds two tap "
                       "rows' weights beside its input; at 32, 3 x 3 taps of 64 channels would fit "
                       "two stages at bn 256, three at bn 128)",
               .n_defaults = 2,
               .defaults = {16, 8}},
              WG_KNOB_STAGES_4_3,
              WG_KNOB_KPAD,
              {.name = "persist",
               .help = "1: one block per SM walks the list of tiles, the producer filling the "
                       "next tile's stages during this one's epilogue; 0 (a block per tile) is "
                       "refused: it was not validated for row pairs",
               .n_defaults = 1,
               .defaults = {1}},
              WG_KNOB_ROWS},
    WG_VARIANT_FUNCTIONS(pair),
};
#undef WG_KNOB_STAGES
#undef WG_KNOB_STAGES_OF
#undef WG_KNOB_STAGES_3_5
#undef WG_KNOB_STAGES_4_3
#undef WG_KNOB_KPAD
#undef WG_KNOB_BK_16_32
#undef WG_KNOB_PERSIST
#undef WG_KNOB_POS_M
#undef WG_KNOB_PLANE
#undef WG_KNOB_ROWS
#undef WG_VARIANT_FUNCTIONS
#endif /* CONVT_HAVE_WGMMA */
