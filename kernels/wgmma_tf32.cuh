/* Hopper's warpgroup MMA for TF32, as polyphase_wgmma_tf32 and
 * polyphase_wgmma_3xtf32 issue it (kernels/polyphase_wgmma.cuh):
 * wgmma_tf32(d, da, db) does d += a * b (d = a * b with scale_d 0) for a
 * warpgroup's 64 x N tile, one K step of 8, both operands in shared memory
 * behind descriptors. There is one overload per width, N = 8 to 32 in
 * steps of 8 and 64 to 256 in steps of 16, picked by the accumulator
 * array's length (N / 2 floats per thread): wgmma names its N in the
 * instruction and every accumulator register in its operand list, so each
 * width is its own asm statement.
 * The macros below write those statements; the operand lists grow by
 * eight accumulators per step. Built without sm_90a, every overload traps
 * (supports() keeps the variants from running there). */
#ifndef CONVT_KERNELS_WGMMA_TF32_CUH
#define CONVT_KERNELS_WGMMA_TF32_CUH

#include <stdint.h>

/* The asm operand names of accumulators 8c .. 8c + 7. */
#define WG_S0 "%0, %1, %2, %3, %4, %5, %6, %7"
#define WG_S1 "%8, %9, %10, %11, %12, %13, %14, %15"
#define WG_S2 "%16, %17, %18, %19, %20, %21, %22, %23"
#define WG_S3 "%24, %25, %26, %27, %28, %29, %30, %31"
#define WG_S4 "%32, %33, %34, %35, %36, %37, %38, %39"
#define WG_S5 "%40, %41, %42, %43, %44, %45, %46, %47"
#define WG_S6 "%48, %49, %50, %51, %52, %53, %54, %55"
#define WG_S7 "%56, %57, %58, %59, %60, %61, %62, %63"
#define WG_S8 "%64, %65, %66, %67, %68, %69, %70, %71"
#define WG_S9 "%72, %73, %74, %75, %76, %77, %78, %79"
#define WG_S10 "%80, %81, %82, %83, %84, %85, %86, %87"
#define WG_S11 "%88, %89, %90, %91, %92, %93, %94, %95"
#define WG_S12 "%96, %97, %98, %99, %100, %101, %102, %103"
#define WG_S13 "%104, %105, %106, %107, %108, %109, %110, %111"
#define WG_S14 "%112, %113, %114, %115, %116, %117, %118, %119"
#define WG_S15 "%120, %121, %122, %123, %124, %125, %126, %127"

/* Accumulators i .. i + 7 as read-write operands. */
#define WG_D8(i)                                                                            \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]),             \
        "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])

/* The names (WG_NAMES_n) and operands (WG_OPS_n) of n accumulators. */
#define WG_NAMES_4 "%0, %1, %2, %3"
#define WG_NAMES_8 WG_S0
#define WG_NAMES_12 WG_S0 ", %8, %9, %10, %11"
#define WG_NAMES_16 WG_S0 ", " WG_S1
#define WG_NAMES_24 WG_S0 ", " WG_S1 ", " WG_S2
#define WG_OPS_4 "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
#define WG_OPS_8 WG_D8(0)
#define WG_OPS_12 WG_D8(0), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11])
#define WG_OPS_16 WG_D8(0), WG_D8(8)
#define WG_OPS_24 WG_D8(0), WG_D8(8), WG_D8(16)
#define WG_NAMES_32 WG_S0 ", " WG_S1 ", " WG_S2 ", " WG_S3
#define WG_NAMES_40 WG_NAMES_32 ", " WG_S4
#define WG_NAMES_48 WG_NAMES_40 ", " WG_S5
#define WG_NAMES_56 WG_NAMES_48 ", " WG_S6
#define WG_NAMES_64 WG_NAMES_56 ", " WG_S7
#define WG_NAMES_72 WG_NAMES_64 ", " WG_S8
#define WG_NAMES_80 WG_NAMES_72 ", " WG_S9
#define WG_NAMES_88 WG_NAMES_80 ", " WG_S10
#define WG_NAMES_96 WG_NAMES_88 ", " WG_S11
#define WG_NAMES_104 WG_NAMES_96 ", " WG_S12
#define WG_NAMES_112 WG_NAMES_104 ", " WG_S13
#define WG_NAMES_120 WG_NAMES_112 ", " WG_S14
#define WG_NAMES_128 WG_NAMES_120 ", " WG_S15
#define WG_OPS_32 WG_D8(0), WG_D8(8), WG_D8(16), WG_D8(24)
#define WG_OPS_40 WG_OPS_32, WG_D8(32)
#define WG_OPS_48 WG_OPS_40, WG_D8(40)
#define WG_OPS_56 WG_OPS_48, WG_D8(48)
#define WG_OPS_64 WG_OPS_56, WG_D8(56)
#define WG_OPS_72 WG_OPS_64, WG_D8(64)
#define WG_OPS_80 WG_OPS_72, WG_D8(72)
#define WG_OPS_88 WG_OPS_80, WG_D8(80)
#define WG_OPS_96 WG_OPS_88, WG_D8(88)
#define WG_OPS_104 WG_OPS_96, WG_D8(96)
#define WG_OPS_112 WG_OPS_104, WG_D8(104)
#define WG_OPS_120 WG_OPS_112, WG_D8(112)
#define WG_OPS_128 WG_OPS_120, WG_D8(120)

