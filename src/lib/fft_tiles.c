/* The overlap-save tile plan (fft_tiles.h). */
#include "fft_tiles.h"

#include <stdio.h>

int64_t convt_fft_smooth_at_least(int64_t n)
{
    for (int64_t c = n < 1 ? 1 : n;; c++) {
        int64_t r = c;
        static const int primes[] = {2, 3, 5, 7};
        for (int i = 0; i < 4; i++)
            while (r % primes[i] == 0)
                r /= primes[i];
        if (r == 1)
            return c;
    }
}

/* Tiles of dimension d at FFT length len. */
static int64_t tiles_at(int64_t out, int64_t reach, int64_t len)
{
    int64_t step = len - reach + 1;
    return (out + step - 1) / step;
}

bool convt_fft_tiles_plan(const convt_problem *p, int64_t max_points, convt_fft_tiles *t,
                          char *why, size_t why_len)
{
    if (max_points < 1 || max_points > CONVT_FFT_MAX_POINTS) {
        snprintf(why, why_len, "points %lld: an FFT tile has 1 to 2^24 points",
                 (long long)max_points);
        return false;
    }
    const convt_shape3 s = convt_problem_as_3d(p);
    int64_t lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        t->reach[d] = s.dil[d] * (s.k[d] - 1) + 1;
        /* checked before any product or search: a dilated kernel can span
         * 2^31 points, and smooth numbers that large are far apart */
        if (t->reach[d] > max_points) {
            snprintf(why, why_len,
                     "the dilated kernel spans %lld points along dimension %d, above the knob's "
                     "%lld FFT points a tile",
                     (long long)t->reach[d], d - (3 - p->dims), (long long)max_points);
            return false;
        }
        /* no length shorter than the kernel's image; none longer than one
         * tile holding the whole dimension, nor than the budget */
        lo[d] = convt_fft_smooth_at_least(t->reach[d]);
        const int64_t whole = s.out[d] + t->reach[d] - 1;
        hi[d] = convt_fft_smooth_at_least(whole < max_points ? whole : max_points);
    }
    /* each lo is at most 2^25, so these products stay far from overflow */
    if (lo[0] * lo[1] > max_points || lo[0] * lo[1] * lo[2] > max_points) {
        snprintf(why, why_len,
                 "the dilated kernel (%lld x %lld x %lld) needs FFT tiles of %lld points, above "
                 "the knob's %lld",
                 (long long)t->reach[0], (long long)t->reach[1], (long long)t->reach[2],
                 (long long)(lo[0] * lo[1] > max_points ? lo[0] * lo[1] : lo[0] * lo[1] * lo[2]),
                 (long long)max_points);
        return false;
    }
    const double per_tile = (double)p->n * (double)(p->cin + p->cout);
    const double weights = (double)p->cin * (double)(p->cout / p->groups);
    double best = -1;
    for (int64_t a = lo[0]; a <= hi[0] && a * lo[1] * lo[2] <= max_points;
         a = convt_fft_smooth_at_least(a + 1))
        for (int64_t b = lo[1]; b <= hi[1] && a * b * lo[2] <= max_points;
             b = convt_fft_smooth_at_least(b + 1))
            for (int64_t c = lo[2]; c <= hi[2] && a * b * c <= max_points;
                 c = convt_fft_smooth_at_least(c + 1)) {
                const int64_t tiles = tiles_at(s.out[0], t->reach[0], a) *
                                      tiles_at(s.out[1], t->reach[1], b) *
                                      tiles_at(s.out[2], t->reach[2], c);
                const double cost = (per_tile * (double)tiles + weights) * (double)(a * b * c);
                if (best < 0 || cost < best) {
                    best = cost;
                    t->len[0] = a, t->len[1] = b, t->len[2] = c;
                }
            }
    t->rank = p->dims;
    t->tiles = 1;
    for (int d = 0; d < 3; d++) {
        t->step[d] = t->len[d] - t->reach[d] + 1;
        t->count[d] = tiles_at(s.out[d], t->reach[d], t->len[d]);
        t->tiles *= t->count[d];
    }
    t->points = t->len[0] * t->len[1] * t->len[2];
    t->spectrum = t->len[0] * t->len[1] * (t->len[2] / 2 + 1);
    return true;
}
