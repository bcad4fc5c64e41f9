/* Can polyphase_wgmma_tf32's input operand sit in shared memory with
 * 128-byte swizzling, its descriptor started `shift` rows into the staged
 * stretch, and does that pay? Two questions, one device run.
 *
 * The kernel stages an input stretch K-major and starts each tap's
 * descriptor `shift` rows (positions) further. Unswizzled, rows are 16
 * bytes apart within a group of 4 channels, so a start that is not a
 * multiple of 8 rows puts every 128-byte core matrix across two 128-byte
 * lines; Nsight Compute counts 43-52% of the kernel's shared wavefronts as
 * excess (results/notes.md, session 10). With 128-byte swizzling a row is
 * 128 bytes (32 channels) and a shift moves the start by whole lines.
 *
 * 1. Correctness: C[64][64] = A[64][32] B^T, A unswizzled (as the
 *    kernel's weights), B = rows shift .. shift + 63 of a 72-row stretch
 *    laid out as TMA's 128-byte swizzle writes it (16-byte chunk c of row r
 *    at chunk c ^ (r % 8); the stretch 1024-byte aligned), each k8 step 32
 *    bytes further along the row. For every shift 0..7, with the
 *    descriptor's base offset 0 and (start >> 7) % 8: which computes the
 *    product.
 * 2. Speed: two warpgroups, then one alone (session 41), issue m64n256k8
 *    back to back on operands already in shared memory, in groups of K / 8
 *    with a wait for the group before: B unswizzled at shift 0 and 3,
 *    swizzled at shift 0 and 3. Cycles per wgmma of the SM (every
 *    warpgroup's wgmma counted).
 *
 *   nvcc -gencode arch=compute_90a,code=sm_90a -O2 tools/wgmma_swizzle_probe.cu
 * Exit 0 when one base-offset convention computes the product at every
 * shift (at shift 0 both are 0).
 *
 * H100, 2026-11-24 (results/h100-2026-11-24-wgmma-swizzle-probe.log): base
 * offset 0 computes at every shift (the hardware swizzles by the address's
 * own bits); unswizzled, m64n256k8 takes 128.0 cycles of the SM at shift 0
 * and at shift 3 alike, the TF32 peak: the misaligned start costs the
 * wgmma nothing. H100, 2026-11-28 (results/h100-2026-11-28-wgmma-swizzle-
 * probe.log): one warpgroup alone, 128.0 cycles too. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "wgmma_probe_common.cuh"

#include "../kernels/wgmma_tf32.cuh"

constexpr int K = 32;          /* channels: one 128-byte swizzled row */
constexpr int ROWS_SMALL = 72; /* the correctness stretch: 64 + the widest shift, whole groups of 8 */
constexpr int ROWS_WIDE = 264; /* the speed stretch: 256 + shift, whole groups of 8 */
constexpr int ITER = 512;      /* k8 groups of 4 wgmma per warpgroup in the timed loop */

/* Unswizzled K-major, rows 16 bytes apart within a group of 4 channels,
 * groups lbo apart (the kernel's layout): byte offset of (row, k). */
__host__ __device__ constexpr int plain_offset(int row, int k, int lbo)
{
    return (k / 4) * lbo + row * 16 + (k % 4) * 4;
}

/* 128-byte swizzled K-major, rows 128 bytes apart, from a 1024-aligned base. */
__host__ __device__ constexpr int swizzled_offset(int row, int k)
{
    return row * 128 + (((k / 4) ^ (row % 8)) * 16) + (k % 4) * 4;
}

/* The matrix descriptor: start, LBO, SBO (all >> 4), base offset, swizzle
 * mode (0 none, 1 128-byte). */
