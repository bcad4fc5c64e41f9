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
#include "hostdevice.h"
#include "polyphase_plan.h"
#include "variant.h"

/* The phases and their taps (src/lib/polyphase_plan.h, planned on the host). */
typedef convt_phase_desc phase_desc;
typedef convt_phase_tap phase_tap;

/* Sizes as 32-bit values (supports() checks that they fit) next to the
 * 64-bit plane strides, so the kernel's index math stays in 32 bits. */
struct poly_args {
    const phase_desc *phases;
    const phase_tap *taps;
    int nphases;
    int cin, cout, cin_g, cout_g, co_pad, ktaps;
    int in[3], out[3], stride[3], pad[3];
    int64_t in_plane, out_plane;
    int stages;
};

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

/* TF32 rounding to nearest (ties away) in one integer add: the tensor core
 * reads only the top 19 bits, so adding half a TF32 ulp to the bits rounds
 * the way cvt.rna does (for finite values), on the full-rate integer pipe
 * instead of the conversion pipe (Nsight Compute on kb65: issue-bound at 66%
 * of slots with cvt.rna per operand). tf32_exact clears the ignored bits too,
 * for the split of 3xTF32, which needs the rounded value itself. */
__device__ __forceinline__ unsigned tf32_round(float v) { return __float_as_uint(v) + 0x1000u; }
__device__ __forceinline__ unsigned tf32_exact(float v) { return tf32_round(v) & 0xffffe000u; }

__device__ __forceinline__ void mma_tf32(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* cp.async with zero fill: with pred false nothing is read (src-size 0), so
 * src may point anywhere. */
__device__ __forceinline__ void cp_async4(float *dst, const float *src, bool pred)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(d), "l"(src),
                 "r"(pred ? 4 : 0));
}

__device__ __forceinline__ void cp_async16(float *dst, const float *src, bool pred)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src),
                 "r"(pred ? 16 : 0));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }

/* Waits until at most `pending` groups are in flight; the count must be an
 * immediate, so the run-time pipeline depth picks one of three. */
__device__ __forceinline__ void cp_async_wait(int pending)
{
    if (pending <= 0)
        asm volatile("cp.async.wait_group 0;");
    else if (pending == 1)
        asm volatile("cp.async.wait_group 1;");
    else
        asm volatile("cp.async.wait_group 2;");
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

/* A warp's accumulator tile, [MI][NI][4] floats, cleared and summed. */
template <int MI, int NI> __device__ __forceinline__ void zero_tile(float (&t)[MI][NI][4])
{
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                t[i][j][r] = 0.0f;
}

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
// ----------------------------------------------------------------------------
// polyphase_wgmma_tf32: the same phases and plan, on Hopper's warpgroup MMA
//
// Two warpgroups (256 threads) per block compute a 128 x 128 tile of a
// phase's GEMM, each 64 rows with wgmma.mma_async m64n128k8 (TF32 in,
// float32 accumulate) while the next K tiles' cp.async loads land; both
// operands are read by the tensor cores from shared memory, K-major, in
// core matrices of 8 rows x 16 bytes without swizzling (tools/
// wgmma_probe.cu established the layout and the descriptor's offsets on the
// H100): element (row, k) of a BK-wide tile at
//   ((row / 8) * (BK / 4) + k / 4) * 128 + (row % 8) * 16 + (k % 4) * 4 bytes.
// A is gathered from x by 4-byte cp.async as in polyphase_kernel; B comes
// from the weights repacked K-major, wk[g][tap][co (64-padded)][ci (4-padded)],
// by 16-byte cp.async. The tensor cores read the top 19 bits of each float:
// the weights are rounded to nearest when repacked, the gathered inputs are
// truncated (an error of at most 2^-10 each, inside the tf32 tolerance).

/* Two consumer warpgroups, each 64 rows of the block's 128, both the whole
 * BN columns (wgmma m64n128k8 or m64n64k8): a B tile staged once feeds
 * both. BN is 128, or 64 for few output channels per group. */
enum { WG_BM = 128, WG_BK = 32, WG_THREADS = 256, WG_ACC = 64 };

__device__ __forceinline__ int wg_core_offset(int row, int k)
{
    return ((row >> 3) * (WG_BK / 4) + (k >> 2)) * 128 + (row & 7) * 16 + (k & 3) * 4;
}

__device__ __forceinline__ uint64_t wg_descriptor(const void *smem)
{
    const uint32_t addr = (uint32_t)__cvta_generic_to_shared(smem);
    const uint64_t lbo = 128, sbo = (WG_BK / 4) * 128; /* along K, along M/N */
    return (uint64_t)((addr >> 4) & 0x3fff) | ((lbo >> 4) & 0x3fff) << 16 |
           ((sbo >> 4) & 0x3fff) << 32;
}

__device__ __forceinline__ void wgmma_m64n128k8_tf32(float (&d)[WG_ACC], uint64_t da, uint64_t db)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    /* scale-d is a predicate: true, d += a*b (d starts at zero) */
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db));
#else
    (void)d, (void)da, (void)db;
    __trap(); /* built without sm_90a: supports() keeps this from running */
