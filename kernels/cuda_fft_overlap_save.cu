/* fft_overlap_save: stride-1 transposed convolution in strict float32
 * through cuFFT, for the dense layers with many taps where cuDNN's own FFT
 * engines beat a direct or GEMM formulation in float32 (KernelBench kb58,
 * kb68: the 3xTF32 tensor-core kernels need three products per
 * multiply-add; here a multiply-add of the whole tap volume costs one
 * complex product per frequency).
 *
 * At stride 1 every output is a point of the full linear convolution of
 * its input channels with the dilated kernels (src/lib/fft_tiles.h). The
 * output is cut into overlap-save tiles of at most `points` FFT points
 * (the planner picks each dimension's length to minimise the bytes the
 * spectra move), and one launch is five steps on the stream:
 *   1. the weights, dilated and scaled by 1/points (cuFFT's inverse is
 *      unnormalised), into real tiles; their R2C transforms (cin x cout_g);
 *   2. the input segments of every tile (zeros outside the input), and
 *      their R2C transforms (n x cin x tiles);
 *   3. per frequency, the channel product
 *          Y[n][co][tile][f] = sum over ci of the group X[n][ci][tile][f] * W[ci][co][f]
 *      (fft_channel_products: complex float32, a block stages 8 input
 *      channels of 16 images and 32 output channels (or 16 and 16, or 8 and
 *      32) at 16 frequencies in shared memory, by cp.async into two buffers,
 *      each thread accumulating 4 images x 8 (or 4) channels);
 *   4. C2R of the products (n x cout x tiles);
 *   5. the outputs read from their tiles' valid points, with the bias; an
 *      output no tap reaches is the bias exactly.
 * The weights are data, so step 1 is part of every launch. The plans are
 * made in prepare (cuFFT's set-up is not what a layer's call costs) with
 * their work area in the variant's workspace. Everything is summed in a
 * fixed order: deterministic. Strided layers are refused: their FFT would
 * transform stride^dims times the input, mostly zeros.
 *
 *   convt-bench --config configs/fft-kernelbench.json */
#include <cufft.h>
#include <stdint.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "fastdiv.h"
#include "polyphase_common.cuh"
#include "smem_limit.cuh"
#include "fft_tiles.h"
#include "variant.h"

extern "C" const convt_variant convt_variant_fft_overlap_save;

enum {
    FFT_THREADS = 256,
    FFT_FB = 16, /* frequencies a product block covers */
    /* a product block covers NB images and CB output channels, 4 x TC a
     * thread (fft_block_shape_of) */
    FFT_CK = 8,  /* input channels staged at a time */
    FFT_TN = 4,
    FFT_ALIGN = 256,
};

static const char *cufft_status_name(cufftResult r)
{
    switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "an unlisted cufftResult";
    }
}

#define CUFFT_TRY(call, e)                                                                    \
    do {                                                                                      \
        cufftResult cufft_try_r_ = (call);                                                    \
        if (cufft_try_r_ != CUFFT_SUCCESS)                                                    \
            return convt_fail((e), "%s:%d: %s: %s (%d)", __FILE__, __LINE__, #call,           \
                              cufft_status_name(cufft_try_r_), (int)cufft_try_r_);            \
    } while (0)

static int64_t points_knob(const convt_launch *l)
{
    return convt_launch_get(&convt_variant_fft_overlap_save, l, "points");
}

/* Where each buffer lies in the workspace, in bytes from its start: the
 * spectra of the weights, inputs and outputs, one real buffer for the
 * tiles of each step in turn, then cuFFT's work area. */
struct fft_layout {
    size_t wc, xc, yc, real, work, total;
};

static size_t fft_round_up(size_t b) { return (b + FFT_ALIGN - 1) / FFT_ALIGN * FFT_ALIGN; }

static fft_layout fft_layout_of(const convt_problem *p, const convt_fft_tiles *t, size_t work)
{
    const size_t cpx = 2 * sizeof(float), cout_g = (size_t)(p->cout / p->groups);
    const size_t w_rows = (size_t)p->cin * cout_g, x_rows = (size_t)(p->n * p->cin * t->tiles),
                 y_rows = (size_t)(p->n * p->cout * t->tiles);
    size_t real_rows = w_rows > x_rows ? w_rows : x_rows;
    real_rows = real_rows > y_rows ? real_rows : y_rows;
    fft_layout L;
    L.wc = 0;
    L.xc = L.wc + fft_round_up(w_rows * (size_t)t->spectrum * cpx);
    L.yc = L.xc + fft_round_up(x_rows * (size_t)t->spectrum * cpx);
    L.real = L.yc + fft_round_up(y_rows * (size_t)t->spectrum * cpx);
    L.work = L.real + fft_round_up(real_rows * (size_t)t->points * sizeof(float));
    L.total = L.work + work;
    return L;
}

