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
 * ([ci][c][k]), not in wgmma's K-major core matrices, so the consumers
 * load their A fragments (output channel rows x input channel columns)
 * into registers and issue wgmma's register-A form, a tap at a time: the
 * tap's BK / 8 k-steps for each of the warpgroup's MH 64-channel blocks,
 * committed as one group, loaded once the group before is done
 * (wg_inplace_stage says why). The weights are rounded to TF32 as loaded
 * (tf32_round: to nearest, as the repack rounded them). */
#ifndef CONVT_KERNELS_POLYPHASE_WGMMA_INPLACE_CUH
#define CONVT_KERNELS_POLYPHASE_WGMMA_INPLACE_CUH

#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
/* wgmma's register-A form for N = 80 to 256 (wgmma_tf32.cuh has 8 to 64,
 * and the macro): a[0..3] as wgmma_tf32_rs takes them. Here rather than
 * there, so that the other kernels' translation units see no new device
 * code. */
WG_TF32_RS(80, 40, 40, 41, 42, 43, 44)
WG_TF32_RS(96, 48, 48, 49, 50, 51, 52)
WG_TF32_RS(112, 56, 56, 57, 58, 59, 60)
WG_TF32_RS(128, 64, 64, 65, 66, 67, 68)
WG_TF32_RS(144, 72, 72, 73, 74, 75, 76)
WG_TF32_RS(160, 80, 80, 81, 82, 83, 84)
WG_TF32_RS(176, 88, 88, 89, 90, 91, 92)
WG_TF32_RS(192, 96, 96, 97, 98, 99, 100)
WG_TF32_RS(208, 104, 104, 105, 106, 107, 108)
WG_TF32_RS(224, 112, 112, 113, 114, 115, 116)
WG_TF32_RS(240, 120, 120, 121, 122, 123, 124)
WG_TF32_RS(256, 128, 128, 129, 130, 131, 132)

/* The box's share of a stage (convt_fold_box_stage_bytes). */
template <int W_ROWS, int BK>
__device__ __forceinline__ int wg_inplace_stage_bytes(const convt_fold &f)
{
    const convt_fold_box b = convt_fold_box_of(&f, W_ROWS);
    return convt_fold_box_stage_bytes(&b, BK);
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

/* The box's bytes, as its copy counts them (convt_fold_box_bytes). */
template <int W_ROWS, int BK>
__device__ __forceinline__ unsigned wg_inplace_box_bytes(const convt_fold &f)
{
    const convt_fold_box b = convt_fold_box_of(&f, W_ROWS);
    return (unsigned)convt_fold_box_bytes(&b, BK);
}

/* Tap row r's box starts at x0 along w's tap index. */
__device__ __forceinline__ int wg_inplace_x0(const wg_args &wa, const convt_phase_tap_row &r)
{
    return convt_fold_box_x0(&wa.fold, __ldg(&wa.p.taps[r.tap_begin].lin));
}

/* The producer's weights of a stage: the box of its tap row (from x0),
 * the block's channels (from c_lo), its chunk (from ci0) and group g,
 * announced on bar. */
__device__ __forceinline__ void wg_inplace_load(const void *map, unsigned char *dst, unsigned box_bytes, int x0,
                                                int c_lo, int ci0, int g, uint64_t *bar)
{
    mbar_expect_tx(bar, box_bytes);
    tma_load_box4(dst, map, x0, c_lo, ci0, g, bar);
}

/* Per tile: the thread's A rows in the box (wgmma's fragment rows
 * 16 (warp % 4) + lane / 4 and 8 further, of each of the warpgroup's MH
 * 64-channel blocks), its column's input channel (lane % 4) as pitches. */
template <int MH, int BK, int W_ROWS>
__device__ __forceinline__ void wg_inplace_tile(wg_inplace_regs<MH, BK> &R, const convt_fold &f, int co_blk,
                                                int wg_co, int ctid)
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
}

/* One tap's group: the A fragments of its BK / 8 k-steps (box: the tap's
 * first float, at its place in the row) into a, rounded to TF32, then the
 * wgmma on them and the input at in (the tap's shift applied), committed. */
template <int BN, int BK, int MH>
__device__ __forceinline__ void wg_inplace_group(float (&d)[MH][BN / 2], uint32_t (&a)[MH][BK / 8][4],
                                                 const float *box, const int (&rows)[MH][2], int pitch,
                                                 const unsigned char *in, int b_lbo)
{
#pragma unroll
    for (int m = 0; m < MH; m++)
#pragma unroll
        for (int kk = 0; kk < BK / 8; kk++)
#pragma unroll
            for (int q = 0; q < 4; q++) /* rows g, g + 8, g, g + 8; columns t, t, t + 4, t + 4 */
                a[m][kk][q] = tf32_round(box[rows[m][q & 1] + (8 * kk + 4 * (q >> 1)) * pitch]);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 8; kk++) {
        const uint64_t in_d = wg_descriptor(in + kk * 2 * b_lbo, b_lbo, 128);
#pragma unroll
        for (int m = 0; m < MH; m++)
            wgmma_tf32_rs(d[m], a[m][kk], in_d);
    }
    wgmma_commit();
}

/* A stage of a consumer warpgroup: the taps of row r a group each, in
 * pairs on the two register sets of R.a, written out one after the other
 * (no branch between them): each group's loads wait only for the group
 * two before, which read the same set (wgmma_wait_prev), while the group
 * before runs on the other set; an odd last tap waits for all. wgmma reads
 * its A registers until it completes, and ptxas does not keep them from
 * other uses meanwhile: with the two sets taken in turn behind a branch (as
 * polyphase_wgmma_colsum_tf32 does), it gave both sets the same registers
 * and computed the loads' addresses in them while the group before still
 * ran (SASS, session 34, first form: LDS R89.. after DEPBAR.LE gsb0, 0x1
 * in both branches). Written out in pairs, the sets are live at once and
 * distinct; tools/wgmma_rs_hazard.py checks every instantiation's SASS for
 * a write to a running group's registers (0 of 104). Measured against
 * (results/notes.md, "Session 34"): every group waiting for the one before
 * (calls 4 to 6), two taps a group (call 2), each tap's A through a
 * shared-memory tile (call 3). */
template <int BN, int BK, int MH>
__device__ __forceinline__ void wg_inplace_stage(float (&d)[MH][BN / 2], wg_inplace_regs<MH, BK> &R,
                                                 const wg_args &wa, const unsigned char *box,
                                                 const unsigned char *in_t, int b_lbo,
                                                 const convt_phase_tap_row &r, const int *s_shift)
{
    int t = 0;
    for (; t + 1 < r.ntaps; t += 2) {
#pragma unroll
        for (int u = 0; u < 2; u++) {
            const int T = r.tap_begin + t + u;
            const float *box_t = (const float *)box + convt_fold_box_tap(&wa.fold, __ldg(&wa.p.taps[T].lin));
            wgmma_wait_prev();
            wg_inplace_group<BN, BK, MH>(d, R.a[u], box_t, R.rows, R.pitch, in_t + s_shift[T] * 16, b_lbo);
        }
    }
    if (t < r.ntaps) {
        const int T = r.tap_begin + t;
        const float *box_t = (const float *)box + convt_fold_box_tap(&wa.fold, __ldg(&wa.p.taps[T].lin));
        wgmma_wait_all();
        wg_inplace_group<BN, BK, MH>(d, R.a[0], box_t, R.rows, R.pitch, in_t + s_shift[T] * 16, b_lbo);
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
