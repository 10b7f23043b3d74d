/* test_rng.h — a deterministic xorshift64 generator for test inputs, and the bbox of a point set.
 * Each test program gets its own state (static), seeded by the including file's TEST_RNG_SEED. */
#ifndef TEST_RNG_H
#define TEST_RNG_H

#include <math.h>
#include <stdint.h>

#include "izb_math.h"

#ifndef TEST_RNG_SEED
#define TEST_RNG_SEED 0x9E3779B97F4A7C15ull
#endif

static uint64_t rng_state = TEST_RNG_SEED;

/* uniform in [0, 1) with 53 random bits */
static inline double rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static inline double rnd_in(double lo, double hi) { return lo + (hi - lo) * rnd(); }

/* the points' bbox; empty (min > max) for n = 0 */
static inline izb_bbox bbox_of(const izb_point *p, int n)
{
    izb_bbox b = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++) {
        b.min_x = fminf(b.min_x, p[i].x);
        b.min_y = fminf(b.min_y, p[i].y);
        b.max_x = fmaxf(b.max_x, p[i].x);
        b.max_y = fmaxf(b.max_y, p[i].y);
    }
    return b;
}

#endif
