/* Where a wgmma kernel's pipeline stages spend their time: a diagnostic
 * build's timestamps (clock64) per stage, for the first WG_CLK_BLOCKS blocks
 * and their first WG_CLK_STAGES stages. Built only with
 *   meson setup B -Dcuda_args=-DCONVT_WG_STAGE_CLOCKS ...
 * (results/h100-2026-11-27-s32-stage-clocks*.sh, the scripts session 32
 * ran); without the macro every hook below is empty and the kernels are as
 * measured. The producer's issuing thread (WG_ISSUER: thread 0 until
 * session 39, lane 0 of the last warp since) stamps when a stage's
 * buffer is free (past its empty barrier), when it has issued the weights'
 * bulk copy, and when its own copies are issued;
 * consumer warpgroup 0's thread 0 when it starts waiting for the stage, when
 * the stage has landed (past the full barrier), and when its wgmma are
 * issued (before waiting for the previous stage's). The launch state's
 * release summarises its last launch (wg_stage_clocks_report.cuh), outside
 * the timed runs: a diagnostic build's times are still not results (the
 * stamps' stores run inside them). Both sides count stages in the ring's order;
 * with ping-pong consumer 0 counts only its own tiles' stages, so its
 * stamps pair with the producer's only on the consumer's side (period,
 * wait, issue). */
#pragma once

enum {
    WG_CLK_PRODUCER_FREE,
    WG_CLK_PRODUCER_WEIGHTS,
    WG_CLK_PRODUCER_ISSUED,
    WG_CLK_CONSUMER_WAITS,
    WG_CLK_CONSUMER_LANDED,
    WG_CLK_CONSUMER_ISSUED,
    WG_CLK_EVENTS,
    WG_CLK_BLOCKS = 8,
    WG_CLK_STAGES = 96
};

/* CONVT_WG_DIAG's bits (WG_DIAG): the producer copies no input (its
 * arrivals still come), issues no weights' bulk copy; the consumers store
 * no epilogue, skip the proxy fence after a stage lands, issue no wgmma */
enum {
    WG_DIAG_NO_INPUT,
    WG_DIAG_NO_WEIGHTS,
    WG_DIAG_NO_EPILOGUE,
    WG_DIAG_NO_FENCE,
    WG_DIAG_NO_WGMMA
};

#ifdef CONVT_WG_STAGE_CLOCKS
#define WG_CLOCK_COUNTER(name) int name = 0
#define WG_CLOCK_STEP(name) (name)++
#define WG_CLOCK(wa, who, k, event)                                                                \
    do {                                                                                           \
        if ((who) && blockIdx.x < WG_CLK_BLOCKS && (k) < WG_CLK_STAGES)                            \
            (wa).clock_log[((size_t)blockIdx.x * WG_CLK_STAGES + (k)) * WG_CLK_EVENTS + (event)] = \
                clock64();                                                                         \
    } while (0)
/* A speed-of-light experiment, never a result: with CONVT_WG_GATHER_QUARTER
 * too, the row walk's producer (wg_copy_octets) copies one channel group in
 * four, so that the stamps show the stage period with a quarter of the
 * gather's copies (the outputs are wrong) */
#ifdef CONVT_WG_GATHER_QUARTER
#define WG_CLOCK_SKIP_COPY(kg) ((kg) % 4 != 0)
#else
#define WG_CLOCK_SKIP_COPY(kg) false
#endif
/* Speed-of-light switches of a diagnostic build, never results (the
 * outputs are wrong): bits of CONVT_WG_DIAG in the environment at the
 * launch state's prepare, each leaving out one part of a stage so that the
 * stamps show the period without it (session 44). */
#define WG_DIAG(wa, bit) ((((wa).diag) >> (bit)) & 1)
/* CONVT_WG_STAGGER (cycles, session 45): the odd blocks' producers start
 * that much later, so that the blocks' epilogues, which otherwise fall
 * together (every block's tiles take the same stages), fall apart: does
 * the epilogue wait on the DRAM's write rate while all 132 store at once? */
#define WG_STAGGER(wa)                                                                             \
    do {                                                                                           \
        if ((wa).stagger > 0 && (blockIdx.x & 1)) {                                                \
            const long long t0 = clock64();                                                        \
            while (clock64() - t0 < (wa).stagger)                                                  \
                ;                                                                                  \
        }                                                                                          \
    } while (0)
#else
#define WG_STAGGER(wa)
#define WG_CLOCK_SKIP_COPY(kg) false
#define WG_DIAG(wa, bit) false
#define WG_CLOCK_COUNTER(name)
#define WG_CLOCK_STEP(name)
#define WG_CLOCK(wa, who, k, event)
#endif
