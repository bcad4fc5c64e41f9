#include "problem.h"

#include <stdio.h>
#include <string.h>

convt_problem convt_problem_default(int dims)
{
    convt_problem p;
    memset(&p, 0, sizeof p);
    p.dims = dims;
    p.groups = 1;
    for (int d = 0; d < CONVT_MAX_DIMS; d++) {
        p.stride[d] = 1;
        p.dil[d] = 1;
    }
    return p;
}

int64_t convt_kernel_reach(const convt_problem *p, int d)
{
    return p->dil[d] * (p->k[d] - 1) + 1;
}

int64_t convt_out_size(const convt_problem *p, int d)
{
    return (p->in[d] - 1) * p->stride[d] - 2 * p->pad[d] + convt_kernel_reach(p, d) +
           p->out_pad[d];
}

static int64_t prod(const int64_t *v, int n)
{
    int64_t r = 1;
    for (int i = 0; i < n; i++)
        r *= v[i];
    return r;
}

int64_t convt_in_spatial(const convt_problem *p) { return prod(p->in, p->dims); }
int64_t convt_taps(const convt_problem *p) { return prod(p->k, p->dims); }

int64_t convt_out_spatial(const convt_problem *p)
{
    int64_t r = 1;
    for (int d = 0; d < p->dims; d++)
        r *= convt_out_size(p, d);
    return r;
}

int64_t convt_x_elems(const convt_problem *p) { return p->n * p->cin * convt_in_spatial(p); }
int64_t convt_w_elems(const convt_problem *p)
{
    return p->cin * (p->cout / p->groups) * convt_taps(p);
}
int64_t convt_b_elems(const convt_problem *p) { return p->bias ? p->cout : 0; }
int64_t convt_y_elems(const convt_problem *p) { return p->n * p->cout * convt_out_spatial(p); }

double convt_flops(const convt_problem *p)
{
    return 2.0 * (double)p->n * (double)p->cin * (double)(p->cout / p->groups) *
           (double)convt_taps(p) * (double)convt_in_spatial(p);
}

double convt_min_bytes(const convt_problem *p)
{
    return 4.0 * ((double)convt_x_elems(p) + (double)convt_w_elems(p) +
                  (double)convt_b_elems(p) + (double)convt_y_elems(p));
}

/* Multiplies factors, failing (returning -1) once the running product would
 * pass CONVT_MAX_ELEMS; every factor is already known to be positive. */
static int64_t checked_product(const int64_t *f, int n)
{
    int64_t r = 1;
    for (int i = 0; i < n; i++) {
        if (f[i] > CONVT_MAX_ELEMS / r)
            return -1;
        r *= f[i];
    }
    return r;
}

#define FAIL(...) (snprintf(buf, len, __VA_ARGS__), buf)