#endif
}

__device__ __forceinline__ void wgmma_m64n64k8_tf32(float (&d)[32], uint64_t da, uint64_t db)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(da), "l"(db));
#else
    (void)d, (void)da, (void)db;
    __trap();
#endif
}

/* d += a * b for a warpgroup's 64 rows and BN columns. */
__device__ __forceinline__ void wgmma_tile(float (&d)[32], uint64_t da, uint64_t db)
{
    wgmma_m64n64k8_tf32(d, da, db);
}
__device__ __forceinline__ void wgmma_tile(float (&d)[64], uint64_t da, uint64_t db)
{
    wgmma_m64n128k8_tf32(d, da, db);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
/* All but the newest group done: the previous K tile's buffer is free. */
__device__ __forceinline__ void wgmma_wait_prev() { asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory"); }
/* Stores of the generic proxy (cp.async among them) made visible to the
 * async proxy that wgmma reads shared memory through. */
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

/* wk[g][t][co][ci] = w[g*cin_g + ci][co][t] rounded to TF32, zero in the
 * padding (co up to co_rows, ci up to ci_pad). */
__global__ void pack_weights_kmajor(const float *__restrict__ w, float *__restrict__ wk,
                                    int64_t cin_g, int64_t cout_g, int64_t ci_pad,
                                    int64_t co_rows, int64_t ktaps, int64_t total)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t ci = i % ci_pad, r = i / ci_pad;
        int64_t co = r % co_rows;
        r /= co_rows;
        int64_t t = r % ktaps, g = r / ktaps;
        float v = ci < cin_g && co < cout_g ? w[((g * cin_g + ci) * cout_g + co) * ktaps + t] : 0.0f;
        wk[i] = __uint_as_float(tf32_exact(v));
    }
}

