/* The stride phases folded into the output channels: a transposed
 * convolution of dilation 1 is a stride-1 transposed convolution with S =
 * stride[0] * stride[1] * stride[2] times the output channels, followed by
 * a depth-to-space rearrangement of its output.
 *
 * With o = t*s + r - pad (t the folded position, r the phase, 0 <= r < s)
 * the taps that reach o are k = j*s + r, reading input t - j (j < m, m =
 * ceil(k / s) strides): the same input shifts j for every phase. So
 *
 *   y[n][c][o]  =  Y[n][c*S + r][t],   Y = stride-1 convolution, pad 0,
 *   kernel m, weights W[ci][c*S + r][j] = w[ci][c][j*s + r],
 *
 * per dimension (r's innermost dimension fastest in c*S + r), and W is
 * zero where j*s + r >= k: a kernel that is no whole number of strides
 * long (k 3, stride 2: PyTorch's usual decoder layer) is the fold of one
 * padded with zero taps to m*s, the phases' taps made alike
 * (convt_fold_tap_present). A tile of Y
 * holds every phase of a stretch of outputs, so its stores fill whole
 * sectors, and the input is staged once for all the phases
 * (polyphase_wgmma_tf32, knob fold); phase by phase, each of the S phases
 * stores every S-th float (Nsight Compute on vocoder_up2, k16 stride 8:
 * L2 at 75% of its peak with the SMs at 17%).
 *
 * Y's positions t run over [0, in + m - 1); they cover outputs
 * [-pad, (in + m - 1)*s - pad), which is all of y when out_pad <= pad +
 * m*s - k (convt_fold_check). Any S from 2 to 16 folds: the maps below divide by
 * s[d] and S; the kernels' epilogue keeps shifts where S is a power of two
 * (the form measured before other strides folded) and divides otherwise.
 * The host (C11) and the kernels share what is here;
 * tests/test_fold_phases.c checks it against the float64 reference. */