/* The product blocks' images x channels (NB x CB) and a thread's channels
 * (TC; 4 images each): 16 x 32 with 8 a thread (the fewest shared-memory
 * loads a product, though on the H100 no faster than 4 x 4: the kernel is
 * bound by its copies' integer work, results/notes.md "Session 20"), or 16
 * x 16 or 8 x 32 with 4, whichever computes the fewest padding products
 * (few channels a group, 8 images or fewer). */
struct fft_block_shape {
    int nb, cb, tc;
    int64_t n_blocks, c_blocks;
};

static fft_block_shape fft_block_shape_of(const convt_problem *p)
{
    const int64_t cout_g = p->cout / p->groups;
    fft_block_shape best = {0, 0, 0, 0, 0};
    const int shapes[3][3] = {{16, 32, 8}, {16, 16, 4}, {8, 32, 4}};
    for (int i = 0; i < 3; i++) {
        const int nb = shapes[i][0], cb = shapes[i][1];
        fft_block_shape b = {nb, cb, shapes[i][2], (p->n + nb - 1) / nb, (cout_g + cb - 1) / cb};
        if (i == 0 || b.n_blocks * b.nb * b.c_blocks * b.cb <
                          best.n_blocks * best.nb * best.c_blocks * best.cb)
            best = b;
    }
    return best;
}

/* The channel products' blocks: (spectrum / FB) x tiles x image blocks x
 * groups x channel blocks (in double: supports bounds it before a launch
 * counts it in 32 bits). */
static double fft_product_blocks(const convt_problem *p, const convt_fft_tiles *t,
                                 const fft_block_shape &b)
{
    return (double)((t->spectrum + FFT_FB - 1) / FFT_FB) * (double)t->tiles *
           (double)b.n_blocks * (double)p->groups * (double)b.c_blocks;
}

/* A product block's dynamic shared memory: two buffers of CK input
 * channels x (NB images + CB channels) x FB frequencies (fft_stage). */
constexpr size_t fft_products_smem_bytes(int nb, int cb)
{
    return 2 * (size_t)FFT_CK * (size_t)(nb + cb) * FFT_FB * (2 * sizeof(float));
}

static size_t fft_workspace(const convt_problem *p, const convt_launch *l)
{
    convt_fft_tiles t;
    char why[8];
    if (!convt_fft_tiles_plan(p, points_knob(l), &t, why, sizeof why))
        return 0;
    return fft_layout_of(p, &t, 0).total; /* prepare adds cuFFT's work area */
}

static bool fft_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                         char *why, size_t why_len)
{
    const int64_t points = points_knob(l);
    if (points < 8 || points > CONVT_FFT_MAX_POINTS) {
        snprintf(why, why_len, "points %lld: an FFT tile has 8 to 2^24 points", (long long)points);
        return false;
    }
    for (int d = 0; d < p->dims; d++)
        if (p->stride[d] != 1) {
            snprintf(why, why_len,
                     "stride %lld: overlap-save FFT tiles are for stride 1 (a strided layer's "
                     "transform would be stride^dims times its input, mostly zeros)",
                     (long long)p->stride[d]);
            return false;
        }
    const convt_shape3 s = convt_problem_as_3d(p);
    for (int d = 0; d < 3; d++)
        if (s.out[d] > (1 << 30)) { /* the kernels step 32-bit positions past the extent */
            snprintf(why, why_len, "an output dimension of %lld points, above 2^30",
                     (long long)s.out[d]);
            return false;
        }
    if (s.out[0] * s.out[1] * s.out[2] > INT32_MAX) {
        snprintf(why, why_len, "an output channel of more than 2^31 points");
        return false;
    }
    convt_fft_tiles t;
    if (!convt_fft_tiles_plan(p, points, &t, why, why_len))
        return false;
    /* the counts in double first: an absurd shape is refused, never wrapped */
    const int64_t cout_g = p->cout / p->groups;
    const fft_block_shape bs = fft_block_shape_of(p);
    const double x_rows = (double)p->n * (double)p->cin * (double)t.tiles;
    const double y_rows = (double)p->n * (double)p->cout * (double)t.tiles;
    const double w_rows = (double)p->cin * (double)cout_g;
    const double segment_lines = x_rows * (double)(t.len[0] * t.len[1]);
    const double output_lines = (double)p->n * (double)p->cout * (double)(s.out[0] * s.out[1]);
    const double product_blocks = fft_product_blocks(p, &t, bs);
    if (segment_lines > INT32_MAX || output_lines > INT32_MAX || w_rows > INT32_MAX ||
        product_blocks > INT32_MAX) {
        snprintf(why, why_len, "more than 2^31 lines or product blocks (the grid's x axis)");
        return false;
    }
    const double rows = x_rows > y_rows ? (x_rows > w_rows ? x_rows : w_rows)
                                        : (y_rows > w_rows ? y_rows : w_rows);
    const double bytes = (w_rows + x_rows + y_rows) * (double)t.spectrum * 8.0 +
                         rows * (double)t.points * 4.0;
    if (bytes > (double)ctx->workspace_limit) {
        snprintf(why, why_len,
                 "the spectra and tiles need %.1f MiB of workspace (%lld tiles of %lld points), "
                 "above the limit of %.0f MiB (workspace_limit_mb)",
                 bytes / 1048576.0, (long long)t.tiles, (long long)t.points,
                 ctx->workspace_limit / 1048576.0);
        return false;
    }
    const size_t smem = fft_products_smem_bytes(bs.nb, bs.cb);
    if (smem > ctx->dev->smem_per_block_optin) {
        snprintf(why, why_len,
                 "the channel products need %.0f KiB of shared memory a block, above the "
                 "device's %.0f KiB",
                 smem / 1024.0, ctx->dev->smem_per_block_optin / 1024.0);
        return false;
    }
    return true;
}

