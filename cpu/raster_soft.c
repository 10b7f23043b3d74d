/* raster_soft.c — stages 3 and 4 of the CPU backend for a soft frame (izb_soft.h; an area light's,
 * izb_area.h, differs only in its set-ups, the `area` flag below): the triangles'
 * soft set-up (penumbra boxes) and the traversal of kernel1 / kernel2 over the same binned points
 * and grid as a hard frame; only the triangles' cell ranges grow and the per-point work becomes a
 * visibility mask (izb_mask.h). The mask is an OR over (point, triangle) pairs, so it is the same
 * for both kernels, every thread count and every instruction set (kernels_soft.h). */
#include "izb_cpu_isa.h"

#include <math.h>
#include <string.h>

float izb_cpu_points_zmax(const izb_cpu_points *p, int n, int threads)
{
    float zmax = -INFINITY;
#pragma omp parallel num_threads(izb_cpu_threads(threads))
    {
        float m = -INFINITY;
#pragma omp for schedule(static)
        for (int j = 0; j < n; j++)
            m = izb_maxf(m, p->z[j]);
#pragma omp critical(izb_soft_zmax)
        zmax = izb_maxf(zmax, m);
    }
    return zmax;
}

/* izb_cpu_soft_setup, or izb_cpu_area_setup when area */
static int setup_of(const float *xyz, int n, const izb_recon *f, const izb_soft_light *L, float zmax,
                    const izb_bbox *pb, const izb_cull_view *cull, izb_soft_tri *out, uint32_t *tri_id, int threads,
                    bool area)
{
    threads = izb_cpu_threads(threads);
    const izb_cpu_kernels *kern = izb_cpu_kernels_get(IZB_CPU_ISA_AUTO);
    int count[IZB_CPU_MAX_THREADS] = {0};
    int team = 1; /* the threads OpenMP gave: the chunks are cut by it */
    /* each thread compacts its own chunk in place, then the chunks move together in order */
#pragma omp parallel num_threads(threads)
    {
        const int t = THREAD_NUM(), nth = NUM_THREADS();
        if (t == 0) team = nth;
        int64_t lo, hi;
        izb_cpu_chunk(n, t, nth, &lo, &hi);
        count[t] = (int)(area ? kern->area_setup : kern->soft_setup)(xyz, lo, hi, f->light, L, zmax, pb, cull, out + lo,
                                                                     tri_id + lo);
    }
    int total = 0;
    for (int t = 0; t < team; t++) {
        int64_t lo, hi;
        izb_cpu_chunk(n, t, team, &lo, &hi);
        if (count[t] && lo != total) {
            memmove(out + total, out + lo, (size_t)count[t] * sizeof *out);
            memmove(tri_id + total, tri_id + lo, (size_t)count[t] * sizeof *tri_id);
        }
        total += count[t];
    }
    return total;
}

int izb_cpu_soft_setup(const float *xyz, int n, const izb_recon *f, const izb_soft_light *L, float zmax,
                       const izb_bbox *pb, const izb_cull_view *cull, izb_soft_tri *out, uint32_t *tri_id,
                       int threads)
{
    return setup_of(xyz, n, f, L, zmax, pb, cull, out, tri_id, threads, false);
}

int izb_cpu_area_setup(const float *xyz, int n, const izb_recon *f, const izb_soft_light *L, float zmax,
                       const izb_bbox *pb, const izb_cull_view *cull, izb_soft_tri *out, uint32_t *tri_id,
                       int threads)
{
    return setup_of(xyz, n, f, L, zmax, pb, cull, out, tri_id, threads, true);
}

/* kernel1's dynamic batches of triangles (as raster.c's) */
#define K1_BATCH 16

/* Triangle i against the cells (cx, cy) of its range for the frame's farthest receiver zmax with
 * cx = gx, cy = gy (mod side) (kernel1: side 1), skipping a cell that its penumbra box for the
 * cell's own farthest point (cell_zmax) does not reach. Returns the pairs set up. */
static void tri_cells(const izb_cpu_kernels *k, const izb_soft_tri *t, uint32_t id, const izb_soft_light *L,
                      const izb_cpu_points *p, const uint32_t *cell_start, const uint32_t *cell_end,
                      const float *cell_zmax, const izb_grid *g, float zmax, const izb_own *own, const izb_cut *cut,
                      uint32_t *masks, bool shared, int gx, int gy, int side, bool area, izb_cpu_soft_counts *n)
{
    int cx0, cy0, cx1, cy1;
    izb_soft_tri_cells(t, zmax, g, &cx0, &cy0, &cx1, &cy1);
    const int cx_first = izb_cpu_first_congruent(cx0, gx, side);
    for (int cy = izb_cpu_first_congruent(cy0, gy, side); cy <= cy1; cy += side)
        for (int cx = cx_first; cx <= cx1; cx += side) {
            const int c = cy * g->w + cx;
            if (cell_start[c] >= cell_end[c]) continue;
            n->global += cell_end[c] - cell_start[c];
            int a0, b0, a1, b1;
            izb_soft_tri_cells(t, cell_zmax[c], g, &a0, &b0, &a1, &b1);
            if (cx < a0 || cx > a1 || cy < b0 || cy > b1) continue;
            n->visited += cell_end[c] - cell_start[c];
            n->pairs += (area ? k->area_row : k->soft_row)(t, id, L, p, cell_start[c], cell_end[c], masks, own, cut,
                                                           shared);
        }
}

