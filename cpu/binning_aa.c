/* binning_aa.c — the anti-aliased frames' footprint binning (izb_aa.h, issue 19): the binned
 * points whose footprints are wide (extent past a threshold: grazing views) copied into every grid
 * cell their footprint's box touches (izb_cpu_aa_dup), so that a triangle meets them over the
 * cells of its own bbox (raster_aa.c) and its range for the other points grows by the threshold,
 * not by the frame's largest footprint; and each cell's reach box (izb_cpu_aa_cell_boxes), the
 * skip test of both traversals.
 *
 * Why it is exact (the masks are the same bits as the dilated traversal's): izb_aa_near(t, x, y,
 * ex, ey), the first test of every pair, holds only where [x - ex, x + ex] meets [t->x0, t->x1]
 * (and the same in y), up to the rounding of t->x0 - ex: the reach (izb_cpu_aa_reach) widens the
 * box by ~1e-5 of the magnitudes against ~6e-8 of rounding. Two intervals that meet share a value
 * v, and izb_cell_x is monotonic, so cell(v) lies in both cell ranges: the point has a copy in a
 * cell of t's bbox, and t's bbox meets that cell's reach box. Its sub-samples lie in its reach box
 * (izb_aa_foot's extent holds them), so a box outside an edge of t holds none that t hides. A pair
 * may be met in several cells: the same bits OR-ed again, harmless.
 *
 * Copies are stable: chunk t of the binned points (contiguous) counts into its own histogram row,
 * a scan over cells then chunks gives each chunk's offset within every cell, and each chunk
 * scatters its points in order (as binning.c's sort); nothing depends on the thread count. */
#include "izb_cpu_isa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cells of point (x, y)'s footprint box widened by its reach (izb_cpu_aa_reach). NaN extents
 * give one cell (izb_cell_x maps NaN to 0): izb_aa_near is false for them. */
static inline void foot_cells(const izb_grid *g, float x, float y, float ex, float ey, int *cx0, int *cy0, int *cx1,
                              int *cy1)
{
    const float rx = izb_cpu_aa_reach(x, ex), ry = izb_cpu_aa_reach(y, ey);
    *cx0 = izb_cell_x(g, x - rx), *cx1 = izb_cell_x(g, x + rx);
    *cy0 = izb_cell_y(g, y - ry), *cy1 = izb_cell_y(g, y + ry);
}

void izb_cpu_aa_cell_boxes(const izb_cpu_points *p, const izb_cpu_aa_feet *F, const uint32_t *start,
                           const uint32_t *end, int64_t cells, float tx, float ty, float *box)
{
#pragma omp for schedule(static)
    for (int64_t c = 0; c < cells; c++) {
        float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        for (uint32_t j = start[c]; j < end[c]; j++) {
            if (!((F->ex[j] <= tx) & (F->ey[j] <= ty))) continue;
            const float rx = izb_cpu_aa_reach(p->x[j], F->ex[j]), ry = izb_cpu_aa_reach(p->y[j], F->ey[j]);
            x0 = izb_minf(x0, p->x[j] - rx), x1 = izb_maxf(x1, p->x[j] + rx);
            y0 = izb_minf(y0, p->y[j] - ry), y1 = izb_maxf(y1, p->y[j] + ry);
        }
        box[4 * c] = x0, box[4 * c + 1] = y0, box[4 * c + 2] = x1, box[4 * c + 3] = y1;
    }
}

/* *p grown to hold need elements of size bytes (contents lost when it grows); false when out of
 * memory (then NULL and 0). */
static bool grow(void **p, size_t *cap, size_t need, size_t size, const char *what)
{
    if (*p && need <= *cap) return true;
    free(*p);
    *p = aligned_alloc(64, ((need ? need : 1) * size + 63) / 64 * 64);
    *cap = *p ? need : 0;
    if (!*p) fprintf(stderr, "izb cpu: out of memory for %s (%zu x %zu bytes)\n", what, need, size);
    return *p != NULL;
}

void izb_cpu_aa_dup_free(izb_cpu_aa_dup *d)
{
    izb_cpu_points_free(&d->p);
    free(d->foot), free(d->orig), free(d->masks), free(d->start), free(d->end), free(d->box), free(d->hist);
    *d = (izb_cpu_aa_dup){0};
}

size_t izb_cpu_aa_dup_bytes(const izb_cpu_aa_dup *d)
{
    return d->p.cap * 16 + 4 * (d->foot_cap + d->orig_cap + d->mask_cap + d->start_cap + d->end_cap + d->box_cap +
                                 d->hist_cap);
}

