/* The problem model: output size, PyTorch's rules with messages that name the
 * parameter, FLOP and byte counts, the canonical key, overflow refusal, the
 * equivalent form the built-in kernels run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "reference.h"
#include "shape_random.h"
#include "test_util.h"

static convt_problem kb57(void)
{
    convt_problem p = convt_problem_default(2);
    p.n = 8;
    p.cin = p.cout = 64;
    p.k[0] = p.k[1] = 3;
    p.in[0] = p.in[1] = 1024;
    return p;
}

static void output_size_matches_pytorch_formula(void **state)
{
    (void)state;
    convt_problem p = kb57();
    assert_int_equal(convt_out_size(&p, 0), 1026);
    /* kb75: k (3,5), stride (2,3), pad (1,2), dil (2,1), in 128x256 -> 257x766 */
    convt_problem q = convt_problem_default(2);
    q.n = 16, q.cin = 32, q.cout = 64, q.groups = 4;
    q.k[0] = 3, q.k[1] = 5, q.stride[0] = 2, q.stride[1] = 3, q.pad[0] = 1, q.pad[1] = 2;
    q.dil[0] = 2, q.dil[1] = 1, q.in[0] = 128, q.in[1] = 256;
    assert_int_equal(convt_out_size(&q, 0), 257);
    assert_int_equal(convt_out_size(&q, 1), 766);
    /* output_padding adds on the high side only */
    q.out_pad[0] = 1;
    assert_int_equal(convt_out_size(&q, 0), 258);
}

static void flops_and_bytes_follow_design(void **state)
{
    (void)state;
    convt_problem p = kb57();
    /* cudnn_h100.md: kb57 is 618.5 GFLOP and 4.30 GB */
    assert_true(fabs(convt_flops(&p) / 1e9 - 618.5) < 0.1);
    assert_true(fabs(convt_min_bytes(&p) / 1e9 - 4.30) < 0.01);
    p.groups = 4; /* groups divide the multiply count */
    assert_true(fabs(convt_flops(&p) / 1e9 - 618.5 / 4) < 0.1);
}

static void expect_error(convt_problem p, const char *fragment)
{
    char buf[256];
    const char *why = convt_problem_check(&p, buf, sizeof buf);
    assert_non_null(why);
    if (!strstr(why, fragment))
        fail_msg("message \"%s\" lacks \"%s\"", why, fragment);
}

static void violations_name_the_parameter(void **state)
{
    (void)state;
    char buf[256];
    convt_problem p = kb57();
    assert_null(convt_problem_check(&p, buf, sizeof buf));
    p.groups = 3;
    expect_error(p, "groups = 3 must divide cin = 64");
    p = kb57();
    p.cout = 66, p.groups = 4;
    expect_error(p, "groups = 4 must divide cout = 66");
    p = kb57();
    p.out_pad[1] = 1; /* stride 1, dil 1: not allowed */
    expect_error(p, "out_pad[1] = 1 must be smaller than stride[1] = 1 or dil[1] = 1");
    p.dil[1] = 2; /* allowed by the dilation */
    assert_null(convt_problem_check(&p, buf, sizeof buf));
    p = kb57();
    p.k[0] = 0;
    expect_error(p, "k[0] = 0 must be at least 1");
    p = kb57();
    p.stride[1] = 0;
    expect_error(p, "stride[1] = 0");
    p = kb57();
    p.pad[0] = -1;
    expect_error(p, "pad[0] = -1 must not be negative");
    p = kb57();
    p.in[0] = 1, p.k[0] = 1, p.pad[0] = 1;
    expect_error(p, "output size along dimension 0 is -1");
    p = kb57();
    p.n = 0;
    expect_error(p, "n = 0");
    p = kb57();
    p.dims = 4;
    expect_error(p, "dims = 4");
}

static void huge_shapes_are_refused_not_wrapped(void **state)
{
    (void)state;
    convt_problem p = kb57();
    p.cout = (int64_t)1 << 32; /* output 8 * 2^32 * 1026^2 elements */
    expect_error(p, "the output has more than 2^40 elements");
    p = kb57();
    p.in[0] = (int64_t)1 << 31;
    expect_error(p, "above 2^30");
}

static void key_is_canonical(void **state)
{
    (void)state;
    convt_problem p = kb57();
    char key[256], other[256];
    convt_problem_key(&p, key, sizeof key);
    assert_string_equal(key, "2d_n8_ci64_co64_g1_k3x3_s1x1_p0x0_op0x0_d1x1_in1024x1024_nb");
    strcpy(p.name, "another name");
    convt_problem_key(&p, other, sizeof other);
    assert_string_equal(key, other); /* the name is not part of the key */
    p.bias = true;
    convt_problem_key(&p, other, sizeof other);
    assert_string_not_equal(key, other);
}

static void as_3d_puts_real_dims_innermost(void **state)
{
    (void)state;
    convt_problem p = convt_problem_default(1);
    p.n = 1, p.cin = 1, p.cout = 1, p.in[0] = 10, p.k[0] = 3, p.stride[0] = 2;
    convt_shape3 s = convt_problem_as_3d(&p);
    assert_int_equal(s.in[0], 1);
    assert_int_equal(s.in[1], 1);
    assert_int_equal(s.in[2], 10);
    assert_int_equal(s.stride[2], 2);
    assert_int_equal(s.out[2], convt_out_size(&p, 0));
}

/* DCGAN's first layer: a 1x1 latent of 100 channels to 4x4 (k 4, stride 1)
 * runs as stride 4, one tap a phase; a dimension whose input is longer, or
 * whose stride already reaches past the kernel, keeps its stride. */
