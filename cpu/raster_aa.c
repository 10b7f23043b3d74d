/* raster_aa.c — the anti-aliased frames of the CPU backend (izb_aa.h, issue 19): each binned
 * point's footprint from the depth image, then stage 4 over the same binned points, grid and
 * set-up triangles as a hard frame, with each triangle's cell range grown by the footprints'
 * extent and a per-point N-bit mask (izb_mask.h). The mask is an OR over (point, triangle) pairs,
 * so it is the same for both kernels, every thread count and every instruction set (kernels_aa.h). */
#include "izb_cpu_isa.h"

#include <math.h>
#include <string.h>

void izb_cpu_aa_footprints(const izb_recon *f, const float *depth, const uint32_t *ids, const float *xyz,
                           uint32_t tri_count, const izb_cpu_points *p, int n, izb_aa_foot *foot, float *ex_max,
                           float *ey_max, int threads)
{
    const izb_cpu_kernels *k = izb_cpu_kernels_get(IZB_CPU_ISA_AUTO);
    izb_aa_view V;
    izb_aa_view_make(f, &V);
    float ex = 0.0f, ey = 0.0f;
#pragma omp parallel num_threads(izb_cpu_threads(threads)) reduction(max : ex, ey)
    {
        int64_t lo, hi;
        izb_cpu_chunk(n, THREAD_NUM(), NUM_THREADS(), &lo, &hi);
        k->aa_footprints(f, &V, depth, ids, xyz, tri_count, p, lo, hi, foot, &ex, &ey);
    }
    for (int j = n; j < n + IZB_CPU_POINTS_PAD; j++) /* the kernels read whole blocks */
        foot[j] = (izb_aa_foot){{0}, {0}, 0.0f, 0.0f};
    *ex_max = ex, *ey_max = ey;
}

/* kernel1's dynamic batches of triangles (as raster_soft.c's) */
#define K1_BATCH 16

/* Triangle i against the cells (cx, cy) of its range grown by the frame's largest extent (ex, ey)
 * with cx = gx, cy = gy (mod side) (kernel1: side 1), skipping a cell whose own largest extent
 * (cell_ext: ex, ey per cell) does not reach it. */
static void tri_cells(const izb_cpu_kernels *k, const izb_tri *t, uint32_t id, const izb_aa_samples *S,
                      const izb_cpu_points *p, const izb_aa_foot *foot, const uint32_t *cell_start,
                      const uint32_t *cell_end, const float *cell_ext, const izb_grid *g, float ex, float ey,
                      const izb_own *own, uint32_t *masks, bool shared, int gx, int gy, int side,
                      izb_cpu_aa_counts *n)
{
    int cx0, cy0, cx1, cy1;
    izb_aa_tri_cells(t, ex, ey, g, &cx0, &cy0, &cx1, &cy1);
    const int cx_first = izb_cpu_first_congruent(cx0, gx, side);
    for (int cy = izb_cpu_first_congruent(cy0, gy, side); cy <= cy1; cy += side)
        for (int cx = cx_first; cx <= cx1; cx += side) {
            const int c = cy * g->w + cx;
            if (cell_start[c] >= cell_end[c]) continue;
            n->global += cell_end[c] - cell_start[c];
            int a0, b0, a1, b1;
            izb_aa_tri_cells(t, cell_ext[2 * c], cell_ext[2 * c + 1], g, &a0, &b0, &a1, &b1);
            if (cx < a0 || cx > a1 || cy < b0 || cy > b1) continue;
            n->visited += cell_end[c] - cell_start[c];
            n->pairs += k->aa_row(t, id, S, p, foot, cell_start[c], cell_end[c], masks, own, shared);
        }
}

bool izb_cpu_aa_raster(const izb_tri *tris, const uint32_t *tri_id, int nt, const izb_aa_samples *S,
                       const izb_cpu_points *p, const izb_aa_foot *foot, int n, const uint32_t *cell_start,
                       const uint32_t *cell_end, const izb_grid *g, float ex, float ey, float *cell_ext,
                       izb_kernel kernel, const izb_own *own, uint32_t *masks, uint8_t *mask, int threads,
                       izb_cpu_isa isa, izb_cpu_aa_counts *counts)
{
    const izb_cpu_kernels *k = izb_cpu_kernels_get(isa);
    if (!k) return false;
    threads = izb_cpu_threads(threads);
    if (own && !own->pixel_id) own = NULL;
    uint64_t global = 0, visited = 0, pairs = 0;
    if (counts) *counts = (izb_cpu_aa_counts){0};
    if (n <= 0)
        return true;
    int side = 2; /* kernel2: the smallest G >= 2 with G * G >= 2 * threads (raster.c) */
    while (side * side < 2 * threads)
        side++;
    const bool k2 = kernel == IZB_KERNEL2;
    const int cells = g->w * g->h;
#pragma omp parallel num_threads(threads) reduction(+ : global, visited, pairs)
    {
        izb_cpu_aa_counts mine = {0};
#pragma omp for schedule(static)
        for (int j = 0; j < n; j++)
            masks[j] = 0;
#pragma omp for schedule(static)
        for (int c = 0; c < cells; c++) {
            float mx = 0.0f, my = 0.0f;
            for (uint32_t j = cell_start[c]; j < cell_end[c]; j++)
                mx = izb_maxf(mx, foot[j].ex), my = izb_maxf(my, foot[j].ey);
            cell_ext[2 * c] = mx, cell_ext[2 * c + 1] = my;
        }
        if (cells > 0 && nt > 0) {
            if (k2) {
#pragma omp for schedule(dynamic, 1)
                for (int grp = 0; grp < side * side; grp++) {
                    const int gx = grp % side, gy = grp / side;
                    if (gx >= g->w || gy >= g->h) continue;
                    for (int i = 0; i < nt; i++)
                        tri_cells(k, &tris[i], tri_id[i], S, p, foot, cell_start, cell_end, cell_ext, g, ex, ey, own,
                                  masks, false, gx, gy, side, &mine);
                }
            } else {
#pragma omp for schedule(dynamic, K1_BATCH)
                for (int i = 0; i < nt; i++)
                    tri_cells(k, &tris[i], tri_id[i], S, p, foot, cell_start, cell_end, cell_ext, g, ex, ey, own,
                              masks, true, 0, 0, 1, &mine);
            }
        }
        global += mine.global, visited += mine.visited, pairs += mine.pairs;
        /* (the for's closing barrier: every mask is complete) */
#pragma omp for schedule(static)
        for (int j = 0; j < n; j++)
            mask[p->pixel[j]] = izb_mask_value(&masks[j], S->n);
    }
    if (counts) *counts = (izb_cpu_aa_counts){global, visited, pairs};
    return true;
}
