/* polyphase_wgmma's consumer warpgroups with positions as wgmma's M (knob
 * pos_m = 1), for groups of few output channels: included by
 * kernels/polyphase_wgmma.cuh, whose producer, stages and tile list it
 * shares.
 *
 * With output channels as M, a warpgroup's wgmma computes 64 channels
 * whether the group has them or not: at 16 channels per group (kb58) three
 * quarters of the tensor cores' work is zeros, at 8 (kb72, grouped8_2d_s2)
 * seven eighths, and the weight image holds 64 channels per tap tile all
 * the same. Turned around, the staged input tile is wgmma's A (its rows
 * are positions, K-major, 16 bytes apart: the layout the descriptors
 * already read, started at any row) and the weight tile its B, N = the
 * group's channels rounded up to 8 (NCOS, up to 32). A warpgroup takes BN
 * positions as BN / 64 wgmma of M = 64 per K step, the two warpgroups
 * neighbouring stretches (nseg = 2), and the weights of a stage are NCOS
 * rows instead of 64. The accumulators are small (BN / 64 x NCOS / 2 per
 * thread), so 3xTF32's partial sums fit at every width.
 *
 * The epilogue stores from the fragments: register 4j + 2h + e of a thread
 * holds position 16 (warp % 4) + lane / 4 + 8h of its m64 block and channel
 * 8j + 2 (lane % 4) + e. For one register the lanes of a warp hold 8
 * neighbouring positions of 4 channels: where the phase's outputs are
 * contiguous (stride 1), 4 whole 32-byte sectors per store. */
#ifndef CONVT_KERNELS_POLYPHASE_WGMMA_POSM_CUH
#define CONVT_KERNELS_POLYPHASE_WGMMA_POSM_CUH

#if CONVT_HAVE_WGMMA
/* Where a consumer finds a stage's operands (polyphase_wgmma_kernel's
 * shared-memory layout). */
struct wg_stage_layout {
    unsigned char *base; /* stage 0 */
    int stage_bytes;
    int in_bytes, in_part;    /* the input tile, and one part of it (3xTF32: big, small) */
    int wtap_bytes, w_part;   /* a tap's weight tile, and one part of it */
    int a_lbo, b_lbo;         /* weights', input's distance between K core matrices */
};

/* The epilogue with positions as M: the warpgroup's rows (flat positions
 * tl.f0 + seg + row; CLIP: only rows below `rows`), each found by its own cursor, their
 * channels' sums plus the bias stored from the fragments. Register
 * 4j + 2h + e of a thread holds row 16 (warp % 4) + lane / 4 + 8h of its
 * m64 block and channel 8j + 2 (lane % 4) + e. For one register the
 * lanes of a warp hold 8 neighbouring positions of 4 channels: where the
 * phase's outputs are contiguous (stride 1), 4 whole 32-byte sectors per
 * store. wg_posm_tile stores all BN rows; wg_colsum_tile (column sets)
 * the first col_out (CLIP). */
template <int MB, int NCOS, bool CLIP>
__device__ __forceinline__ void wg_posm_store(const wg_args &wa, const wg_tile &tl,
                                              const phase_desc &ph, const wg_phase_flat &fl,
                                              const float (&acc)[MB][NCOS / 2], int seg, int rows,
                                              int ctid, const float *__restrict__ bias,
                                              float *__restrict__ y)
{
    const poly_args &a = wa.p;
    /* the accumulators' layout, wg_acc_row's and wg_acc_col's written out:
     * through them ptxas scheduled the column sets' kernels (CLIP)
     * differently, and those were not measured again (session 56) */
    const int lane = ctid % 32, warp4 = (ctid / 32) % 4;
    float bv[NCOS / 8][2];
#pragma unroll
    for (int j = 0; j < NCOS / 8; j++)
#pragma unroll
        for (int e = 0; e < 2; e++) {
            const int co = 8 * j + 2 * (lane % 4) + e;
            bv[j][e] = bias && co < a.cout_g ? bias[tl.g * a.cout_g + co] : 0.0f;
        }
    float *y_g = y + (int64_t)tl.g * a.cout_g * a.out_plane;
#pragma unroll
    for (int b = 0; b < MB; b++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            if (CLIP && 64 * b + 16 * warp4 + lane / 4 + 8 * h >= rows)
                continue;
            const int p = seg + 64 * b + 16 * warp4 + lane / 4 + 8 * h;
            const wg_cursor c = convt_wg_cursor_at(&ph, &fl, tl.f0 + p);
            if (!wg_is_output(wa, ph, fl, c))
                continue;
            float *yq = y_g + wg_output_offset(a, ph, fl, c);
#pragma unroll
            for (int j = 0; j < NCOS / 8; j++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int co = 8 * j + 2 * (lane % 4) + e;
                    if (co < a.cout_g)
                        yq[(int64_t)co * a.out_plane] = acc[b][4 * j + 2 * h + e] + bv[j][e];
                }
        }
}

/* The epilogue with positions as M of a folded problem (FOLD:
 * polyphase_wgmma_fold_posm_3xtf32), the fold's map from the fragments:
 * defined in kernels/polyphase_wgmma_fold.cuh beside the fold's other
 * epilogue, whose helpers it shares. */
