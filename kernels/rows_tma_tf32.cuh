/* rows_tma_tf32's device code (sm_90a): stride-1 layers (a convolution
 * in disguise) as a direct convolution on Hopper's warpgroup MMA, each
 * input row loaded by the TMA engine straight from the NCHW tensor. The
 * host side is in kernels/cuda_rows_tma_tf32.cu.
 *
 * Why: at stride 1 the wgmma kernels' producer gathered the input 4 bytes
 * a copy (each staged row transposed to K-major, as TF32 wgmma reads
 * shared-memory operands), once for every tap row: on kb71 Nsight Compute
 * put L2 at 70% and L1 at 70% while the tensor pipe idled (results/notes.md,
 * session 29). A stride-1 tap reads the input at a constant offset from
 * its output, so a tile of one output row reads, per outer tap (kz, ky)
 * and chunk of bk input channels, one box of the input: bk channels x boxw
 * consecutive positions of input row (z + pad0 - kz dil0, y + pad1 - ky
 * dil1), which the TMA engine copies in one instruction, its borders (the
 * padding, a row or plane outside the input, channels past cin) filled
 * with zeros by the hardware. The box lands positions-major ([channel]
 * [position], boxw floats a channel), which wgmma cannot take from shared
 * memory for TF32, so the consumers load A (64 positions x 8 channels) into
 * registers (wgmma's register-A form) with conflict-free ld.shared (boxw is
 * 8 or 24 mod 32: a warp's 4 channels x 8 positions hit 32 banks).
 *
 * The row's kw taps share those registers as column sets
 * (polyphase_wgmma_colsum.cuh's idea): with the window starting (kw - 1)
 * dil2 before the tile's first output, Z_c = A x W(tap kw - 1 - c) and
 * output q = sum over c of Z_c[q + c dil2]. One A load feeds kw wgmma of
 * N = the block's output channels; the epilogue sums the sets at their
 * shifts through shared memory and stores whole rows of each channel. A
 * warpgroup's 64 MB positions yield col_out = 64 MB - (kw - 1) dil2
 * outputs, rounded down to 4; the box starts up to 3 positions before the
 * window, at a multiple of 4.
 *
 * A block: a producer warpgroup (one thread issues each stage's copies: the
 * input box, and, unless the block's weights are resident, the stage's
 * weights, all kw taps, as one bulk copy of an image repacked beforehand
 * into the stage's very bytes) and two consumer warpgroups that take the
 * block's tiles in turn (ping-pong): one's epilogue runs while the other
 * multiplies, and the ring of stages serves both in the producer's order.
 * Blocks are persistent. With both warpgroups on one tile, side by side
 * along the row (call 3 of session 30), kb57's tensor pipe idled through
 * every tile's epilogue and pipeline fill: 4.27 ms at 4 stages, 7.2 at 2. */
#ifndef CONVT_KERNELS_ROWS_TMA_TF32_CUH
#define CONVT_KERNELS_ROWS_TMA_TF32_CUH

#include <cuda.h>
#include <stdint.h>

#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
enum {
    RT_MAX_BOXW = 256,   /* TMA's largest box extent */
    RT_MAX_NC = 64,      /* output channels a block: wgmma's N for one set */
    RT_MAX_STAGES = 8,
    RT_BARRIER_BYTES = 256, /* full and empty barriers of up to 8 stages, and w_ready */
};

/* The epilogue's rows (one output channel each): 4 past a multiple of 16
 * floats, so that a warp's stores of its fragments (2 x lane % 4 channels
 * apart, lane / 4 positions) hit 32 different banks. */
__host__ __device__ constexpr int rt_epilogue_pitch(int mb) { return 64 * mb + 4; }

/* Whether the sets' accumulators and the A fragments' two register sets
 * fit (wg_colsum_fits), and, with 7 sets over 128 positions, the 7 x bk / 8
 * weight descriptors too: at bk 32 that kernel kept 49 local loads and
 * stores (tools/wgmma-sass.sh, session 30). */
__host__ __device__ constexpr bool rt_fits(int mb, int bk, int nc, int kw)
{
    return wg_colsum_fits(64 * mb, bk, nc, kw) && (kw < 7 || mb == 1 || bk <= 16);
}