template <int WG_BN>
__global__ void __launch_bounds__(WG_THREADS, 2)
    polyphase_wgmma_kernel(poly_args a, const float *__restrict__ x, const float *__restrict__ wk,
                           const float *__restrict__ bias, float *__restrict__ y)
{
    extern __shared__ __align__(128) unsigned char wg_smem[];
    constexpr int A_BYTES = WG_BM * WG_BK * 4, B_BYTES = WG_BN * WG_BK * 4;
    unsigned char *As = wg_smem;                                  /* [stages][A_BYTES] */
    unsigned char *Bs = wg_smem + (size_t)a.stages * A_BYTES;     /* [stages][B_BYTES] */

    const phase_desc &ph = a.phases[blockIdx.x % a.nphases];
    const int m_tile = blockIdx.x / a.nphases;
    if (m_tile >= ph.m_tiles)
        return;
    const int m0 = m_tile * WG_BM, co0 = blockIdx.y * WG_BN, g = blockIdx.z;
    const int tid = threadIdx.x;
    const int ci_pad = (a.cin_g + 3) & ~3, co_rows = (a.cout_g + WG_BN - 1) / WG_BN * WG_BN;

    /* A: this thread's column (output row m) and its 16 channels k = a_k0 + 2j */
    const int a_col = tid % WG_BM, a_k0 = tid / WG_BM;
    const bool a_m_ok = m0 + a_col < ph.m_count;
    int aq[3], n_img;
    split_row(ph, a_m_ok ? m0 + a_col : 0, n_img, aq);
    const float *a_base = x + ((int64_t)n_img * a.cin + (int64_t)g * a.cin_g + a_k0) * a.in_plane;
    const int chunks = (a.cin_g + WG_BK - 1) / WG_BK;
    const int ktiles = ph.ntaps * chunks;

    int ld_tap = 0, ld_ci0 = 0;
    const float *a_src = a_base;
    bool a_ok = false;
    const float *wtap = wk;
    auto load_tile = [&](int buf) {
        if (ld_ci0 == 0) {
            const phase_tap tap = a.taps[ph.tap_begin + ld_tap];
            const int i0 = aq[0] - tap.off[0], i1 = aq[1] - tap.off[1], i2 = aq[2] - tap.off[2];
            a_ok = a_m_ok && (unsigned)i0 < (unsigned)a.in[0] && (unsigned)i1 < (unsigned)a.in[1] &&
                   (unsigned)i2 < (unsigned)a.in[2];
            a_src = a_base + (a_ok ? (i0 * a.in[1] + i1) * a.in[2] + i2 : 0);
            wtap = wk + (((int64_t)g * a.ktaps + tap.lin) * co_rows + co0) * ci_pad;
        }
        unsigned char *adst = As + (size_t)buf * A_BYTES;
        const int left = a.cin_g - ld_ci0;
        const float *src = a_src;
#pragma unroll
        for (int j = 0; j < WG_BK * WG_BM / WG_THREADS; j++) {
            const int k = a_k0 + (WG_THREADS / WG_BM) * j;
            cp_async4((float *)(adst + wg_core_offset(a_col, k)), src, a_ok && k < left);
            src += (WG_THREADS / WG_BM) * a.in_plane;
        }
        a_src += (int64_t)WG_BK * a.in_plane;
        /* B: WG_BN rows (co) x 8 vectors of 4 channels */
        unsigned char *bdst = Bs + (size_t)buf * B_BYTES;
#pragma unroll
        for (int u = 0; u < WG_BN * WG_BK / 4 / WG_THREADS; u++) {
            const int v = tid + u * WG_THREADS, row = v / (WG_BK / 4), k4 = (v % (WG_BK / 4)) * 4;
            const bool p = ld_ci0 + k4 < ci_pad;
            cp_async16((float *)(bdst + wg_core_offset(row, k4)),
                       wtap + (int64_t)row * ci_pad + ld_ci0 + (p ? k4 : 0), p);
        }
        ld_ci0 += WG_BK;
        if (ld_ci0 >= a.cin_g) {
            ld_ci0 = 0;
            ld_tap++;
        }
    };

    const int wg = tid / 128; /* this warpgroup's 64 rows of the block's 128 */
    float d[WG_BN / 2];
#pragma unroll
    for (int r = 0; r < WG_BN / 2; r++)
        d[r] = 0.0f;
    const int stages = a.stages;
    for (int st = 0; st < stages - 1; st++) {
        if (st < ktiles)
            load_tile(st);
        cp_async_commit();
    }
    /* Tile kt's wgmma runs while tile kt+1's loads land: before the buffer
     * of tile kt-1 is loaded again, that tile's wgmma must be done (wait
     * for all but the newest group), in every warpgroup (the barrier). */
    int buf = 0;
    wgmma_fence();
    for (int kt = 0; kt < ktiles; kt++) {
        cp_async_wait(stages - 2);
        fence_proxy_async();
        __syncthreads(); /* tile kt is in, for every thread */
        const unsigned char *At = As + (size_t)buf * A_BYTES + wg * (A_BYTES / 2);
        const unsigned char *Bt = Bs + (size_t)buf * B_BYTES;
#pragma unroll
        for (int kk = 0; kk < WG_BK; kk += 8)
            wgmma_tile(d, wg_descriptor(At + wg_core_offset(0, kk)),
                       wg_descriptor(Bt + wg_core_offset(0, kk)));
        wgmma_commit();
        wgmma_wait_prev();
        __syncthreads(); /* tile kt-1's wgmma is done in both warpgroups */
        if (kt + stages - 1 < ktiles)
            load_tile(buf == 0 ? stages - 1 : buf - 1);
        cp_async_commit();
        buf = buf + 1 == stages ? 0 : buf + 1;
    }
    wgmma_wait_all();
    cp_async_wait(0);

    /* Epilogue: register r of thread t of a warpgroup holds row
     * 16*(t/32) + (t%32)/4 + 8*((r/2)%2), column 8*(r/4) + 2*(t%4) + r%2
     * (tools/wgmma_probe.cu). */
    const int warp = (tid % 128) / 32, lane = tid % 32;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int m = m0 + 64 * wg + 16 * warp + lane / 4 + 8 * h;
        if (m >= ph.m_count)
            continue;
        int n, q[3], o[3];
        split_row(ph, m, n, q);
#pragma unroll
        for (int dd = 0; dd < 3; dd++)
            o[dd] = q[dd] * a.stride[dd] + ph.ph[dd] - a.pad[dd];
        float *yrow = y + ((int64_t)n * a.cout + (int64_t)g * a.cout_g) * a.out_plane +
                      (o[0] * a.out[1] + o[1]) * a.out[2] + o[2];
#pragma unroll
        for (int j = 0; j < WG_BN / 8; j++)
#pragma unroll
            for (int c = 0; c < 2; c++) {
                const int co = co0 + 8 * j + 2 * (lane % 4) + c;
                if (co < a.cout_g)
                    yrow[(int64_t)co * a.out_plane] =
                        d[4 * j + 2 * h + c] + (bias ? bias[g * a.cout_g + co] : 0.0f);
            }
    }
}
#endif /* CONVT_HAVE_WGMMA */

