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
 * Every phase of every dimension's residue, every group and every tile of
 * output channels is one block row of one launch; a phase without taps
 * writes the bias (or zero) only.
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

#include "cuda_check.h"
#include "hostdevice.h"
#include "variant.h"

/* One phase: its residues, output positions (q from q_min, q_count of them)
 * and its taps (taps[tap_begin .. tap_begin + ntaps)). */
struct phase_desc {
    int64_t m_count;      /* images x q_count[0] x q_count[1] x q_count[2] */
    int m_tiles;          /* M tiles of BM rows */
    int ntaps, tap_begin;
    int ph[3], q_min[3], q_count[3];
};

/* A tap of a phase: its index into the weights' k0 x k1 x k2 and its offsets. */
struct phase_tap {
    int lin, off[3];
};

struct poly_args {
    const phase_desc *phases;
    const phase_tap *taps;
    int nphases;
    int64_t cin, cout, cin_g, cout_g, co_pad, ktaps;
    convt_shape3 s;
    int stages;
};

/* The compiled tile shapes: block tile BM x BN, warps WM x WN. */
struct tile_shape {
    int bm, bn, wm, wn;
};
static constexpr tile_shape tile_shapes[] = {
    {128, 64, 4, 2},  /* 0: 8 warps of 32 x 32 */
    {128, 128, 2, 4}, /* 1: 8 warps of 64 x 32 */
    {64, 64, 2, 2},   /* 2: 4 warps of 32 x 32 */
    {256, 16, 8, 1},  /* 3: 8 warps of 32 x 16, for few channels per group */
    {128, 32, 4, 2},  /* 4: 8 warps of 32 x 16, for 32 channels per group */
};
enum { N_TILE_SHAPES = sizeof tile_shapes / sizeof tile_shapes[0] };

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