struct rt_args {
    int in[3], out[3], pad[3], dil[3];
    int kd, kh;        /* taps along dimensions 0 and 1 (along 2: the kernel's KW) */
    int cout, cin_g, cout_g;
    int cobs;          /* channel blocks of NC a group */
    int blocks;        /* groups x cobs */
    int chunks;        /* chunks of BK input channels a group */
    int segs;          /* tiles along an output row: col_out outputs each */
    int col_out;       /* outputs a consumer warpgroup stores (a multiple of 4) */
    int lead;          /* positions of the box before the first window (its start aligned) */
    int tiles;         /* rows x segs x blocks */
    int boxw;          /* the input box's positions: its rows' pitch in shared memory */
    int lbo;           /* the weights' K core matrices' distance (bytes) */
    int in_bytes, w_bytes, stage_bytes, stages;
    int resident;      /* the block's weights loaded once into shared memory, not per stage */
    int stages_at;     /* the stages, bytes from the dynamic shared memory's start (after the
                        * resident weights, if any) */
    int ys_at;         /* the epilogue's staging */
};

/* The input index along dimension d that output o reads at tap k (stride
 * 1), or -1 outside the input (the producer then copies nothing for that
 * tap, and the consumers skip it: both walk the same taps). */
__device__ __forceinline__ int rt_input_at(const rt_args &a, int d, int o, int k)
{
    const int i = o + a.pad[d] - k * a.dil[d];
    return i >= 0 && i < a.in[d] ? i : -1;
}

/* Tile t: channel block fastest (the blocks of one stretch read the same
 * input, close in time, from L2), then the stretch along the row, then the
 * row (image, o0, o1). */
struct rt_tile {
    int n, o0, o1, x0, g, cob;
};

__device__ __forceinline__ rt_tile rt_tile_of(const rt_args &a, int t)
{
    rt_tile tl;
    const int blk = t % a.blocks, r = t / a.blocks;
    const int seg = r % a.segs, row = r / a.segs;
    tl.g = blk / a.cobs;
    tl.cob = blk - tl.g * a.cobs;
    tl.x0 = seg * a.col_out;
    tl.o1 = row % a.out[1];
    const int r2 = row / a.out[1];
    tl.o0 = r2 % a.out[0];
    tl.n = r2 / a.out[0];
    return tl;
}

/* A tile's stages: its outer taps whose input rows exist, times the chunks
 * (the producer's and its consumer's walks skip the same taps). */
__device__ __forceinline__ int rt_tile_stages(const rt_args &a, const rt_tile &tl)
{
    int rows = 0;
    for (int kz = 0; kz < a.kd; kz++)
        if (rt_input_at(a, 0, tl.o0, kz) >= 0)
            for (int ky = 0; ky < a.kh; ky++)
                rows += rt_input_at(a, 1, tl.o1, ky) >= 0;
    return rows * a.chunks;
}

/* Where stage (kz, ky, chunk) of channel block blk sits in the weight image. */
__host__ __device__ __forceinline__ int64_t rt_weight_slot(int blk, int kz, int ky, int chunk,
                                                           int kd, int kh, int chunks)
{
    return (((int64_t)blk * kd + kz) * kh + ky) * chunks + chunk;
}

__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                     (unsigned)__cvta_generic_to_shared(bar)), "r"(bytes) : "memory");
}

/* The TMA engine's copy of one box of the 5-D input map (x, o1, o0,
 * channel, image: innermost first) to dst, counted on bar as it lands;
 * coordinates outside the tensor read zeros. */
__device__ __forceinline__ void tma_load_box5(void *dst, const CUtensorMap *map, int x, int i1,
                                              int i0, int c, int n, uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];" ::"r"(
                     (unsigned)__cvta_generic_to_shared(dst)),
                 "l"((uint64_t)map), "r"(x), "r"(i1), "r"(i0), "r"(c), "r"(n),
                 "r"((unsigned)__cvta_generic_to_shared(bar))
                 : "memory");
}

