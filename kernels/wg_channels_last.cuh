/* polyphase_wgmma_fold_cl_tf32's input, channels last: where each input
 * float lies in the copy that input_channels_last (kernels/wg_channels_last.cu)
 * makes before every launch, and the producer's 16-byte copies out of it.
 * Host and device both take the index from here.
 *
 * Why a copy: the wgmma kernels stage the input K-major (a position's
 * channels side by side, 4 to a 16-byte row of a core matrix). Read from
 * NCHW, those 4 channels lie a plane apart, so the producer gathers them 4
 * bytes a cp.async; on the folded vocoder layers (k 12, stride 6: 34 copies
 * a producer thread a stage) issuing them took 87% of the stage period and
 * the tensor pipe was busy about half of it (stage clocks, session 32).
 * Channels last, a position's 4 channels are 16 neighbouring bytes: one
 * cp.async, a quarter of the instructions. A speed-of-light run that
 * skipped three copies in four shortened the period 17% on that layer. The
 * copy costs a pass over the input, which a vocoder's few positions of many
 * channels make small against the GEMM (bigvgan_up1: 1.5 MB against 57 MB
 * of weights); on KernelBench's large images (kb57: 2.1 GB) it would cost
 * more than it saves.
 *
 * Layout: xcl[n][position][g][c], position the flat index over the
 * input's spatial dimensions, c < wg_cl_channels(cin_g), zero past cin_g:
 * a chunk of 16 or 32 channels is never partly outside the copy, so the
 * producer needs no test per channel group, and the zeros meet zero
 * weights in the image. */
#ifndef CONVT_KERNELS_WG_CHANNELS_LAST_CUH
#define CONVT_KERNELS_WG_CHANNELS_LAST_CUH

#include <stdint.h>

/* A group's channels in the copy: cin_g rounded up to 32 (the widest
 * chunk, bk 32). */
__host__ __device__ __forceinline__ int wg_cl_channels(int cin_g)
{
    return (cin_g + 31) / 32 * 32;
}

/* Floats from xcl to channel c of group g at input position pos (n *
 * in_plane + spatial index) of a copy with `groups` groups of cpad
 * channels each. */
__host__ __device__ __forceinline__ int64_t wg_cl_offset(int64_t pos, int groups, int g, int cpad, int c)
{
    return (pos * groups + g) * cpad + c;
}

#if defined(__CUDACC__)
#if CONVT_WG_CHANNELS_LAST_KERNELS
/* 16 bytes to a shared-memory address (shared::cta window), zero-filled
 * where !pred (nothing read: src may point anywhere); both addresses
 * 16-byte aligned. .cg: through L2 only, as each float is read once a
 * stage. */
__device__ __forceinline__ void cp_async16_shared(unsigned dst, const float *src, bool pred)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
                 "r"(pred ? 16 : 0));
}

/* A producer lane's copies of n_oct octets of one row from the
 * channels-last copy: staged row 8 o + lane/4 of each octet, channel
 * groups lane%4 + 4 h (h < H) at dp + 4 h b_lbo, from sp + 16 h floats;
 * pstep: floats from one position to the next (groups x cpad); icol: the
 * input column of the first, valid in [0, in2). A warp instruction copies
 * 8 positions x 4 channel groups: 8 runs of 64 bytes read, 4 runs of 128
 * bytes written (32 banks each). A row outside the input reads nothing. */
template <int H>
__device__ __forceinline__ void wg_copy_octets_cl(unsigned char *dp, int b_lbo, const float *sp,
                                                  int64_t pstep, int icol, int in2, bool row_ok,
                                                  int n_oct)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dp);
#pragma unroll 4
    for (int j = 0; j < n_oct; j++, icol += 8, sp += 8 * pstep, d += 8 * 16) {
        const bool ok = row_ok && (unsigned)icol < (unsigned)in2;
#pragma unroll
        for (int h = 0; h < H; h++)
            cp_async16_shared(d + (unsigned)(4 * h * b_lbo), sp + 16 * h, ok);
    }
}
#else
/* Declared only where no channels-last kernel is compiled (the files that
 * instantiate them define CONVT_WG_CHANNELS_LAST_KERNELS first): with the
 * definitions in cuda_polyphase_igemm.cu, whose kernels use neither,
 * ptxas allocated polyphase_kernel<3, 32, true>'s registers otherwise
 * (tools/sass-digest.sh; the same 1392 instructions). */
template <int H>
__device__ void wg_copy_octets_cl(unsigned char *dp, int b_lbo, const float *sp, int64_t pstep, int icol,
                                  int in2, bool row_ok, int n_oct);
#endif
#endif

/* The host's launch of input_channels_last (kernels/wg_channels_last.cu)
 * on stream s, before the weight repack, which runs beside it: x (NC +
 * spatial, images x groups x cin_g channels of `positions` each) into
 * xcl. Returns the launch's error. */
#ifdef __cplusplus
#include <cuda_runtime.h>
cudaError_t wg_channels_last_launch(const float *x, float *xcl, int64_t positions, int cin_g,
                                    int groups, int images, cudaStream_t s);
#endif

#endif /* CONVT_KERNELS_WG_CHANNELS_LAST_CUH */
