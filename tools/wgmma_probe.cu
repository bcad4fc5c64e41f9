/* Priority 4's first step: the warpgroup MMA (wgmma.mma_async, sm_90a) for
 * TF32, checked on its own before a polyphase kernel is built on it. One
 * warpgroup computes C[64][64] = A[64][K] * B[64][K]^T, both operands
 * K-major in shared memory (TF32 wgmma reads nothing else), laid out in
 * core matrices of 8 rows x 16 bytes (4 TF32), without swizzling:
 *
 *   smem[row / 8][k / 4][row % 8][k % 4]      (one core matrix = 128 bytes)
 *
 * The matrix descriptor's two offsets are the distances between core
 * matrices adjacent along K and along M/N. Which field holds which is the
 * thing most easily got wrong, so the probe runs both assignments and says
 * which one computes the product (the other must not). It also checks the
 * accumulator layout: thread t of the warpgroup, register r, holds
 *   row = 16*(t/32) + (t%32)/4 + 8*((r/2)%2),  col = 8*(r/4) + 2*(t%4) + r%2.
 *
 *   nvcc -arch=sm_90a -O2 tools/wgmma_probe.cu -o wgmma_probe && ./wgmma_probe
 * Exit 0 when exactly one assignment matches a float64 product within 1e-5
 * relative; the operands are exactly TF32 values, so the remaining error is
 * the float32 accumulation's. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "wgmma_probe_common.cuh"

constexpr int M = 64, N = 64, K = 32;

/* Byte offset of element (row, k) in the core-matrix layout above. */
__host__ __device__ constexpr int core_offset(int row, int k, int kdim)
{
    return ((row / 8) * (kdim / 4) + k / 4) * 128 + (row % 8) * 16 + (k % 4) * 4;
}

__device__ uint64_t descriptor(const void *smem, uint32_t lbo, uint32_t sbo)
{
    uint32_t addr = (uint32_t)__cvta_generic_to_shared(smem);
    uint64_t d = 0;
    d |= (uint64_t)((addr >> 4) & 0x3fff);
    d |= (uint64_t)((lbo >> 4) & 0x3fff) << 16;
    d |= (uint64_t)((sbo >> 4) & 0x3fff) << 32;
    /* base offset 0, swizzle mode 0 (none) */
    return d;
}

__device__ void wgmma_m64n64k8(float (&d)[32], uint64_t da, uint64_t db, int accumulate)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
          "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
          "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
          "+f"(d[31])
        : "l"(da), "l"(db), "r"(accumulate));
}

/* swap = 0: LBO = distance along K, SBO = along M/N (the PTX ISA's words);
 * swap = 1: the other way round. */
__global__ void probe(const float *a, const float *b, float *c, int swap)
{
    __shared__ __align__(128) unsigned char sa[M * K * 4], sb[N * K * 4];
    const int t = threadIdx.x;
    for (int i = t; i < M * K; i += blockDim.x) {
        int row = i / K, k = i % K;
        *(float *)(sa + core_offset(row, k, K)) = a[i];
        *(float *)(sb + core_offset(row, k, K)) = b[i];
    }
    /* generic-proxy stores, read next by the async proxy */
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const uint32_t along_k = 128, along_mn = (K / 4) * 128;
    const uint32_t lbo = swap ? along_mn : along_k, sbo = swap ? along_k : along_mn;
    float d[32];
    for (int r = 0; r < 32; r++)
        d[r] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int k0 = 0; k0 < K; k0 += 8) {
        /* a k8 step spans two core matrices along K: 256 bytes on */
        uint64_t da = descriptor(sa + core_offset(0, k0, K), lbo, sbo);
        uint64_t db = descriptor(sb + core_offset(0, k0, K), lbo, sbo);
        wgmma_m64n64k8(d, da, db, k0 > 0);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    const int warp = t / 32, lane = t % 32;
    for (int r = 0; r < 32; r++) {
        int row = 16 * warp + lane / 4 + 8 * ((r / 2) % 2);
        int col = 8 * (r / 4) + 2 * (lane % 4) + r % 2;
        c[row * N + col] = d[r];
    }
}

int main()
{
    int dev_major = 0;
    CHECK(cudaDeviceGetAttribute(&dev_major, cudaDevAttrComputeCapabilityMajor, 0));
    std::vector<float> a(M * K), b(N * K), c(M * N);
    uint32_t s = 12345;
    for (auto *v : {&a, &b})
        for (float &x : *v) {
            s = s * 1664525u + 1013904223u;
            /* exactly TF32: the tensor cores' own rounding cannot matter */
            x = tf32((float)(s >> 8) / (float)(1 << 24) * 2.0f - 1.0f);
        }
    std::vector<double> ref(M * N);
    double ref_norm = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double acc = 0;
            for (int k = 0; k < K; k++)
                acc += (double)tf32(a[m * K + k]) * (double)tf32(b[n * K + k]);
            ref[m * N + n] = acc;
            ref_norm += acc * acc;
        }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, a.size() * 4));
    CHECK(cudaMalloc(&db, b.size() * 4));
    CHECK(cudaMalloc(&dc, c.size() * 4));
    CHECK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    int matches = 0, which = -1;
    for (int swap = 0; swap < 2; swap++) {
        CHECK(cudaMemset(dc, 0, c.size() * 4));
        probe<<<1, 128>>>(da, db, dc, swap);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
        double err = 0, worst = 0;
        int worst_at = 0;
        for (int i = 0; i < M * N; i++) {
            double e = fabs(c[i] - ref[i]);
            err += e * e;
            if (e > worst)
                worst = e, worst_at = i;
        }
        double rel = sqrt(err / ref_norm);
        bool ok = rel < 1e-5;
        printf("wgmma m64n64k8 tf32, K = %d, LBO = %s, SBO = %s: normwise error %.2e, worst "
               "|diff| %.3g at (%d, %d): %s\n",
               K, swap ? "along M/N" : "along K", swap ? "along K" : "along M/N", rel, worst,
               worst_at / N, worst_at % N, ok ? "the product" : "not the product");
        if (ok)
            matches++, which = swap;
    }
    printf("wgmma probe: %s\n", matches == 1 ? (which ? "LBO is the M/N distance, SBO the K "
                                                        "distance (no swizzle, K-major)"
                                                      : "LBO is the K distance, SBO the M/N "
                                                        "distance (no swizzle, K-major)")
                                             : "no single layout matched");
    return matches == 1 ? 0 : 1;
}
