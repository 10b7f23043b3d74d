/* stats.c — see stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double stats_percentile(const double *sorted, size_t n, double p)
{
    if (n == 0) return NAN;
    double k = (double)(n - 1) * p;
    size_t lo = (size_t)k, hi = lo + 1 < n ? lo + 1 : n - 1;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (k - (double)lo);
}

stats_summary stats_summarize(double *v, size_t n)
{
    if (n == 0) return (stats_summary){NAN, NAN, NAN, NAN};
    qsort(v, n, sizeof *v, cmp_double);
    return (stats_summary){v[0], stats_percentile(v, n, 0.5), stats_percentile(v, n, 0.95), v[n - 1]};
}
