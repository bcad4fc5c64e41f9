/* polyphase_wgmma_colsum_tf32's consumer warpgroups (COLS > 0): positions
 * as wgmma's M, as with pos_m = 1 (polyphase_wgmma_posm.cuh), but each
 * staged input row read from shared memory once for all the taps along
 * the row. Included by kernels/polyphase_wgmma.cuh, whose producer, stages
 * and tile list it shares.
 *
 * Why: with positions as M and a group's few channels as N, a wgmma is
 * m64 n(8 to 32) k8, and it reads its 2 KB A operand (64 staged positions
 * x 8 channels) from shared memory for every tap. On kb70 (24 output
 * channels) that traffic, not the multiplies, set the time: L1/shared at
 * 85%, the tensor pipe well under half busy (results/notes.md, sessions
 * 21 and 22). The taps of a tap row (or of one offset along dimension 1
 * within a tap plane) differ only in their column shift C: output q sums
 * A[q + R + C(t)] x W(t) over them. Turned around, Z_C[m] = A[m + R] x W(t)
 * reads A at the same rows for every C, and output q is the sum over C of
 * Z_C[q + C]. So a group's A fragments are loaded into registers once
 * (wgmma's register-A form), each tap's wgmma multiplies them into its own
 * accumulators (one set per column shift), and the epilogue adds the sets
 * at their shifts. The shared-memory bytes a stage reads fall from
 * taps x (A + B) to A + taps x B: on kb70's 3 taps a row, 2.4x fewer.
 *
 * The shift carries a set's rows up to span = (kw - 1) x step further
 * than the output's, so a warpgroup computes BN rows and stores the first
 * col_out = BN - span (rounded up to 4) of them; the next warpgroup's, and
 * the next tile's, start col_out further (the tile list's unit is
 * NSEG x col_out positions). The producer stages the same stretch as for
 * BN outputs a warpgroup: enough for these rows.
 *
 * The host (wg_colsum_check) admits a launch only where every tap row or
 * plane is groups of kw = COLS taps that share their offset along dimension 1,
 * in order of off[2], shifted by (kw - 1 - j) x step for the group's j-th
 * tap against its last: stride 1 along the innermost dimension (every
 * phase has all kw taps of a row), step its dilation. */
#ifndef CONVT_KERNELS_POLYPHASE_WGMMA_COLSUM_CUH
#define CONVT_KERNELS_POLYPHASE_WGMMA_COLSUM_CUH

#if CONVT_HAVE_WGMMA
/* The most accumulators a thread keeps (COLS sets x BN / 64 blocks x NCOS /
 * 2), and with them the A fragments' two register sets (2 x BN / 64 x BK /
 * 8 x 4): beyond 160, ptxas serialised the wgmma of BN 128, BK 32, 16
 * channels, 7 sets (C7512, insufficient registers; 112 + 64). */
enum {
    WG_COLSUM_MAX_ACC = 112,
    WG_COLSUM_MAX_REGS = 160,
};

/* The epilogue's rows in shared memory, in floats: a multiple of 8 past a
 * multiple of 32, so that the float2 stores of a half warp (4 rows x 4
 * column pairs) hit 32 different banks. */
__host__ __device__ constexpr int wg_colsum_pitch(int ncos)
{
    return ncos <= 8 ? 8 : 40;
}

/* A consumer warpgroup's share of the epilogue's staging: its BN rows of
 * the sets (the host sizes the block's shared memory with two). */
__host__ __device__ constexpr int wg_colsum_group_bytes(int bn, int ncos)
{
    return bn * wg_colsum_pitch(ncos) * 4;
}

/* Whether kernels are compiled for kw taps along a row: 3, 5 or 7, one
 * column set each. Exactly: with sets to spare, each behind a test of the
 * run-time kw, ptxas closed a wgmma group at every test (tools/wgmma-sass.sh:
 * 6 groups and 2 empty HGMMA for 2 x 3 sets), so that the wait for the
 * group before also waited for most of the current one. */
__host__ __device__ constexpr bool wg_colsum_taps_compiled(int kw)
{
    return kw == 3 || kw == 5 || kw == 7;
}
__host__ __device__ constexpr bool wg_colsum_fits(int bn, int bk, int ncos, int sets)
{
    return sets * (bn / 64) * (ncos / 2) <= WG_COLSUM_MAX_ACC &&
           sets * (bn / 64) * (ncos / 2) + 2 * (bn / 64) * (bk / 8) * 4 <= WG_COLSUM_MAX_REGS;
}

