/* Division by a run-time constant (src/lib/fastdiv.h), the index splitter of the
 * polyphase kernel's rows: exact against the C operators for every divisor
 * the kernels use (a phase's output count per dimension, 1 .. 2^30) on the
 * dividends where multiply-high schemes break first: 0, multiples of d and
 * their neighbours, the top of the 31-bit range, and random values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fastdiv.h"
#include "hostdevice.h"

static void check(convt_fastdiv f, uint32_t n)
{
    uint32_t q = convt_fastdiv_div(f, n);
    if (q != n / f.d)
        fail_msg("%u / %u: fastdiv %u, exact %u", n, f.d, q, n / f.d);
}

static void check_divisor(uint32_t d, uint64_t seed)
{
    const uint32_t top = 0x7fffffffu;
    convt_fastdiv f = convt_fastdiv_make(d);
    assert_int_equal(f.d, d);
    check(f, 0);
    check(f, top);
    check(f, top - 1);
    /* the last multiples of d below 2^31 and their neighbours */
    uint32_t last = top / d * d;
    for (uint32_t k = 0; k < 4 && last >= k * d; k++) {
        uint32_t m = last - k * d;
        check(f, m);
        if (m)
            check(f, m - 1);
        if (m < top)
            check(f, m + 1);
    }
    for (uint32_t m = 0; m < 64; m++)
        if ((uint64_t)m * d <= top) {
            check(f, m * d);
            if (m * d + d - 1 <= top)
                check(f, m * d + d - 1);
        }
    for (uint64_t i = 0; i < 2000; i++)
        check(f, (uint32_t)(convt_mix64(seed * 7919 + i) & top));
}

static void every_small_divisor_is_exact(void **state)
{
    (void)state;
    for (uint32_t d = 1; d <= 4096; d++)
        check_divisor(d, d);
}

static void powers_of_two_and_their_neighbours_are_exact(void **state)
{
    (void)state;
    for (uint32_t l = 1; l <= 30; l++)
        for (int delta = -1; delta <= 1; delta++)
            check_divisor((1u << l) + (uint32_t)delta, 100 + l);
}

static void random_divisors_are_exact(void **state)
{
    (void)state;
    for (uint64_t i = 0; i < 3000; i++) {
        uint32_t d = (uint32_t)(convt_mix64(0xd1u + i) % 0x40000000u) + 1;
        check_divisor(d, 5000 + i);
    }
}

static void one_passes_through(void **state)
{
    (void)state;
    convt_fastdiv f = convt_fastdiv_make(1);
    assert_int_equal(convt_fastdiv_div(f, 0), 0);
    assert_int_equal(convt_fastdiv_div(f, 12345), 12345);
    assert_int_equal(convt_fastdiv_div(f, 0x7fffffffu), 0x7fffffffu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_small_divisor_is_exact),
        cmocka_unit_test(powers_of_two_and_their_neighbours_are_exact),
        cmocka_unit_test(random_divisors_are_exact),
        cmocka_unit_test(one_passes_through),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