/* The lines the segment and output kernels walk, a warp each (lanes along
 * the innermost dimension): their index splits by fast division (lines <
 * 2^31, checked in supports), made once in prepare. */
struct fft_lines {
    convt_fft_tiles t;
    convt_shape3 s;
    int64_t cout;
    int64_t segment_lines, output_lines;
    convt_fastdiv len1, len0, tiles, count2, count1; /* segment line -> (plane, tile, m0, m1) */
    convt_fastdiv out1, out0, step1, step0, step2;   /* output line -> (row, o0, o1); o -> tile */
};

static fft_lines fft_lines_of(const convt_problem *p, const convt_fft_tiles *t)
{
    fft_lines L;
    L.t = *t;
    L.s = convt_problem_as_3d(p);
    L.cout = p->cout;
    L.segment_lines = p->n * p->cin * t->tiles * t->len[0] * t->len[1];
    L.output_lines = p->n * p->cout * L.s.out[0] * L.s.out[1];
    L.len1 = convt_fastdiv_make((uint32_t)t->len[1]);
    L.len0 = convt_fastdiv_make((uint32_t)t->len[0]);
    L.tiles = convt_fastdiv_make((uint32_t)t->tiles);
    L.count2 = convt_fastdiv_make((uint32_t)t->count[2]);
    L.count1 = convt_fastdiv_make((uint32_t)t->count[1]);
    L.out1 = convt_fastdiv_make((uint32_t)L.s.out[1]);
    L.out0 = convt_fastdiv_make((uint32_t)L.s.out[0]);
    L.step1 = convt_fastdiv_make((uint32_t)t->step[1]);
    L.step0 = convt_fastdiv_make((uint32_t)t->step[0]);
    L.step2 = convt_fastdiv_make((uint32_t)t->step[2]);
    return L;
}

struct fft_product_args {
    int64_t n, cin, cout, cin_g, cout_g, groups, tiles, spectrum;
    int64_t n_blocks, c_blocks; /* blocks of NB images, of CB channels a group */
};

/* What prepare makes, so that a launch only enqueues: the lines (with the
 * tile plan) for the segment and output kernels, the product blocks and
 * their arguments, the workspace's layout and three cuFFT plans. */
struct fft_state {
    fft_lines lines;
    fft_block_shape shape;
    fft_product_args products;
    unsigned product_blocks;
    fft_layout layout;
    cufftHandle fwd_w, fwd_x, inv_y;
    int made; /* how many of the three plans exist */
    size_t work;
};

static void fft_release(void *state)
{
    fft_state *st = (fft_state *)state;
    if (!st)
        return;
    cufftHandle *plans[3] = {&st->fwd_w, &st->fwd_x, &st->inv_y};
    for (int i = 0; i < st->made; i++)
        cufftDestroy(*plans[i]);
    free(st);
}

/* A batched transform over the tile's dimensions (the problem's own, the
 * innermost last), basic layout: each of `batch` rows is `points` reals and
 * `spectrum` complex values, one after the other. */
