/* The phase plan of the polyphase implicit GEMM (kernels/
 * cuda_polyphase_igemm.cu), made on the host: the stride phases of the
 * output, the output positions of each (o = q*stride + ph - pad, q from
 * q_min, q_count of them per dimension) and the taps that reach each (with
 * the offset off = q - i of the input each reads). tests/test_polyphase_plan.c
 * checks that every (output, tap) pair that contributes lands in exactly
 * one phase, at the right offset, and no other pair does. */
#ifndef CONVT_SRC_LIB_POLYPHASE_PLAN_H
#define CONVT_SRC_LIB_POLYPHASE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "fastdiv.h"
#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One phase: its residues, output positions and its taps
 * (taps[tap_begin .. tap_begin + ntaps)). */
typedef struct convt_phase_desc {
    int m_count;            /* images x q_count[0] x q_count[1] x q_count[2], < 2^31 */
    int m_tiles;            /* M tiles of BM rows */
    int ntaps, tap_begin;
    int ph[3], q_min[3], q_count[3];
    convt_fastdiv q_div[3]; /* division by q_count[d], for the row -> position split */
} convt_phase_desc;

/* A tap of a phase: its index into the weights' k0 x k1 x k2 and its offsets. */
typedef struct convt_phase_tap {
    int lin, off[3];
} convt_phase_tap;

/* The phases in launch order (those no tap reaches along an outer
 * dimension left out: prefill says the output must be filled first). */
typedef struct convt_phase_plan {
    int nphases, ntaps_total, m_tiles; /* m_tiles: of the longest phase */
    bool prefill;
    int seg; /* 0, or the outputs a segment of a row (convt_wg_segment_phases: a 2-D plan, its
              * rows cut into segments that the lifted dimension 0 counts) */
    convt_phase_desc *phases;
    convt_phase_tap *taps;
} convt_phase_plan;

/* 0, or -1 when the plan does not fit an int (reason in why). bm: rows per
 * M tile. */
int convt_phase_plan_make(const convt_problem *p, int bm, convt_phase_plan *pl, char *why,
                          size_t why_len);
void convt_phase_plan_free(convt_phase_plan *pl);

/* A tap row of a phase: its taps that share the offsets along dimensions 0
 * and 1 (taps[tap_begin .. tap_begin + ntaps), consecutive in the plan,
 * off[2] increasing). They read one input row, each shifted by its own
 * off[2]: polyphase_wgmma_tf32 stages the row once for all of them.
 *
 * A tap plane (plane = 1): the taps that share off[0] only. They read one
 * stretch of input rows, staged once: off[1] is then the plane's largest
 * offset along dimension 1 (the one that names the staged rows), and a tap
 * at off1 reads off[1] - off1 staged rows further (wgmma_flat.h). Where a
 * phase's taps all share off[1] too, planes and rows are the same. */
typedef struct convt_phase_tap_row {
    int off[2];
    int off1_min; /* the smallest off[1] of its taps: off[1] itself in a tap row */
    int off2_min, off2_max;
    int tap_begin, ntaps;
} convt_phase_tap_row;

/* The tap rows (plane = 0) or tap planes (plane = 1) of every phase:
 * rows[row_begin[i] .. row_begin[i + 1]) are phase i's, in its taps' order;
 * row_begin has nphases + 1 entries. Both arrays are malloc'd (free them);
 * 0, or -1 when out of memory. */
int convt_phase_plan_rows(const convt_phase_plan *pl, int plane, convt_phase_tap_row **rows,
                          int **row_begin);

#ifdef __cplusplus
}
#endif
#endif
