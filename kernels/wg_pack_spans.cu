/* pack_weights_spans: the wgmma kernels' weight image (wg_weight_slot) for
 * large weights, written as pack_weights_stages writes it, but reading w
 * in order through shared memory.
 *
 * Why: pack_weights_stages has a thread per output channel load its 4
 * input channels' taps straight from w, neighbouring threads a kernel's
 * taps apart; on up1d_k12_s6_c768to384 (14 MB of weights) Nsight Compute
 * timed it at 11.2 us, its reads 1.27 TB/s, under half the H100's; on
 * bigvgan_up1 (57 MB) that is about 45 of its 124 us, where cuDNN's whole
 * call takes 119 (session 33). Here a block (one K core row, 4 input
 * channels, of one block of output channels) first reads the 4 stretches
 * of w its channels' taps lie in (wg_pack_span), neighbouring threads
 * neighbouring floats, then every thread writes its output channel's
 * float4 of every tap from shared memory. The image is the same bytes. */
#include "wg_pack.cuh"

#include "polyphase_wgmma.cuh" /* wg_weight_slot, tf32_exact, the grid-dependency controls */

#if CONVT_HAVE_WGMMA
/* Block (x, z) = (chunk * bk/4 + k4, cob + co_blocks * g), as
 * pack_weights_stages' (y = 0: all the taps); a thread per channel row of
 * the image (kpad's included). */
template <bool AFTER>
__global__ void pack_weights_spans(const float *__restrict__ w, float *__restrict__ wk,
                                   const int4 *__restrict__ tap_info, const int64_t *__restrict__ co_term,
                                   wg_pack_args pa, wg_pack_span sp)
{
    extern __shared__ float stretch[]; /* 4 x sp.len: the block's input channels' stretches of w */
    wg_allow_dependents();
    const int lg_kg = __ffs(pa.bk / 4) - 1, part_f = pa.tap_f / pa.parts, co = (int)threadIdx.x;
    const int k4 = (int)blockIdx.x & ((1 << lg_kg) - 1), chunk = (int)blockIdx.x >> lg_kg;
    const int ci0 = chunk * pa.bk + 4 * k4;
    for (int z = blockIdx.z; z < pa.co_blocks * pa.groups; z += gridDim.z) {
        const int cob = z % pa.co_blocks, g = z / pa.co_blocks, cog0 = cob * pa.w_rows;
        const int cog_end = min(pa.cout_g, cog0 + pa.w_rows); /* the block's channels that exist */
        /* this block's stretch: its channels' least index to their greatest, within sp.len */
        const int64_t base = co_term[cog0] + sp.tapz_min;
        const int len = (int)(co_term[cog_end - 1] - co_term[cog0]) + sp.tapz_span + 1;
        __syncthreads(); /* the previous z's reads of the stretches are done */
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int ci = ci0 + e;
            if (ci < pa.cin_g) {
                const float *src = w + ((int64_t)g * pa.cin_g + ci) * pa.ci_step + base;
                for (int i = co; i < len; i += blockDim.x)
                    stretch[e * sp.len + i] = src[i];
            }
        }
        __syncthreads();
        if (co >= pa.a_lbo_f / 4)
            continue;
        float *row = wk + wg_weight_slot(g, cob, pa.co_blocks, pa.taps_total, pa.chunks, 0, 0, 0) * pa.tap_f +
                     k4 * pa.a_lbo_f;
        const int cog = cog0 + co;
        const bool co_ok = co < pa.w_rows && cog < pa.cout_g;
        const int rel = co_ok ? (int)(co_term[cog] - co_term[cog0]) : 0; /* from the stretch's start, less tapz_min */
        bool have[4];
#pragma unroll
        for (int e = 0; e < 4; e++)
            have[e] = co_ok && ci0 + e < pa.cin_g;
        for (int T = 0; T < pa.taps_total; T++) {
            const int4 ti = tap_info[T];
            const int at = rel + ti.z - sp.tapz_min;
            const int64_t slot = ti.x + wg_weight_slot(0, 0, pa.co_blocks, pa.taps_total, pa.chunks, 0, ti.y, chunk);
            float4 big;
            float *b = &big.x;
            float v[4];
#pragma unroll
            for (int e = 0; e < 4; e++) {
                v[e] = have[e] ? stretch[e * sp.len + at] : 0.0f;
                b[e] = __uint_as_float(tf32_exact(v[e]));
            }
            float *out = row + slot * pa.tap_f + 4 * co; /* 16-byte aligned: tap_f, a_lbo_f are multiples of 4 */
            *(float4 *)out = big;
            if (pa.parts == 2) {
                float4 small;
                float *sm = &small.x;
#pragma unroll
                for (int e = 0; e < 4; e++)
                    sm[e] = __uint_as_float(tf32_exact(v[e] - b[e]));
                *(float4 *)(out + part_f) = small;
            }
        }
    }
    if constexpr (AFTER)
        wg_wait_prior_grids();
}

cudaError_t wg_pack_spans_launch(const float *w, float *wk, const int4 *tap_info, const int64_t *co_term,
                                 const wg_pack_args &pa, const wg_pack_span &sp, bool after,
                                 cudaStream_t s)
{
    const int zs = pa.co_blocks * pa.groups;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(pa.chunks * (pa.bk / 4)), 1, (unsigned)(zs < 65535 ? zs : 65535));
    cfg.blockDim = dim3((unsigned)((pa.a_lbo_f / 4 + 31) / 32 * 32));
    cfg.dynamicSmemBytes = wg_pack_spans_smem(sp);
    cfg.stream = s;
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = after ? 1 : 0;
    const cudaError_t err = after ? cudaLaunchKernelEx(&cfg, pack_weights_spans<true>, w, wk, tap_info, co_term, pa, sp)
                                  : cudaLaunchKernelEx(&cfg, pack_weights_spans<false>, w, wk, tap_info, co_term, pa, sp);
    return err != cudaSuccess ? err : cudaGetLastError();
}
#endif