__device__ uint64_t descriptor(const void *smem, uint32_t lbo, uint32_t sbo, uint32_t base_offset,
                               uint32_t swizzle)
{
    const uint32_t addr = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((addr >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 |
           (uint64_t)((sbo >> 4) & 0x3fff) << 32 | (uint64_t)(base_offset & 7) << 49 |
           (uint64_t)(swizzle & 3) << 62;
}

/* mode 0: base offset 0; mode 1: (start >> 7) % 8. */
__global__ void check_shift(const float *a, const float *b, float *c, int shift, int mode)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    unsigned char *sb = smem, *sa = smem + ROWS_SMALL * 128;
    const int a_lbo = 64 * 16;
    const int t = threadIdx.x;
    for (int i = t; i < 64 * K; i += blockDim.x)
        *(float *)(sa + plain_offset(i / K, i % K, a_lbo)) = a[i];
    for (int i = t; i < ROWS_SMALL * K; i += blockDim.x)
        *(float *)(sb + swizzled_offset(i / K, i % K)) = b[i];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    float d[32];
    for (int r = 0; r < 32; r++)
        d[r] = 0.0f;
    wgmma_fence();
    for (int kk = 0; kk < K / 8; kk++) {
        const unsigned char *start = sb + shift * 128 + kk * 32;
        const uint32_t addr = (uint32_t)__cvta_generic_to_shared(start);
        const uint64_t da = descriptor(sa + plain_offset(0, 8 * kk, a_lbo), a_lbo, 128, 0, 0);
        const uint64_t db = descriptor(start, 16, 1024, mode ? (addr >> 7) & 7 : 0, 1);
        wgmma_tf32(d, da, db);
    }
    wgmma_commit();
    wgmma_wait_all();
    const int warp = t / 32, lane = t % 32;
    for (int r = 0; r < 32; r++) {
        const int row = 16 * warp + lane / 4 + 8 * ((r / 2) % 2);
        const int col = 8 * (r / 4) + 2 * (lane % 4) + r % 2;
        c[row * 64 + col] = d[r];
    }
}

/* swizzle 0: B unswizzled (groups b_lbo apart, + 64 bytes as the kernel's
 * kpad); 1: 128-byte swizzled. cycles[warpgroup] of ITER x 4 wgmma. */
__global__ void time_shift(int shift, int swizzle, long long *cycles, float *sink)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    const int b_lbo = ROWS_WIDE * 16 + 64, a_lbo = 64 * 16;
    const int b_bytes = swizzle ? ROWS_WIDE * 128 : (K / 4) * b_lbo;
    unsigned char *sb = smem, *sa = smem + (b_bytes + 1023) / 1024 * 1024;
    /* not zeros: the tensor cores' power and speed can depend on the data */
    for (int i = threadIdx.x; i < (b_bytes + 64 * K * 4) / 4; i += blockDim.x)
        ((float *)smem)[i] = 1.0f + (float)(i % 97) * 0x1p-10f;
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    uint64_t da[K / 8], db[K / 8];
    for (int kk = 0; kk < K / 8; kk++) {
        da[kk] = descriptor(sa + plain_offset(0, 8 * kk, a_lbo), a_lbo, 128, 0, 0);
        if (swizzle) {
            const unsigned char *start = sb + shift * 128 + kk * 32;
            db[kk] = descriptor(start, 16, 1024, ((uint32_t)__cvta_generic_to_shared(start) >> 7) & 7, 1);
        } else {
            db[kk] = descriptor(sb + plain_offset(shift, 8 * kk, b_lbo), b_lbo, 128, 0, 0);
        }
    }
    float d[128];
    for (int r = 0; r < 128; r++)
        d[r] = 0.0f;
    long long t0 = 0;
    for (int it = -8; it < ITER; it++) {
        if (it == 0) {
            wgmma_wait_all();
            __syncthreads();
            t0 = clock64();
        }
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < K / 8; kk++)
            wgmma_tf32(d, da[kk], db[kk]);
        wgmma_commit();
        wgmma_wait_prev();
    }
    wgmma_wait_all();
    const long long t1 = clock64();
    if (threadIdx.x % 128 == 0)
        cycles[threadIdx.x / 128] = t1 - t0;
    float s = 0;
    for (int r = 0; r < 128; r++)
        s += d[r];
    sink[threadIdx.x] = s;
}

