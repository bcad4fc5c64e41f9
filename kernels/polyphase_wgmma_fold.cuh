/* polyphase_wgmma_tf32's epilogue with the stride phases folded into the
 * output channels (knob fold = 1; src/lib/fold_phases.h): included by
 * kernels/polyphase_wgmma.cuh, whose producer, stages and K loop run the
 * folded problem unchanged (stride 1, S x the channels, kernel m).
 *
 * A warp's 16 accumulator rows are folded channels co_w .. co_w + 15, row
 * co_w + i being phase (co_w + i) % S of original channel (co_w + i) / S;
 * its staged chunk of 32 positions covers s[2] x 32 neighbouring outputs of
 * each channel along the innermost dimension (phase fastest) and, for each
 * of those, S / s[2] outputs along the outer dimensions. So the warp stores
 * the innermost phases side by side: lanes go in groups of P (s[2], or the
 * power of two above it), lane r2 + P u storing column u of each step of
 * 32 / P columns for every phase q s[2] + r2, each at the warp's rows of
 * that phase (convt_fold_lane_of). A warp's store is s[2] x 32 / P
 * neighbouring floats: 32 where s[2] is a power of two (1 included: the
 * row fold, whose phases are rows), 20 at s[2] = 5, 24 at 3 or 6. Stored
 * phase by phase, a warp wrote every s[2]-th float. A column's position is
 * found once for all the outer phases: with lanes in groups of S (before
 * session 52) the row fold found each twice, and a store was two half rows.
 *
 * RUNS (every fold but the row fold, whose lanes have one column a
 * chunk): where every lane's P columns of a chunk lie in one row and in y
 * (the warp's two votes: wg_fold_lane_in_row, wg_fold_lane_run_in_y), each
 * lane finds the position once and stores its columns as runs;
 * elsewhere, column by column. Decided lane by lane (session 53), it
 * gave -27% on vocoder_up2 but +17 to +62% on partial and grouped folds,
 * where a warp whose lanes decided apart ran both paths (results/notes.md,
 * sessions 53 and 54).
 *
 * POW2 (S a power of two, so it divides 16 and co_w): each warp holds
 * whole original channels, phase r's first row is r, and the phase's
 * split and the channel take shifts; the general form divides.
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
/* Phase r split per dimension: by shifts where S is a power of two (POW2). */
template <bool POW2>
__device__ __forceinline__ void wg_fold_phase_split(const convt_fold &f, int r, int (&phd)[3])
{
    if constexpr (POW2)
        convt_fold_phase_pow2(&f, r, phd);
    else
        convt_fold_phase(&f, r, phd);
}

/* Folded channel cf's original channel and phase, cf / S and cf % S
 * (fold_phases.h: convt_fold_channel), by shifts where S is a power of
 * two (POW2). */
template <bool POW2>
__device__ __forceinline__ int wg_fold_channel_of(const convt_fold &f, int cf)
{
    return POW2 ? cf >> f.lgS : convt_fold_channel(&f, cf);
}
template <bool POW2>
__device__ __forceinline__ int wg_fold_phase_of(const convt_fold &f, int cf)
{
    return POW2 ? cf & (f.S - 1) : cf % f.S;
}

/* The warp's first row of phase r in its staging and that row's original
 * channel (convt_fold_row0, convt_fold_channel): r and co_w >> lgS where S
 * is a power of two. */
template <bool POW2>
__device__ __forceinline__ void wg_fold_phase_row0(const convt_fold &f, int co_w, int r, int &row0, int &ch0)
{
    row0 = POW2 ? r : convt_fold_row0(&f, co_w, r);
    ch0 = POW2 ? co_w >> f.lgS : convt_fold_channel(&f, co_w + row0);
}

/* Whether a lane's columns of a chunk, u, u + step, ..., u + span (the
 * cursor c at u), may store as runs (RUNS, wg_fold_store_runs), as far as
 * the folded problem goes: they lie in one row of it (its innermost stride
 * 1, as a fold makes it) and each is an output of it. A lane that stores
 * nothing (r2 >= s[2]) has the columns of the lanes beside it. Chunks at
 * a row's ends, the halo or a tile's last 16 columns fail here: on short
 * rows (kb72: 48 outputs a row) most chunks. So this cheap half of the
 * check is the warp's first vote (wg_fold_epilogue).
 * Runs save a lane (P - 1) x outer column positions a chunk. Taking no
 * runs where that is one (S = 2: 3a1b278) was measured no faster: the
 * folds of S = 2 0.99 to 1.02 of this form's time, fold_inner on
 * depthwise2d_s2 1.10, against controls at 1.005 (session 54, call 4). */
