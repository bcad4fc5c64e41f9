/* The period form of the innermost dimension (src/lib/stride_phase.h:
 * convt_period_of, convt_tap_period_phase, convt_tap_period_offset), which
 * direct_periods uses to compute every phase of a stretch of outputs in one
 * thread, against the gather definition (convt_gather_src) on 4000 random
 * dimensions: tap k reaches output o exactly when its period phase is o's
 * and the input q - off is in range, and then it is the input the
 * definition reads, and convt_phase_taps_max is the fullest phase's count.
 * Then the kernel's walk itself, modelled on the host:
 * one accumulator per tap for each period of a warp's 32, summed into
 * phases and written through the warp's buffer by element e = j * 32 +
 * lane (output q0 * stride - pad + e), gives every output of the 1-D
 * convolution of small integers exactly, where a model that reads input q
 * - off + 1 or writes element e + 1 does not. And col2im's 32-bit walk of
 * an output's taps (convt_tap_walk_at) and its count of the taps in
 * range (convt_tap_walk_span) against the definition; and how many
 * outputs a col2im thread sums (convt_col2im_outs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "col2im_outs.h"
#include "hostdevice.h"
#include "stride_phase.h"
#include "test_util.h"

enum { MAX_K = 8, WARP = 32 };

static uint64_t rng_state = 8086;
static int pick(int lo, int hi) { return (int)convt_next_in(&rng_state, lo, hi); }

typedef struct dims1 {
    int in, k, stride, pad, dil, out;
} dims1;

static int draw(dims1 *d)
{
    d->in = pick(1, 70), d->k = pick(1, MAX_K), d->stride = pick(1, 9), d->dil = pick(1, 4);
    d->pad = pick(0, d->dil * (d->k - 1));
    const int out_pad = pick(0, (d->stride > d->dil ? d->stride : d->dil) - 1);
    d->out = (int)out_extent(d->in, d->k, d->stride, d->pad, d->dil, out_pad);
    return d->out >= 1;
}

static void taps_reach_by_period_as_by_definition(void **state)
{
    (void)state;
    int dims = 0, reached = 0;
    while (dims < 4000) {
        dims1 d;
        if (!draw(&d))
            continue;
        dims++;
        /* the most taps a phase has (the kernels size their shared
         * memory by it) is the count of the fullest phase */
        int most = 0;
        for (int ph = 0; ph < d.stride; ph++) {
            int count = 0;
            for (int k = 0; k < d.k; k++)
                count += convt_tap_period_phase(k, d.stride, d.dil) == ph;
            most = count > most ? count : most;
        }
        assert_int_equal(convt_phase_taps_max(d.k, d.stride, d.dil), most);
        for (int o = 0; o < d.out; o++) {
            const int64_t q = convt_period_of(o, d.stride, d.pad);
            const int64_t ph = o + d.pad - q * d.stride;
            assert_true(ph >= 0 && ph < d.stride);
            for (int k = 0; k < d.k; k++) {
                const int64_t want = convt_gather_src(o, k, d.stride, d.pad, d.dil, d.in);
                const int64_t i = q - convt_tap_period_offset(k, d.stride, d.dil);
                const int by_period =
                    convt_tap_period_phase(k, d.stride, d.dil) == ph && i >= 0 && i < d.in;
                if (by_period != (want >= 0) || (by_period && i != want))
                    fail_msg("in %d k %d stride %d pad %d dil %d: output %d tap %d reads %lld by "
                             "definition, %lld (%s) by period", d.in, d.k, d.stride, d.pad,
                             d.dil, o, k, (long long)want, (long long)i,
                             by_period ? "reached" : "not reached");
                reached += by_period;
            }
        }
    }
    assert_true(reached > 50000);
}

/* direct_periods' walk along one dimension, one channel each way; `bug`
 * plants an off-by-one in the read (1) or in the write-back (2). */