int main()
{
    std::vector<float> a(64 * K), b(ROWS_SMALL * K), c(64 * 64);
    uint32_t s = 2026;
    for (auto *v : {&a, &b})
        for (float &x : *v) {
            s = s * 1664525u + 1013904223u;
            x = tf32((float)(s >> 8) / (float)(1 << 24) * 2.0f - 1.0f);
        }
    float *da, *db, *dc, *sink;
    long long *dcyc;
    CHECK(cudaMalloc(&da, a.size() * 4));
    CHECK(cudaMalloc(&db, b.size() * 4));
    CHECK(cudaMalloc(&dc, c.size() * 4));
    CHECK(cudaMalloc(&sink, 256 * 4));
    CHECK(cudaMalloc(&dcyc, 2 * sizeof(long long)));
    CHECK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    const int small_smem = ROWS_SMALL * 128 + 64 * K * 4;
    CHECK(cudaFuncSetAttribute(check_shift, cudaFuncAttributeMaxDynamicSharedMemorySize, small_smem));
    int good_shifts = 0, convention = -1;
    bool consistent = true;
    for (int shift = 0; shift < 8; shift++) {
        int which = -1, matches = 0;
        for (int mode = 0; mode < 2; mode++) {
            CHECK(cudaMemset(dc, 0, c.size() * 4));
            check_shift<<<1, 128, small_smem>>>(da, db, dc, shift, mode);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
            double err = 0, norm = 0;
            for (int m = 0; m < 64; m++)
                for (int n = 0; n < 64; n++) {
                    double ref = 0;
                    for (int k = 0; k < K; k++)
                        ref += (double)a[m * K + k] * (double)b[(n + shift) * K + k];
                    err += (c[m * 64 + n] - ref) * (c[m * 64 + n] - ref);
                    norm += ref * ref;
                }
            const double rel = sqrt(err / norm);
            printf("swizzle-128 B, shift %d, base offset %s: normwise error %.2e: %s\n", shift,
                   mode ? "(start >> 7) % 8" : "0", rel, rel < 1e-5 ? "the product" : "not the product");
            if (rel < 1e-5)
                matches++, which = mode;
        }
        /* at shift 0 the two conventions coincide (both 0): the verdict
         * is the convention that computes at every shift */
        if (matches >= 1) {
            good_shifts++;
            if (matches == 1) {
                if (convention >= 0 && convention != which)
                    consistent = false;
                convention = which;
            }
        }
    }
    const bool ok = good_shifts == 8 && consistent && convention >= 0;
    printf("wgmma swizzle probe: %s\n",
           ok ? (convention ? "every shift computes with base offset (start >> 7) % 8"
                            : "every shift computes with base offset 0")
              : "no single convention for every shift");

    const int wide_smem = (K / 4) * (ROWS_WIDE * 16 + 64) + 1024 + 64 * K * 4;
    CHECK(cudaFuncSetAttribute(time_shift, cudaFuncAttributeMaxDynamicSharedMemorySize, wide_smem));
    /* two warpgroups issuing at once, and one alone: ping-pong's consumers
     * issue one at a time (results/notes.md, "Session 41": a ping-pong stage
     * took its wgmma at 128 cycles each plus about 900) */
    for (int wgs : {2, 1})
        for (int swizzle = 0; swizzle < 2; swizzle++)
            for (int shift : {0, 3}) {
                if (swizzle && !ok)
                    continue;
                CHECK(cudaMemset(dcyc, 0, 2 * sizeof(long long)));
                time_shift<<<1, 128 * wgs, wide_smem>>>(shift, swizzle, dcyc, sink);
                CHECK(cudaGetLastError());
                CHECK(cudaDeviceSynchronize());
                long long cyc[2];
                CHECK(cudaMemcpy(cyc, dcyc, sizeof cyc, cudaMemcpyDeviceToHost));
                const double per =
                    (double)(cyc[0] > cyc[1] ? cyc[0] : cyc[1]) / ((double)wgs * ITER * (K / 8));
                printf("m64n256k8 x %d warpgroup%s, B %s, shift %d: %.1f cycles per wgmma of the "
                       "SM (128 at the TF32 peak)\n",
                       wgs, wgs > 1 ? "s" : "", swizzle ? "swizzled 128 B" : "unswizzled", shift,
                       per);
            }
    return ok ? 0 : 1;
}