// ----------------------------------------------------------------------------
// host side

static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

static size_t packed_weight_bytes(const convt_problem *p)
{
    int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    return sizeof(float) * (size_t)p->groups * (size_t)convt_taps(p) * (size_t)cin_g *
           (size_t)round_up(cout_g, 4);
}

static size_t poly_workspace(const convt_problem *p, const convt_launch *l)
{
    (void)l;
    return packed_weight_bytes(p);
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

static void poly_release(void *state)
{
    poly_state *st = (poly_state *)state;
    if (!st)
        return;
    cudaFree(st->d_phases);
    cudaFree(st->d_taps);
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
 * the grid, with M tiles of bm rows (both polyphase kernels). */
static bool poly_sizes_fit(const convt_problem *p, int bm, char *why, size_t why_len)
{
    if (p->groups > 65535) {
        snprintf(why, why_len, "groups = %lld exceeds the grid's z limit 65535",
                 (long long)p->groups);
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
    return poly_sizes_fit(p, ts.bm, why, why_len);
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

static int poly_prepare_common(const convt_problem *p, const convt_launch *l, void **state,
                               bool split3, convt_err *e)
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
    a.nphases = pl.nphases;
    /* supports() has checked that every size fits an int */
    a.cin = (int)p->cin;
    a.cout = (int)p->cout;
    a.cin_g = (int)(p->cin / p->groups);
    a.cout_g = (int)(p->cout / p->groups);
    a.co_pad = (int)round_up(a.cout_g, 4);
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
    a.stages = (int)k.stages;
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
        cudaError_t err = cudaFuncSetAttribute((const void *)st->kernel,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)st->smem);
        if (err != cudaSuccess)
            rc = convt_cuda_fail(err, __FILE__, __LINE__, "cudaFuncSetAttribute", e);
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
    (void)t, (void)ctx, (void)workspace;
    return poly_prepare_common(p, l, state, false, e);
}

static int poly_prepare_3x(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                           const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t, (void)ctx, (void)workspace;
    return poly_prepare_common(p, l, state, true, e);
}

/* y[n][co][...] = bias[co] over whole planes, float4 where a plane is a
 * whole number of them (cudaMalloc's base is 256-byte aligned). */
__global__ void fill_planes(float *__restrict__ y, const float *__restrict__ bias, int64_t planes,
                            int cout, int64_t out_plane)
{
    const bool vec = out_plane % 4 == 0;
    const int64_t n = vec ? out_plane / 4 : out_plane;
    for (int64_t pl = blockIdx.y; pl < planes; pl += gridDim.y) {
        float b = bias[pl % cout];
        float *row = y + pl * out_plane;
        for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
             i += (int64_t)gridDim.x * blockDim.x) {
            if (vec)
                ((float4 *)row)[i] = make_float4(b, b, b, b);
            else
                row[i] = b;
        }
    }
}

/* The whole output gets the bias (or zero) first where phases without taps
 * left the launch (see convt_phase_plan_make). Filling only their rows, one block per
 * row, measured slower than filling everything: kb77's rows are 65 floats,
 * and kb77 took 1.67 ms against 0.60 with the whole output filled. */
static int prefill_output(const convt_problem *p, const poly_args &a, const convt_tensors *t,
                          cudaStream_t s, convt_err *e)
{
    int64_t planes = p->n * p->cout;
    if (!t->b) {
        CUDA_TRY(cudaMemsetAsync(t->y, 0, sizeof(float) * (size_t)planes * (size_t)a.out_plane, s),
                 e);
        return 0;
    }
    int64_t per_plane = a.out_plane % 4 == 0 ? a.out_plane / 4 : a.out_plane;
    int64_t bx = (per_plane + 255) / 256;
    dim3 grid((unsigned)(bx < 4096 ? bx : 4096), (unsigned)(planes < 65535 ? planes : 65535));
    fill_planes<<<grid, 256, 0, s>>>(t->y, t->b, planes, a.cout, a.out_plane);
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
    int64_t total = p->groups * a.ktaps * a.cin_g * a.co_pad;
    int64_t blocks = (total + 255) / 256;
    pack_weights<<<(unsigned)(blocks < 65535 ? blocks : 65535), 256, 0, s>>>(
        t->w, wp, a.cin_g, a.cout_g, a.co_pad, a.ktaps, total, !st->split3);
    CUDA_TRY_LAUNCH(e);
    if (st->prefill && prefill_output(p, a, t, s, e))
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
// polyphase_wgmma_tf32: host side

extern "C" const convt_variant convt_variant_polyphase_wgmma_tf32;

/* The launch, decoded by name. */
struct wg_knobs {
    int64_t bn, stages;
};

static wg_knobs wg_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_polyphase_wgmma_tf32;
    return {convt_launch_get(v, l, "bn"), convt_launch_get(v, l, "stages")};
}

static size_t wg_smem_bytes(int bn, int stages) { return (size_t)stages * (WG_BM + bn) * WG_BK * 4; }

static size_t wg_workspace(const convt_problem *p, const convt_launch *l)
{
    int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    return sizeof(float) * (size_t)p->groups * (size_t)convt_taps(p) *
           (size_t)round_up(cout_g, wg_knobs_of(l).bn) * (size_t)round_up(cin_g, 4);
}

static bool wg_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                        char *why, size_t why_len)
{
    const wg_knobs k = wg_knobs_of(l);
    const int64_t stages = k.stages;
    if (k.bn != 64 && k.bn != 128) {
        snprintf(why, why_len, "bn = %lld must be 64 or 128 (the compiled tile widths)",
                 (long long)k.bn);
        return false;
    }
    if (ctx->dev->cc_major != 9) {
        snprintf(why, why_len, "wgmma is Hopper's (compute capability 9.x); this device is %d.%d",
                 ctx->dev->cc_major, ctx->dev->cc_minor);
        return false;
    }
    if (stages < 3 || stages > 4) {
        /* 3 at least: tile kt-1's buffer stays read while tile kt+1 loads */
        snprintf(why, why_len, "stages = %lld must be 3 or 4", (long long)stages);
        return false;
    }
    if (wg_smem_bytes((int)k.bn, (int)stages) > ctx->dev->smem_per_block_optin) {
        snprintf(why, why_len, "needs %.1f KiB of shared memory, the device allows %.1f KiB",
                 wg_smem_bytes((int)k.bn, (int)stages) / 1024.0,
                 ctx->dev->smem_per_block_optin / 1024.0);
        return false;
    }
    return poly_sizes_fit(p, WG_BM, why, why_len);
}