const char *convt_problem_check(const convt_problem *p, char *buf, size_t len)
{
    if (p->dims < 1 || p->dims > CONVT_MAX_DIMS)
        return FAIL("dims = %d must be 1, 2 or 3", p->dims);
    if (p->n < 1)
        return FAIL("n = %lld must be at least 1", (long long)p->n);
    if (p->cin < 1)
        return FAIL("cin = %lld must be at least 1", (long long)p->cin);
    if (p->cout < 1)
        return FAIL("cout = %lld must be at least 1", (long long)p->cout);
    if (p->groups < 1)
        return FAIL("groups = %lld must be at least 1", (long long)p->groups);
    if (p->cin % p->groups)
        return FAIL("groups = %lld must divide cin = %lld", (long long)p->groups,
                    (long long)p->cin);
    if (p->cout % p->groups)
        return FAIL("groups = %lld must divide cout = %lld", (long long)p->groups,
                    (long long)p->cout);
    for (int d = 0; d < p->dims; d++) {
        if (p->in[d] < 1)
            return FAIL("in[%d] = %lld must be at least 1", d, (long long)p->in[d]);
        if (p->k[d] < 1)
            return FAIL("k[%d] = %lld must be at least 1", d, (long long)p->k[d]);
        if (p->stride[d] < 1)
            return FAIL("stride[%d] = %lld must be at least 1", d, (long long)p->stride[d]);
        if (p->dil[d] < 1)
            return FAIL("dil[%d] = %lld must be at least 1", d, (long long)p->dil[d]);
        if (p->pad[d] < 0)
            return FAIL("pad[%d] = %lld must not be negative", d, (long long)p->pad[d]);
        if (p->out_pad[d] < 0)
            return FAIL("out_pad[%d] = %lld must not be negative", d, (long long)p->out_pad[d]);
        /* PyTorch: "output padding must be smaller than either stride or dilation". */
        if (p->out_pad[d] >= p->stride[d] && p->out_pad[d] >= p->dil[d])
            return FAIL("out_pad[%d] = %lld must be smaller than stride[%d] = %lld or "
                        "dil[%d] = %lld",
                        d, (long long)p->out_pad[d], d, (long long)p->stride[d], d,
                        (long long)p->dil[d]);
        /* Bound each size before the output-size formula multiplies them. */
        const int64_t lim = (int64_t)1 << 30;
        if (p->in[d] > lim || p->k[d] > lim || p->stride[d] > lim || p->dil[d] > lim ||
            p->pad[d] > lim)
            return FAIL("dimension %d has a size above 2^30 (in, k, stride, dil or pad)", d);
        if (convt_out_size(p, d) < 1)
            return FAIL("output size along dimension %d is %lld (from in[%d], stride, pad, "
                        "dil, k, out_pad); it must be at least 1",
                        d, (long long)convt_out_size(p, d), d);
    }
    int64_t outs[CONVT_MAX_DIMS] = {1, 1, 1};
    for (int d = 0; d < p->dims; d++)
        outs[d] = convt_out_size(p, d);
    const int64_t xs[] = {p->n, p->cin, p->in[0], p->dims > 1 ? p->in[1] : 1,
                          p->dims > 2 ? p->in[2] : 1};
    const int64_t ys[] = {p->n, p->cout, outs[0], p->dims > 1 ? outs[1] : 1,
                          p->dims > 2 ? outs[2] : 1};
    const int64_t ws[] = {p->cin, p->cout / p->groups, p->k[0], p->dims > 1 ? p->k[1] : 1,
                          p->dims > 2 ? p->k[2] : 1};
    if (checked_product(xs, 5) < 0)
        return FAIL("the input has more than 2^40 elements");
    if (checked_product(ys, 5) < 0)
        return FAIL("the output has more than 2^40 elements");
    if (checked_product(ws, 5) < 0)
        return FAIL("the weight has more than 2^40 elements");
    return NULL;
}

static void append_dims(char **at, char *end, const char *tag, const int64_t *v, int dims)
{
    int w = snprintf(*at, (size_t)(end - *at), "_%s", tag);
    *at += w > 0 && *at + w < end ? w : 0;
    for (int d = 0; d < dims; d++) {
        w = snprintf(*at, (size_t)(end - *at), d ? "x%lld" : "%lld", (long long)v[d]);
        *at += w > 0 && *at + w < end ? w : 0;
    }
}

void convt_problem_key(const convt_problem *p, char *buf, size_t len)
{
    char *at = buf, *end = buf + len;
    int w = snprintf(at, len, "%dd_n%lld_ci%lld_co%lld_g%lld", p->dims, (long long)p->n,
                     (long long)p->cin, (long long)p->cout, (long long)p->groups);
    at += w > 0 && (size_t)w < len ? w : 0;
    append_dims(&at, end, "k", p->k, p->dims);
    append_dims(&at, end, "s", p->stride, p->dims);
    append_dims(&at, end, "p", p->pad, p->dims);
    append_dims(&at, end, "op", p->out_pad, p->dims);
    append_dims(&at, end, "d", p->dil, p->dims);
    append_dims(&at, end, "in", p->in, p->dims);
    snprintf(at, (size_t)(end - at), p->bias ? "_b" : "_nb");
}

convt_problem convt_problem_equivalent(const convt_problem *p)
{
    convt_problem q = *p;
    for (int d = 0; d < p->dims; d++) {
        const int64_t reach = convt_kernel_reach(p, d);
        if (p->in[d] == 1 && p->stride[d] < reach)
            q.stride[d] = reach;
    }
    return q;
}

bool convt_problem_is_gemm(const convt_problem *p)
{
    if (convt_in_spatial(p) != 1)
        return false;
    for (int d = 0; d < p->dims; d++)
        if (p->pad[d] || p->out_pad[d] || (p->dil[d] != 1 && p->k[d] != 1))
            return false;
    return true;
}

convt_shape3 convt_problem_as_3d(const convt_problem *p)
{
    convt_shape3 s;
    int lead = 3 - p->dims;
    for (int d = 0; d < 3; d++) {
        int src = d - lead;
        bool real = src >= 0;
        s.in[d] = real ? p->in[src] : 1;
        s.out[d] = real ? convt_out_size(p, src) : 1;
        s.k[d] = real ? p->k[src] : 1;
        s.stride[d] = real ? p->stride[src] : 1;
        s.pad[d] = real ? p->pad[src] : 0;
        s.dil[d] = real ? p->dil[src] : 1;
    }
    return s;
}
