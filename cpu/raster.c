/* raster.c — stage 4 of the CPU reference and backend (thesis §5): irregular
 * rasterisation of the set-up triangles against the binned points, kernel1 (per triangle over its
 * cell rows, §5.1) and kernel2 (per interleaved cell group over all triangles, §5.2). This file
 * owns the parallel traversal; the per-point test is izb_math.h's izb_tri_occludes, run in SIMD
 * blocks by the hot loops of kernels.h (one copy per instruction set, izb_cpu_isa.h).
 * The mask is the same for both kernels, every thread count and every instruction set: a point
 * is zeroed when any triangle whose range holds its cell occludes it (and, with primitive ids, is
 * not the point's own or in its plane: izb_hit_is_own; and, for a cut-out triangle, where the alpha
 * test keeps it at the point: izb_alpha_tri_keeps), an order-independent OR.
 */
#include "izb_cpu_isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kernel1 schedules triangles in dynamic batches (their costs differ by orders of magnitude):
 * about K1_BATCHES_PER_THREAD per thread and no fewer than K1_BATCH_MIN triangles. Every grab
 * moves the shared counter's cache line between cores (a round trip between the two cores of
 * the benchmark machine took ~560 ns), so fixed batches of 16 — 31,000 grabs a frame on
 * spheres:1M — cost a few milliseconds that the second thread was meant to save. */
#define K1_BATCHES_PER_THREAD 64
#define K1_BATCH_MIN 16

/* Words of one thread's hit bitmap for n points: a block may touch the word after its last
 * point's; rounded to 64 bytes, and the first bitmap starts on a cache line (the scratch holds
 * 8 words of slack for that), so no two threads' bitmaps share a line. */
static size_t bitmap_words(int n)
{
    return (((size_t)(n > 0 ? n : 0) + 63) / 64 + 1 + 7) & ~(size_t)7;
}

/* Words of one thread's cell flags (kernels_raster.h's cells_done, cut-out frames): room for n / 4
 * cells, twice the adaptive grid's n / 8 (izb_grid_make); a finer grid asked for by the caller
 * runs without the flags (the same mask). Rounded like the bitmap. */
static size_t done_words(int n)
{
    return (((size_t)(n > 0 ? n : 0) / 4 + 64 + 63) / 64 + 7) & ~(size_t)7;
}

size_t izb_cpu_raster_scratch(int n, int threads)
{
    return (size_t)izb_cpu_threads(threads) * (bitmap_words(n) + done_words(n)) + 8;
}

/* the first 64-byte boundary in scratch (at most 7 words in) */
static uint64_t *line_aligned(uint64_t *scratch)
{
    return scratch + ((64 - (uintptr_t)scratch % 64) % 64) / sizeof *scratch;
}

/* mask[pixel[j]] = 0 for every point j set in any of the team's `teams` bitmaps (words [w0, w1)).
 * A point's pixel is its own: the threads' word ranges never write the same byte. */
static void hits_to_mask(const uint64_t *hits, int teams, size_t stride, size_t w0, size_t w1,
                         const uint32_t *pixel, uint8_t *mask)
{
    for (size_t w = w0; w < w1; w++) {
        uint64_t v = 0;
        for (int t = 0; t < teams; t++)
            v |= hits[(size_t)t * stride + w];
        for (const uint32_t *px = pixel + 64 * w; v; v &= v - 1)
            mask[px[__builtin_ctzll(v)]] = 0;
    }
}

/* One parallel region: each thread clears its bitmap, the kernel's traversal marks hits
 * (dynamic schedule), then the bitmaps become the mask (static split of the words). */