static int fft_make_plan(fft_state *st, cufftHandle *plan, cufftType type, int64_t batch,
                         convt_err *e)
{
    CUFFT_TRY(cufftCreate(plan), e);
    st->made++;
    CUFFT_TRY(cufftSetAutoAllocation(*plan, 0), e);
    long long n[3];
    const convt_fft_tiles &t = st->lines.t;
    for (int d = 0; d < t.rank; d++)
        n[d] = (long long)t.len[3 - t.rank + d];
    size_t work = 0;
    CUFFT_TRY(cufftMakePlanMany64(*plan, t.rank, n, NULL, 1, 0, NULL, 1, 0, type,
                                  (long long)batch, &work),
              e);
    if (work > st->work)
        st->work = work;
    return 0;
}

static int fft_products_allow_smem(const fft_block_shape &b, const convt_device_info *dev,
                                   convt_err *e);

static int fft_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                       const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t;
    fft_state *st = (fft_state *)calloc(1, sizeof *st);
    if (!st)
        return convt_fail(e, "out of host memory");
    *state = st;
    char why[256];
    convt_fft_tiles tiles;
    if (!convt_fft_tiles_plan(p, points_knob(l), &tiles, why, sizeof why))
        return convt_fail(e, "%s", why);
    st->lines = fft_lines_of(p, &tiles);
    st->shape = fft_block_shape_of(p);
    fft_product_args &a = st->products;
    a.n = p->n, a.cin = p->cin, a.cout = p->cout, a.cin_g = p->cin / p->groups;
    a.cout_g = p->cout / p->groups, a.groups = p->groups, a.tiles = tiles.tiles;
    a.spectrum = tiles.spectrum, a.n_blocks = st->shape.n_blocks, a.c_blocks = st->shape.c_blocks;
    st->product_blocks = (unsigned)fft_product_blocks(p, &tiles, st->shape);
    if (fft_make_plan(st, &st->fwd_w, CUFFT_R2C, a.cin * a.cout_g, e) ||
        fft_make_plan(st, &st->fwd_x, CUFFT_R2C, p->n * p->cin * tiles.tiles, e) ||
        fft_make_plan(st, &st->inv_y, CUFFT_C2R, p->n * p->cout * tiles.tiles, e))
        return -1;
    st->layout = fft_layout_of(p, &tiles, st->work);
    *workspace = st->layout.total;
    if (*workspace > ctx->workspace_limit) /* supports counted all but cuFFT's work area */
        return convt_skip(e,
                          "the spectra, tiles and cuFFT's work area (%.1f MiB) need %.1f MiB of "
                          "workspace, above the limit of %.0f MiB (workspace_limit_mb)",
                          st->work / 1048576.0, *workspace / 1048576.0,
                          ctx->workspace_limit / 1048576.0);
    return fft_products_allow_smem(st->shape, ctx->dev, e);
}

static void fft_describe(const void *state, char *buf, size_t len)
{
    const fft_state *st = (const fft_state *)state;
    const convt_fft_tiles *t = &st->lines.t;
    snprintf(buf, len, "tiles %lldx%lldx%lld of %lldx%lldx%lld points (%lld outputs each), "
             "products %d images x %d channels a block (%d a thread), cuFFT work area %.1f MiB",
             (long long)t->count[0], (long long)t->count[1], (long long)t->count[2],
             (long long)t->len[0], (long long)t->len[1], (long long)t->len[2],
             (long long)(t->step[0] * t->step[1] * t->step[2]), st->shape.nb, st->shape.cb, st->shape.tc,
             st->work / 1048576.0);
}

/* Point index p of a tile -> its coordinates (m0, m1, m2). */
__device__ __forceinline__ void fft_point_coords(uint32_t p, const convt_fft_tiles &t,
                                                 int64_t m[3])
{
    const uint32_t l2 = (uint32_t)t.len[2], l1 = (uint32_t)t.len[1];
    const uint32_t r = p / l2;
    m[2] = p - r * l2;
    m[1] = r % l1;
    m[0] = r / l1;
}

/* Step 1: row (ci, col) of the weights' real tiles: tap k at point k * dil,
 * scaled by 1 / points; zeros elsewhere. */
__global__ void fft_dilate_weights(convt_fft_tiles t, convt_shape3 s, float scale,
                                   const float *__restrict__ w, float *__restrict__ real)
{
    const int64_t row = blockIdx.x;
    const int64_t taps = s.k[0] * s.k[1] * s.k[2];
    for (uint32_t p = blockIdx.y * blockDim.x + threadIdx.x; p < (uint32_t)t.points;
         p += gridDim.y * blockDim.x) {
        int64_t m[3];
        fft_point_coords(p, t, m);
        const int64_t k0 = convt_fft_tap_at(m[0], s.dil[0], s.k[0]),
                      k1 = convt_fft_tap_at(m[1], s.dil[1], s.k[1]),
                      k2 = convt_fft_tap_at(m[2], s.dil[2], s.k[2]);
        float v = 0.0f;
        if (k0 >= 0 && k1 >= 0 && k2 >= 0)
            v = w[row * taps + (k0 * s.k[1] + k1) * s.k[2] + k2] * scale;
        real[row * t.points + p] = v;
    }
}

