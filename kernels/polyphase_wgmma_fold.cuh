/* polyphase_wgmma_tf32's epilogue with the stride phases folded into the
 * output channels (knob fold = 1; src/lib/fold_phases.h): included by
 * kernels/polyphase_wgmma.cuh, whose producer, stages and K loop run the
 * folded problem unchanged (stride 1, S x the channels, kernel m).
 *
 * A warp's 16 accumulator rows are folded channels co_w .. co_w + 15, row
 * co_w + i being phase (co_w + i) % S of original channel (co_w + i) / S;
 * its staged chunk of 32 positions covers S x 32 neighbouring outputs of
 * each channel along the innermost dimension (phase fastest). So the warp
 * stores them phase fastest: lanes go in groups of P (S, or the power of
 * two above it), lane r + P u storing phase r (r < S) of column u of each
 * step of 32 / P columns, for each of the warp's rows of phase r
 * (convt_fold_lane_of). Where the phases run along the innermost dimension
 * (1-D: a vocoder's stride 8, EnCodec's 5), a warp's store is S x 32 / P
 * neighbouring floats: 32 where S is a power of two, 20 at S = 5, 24 at
 * S = 3 or 6. Stored phase by phase, a warp wrote every S-th float.
 *
 * POW2 (S a power of two, so it divides 16 and co_w): each warp holds
 * whole original channels, phase r's first row is r, and the phase's
 * split and the channel take shifts. These kernels are the ones measured
 * before other strides folded, and their SASS is unchanged by the general
 * form (results/notes.md, "Session 24"); the general form divides.
 * KSPLIT: split-K's parts add their sums where `add` (wg_store).
 *
 * A partial fold (polyphase_wgmma_fold_inner_tf32, fold_phases.h) leaves
 * the outer dimensions' strides to the folded problem, whose phases there
 * the kernel runs apart: a position's folded coordinates t are then that
 * problem's outputs (wg_output_pos), which the fold's map along those
 * dimensions keeps as they are. Folded whole, t is the position itself
 * (stride 1, pad 0, one phase): the extra products were measured (results/
 * notes.md, session 36). */
#ifndef CONVT_KERNELS_POLYPHASE_WGMMA_FOLD_CUH
#define CONVT_KERNELS_POLYPHASE_WGMMA_FOLD_CUH

#if CONVT_HAVE_WGMMA
template <int BN, bool POW2, bool KSPLIT>
__device__ __forceinline__ void wg_fold_epilogue(const wg_args &wa, const wg_tile &tl,
                                                 const phase_desc &ph, const wg_phase_flat &fl,
                                                 const float (&d)[BN / 2], float *stage_w, int fw,
                                                 int co_w, int lane, const float *__restrict__ bias,
                                                 float *__restrict__ y, bool add)
{
    const poly_args &a = wa.p;
    const convt_fold &f = wa.fold;
    const int S = f.S;
    /* The lane's share (convt_fold_lane_of). POW2 computes it as the
     * measured kernels did, with shifts, in this order: ptxas schedules
     * by it, and their SASS is kept byte for byte (l is dead there). */
    static_assert(WG_EPI_COLS == 32, "convt_fold_lane_of's steps make a chunk of 32 columns");
    const convt_fold_lane l = convt_fold_lane_of(&f, co_w, lane);
    const int P = POW2 ? S : l.P; /* lanes a column group */
    const int step = POW2 ? WG_EPI_COLS / P : l.step;
    const int rows_out = min(16, a.cout_g - co_w); /* the warp's folded rows that exist */
    float b_frag[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int co = co_w + lane / 4 + 8 * h; /* folded */
        b_frag[h] = bias && co < a.cout_g
                        ? bias[tl.g * f.cout_g + (POW2 ? co >> f.lgS : convt_fold_channel(&f, co))]
                        : 0.0f;
    }
    const int r = POW2 ? lane % P : l.r, u = POW2 ? lane / P : l.u;
    const int row0 = POW2 ? r : l.row0; /* the warp's first row of phase r */
    const bool storing = POW2 || l.storing;
    int phd[3];
    if constexpr (POW2)
        convt_fold_phase_pow2(&f, r, phd);
    else
        convt_fold_phase(&f, r, phd);
    const int64_t image = (int64_t)wa.groups * f.cout_g * f.out_plane;
    float *y_ch = y + ((int64_t)tl.g * f.cout_g + (POW2 ? co_w >> f.lgS : l.ch0)) * f.out_plane;
    wg_cursor c = convt_wg_cursor_at(&ph, &fl, fw + u);
#pragma unroll
    for (int jc = 0; jc < (BN + WG_EPI_COLS - 1) / WG_EPI_COLS; jc++) {
        const int cols = wg_epi_stage<BN>(d, b_frag, stage_w, jc, lane);
        __syncwarp();
        for (int k = 0; k < P; k++) {
            const int col = k * step + u;
            int64_t off;
            int t[3]; /* the folded problem's output position */
            wg_output_pos(a, ph, fl, c, t);
            if (col < cols && storing && wg_is_output(wa, ph, fl, c) &&
                convt_fold_output(&f, phd, t[0], t[1], t[2], &off)) {
                float *yq = y_ch + c.n * image + off;
                for (int row = row0; row < rows_out; row += S, yq += f.out_plane)
                    wg_store<KSPLIT>(yq, stage_w[row * WG_EPI_PITCH + col], add);
            }
            c.col += step;
            convt_wg_cursor_carry(&c, &ph, &fl);
        }
        __syncwarp();
    }
}
#endif /* CONVT_HAVE_WGMMA */
#endif /* CONVT_KERNELS_POLYPHASE_WGMMA_FOLD_CUH */