#ifndef CONVT_SRC_LIB_FOLD_PHASES_H
#define CONVT_SRC_LIB_FOLD_PHASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostdevice.h"
#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phases a fold may have. The epilogue's lanes take an innermost phase
 * each, in groups of the power of two from s[2] up (convt_fold_lane_of):
 * 16 phases along it leave 2 columns a step. More would still work (32
 * lanes a column), but no layer has a kernel of more than 16 phases that
 * is whole strides long (a vocoder's stride 8, a 4 x 4 2-D stride), and
 * none was ever checked. */
#define CONVT_FOLD_MAX_PHASES 16

/* The least share of the padded kernel's taps (prod m[d]*s[d]) that are
 * w's own (prod k[d]) for a fold: below it the GEMM multiplies more zeros
 * than weights. Measured on the H100 (results/notes.md, session 35; the
 * k 4 analogs of session 28): k 3 at stride 2 in 3-D (27 of 64 taps w's)
 * lost to the unfolded kernels on all 8 layers measured, by 5 to 33%; in
 * 2-D (9 of 16) it won 2 of 4 (few channels: 32 -> 3, 64 -> 32, by 11
 * to 16%); in 1-D, k 5 at stride 2 (5 of 6) and k 7 at stride 4 (7 of 8)
 * won by 11 and 29%. */
#define CONVT_FOLD_MIN_PRESENT 0.5

/* What the folded output's consumer needs of the original problem, as
 * 3-dimensional (index 2 innermost; convt_problem_as_3d). S = 1: no fold. */
typedef struct convt_fold {
    int S;                 /* phases: s[0] * s[1] * s[2] */
    int s[3], m[3], pad[3], out[3];
    int lg[3];             /* the least power of two at or above s[d], its log2: s[d]'s
                            * where S is a power of two (convt_fold_phase_pow2); lg[2]
                            * the epilogue's lanes a column group (convt_fold_lane_of) */
    int lgS;               /* the same of S: where S is a power of two, a warp's first
                            * original channel is co_w >> lgS */
    int k[3];              /* the original kernel: m[d] * s[d], less the zero taps
                            * that pad it to whole strides (convt_fold_tap_present) */
    int ktaps;             /* k[0] * k[1] * k[2] */
    int cout_g;            /* the original output channels per group */
    int64_t out_plane;     /* out[0] * out[1] * out[2] */
} convt_fold;

/* Which dimensions a fold folds: `inner`, the count of p's innermost
 * dimensions folded, or CONVT_FOLD_ALL for every one
 * (polyphase_wgmma_fold_tf32). A partial fold (polyphase_wgmma_fold_inner_tf32)
 * leaves the outer dimensions as they are, their stride, pad, out_pad,
 * dilation and kernel kept in the folded problem, whose phases along them
 * the kernels run apart as for any strided problem; along those
 * dimensions the fold's map is the identity (s = 1, m = k, pad 0). So a
 * 3-D k 3, stride 2 layer folded along its innermost dimension alone is 3
 * of 4 taps w's own, where folded whole it is 27 of 64 (below
 * CONVT_FOLD_MIN_PRESENT), and each of its 4 phase classes stages its
 * input once for 2 phases, where apart each of 8 phases stages it. */
#define CONVT_FOLD_ALL 0

/* Whether p's dimension d (0 .. dims - 1) is folded by a fold of `inner`. */
CONVT_HD bool convt_fold_folds(const convt_problem *p, int inner, int d)
{
    return inner == CONVT_FOLD_ALL || d >= p->dims - inner;
}

/* NULL when p folds along its `inner` innermost dimensions (every one for
 * CONVT_FOLD_ALL): along each folded one dilation 1 and out_pad[d] <=
 * pad[d] + m[d]*s[d] - k[d] (else Y would not cover y's last outputs); S,
 * the folded dimensions' strides' product, in 2..CONVT_FOLD_MAX_PHASES;
 * and at least CONVT_FOLD_MIN_PRESENT of the padded kernel's taps w's own;
 * otherwise a sentence in buf. */
const char *convt_fold_check(const convt_problem *p, int inner, char *buf, size_t len);

/* The share of the kernel padded to whole strides (prod m[d]*s[d] over
 * the folded dimensions) that is w's own taps (prod k[d]): what
 * convt_fold_check holds against CONVT_FOLD_MIN_PRESENT. */
double convt_fold_present(const convt_problem *p, int inner);

/* The folded problem (along the folded dimensions stride 1, pad 0,
 * out_pad 0, kernel m; the others as p has them; cout * S output channels;
 * groups, images, input and bias flag kept) and the fold's description.
 * p must pass convt_fold_check with the same `inner`. */
convt_problem convt_fold_problem(const convt_problem *p, int inner);
convt_fold convt_fold_of(const convt_problem *p, int inner);
/* The identity fold of any problem (S = 1, s = 1, m = k): its weight index
 * is w's own, (ci * cout_g + co) * ktaps + tap, so the weight image's
 * kernel reads every wgmma variant's weights through one map. */
convt_fold convt_fold_identity(const convt_problem *p);

/* A folded output channel's phase r (in [0, S)) split per dimension, the
 * innermost dimension's phase fastest. */
CONVT_HD void convt_fold_phase(const convt_fold *f, int r, int ph[3])
{
    ph[2] = r % f->s[2];
    ph[1] = (r / f->s[2]) % f->s[1];
    ph[0] = r / (f->s[2] * f->s[1]);
}

/* convt_fold_phase where S is a power of two, by shifts: the folded
 * kernels measured before any other S folded compute it so, and keep
 * doing so (tests/test_fold_phases.c checks that the two agree). */
CONVT_HD void convt_fold_phase_pow2(const convt_fold *f, int r, int ph[3])
{
    ph[2] = r & (f->s[2] - 1);
    ph[1] = (r >> f->lg[2]) & (f->s[1] - 1);
    ph[0] = r >> (f->lg[2] + f->lg[1]);
}

/* Whether S is a power of two (the epilogue's shift form). */
CONVT_HD bool convt_fold_pow2(const convt_fold *f) { return (f->S & (f->S - 1)) == 0; }

/* One lane's share of an epilogue warp's stores (kernels/polyphase_wgmma_fold.cuh).
 * The warp holds folded rows co_w .. co_w + 15 of a group (co_w a multiple
 * of 16) x a staged chunk of 32 positions; row co_w + i is phase (co_w + i)
 * % S of original channel (co_w + i) / S. A phase r is q s[2] + r2: r2 its
 * part along the innermost dimension, q the outer dimensions' (q < outer =
 * S / s[2]). Lanes go in groups of P, the power of two from s[2] up: lane
 * r2 + P u stores every row whose phase has innermost part r2 (r2 < s[2];
 * the group's other P - s[2] lanes store nothing), at columns u, u + step,
 * ..., P steps of step = 32 / P columns making the chunk; for each column
 * the phases q s[2] + r2 in turn, each at its rows row0, row0 + S, ... of
 * original channels ch0, ch0 + 1, ... (convt_fold_row0; at S = 6 a warp's
 * 16 rows straddle up to four original channels, so row0 is not r).
 *
 * So one store of the warp covers s[2] x step neighbouring outputs along
 * the innermost dimension (32 where s[2] is a power of two), and a lane
 * finds a column's position P times a chunk. Lanes in groups of S (before
 * session 52) found it S times: twice a chunk where only rows fold (the row
 * fold's S = 2 along the rows, kb71: 41% of the epilogue's instructions
 * were the columns' positions), each store two half rows of 16. */
typedef struct convt_fold_lane {
    int P, step;  /* lanes per column group, columns per step */
    int r2, u;    /* the lane's innermost phase and first column */
    int outer;    /* phases sharing r2: S / s[2] */
    bool storing; /* r2 < s[2] */
} convt_fold_lane;

CONVT_HD convt_fold_lane convt_fold_lane_of(const convt_fold *f, int lane)
{
    convt_fold_lane l;
    l.P = 1 << f->lg[2];
    l.step = 32 / l.P;
    l.r2 = lane % l.P;
    l.u = lane / l.P;
    l.outer = f->S / f->s[2];
    l.storing = l.r2 < f->s[2];
    return l;
}

/* The warp's first row of phase r: co_w + row0 = r (mod S). Where S is a
 * power of two it divides co_w, and row0 is r. */
CONVT_HD int convt_fold_row0(const convt_fold *f, int co_w, int r) { return (r + f->S - co_w % f->S) % f->S; }

/* A folded channel's original channel (within the group). */
CONVT_HD int convt_fold_channel(const convt_fold *f, int cf) { return cf / f->S; }

/* Where W's tap jlin = (j0*m1 + j1)*m2 + j2 reads in the original kernel,
 * phase 0: the taps j*s[d], as a tap index of w. */
/* W's tap jlin = (j0*m1 + j1)*m2 + j2 split into its shifts j[d]. */
CONVT_HD void convt_fold_tap_shifts(const convt_fold *f, int jlin, int j[3])
{
    j[2] = jlin % f->m[2];
    j[1] = (jlin / f->m[2]) % f->m[1];
    j[0] = jlin / (f->m[2] * f->m[1]);
}

CONVT_HD int convt_fold_tap_base(const convt_fold *f, int jlin)
{
    int j[3];
    convt_fold_tap_shifts(f, jlin, j);
    return ((j[0] * f->s[0]) * f->k[1] + j[1] * f->s[1]) * f->k[2] + j[2] * f->s[2];
}

/* Whether W's tap jlin of phase r (0 <= r < S) is one of w's taps: j[d]*s[d]
 * + ph[d] < k[d] along every dimension. Always so where every k[d] is a
 * whole number of strides; elsewhere W holds zero there, and
 * convt_fold_weight_index's answer for it is no weight of w. */
CONVT_HD bool convt_fold_tap_present(const convt_fold *f, int r, int jlin)
{
    int ph[3], j[3];
    convt_fold_phase(f, r, ph);
    convt_fold_tap_shifts(f, jlin, j);
    return j[0] * f->s[0] + ph[0] < f->k[0] && j[1] * f->s[1] + ph[1] < f->k[1] && j[2] * f->s[2] + ph[2] < f->k[2];
}

/* The phases r whose tap jlin is present (convt_fold_tap_present), bit r
 * of the mask (S <= CONVT_FOLD_MAX_PHASES = 16 bits): the weight image's
 * kernel tests its folded channel's phase against it. */
CONVT_HD int convt_fold_tap_phases(const convt_fold *f, int jlin)
{
    int mask = 0;
    for (int r = 0; r < f->S; r++)
        mask |= (int)convt_fold_tap_present(f, r, jlin) << r;
    return mask;
}

/* Whether some k[d] is no whole number of strides: W then has zero taps,
 * which only a weight image holds (convt_fold_tap_present). */
CONVT_HD bool convt_fold_padded(const convt_fold *f)
{
    return f->m[0] * f->s[0] != f->k[0] || f->m[1] * f->s[1] != f->k[1] || f->m[2] * f->s[2] != f->k[2];
}

/* The original weight w[ci][c][k] that W[ci][cf][jlin] is, as an index into
 * w: ci counts from 0 over all input channels (g * cin_g + ci within the
 * group), cf is a folded channel of the group, tap_base =
 * convt_fold_tap_base(f, jlin), a tap present for cf's phase
 * (convt_fold_tap_present). It is a sum of a term of ci (ci times the
 * index of ci = 1, cf = 0, tap_base = 0), a term of cf (the index of ci =
 * 0, cf, tap_base = 0) and tap_base: the weight image's threads add them
 * (tests/test_fold_phases.c checks it). */
CONVT_HD int64_t convt_fold_weight_index(const convt_fold *f, int64_t ci, int cf, int tap_base)
{
    int ph[3];
    convt_fold_phase(f, cf % f->S, ph);
    return (ci * f->cout_g + convt_fold_channel(f, cf)) * f->ktaps + tap_base + (ph[0] * f->k[1] + ph[1]) * f->k[2] +
           ph[2];
}

/* Where Y's position (t0, t1, t2) of phase ph goes in its original
 * channel's plane: true and *off, or false where that is outside y (the
 * pad's outputs before 0 and past out). Along a dimension a partial fold
 * leaves alone, t is y's own output index (s = 1, ph 0, pad 0). */
CONVT_HD bool convt_fold_output(const convt_fold *f, const int ph[3], int t0, int t1, int t2,
                                int64_t *off)
{
    const int o0 = t0 * f->s[0] + ph[0] - f->pad[0], o1 = t1 * f->s[1] + ph[1] - f->pad[1],
              o2 = t2 * f->s[2] + ph[2] - f->pad[2];
    if ((unsigned)o0 >= (unsigned)f->out[0] || (unsigned)o1 >= (unsigned)f->out[1] ||
        (unsigned)o2 >= (unsigned)f->out[2])
        return false;
    *off = ((int64_t)o0 * f->out[1] + o1) * f->out[2] + o2;
    return true;
}

/* Whether the outputs of phase ph at folded positions (t0, t1, t2), (t0,
 * t1, t2 + 1), ..., (t0, t1, t2 + span) all lie in y: so where the first's
 * and the last's do, o2 = t2 s[2] + ph[2] - pad[2] growing with t2 and o0,
 * o1 staying. Then each lies s[2] floats after the one before, the first
 * at *off. The folded epilogue stores a lane's columns of a chunk so, as
 * runs, where this holds for all of the lane's phases (kernels/
 * polyphase_wgmma_fold.cuh, wg_fold_lane_runs). */
CONVT_HD bool convt_fold_run_in_y(const convt_fold *f, const int ph[3], int t0, int t1, int t2, int span,
                                  int64_t *off)
{
    int64_t last;
    return convt_fold_output(f, ph, t0, t1, t2 + span, &last) && convt_fold_output(f, ph, t0, t1, t2, off);
}

#ifdef __cplusplus
}
#endif
#endif