static void periods_model(const dims1 *d, const int *x, const int *w, int *y, int bug)
{
    const int q_lo = (int)convt_period_of(0, d->stride, d->pad);
    const int q_hi = (int)convt_period_of(d->out - 1, d->stride, d->pad);
    int buf[WARP * 9];
    for (int q0 = q_lo; q0 <= q_hi; q0 += WARP) {
        for (int lane = 0; lane < WARP; lane++) {
            const int q = q0 + lane;
            int acc[MAX_K] = {0};
            for (int k = 0; k < d->k; k++) {
                const int i = q - (int)convt_tap_period_offset(k, d->stride, d->dil) + (bug == 1);
                if (i >= 0 && i < d->in)
                    acc[k] += x[i] * w[k];
            }
            for (int p = 0; p < d->stride; p++) {
                int v = 0;
                for (int k = 0; k < d->k; k++)
                    if (convt_tap_period_phase(k, d->stride, d->dil) == p)
                        v += acc[k];
                buf[lane * d->stride + p] = v;
            }
        }
        for (int j = 0; j < d->stride; j++)
            for (int lane = 0; lane < WARP; lane++) {
                const int e = j * WARP + lane, o = q0 * d->stride - d->pad + e + (bug == 2);
                if (o >= 0 && o < d->out)
                    y[o] = buf[e];
            }
    }
}

/* col2im's walk (convt_tap_walk_at, then every step-th tap, di inputs
 * fewer) visits exactly the (tap, input) pairs that convt_gather_src finds
 * over every tap, for every output of 4000 random dimensions, in tap
 * order; its span (convt_tap_walk_span) counts them and starts at the
 * first. */
static void tap_walks_visit_the_gather_taps(void **state)
{
    (void)state;
    int dims = 0;
    long visited = 0;
    while (dims < 4000) {
        dims1 d;
        if (!draw(&d))
            continue;
        dims++;
        const int step = (int)convt_phase_step(d.stride, d.dil), di = step * d.dil / d.stride;
        for (int o = 0; o < d.out; o++) {
            int want_k[MAX_K], want_i[MAX_K], n_want = 0, n_got = 0;
            for (int k = 0; k < d.k; k++) {
                const int64_t i = convt_gather_src(o, k, d.stride, d.pad, d.dil, d.in);
                if (i >= 0)
                    want_k[n_want] = k, want_i[n_want++] = (int)i;
            }
            const int t = o + d.pad;
            const convt_tap_walk first =
                convt_tap_walk_at(t, t / d.stride, d.stride, d.dil, d.k, step);
            for (convt_tap_walk w = first; w.k < d.k && w.i >= 0; w.k += step, w.i -= di) {
                if (w.i >= d.in)
                    continue;
                if (n_got >= n_want || w.k != want_k[n_got] || w.i != want_i[n_got])
                    fail_msg("in %d k %d stride %d pad %d dil %d, output %d: the walk reads tap "
                             "%d input %d", d.in, d.k, d.stride, d.pad, d.dil, o, w.k, w.i);
                n_got++;
            }
            if (n_got != n_want)
                fail_msg("in %d k %d stride %d pad %d dil %d, output %d: %d taps walked, %d reach",
                         d.in, d.k, d.stride, d.pad, d.dil, o, n_got, n_want);
            /* the span: the same taps, counted */
            const convt_tap_span sp = convt_tap_walk_span(first, di, d.k / step, d.k % step, d.in);
            const int spanned = sp.hi > sp.lo ? sp.hi - sp.lo : 0;
            const bool starts_at_first =
                !n_want || (first.k + sp.lo * step == want_k[0] && first.i - sp.lo * di == want_i[0]);
            if (spanned != n_want || !starts_at_first)
                fail_msg("in %d k %d stride %d pad %d dil %d, output %d: span [%d, %d) for %d taps "
                         "from tap %d", d.in, d.k, d.stride, d.pad, d.dil, o, sp.lo, sp.hi, n_want,
                         n_want ? want_k[0] : -1);
            visited += n_got;
        }
    }
    assert_true(visited > 10000);
}

/* y = the 1-D transposed convolution of x and w by the gather definition. */
static void by_definition(const dims1 *d, const int *x, const int *w, int *y)
{
    for (int o = 0; o < d->out; o++) {
        y[o] = 0;
        for (int k = 0; k < d->k; k++) {
            const int64_t i = convt_gather_src(o, k, d->stride, d->pad, d->dil, d->in);
            if (i >= 0)
                y[o] += x[i] * w[k];
        }
    }
}

static int model_matches(const dims1 *d, const int *x, const int *w, int bug)
{
    int y[2048], want[2048];
    for (int o = 0; o < d->out; o++)
        y[o] = -12345;
    by_definition(d, x, w, want);
    periods_model(d, x, w, y, bug);
    return memcmp(y, want, sizeof(int) * (size_t)d->out) == 0;
}

