#include "shape_random.h"

#include <stdio.h>

#include "hostdevice.h"

typedef struct rng {
    uint64_t state;
} rng;

static int64_t pick(rng *r, int64_t lo, int64_t hi) /* inclusive */
{
    return convt_next_in(&r->state, lo, hi);
}

static int64_t divisor_of_both(rng *r, int64_t a, int64_t b)
{
    int64_t options[64], n = 0;
    for (int64_t g = 1; g <= a && g <= b && n < 64; g++)
        if (a % g == 0 && b % g == 0)
            options[n++] = g;
    return options[pick(r, 0, n - 1)];
}

convt_problem convt_random_problem(uint64_t seed, uint64_t i, const convt_random_spec *spec)
{
    rng r = {convt_mix64(seed) ^ convt_mix64(i * 0x9e3779b97f4a7c15ull + 1)};
    for (int attempt = 0;; attempt++) {
        int dims;
        do
            dims = (int)pick(&r, 1, 3);
        while (!(spec->dims_mask & (1u << (dims - 1))));
        convt_problem p = convt_problem_default(dims);
        p.n = pick(&r, 1, 3);
        int64_t cmax = spec->max_channels > 0 ? spec->max_channels : 16;
        /* A fifth of the shapes are depthwise-like: groups == channels. */
        if (pick(&r, 0, 4) == 0) {
            p.cin = pick(&r, 1, cmax);
            p.cout = p.cin * pick(&r, 1, 2);
            if (p.cout > cmax)
                p.cout = p.cin;
            p.groups = p.cin;
        } else {
            p.cin = pick(&r, 1, cmax);
            p.cout = pick(&r, 1, cmax);
            p.groups = divisor_of_both(&r, p.cin, p.cout);
        }
        p.bias = pick(&r, 0, 1);
        int64_t max_in = dims == 1 ? 40 : dims == 2 ? 12 : 6;
        for (int d = 0; d < dims; d++) {
            p.in[d] = pick(&r, 1, max_in);
            p.k[d] = pick(&r, 1, dims == 3 ? 3 : 5);
            p.stride[d] = pick(&r, 1, 4);
            p.dil[d] = pick(&r, 1, 3);
            int64_t reach = p.dil[d] * (p.k[d] - 1);
            p.pad[d] = pick(&r, 0, reach / 2 + 1);
            int64_t op_limit = (p.stride[d] > p.dil[d] ? p.stride[d] : p.dil[d]) - 1;
            p.out_pad[d] = op_limit > 0 && pick(&r, 0, 2) == 0 ? pick(&r, 0, op_limit) : 0;
        }
        char why[256];
        if (convt_problem_check(&p, why, sizeof why))
            continue;
        if (spec->max_output_elems > 0 && convt_y_elems(&p) > spec->max_output_elems &&
            attempt < 1000)
            continue;
        snprintf(p.name, sizeof p.name, "random%llu", (unsigned long long)i);
        return p;
    }
}
