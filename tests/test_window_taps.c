/* direct_window's register window along the innermost dimension
 * (src/lib/window_taps.h, which the kernel calls to stage a row and to
 * read it, and its host code to size the row), against every tap of every
 * output on 3000 random dimensions (extents, kernels of up to 40 taps,
 * dilations the stride absorbs or phases of one tap, strides, pads and
 * out_pads, 1 to 64 threads of 1 or 4 passes): for each tap of a phase
 * that reaches an output, the staged element the thread reads at that
 * tap's window position lies in the row and holds the input the tap
 * reads by the definition (o + pad - k * dil) / stride; every chunk's
 * window lies in the row; a window tap past the phase's taps is a zero
 * weight; and the chunk covers the taps with less than a chunk of
 * padding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hostdevice.h"
#include "stride_phase.h"
#include "window_taps.h"
#include "test_util.h"

static uint64_t rng_state = 5150;
static int pick(int lo, int hi) { return (int)convt_next_in(&rng_state, lo, hi); }

static void chunks_cover_the_taps(void **state)
{
    (void)state;
    for (int64_t m = 1; m <= 200; m++) {
        int64_t t, m_pad;
        convt_window_chunk(m, &t, &m_pad);
        assert_true(t >= 1 && t <= CONVT_WINDOW_MAX_T);
        assert_true(m_pad >= m && m_pad % t == 0 && m_pad - m < t);
        /* several chunks: each chunk's window starts on a float4 */
        if (m_pad > t)
            assert_true(t % 4 == 0);
    }
}

static void every_tap_reads_its_staged_input(void **state)
{
    (void)state;
    const int R = CONVT_WINDOW_R;
    int dims = 0, reads = 0;
    while (dims < 3000) {
        const int in = pick(1, 60), k = pick(1, 40), stride = pick(1, 6), dil = pick(1, 4);
        const int step = (int)convt_phase_step(stride, dil);
        const int di = dil / (int)convt_gcd(stride, dil);
        if (di != 1 && k > step)
            continue; /* refused by direct_window's supports */
        const int pad = pick(0, dil * (k - 1));
        const int out_pad = pick(0, (stride > dil ? stride : dil) - 1);
        const int out = (int)out_extent(in, k, stride, pad, dil, out_pad);
        if (out < 1)
            continue;
        dims++;
        int64_t t64, m_pad64;
        convt_window_chunk((k + step - 1) / step, &t64, &m_pad64);
        const int T = (int)t64, m_pad = (int)m_pad64, chunks = m_pad / T;
        const int tpl = 1 << pick(0, 6), passes = pick(0, 1) ? 4 : 1;
        const int stretch = tpl * R * passes; /* passes along the line, as on 1-D layers */
        const int pitch = (int)convt_window_pitch(stretch, m_pad, T);
        assert_true(pitch % 4 == 0);
        for (int ph = 0; ph < stride && ph < out; ph++) {
            /* the phase's first tap and the input it reads for q = 0 */
            int kf = -1, cf = 0;
            for (int kk = 0; kk < k && kf < 0; kk++)
                if (convt_floor_div(ph + pad - kk * dil, stride) * stride == ph + pad - kk * dil)
                    kf = kk, cf = (int)convt_floor_div(ph + pad - kk * dil, stride);
            if (kf < 0)
                continue; /* no tap reaches the phase: bias only */
            const int m_phase = (k - 1 - kf) / step + 1;
            assert_true(m_phase <= m_pad);
            for (int t = 0; t < m_pad; t++)
                assert_int_equal(convt_window_tap(m_pad, t) >= m_phase, t < m_pad - m_phase);
            const int q_count = (out - ph + stride - 1) / stride;
            for (int q_first = 0; q_first < q_count; q_first += stretch) {
                const int in_first = convt_window_in_first(q_first, cf, m_pad);
                for (int x = 0; x < stretch; x += R) { /* a thread's first output in the stretch */
                    /* every chunk's window inside the row */
                    const int last = x + (chunks - 1) * T + CONVT_WINDOW_FLOATS(T) - 1;
                    if (last >= pitch)
                        fail_msg("in %d k %d stride %d dil %d pad %d: thread at %d reads element "
                                 "%d of a row of %d", in, k, stride, dil, pad, x, last, pitch);
                    for (int j = 0; j < R && q_first + x + j < q_count; j++) {
                        const int q = q_first + x + j, o = ph + stride * q;
                        for (int m = 0; m < m_phase; m++) {
                            int t = 0;
                            while (convt_window_tap(m_pad, t) != m)
                                t++;
                            const int e = x + j + t, kk = kf + m * step;
                            const int num = o + pad - kk * dil;
                            assert_true(num % stride == 0);
                            const int i = (int)convt_floor_div(num, stride);
                            if (e < 0 || e >= pitch || in_first + e != i)
                                fail_msg("in %d k %d stride %d dil %d pad %d out %d: output %d "
                                         "tap %d reads input %d, the window element %d holds %d "
                                         "(row of %d)", in, k, stride, dil, pad, out, o, kk, i, e,
                                         in_first + e, pitch);
                            reads++;
                        }
                    }
                }
            }
        }
    }
    assert_true(reads > 100000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunks_cover_the_taps),
        cmocka_unit_test(every_tap_reads_its_staged_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