static void the_walk_writes_every_output(void **state)
{
    (void)state;
    int dims = 0, caught_read = 0, caught_write = 0;
    while (dims < 3000) {
        dims1 d;
        if (!draw(&d))
            continue;
        assert_true(d.out <= 2048);
        dims++;
        int x[70], w[MAX_K];
        for (int i = 0; i < d.in; i++)
            x[i] = pick(-9, 9);
        for (int k = 0; k < d.k; k++)
            w[k] = pick(-9, 9);
        if (!model_matches(&d, x, w, 0))
            fail_msg("in %d k %d stride %d pad %d dil %d out %d: the period walk differs from "
                     "the definition", d.in, d.k, d.stride, d.pad, d.dil, d.out);
        caught_read += !model_matches(&d, x, w, 1);
        caught_write += !model_matches(&d, x, w, 2);
    }
    /* the planted bugs show on most dimensions (not all: all-zero data) */
    assert_true(caught_read > 2000 && caught_write > 2000);
}

/* row_mma_tf32's stretches along one dimension, one channel each way
 * (src/lib/stride_phase.h, convt_stretch_*): a block of bn / 8 n-tiles
 * covers `pgroups` = bn / 8 / stride groups of 8 periods of every phase;
 * each tile sums, for the 8 periods of its phase, the taps of that phase
 * over the staged window (input q_first - off_max ..); the tile's outputs
 * go to element p * stride + ph of the stretch, written as output q_first
 * * stride - pad + e. Every output must be written once, every window read
 * inside the window; `bug` plants an off-by-one in the window read (1),
 * the element (2) or a tile's period (3). */
static int stretch_model(const dims1 *d, int bn, const int *x, const int *w, int *y, int bug)
{
    const int pgroups = bn / 8 / d->stride, periods = 8 * pgroups;
    const int off_max = (int)convt_tap_period_offset(d->k - 1, d->stride, d->dil);
    const int q_lo = (int)convt_period_of(0, d->stride, d->pad);
    const int q_hi = (int)convt_period_of(d->out - 1, d->stride, d->pad);
    const int xw = periods + off_max, span = periods * d->stride;
    int win[512], tile[512], written[2048] = {0};
    assert_true(xw <= 512 && span <= 512 && d->out <= 2048);
    for (int q_first = q_lo; q_first <= q_hi; q_first += periods) {
        for (int j = 0; j < xw; j++) {
            const int i = q_first - off_max + j;
            win[j] = i >= 0 && i < d->in ? x[i] : 0;
        }
        for (int e = 0; e < span; e++)
            tile[e] = -777; /* must all be overwritten */
        for (int t = 0; t < bn / 8; t++) {
            const int ph = convt_stretch_tile_phase(t, d->stride, pgroups);
            if (ph < 0)
                continue;
            const int p0 = convt_stretch_tile_period(t, d->stride) + (bug == 3);
            for (int col = 0; col < 8; col++) {
                int acc = 0;
                for (int k = 0; k < d->k; k++) {
                    if (convt_tap_period_phase(k, d->stride, d->dil) != ph)
                        continue;
                    const int at = convt_stretch_window_pos(
                                       p0 + col, (int)convt_tap_period_offset(k, d->stride, d->dil),
                                       off_max) + (bug == 1);
                    if (at < 0 || at >= xw)
                        return -1; /* a read outside the window */
                    acc += win[at] * w[k];
                }
                const int e = convt_stretch_element(p0 + col, ph, d->stride) + (bug == 2);
                if (e < 0 || e >= span)
                    return -1;
                tile[e] = acc;
            }
        }
        for (int e = 0; e < span; e++) {
            const int o = q_first * d->stride - d->pad + e;
            if (o >= 0 && o < d->out) {
                y[o] = tile[e];
                written[o]++;
            }
        }
    }
    for (int o = 0; o < d->out; o++)
        if (written[o] != 1)
            return -1;
    return 0;
}

static int stretch_matches(const dims1 *d, int bn, const int *x, const int *w, int bug)
{
    int y[2048], want[2048];
    by_definition(d, x, w, want);
    return stretch_model(d, bn, x, w, y, bug) == 0 &&
           memcmp(y, want, sizeof(int) * (size_t)d->out) == 0;
}