/* One stage of a consumer warpgroup: its A fragments (win: the thread's
 * first element, channel lane % 4 and position 16 (warp % 4) + lane / 4 of
 * its window) into a, then set c's wgmma (tap KW - 1 - c's weights, at
 * w + (KW - 1 - c) tap_bytes) on them, committed as one group. */
template <int MB, int KS, int NA, int KW>
__device__ __forceinline__ void rt_stage(uint32_t (&a)[MB][KS][4], float (&acc)[KW][MB][NA],
                                         const float *win, const unsigned char *w, int boxw,
                                         int lbo)
{
#pragma unroll
    for (int b = 0; b < MB; b++)
#pragma unroll
        for (int kk = 0; kk < KS; kk++) {
            const float *p = win + 64 * b + 8 * kk * boxw;
            a[b][kk][0] = __float_as_uint(p[0]);
            a[b][kk][1] = __float_as_uint(p[8]);
            a[b][kk][2] = __float_as_uint(p[4 * boxw]);
            a[b][kk][3] = __float_as_uint(p[4 * boxw + 8]);
        }
    wgmma_fence();
    const int tap_bytes = KS * 2 * lbo;
#pragma unroll
    for (int c = 0; c < KW; c++) {
        const unsigned char *w_t = w + (KW - 1 - c) * tap_bytes;
#pragma unroll
        for (int kk = 0; kk < KS; kk++) {
            const uint64_t wd = wg_descriptor(w_t + kk * 2 * lbo, lbo, 128);
#pragma unroll
            for (int b = 0; b < MB; b++)
                wgmma_tf32_rs(acc[c][b], a[b][kk], wd);
        }
    }
    wgmma_commit();
}

/* The consumers' epilogue: the sets summed at their shifts into ys
 * ([channel][position], rt_epilogue_pitch(MB) floats a channel), then the
 * first col_out positions of each channel stored with the bias, 32
 * consecutive outputs a warp instruction. */
template <int MB, int NC, int KW>
__device__ __forceinline__ void rt_epilogue(const rt_args &a, const rt_tile &tl,
                                            float (&acc)[KW][MB][NC / 2], float *ys, int cw,
                                            int ctid, const float *__restrict__ bias,
                                            float *__restrict__ y)
{
    constexpr int P = rt_epilogue_pitch(MB);
    const int lane = ctid % 32, warp4 = (ctid / 32) % 4;
    /* register 4j + 2h + e of a thread: position 64b + 16 (warp % 4) +
     * lane / 4 + 8h, channel 8j + 2 (lane % 4) + e (wgmma's accumulators) */
#pragma unroll
    for (int c = 0; c < KW; c++) {
        const int shift = c * a.dil[2];
#pragma unroll
        for (int b = 0; b < MB; b++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int m = 64 * b + 16 * warp4 + lane / 4 + 8 * h - shift;
                if (m >= 0)
#pragma unroll
                    for (int j = 0; j < NC / 8; j++)
#pragma unroll
                        for (int e = 0; e < 2; e++) {
                            float *p = &ys[(8 * j + 2 * (lane % 4) + e) * P + m];
                            *p = (c == 0 ? 0.0f : *p) + acc[c][b][4 * j + 2 * h + e];
                        }
            }
        /* set c's sums in before set c + 1 adds to the same positions (or,
         * after the last, before they are stored) */
        wg_group_sync(cw);
    }
    const int xs = tl.x0;
    const int n_here = min(a.col_out, a.out[2] - xs);
    for (int co = warp4; co < NC; co += 4) {
        const int col = tl.cob * NC + co;
        if (col >= a.cout_g)
            break;
        const int ch = tl.g * a.cout_g + col;
        const float bv = bias ? bias[ch] : 0.0f;
        float *yr = y + (((int64_t)tl.n * a.cout + ch) * a.out[0] + tl.o0) * a.out[1] * (int64_t)a.out[2] +
                    (int64_t)tl.o1 * a.out[2] + xs;
        for (int q = lane; q < n_here; q += 32)
            yr[q] = ys[co * P + q] + bv;
    }
    /* the stores' reads of ys done before the next tile's sums overwrite it */
    wg_group_sync(cw);
}

