/* polyphase_wgmma_fold_inplace_tf32's device code (INPLACE in
 * polyphase_wgmma_kernel, kernels/polyphase_wgmma.cuh): the folded kernel
 * with the weights read in place, no weight image. Included only by the
 * files that instantiate it (kernels/polyphase_wgmma_fold_inplace*.cu),
 * after polyphase_wgmma.cuh, which declares what is defined here.
 *
 * Why: on the folded vocoder layers the repack (pack_weights_stages) is a
 * third of a launch (bigvgan_up1: about 40 of 124 us; k 12 stride 6: 11
 * of 60, Nsight Compute), and it already moves its bytes near the copy
 * rate (session 33, pack_weights_spans: 0-5% slower). Left out, the
 * launch reads w once, from where it is.
 *
 * A stage's weights are one box of w (src/lib/fold_box.h: a tap row's e0
 * taps x ncb original channels x bk input channels), copied by the TMA
 * engine through a 4-D tensor map {ktaps, cout_g, cin_g, groups} (its
 * address in global memory, passed as the kernel's wk); channels and
 * input channels past w's read as zeros. The box lands channels-major
 * ([ci][c][k]), not in wgmma's K-major core matrices, so each consumer
 * warpgroup writes a tap's weights of its rows from the box into an A
 * tile of its own, K-major, and issues the tap's wgmma on it: two tiles a
 * warpgroup, taken in turn, so that a tap's tile is written while the
 * group before runs (wg_inplace_stage says why not registers). The
 * weights are rounded to TF32 as they are written (tf32_round: to
 * nearest, as the repack rounded them). */
#ifndef CONVT_KERNELS_POLYPHASE_WGMMA_INPLACE_CUH
#define CONVT_KERNELS_POLYPHASE_WGMMA_INPLACE_CUH

#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
/* The box's bytes (bk x pitch floats), rounded up to 128 so that every
 * stage's input tile and box stay 128-byte aligned, as TMA's destination
 * must be; the host sizes shared memory with the same sum (wg_size). */
template <int W_ROWS, int BK>
__device__ __forceinline__ int wg_inplace_stage_bytes(const convt_fold &f)
{
    const convt_fold_box b = convt_fold_box_of(&f, W_ROWS);
    return (BK * b.pitch * 4 + 127) / 128 * 128;
}

/* The TMA engine's copy of one box of the 4-D map (tap, channel, input
 * channel, group: innermost first) to dst, counted on bar as it lands. */
__device__ __forceinline__ void tma_load_box4(void *dst, const void *map, int x, int c, int ci, int g,
                                              uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"((uint64_t)map), "r"(x), "r"(c), "r"(ci), "r"(g),
                 "r"((unsigned)__cvta_generic_to_shared(bar))
                 : "memory");
}

/* The producer's weights of stage (row r, chunk from ci0) of tile tl: the
 * box from the row's x0, the block's first original channel, ci0 and the
 * group, announced on bar (the box's bytes, zeros included). */
template <int W_ROWS, int BK>
__device__ __forceinline__ void wg_inplace_load(const wg_args &wa, const void *map, unsigned char *dst,
                                                const convt_phase_tap_row &r, const wg_tile &tl, int ci0,
                                                uint64_t *bar)
{
    const convt_fold &f = wa.fold;
    const convt_fold_box b = convt_fold_box_of(&f, W_ROWS);
    const int x0 = convt_fold_box_x0(&f, __ldg(&wa.p.taps[r.tap_begin].lin));
    mbar_expect_tx(bar, (unsigned)(BK * b.pitch * 4));
    tma_load_box4(dst, map, x0, convt_fold_box_c_lo(&f, tl.co_blk), ci0, tl.g, bar);
}

/* Per tile: the thread's A rows in the box (wgmma's fragment rows
 * 16 (warp % 4) + lane / 4 and 8 further, of each of the warpgroup's MH
 * 64-channel blocks), its column's input channel (lane % 4) as pitches;
 * the warpgroup's A tiles. */
template <int MH, int BK, int W_ROWS>
__device__ __forceinline__ void wg_inplace_tile(wg_inplace_regs<MH, BK> &R, const convt_fold &f, int co_blk,
                                                int wg_co, int ctid, unsigned char *tiles)
{
    const convt_fold_box b = convt_fold_box_of(&f, W_ROWS);
    const int lane = ctid % 32, warp4 = (ctid / 32) % 4;
    R.pitch = b.pitch;
#pragma unroll
    for (int m = 0; m < MH; m++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int cf = co_blk + (wg_co * MH + m) * WG_M + 16 * warp4 + lane / 4 + 8 * h;
            R.rows[m][h] = convt_fold_box_row(&f, &b, co_blk, cf) + (lane % 4) * b.pitch;
        }
    R.tile = tiles;
    R.next = 0;
}

/* One tap's group: its weights from the box (box: the tap's first float,
 * at its place in the row), rounded to TF32, into the warpgroup's next A
 * tile, K-major (each thread its fragment's rows g, g + 8 and columns t,
 * t + 4 of every k-step: a warp's stores are 32 neighbouring words), then
 * the wgmma of the tile and the input at in (the tap's shift applied),
 * committed. The tile was last read by the group two before, which
 * wgmma_wait_prev has seen done; the warpgroup's stores are made visible
 * to the async proxy (wgmma's reads) and to each other (a warp's wgmma
 * reads the other warps' rows) before any of its wgmma. */