template <int MB, int NCOS, bool POW2>
__device__ __forceinline__ void wg_posm_fold_store(const wg_args &wa, const wg_tile &tl, const phase_desc &ph,
                                                   const wg_phase_flat &fl, const float (&acc)[MB][NCOS / 2],
                                                   int seg, int ctid, const float *__restrict__ bias,
                                                   float *__restrict__ y);

/* One tile of the work list with positions as M: the K loop over the
 * stages (the same stages, barriers and ring as the channels-as-M
 * consumer), then the epilogue (FOLD: the fold's, POW2 its S a power of
 * two). */
template <int BN, int BK, bool SPLIT3, int NCOS, bool FOLD, bool POW2>
__device__ __forceinline__ void wg_posm_tile(const wg_args &wa, const wg_tile &tl,
                                             const phase_desc &ph, const wg_phase_flat &fl,
                                             int ktiles, wg_ring &ring, const wg_stage_layout &sl,
                                             const convt_phase_tap_row *s_rows, const int *s_shift,
                                             uint64_t *full, uint64_t *empty, int wg_seg, int ctid,
                                             const float *__restrict__ bias, float *__restrict__ y)
{
    constexpr int MB = BN / 64; /* m64 blocks of positions per warpgroup */
    constexpr int NA = NCOS / 2; /* accumulators per block and thread */
    static_assert(BN % 64 == 0 && NCOS % 8 == 0 && NCOS <= 32, "m64 blocks, N of 8 to 32");
    const poly_args &a = wa.p;
    const int stages = a.stages;
    float acc[MB][NA];
    float part[SPLIT3 ? MB : 1][SPLIT3 ? NA : 1]; /* SPLIT3: a stage's sums */
#pragma unroll
    for (int b = 0; b < MB; b++)
#pragma unroll
        for (int i = 0; i < NA; i++)
            acc[b][i] = 0.0f;
#pragma unroll
    for (int b = 0; b < (SPLIT3 ? MB : 1); b++)
#pragma unroll
        for (int i = 0; i < (SPLIT3 ? NA : 1); i++)
            part[b][i] = 0.0f;
    int k_row = 0, k_ci0 = 0, prev_buf = 0;
    for (int kt = 0; kt < ktiles; kt++, prev_buf = ring.buf, wg_ring_step(ring, stages)) {
        const int buf = ring.buf;
        mbar_wait(&full[buf], ring.phase);
        fence_proxy_async(); /* the input's copies: generic proxy; wgmma reads through the async one */
        const unsigned char *st = sl.base + (size_t)buf * sl.stage_bytes;
        const convt_phase_tap_row r = s_rows[fl.row_begin + k_row];
        const unsigned char *in_t = st + wg_seg * (BN * 16);
        const unsigned char *w_t = st + sl.in_bytes;
        wgmma_fence();
        for (int t = 0; t < r.ntaps; t++) {
            const int shift = s_shift[r.tap_begin + t];
#pragma unroll
            for (int kk = 0; kk < BK / 8; kk++) {
                const unsigned char *w_k = w_t + t * sl.wtap_bytes + kk * 2 * sl.a_lbo;
                const uint64_t w_big = wg_descriptor(w_k, sl.a_lbo, 128);
#pragma unroll
                for (int b = 0; b < MB; b++) {
                    const unsigned char *in_k = in_t + (shift + 64 * b) * 16 + kk * 2 * sl.b_lbo;
                    const uint64_t in_big = wg_descriptor(in_k, sl.b_lbo, 128);
                    if constexpr (SPLIT3) {
                        wgmma_tf32(part[b], in_big, wg_descriptor(w_k + sl.w_part, sl.a_lbo, 128),
                                   t > 0 || kk > 0);
                        wgmma_tf32(part[b], wg_descriptor(in_k + sl.in_part, sl.b_lbo, 128), w_big);
                        wgmma_tf32(part[b], in_big, w_big);
                    } else {
                        wgmma_tf32(acc[b], in_big, w_big);
                    }
                }
            }
        }
        wgmma_commit();
        if constexpr (SPLIT3) {
            /* the stage's sums rounded to nearest into the tile's */
            wgmma_wait_all();
#pragma unroll
            for (int b = 0; b < MB; b++)
#pragma unroll
                for (int i = 0; i < NA; i++)
                    acc[b][i] += part[b][i];
            if (ctid % 128 == 0)
                mbar_arrive(&empty[buf]);
        } else {
            wgmma_wait_prev(); /* the stage before is done: its buffer is free */
            if (kt > 0 && ctid % 128 == 0)
                mbar_arrive(&empty[prev_buf]);
        }
        k_ci0 += BK;
        if (k_ci0 >= a.cin_g) {
            k_ci0 = 0;
            k_row++;
        }
    }
    if constexpr (!SPLIT3) {
        wgmma_wait_all();
        if (ktiles > 0 && ctid % 128 == 0)
            mbar_arrive(&empty[prev_buf]);
    }

    /* Epilogue: the warpgroup's BN positions */
    if constexpr (FOLD)
        wg_posm_fold_store<MB, NCOS, POW2>(wa, tl, ph, fl, acc, wg_seg * BN, ctid, bias, y);
    else
        wg_posm_store<MB, NCOS, false>(wa, tl, ph, fl, acc, wg_seg * BN, BN, ctid, bias, y);
}
#endif /* CONVT_HAVE_WGMMA */

#endif /* CONVT_KERNELS_POLYPHASE_WGMMA_POSM_CUH */