__device__ __forceinline__ bool wg_fold_lane_in_row(const wg_args &wa, const phase_desc &ph, const wg_phase_flat &fl,
                                                    const wg_cursor &c, const convt_fold_lane &l, int span, int cols)
{
    wg_cursor last = c;
    last.col += span;
    return l.P >= 2 && l.u + span < cols && last.col < fl.pitch && wa.p.stride[2] == 1 &&
           wg_is_output(wa, ph, fl, c) && wg_is_output(wa, ph, fl, last);
}

/* The other half, the warp's second vote: whether for every phase of the
 * lane its run lies in y (convt_fold_run_in_y), each step x s[2] floats
 * after the one before; t: the first column's folded position. It finds
 * two offsets a phase, about 30 instructions a phase in the widths 64 to
 * 112: asked of every chunk (session 53, and b35583b's one vote) it cost
 * kb72 (four phases a lane) and the grouped and partial folds 4 to 11%.
 * Where both votes pass, a column's position is found once a chunk, where
 * the general loop finds it for each of the lane's P columns: on
 * vocoder_up2 (s[2] = 8) that loop was 80 instructions a store, 10309 a
 * tile and consumer warp against the K loop's 1490 (Nsight Compute,
 * session 53). */
template <bool POW2>
__device__ __forceinline__ bool wg_fold_lane_run_in_y(const wg_args &wa, const phase_desc &ph, const wg_phase_flat &fl,
                                                      const wg_cursor &c, const convt_fold_lane &l, int span,
                                                      int (&t)[3])
{
    const convt_fold &f = wa.fold;
    wg_output_pos(wa.p, ph, fl, c, t);
    for (int q = 0; q < l.outer && l.storing; q++) {
        int phd[3];
        wg_fold_phase_split<POW2>(f, q * f.s[2] + l.r2, phd);
        int64_t off;
        if (!convt_fold_run_in_y(&f, phd, t[0], t[1], t[2], span, &off))
            return false;
    }
    return true;
}

/* One phase's rows of a lane's run (wg_fold_store_runs): P columns a
 * row, STEP apart in the staging (immediate offsets) and run_step floats
 * apart in y, the rows a loop. A row is P loads and stores and their
 * pointers' steps: with P and the rows both runtime loops (the first form,
 * 5e1c6ea) ptxas unrolled the columns by 4 with a remainder, and the
 * folds of P = 2 (a stride of 2 along the innermost dimension) ran 9 to
 * 34% slower than the general loop (realistic.json, session 53, call 3).
 * Unrolled, the rows predicated (ceil(16 / (P / 2 + 1)) of them, 8 at
 * P = 2: ade1e15), they spilled in the widths 224 and 256 in place and
 * ran 4 to 12% slower on the long rows than this loop (session 54, call 2). */
template <int P, bool KSPLIT>
__device__ __forceinline__ void wg_fold_store_run_rows(float *yq, const float *sq, int row0, int rows_out, int S,
                                                       int64_t plane, int run_step, bool add)
{
    constexpr int STEP = WG_EPI_COLS / P;
#pragma unroll 1
    for (int row = row0; row < rows_out; row += S, yq += plane, sq += S * WG_EPI_PITCH)
#pragma unroll
        for (int k = 0; k < P; k++)
            wg_store<KSPLIT>(yq + k * run_step, sq[k * STEP], add);
}

/* A lane's stores of a chunk as runs (the warp's two votes passed; t its
 * first column's folded position, y_n the image's outputs): for each of
 * its phases, the phase's rows (wg_fold_store_run_rows, one instance per
 * P, which the fold fixes for the whole launch). A warp's store is the
 * same s[2] x step neighbouring floats as the general loop's. */
template <bool POW2, bool KSPLIT>
__device__ __forceinline__ void wg_fold_store_runs(const convt_fold &f, const convt_fold_lane &l, const int (&t)[3],
                                                   float *y_n, const float *stage_w, int co_w, int rows_out,
                                                   int run_step, bool add)
{
    for (int q = 0; q < l.outer && l.storing; q++) {
        const int r = q * f.s[2] + l.r2;
        int phd[3], row0, ch0;
        wg_fold_phase_split<POW2>(f, r, phd);
        int64_t off;
        convt_fold_output(&f, phd, t[0], t[1], t[2], &off);
        wg_fold_phase_row0<POW2>(f, co_w, r, row0, ch0);
        float *yq = y_n + ch0 * f.out_plane + off;
        const float *sq = stage_w + row0 * WG_EPI_PITCH + l.u;
        if (l.P == 2)
            wg_fold_store_run_rows<2, KSPLIT>(yq, sq, row0, rows_out, f.S, f.out_plane, run_step, add);
        else if (l.P == 4)
            wg_fold_store_run_rows<4, KSPLIT>(yq, sq, row0, rows_out, f.S, f.out_plane, run_step, add);
        else if (l.P == 8)
            wg_fold_store_run_rows<8, KSPLIT>(yq, sq, row0, rows_out, f.S, f.out_plane, run_step, add);
        else
            wg_fold_store_run_rows<16, KSPLIT>(yq, sq, row0, rows_out, f.S, f.out_plane, run_step, add);
    }
}