/* The overload for N = WIDTH (ACC = WIDTH / 2 accumulators); DA, DB and
 * SD are the descriptors' and scale-d's operand numbers, ACC to ACC + 2,
 * spelt out because the asm text needs them as literals. scale_d 1:
 * d += a * b; 0: d = a * b (polyphase_wgmma_3xtf32 starts each stage's
 * partial sum so, without zeroing it). */
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_TF32(WIDTH, ACC, DA, DB, SD)                                                     \
    __device__ __forceinline__ void wgmma_tf32(float (&d)[ACC], uint64_t da, uint64_t db,  \
                                               int scale_d = 1)                             \
    {                                                                                       \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #SD ", 0;\n"                      \
                     "wgmma.mma_async.sync.aligned.m64n" #WIDTH "k8.f32.tf32.tf32 "         \
                     "{" WG_NAMES_##ACC "}, "                                               \
                     "%" #DA ", %" #DB ", p, 1, 1;\n}\n"                                    \
                     : WG_OPS_##ACC                                                         \
                     : "l"(da), "l"(db), "r"(scale_d));                                     \
    }
#else
#define WG_TF32(WIDTH, ACC, DA, DB, SD)                                                     \
    __device__ __forceinline__ void wgmma_tf32(float (&d)[ACC], uint64_t da, uint64_t db,  \
                                               int scale_d = 1)                             \
    {                                                                                       \
        (void)d, (void)da, (void)db, (void)scale_d;                                         \
        __trap();                                                                           \
    }
#endif

/* N = 8 to 32: a group's few output channels as N, positions as M
 * (polyphase_wgmma's pos_m) */
WG_TF32(8, 4, 4, 5, 6)
WG_TF32(16, 8, 8, 9, 10)
WG_TF32(24, 12, 12, 13, 14)
WG_TF32(32, 16, 16, 17, 18)
WG_TF32(64, 32, 32, 33, 34)
WG_TF32(80, 40, 40, 41, 42)
WG_TF32(96, 48, 48, 49, 50)
WG_TF32(112, 56, 56, 57, 58)
WG_TF32(128, 64, 64, 65, 66)
WG_TF32(144, 72, 72, 73, 74)
WG_TF32(160, 80, 80, 81, 82)
WG_TF32(176, 88, 88, 89, 90)
WG_TF32(192, 96, 96, 97, 98)
WG_TF32(208, 104, 104, 105, 106)
WG_TF32(224, 112, 112, 113, 114)
WG_TF32(240, 120, 120, 121, 122)
WG_TF32(256, 128, 128, 129, 130)

#undef WG_TF32

/* The accumulators' layout (tools/wgmma_probe.cu): register 4j + 2h + e of
 * the thread of lane `lane` in warp 4 k + warp4 of a warpgroup holds row
 * wg_acc_row(h, lane, warp4) of the m64 block and column
 * wg_acc_col(j, e, lane): the folded epilogue with positions as M
 * (kernels/polyphase_wgmma_fold.cuh) reads its positions and channels
 * through these; wg_posm_store writes them out (its comment says why). */
__device__ __forceinline__ int wg_acc_row(int h, int lane, int warp4)
{
    return 16 * warp4 + lane / 4 + 8 * h;
}
__device__ __forceinline__ int wg_acc_col(int j, int e, int lane)
{
    return 8 * j + 2 * (lane % 4) + e;
}

/* The same with A in registers (polyphase_wgmma_colsum_tf32: one A read
 * from shared memory feeds several wgmma): a[0..3] hold, for row
 * g = 16 (warp % 4) + lane / 4 and column t = lane % 4 of the 64 x 8 A
 * tile, (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4) (PTX ISA, wgmma's
 * register fragments for .tf32; the same as mma.m16n8k8's per warp).
 * The registers must keep their values until the wgmma is done
 * (wgmma.wait_group). N = 8 to 32, 48 and 64 (rows_tma_tf32's sets of
 * up to 64 output channels). */
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_TF32_RS(WIDTH, ACC, A0, A1, A2, A3, DB)                                          \
    __device__ __forceinline__ void wgmma_tf32_rs(float (&d)[ACC], const uint32_t (&a)[4],  \
                                                  uint64_t db)                              \
    {                                                                                       \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"                            \
                     "wgmma.mma_async.sync.aligned.m64n" #WIDTH "k8.f32.tf32.tf32 "         \
                     "{" WG_NAMES_##ACC "}, "                                               \
                     "{%" #A0 ", %" #A1 ", %" #A2 ", %" #A3 "}, %" #DB ", p, 1, 1;\n}\n"   \
                     : WG_OPS_##ACC                                                         \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));                \
    }
#else
#define WG_TF32_RS(WIDTH, ACC, A0, A1, A2, A3, DB)                                          \
    __device__ __forceinline__ void wgmma_tf32_rs(float (&d)[ACC], const uint32_t (&a)[4],  \
                                                  uint64_t db)                              \
    {                                                                                       \
        (void)d, (void)a, (void)db;                                                         \
        __trap();                                                                           \
    }
#endif
WG_TF32_RS(8, 4, 4, 5, 6, 7, 8)
WG_TF32_RS(16, 8, 8, 9, 10, 11, 12)
WG_TF32_RS(24, 12, 12, 13, 14, 15, 16)
WG_TF32_RS(32, 16, 16, 17, 18, 19, 20)
WG_TF32_RS(48, 24, 24, 25, 26, 27, 28)
WG_TF32_RS(64, 32, 32, 33, 34, 35, 36)
/* WG_TF32_RS stays defined: kernels/polyphase_wgmma_inplace.cuh adds the
 * widths 80 to 256 with it, in its own translation units only */

/* Orders this warpgroup's register and shared-memory accesses before the
 * wgmma that follow. */
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
/* All but the newest group done: the previous stage's buffer is free. */
__device__ __forceinline__ void wgmma_wait_prev() { asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory"); }
/* Stores of the generic proxy (cp.async among them) made visible to the
 * async proxy that wgmma reads shared memory through. */
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

#endif
