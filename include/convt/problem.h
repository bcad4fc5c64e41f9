/* The operator: one transposed convolution with PyTorch ConvTranspose1d/2d/3d
 * semantics (see DESIGN.md, "The operator").
 *
 *   x[N][C_in][L_in...], w[C_in][C_out/groups][K...], b[C_out], y[N][C_out][L_out...]
 *   L_out = (L_in - 1)*stride - 2*pad + dil*(K - 1) + out_pad + 1
 *
 * Everything is a plain value type; sizes are int64_t so that no element
 * count can wrap (convt_problem_check refuses shapes whose counts would not
 * fit comfortably in 64 bits). */
#ifndef CONVT_SRC_PROBLEM_H
#define CONVT_SRC_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CONVT_MAX_DIMS 3
/* Largest tensor we agree to describe: 2^40 elements (4 TiB of float32).
 * Far above any device, far below where int64 products could overflow. */
#define CONVT_MAX_ELEMS ((int64_t)1 << 40)

typedef struct convt_problem {
    char name[64];   /* free-form label from the config; not part of the key */
    int dims;        /* 1, 2 or 3 spatial dimensions */
    int64_t n, cin, cout, groups;
    bool bias;
    int64_t in[CONVT_MAX_DIMS];      /* L_in per spatial dim */
    int64_t k[CONVT_MAX_DIMS];       /* kernel size */
    int64_t stride[CONVT_MAX_DIMS];
    int64_t pad[CONVT_MAX_DIMS];
    int64_t out_pad[CONVT_MAX_DIMS];
    int64_t dil[CONVT_MAX_DIMS];
} convt_problem;

/* A problem with every per-dimension parameter at PyTorch's default
 * (stride 1, pad 0, out_pad 0, dil 1), groups 1, no bias, sizes zero. */
convt_problem convt_problem_default(int dims);

/* NULL when p obeys PyTorch's rules; otherwise writes into buf (len bytes) a
 * sentence naming the offending parameter by its config name (e.g.
 * "out_pad[1] = 2 must be smaller than stride[1] = 2 or dil[1] = 1") and
 * returns buf. */
const char *convt_problem_check(const convt_problem *p, char *buf, size_t len);

int64_t convt_out_size(const convt_problem *p, int d);
/* Along dimension d, the dilated kernel's extent dil*(K - 1) + 1: the span
 * of outputs one input position's taps cover. */
int64_t convt_kernel_reach(const convt_problem *p, int d);
int64_t convt_x_elems(const convt_problem *p);
int64_t convt_w_elems(const convt_problem *p);
int64_t convt_b_elems(const convt_problem *p);   /* 0 without bias */
int64_t convt_y_elems(const convt_problem *p);
int64_t convt_in_spatial(const convt_problem *p);   /* prod(L_in) */
int64_t convt_out_spatial(const convt_problem *p);  /* prod(L_out) */
int64_t convt_taps(const convt_problem *p);         /* prod(K) */

/* Nominal FLOPs 2*N*C_in*(C_out/groups)*prod(K)*prod(L_in): every input
 * element meets every tap of its group's weights once. */
double convt_flops(const convt_problem *p);
/* Minimum bytes 4*(x + w + b + y): each tensor touched once. */
double convt_min_bytes(const convt_problem *p);

/* Shapes of 1 or 2 spatial dims seen as 3-dimensional with leading size-1
 * dims (k 1, stride 1, pad 0, dil 1, out_pad 0): the memory layout is the
 * same, so one loop nest serves all three dimensionalities. Index 2 is the
 * innermost (contiguous) dimension. */
typedef struct convt_shape3 {
    int64_t in[3], out[3], k[3], stride[3], pad[3], dil[3];
} convt_shape3;
convt_shape3 convt_problem_as_3d(const convt_problem *p);

/* The same computation in the form the project's kernels run best: every
 * output the same sum of the same products (so the float64 reference gives
 * bit-identical outputs), every tensor's shape the same. Along a dimension
 * whose input has one position, L_out does not depend on the stride and an
 * output meets at most one tap (o = k*dil - pad), so the stride is raised
 * to the kernel's reach dil*(K - 1) + 1 where it is smaller: each stride
 * phase then holds at most one tap, and the polyphase kernels run a GEMM of
 * C_in/groups where they would run K taps of which one reads the input (a
 * GAN's 1x1 latent to 4x4: 16 phases of one tap, not one phase of 16). Any
 * other problem comes back unchanged. The built-in kernels are given this
 * form, the vendor baselines and plugins the problem as asked
 * (convt_problem_for, variant.h). */
convt_problem convt_problem_equivalent(const convt_problem *p);

/* True where the layer is a matrix product and nothing else: every input
 * of one position and no padding, output padding or gaps between taps, so
 * that L_out = K and y[n][co][k] = sum over ci of x[n][ci] w[ci][co][k]
 * (per group): y (n x C_out K) = x (n x C_in) w (C_in x C_out K). The first
 * layer of a generative model (a latent to a 4 x 4 map). */
bool convt_problem_is_gemm(const convt_problem *p);

/* Canonical key: every parameter that changes the computation, in a fixed
 * order, e.g. "2d_n8_ci64_co64_g1_k3x3_s1x1_p0x0_op0x0_d1x1_in1024x1024_nb".
 * The name is not part of it. */
void convt_problem_key(const convt_problem *p, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