/* izb_cpu_soft_raster, or izb_cpu_area_raster when area */
static bool raster_of(const izb_soft_tri *tris, const uint32_t *tri_id, int nt, const izb_soft_light *L,
                      const izb_cpu_points *p, int n, const uint32_t *cell_start, const uint32_t *cell_end,
                      const izb_grid *g, float zmax, float *cell_zmax, izb_kernel kernel, const izb_own *own,
                      const izb_cut *cut, uint32_t *masks, uint8_t *mask, int threads, izb_cpu_isa isa,
                      izb_cpu_soft_counts *counts, bool area)
{
    const izb_cpu_kernels *k = izb_cpu_kernels_get(isa);
    if (!k) return false;
    threads = izb_cpu_threads(threads);
    if (own && !own->pixel_id) own = NULL;
    const int words = izb_mask_words(L->m);
    uint64_t global = 0, visited = 0, pairs = 0;
    if (counts) *counts = (izb_cpu_soft_counts){0};
    if (n <= 0)
        return true;
    int side = 2; /* kernel2: the smallest G >= 2 with G * G >= 2 * threads (raster.c) */
    while (side * side < 2 * threads)
        side++;
    const bool k2 = kernel == IZB_KERNEL2;
    const int cells = g->w * g->h;
#pragma omp parallel num_threads(threads) reduction(+ : global, visited, pairs)
    {
        izb_cpu_soft_counts mine = {0};
#pragma omp for schedule(static)
        for (int64_t j = 0; j < (int64_t)n * words; j++)
            masks[j] = 0;
#pragma omp for schedule(static)
        for (int c = 0; c < cells; c++) {
            float m = -INFINITY;
            for (uint32_t j = cell_start[c]; j < cell_end[c]; j++)
                m = izb_maxf(m, p->z[j]);
            cell_zmax[c] = m;
        }
        if (cells > 0 && nt > 0) {
            if (k2) {
#pragma omp for schedule(dynamic, 1)
                for (int grp = 0; grp < side * side; grp++) {
                    const int gx = grp % side, gy = grp / side;
                    if (gx >= g->w || gy >= g->h) continue;
                    for (int i = 0; i < nt; i++)
                        tri_cells(k, &tris[i], tri_id[i], L, p, cell_start, cell_end, cell_zmax, g, zmax, own, cut,
                                  masks, false, gx, gy, side, area, &mine);
                }
            } else {
#pragma omp for schedule(dynamic, K1_BATCH)
                for (int i = 0; i < nt; i++)
                    tri_cells(k, &tris[i], tri_id[i], L, p, cell_start, cell_end, cell_zmax, g, zmax, own, cut,
                              masks, true, 0, 0, 1, area, &mine);
            }
        }
        global += mine.global, visited += mine.visited, pairs += mine.pairs;
        /* (the for's closing barrier: every mask is complete) */
#pragma omp for schedule(static)
        for (int j = 0; j < n; j++)
            mask[p->pixel[j]] = izb_mask_value(masks + (size_t)j * (size_t)words, L->m);
    }
    if (counts) *counts = (izb_cpu_soft_counts){global, visited, pairs};
    return true;
}

bool izb_cpu_soft_raster(const izb_soft_tri *tris, const uint32_t *tri_id, int nt, const izb_soft_light *L,
                         const izb_cpu_points *p, int n, const uint32_t *cell_start, const uint32_t *cell_end,
                         const izb_grid *g, float zmax, float *cell_zmax, izb_kernel kernel, const izb_own *own,
                         const izb_cut *cut, uint32_t *masks, uint8_t *mask, int threads, izb_cpu_isa isa,
                         izb_cpu_soft_counts *counts)
{
    return raster_of(tris, tri_id, nt, L, p, n, cell_start, cell_end, g, zmax, cell_zmax, kernel, own, cut, masks, mask,
                     threads, isa, counts, false);
}

bool izb_cpu_area_raster(const izb_soft_tri *tris, const uint32_t *tri_id, int nt, const izb_soft_light *L,
                         const izb_cpu_points *p, int n, const uint32_t *cell_start, const uint32_t *cell_end,
                         const izb_grid *g, float zmax, float *cell_zmax, izb_kernel kernel, const izb_own *own,
                         const izb_cut *cut, uint32_t *masks, uint8_t *mask, int threads, izb_cpu_isa isa,
                         izb_cpu_soft_counts *counts)
{
    return raster_of(tris, tri_id, nt, L, p, n, cell_start, cell_end, g, zmax, cell_zmax, kernel, own, cut, masks, mask,
                     threads, isa, counts, true);
}