/* q = n / d and n - q * d. */
__device__ __forceinline__ uint32_t fft_divmod(convt_fastdiv d, uint32_t n, uint32_t *rem)
{
    const uint32_t q = convt_fastdiv_div(d, n);
    *rem = n - q * d.d;
    return q;
}

/* Step 2: line (n, ci, tile, m0, m1) of the input's real tiles, a warp
 * each, a lane per point m2: the tile's segment, zeros outside the input. */
__global__ void fft_cut_segments(fft_lines L, const float *__restrict__ x,
                                 float *__restrict__ real)
{
    const convt_fft_tiles &t = L.t;
    const convt_shape3 &s = L.s;
    const int lane = threadIdx.x % 32, warps = blockDim.x / 32;
    const int len = (int)t.len[2], in2 = (int)s.in[2];
    for (int64_t line = (int64_t)blockIdx.x * warps + threadIdx.x / 32; line < L.segment_lines;
         line += (int64_t)gridDim.x * warps) {
        uint32_t m1, m0, tile, j2, j1;
        const uint32_t row = fft_divmod(L.len0, fft_divmod(L.len1, (uint32_t)line, &m1), &m0);
        const uint32_t plane = fft_divmod(L.tiles, row, &tile);
        const uint32_t j0 = fft_divmod(L.count1, fft_divmod(L.count2, tile, &j2), &j1);
        const int64_t i0 = convt_fft_segment_input(j0, m0, t.step[0], s.pad[0], t.reach[0]);
        const int64_t i1 = convt_fft_segment_input(j1, m1, t.step[1], s.pad[1], t.reach[1]);
        const int first = (int)convt_fft_segment_input(j2, 0, t.step[2], s.pad[2], t.reach[2]);
        const bool rows_inside = i0 >= 0 && i0 < s.in[0] && i1 >= 0 && i1 < s.in[1];
        const float *xp = x + ((int64_t)plane * s.in[0] * s.in[1] + i0 * s.in[1] + i1) * s.in[2];
        float *out = real + line * t.len[2];
        for (int m2 = lane; m2 < len; m2 += 32) {
            const int i2 = first + m2;
            out[m2] = rows_inside && i2 >= 0 && i2 < in2 ? xp[i2] : 0.0f;
        }
    }
}

__device__ __forceinline__ float2 fft_cmul_add(float2 acc, float2 a, float2 b)
{
    acc.x = fmaf(a.x, b.x, fmaf(-a.y, b.y, acc.x));
    acc.y = fmaf(a.x, b.y, fmaf(a.y, b.x, acc.y));
    return acc;
}

/* One operand's staging in a product block: thread tid copies the
 * elements (k, row, f) = e / (FB * ROWS), e / FB % ROWS, e % FB of e = tid +
 * r * FFT_THREADS. Its f is tid % FB for every r, and with TR = FFT_THREADS
 * / FB thread rows (tid / FB < TR), its (k, row) is a fixed start plus
 * compile-time steps: for ROWS <= TR, row = trow % ROWS and k = trow / ROWS +
 * r * (TR / ROWS); for ROWS > TR, row = trow + TR * (r % (ROWS / TR)) and k
 * = r / (ROWS / TR). So a copy's source is one pointer plus constant
 * multiples of the two strides (v5 computed each from q = trow + TR * r,
 * and its integer work was as large as the multiplies: results/notes.md).
 * Copied by cp.async (zeros past what exists), so that the next input
 * channels land in the other buffer while these are multiplied. */
template <int ROWS>
struct fft_stage {
    static constexpr int TR = FFT_THREADS / FFT_FB;
    static_assert(TR % ROWS == 0 || ROWS % TR == 0, "rows and thread rows nest");
    static constexpr int PER_THREAD = FFT_CK * ROWS * FFT_FB / FFT_THREADS;
    static constexpr int ROW_STEPS = ROWS > TR ? ROWS / TR : 1; /* rows a k, per thread */
    static constexpr int K_STEP = ROWS > TR ? 1 : TR / ROWS;    /* k between a thread's */
    typedef float2 buffer[FFT_CK][ROWS][FFT_FB];