template <int TILE, int BK, bool SPLIT3>
__global__ void __launch_bounds__(tile_shapes[TILE].wm *tile_shapes[TILE].wn * 32)
    polyphase_kernel(poly_args a, const float *__restrict__ x, const float *__restrict__ wp,
                     const float *__restrict__ bias, float *__restrict__ y)
{
    constexpr int BM = tile_shapes[TILE].bm, BN = tile_shapes[TILE].bn;
    constexpr int WM = tile_shapes[TILE].wm, WN = tile_shapes[TILE].wn;
    constexpr int THREADS = WM * WN * 32;
    constexpr int WTM = BM / WM, WTN = BN / WN, MI = WTM / 16, NI = WTN / 8;
    constexpr int AS = BM + A_PAD, BS = BN + B_PAD;
    constexpr int A_ROW_STEP = THREADS / BM, A_ROWS = BK / A_ROW_STEP;
    constexpr int B_VECS = BK * BN / 4;
    static_assert(THREADS % BM == 0 && BK % A_ROW_STEP == 0, "A tile mapping");
    static_assert(WTM % 16 == 0 && WTN % 8 == 0 && BK % 8 == 0, "mma tiling");
    static_assert(MI % 2 == 0, "a lane's A values of one k fill whole float4s");

    extern __shared__ float smem[];
    float *As = smem;                        /* [stages][BK][AS] */
    float *Bs = smem + (size_t)a.stages * BK * AS; /* [stages][BK][BS] */
    const convt_shape3 &s = a.s;

    /* The phases' M tiles are interleaved, phase fastest: blocks running
     * together write the same stretch of the output (each phase every
     * stride-th element), so its sectors are complete in L2 before they are
     * written back; phase-major order left partly written sectors to HBM. */
    const phase_desc ph = a.phases[blockIdx.x % a.nphases];
    const int m_tile = blockIdx.x / a.nphases;
    if (m_tile >= ph.m_tiles)
        return; /* this phase has fewer tiles than the longest */
    const int64_t m0 = (int64_t)m_tile * BM;
    const int64_t co0 = (int64_t)blockIdx.y * BN;
    const int64_t g = blockIdx.z;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int gid = lane >> 2, tig = lane & 3;
    const int wm0 = (warp / WN) * WTM, wn0 = (warp % WN) * WTN;

    /* This thread's A column: one output position of the phase. In shared
     * memory the columns of each warp's WTM rows are permuted so that the
     * 2*MI values a lane needs for one k (rows gid and gid+8 of each m16
     * tile) sit side by side: float4 loads instead of 2*MI scalar ones. */
    const int a_col = tid % BM, a_row0 = tid / BM;
    int a_phys;
    {
        int r = a_col % WTM;
        a_phys = a_col - r + (r % 8) * (2 * MI) + (r / 16) * 2 + (r % 16) / 8;
    }
    int64_t q[3];
    const float *xg = x;
    bool m_ok;
    {
        /* a phase with M tiles has every q_count >= 1 */
        int64_t m = m0 + a_col;
        m_ok = m < ph.m_count;
        int64_t r = m_ok ? m : 0;
        q[2] = r % ph.q_count[2] + ph.q_min[2];
        r /= ph.q_count[2];
        q[1] = r % ph.q_count[1] + ph.q_min[1];
        r /= ph.q_count[1];
        q[0] = r % ph.q_count[0] + ph.q_min[0];
        int64_t n = r / ph.q_count[0];
        xg = x + (n * a.cin + g * a.cin_g) * (s.in[0] * s.in[1] * s.in[2]);
    }
    const int64_t in_plane = s.in[0] * s.in[1] * s.in[2];
    const int chunks = (int)((a.cin_g + BK - 1) / BK);
    const int ktiles = ph.ntaps * chunks;

    /* Enqueues K tile kt into buffer `buf`. */
    auto load_tile = [&](int kt, int buf) {
        int t = kt / chunks;
        int64_t ci0 = (int64_t)(kt % chunks) * BK;
        const phase_tap tap = a.taps[ph.tap_begin + t];
        int64_t i0 = q[0] - tap.off[0], i1 = q[1] - tap.off[1], i2 = q[2] - tap.off[2];
        bool ok = m_ok && i0 >= 0 && i0 < s.in[0] && i1 >= 0 && i1 < s.in[1] && i2 >= 0 &&
                  i2 < s.in[2];
        const float *src = xg + (ci0 + a_row0) * in_plane + (i0 * s.in[1] + i1) * s.in[2] + i2;
        float *dst = As + ((size_t)buf * BK + a_row0) * AS + a_phys;
#pragma unroll
        for (int j = 0; j < A_ROWS; j++) {
            int64_t ci = ci0 + a_row0 + j * A_ROW_STEP;
            bool p = ok && ci < a.cin_g;
            cp_async4(dst + j * A_ROW_STEP * AS, p ? src + j * A_ROW_STEP * in_plane : x, p);
        }
        const float *wsrc = wp + ((g * a.ktaps + tap.lin) * a.cin_g + ci0) * a.co_pad + co0;
#pragma unroll
        for (int v = tid; v < B_VECS; v += THREADS) {
            int r = v / (BN / 4), c = (v % (BN / 4)) * 4;
            bool p = ci0 + r < a.cin_g && co0 + c < a.co_pad;
            cp_async16(Bs + ((size_t)buf * BK + r) * BS + c, p ? wsrc + r * a.co_pad + c : wp, p);
        }
    };

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[i][j][r] = 0.0f;

    const int stages = a.stages;
    for (int st = 0; st < stages - 1; st++) {
        if (st < ktiles)
            load_tile(st, st);
        cp_async_commit(); /* empty groups keep the count uniform */
    }
    for (int kt = 0; kt < ktiles; kt++) {
        cp_async_wait(stages - 2);
        __syncthreads(); /* tile kt is in; buffer (kt-1) % stages is free */
        int next = kt + stages - 1;
        if (next < ktiles)
            load_tile(next, next % stages);
        cp_async_commit();
        const float *At = As + (size_t)(kt % stages) * BK * AS;
        const float *Bt = Bs + (size_t)(kt % stages) * BK * BS;
        /* 3xTF32 sums each K tile apart and adds it to acc with FADD: the
         * tensor core's own accumulation does not round to nearest, and over
         * thousands of K steps its bias exceeded float32 accuracy (normwise
         * 2e-5 on kb58 on the H100, against a bound of 1e-5). */
        float part[SPLIT3 ? MI : 1][SPLIT3 ? NI : 1][4];
        if (SPLIT3)
#pragma unroll
            for (int i = 0; i < (SPLIT3 ? MI : 1); i++)
#pragma unroll
                for (int j = 0; j < (SPLIT3 ? NI : 1); j++)
#pragma unroll
                    for (int r = 0; r < 4; r++)
                        part[i][j][r] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            unsigned ab[MI][4], bb[NI][2];
            unsigned as[SPLIT3 ? MI : 1][4], bsm[SPLIT3 ? NI : 1][2];
            float av[2][2 * MI]; /* [k, k+4][i*2 + h]: rows gid + 8h of m16 tile i */
            {
                const float *p = At + (kk + tig) * AS + wm0 + gid * (2 * MI);
#pragma unroll
                for (int q = 0; q < 2 * MI; q += 4) {
                    *(float4 *)&av[0][q] = *(const float4 *)(p + q);
                    *(float4 *)&av[1][q] = *(const float4 *)(p + 4 * AS + q);
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
        if (SPLIT3)
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int j = 0; j < NI; j++)
#pragma unroll
                    for (int r = 0; r < 4; r++)
                        acc[i][j][r] += part[SPLIT3 ? i : 0][SPLIT3 ? j : 0][r];
    }
    cp_async_wait(0);

    /* Epilogue: row m -> (n, q0, q1, q2) -> output o = q*stride + ph - pad. */
    const int64_t out_plane = s.out[0] * s.out[1] * s.out[2];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int64_t m = m0 + wm0 + i * 16 + gid + 8 * h;
            if (m >= ph.m_count)
                continue;
            int64_t r = m;
            int64_t o2 = (r % ph.q_count[2] + ph.q_min[2]) * s.stride[2] + ph.ph[2] - s.pad[2];
            r /= ph.q_count[2];
            int64_t o1 = (r % ph.q_count[1] + ph.q_min[1]) * s.stride[1] + ph.ph[1] - s.pad[1];
            r /= ph.q_count[1];
            int64_t o0 = (r % ph.q_count[0] + ph.q_min[0]) * s.stride[0] + ph.ph[0] - s.pad[0];
            int64_t n = r / ph.q_count[0];
            float *yrow = y + (n * a.cout + g * a.cout_g) * out_plane +
                          (o0 * s.out[1] + o1) * s.out[2] + o2;
#pragma unroll
            for (int j = 0; j < NI; j++)
#pragma unroll
                for (int c = 0; c < 2; c++) {
                    int64_t co = co0 + wn0 + j * 8 + tig * 2 + c;
                    if (co < a.cout_g)
                        yrow[co * out_plane] =
                            acc[i][j][2 * h + c] + (bias ? bias[g * a.cout_g + co] : 0.0f);
                }
        }
}

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