/* The 128 threads of consumer warpgroup cw meet (named barriers 1 and 2;
 * 0 is __syncthreads'), the other warpgroup and the producer unaffected. */
__device__ __forceinline__ void wg_group_sync(int cw)
{
    asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
}

/* One group of a stage's taps (COLS of them, one offset along dimension
 * 1): the thread's A fragments of the group's staged rows (in: the rows'
 * start, this thread's row and column included) into a, then each tap's
 * wgmma on them into the set of its column shift c (tap COLS - 1 - c of
 * the group, whose weights are at w + (COLS - 1 - c) x wtap_bytes),
 * committed as one group. */
template <int MB, int KS, int NA, int COLS>
__device__ __forceinline__ void wg_colsum_group(uint32_t (&a)[MB][KS][4], float (&acc)[COLS][MB][NA],
                                                const unsigned char *in, const unsigned char *w,
                                                const wg_stage_layout &sl)
{
#pragma unroll
    for (int b = 0; b < MB; b++)
#pragma unroll
        for (int kk = 0; kk < KS; kk++) {
            const unsigned char *p = in + b * (64 * 16) + kk * 2 * sl.b_lbo;
            a[b][kk][0] = *(const uint32_t *)p;
            a[b][kk][1] = *(const uint32_t *)(p + 8 * 16);
            a[b][kk][2] = *(const uint32_t *)(p + sl.b_lbo);
            a[b][kk][3] = *(const uint32_t *)(p + sl.b_lbo + 8 * 16);
        }
    wgmma_fence();
#pragma unroll
    for (int c = 0; c < COLS; c++) {
        const unsigned char *w_t = w + (COLS - 1 - c) * sl.wtap_bytes;
#pragma unroll
        for (int kk = 0; kk < KS; kk++) {
            const uint64_t wd = wg_descriptor(w_t + kk * 2 * sl.a_lbo, sl.a_lbo, 128);
#pragma unroll
            for (int b = 0; b < MB; b++)
                wgmma_tf32_rs(acc[c][b], a[b][kk], wd);
        }
    }
    wgmma_commit();
}

/* One tile of the work list: the K loop over the stages (the producer's
 * stages, barriers and ring, as wg_posm_tile), the column sets summed at
 * their shifts through ys (this warpgroup's BN x wg_colsum_pitch floats),
 * then the first col_out rows stored. */
