/* direct_window's register window along the innermost dimension: which
 * staged float each output's tap reads, and how much a staged row holds.
 * Written once for the kernel (kernels/cuda_direct_window.cu: its device
 * code and its host geometry) and its CPU test (tests/test_window_taps.c
 * checks them against every tap of random dimensions).
 *
 * A thread computes R consecutive outputs q .. q + R - 1 of one stride
 * phase; the phase's taps m = 0 .. M-1 (k = kf + m * step) read inputs
 * q + cf - m (cf: the first tap's offset; di = 1, or M = 1). A staged row
 * holds inputs in_first + e, e = 0 .. pitch - 1, with in_first = q_first +
 * cf - (m_pad - 1): output q_first + x + j then reads element x + j + t at
 * window tap t = m_pad - 1 - m, and the taps t < m_pad - M are zero
 * weights. The taps go in chunks of T (m_pad = chunks x T), each chunk's
 * window CONVT_WINDOW_FLOATS(T) floats from x + c * T. */
#ifndef CONVT_SRC_LIB_WINDOW_TAPS_H
#define CONVT_SRC_LIB_WINDOW_TAPS_H

#include <stdint.h>

#include "hostdevice.h"

enum {
    CONVT_WINDOW_R = 4,     /* consecutive outputs a thread computes: one float4 */
    CONVT_WINDOW_MAX_T = 8, /* the widest tap chunk compiled */
};

/* The floats a chunk of t window taps loads for R outputs: R + t - 1,
 * rounded up to whole float4s (a constant expression, for the kernel's
 * register arrays). */
#define CONVT_WINDOW_FLOATS(t) ((CONVT_WINDOW_R + (t) - 1 + 3) / 4 * 4)

/* The chunk t and the padded taps m_pad for a phase of up to m taps: one
 * chunk of exactly m up to CONVT_WINDOW_MAX_T, beyond it chunks of 8 or 4,
 * whichever pads fewer (8 on a tie): a chunk of 4 or 8 keeps every chunk's
 * window on a float4. */
CONVT_HD void convt_window_chunk(int64_t m, int64_t *t, int64_t *m_pad)
{
    if (m <= CONVT_WINDOW_MAX_T) {
        *t = m, *m_pad = m;
        return;
    }
    const int64_t pad8 = (m + 7) / 8 * 8, pad4 = (m + 3) / 4 * 4;
    *t = pad8 <= pad4 ? 8 : 4;
    *m_pad = pad8 <= pad4 ? pad8 : pad4;
}

/* The floats of a staged row for a stretch of `stretch` outputs: the last
 * thread's last chunk's window ends at (stretch - R) + (m_pad - t) +
 * CONVT_WINDOW_FLOATS(t). */
CONVT_HD int64_t convt_window_pitch(int64_t stretch, int64_t m_pad, int64_t t)
{
    return stretch - CONVT_WINDOW_R + (m_pad - t) + CONVT_WINDOW_FLOATS(t);
}

/* The input a staged row's element 0 holds, for a stretch starting at
 * q_first of a phase whose first tap reads q + cf. */
CONVT_HD int convt_window_in_first(int q_first, int cf, int m_pad)
{
    return q_first + cf - (m_pad - 1);
}

/* The phase's tap m that window tap t is (m >= the phase's taps: a zero
 * weight). */
CONVT_HD int convt_window_tap(int m_pad, int t) { return m_pad - 1 - t; }

#endif /* CONVT_SRC_LIB_WINDOW_TAPS_H */