static int wg_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                      const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t, (void)ctx, (void)workspace;
    convt_phase_plan pl;
    char why[160];
    if (convt_phase_plan_make(p, WG_BM, &pl, why, sizeof why))
        return convt_fail(e, "%s", why);
    poly_state *st = (poly_state *)calloc(1, sizeof *st);
    if (!st) {
        convt_phase_plan_free(&pl);
        return convt_fail(e, "out of host memory");
    }
    const wg_knobs k = wg_knobs_of(l);
    const int bn = (int)k.bn;
    poly_args &a = st->args;
    a.nphases = pl.nphases;
    a.cin = (int)p->cin;
    a.cout = (int)p->cout;
    a.cin_g = (int)(p->cin / p->groups);
    a.cout_g = (int)(p->cout / p->groups);
    a.co_pad = (int)round_up(a.cout_g, bn);
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
    a.stages = (int)k.stages;
    st->prefill = pl.prefill;
    st->kernel = bn == 64 ? polyphase_wgmma_kernel<64> : polyphase_wgmma_kernel<128>;
    st->grid = dim3((unsigned)pl.m_tiles * pl.nphases, (unsigned)((a.cout_g + bn - 1) / bn),
                    (unsigned)p->groups);
    st->threads = WG_THREADS;
    st->smem = wg_smem_bytes(bn, a.stages);
    int rc = upload_plan(st, &pl, e);
    convt_phase_plan_free(&pl);
    a.phases = st->d_phases;
    a.taps = st->d_taps;
    if (!rc) {
        cudaError_t err = cudaFuncSetAttribute((const void *)st->kernel,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)st->smem);
        if (err != cudaSuccess)
            rc = convt_cuda_fail(err, __FILE__, __LINE__, "cudaFuncSetAttribute", e);
    }
    if (rc) {
        poly_release(st);
        return -1;
    }
    *state = st;
    return 0;
}

