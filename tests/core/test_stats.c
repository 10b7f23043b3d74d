/* test_stats.c — the one min / median / p95 / max every report prints (core/stats.h), against
 * values worked out by hand (linear interpolation between order statistics, as numpy). */
#include <math.h>

#include "stats.h"
#include "test.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b)); }

int main(void)
{
    /* One sample: everything is that sample. */
    double one[] = {7.5};
    stats_summary s = stats_summarize(one, 1);
    CHECK(s.min == 7.5 && s.median == 7.5 && s.p95 == 7.5 && s.max == 7.5, "one sample: %g %g %g %g", s.min,
          s.median, s.p95, s.max);

    /* Two samples, unsorted: median is their mean, p95 = 10 + 0.95 * 10. The old app line printed
     * median 20 and p95 10 here (median above p95). */
    double two[] = {20.0, 10.0};
    s = stats_summarize(two, 2);
    CHECK(near(s.median, 15.0) && near(s.p95, 19.5) && s.min == 10.0 && s.max == 20.0,
          "two samples: median %g p95 %g", s.median, s.p95);

    /* 1..20: median (10 + 11) / 2, p95 at rank 0.95 * 19 = 18.05 -> 19 + 0.05 * (20 - 19). */
    double v[20];
    for (int i = 0; i < 20; i++)
        v[i] = (double)(20 - i);
    s = stats_summarize(v, 20);
    CHECK(near(s.median, 10.5) && near(s.p95, 19.05) && s.min == 1.0 && s.max == 20.0, "1..20: median %g p95 %g",
          s.median, s.p95);
    CHECK(v[0] == 1.0 && v[19] == 20.0, "sorted in place");

    /* Odd count: the middle sample; percentile 0 and 1 are min and max. */
    double odd[] = {3, 1, 2, 5, 4};
    s = stats_summarize(odd, 5);
    CHECK(s.median == 3.0 && stats_percentile(odd, 5, 0.0) == 1.0 && stats_percentile(odd, 5, 1.0) == 5.0,
          "odd count: median %g", s.median);

    /* No samples: NaN, never a read past the array. */
    s = stats_summarize(NULL, 0);
    CHECK(isnan(s.min) && isnan(s.median) && isnan(s.p95) && isnan(s.max), "empty gives NaN");
    return test_done();
}
