/* Planted bugs on the CPU backend: validation must call each classic bug
 * wrong on a shape where it matters, and pass the bug-free version on the
 * same data. test_gpu.c runs the same bugs as GPU kernels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "planted_bugs.h"

/* A shape that exposes every bug at once: stride > 1 with small padding
 * (negative t), output_padding, groups, C_in/groups != C_out/groups, and an
 * output count that is not a multiple of the tile. */
static convt_problem exposing_shape(void)
{
    convt_problem p = convt_problem_default(2);
    p.n = 2, p.cin = 4, p.cout = 6, p.groups = 2, p.bias = true;
    p.in[0] = 5, p.in[1] = 7, p.k[0] = 3, p.k[1] = 4, p.stride[0] = 2, p.stride[1] = 3;
    p.pad[0] = 1, p.pad[1] = 1, p.out_pad[0] = 1, p.dil[1] = 2;
    return p;
}

/* Runs `bug` on p through the CPU backend and the real validator. */
static bool planted_passes(planted_bug bug, const convt_problem *p)
{
    const convt_backend *be = &convt_backend_cpu;
    convt_err e;
    int64_t nx = convt_x_elems(p), nw = convt_w_elems(p), ny = convt_y_elems(p);
    float *x = be->alloc(4 * nx, &e), *w = be->alloc(4 * nw, &e), *b = be->alloc(4 * p->cout, &e),
          *y = be->alloc(4 * ny, &e);
    double *ref = be->alloc(8 * ny, &e), *mag = be->alloc(8 * ny, &e);
    be->fill_uniform(x, nx, 1, -1, 1, &e);
    be->fill_uniform(w, nw, 2, -1, 1, &e);
    be->fill_uniform(b, p->cout, 3, -1, 1, &e);
    convt_tensors t = {x, w, p->bias ? b : NULL, y};
    be->reference(p, &t, ref, mag, &e);
    be->fill_nan(y, ny, &e); /* as before every validation run */
    convt_shape3 s = convt_problem_as_3d(p);
    int64_t op[3];
    planted_out_pad3(p, op);
    if (bug == PLANTED_NO_ZERO_FILL) {
        /* Scatter form adding into y without clearing it first. */
        float *tmp = malloc(4 * ny);
        for (int64_t i = 0; i < ny; i++)
            tmp[i] = planted_point(PLANTED_NONE, p, &s, op, x, w, t.b, i);
        for (int64_t i = 0; i < ny; i++)
            y[i] += tmp[i];
        free(tmp);
    } else {
        for (int64_t i = 0; i < ny; i++)
            if (planted_writes(bug, i, ny))
                y[i] = planted_point(bug, p, &s, op, x, w, t.b, i);
    }
    convt_tolerance tol = convt_tolerance_default(CONVT_TIER_FP32);
    convt_error_stats st;
    be->compare(y, ref, mag, ny, &tol, &st, &e);
    bool ok = convt_error_passes(&st, &tol);
    be->release(x), be->release(w), be->release(b), be->release(y), be->release(ref),
        be->release(mag);
    return ok;
}

static void every_planted_bug_is_caught(void **state)
{
    (void)state;
    convt_problem p = exposing_shape();
    assert_int_not_equal(convt_y_elems(&p) % PLANTED_TILE, 0);
    assert_true(planted_passes(PLANTED_NONE, &p));
    for (int bug = 1; bug < PLANTED_COUNT; bug++)
        if (planted_passes((planted_bug)bug, &p))
            fail_msg("planted bug \"%s\" passed validation", planted_bug_names[bug]);
}

/* ...and each is invisible where its parameter is at the default, which is
 * why the sweeps and tests cover every parameter. */
static void bugs_hide_where_their_parameter_is_trivial(void **state)
{
    (void)state;
    convt_problem p = convt_problem_default(2);
    p.n = 2, p.cin = 4, p.cout = 4, p.in[0] = 8, p.in[1] = 8, p.k[0] = 3, p.k[1] = 3;
    /* stride 1, pad 0, out_pad 0, groups 1, 2*4*10*10 = 800 outputs (a multiple of 64? no) */
    assert_true(planted_passes(PLANTED_NO_DIVISIBILITY, &p));     /* stride 1 */
    assert_true(planted_passes(PLANTED_TRUNCATING_DIVISION, &p)); /* stride 1 */
    assert_true(planted_passes(PLANTED_PADDING_TWICE, &p));       /* pad 0 */
    assert_true(planted_passes(PLANTED_OUT_PAD_IN_INDEX, &p));    /* out_pad 0 */
    assert_true(planted_passes(PLANTED_GROUPS_IGNORED, &p));      /* groups 1 */
    p.in[0] = p.in[1] = 6; /* 2*4*8*8 = 512 outputs: a multiple of the tile */
    assert_true(planted_passes(PLANTED_LAST_TILE_UNWRITTEN, &p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_planted_bug_is_caught),
        cmocka_unit_test(bugs_hide_where_their_parameter_is_trivial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
