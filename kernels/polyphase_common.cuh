/* What the phase kernels of kernels/cuda_polyphase_igemm.cu (mma.sync) and
 * kernels/polyphase_wgmma.cuh (wgmma) share: the phase tables' types, the
 * kernels' arguments, TF32 rounding and the cp.async copies. */
#ifndef CONVT_KERNELS_POLYPHASE_COMMON_CUH
#define CONVT_KERNELS_POLYPHASE_COMMON_CUH

#include <stddef.h>
#include <stdint.h>

#include "cuda_check.h"
#include "polyphase_plan.h"
#include "problem.h"

/* The phases and their taps (src/lib/polyphase_plan.h, planned on the host). */
typedef convt_phase_desc phase_desc;
typedef convt_phase_tap phase_tap;

/* Sizes as 32-bit values (supports() checks that they fit) next to the
 * 64-bit plane strides, so the kernel's index math stays in 32 bits. */
struct poly_args {
    const phase_desc *phases;
    const phase_tap *taps;
    int nphases;
    int cin, cout, cin_g, cout_g, co_pad, ktaps;
    int in[3], out[3], stride[3], pad[3];
    int64_t in_plane, out_plane;
    int stages;
    /* split-K's parts of each tile's K walk, or 0 for stream-K
     * (polyphase_wgmma_splitk_tf32; 1 for every other kernel), read by the
     * host alone since session 28 (the kernels walk its work list,
     * wg_args.segs): in the struct's tail padding, so that no kernel's
     * parameters move */
    int ksplit;
};
static_assert(offsetof(poly_args, ksplit) + sizeof(int) == sizeof(poly_args),
              "ksplit fills poly_args' tail padding: no kernel's parameters move");

/* TF32 rounding to nearest (ties away) in one integer add: the tensor core
 * reads only the top 19 bits, so adding half a TF32 ulp to the bits rounds
 * the way cvt.rna does (for finite values), on the full-rate integer pipe
 * instead of the conversion pipe (Nsight Compute on kb65: issue-bound at 66%
 * of slots with cvt.rna per operand). tf32_exact clears the ignored bits too,
 * for the split of 3xTF32, which needs the rounded value itself. */
__device__ __forceinline__ unsigned tf32_round(float v) { return __float_as_uint(v) + 0x1000u; }
__device__ __forceinline__ unsigned tf32_exact(float v) { return tf32_round(v) & 0xffffe000u; }

/* c += a * b on the tensor cores, TF32 operands (their top 19 bits),
 * float32 accumulation: one m16n8k8 tile of a warp. Fragments (lane =
 * 4 * gid + tig): a = A[gid][tig], A[gid + 8][tig], A[gid][tig + 4],
 * A[gid + 8][tig + 4]; b = B[tig][gid], B[tig + 4][gid]; c = C[gid][2 tig],
 * C[gid][2 tig + 1], C[gid + 8][2 tig], C[gid + 8][2 tig + 1]. */
__device__ __forceinline__ void mma_tf32(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* A warp's accumulator tile of m16n8 fragments, [MI][NI][4] floats, cleared. */
template <int MI, int NI> __device__ __forceinline__ void zero_tile(float (&t)[MI][NI][4])
{
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                t[i][j][r] = 0.0f;
}

/* The weights repacked for the GEMM kernels, wp[g][tap][ci][co_pad] =
 * w[g * cin_g + ci][co][tap] (zero for co >= cout_g), rounded to TF32 when
 * `round` (3xTF32 splits them itself); enqueued on s in every launch, since
 * the weights are data (kernels/cuda_polyphase_igemm.cu). co_pad is a
 * group's output channels rounded up to 4, so that a row of the image is
 * read 16 bytes at a time. */
static inline int64_t poly_packed_co_pad(const convt_problem *p)
{
    return (p->cout / p->groups + 3) / 4 * 4;
}

/* The packed image's floats (the workspace its variants ask for). */
static inline int64_t poly_packed_weight_floats(const convt_problem *p)
{
    return p->groups * convt_taps(p) * (p->cin / p->groups) * poly_packed_co_pad(p);
}

int poly_pack_weights(const convt_problem *p, const float *w, float *wp, bool round,
                      cudaStream_t s, convt_err *e);

/* cp.async with zero fill: with pred false nothing is read (src-size 0), so
 * src may point anywhere. */
__device__ __forceinline__ void cp_async4(float *dst, const float *src, bool pred)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(d), "l"(src),
                 "r"(pred ? 4 : 0));
}

/* As cp_async4, to a shared-memory address (shared::cta window). */
__device__ __forceinline__ void cp_async4_shared(unsigned dst, const float *src, bool pred)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src),
                 "r"(pred ? 4 : 0));
}

/* cp_async4_shared where `issue`, else nothing (a predicated instruction,
 * not a branch). */
__device__ __forceinline__ void cp_async4_shared_if(unsigned dst, const float *src, bool pred, bool issue)
{
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %3, 0;\n\t"
                 "@p cp.async.ca.shared.global [%0], [%1], 4, %2;\n\t}" ::"r"(dst),
                 "l"(src), "r"(pred ? 4 : 0), "r"((int)issue));
}

/* As cp_async4, 8 bytes (a complex float). */
__device__ __forceinline__ void cp_async8(void *dst, const void *src, bool pred)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(d), "l"(src),
                 "r"(pred ? 8 : 0));
}

__device__ __forceinline__ void cp_async16(float *dst, const float *src, bool pred)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src),
                 "r"(pred ? 16 : 0));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }

/* Waits until at most `pending` groups are in flight; the count must be an
 * immediate, so the run-time pipeline depth picks one of three. */
__device__ __forceinline__ void cp_async_wait(int pending)
{
    if (pending <= 0)
        asm volatile("cp.async.wait_group 0;");
    else if (pending == 1)
        asm volatile("cp.async.wait_group 1;");
    else
        asm volatile("cp.async.wait_group 2;");
}

#endif /* CONVT_KERNELS_POLYPHASE_COMMON_CUH */