int izb_cpu_aa_dup_bin(const izb_cpu_points *p, const izb_cpu_aa_feet *F, int n, const izb_grid *g, float tx,
                       float ty, size_t max_entries, izb_cpu_aa_dup *d, int threads)
{
    threads = izb_cpu_threads(threads);
    const size_t cells = (size_t)g->w * (size_t)g->h;
    d->entries = 0;
    if (!grow((void **)&d->hist, &d->hist_cap, cells * (size_t)threads, sizeof(uint32_t), "footprint binning") ||
        !grow((void **)&d->start, &d->start_cap, cells, sizeof(uint32_t), "footprint cells") ||
        !grow((void **)&d->end, &d->end_cap, cells, sizeof(uint32_t), "footprint cells") ||
        !grow((void **)&d->box, &d->box_cap, 4 * cells, sizeof(float), "footprint cells"))
        return -1;
    uint32_t *const hist = d->hist;
    /* counts: chunk t's row of the histogram; the total, bounded by max_entries before any copy */
    uint64_t total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
        const int t = THREAD_NUM(), nt = NUM_THREADS();
        int64_t lo, hi;
        izb_cpu_chunk(n, t, nt, &lo, &hi);
        uint32_t *row = hist + (size_t)t * cells;
        memset(row, 0, cells * sizeof(uint32_t));
        for (int64_t j = lo; j < hi; j++) {
            if (!((F->ex[j] > tx) | (F->ey[j] > ty))) continue;
            int cx0, cy0, cx1, cy1;
            foot_cells(g, p->x[j], p->y[j], F->ex[j], F->ey[j], &cx0, &cy0, &cx1, &cy1);
            for (int cy = cy0; cy <= cy1; cy++)
                for (int cx = cx0; cx <= cx1; cx++)
                    row[(size_t)cy * g->w + cx]++;
            total += (uint64_t)(cx1 - cx0 + 1) * (uint64_t)(cy1 - cy0 + 1);
        }
        for (int u = nt; u < threads; u++) /* (rows of threads the runtime did not give) */
            if (t == 0) memset(hist + (size_t)u * cells, 0, cells * sizeof(uint32_t));
    }
    if (total > max_entries || total > UINT32_MAX - IZB_CPU_POINTS_PAD)
        return 0;
    const size_t E = (size_t)total;
    /* offsets: cell by cell, each chunk's share in chunk order */
    uint32_t run = 0;
    for (size_t c = 0; c < cells; c++) {
        d->start[c] = run;
        for (int t = 0; t < threads; t++) {
            const uint32_t k = hist[(size_t)t * cells + c];
            hist[(size_t)t * cells + c] = run;
            run += k;
        }
        d->end[c] = run;
    }
    if (!izb_cpu_points_reserve(&d->p, E, "footprint copies") ||
        !grow((void **)&d->foot, &d->foot_cap, IZB_CPU_AA_FEET_FLOATS(E), sizeof(float), "footprint copies") ||
        !grow((void **)&d->orig, &d->orig_cap, E + IZB_CPU_POINTS_PAD, sizeof(uint32_t), "footprint copies") ||
        !grow((void **)&d->masks, &d->mask_cap, E + IZB_CPU_POINTS_PAD, sizeof(uint32_t), "footprint copies"))
        return -1;
    d->F = izb_cpu_aa_feet_in(d->foot, (int)E);
    const izb_cpu_aa_feet D = d->F;
#pragma omp parallel num_threads(threads)
    {
        const int t = THREAD_NUM(), nt = NUM_THREADS();
        int64_t lo, hi;
        izb_cpu_chunk(n, t, nt, &lo, &hi);
        uint32_t *row = hist + (size_t)t * cells;
        for (int64_t j = lo; j < hi; j++) {
            if (!((F->ex[j] > tx) | (F->ey[j] > ty))) continue;
            int cx0, cy0, cx1, cy1;
            foot_cells(g, p->x[j], p->y[j], F->ex[j], F->ey[j], &cx0, &cy0, &cx1, &cy1);
            for (int cy = cy0; cy <= cy1; cy++)
                for (int cx = cx0; cx <= cx1; cx++) {
                    const uint32_t e = row[(size_t)cy * g->w + cx]++;
                    d->p.x[e] = p->x[j], d->p.y[e] = p->y[j], d->p.z[e] = p->z[j], d->p.pixel[e] = p->pixel[j];
                    izb_cpu_aa_feet_copy(&D, e, F, (size_t)j);
                    d->orig[e] = (uint32_t)j;
                }
        }
    }
    for (size_t e = E; e < E + IZB_CPU_POINTS_PAD; e++) { /* the kernels read whole blocks */
        d->p.x[e] = d->p.y[e] = d->p.z[e] = 0.0f, d->p.pixel[e] = 0, d->orig[e] = 0;
        izb_cpu_aa_feet_copy(&D, e, NULL, 0);
    }
    d->entries = E;
    return 1;
}