template <int BN, int BK, int NCOS, int COLS>
__device__ __forceinline__ void wg_colsum_tile(const wg_args &wa, const wg_tile &tl,
                                               const phase_desc &ph, const wg_phase_flat &fl,
                                               int ktiles, wg_ring &ring, const wg_stage_layout &sl,
                                               const convt_phase_tap_row *s_rows, const int *s_shift,
                                               uint64_t *full, uint64_t *empty, int wg_seg, int ctid,
                                               float *ys, const float *__restrict__ bias,
                                               float *__restrict__ y)
{
    constexpr int MB = BN / 64, NA = NCOS / 2, KS = BK / 8, S = wg_colsum_pitch(NCOS);
    static_assert(BN % 64 == 0 && BK % 8 == 0 && NCOS % 8 == 0 && NCOS <= 32, "m64 blocks, k8 steps, N 8 to 32");
    static_assert(wg_colsum_fits(BN, BK, NCOS, COLS), "the column sets' accumulators and A fragments");
    const poly_args &a = wa.p;
    const int stages = a.stages, seg0 = wg_seg * wa.col_out;
    const int lane = ctid % 32, warp4 = (ctid / 32) % 4, cw = ctid / 128;
    float acc[COLS][MB][NA];
#pragma unroll
    for (int c = 0; c < COLS; c++)
#pragma unroll
        for (int b = 0; b < MB; b++)
#pragma unroll
            for (int i = 0; i < NA; i++)
                acc[c][b][i] = 0.0f;
    /* two register sets for the A fragments, taken in turn: a group's
     * loads wait only for the group two before, which read the same set.
     * The second set's loads go through an address the compiler cannot
     * prove equal to the first's (in + zero): with the same address in
     * both branches, it hoisted the first K step's loads out of them into
     * one register set that both shared (SASS, call 1 of session 29),
     * which a group's loads then overwrote while the group before still
     * read it: 219 of 1436 launches wrong, all of them tap planes, whose
     * groups follow each other within a stage. This rests on what the
     * compiler does with the branches, not on a rule it must keep: after a
     * toolkit update, run configs/colsum-check.json (tap planes) again. */
    uint32_t a0[MB][KS][4], a1[MB][KS][4];
    bool odd = false;
    int zero;
    asm volatile("mov.b32 %0, 0;" : "=r"(zero));
    /* the thread's A row (its warp's 16 of each m64 block, lane / 4) and
     * column (lane % 4) in a staged stretch */
    const int a_off = (seg0 + 16 * warp4 + lane / 4) * 16 + (lane % 4) * 4;
    int k_row = 0, k_ci0 = 0, prev_buf = 0;
    for (int kt = 0; kt < ktiles; kt++, prev_buf = ring.buf, wg_ring_step(ring, stages)) {
        const int buf = ring.buf;
        /* the input's copies are read by ld.shared (generic proxy, as they
         * were written) and the weights by wgmma (async proxy, as the TMA
         * wrote them): no proxy fence */
        mbar_wait(&full[buf], ring.phase);
        const unsigned char *st = sl.base + (size_t)buf * sl.stage_bytes;
        const convt_phase_tap_row r = s_rows[fl.row_begin + k_row];
        for (int g = 0; g * COLS < r.ntaps; g++) {
            /* the group's last tap has no column shift: R, its shift, is the group's rows' */
            const int tb = r.tap_begin + g * COLS, R = s_shift[tb + COLS - 1];
            const unsigned char *in_g = st + a_off + R * 16;
            const unsigned char *w_g = st + sl.in_bytes + g * COLS * sl.wtap_bytes;
            wgmma_wait_prev();
            if (odd)
                wg_colsum_group<MB, KS, NA, COLS>(a1, acc, in_g + zero, w_g, sl);
            else
                wg_colsum_group<MB, KS, NA, COLS>(a0, acc, in_g, w_g, sl);
            odd = !odd;
        }
        /* all but this stage's last group done: the stage before is free */
        wgmma_wait_prev();
        if (kt > 0 && ctid % 128 == 0)
            mbar_arrive(&empty[prev_buf]);
        k_ci0 += BK;
        if (k_ci0 >= a.cin_g) {
            k_ci0 = 0;
            k_row++;
        }
    }
    wgmma_wait_all();
    if (ktiles > 0 && ctid % 128 == 0)
        mbar_arrive(&empty[prev_buf]);

    /* The sets summed: output row m (local) = set 0's row m + set c's row
     * m + c x step, each set c > 0 passed through ys (register 4j + 2h + e
     * of a thread: row 16 (warp % 4) + lane / 4 + 8h of its m64 block,
     * channel 8j + 2 (lane % 4) + e). Rows past BN are never needed: the
     * stored rows end span rows before BN. */
    const int step = wa.col_step;
#pragma unroll
    for (int c = 1; c < COLS; c++) {
#pragma unroll
        for (int b = 0; b < MB; b++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int m = 64 * b + 16 * warp4 + lane / 4 + 8 * h;
#pragma unroll
                for (int j = 0; j < NCOS / 8; j++)
                    *(float2 *)&ys[m * S + 8 * j + 2 * (lane % 4)] =
                        make_float2(acc[c][b][4 * j + 2 * h], acc[c][b][4 * j + 2 * h + 1]);
            }
        wg_group_sync(cw);
#pragma unroll
        for (int b = 0; b < MB; b++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int m = 64 * b + 16 * warp4 + lane / 4 + 8 * h + c * step;
                if (m < BN)
#pragma unroll
                    for (int j = 0; j < NCOS / 8; j++) {
                        const float2 v = *(const float2 *)&ys[m * S + 8 * j + 2 * (lane % 4)];
                        acc[0][b][4 * j + 2 * h] += v.x;
                        acc[0][b][4 * j + 2 * h + 1] += v.y;
                    }
            }
        wg_group_sync(cw);
    }

    /* the rows below col_out stored (the rest feed them) */
    wg_posm_store<MB, NCOS, true>(wa, tl, ph, fl, acc[0], seg0, wa.col_out, ctid, bias, y);
}
#endif /* CONVT_HAVE_WGMMA */

#endif /* CONVT_KERNELS_POLYPHASE_WGMMA_COLSUM_CUH */
