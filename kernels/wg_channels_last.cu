/* input_channels_last: polyphase_wgmma_fold_cl_tf32's copy of the input,
 * channels last (the layout and why: kernels/wg_channels_last.cuh). A
 * file of its own, so that the host side's translation unit
 * (cuda_polyphase_igemm.cu, with the mma.sync kernels in it) keeps its
 * code as measured. */
#include "wg_channels_last.cuh"

/* A block transposes 32 positions x 32 channels of one (image, group)
 * through shared memory: it reads 32 neighbouring positions of a channel
 * (128 bytes) and writes 32 neighbouring channels of a position; the
 * channels past cin_g are written as zeros. The grid's z loops past 65535
 * images x groups.
 *
 * The weight repack runs beside it: launched next by programmatic
 * dependent launch, it starts once this grid's blocks have all started
 * (they allow it first thing) and waits for this grid's end before its
 * own (pack_weights_stages' AFTER), so that the wgmma kernel's wait for
 * the repack covers both. On up1d_k12_s6_c768to384 (2.4 MB of input) the
 * copy takes 5.4 us under Nsight Compute, the repack 11.2 and the wgmma
 * kernel 54.1 against the gather's 60.2 (session 33): run in turn, before
 * or after the repack, the copy cost more than the wgmma kernel saved
 * (0.0649 ms against the gather's 0.0605). */
__global__ void input_channels_last(const float *__restrict__ x, float *__restrict__ xcl,
                                    int64_t positions, int cin_g, int cpad, int groups, int images)
{
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    __shared__ float tile[32][33]; /* 33: a column's reads hit 32 banks */
    const int64_t p0 = (int64_t)blockIdx.x * 32;
    const int c0 = (int)blockIdx.y * 32;
    for (int z = blockIdx.z; z < images * groups; z += gridDim.z) {
        const int n = z / groups, g = z % groups;
        const float *xz = x + (int64_t)z * cin_g * positions; /* (n * groups + g) * cin_g channels on */
#pragma unroll
        for (int j = 0; j < 32; j += 8) {
            const int c = c0 + (int)threadIdx.y + j;
            const int64_t p = p0 + threadIdx.x;
            tile[threadIdx.y + j][threadIdx.x] = c < cin_g && p < positions ? xz[(int64_t)c * positions + p] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < 32; j += 8) {
            const int64_t p = p0 + threadIdx.y + j;
            if (p < positions)
                xcl[wg_cl_offset((int64_t)n * positions + p, groups, g, cpad, c0 + (int)threadIdx.x)] =
                    tile[threadIdx.x][threadIdx.y + j];
        }
        __syncthreads();
    }
}

cudaError_t wg_channels_last_launch(const float *x, float *xcl, int64_t positions, int cin_g,
                                    int groups, int images, cudaStream_t s)
{
    const int cpad = wg_cl_channels(cin_g);
    const int64_t zs = (int64_t)images * groups;
    const dim3 grid((unsigned)((positions + 31) / 32), (unsigned)(cpad / 32),
                    (unsigned)(zs < 65535 ? zs : 65535));
    if (grid.x == 0 || grid.z == 0)
        return cudaSuccess; /* an empty input */
    input_channels_last<<<grid, dim3(32, 8), 0, s>>>(x, xcl, positions, cin_g, cpad, groups, images);
    return cudaGetLastError();
}
