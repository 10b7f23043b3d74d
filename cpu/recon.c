/* recon.c — stage 1 of the CPU backend: reconstruction + bbox reduction (thesis §3), the mirror of
 * cuda/recon.cu. Every per-pixel formula is izb_math.h's (izb_reconstruct_lit), run in blocks of 16
 * pixels by the per-ISA copies of kernels_recon.h; this file owns the chunks of rows, their runs of
 * points and the bbox over the chunks. Nothing depends on the thread count: each chunk writes its
 * points where its first pixel is, and the chunks' boxes are reduced in chunk order.
 *
 * Issue 22 (kernels_recon.h): a block of sky alone writes its mask and nothing else; under an
 * orthographic light a block takes izb_reconstruct_w's copy without the three divisions by w
 * when every lane's w is exactly 1 (x / 1 is x: the same bits); a block of 16 samples is stored
 * by a 4x4 transpose of vectors instead of GCC's 64 scalar stores. Measured with
 * scripts/bench-recon-ab (the block loop, AVX-512, one thread's CPU time, 30 alternating rounds in
 * one process, 2-core machine at load average 24), new / old, the median of the paired ratios at
 * 1080p: builtin:default dir 0.52 (median 7.67 -> 3.98 ms), spot 0.57, spheres:4000 dir 0.58,
 * spheres:1000000 dir 0.53; default 720p dir 0.54. Before the transpose was added, the sky and
 * w = 1 copies alone: default dir 0.79. Then the depth prefetched 2 KB ahead: 0.89-0.96 on top.
 *
 * Screen tiles (issue 22, izb_cpu_reconstruct_tiles, the backend's order): binning's scatter
 * sends neighbouring pixels to neighbouring cells, and a cell holds ~8 points at 1080p; in pixel
 * order a row visits ~500 cells and comes back to them a row later, in tiles of 128x16 pixels
 * the ~250 cells a tile reaches get most of their points while their lines are still in L1.
 * Measured (one process, one thread's CPU time, the same binning on pixel order vs tiles, 30
 * alternating rounds, 1080p dir, 2-core machine at load 8-9): binning 0.88-0.92 of pixel order,
 * reconstruction 1.13-1.17 of it (32 or 16 rows of depth and mask in flight instead of one),
 * the two 0.93 (spheres:4K), 0.96 (default), 1.00 (spheres:1M), 0.95 (default spot), 0.98
 * (default 720p). Tiles of 64x32: binning 0.85-0.89 but reconstruction 1.15-1.3; 256x8 and
 * 32x32 no better; a prefetch of the next tile's mask line, within the noise. The reference
 * (izb_cpu_reconstruct, izb_ref_reconstruct) keeps pixel order: the GPU tests compare with it.
 */
#include "izb_cpu_isa.h"
#include "izb_cpu_stages.h"

#include <math.h>
#include <string.h>

/* ---- stage 1: reconstruction + bbox reduction (thesis §3) ------------------------------------ */

#define RECON_CHUNKS_PER_THREAD 8

/* Stage 1 with the samples in tiles of tile_w x tile_h (tile_w >= the width, tile_h 1: pixel
 * order). Chunks of whole bands of tile_h rows, each chunk's bands one after the other. */
static int reconstruct(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                       izb_bbox *bbox, izb_cpu_runs *runs, int threads, izb_cpu_isa isa, int tile_w,
                       int tile_h)
{
    const izb_cpu_kernels *kern = izb_cpu_kernels_get(isa);
    if (!kern) return -1;
    izb_bbox box[IZB_CPU_MAX_THREADS]; /* per chunk */
    threads = izb_cpu_threads(threads);
    const int64_t bands = (f->height + (int64_t)tile_h - 1) / tile_h;
    /* Chunks of rows, several per thread and taken as threads come free: sky rows cost less than
     * rows of geometry, so equal shares leave a thread waiting. */
    int64_t chunks = (int64_t)RECON_CHUNKS_PER_THREAD * threads;
    chunks = chunks < IZB_CPU_MAX_THREADS ? chunks : IZB_CPU_MAX_THREADS;
    chunks = chunks < bands ? chunks : bands;

    /* One pass: each chunk of rows writes its points where its first pixel is (the buffer holds
     * width*height points, so chunks cannot collide); they stay there, one run per chunk. */
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int64_t r = 0; r < chunks; r++) {
        int64_t b0, b1;
        izb_cpu_chunk(bands, (int)r, (int)chunks, &b0, &b1);
        const int64_t y0 = b0 * tile_h, y1 = b1 * tile_h < f->height ? b1 * tile_h : f->height;
        izb_point *at = points + (size_t)y0 * (size_t)f->width;
        uint32_t len = 0;
        izb_bbox cb = {INFINITY, INFINITY, -INFINITY, -INFINITY}, bb;
        /* a band at a time; in pixel order (a tile the frame's width) the whole chunk at once */
        const int64_t step = tile_w >= f->width ? y1 - y0 : tile_h;
        for (int64_t y = y0; y < y1; y += step) {
            const int64_t ye = y + step < y1 ? y + step : y1;
            len += kern->recon_rows(f, depth, (int)y, (int)ye, tile_w, mask, at + len, &bb);
            cb = (izb_bbox){izb_minf(cb.min_x, bb.min_x), izb_minf(cb.min_y, bb.min_y),
                            izb_maxf(cb.max_x, bb.max_x), izb_maxf(cb.max_y, bb.max_y)};
        }
        runs->at[r] = at;
        runs->len[r] = len;
        box[r] = cb;
    }
    runs->count = (int)chunks;
    int n = 0;
    izb_bbox b = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int r = 0; r < runs->count; r++) { /* in chunk order, whichever thread took each */
        n += (int)runs->len[r];
        b.min_x = izb_minf(b.min_x, box[r].min_x);
        b.min_y = izb_minf(b.min_y, box[r].min_y);
        b.max_x = izb_maxf(b.max_x, box[r].max_x);
        b.max_y = izb_maxf(b.max_y, box[r].max_y);
    }
    *bbox = b;
    return n;
}

int izb_cpu_reconstruct_runs(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                             izb_bbox *bbox, izb_cpu_runs *runs, int threads, izb_cpu_isa isa)
{
    return reconstruct(f, depth, points, mask, bbox, runs, threads, isa, f->width > 0 ? f->width : 1, 1);
}

int izb_cpu_reconstruct_tiles(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                              izb_bbox *bbox, izb_cpu_runs *runs, int threads, izb_cpu_isa isa)
{
    return reconstruct(f, depth, points, mask, bbox, runs, threads, isa, IZB_CPU_TILE_W, IZB_CPU_TILE_H);
}

int izb_cpu_reconstruct(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                        izb_bbox *bbox, int threads)
{
    izb_cpu_runs runs;
    const int n = izb_cpu_reconstruct_runs(f, depth, points, mask, bbox, &runs, threads, IZB_CPU_ISA_AUTO);
    /* The runs moved down in order to close the gaps: run r's destination ends at or before its own
     * start, so it never overwrites a later run's points; memmove handles the overlap with its own. */
    izb_point *to = points;
    for (int r = 0; r < runs.count; r++) {
        if (runs.at[r] != to && runs.len[r] > 0)
            memmove(to, runs.at[r], (size_t)runs.len[r] * sizeof *points);
        to += runs.len[r];
    }
    return n;
}

int izb_ref_reconstruct(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                        izb_bbox *bbox)
{
    return izb_cpu_reconstruct(f, depth, points, mask, bbox, 0);
}
