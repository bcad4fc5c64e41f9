/* How many consecutive outputs of a row one col2im thread sums in
 * im2col_gemm (its knob outs = 0, the default): 4 where that still leaves
 * the GPU enough threads, else 2, else 1.
 *
 * A thread for 4 outputs works out the index split and the outer
 * dimensions' taps once for them (session 62: 0.91x the time of a thread an
 * output over the im2col probe's 59 (layer, variant) pairs, 0.69x on the
 * best), but leaves a quarter of the threads. On small outputs, an RGB image
 * at batch 1 (196608 outputs: 49152 threads), that was 1.06 to 1.10x slower
 * than a thread an output: too few loads in flight. So the widest of 4 and 2
 * that keeps at least 512 threads an SM (16 warps) is taken; on the probe's
 * layers that choice was within 2% of the fastest of the three. */
#ifndef CONVT_SRC_COL2IM_OUTS_H
#define CONVT_SRC_COL2IM_OUTS_H

#include <stdint.h>

/* The threads an SM the choice keeps at least. */
#define CONVT_COL2IM_THREADS_PER_SM 512

/* outputs: a launch's outputs, rows of row_len (the innermost dimension);
 * sm_count: the device's (0 where unknown: taken as 1). */
static inline int convt_col2im_outs(int64_t outputs, int64_t row_len, int sm_count)
{
    const int64_t want = (int64_t)(sm_count > 0 ? sm_count : 1) * CONVT_COL2IM_THREADS_PER_SM;
    const int64_t rows = outputs / row_len;
    for (int outs = 4; outs > 1; outs /= 2)
        if (rows * ((row_len + outs - 1) / outs) >= want)
            return outs;
    return 1;
}

#endif