/* floor((a) / b) and ceil(a / b) for b > 0 and any sign of a. */
static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
static int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

/* The phases and their taps, in launch order; the M tiles of BM rows. */
typedef struct phase_plan {
    int nphases, ntaps_total, m_tiles; /* m_tiles: of the longest phase */
    phase_desc *phases;
    phase_tap *taps;
} phase_plan;

static void plan_free(phase_plan *pl)
{
    free(pl->phases);
    free(pl->taps);
    memset(pl, 0, sizeof *pl);
}

/* 0, or -1 when the plan does not fit an int (reason in why). */
static int plan_phases(const convt_problem *p, int bm, phase_plan *pl, char *why, size_t why_len)
{
    convt_shape3 s = convt_problem_as_3d(p);
    memset(pl, 0, sizeof *pl);
    int64_t nph = s.stride[0] * s.stride[1] * s.stride[2];
    if (nph > (1 << 20)) {
        snprintf(why, why_len, "%lld stride phases are more than this variant plans for",
                 (long long)nph);
        return -1;
    }
    pl->phases = (phase_desc *)calloc((size_t)nph, sizeof *pl->phases);
    pl->taps = (phase_tap *)calloc((size_t)(s.k[0] * s.k[1] * s.k[2]), sizeof *pl->taps);
    if (!pl->phases || !pl->taps) {
        plan_free(pl);
        snprintf(why, why_len, "out of host memory for the phase plan");
        return -1;
    }
    int64_t tiles = 0;
    for (int64_t idx = 0; idx < nph; idx++) {
        phase_desc *d = &pl->phases[idx];
        int64_t rest = idx;
        int64_t m = p->n;
        for (int dim = 2; dim >= 0; dim--) {
            int64_t st = s.stride[dim];
            d->ph[dim] = (int)(rest % st);
            rest /= st;
            /* o = q*st + ph - pad in [0, out) */
            int64_t qmin = ceil_div(s.pad[dim] - d->ph[dim], st);
            int64_t qmax = floor_div(s.out[dim] - 1 + s.pad[dim] - d->ph[dim], st);
            int64_t cnt = qmax >= qmin ? qmax - qmin + 1 : 0;
            d->q_min[dim] = (int)qmin;
            d->q_count[dim] = (int)cnt;
            m *= cnt;
        }
        d->m_count = m;
        d->m_tiles = (int)((m + bm - 1) / bm);
        if (d->m_tiles > tiles)
            tiles = d->m_tiles;
        if (tiles * nph > 0x7fffffff) {
            plan_free(pl);
            snprintf(why, why_len, "more than 2^31-1 M tiles");
            return -1;
        }
        d->tap_begin = pl->ntaps_total;
        for (int64_t k0 = 0; k0 < s.k[0]; k0++)
            for (int64_t k1 = 0; k1 < s.k[1]; k1++)
                for (int64_t k2 = 0; k2 < s.k[2]; k2++) {
                    int64_t k[3] = {k0, k1, k2};
                    bool reaches = true;
                    phase_tap t;
                    for (int dim = 0; dim < 3; dim++) {
                        int64_t kd = k[dim] * s.dil[dim] - d->ph[dim];
                        reaches &= kd % s.stride[dim] == 0;
                        t.off[dim] = (int)(kd / s.stride[dim]); /* kd >= 0 when it reaches */
                    }
                    if (!reaches)
                        continue;
                    t.lin = (int)((k0 * s.k[1] + k1) * s.k[2] + k2);
                    pl->taps[pl->ntaps_total++] = t;
                    d->ntaps++;
                }
    }
    pl->nphases = (int)nph;
    pl->m_tiles = (int)tiles;
    return 0;
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

static bool poly_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                          char *why, size_t why_len)
{
    int64_t tile = l->value[0], bk = l->value[1], stages = l->value[2];
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
    /* every M tile count, q and offset must fit an int */
    for (int d = 0; d < 3; d++)
        if (s.out[d] > 0x3fffffff || s.in[d] > 0x3fffffff) {
            snprintf(why, why_len, "a spatial size over 2^30");
            return false;
        }
    int64_t m_rows = p->n * s.out[0] * s.out[1] * s.out[2];
    if ((m_rows / sp / ts.bm + 2) * sp > 0x7fffffff) {
        snprintf(why, why_len, "more than 2^31-1 M tiles");
        return false;
    }
    return true;
}