/* Per launch: the K-major repack (timed, as the weights are data), the
 * prefill where phases without taps exist, then the GEMMs. */
static int wg_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                     void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)l;
    const poly_state *st = (const poly_state *)state;
    const poly_args &a = st->args;
    cudaStream_t s = (cudaStream_t)ctx->stream;
    float *wk = (float *)workspace;
    int64_t ci_pad = round_up(a.cin_g, 4);
    int64_t total = p->groups * a.ktaps * a.co_pad * ci_pad;
    int64_t blocks = (total + 255) / 256;
    pack_weights_kmajor<<<(unsigned)(blocks < 65535 ? blocks : 65535), 256, 0, s>>>(
        t->w, wk, a.cin_g, a.cout_g, ci_pad, a.co_pad, a.ktaps, total);
    CUDA_TRY_LAUNCH(e);
    if (st->prefill && prefill_output(p, a, t, s, e))
        return -1;
    if (st->grid.x == 0)
        return 0;
    st->kernel<<<st->grid, st->threads, st->smem, s>>>(a, t->x, wk, t->b, t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

extern "C" const convt_variant convt_variant_polyphase_wgmma_tf32 = {
    .name = "polyphase_wgmma_tf32",
    .summary = "stride phases as implicit GEMMs on Hopper's warpgroup MMA (wgmma TF32, 128 x 128 or 64 tiles of two warpgroups, operands K-major in shared memory by cp.async); sm_90a builds",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 2,
    .knobs = {{.name = "bn",
               .help = "output channels per block: 128 (m64n128k8), or 64 (m64n64k8) for few per group",
               .n_defaults = 2,
               .defaults = {128, 64}},
              {.name = "stages",
               .help = "cp.async pipeline depth (3 or 4 shared-memory buffers of 24 or 32 KiB)",
               .n_defaults = 2,
               .defaults = {3, 4}}},
    .supports = wg_supports,
    .workspace_size = wg_workspace,
    .prepare = wg_prepare,
    .launch = wg_launch,
    .release = poly_release,
    .describe = NULL,
};
#endif /* CONVT_HAVE_WGMMA */