template <int BN, bool POW2, bool KSPLIT, bool RUNS>
__device__ __forceinline__ void wg_fold_epilogue(const wg_args &wa, const wg_tile &tl,
                                                 const phase_desc &ph, const wg_phase_flat &fl,
                                                 const float (&d)[BN / 2], float *stage_w, int fw,
                                                 int co_w, int lane, const float *__restrict__ bias,
                                                 float *__restrict__ y, bool add)
{
    const poly_args &a = wa.p;
    const convt_fold &f = wa.fold;
    const int S = f.S;
    /* The lane's share (convt_fold_lane_of): an innermost phase r2, every
     * outer phase with it, P columns a chunk. */
    static_assert(WG_EPI_COLS == 32, "convt_fold_lane_of's steps make a chunk of 32 columns");
#ifndef CONVT_FOLD_LANES_BY_PHASE
    const convt_fold_lane l = convt_fold_lane_of(&f, lane);
#else /* diagnostic builds (-Dcuda_args=-DCONVT_FOLD_LANES_BY_PHASE): lanes in
       * groups of S, a phase each, and a phase's rows in a loop, as before
       * session 52, to compare */
    convt_fold_lane l;
    l.P = 1 << f.lgS;
    l.step = WG_EPI_COLS / l.P;
    l.r2 = lane % l.P;
    l.u = lane / l.P;
    l.outer = 1;
    l.storing = l.r2 < S; /* outer 1: r = r2, one phase a lane */
#endif
    const int rows_out = min(16, a.cout_g - co_w); /* the warp's folded rows that exist */
    float b_frag[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int co = co_w + lane / 4 + 8 * h; /* folded */
        b_frag[h] = bias && co < a.cout_g
                        ? bias[tl.g * f.cout_g + wg_fold_channel_of<POW2>(f, co)]
                        : 0.0f;
    }
    const int64_t image = (int64_t)wa.groups * f.cout_g * f.out_plane;
    float *y_g = y + (int64_t)tl.g * f.cout_g * f.out_plane;
    wg_cursor c = convt_wg_cursor_at(&ph, &fl, fw + l.u);
    const int span = (l.P - 1) * l.step;  /* a lane's last column of a chunk, from its first */
    const int run_step = l.step * f.s[2]; /* RUNS: y's floats from one column of it to the next */
#pragma unroll
    for (int jc = 0; jc < (BN + WG_EPI_COLS - 1) / WG_EPI_COLS; jc++) {
        const int cols = wg_epi_stage<BN>(d, b_frag, stage_w, jc, lane);
        __syncwarp();
        bool runs = false;
        int t[3]; /* the folded problem's output position */
#ifndef CONVT_FOLD_NO_RUNS /* diagnostic builds (-DCONVT_FOLD_NO_RUNS): every chunk the
                            * general way, as before session 53, to compare */
        /* one decision for the warp, in two votes (the second only where
         * the first passed): where its lanes decided apart, the warp ran
         * both paths (session 53, results/notes.md) */
        if constexpr (RUNS)
            runs = __all_sync(0xffffffffu, wg_fold_lane_in_row(wa, ph, fl, c, l, span, cols)) &&
                   __all_sync(0xffffffffu, wg_fold_lane_run_in_y<POW2>(wa, ph, fl, c, l, span, t));
#endif
        if (runs) {
            wg_fold_store_runs<POW2, KSPLIT>(f, l, t, y_g + c.n * image, stage_w, co_w, rows_out, run_step, add);
            c.col += l.P * l.step;
            convt_wg_cursor_carry(&c, &ph, &fl);
        } else {
            for (int k = 0; k < l.P; k++) {
                const int col = k * l.step + l.u;
                wg_output_pos(a, ph, fl, c, t);
                if (col < cols && l.storing && wg_is_output(wa, ph, fl, c)) {
                    float *y_n = y_g + c.n * image;
                    for (int q = 0; q < l.outer; q++) {
                        const int r = q * f.s[2] + l.r2;
                        int phd[3], row0, ch0;
                        wg_fold_phase_split<POW2>(f, r, phd);
                        int64_t off;
                        if (!convt_fold_output(&f, phd, t[0], t[1], t[2], &off))
                            continue;
                        wg_fold_phase_row0<POW2>(f, co_w, r, row0, ch0);
                        /* the phase's rows, 16 / S <= 8 of them (S >= 2),
                         * unrolled: a store is a load, a store and two steps */
                        float *yq = y_n + ch0 * f.out_plane + off;
                        const float *sq = stage_w + row0 * WG_EPI_PITCH + col;
#ifndef CONVT_FOLD_LANES_BY_PHASE
#pragma unroll
                        for (int i = 0; i < 8; i++, yq += f.out_plane, sq += S * WG_EPI_PITCH)
                            if (row0 + i * S < rows_out)
                                wg_store<KSPLIT>(yq, *sq, add);
#else
                        for (int row = row0; row < rows_out; row += S, yq += f.out_plane)
                            wg_store<KSPLIT>(yq, stage_w[row * WG_EPI_PITCH + col], add);
                        (void)sq;
#endif
                    }
                }
                c.col += l.step;
                convt_wg_cursor_carry(&c, &ph, &fl);
            }
        }
        __syncwarp();
    }
}