static void raster(const izb_cpu_kernels *k, izb_kernel kernel, const izb_tri *tris, int nt,
                   const izb_cpu_points *points, int n, const uint32_t *cell_start, const uint32_t *cell_end,
                   const izb_grid *g, const izb_own *own, const izb_cut *cut, uint8_t *mask, int threads,
                   uint64_t *scratch)
{
    const size_t stride = bitmap_words(n) + done_words(n); /* a thread's bitmap, then its cell flags */
    const size_t cells = (size_t)g->w * (size_t)g->h, flag_words = (cells + 63) / 64;
    const bool flags = cut && flag_words <= done_words(n);
    scratch = line_aligned(scratch);
    int side = 2; /* kernel2: the smallest G >= 2 with G * G >= 2 * threads */
    while (side * side < 2 * threads)
        side++;
    const int per_thread = nt / (threads * K1_BATCHES_PER_THREAD);
    const int batch = per_thread > K1_BATCH_MIN ? per_thread : K1_BATCH_MIN;
    const int batches = (nt + batch - 1) / batch, groups = side * side;
#pragma omp parallel num_threads(threads)
    {
        uint64_t *hits = scratch + (size_t)THREAD_NUM() * stride, *done = flags ? hits + bitmap_words(n) : NULL;
        const int teams = NUM_THREADS();
        memset(hits, 0, bitmap_words(n) * sizeof *hits);
        if (done) memset(done, 0, flag_words * sizeof *done);
        if (kernel == IZB_KERNEL2) {
#pragma omp for schedule(dynamic, 1)
            for (int grp = 0; grp < groups; grp++) {
                const int gx = grp % side, gy = grp / side;
                if (gx < g->w && gy < g->h)
                    k->k2_group(tris, nt, gx, gy, side, points, cell_start, cell_end, g, own, cut, hits, done);
            }
        } else {
#pragma omp for schedule(dynamic, 1)
            for (int bi = 0; bi < batches; bi++) {
                const int i0 = bi * batch, i1 = nt - i0 > batch ? i0 + batch : nt;
                k->k1_tris(tris, i0, i1, points, cell_start, cell_end, g, own, cut, hits, done);
            }
        }
        /* (the for's closing barrier: every bitmap is complete) */
        const size_t words = ((size_t)n + 63) / 64;
        const int t = THREAD_NUM();
        hits_to_mask(scratch, teams, stride, words * (size_t)t / (size_t)teams,
                     words * (size_t)(t + 1) / (size_t)teams, points->pixel, mask);
    }
}

bool izb_cpu_raster_soa(const izb_tri *tris, int nt, const izb_cpu_points *points, int n,
                        const uint32_t *cell_start, const uint32_t *cell_end, const izb_grid *g,
                        izb_kernel kernel, const izb_own *own, uint8_t *mask, int threads, uint64_t *scratch,
                        izb_cpu_isa isa)
{
    return izb_cpu_raster_cut(tris, nt, points, n, cell_start, cell_end, g, kernel, own, NULL, mask, threads,
                              scratch, isa);
}

bool izb_cpu_raster_cut(const izb_tri *tris, int nt, const izb_cpu_points *points, int n,
                        const uint32_t *cell_start, const uint32_t *cell_end, const izb_grid *g,
                        izb_kernel kernel, const izb_own *own, const izb_cut *cut, uint8_t *mask, int threads,
                        uint64_t *scratch, izb_cpu_isa isa)
{
    const izb_cpu_kernels *k = izb_cpu_kernels_get(isa);
    if (!k) return false;
    threads = izb_cpu_threads(threads);
    if (nt <= 0 || n <= 0 || g->w <= 0 || g->h <= 0) return true;
    raster(k, kernel == IZB_KERNEL2 ? IZB_KERNEL2 : IZB_KERNEL1, tris, nt, points, n, cell_start, cell_end, g,
           own && own->pixel_id ? own : NULL, cut && cut->tri_id && cut->tex ? cut : NULL, mask, threads, scratch);
    return true;
}

void izb_cpu_raster(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                    const uint32_t *cell_end, const izb_grid *g, izb_kernel kernel, uint8_t *mask,
                    int threads)
{
    izb_cpu_raster_own(tris, nt, points, cell_start, cell_end, g, kernel, NULL, mask, threads);
}

void izb_cpu_raster_own(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                        const uint32_t *cell_end, const izb_grid *g, izb_kernel kernel, const izb_own *own,
                        uint8_t *mask, int threads)
{
    if (nt <= 0 || g->w <= 0 || g->h <= 0) return;
    /* the points in the backend's layout: as many as the furthest cell end */
    uint32_t n = 0;
    for (size_t c = 0; c < (size_t)g->w * (size_t)g->h; c++)
        n = cell_end[c] > n ? cell_end[c] : n;
    izb_cpu_points soa = {0};
    const size_t words = izb_cpu_raster_scratch((int)n, threads);
    uint64_t *scratch = malloc(words * sizeof *scratch);
    if (!scratch || !izb_cpu_points_reserve(&soa, n, "raster points")) {
        fprintf(stderr, "izb_ref: out of memory for the raster's points (%u)\n", n);
        abort();
    }
    izb_cpu_points_from_aos(points, (int)n, &soa);
    izb_cpu_raster_soa(tris, nt, &soa, (int)n, cell_start, cell_end, g, kernel, own, mask, threads, scratch,
                       IZB_CPU_ISA_AUTO);
    izb_cpu_points_free(&soa);
    free(scratch);
}

void izb_ref_raster(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                    const uint32_t *cell_end, const izb_grid *g, izb_kernel kernel, uint8_t *mask)
{
    izb_cpu_raster(tris, nt, points, cell_start, cell_end, g, kernel, mask, 0);
}

void izb_ref_raster_own(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                        const uint32_t *cell_end, const izb_grid *g, izb_kernel kernel, const izb_own *own,
                        uint8_t *mask)
{
    izb_cpu_raster_own(tris, nt, points, cell_start, cell_end, g, kernel, own, mask, 0);
}
