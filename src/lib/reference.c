#include "reference.h"

#include "reference_point.h"

void convt_reference_point(const convt_problem *p, const float *x, const float *w,
                           const float *b, int64_t idx, double *value, double *magnitude)
{
    convt_shape3 s = convt_problem_as_3d(p);
    convt_reference_point3(p->cin, p->cout, p->groups, &s, x, w, p->bias ? b : NULL, idx, value,
                           magnitude);
}

void convt_reference(const convt_problem *p, const float *x, const float *w, const float *b,
                     double *ref, double *mag)
{
    convt_shape3 s = convt_problem_as_3d(p);
    int64_t count = convt_y_elems(p);
    const float *bias = p->bias ? b : NULL;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; i++) {
        double v, m;
        convt_reference_point3(p->cin, p->cout, p->groups, &s, x, w, bias, i, &v, &m);
        if (ref)
            ref[i] = v;
        if (mag)
            mag[i] = m;
    }
}