template <int MB, int BK, int NC, int KW>
__global__ void __launch_bounds__(WG_THREADS, 1)
    rows_tma_kernel(const __grid_constant__ CUtensorMap in_map, rt_args a,
                    const unsigned char *__restrict__ wimg, const float *__restrict__ bias,
                    float *__restrict__ y)
{
    constexpr int KS = BK / 8, NA = NC / 2;
    static_assert(NC % 8 == 0 && NC <= RT_MAX_NC && BK % 8 == 0, "wgmma's N and K steps");
    static_assert(rt_fits(MB, BK, NC, KW), "the column sets' accumulators and A fragments");
    extern __shared__ __align__(128) unsigned char rt_smem[];
    uint64_t *full = (uint64_t *)rt_smem, *empty = full + RT_MAX_STAGES;
    uint64_t *w_ready = empty + RT_MAX_STAGES; /* the resident weights landed */
    /* Resident (a.resident): the block's channel block is the same for all
     * its tiles (the grid a multiple of a.blocks, tile t's block t %
     * a.blocks), so its weights, every outer tap and chunk in the weight
     * image's order, are copied once, and the stages hold the input alone. */
    const unsigned char *w_res = rt_smem + RT_BARRIER_BYTES;
    unsigned char *stages0 = rt_smem + a.stages_at;
    const int tid = threadIdx.x;
    if (tid == 0) {
        for (int s = 0; s < a.stages; s++) {
            mbar_init(&full[s], 1);  /* the producer's arrive.expect_tx; the copies' bytes */
            mbar_init(&empty[s], 1); /* the consumer warpgroup whose tile it is */
        }
        mbar_init(w_ready, 1);
        fence_proxy_async();
    }
    __syncthreads();

    if (tid < WG_PRODUCERS) {
        wg_regs_dec<WG_PRODUCER_REGS>();
        if (tid != 0)
            return;
        if (a.resident && blockIdx.x < a.tiles) {
            const int blk = blockIdx.x % a.blocks, slots = a.kd * a.kh * a.chunks;
            mbar_arrive_expect_tx(w_ready, (unsigned)(slots * a.w_bytes));
            bulk_copy_to_shared((void *)w_res, wimg + rt_weight_slot(blk, 0, 0, 0, a.kd, a.kh, a.chunks) * a.w_bytes,
                                (unsigned)(slots * a.w_bytes), w_ready);
        }
        const unsigned stage_tx = (unsigned)(a.in_bytes + (a.resident ? 0 : a.w_bytes));
        wg_ring ring = {0, 0u, false};
        for (int t = blockIdx.x; t < a.tiles; t += gridDim.x) {
            const rt_tile tl = rt_tile_of(a, t);
            const int blk = tl.g * a.cobs + tl.cob;
            const int xin = tl.x0 + a.pad[2] - (KW - 1) * a.dil[2] - a.lead;
            for (int kz = 0; kz < a.kd; kz++) {
                const int i0 = rt_input_at(a, 0, tl.o0, kz);
                if (i0 < 0)
                    continue;
                for (int ky = 0; ky < a.kh; ky++) {
                    const int i1 = rt_input_at(a, 1, tl.o1, ky);
                    if (i1 < 0)
                        continue;
                    for (int ch = 0; ch < a.chunks; ch++) {
                        if (ring.wrapped)
                            mbar_wait(&empty[ring.buf], ring.phase ^ 1u);
                        unsigned char *st = stages0 + (size_t)ring.buf * a.stage_bytes;
                        mbar_arrive_expect_tx(&full[ring.buf], stage_tx);
                        tma_load_box5(st, &in_map, xin, i1, i0, tl.g * a.cin_g + ch * BK, tl.n,
                                      &full[ring.buf]);
                        if (!a.resident) {
                            const int64_t slot = rt_weight_slot(blk, kz, ky, ch, a.kd, a.kh, a.chunks);
                            bulk_copy_to_shared(st + a.in_bytes, wimg + slot * a.w_bytes,
                                                (unsigned)a.w_bytes, &full[ring.buf]);
                        }
                        wg_ring_step(ring, a.stages);
                    }
                }
            }
        }
        return;
    }

    wg_regs_inc<WG_CONSUMER_REGS>();
    const int ctid = tid - WG_PRODUCERS, cw = ctid / 128, lane = ctid % 32, warp4 = (ctid / 32) % 4;
    float *ys = (float *)(rt_smem + a.ys_at) + cw * NC * rt_epilogue_pitch(MB);
    /* the thread's first A element in a stage's box: channel lane % 4,
     * position 16 (warp % 4) + lane / 4 of this warpgroup's window */
    const int a_at = (lane % 4) * a.boxw + a.lead + 16 * warp4 + lane / 4;
    /* two register sets for the A fragments, taken in turn, the second
     * behind an offset the compiler cannot prove zero: as in
     * wg_colsum_tile, whose comment tells what went wrong without it */
    uint32_t a0[MB][KS][4], a1[MB][KS][4];
    int zero;
    asm volatile("mov.b32 %0, 0;" : "=r"(zero));
    if (a.resident)
        mbar_wait(w_ready, 0);
    wg_ring ring = {0, 0u, false};
    for (int t = blockIdx.x, i = 0; t < a.tiles; t += gridDim.x, i++) {
        const rt_tile tl = rt_tile_of(a, t);
        if ((i & 1) != cw) {
            /* the other warpgroup's tile: its stages passed over */
            wg_ring_skip(ring, rt_tile_stages(a, tl), a.stages);
            continue;
        }
        /* tile i's stages waited for only once the other warpgroup has
         * seen every stage of tile i - 1 land (wg_turn_wait) */
        if (i > 0)
            wg_turn_wait(cw);
        float acc[KW][MB][NA];
#pragma unroll
        for (int c = 0; c < KW; c++)
#pragma unroll
            for (int b = 0; b < MB; b++)
#pragma unroll
                for (int i = 0; i < NA; i++)
                    acc[c][b][i] = 0.0f;
        bool odd = false;
        int prev_buf = -1;
        for (int kz = 0; kz < a.kd; kz++) {
            if (rt_input_at(a, 0, tl.o0, kz) < 0)
                continue;
            for (int ky = 0; ky < a.kh; ky++) {
                if (rt_input_at(a, 1, tl.o1, ky) < 0)
                    continue;
                for (int ch = 0; ch < a.chunks; ch++) {
                    const int buf = ring.buf;
                    /* the box is read by ld.shared and the weights by
                     * wgmma, both written by the TMA engine: the barrier's
                     * completion makes them visible to either */
                    mbar_wait(&full[buf], ring.phase);
                    const unsigned char *st = stages0 + (size_t)buf * a.stage_bytes;
                    const float *win = (const float *)st + a_at;
                    const unsigned char *w =
                        a.resident ? w_res + rt_weight_slot(0, kz, ky, ch, a.kd, a.kh, a.chunks) * a.w_bytes
                                   : st + a.in_bytes;
                    if (odd)
                        rt_stage<MB, KS, NA, KW>(a1, acc, win + zero, w, a.boxw, a.lbo);
                    else
                        rt_stage<MB, KS, NA, KW>(a0, acc, win, w, a.boxw, a.lbo);
                    odd = !odd;
                    /* the stage before done: its buffer is free, and so is
                     * the register set the next stage loads */
                    wgmma_wait_prev();
                    if (prev_buf >= 0 && ctid % 128 == 0)
                        mbar_arrive(&empty[prev_buf]);
                    prev_buf = buf;
                    wg_ring_step(ring, a.stages);
                }
            }
        }
        /* every stage of this tile has landed: the other warpgroup's turn */
        if (t + gridDim.x < a.tiles)
            wg_turn_pass(cw);
        wgmma_wait_all();
        if (prev_buf >= 0 && ctid % 128 == 0)
            mbar_arrive(&empty[prev_buf]);
        rt_epilogue<MB, NC, KW>(a, tl, acc, ys, cw, ctid, bias, y);
    }
}
#endif /* CONVT_HAVE_WGMMA */

#endif /* CONVT_KERNELS_ROWS_TMA_TF32_CUH */