template <int TILE, bool SPLIT3>
static poly_kernel_fn kernel_for_bk(int bk)
{
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
    default: return kernel_for_bk<4, SPLIT3>(bk);
    }
}
static_assert(N_TILE_SHAPES == 5, "kernel_for lists every tile shape");

/* The plan goes to the device once per (problem, launch), like a cuDNN plan:
 * it depends on the shape only, never on the data. */
static int upload_plan(poly_state *st, const phase_plan *pl, convt_err *e)
{
    size_t pb = sizeof(phase_desc) * (size_t)pl->nphases;
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
    const int tile = (int)l->value[0], bk = (int)l->value[1];
    const tile_shape ts = tile_shapes[tile];
    phase_plan pl;
    char why[160];
    if (plan_phases(p, ts.bm, &pl, why, sizeof why))
        return convt_fail(e, "%s", why);
    poly_state *st = (poly_state *)calloc(1, sizeof *st);
    if (!st) {
        plan_free(&pl);
        return convt_fail(e, "out of host memory");
    }
    poly_args &a = st->args;
    a.nphases = pl.nphases;
    a.cin = p->cin;
    a.cout = p->cout;
    a.cin_g = p->cin / p->groups;
    a.cout_g = p->cout / p->groups;
    a.co_pad = round_up(a.cout_g, 4);
    a.ktaps = convt_taps(p);
    a.s = convt_problem_as_3d(p);
    a.stages = (int)l->value[2];
    st->split3 = split3;
    st->kernel = split3 ? kernel_for<true>(tile, bk) : kernel_for<false>(tile, bk);
    st->grid = dim3((unsigned)pl.m_tiles * pl.nphases, (unsigned)((a.cout_g + ts.bn - 1) / ts.bn),
                    (unsigned)p->groups);
    st->threads = ts.wm * ts.wn * 32;
    st->smem = smem_bytes(ts.bm, ts.bn, bk, a.stages);
    int rc = upload_plan(st, &pl, e);
    plan_free(&pl);
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

/* Per launch: repack the weights (they are data), then the GEMMs. */
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
    if (st->grid.x == 0)
        return 0; /* an empty output */
    st->kernel<<<st->grid, st->threads, st->smem, s>>>(a, t->x, wp, t->b, t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

#define POLY_KNOBS                                                                              \
    .n_knobs = 3,                                                                               \
    .knobs = {{.name = "tile",                                                                  \
               .help = "block tile: 0 = 128x64 (8 warps), 1 = 128x128 (8 warps), 2 = 64x64 (4 "  \
                       "warps), 3 = 256x16 (8 warps; few channels per group), 4 = 128x32 (8 warps)", \
               .n_defaults = 4,                                                                 \
               .defaults = {0, 1, 3, 4}},                                                       \
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
    POLY_KNOBS,
    .supports = poly_supports,
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
    POLY_KNOBS,
    .supports = poly_supports,
    .workspace_size = poly_workspace,
    .prepare = poly_prepare_3x,
    .launch = poly_launch,
    .release = poly_release,
    .describe = NULL,
};