template <int BN, int BK, int MH>
__device__ __forceinline__ void wg_inplace_group(float (&d)[MH][BN / 2], wg_inplace_regs<MH, BK> &R,
                                                 const float *box, const unsigned char *in, int b_lbo, int ctid)
{
    constexpr int a_lbo = wg_inplace_a_lbo(MH);
    unsigned char *tile = R.tile + R.next * wg_inplace_tile_bytes(BK, MH);
    R.next ^= 1;
    const int lane = ctid % 32, warp4 = (ctid / 32) % 4;
    unsigned char *row = tile + (16 * warp4 + lane / 4) * 16 + (lane % 4) * 4;
    /* every load before any store: interleaved, each store waited for its
     * load (the compiler cannot move a load of the box above a store to
     * the tile: both are shared memory), 16 round trips a group (SASS) */
    unsigned v[MH][BK / 8][4];
#pragma unroll
    for (int m = 0; m < MH; m++)
#pragma unroll
        for (int kk = 0; kk < BK / 8; kk++)
#pragma unroll
            for (int q = 0; q < 4; q++) /* rows g, g + 8, g, g + 8; columns t, t, t + 4, t + 4 */
                v[m][kk][q] = tf32_round(box[R.rows[m][q & 1] + (8 * kk + 4 * (q >> 1)) * R.pitch]);
    wgmma_wait_prev();
#pragma unroll
    for (int m = 0; m < MH; m++)
#pragma unroll
        for (int kk = 0; kk < BK / 8; kk++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                *(unsigned *)(row + (2 * kk + (q >> 1)) * a_lbo + m * (WG_M * 16) + (q & 1) * (8 * 16)) =
                    v[m][kk][q];
    fence_proxy_async();
    wg_group_sync(ctid / 128);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 8; kk++) {
        const uint64_t in_d = wg_descriptor(in + kk * 2 * b_lbo, b_lbo, 128);
#pragma unroll
        for (int m = 0; m < MH; m++)
            wgmma_tf32(d[m], wg_descriptor(tile + kk * 2 * a_lbo + m * (WG_M * 16), a_lbo, 128), in_d);
    }
    wgmma_commit();
}

/* A stage of a consumer warpgroup: each tap of row r a group, its A tile
 * written from the box while the group before runs. Session 34's first
 * forms loaded A into registers for wgmma's register-A form: ptxas does
 * not keep a running wgmma's A registers from other uses (with two
 * register sets in turn, the next group's loads and their addresses went
 * into the registers the group before still read: SASS, LDS R89.. after
 * DEPBAR.LE gsb0, 0x1), so each group had to wait for the one before
 * before its loads, and the tensor cores idled through them (call 1: the
 * k 12 stride 6 layer +21% against the image; call 2, two taps a group:
 * +12%, k 8 stride 4 +9%). Through shared memory no register is shared
 * with a running wgmma. */
template <int BN, int BK, int MH>
__device__ __forceinline__ void wg_inplace_stage(float (&d)[MH][BN / 2], wg_inplace_regs<MH, BK> &R,
                                                 const wg_args &wa, const unsigned char *box,
                                                 const unsigned char *in_t, int b_lbo,
                                                 const convt_phase_tap_row &r, const int *s_shift, int ctid)
{
    for (int t = 0; t < r.ntaps; t++) {
        const int T = r.tap_begin + t;
        const float *box_t = (const float *)box + convt_fold_box_tap(&wa.fold, __ldg(&wa.p.taps[T].lin));
        wg_inplace_group<BN, BK, MH>(d, R, box_t, in_t + s_shift[T] * 16, b_lbo, ctid);
    }
}

/* The kernels of width BN for bk 16 or 32, nseg 1 or 2 (64 or 128 folded
 * channels a block), S a power of two or not (the epilogue's shifts or
 * divisions), defined by WG_FOLD_INPLACE_KERNELS_OF_WIDTH in
 * kernels/polyphase_wgmma_fold_inplace*.cu. */
#define WG_INPLACE_OF(BN, BK, NSEG, ANY)                                                           \
    polyphase_wgmma_kernel<BN, BK, NSEG, false, 0, true, 1, ANY, false, 1, false, 0, false, false, true>
#define WG_INPLACE_OF_BK(BN, NSEG, ANY) (bk == 16 ? WG_INPLACE_OF(BN, 16, NSEG, ANY) : WG_INPLACE_OF(BN, 32, NSEG, ANY))
#define WG_FOLD_INPLACE_KERNELS_OF_WIDTH(BN)                                                       \
    wg_kernel_fn wg_fold_inplace_kernel_bn##BN(int bk, int nseg, bool pow2)                        \
    {                                                                                              \
        if (pow2)                                                                                  \
            return nseg == 1 ? WG_INPLACE_OF_BK(BN, 1, false) : WG_INPLACE_OF_BK(BN, 2, false);    \
        return nseg == 1 ? WG_INPLACE_OF_BK(BN, 1, true) : WG_INPLACE_OF_BK(BN, 2, true);          \
    }
#endif /* CONVT_HAVE_WGMMA */

#endif /* CONVT_KERNELS_POLYPHASE_WGMMA_INPLACE_CUH */