static void stretches_write_every_output(void **state)
{
    (void)state;
    static const int bns[] = {64, 128, 256};
    int runs = 0, caught[4] = {0};
    while (runs < 3000) {
        dims1 d;
        if (!draw(&d))
            continue;
        const int bn = bns[pick(0, 2)];
        if (8 * d.stride > bn) /* refused by rm_supports: a tile for every phase */
            continue;
        runs++;
        int x[70], w[MAX_K];
        for (int i = 0; i < d.in; i++)
            x[i] = pick(-9, 9);
        for (int k = 0; k < d.k; k++)
            w[k] = pick(-9, 9);
        if (!stretch_matches(&d, bn, x, w, 0))
            fail_msg("in %d k %d stride %d pad %d dil %d out %d bn %d: the stretches differ "
                     "from the definition", d.in, d.k, d.stride, d.pad, d.dil, d.out, bn);
        for (int bug = 1; bug <= 3; bug++)
            caught[bug] += !stretch_matches(&d, bn, x, w, bug);
    }
    assert_true(caught[1] > 2000 && caught[2] > 2000 && caught[3] > 2000);
    /* at stride 2 the kernel stores from registers (PAIRS): tiles t and t +
     * 1 (t even) must be phases 0 and 1 of one period group, so that a
     * lane's periods 2 tig and 2 tig + 1 are elements e .. e + 3 */
    for (int bn = 64; bn <= 256; bn *= 2)
        for (int t = 0; t < bn / 8; t += 2) {
            assert_int_equal(convt_stretch_tile_phase(t, 2, bn / 16), 0);
            assert_int_equal(convt_stretch_tile_phase(t + 1, 2, bn / 16), 1);
            assert_int_equal(convt_stretch_tile_period(t, 2), convt_stretch_tile_period(t + 1, 2));
            const int p = convt_stretch_tile_period(t, 2) + 6; /* tig 3 */
            assert_int_equal(convt_stretch_element(p, 1, 2), convt_stretch_element(p, 0, 2) + 1);
            assert_int_equal(convt_stretch_element(p + 1, 0, 2), convt_stretch_element(p, 0, 2) + 2);
        }
}

/* col2im's outputs a thread (src/lib/col2im_outs.h): the widest of 4 and
 * 2 that keeps CONVT_COL2IM_THREADS_PER_SM threads an SM, else 1; on
 * random launches (a thread for each ceil(row / outs) segment of a row)
 * and on the probe's layers that set the rule (132 SMs). */
static void col2im_outs_keep_the_sms_busy(void **state)
{
    (void)state;
    srand(62);
    for (int t = 0; t < 4000; t++) {
        const int64_t rows = 1 + rand() % 5000, row_len = 1 + rand() % 3000;
        const int sms = rand() % 4 ? 1 + rand() % 200 : 0;
        const int outs = convt_col2im_outs(rows * row_len, row_len, sms);
        const int64_t want = (int64_t)(sms ? sms : 1) * CONVT_COL2IM_THREADS_PER_SM;
        assert_true(outs == 1 || outs == 2 || outs == 4);
        if (outs > 1) /* enough threads at the width taken */
            assert_true(rows * ((row_len + outs - 1) / outs) >= want);
        if (outs < 4) /* and too few at the next wider */
            assert_true(rows * ((row_len + 2 * outs - 1) / (2 * outs)) < want);
        /* more SMs never widen a thread's share; more rows never narrow it */
        assert_true(convt_col2im_outs(rows * row_len, row_len, (sms ? sms : 1) + 1 + rand() % 64) <=
                    outs);
        assert_true(convt_col2im_outs((rows + 1 + rand() % 5000) * row_len, row_len, sms) >= outs);
    }
    /* pix2pix's RGB output at batch 1 (3 x 256 x 256): 4 a thread was
     * 1.06 to 1.10x slower than 1; 2 keeps 98304 threads */
    assert_int_equal(convt_col2im_outs(3 * 256 * 256, 256, 132), 2);
    /* DCGAN's RGB output at batch 64 (64 x 3 x 64 x 64): 4 (0.95x of 1) */
    assert_int_equal(convt_col2im_outs(64 * 3 * 64 * 64, 64, 132), 4);
    /* Conv-TasNet's decoder (8 x 1 x 32000): 2 was the fastest */
    assert_int_equal(convt_col2im_outs(8 * 32000, 32000, 132), 2);
    /* a row of 3 outputs: 4 a thread is one thread a row */
    assert_int_equal(convt_col2im_outs(3 * 100000, 3, 132), 4);
    assert_int_equal(convt_col2im_outs(100, 10, 132), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(taps_reach_by_period_as_by_definition),
        cmocka_unit_test(tap_walks_visit_the_gather_taps),
        cmocka_unit_test(the_walk_writes_every_output),
        cmocka_unit_test(stretches_write_every_output),
        cmocka_unit_test(col2im_outs_keep_the_sms_busy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
