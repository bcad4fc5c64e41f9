/* The host side of wg_stage_clocks.h (diagnostic builds only). prepare
 * gives the launch state its stamps' buffer, zeroed once (every launch of
 * the state rewrites the same slots); release, once the state's runs are
 * done and outside every timed region, copies the last launch's stamps
 * back and summarises them per block, appended to the file named by
 * CONVT_STAGE_CLOCKS (stderr where unset). Medians over a block's stages
 * past its first 4 (the ring's fill), in SM cycles:
 *   period   from one stage landing to the next (consumer 0's view),
 *   wait     consumer 0 waiting for its stage to land,
 *   issue    its wgmma issued after the stage landed,
 *   fill     the producer's copies issued after the buffer came free,
 *   flight   from the producer's last issue to consumer 0 past the full
 *            barrier (the copies' latency where the consumer was waiting),
 *   empty    the producer waiting for a free buffer,
 *   weights  of the fill, the weights' bulk copy issued (the issuing thread's part
 *            before its own copies: the tap row's setup and the bulk copy);
 * and, since session 44, the mean period over the same stages, the
 * changes of tile included (with ping-pong consumer 0's own stages only:
 * each of its tiles' first stage waits through the other warpgroup's
 * tile, so that the mean is about twice the pipe's time a stage). */
#pragma once
#ifdef CONVT_WG_STAGE_CLOCKS
#include <stdio.h>
#include <stdlib.h>

enum { WG_CLK_SLOTS = WG_CLK_BLOCKS * WG_CLK_STAGES * WG_CLK_EVENTS };

static int wg_clk_cmp(const void *a, const void *b)
{
    const long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* the median of n values (sorted in place); -1 where there are none */
static long long wg_clk_median(long long *v, int n)
{
    if (n <= 0)
        return -1;
    qsort(v, (size_t)n, sizeof *v, wg_clk_cmp);
    return v[n / 2];
}

/* A diagnostic switch from the environment: its integer, 0 where unset */
static int wg_clk_env(const char *name)
{
    const char *v = getenv(name);
    return v ? atoi(v) : 0;
}

/* prepare: the state's buffer, zeroed (stages a block never reaches stay
 * 0), and the diagnostic switches (wg_stage_clocks.h) */
static int wg_stage_clocks_alloc(wg_state *st, convt_err *e)
{
    CUDA_TRY(cudaMalloc(&st->args.clock_log, sizeof(long long) * WG_CLK_SLOTS), e);
    CUDA_TRY(cudaMemset(st->args.clock_log, 0, sizeof(long long) * WG_CLK_SLOTS), e);
    st->args.diag = wg_clk_env("CONVT_WG_DIAG");
    st->args.stagger = wg_clk_env("CONVT_WG_STAGGER");
    return 0;
}

/* release: the summary of the state's last launch, then the buffer freed */
static void wg_stage_clocks_report(wg_state *st)
{
    static long long h[WG_CLK_SLOTS];
    if (!st->args.clock_log)
        return;
    const bool have = cudaDeviceSynchronize() == cudaSuccess &&
                      cudaMemcpy(h, st->args.clock_log, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(st->args.clock_log);
    st->args.clock_log = NULL;
    if (!have)
        return;
    const char *path = getenv("CONVT_STAGE_CLOCKS");
    FILE *f = path ? fopen(path, "a") : stderr;
    if (!f)
        f = stderr;
    fprintf(f, "stage clocks: cin %d cout %d; bn %d nseg %d grid %u stages %d diag %d stagger %d\n", st->args.p.cin,
            st->args.p.cout, st->bn, st->nseg, st->launch.gridDim.x, st->args.p.stages, st->args.diag,
            st->args.stagger);
    for (int b = 0; b < WG_CLK_BLOCKS; b++) {
        long long v[7][WG_CLK_STAGES];
        int n[7] = {0};
        int stages = 0;
        long long landed4 = 0, landed_last = 0; /* the mean's ends: stage 4's landing and the last one's */
        for (int k = 0; k < WG_CLK_STAGES; k++) {
            const long long *t = h + ((size_t)b * WG_CLK_STAGES + k) * WG_CLK_EVENTS;
            const long long *u = k ? t - WG_CLK_EVENTS : t;
            if (!t[WG_CLK_CONSUMER_LANDED] || !t[WG_CLK_PRODUCER_ISSUED])
                break;
            stages++;
            if (k < 4)
                continue;
            if (k == 4)
                landed4 = t[WG_CLK_CONSUMER_LANDED];
            landed_last = t[WG_CLK_CONSUMER_LANDED];
            v[0][n[0]++] = t[WG_CLK_CONSUMER_LANDED] - u[WG_CLK_CONSUMER_LANDED];
            v[1][n[1]++] = t[WG_CLK_CONSUMER_LANDED] - t[WG_CLK_CONSUMER_WAITS];
            v[2][n[2]++] = t[WG_CLK_CONSUMER_ISSUED] - t[WG_CLK_CONSUMER_LANDED];
            v[3][n[3]++] = t[WG_CLK_PRODUCER_ISSUED] - t[WG_CLK_PRODUCER_FREE];
            v[4][n[4]++] = t[WG_CLK_CONSUMER_LANDED] - t[WG_CLK_PRODUCER_ISSUED];
            v[5][n[5]++] = t[WG_CLK_PRODUCER_FREE] - u[WG_CLK_PRODUCER_ISSUED];
            v[6][n[6]++] = t[WG_CLK_PRODUCER_WEIGHTS] - t[WG_CLK_PRODUCER_FREE];
        }
        if (!stages)
            continue;
        /* the mean period, tiles' changes included: the median leaves them
         * out (with ping-pong, each of consumer 0's tiles' first stage
         * waits through the other warpgroup's tile) */
        const long long mean = stages > 5 ? (landed_last - landed4) / (stages - 5) : -1;
        fprintf(f, "  block %d: %d stages; median cycles: period %lld wait %lld issue %lld fill %lld "
                "flight %lld empty %lld weights %lld; mean %lld\n",
                b, stages, wg_clk_median(v[0], n[0]), wg_clk_median(v[1], n[1]),
                wg_clk_median(v[2], n[2]), wg_clk_median(v[3], n[3]), wg_clk_median(v[4], n[4]),
                wg_clk_median(v[5], n[5]), wg_clk_median(v[6], n[6]), mean);
    }
    if (f != stderr)
        fclose(f);
}
#endif