    /* src points at (k = 0, row = 0, this thread's f) of a channel step;
     * k_stride and row_stride in elements; rows_left and k_left bound what
     * exists, f_ok this thread's frequency */
    __device__ __forceinline__ static void copy(buffer &dst, const float2 *src, int64_t k_stride,
                                                int64_t row_stride, int64_t rows_left,
                                                int64_t k_left, bool f_ok)
    {
        const int trow = threadIdx.x / FFT_FB, fl = threadIdx.x % FFT_FB;
        const int row0 = ROWS > TR ? trow : trow % ROWS, k0 = ROWS > TR ? 0 : trow / ROWS;
        const float2 *p = src + k0 * k_stride + row0 * row_stride;
#pragma unroll
        for (int r = 0; r < PER_THREAD; r++) {
            const int dk = r / ROW_STEPS * K_STEP, drow = r % ROW_STEPS * TR;
            const bool ok = f_ok && row0 + drow < rows_left && k0 + dk < k_left;
            cp_async8(&dst[k0 + dk][row0 + drow][fl], ok ? p + dk * k_stride + drow * row_stride : src,
                      ok);
        }
    }
};

/* The dynamic shared memory of a product block: two buffers of each operand. */
template <int NB, int CB>
constexpr size_t fft_products_smem()
{
    static_assert(2 * (sizeof(typename fft_stage<NB>::buffer) +
                       sizeof(typename fft_stage<CB>::buffer)) == fft_products_smem_bytes(NB, CB),
                  "the host's count (supports) is the buffers' size");
    return fft_products_smem_bytes(NB, CB);
}

/* Step 3. blockIdx.x = (((fb * tiles + tile) * n_blocks + nb) * groups + g)
 * * c_blocks + cb: the blocks of one frequency block run together, so the
 * weights' spectrum of those frequencies is read from DRAM about once and
 * an input tile's once per group. Thread (ng, cg, fl): frequency f0 + fl,
 * images 4 ng .. 4 ng + 3 and channels TC cg .. TC cg + TC - 1 of the block's. */
template <int NB, int CB, int TC>
__global__ void __launch_bounds__(FFT_THREADS, 2) /* 128 registers: 2 blocks an SM */
    fft_channel_products(fft_product_args a, const float2 *__restrict__ X,
                         const float2 *__restrict__ W, float2 *__restrict__ Y)
{
    static_assert(NB / FFT_TN * (CB / TC) * FFT_FB == FFT_THREADS, "a thread per 4 x TC");
    extern __shared__ float4 fft_smem[]; /* 16-byte aligned */
    typedef typename fft_stage<NB>::buffer xbuf;
    typedef typename fft_stage<CB>::buffer wbuf;
    xbuf *xs = reinterpret_cast<xbuf *>(fft_smem);
    wbuf *ws = reinterpret_cast<wbuf *>(xs + 2);
    int64_t b = blockIdx.x;
    const int64_t cb = b % a.c_blocks;
    b /= a.c_blocks;
    const int64_t g = b % a.groups;
    b /= a.groups;
    const int64_t nb = b % a.n_blocks;
    b /= a.n_blocks;
    const int64_t tile = b % a.tiles, f0 = b / a.tiles * FFT_FB;
    const int64_t n0 = nb * NB, c0 = cb * CB, ci_g0 = g * a.cin_g;
    const int fl = threadIdx.x % FFT_FB, ng = threadIdx.x / FFT_FB % (NB / FFT_TN),
              cg = threadIdx.x / FFT_FB / (NB / FFT_TN);
    const bool f_ok = f0 + fl < a.spectrum;

    /* X[n][ci][tile][f]: k steps by tiles * spectrum, rows (images) by cin
     * of those; W[ci][col][f]: k by cout_g * spectrum, rows by spectrum */
    const int64_t xk = a.tiles * a.spectrum, xrow = a.cin * xk, wk = a.cout_g * a.spectrum;
    const float2 *xsrc = X + (n0 * a.cin + ci_g0) * xk + tile * a.spectrum + f0 + fl;
    const float2 *wsrc = W + (ci_g0 * a.cout_g + c0) * a.spectrum + f0 + fl;
    fft_stage<NB>::copy(xs[0], xsrc, xk, xrow, a.n - n0, a.cin_g, f_ok);
    fft_stage<CB>::copy(ws[0], wsrc, wk, a.spectrum, a.cout_g - c0, a.cin_g, f_ok);
    cp_async_commit();

    float2 acc[FFT_TN][TC];
#pragma unroll
    for (int i = 0; i < FFT_TN; i++)
#pragma unroll
        for (int c = 0; c < TC; c++)
            acc[i][c] = make_float2(0.0f, 0.0f);

    int buf = 0;
    for (int64_t k0 = 0; k0 < a.cin_g; k0 += FFT_CK, buf ^= 1) {
        const bool next = k0 + FFT_CK < a.cin_g;
        if (next) { /* the other buffer was last read before the previous barrier */
            xsrc += FFT_CK * xk;
            wsrc += FFT_CK * wk;
            const int64_t left = a.cin_g - k0 - FFT_CK;
            fft_stage<NB>::copy(xs[buf ^ 1], xsrc, xk, xrow, a.n - n0, left, f_ok);
            fft_stage<CB>::copy(ws[buf ^ 1], wsrc, wk, a.spectrum, a.cout_g - c0, left, f_ok);
            cp_async_commit();
        }
        cp_async_wait(next ? 1 : 0);
        __syncthreads();
        const xbuf &xc = xs[buf];
        const wbuf &wc = ws[buf];
#pragma unroll(TC == 8 ? 2 : FFT_CK) /* 4 x 8 fully unrolled spills its early loads */
        for (int k = 0; k < FFT_CK; k++) {
            float2 xv[FFT_TN], wv[TC];
#pragma unroll
            for (int i = 0; i < FFT_TN; i++)
                xv[i] = xc[k][ng * FFT_TN + i][fl];
#pragma unroll
            for (int c = 0; c < TC; c++)
                wv[c] = wc[k][cg * TC + c][fl];
#pragma unroll
            for (int i = 0; i < FFT_TN; i++)
#pragma unroll
                for (int c = 0; c < TC; c++)
                    acc[i][c] = fft_cmul_add(acc[i][c], xv[i], wv[c]);
        }
        __syncthreads();
    }
    if (!f_ok)
        return;
#pragma unroll
    for (int i = 0; i < FFT_TN; i++)
#pragma unroll
        for (int c = 0; c < TC; c++) {
            const int64_t n = n0 + ng * FFT_TN + i, col = c0 + cg * TC + c;
            if (n < a.n && col < a.cout_g)
                Y[((n * a.cout + g * a.cout_g + col) * a.tiles + tile) * a.spectrum + f0 + fl] =
                    acc[i][c];
        }
}

