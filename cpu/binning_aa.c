/* binning_aa.c — each grid cell's reach box for the anti-aliased raster (izb_aa.h, issue 19;
 * cpu/raster_aa.c): the union of its points' footprint boxes, the raster's per-cell skip test.
 *
 * Why it is exact (a skipped cell holds no pair that hides a sample): izb_aa_near(t, x, y, ex, ey),
 * the first test of every pair, holds only where [x - ex, x + ex] meets [t->x0, t->x1] (and the
 * same in y), up to the rounding of t->x0 - ex: the reach (izb_cpu_aa_reach) widens the box by
 * ~1e-5 of the magnitudes against ~6e-8 of rounding, so t's bbox meets the cell's reach box. The
 * points' sub-samples lie in their reach boxes (izb_aa_foot's extent holds them), so a box outside
 * an edge of t holds none that t hides.
 *
 * (The wide footprints' copies into every cell they reach, the other traversal, lived here
 * until 2026-11-28: slower than the dilated ranges on spheres:4000 and spheres:1M in every
 * measurement, docs/benchmarks.md; removed with its switch.) */
#include "izb_cpu_isa.h"

#include <math.h>

void izb_cpu_aa_cell_boxes(const izb_cpu_points *p, const izb_cpu_aa_feet *F, const uint32_t *start,
                           const uint32_t *end, int64_t cells, float tx, float ty, float *box)
{
    enum { CELLS = 256 }; /* (cells per call of the per-ISA loop) */
#pragma omp for schedule(static)
    for (int64_t c = 0; c < cells; c += CELLS)
        izb_cpu_aa_cell_boxes_range(p, F, start, end, c, c + CELLS < cells ? c + CELLS : cells, tx, ty, box);
}
