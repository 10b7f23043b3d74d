/* stats.h — min / median / p95 / max of timing samples, the one definition every report uses (the
 * app's closing line, bench-cpu, bench-gpu; scripts/bench computes the same in Python).
 * Percentiles interpolate linearly between order statistics (numpy's default), so the median of
 * an even count is the mean of the middle two and p95 never exceeds max nor falls below median. */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>

typedef struct stats_summary {
    double min, median, p95, max;
} stats_summary;

/* Percentile p in [0, 1] of n ascending samples; NaN when n == 0. */
double stats_percentile(const double *sorted, size_t n, double p);

/* Sorts v (n samples) in place and summarises it; all NaN when n == 0. */
stats_summary stats_summarize(double *v, size_t n);

#endif