/* The product kernel's shared memory is over 48 KiB: allowed once, in prepare. */
static int fft_products_allow_smem(const fft_block_shape &b, const convt_device_info *dev,
                                   convt_err *e)
{
    if (b.tc == 8)
        return convt_raise_smem_for((const void *)fft_channel_products<16, 32, 8>,
                                    fft_products_smem<16, 32>(), dev, e);
    return b.nb == 16 ? convt_raise_smem_for((const void *)fft_channel_products<16, 16, 4>,
                                             fft_products_smem<16, 16>(), dev, e)
                      : convt_raise_smem_for((const void *)fft_channel_products<8, 32, 4>,
                                             fft_products_smem<8, 32>(), dev, e);
}

/* Step 5: output line (n, co, o0, o1), a warp each, a lane per o2: each
 * output read from its tile's point, plus the bias; the bias alone where
 * no tap reaches. */
__global__ void fft_gather_outputs(fft_lines L, const float *__restrict__ real,
                                   const float *__restrict__ bias, float *__restrict__ y)
{
    const convt_fft_tiles &t = L.t;
    const convt_shape3 &s = L.s;
    const int lane = threadIdx.x % 32, warps = blockDim.x / 32;
    const int out2 = (int)s.out[2], reach = (int)t.reach[2], step = (int)t.step[2];
    const int pad = (int)s.pad[2], in2 = (int)s.in[2], k2 = (int)s.k[2], dil = (int)s.dil[2];
    for (int64_t line = (int64_t)blockIdx.x * warps + threadIdx.x / 32; line < L.output_lines;
         line += (int64_t)gridDim.x * warps) {
        uint32_t o1, o0;
        const uint32_t row = fft_divmod(L.out0, fft_divmod(L.out1, (uint32_t)line, &o1), &o0);
        const float b = bias ? bias[row % L.cout] : 0.0f;
        const int64_t j0 = convt_fastdiv_div(L.step0, o0), j1 = convt_fastdiv_div(L.step1, o1);
        const int64_t m0 = o0 - j0 * t.step[0] + t.reach[0] - 1;
        const int64_t m1 = o1 - j1 * t.step[1] + t.reach[1] - 1;
        const bool outer_empty =
            convt_fft_output_empty(o0, s.pad[0], s.in[0], s.k[0], s.dil[0]) ||
            convt_fft_output_empty(o1, s.pad[1], s.in[1], s.k[1], s.dil[1]);
        /* the line's tiles along the innermost dimension start here, t.points apart */
        const float *rp = real + (((int64_t)row * t.tiles + (j0 * t.count[1] + j1) * t.count[2]) *
                                      t.points +
                                  (m0 * t.len[1] + m1) * t.len[2]);
        float *yp = y + line * s.out[2];
        for (int o2 = lane; o2 < out2; o2 += 32) {
            float v = b;
            if (!outer_empty && !convt_fft_output_empty(o2, pad, in2, k2, dil)) {
                const int j2 = (int)convt_fastdiv_div(L.step2, (uint32_t)o2);
                v += rp[(int64_t)j2 * t.points + (o2 - j2 * step + reach - 1)];
            }
            yp[o2] = v;
        }
    }
}