static void equivalent_widens_the_stride_of_one_position_inputs(void **state)
{
    (void)state;
    convt_problem p = convt_problem_default(2);
    p.n = 64, p.cin = 100, p.cout = 512, p.k[0] = p.k[1] = 4, p.in[0] = p.in[1] = 1;
    convt_problem q = convt_problem_equivalent(&p);
    assert_int_equal(q.stride[0], 4);
    assert_int_equal(q.stride[1], 4);
    for (int d = 0; d < 2; d++)
        assert_int_equal(convt_out_size(&q, d), convt_out_size(&p, d));
    p.in[1] = 2, p.stride[0] = 9, p.dil[0] = 2; /* reach 7 < stride 9; in 2 */
    q = convt_problem_equivalent(&p);
    assert_memory_equal(&q, &p, sizeof p);
    p.stride[0] = 3, p.out_pad[0] = 2; /* reach 7: raised; out_pad stays legal */
    q = convt_problem_equivalent(&p);
    assert_int_equal(q.stride[0], 7);
    assert_int_equal(q.stride[1], 1);
    char buf[256];
    assert_null(convt_problem_check(&q, buf, sizeof buf));
}

/* On random problems over every parameter with inputs of one position along
 * random dimensions: the equivalent is legal, has the same tensors, and its
 * float64 reference is bit for bit the problem's, output by output. */
static void equivalent_has_the_same_outputs(void **state)
{
    (void)state;
    const convt_random_spec spec = {.dims_mask = 7, .max_output_elems = 4096, .max_channels = 8};
    int widened = 0;
    for (uint64_t i = 0; i < 400; i++) {
        convt_problem p = convt_random_problem(59, i, &spec);
        one_position_inputs(&p, (unsigned)i);
        char buf[256];
        if (convt_problem_check(&p, buf, sizeof buf))
            continue;
        const convt_problem q = convt_problem_equivalent(&p);
        assert_null(convt_problem_check(&q, buf, sizeof buf));
        assert_int_equal(convt_x_elems(&q), convt_x_elems(&p));
        assert_int_equal(convt_w_elems(&q), convt_w_elems(&p));
        assert_int_equal(convt_y_elems(&q), convt_y_elems(&p));
        bool differs = false;
        for (int d = 0; d < p.dims; d++) {
            assert_true(q.stride[d] >= p.stride[d]);
            assert_true(q.stride[d] == p.stride[d] || p.in[d] == 1);
            differs |= q.stride[d] != p.stride[d];
        }
        widened += differs;
        const int64_t nx = convt_x_elems(&p), nw = convt_w_elems(&p), ny = convt_y_elems(&p);
        float *x = malloc((size_t)nx * sizeof *x), *w = malloc((size_t)nw * sizeof *w);
        float *b = malloc((size_t)p.cout * sizeof *b);
        double *yp = malloc((size_t)ny * sizeof *yp), *yq = malloc((size_t)ny * sizeof *yq);
        assert_true(x && w && b && yp && yq);
        for (int64_t e = 0; e < nx; e++)
            x[e] = (float)((e * 7919 + i) % 23) - 11.0f;
        for (int64_t e = 0; e < nw; e++)
            w[e] = (float)((e * 104729 + 3 * i) % 17) / 8.0f - 1.0f;
        for (int64_t e = 0; e < p.cout; e++)
            b[e] = (float)e / 4.0f;
        convt_reference(&p, x, w, p.bias ? b : NULL, yp, NULL);
        convt_reference(&q, x, w, q.bias ? b : NULL, yq, NULL);
        assert_memory_equal(yp, yq, (size_t)ny * sizeof *yp);
        free(x), free(w), free(b), free(yp), free(yq);
    }
    assert_true(widened >= 50); /* the test reached the case it is for */
}

/* A latent to a map is a matrix product; padding, output padding, a
 * dilated kernel or a longer input make it a convolution again. */
static void a_latent_is_a_gemm(void **state)
{
    (void)state;
    convt_problem p = convt_problem_default(2);
    p.n = 64, p.cin = 100, p.cout = 512, p.k[0] = p.k[1] = 4, p.in[0] = p.in[1] = 1;
    assert_true(convt_problem_is_gemm(&p));
    p.stride[0] = 3; /* any stride: one input position */
    assert_true(convt_problem_is_gemm(&p));
    convt_problem q = p;
    q.pad[1] = 1;
    assert_false(convt_problem_is_gemm(&q));
    q = p, q.stride[0] = 2, q.out_pad[0] = 1;
    assert_false(convt_problem_is_gemm(&q));
    q = p, q.dil[1] = 2;
    assert_false(convt_problem_is_gemm(&q));
    q = p, q.k[1] = 1, q.dil[1] = 2; /* a dilation with one tap spreads nothing */
    assert_true(convt_problem_is_gemm(&q));
    q = p, q.in[1] = 2;
    assert_false(convt_problem_is_gemm(&q));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_size_matches_pytorch_formula),
        cmocka_unit_test(flops_and_bytes_follow_design),
        cmocka_unit_test(violations_name_the_parameter),
        cmocka_unit_test(huge_shapes_are_refused_not_wrapped),
        cmocka_unit_test(key_is_canonical),
        cmocka_unit_test(as_3d_puts_real_dims_innermost),
        cmocka_unit_test(equivalent_widens_the_stride_of_one_position_inputs),
        cmocka_unit_test(equivalent_has_the_same_outputs),
        cmocka_unit_test(a_latent_is_a_gemm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
