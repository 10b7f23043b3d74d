/* scene_rng.h — internal to scene/: deterministic random numbers for the built-in scenes (a fixed
 * seed per scene, so the same scene every run and on every machine). */
#ifndef SCENE_RNG_H
#define SCENE_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t state; /* the seed, then splitmix64's counter */
} rng;

static inline uint64_t rng_next(rng *r) /* splitmix64 */
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi) */
static inline float rng_range(rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)(rng_next(r) >> 40) * (1.0f / 16777216.0f);
}

#endif