/* Blocks for `rows` rows of `per_row` elements: x the rows, y enough of
 * FFT_THREADS-wide chunks (at most 65535; the kernel strides over the rest). */
static dim3 fft_rows_grid(int64_t rows, int64_t per_row)
{
    int64_t chunks = (per_row + FFT_THREADS - 1) / FFT_THREADS;
    return dim3((unsigned)rows, (unsigned)(chunks < 65535 ? chunks : 65535));
}

/* Blocks for a walk of `lines` lines, a warp each at a time: enough to
 * fill the device several times over, each warp then walking its share. */
static unsigned fft_lines_grid(int64_t lines)
{
    const int64_t warps = FFT_THREADS / 32, blocks = (lines + warps - 1) / warps;
    return (unsigned)(blocks < 8192 ? blocks : 8192);
}

static int fft_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *tn,
                      void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)l, (void)p;
    const fft_state *st = (const fft_state *)state;
    const convt_fft_tiles &t = st->lines.t;
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const fft_layout &L = st->layout;
    char *base = (char *)workspace; /* may move between launches: set every time */
    float2 *wc = (float2 *)(base + L.wc), *xc = (float2 *)(base + L.xc),
           *yc = (float2 *)(base + L.yc);
    float *real = (float *)(base + L.real);
    const cufftHandle plans[3] = {st->fwd_w, st->fwd_x, st->inv_y};
    for (int i = 0; i < 3; i++) {
        CUFFT_TRY(cufftSetStream(plans[i], stream), e);
        CUFFT_TRY(cufftSetWorkArea(plans[i], base + L.work), e);
    }

    fft_dilate_weights<<<fft_rows_grid(st->products.cin * st->products.cout_g, t.points),
                         FFT_THREADS, 0, stream>>>(t, st->lines.s, 1.0f / (float)t.points, tn->w,
                                                   real);
    CUDA_TRY_LAUNCH(e);
    CUFFT_TRY(cufftExecR2C(st->fwd_w, real, (cufftComplex *)wc), e);

    fft_cut_segments<<<fft_lines_grid(st->lines.segment_lines), FFT_THREADS, 0, stream>>>(
        st->lines, tn->x, real);
    CUDA_TRY_LAUNCH(e);
    CUFFT_TRY(cufftExecR2C(st->fwd_x, real, (cufftComplex *)xc), e);

    const fft_product_args &a = st->products;
    const unsigned blocks = st->product_blocks;
    if (st->shape.tc == 8)
        fft_channel_products<16, 32, 8>
            <<<blocks, FFT_THREADS, fft_products_smem<16, 32>(), stream>>>(a, xc, wc, yc);
    else if (st->shape.nb == 16)
        fft_channel_products<16, 16, 4>
            <<<blocks, FFT_THREADS, fft_products_smem<16, 16>(), stream>>>(a, xc, wc, yc);
    else
        fft_channel_products<8, 32, 4>
            <<<blocks, FFT_THREADS, fft_products_smem<8, 32>(), stream>>>(a, xc, wc, yc);
    CUDA_TRY_LAUNCH(e);

    CUFFT_TRY(cufftExecC2R(st->inv_y, (cufftComplex *)yc, real), e);
    fft_gather_outputs<<<fft_lines_grid(st->lines.output_lines), FFT_THREADS, 0, stream>>>(
        st->lines, real, tn->b, tn->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

extern "C" const convt_variant convt_variant_fft_overlap_save = {
    .name = "fft_overlap_save",
    .summary = "stride 1, strict float32: overlap-save tiles through cuFFT, the channel sum as "
               "one complex product per frequency (for many taps and channels, where cuDNN's "
               "FFT engines win)",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 1,
    .knobs = {{.name = "points",
               .help = "most FFT points a tile has (its lengths are chosen per dimension, "
                       "2,3,5,7-smooth, to move the fewest bytes): larger tiles waste less on "
                       "the kernel's overlap, smaller ones shrink the weights' spectra",
               .n_defaults = 3,
               .defaults = {8192, 65536, 524288}}},
    .supports = fft_supports,
    .workspace_size = fft_workspace,
    .prepare = fft_prepare,
    .launch = fft_launch,
    .release = fft_release,
    .describe = fft_describe,
};
