/* seed_range.h — which seeds a random-case test runs, from the environment: PREFIX_SEEDS=N of them
 * (default default_n) from PREFIX_SEED_BASE (default 0), or the one seed PREFIX_SEED=K (a replay).
 * Each test names its own prefix, so a CI pass that widens one test's seeds (the sanitizer pass:
 * core_differential) does not multiply another's. */
#ifndef TEST_SEED_RANGE_H
#define TEST_SEED_RANGE_H

#include <stdio.h>
#include <stdlib.h>

static void diff_seed_range_named(const char *prefix, long default_n, long *first, long *n)
{
    char var[64];
    *first = 0, *n = default_n;
    snprintf(var, sizeof var, "%s_SEEDS", prefix);
    const char *e = getenv(var);
    if (e && atol(e) > 0) *n = atol(e);
    snprintf(var, sizeof var, "%s_SEED_BASE", prefix);
    if ((e = getenv(var))) *first = atol(e);
    snprintf(var, sizeof var, "%s_SEED", prefix);
    if ((e = getenv(var))) *first = atol(e), *n = 1;
}

#endif
