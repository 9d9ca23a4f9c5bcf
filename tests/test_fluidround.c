/* test_fluidround.c: the fluid model's rounding of a flow's time to its end (sim/net_fluid.c
 * uses cs__fl_round instead of llround). It must give llround's integer for every x >= 0
 * the model can produce: ties go up (away from zero), the largest double below a half
 * rounds down, and doubles from 2^52 on are whole or halves. Each expected value is
 * worked out in the comments, then compared with llround too. */
#include "tests/testutil.h"
#include "sim/fluid-private.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

static void t_round_edges(void)
{
    /* x, llround(x) by hand */
    static const struct {
        double x;
        int64_t want;
    } c[] = {
        {0.0, 0},
        {0.25, 0},
        {0.5, 1},                          /* tie: away from zero */
        {0.49999999999999994, 0},          /* largest double below 1/2: x + 0.5 would round
                                              to 1.0 in doubles, llround gives 0 */
        {1.5, 2},
        {2.5, 3},                          /* ties never go to even */
        {123456.49999999999, 123456},
        {335544320.0, 335544320},          /* a 2 MiB piece at 6.25 GB/s, ps */
        {4503599627370495.5, 4503599627370496},   /* 2^52 - 1/2: a tie, up */
        {4503599627370497.0, 4503599627370497},   /* 2^52 + 1: whole */
        {9007199254740993.0, 9007199254740992},   /* 2^53 + 1 is not a double: 2^53 */
        {4.6e18, 4600000000000000000},     /* whole, below 2^63 */
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        CU_ASSERT_EQUAL(cs__fl_round(c[i].x), c[i].want);
        CU_ASSERT_EQUAL(cs__fl_round(c[i].x), (int64_t)llround(c[i].x));
    }
}

/* Around every whole number and half of a spread of magnitudes, the neighbouring doubles
 * (nextafter, 4 steps each way) round as llround rounds them: 2 * 9 * 60 * 2 values. */
static void t_round_neighbours(void)
{
    int e, s, k;
    long n = 0, same = 0;
    for (e = 0; e < 60; e++)
        for (s = 0; s < 2; s++) {
            double base = ldexp(1.0, e) + (s ? 0.5 : 0.0), x = base;
            for (k = 0; k < 4; k++)
                x = nextafter(x, 0.0);
            for (k = 0; k < 9; k++) {
                n++;
                same += cs__fl_round(x) == (int64_t)llround(x);
                x = nextafter(x, INFINITY);
            }
        }
    CU_ASSERT_EQUAL(n, 60 * 2 * 9);
    CU_ASSERT_EQUAL(same, n);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"a flow's end rounds as llround: ties up, the double below a half down",
         t_round_edges},
        {"the doubles next to whole numbers and halves round as llround", t_round_neighbours},
        {NULL, NULL}};
    return cs_test_add_suite("fluidround", cases);
}
