/* raster_aa.c — the anti-aliased frames of the CPU backend (izb_aa.h, issue 19): each binned
 * point's footprint from the depth image, then stage 4 over the same binned points, grid and
 * set-up triangles as a hard frame, with each triangle's cell range grown by the footprints'
 * extent and a per-point N-bit mask (izb_mask.h). The mask is an OR over (point, triangle) pairs,
 * so it is the same for both kernels, every thread count and every instruction set (kernels_aa.h). */
#include "izb_cpu_isa.h"

#include <math.h>
#include <stdint.h>

void izb_cpu_aa_footprints(const izb_recon *f, const float *depth, const uint32_t *ids, const float *xyz,
                           uint32_t tri_count, const izb_cpu_points *p, int n, const izb_cpu_aa_feet *F,
                           float *ex_max, float *ey_max, int threads)
{
    const izb_cpu_kernels *k = izb_cpu_kernels_get(IZB_CPU_ISA_AUTO);
    izb_aa_view V;
    izb_aa_view_make(f, &V);
    float ex = 0.0f, ey = 0.0f;
#pragma omp parallel num_threads(izb_cpu_threads(threads)) reduction(max : ex, ey)
    {
        int64_t lo, hi;
        izb_cpu_chunk(n, THREAD_NUM(), NUM_THREADS(), &lo, &hi);
        k->aa_footprints(f, &V, depth, ids, xyz, tri_count, p, lo, hi, F, &ex, &ey);
    }
    for (int j = n; j < n + IZB_CPU_POINTS_PAD; j++) /* the kernels read whole blocks */
        izb_cpu_aa_feet_copy(F, (size_t)j, NULL, 0);
    *ex_max = ex, *ey_max = ey;
}

/* kernel1's dynamic batches of triangles (as raster_soft.c's) */
#define K1_BATCH 16

bool izb_cpu_aa_raster(const izb_tri *tris, const uint32_t *tri_id, int nt, const izb_aa_samples *S,
                       const izb_cpu_points *p, const izb_cpu_aa_feet *F, int n, const uint32_t *cell_start,
                       const uint32_t *cell_end, const izb_grid *g, float ex, float ey, float *cell_box,
                       izb_kernel kernel, const izb_own *own, const izb_cut *cut, uint32_t *masks, uint8_t *mask,
                       int threads, izb_cpu_isa isa, izb_cpu_aa_counts *counts)
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
    /* the byte of each count of hidden samples: izb_mask_value depends on the count alone, and its
     * division per point was a tenth of the raster stage at N = 32 (perf) */
    const uint32_t full = izb_mask_word_bits(S->n, 0);
    uint8_t value[IZB_AA_MAX_SAMPLES + 1];
    for (int c = 0; c <= S->n; c++) {
        const uint32_t w = c >= 32 ? 0xffffffffu : (1u << c) - 1u;
        value[c] = izb_mask_value(&w, S->n);
    }
    const int cells = g->w * g->h;
    /* The traversal: each triangle over the cells of its bbox grown by the frame's largest extent,
     * skipping a cell whose reach box (izb_cpu_aa_cell_boxes: the union of its points' footprint
     * boxes) misses the bbox or lies outside an edge (spheres:1M: 32.6 M point tests -> 25.4 M
     * against the cells' rectangles grown by their largest extents). The other option, the
     * wide footprints' points copied into every cell they reach (the ranges grown less), was slower
     * in every measurement (docs/benchmarks.md) and is gone. */
#pragma omp parallel num_threads(threads) reduction(+ : global, visited, pairs)
    {
        izb_cpu_aa_counts mine = {0};
#pragma omp for schedule(static)
        for (int j = 0; j < n; j++)
            masks[j] = 0;
        izb_cpu_aa_cell_boxes(p, F, cell_start, cell_end, cells, INFINITY, INFINITY, cell_box);
        /* kernel1 shares the masks between threads only when there are several */
        const bool shared = !k2 && threads > 1;
        if (cells > 0 && nt > 0) {
            if (k2) {
#pragma omp for schedule(dynamic, 1)
                for (int grp = 0; grp < side * side; grp++) {
                    const int gx = grp % side, gy = grp / side;
                    if (gx >= g->w || gy >= g->h) continue;
                    for (int i = 0; i < nt; i++)
                        k->aa_tri(&tris[i], tri_id[i], S, p, F, cell_start, cell_end, cell_box, g, ex, ey, own, cut,
                                  masks, false, gx, gy, side, &mine);
                }
            } else {
#pragma omp for schedule(dynamic, K1_BATCH)
                for (int i = 0; i < nt; i++)
                    k->aa_tri(&tris[i], tri_id[i], S, p, F, cell_start, cell_end, cell_box, g, ex, ey, own, cut, masks,
                              shared, 0, 0, 1, &mine);
            }
        }
        global += mine.global, visited += mine.visited, pairs += mine.pairs;
        /* (the for's closing barrier: every mask is complete) */
#pragma omp for schedule(static)
        for (int j = 0; j < n; j++)
            mask[p->pixel[j]] = value[izb_popcount32(masks[j] & full)];
    }
    if (counts) *counts = (izb_cpu_aa_counts){global, visited, pairs};
    return true;
}
