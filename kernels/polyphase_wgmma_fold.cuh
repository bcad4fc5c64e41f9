/* polyphase_wgmma_tf32's epilogue with the stride phases folded into the
 * output channels (knob fold = 1; src/lib/fold_phases.h): included by
 * kernels/polyphase_wgmma.cuh, whose producer, stages and K loop run the
 * folded problem unchanged (stride 1, S x the channels, kernel m).
 *
 * A warp's 16 accumulator rows are 16 / S original channels x their S
 * phases (S divides 16, convt_fold_check), and its staged chunk of 32
 * positions covers S x 32 neighbouring outputs of each channel along the
 * innermost dimension (phase fastest). So the warp stores them phase
 * fastest: lane r + S u stores phase r of column u of each step of 32 / S
 * columns, and where the phases run along the innermost dimension (1-D: a
 * vocoder's stride 8), a warp's store is 32 neighbouring floats. Stored
 * phase by phase, a warp wrote every S-th float. */
#ifndef CONVT_KERNELS_POLYPHASE_WGMMA_FOLD_CUH
#define CONVT_KERNELS_POLYPHASE_WGMMA_FOLD_CUH

#if CONVT_HAVE_WGMMA
template <int BN>
__device__ __forceinline__ void wg_fold_epilogue(const wg_args &wa, const wg_tile &tl,
                                                 const phase_desc &ph, const wg_phase_flat &fl,
                                                 const float (&d)[BN / 2], float *stage_w, int fw,
                                                 int co_w, int lane, const float *__restrict__ bias,
                                                 float *__restrict__ y)
{
    const poly_args &a = wa.p;
    const convt_fold &f = wa.fold;
    const int S = f.S, step = WG_EPI_COLS / S;
    const int rows_out = min(16, a.cout_g - co_w); /* the warp's folded rows that exist */
    float b_frag[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int co = co_w + lane / 4 + 8 * h; /* folded: original channel co / S */
        b_frag[h] = bias && co < a.cout_g ? bias[tl.g * f.cout_g + (co >> f.lgS)] : 0.0f;
    }
    const int r = lane % S, u = lane / S;
    int phd[3];
    convt_fold_phase(&f, r, phd);
    const int64_t image = (int64_t)wa.groups * f.cout_g * f.out_plane;
    float *y_ch = y + ((int64_t)tl.g * f.cout_g + (co_w >> f.lgS)) * f.out_plane;
    wg_cursor c = convt_wg_cursor_at(&ph, &fl, fw + u);
#pragma unroll
    for (int jc = 0; jc < (BN + WG_EPI_COLS - 1) / WG_EPI_COLS; jc++) {
        const int cols = wg_epi_stage<BN>(d, b_frag, stage_w, jc, lane);
        __syncwarp();
        for (int k = 0; k < S; k++) {
            const int col = k * step + u;
            int64_t off;
            if (col < cols && wg_is_output(wa, ph, fl, c) &&
                convt_fold_output(&f, phd, c.q0 + ph.q_min[0], c.q1 + ph.q_min[1],
                                  c.col - fl.lead + ph.q_min[2], &off)) {
                float *yq = y_ch + c.n * image + off;
                for (int row = r; row < rows_out; row += S, yq += f.out_plane)
                    *yq = stage_w[row * WG_EPI_PITCH + col];
            }
            c.col += step;
            convt_wg_cursor_carry(&c, &ph, &fl);
        }
        __syncwarp();
    }
}
#endif /* CONVT_HAVE_WGMMA */
#endif /* CONVT_KERNELS_POLYPHASE_WGMMA_FOLD_CUH */