/* The fold's epilogue with positions as M (polyphase_wgmma_fold_posm_3xtf32,
 * declared in kernels/polyphase_wgmma_posm.cuh): register 4j + 2h + e of
 * a thread holds folded position tl.f0 + seg + 64b + 16 (warp % 4) +
 * lane / 4 + 8h and folded channel cf = 8j + 2 (lane % 4) + e, which is
 * phase cf % S of original channel cf / S (fold_phases.h). A position's
 * folded coordinates are found once for all its channels; each channel's
 * output is then the fold's map of (phase, position) (convt_fold_output),
 * and the four lanes of a position store its channels' phases side by
 * side where S is the innermost stride (a 1-D fold). Stored straight from
 * the fragments: with N = S x cout_g of 8 to 32 the accumulators are few
 * and a staging through shared memory would buy little. */
template <int MB, int NCOS, bool POW2>
__device__ __forceinline__ void wg_posm_fold_store(const wg_args &wa, const wg_tile &tl, const phase_desc &ph,
                                                   const wg_phase_flat &fl, const float (&acc)[MB][NCOS / 2],
                                                   int seg, int ctid, const float *__restrict__ bias,
                                                   float *__restrict__ y)
{
    const poly_args &a = wa.p;
    const convt_fold &f = wa.fold;
    const int lane = ctid % 32, warp4 = (ctid / 32) % 4;
    /* the thread's channels: original channel, phase split and bias, the
     * same for each of its positions */
    int ch[NCOS / 8][2], phd[NCOS / 8][2][3];
    float bv[NCOS / 8][2];
#pragma unroll
    for (int j = 0; j < NCOS / 8; j++)
#pragma unroll
        for (int e = 0; e < 2; e++) {
            const int cf = wg_acc_col(j, e, lane);
            ch[j][e] = cf < a.cout_g ? wg_fold_channel_of<POW2>(f, cf) : -1;
            wg_fold_phase_split<POW2>(f, wg_fold_phase_of<POW2>(f, cf), phd[j][e]);
            bv[j][e] = bias && ch[j][e] >= 0 ? bias[tl.g * f.cout_g + ch[j][e]] : 0.0f;
        }
    const int64_t image = (int64_t)wa.groups * f.cout_g * f.out_plane;
    float *y_g = y + (int64_t)tl.g * f.cout_g * f.out_plane;
#pragma unroll
    for (int b = 0; b < MB; b++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int p = seg + 64 * b + wg_acc_row(h, lane, warp4);
            const wg_cursor c = convt_wg_cursor_at(&ph, &fl, tl.f0 + p);
            if (!wg_is_output(wa, ph, fl, c))
                continue;
            int t[3]; /* the folded problem's output position */
            wg_output_pos(a, ph, fl, c, t);
            float *y_n = y_g + c.n * image;
#pragma unroll
            for (int j = 0; j < NCOS / 8; j++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    int64_t off;
                    if (ch[j][e] >= 0 && convt_fold_output(&f, phd[j][e], t[0], t[1], t[2], &off))
                        y_n[(int64_t)ch[j][e] * f.out_plane + off] = acc[b][4 * j + 2 * h + e] + bv[j][e];
                }
        }
}
#endif /* CONVT_HAVE_WGMMA */
#endif /* CONVT_KERNELS_POLYPHASE_WGMMA_FOLD_CUH */
