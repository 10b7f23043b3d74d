/* binning.c — stage 2 of the CPU reference and backend (thesis §4.1–4.2): binning, a stable
 * parallel counting sort of the points by cell hash, into an array of izb_point (izb_ref_bin, the
 * CUDA tests' reference) or into the structure of arrays the CPU backend's raster reads
 * (izb_cpu_points). Both come from one sort; the latter is transposed from the former in the
 * scratch. Also the izb_cpu_points buffers themselves.
 *
 * Chunk t of the points (contiguous, in input order) counts into its own histogram row; a column
 * scan over the rows gives each chunk's offset within every cell, an exclusive scan over the cells
 * gives cell_start, and each chunk scatters its points in input order: stable, and nothing depends
 * on the thread count. The cell hash is izb_math.h's, vectorised per instruction set
 * (izb_cpu_isa.h) over blocks small enough that the histogram pass re-reads them from L1. The input
 * may come in runs (izb_cpu_runs: reconstruction's chunks, read in place); the chunks of the sort
 * are equal shares of the points whatever the runs are.
 *
 * Tried and slower on spheres:4K 1080p (1 thread 4.8 ms for this sort): a two-pass sort (points to
 * <= 512 buckets of consecutive cells, then each bucket to its cells, straight into the structure
 * of arrays), 5.3-7.9 ms in its variants (software prefetch, split cursors); two interleaved
 * scatter streams per thread, 5.7 ms; scattering 4-byte indices then gathering the points, no
 * gain. The cost is the random 16-byte stores (the same loop storing in order: 2.4 ms), mostly
 * their first touch of each line: a prefetch two lines ahead of each store took 10% off
 * (scatter_aos). Also tried (bin4): the scatter by runs of equal hashes with AVX-512 masked
 * stores (one cursor update and one or two stores per run), 5.1-5.2 ms against 4.8-4.9; writing
 * the buffer (memset or prefetch) in order before the scatter, within the noise. Tried later on
 * builtin:default 1080p (Xeon, 1 thread, thread CPU time against this sort in one process, issue
 * 22): the two-pass bucket sort again, with each bucket's stream written through a one-line buffer
 * as whole non-temporal lines (no read for ownership) and each bucket of 128-512 cells then sorted
 * in cache into the arrays, 1.09-1.12x (1.19x with plain stores of the lines); scattering straight
 * into the four arrays with the run's cursor in a register (see scatter_aos), 1.24x; no hash
 * array (the scatter hashing its points again, a block at a time), 1.11x; the transpose with
 * non-temporal stores, no gain (and the raster would read the points from memory). Tried later
 * (issue 22, bench-binning-ab against the unchanged sort, 1080p, 30 rounds, load 24-30, the
 * median of the paired ratios): the transpose 16 points at a time by vector shuffles in a per-ISA
 * kernel (GCC makes this loop a 16-byte load and four scalar stores a point), default 1.00 / 0.97
 * (1 / 2 threads), spheres:4K 1.02 / 0.98: it waits on memory, not on its stores. The sort moving
 * 4-byte pixel indices alone (scattered straight into the pixel array), x, y, z then made again
 * from each pixel's depth (izb_reconstruct_w; the depth a scalar gather), against the unchanged
 * sort: default 0.97 (1 thread) / 0.89 (2), spheres:4K 0.95 (1); not kept, no better than the
 * transpose within the noise, and binning would need the frame and depth.
 *
 * Issue 22, round 6 (1080p dir, 1 thread, load 8-15; docs/bench-cpu/issue22-binning.md). Kept,
 * outside this loop: the points arrive in screen tiles of 128x16 (recon.c,
 * izb_cpu_reconstruct_tiles), so the ~250 cells a tile reaches fill while their lines are in L1:
 * this sort 0.80-0.89 of pixel order on huge pages (0.88-0.92 on 4 KB pages); and every large
 * buffer on huge pages (alloc.c): the random stores over 14 MB walked ~3,500 4 KB pages, past the
 * TLB: 0.83-0.93 (tiles both). Not kept: each chunk
 * counting into two histograms (odd and even points, summed before the scan) to break the chain
 * of increments of one cell's count along a run, bench-binning-ab 1.04 (default) / 1.07
 * (spheres:4K): the count pass is not bound by that chain; the scatter straight into the four
 * arrays again, now on tile-ordered points (no transpose), 1.27-1.28 (1.14-1.18 with each array's
 * line 64 bytes ahead prefetched), in pixel order 1.20-1.25: the tiles' locality does not make up
 * for four store streams. */
#include "izb_cpu_isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_BLOCK 2048 /* points hashed, then counted, at a time: 8 KB of hashes */

/* ---- izb_cpu_points -------------------------------------------------------------------------- */

/* entries per array: n + the pad, rounded up to a 64-byte multiple so every array is aligned */
static size_t plane_len(size_t n)
{
    return (n + IZB_CPU_POINTS_PAD + 15) & ~(size_t)15;
}

bool izb_cpu_points_reserve(izb_cpu_points *p, size_t n, const char *what)
{
    if (p->x && n <= p->cap) return true;
    izb_cpu_points_free(p);
    const size_t len = plane_len(n);
    if (len > SIZE_MAX / 16) {
        fprintf(stderr, "izb cpu: %zu points for %s: too many\n", n, what);
        return false;
    }
    float *all = izb_cpu_alloc(16 * len); /* 4 arrays of 4-byte entries */
    if (!all) {
        fprintf(stderr, "izb cpu: out of memory for %s (%zu points)\n", what, n);
        return false;
    }
    memset(all, 0, 16 * len); /* the pad is read (and masked off): never uninitialised */
    *p = (izb_cpu_points){
        .x = all, .y = all + len, .z = all + 2 * len, .pixel = (uint32_t *)(all + 3 * len), .cap = n};
    return true;
}

void izb_cpu_points_free(izb_cpu_points *p)
{
    free(p->x);
    *p = (izb_cpu_points){0};
}

void izb_cpu_points_to_aos(const izb_cpu_points *p, int n, izb_point *out)
{
    for (int i = 0; i < n; i++)
        out[i] = (izb_point){p->x[i], p->y[i], p->z[i], p->pixel[i]};
}

void izb_cpu_points_from_aos(const izb_point *in, int n, izb_cpu_points *p)
{
    for (int i = 0; i < n; i++) {
        p->x[i] = in[i].x;
        p->y[i] = in[i].y;
        p->z[i] = in[i].z;
        p->pixel[i] = in[i].pixel;
    }
}

/* ---- the counting sort ----------------------------------------------------------------------- */

size_t izb_cpu_bin_scratch(int n, const izb_grid *g, int threads)
{
    /* hashes, the threads' histograms, and (for izb_cpu_bin_soa) the sorted points as izb_point */
    return 5 * (size_t)(n > 0 ? n : 0) + (size_t)izb_cpu_threads(threads) * (size_t)g->w * (size_t)g->h;
}

/* The piece of the runs from index *i up to i1: run *r from offset *o, its length returned; then
 * (*i, *r, *o) step past it. The first call finds *r, *o from *i (pass *r = -1). */
static int64_t run_piece(const izb_cpu_runs *in, int64_t *i, int64_t i1, int *r, int64_t *o,
                         const izb_point **at)
{
    if (*r < 0) {
        int64_t rest = *i;
        *r = 0;
        while (*r + 1 < in->count && rest >= in->len[*r])
            rest -= in->len[(*r)++];
        *o = rest;
    }
    while (*r + 1 < in->count && *o >= in->len[*r])
        (*r)++, *o = 0;
    const int64_t left = in->len[*r] - *o, len = left < i1 - *i ? left : i1 - *i;
    *at = in->at[*r] + *o;
    *i += len;
    *o += len;
    return len;
}

/* Points [i0, i1) of the runs: their cell hashes into hash[i0 ..], counted into the histogram h. */
static void count_range(const izb_cpu_kernels *k, const izb_cpu_runs *in, int64_t i0, int64_t i1,
                        const izb_grid *g, uint32_t *hash, uint32_t *restrict h)
{
    int r = -1;
    int64_t o = 0;
    for (int64_t i = i0; i < i1;) {
        const izb_point *p;
        uint32_t *hs = hash + i;
        const int64_t len = run_piece(in, &i, i1, &r, &o, &p);
        for (int64_t b = 0; b < len; b += HASH_BLOCK) {
            const int64_t e = b + HASH_BLOCK < len ? b + HASH_BLOCK : len;
            k->cell_hash(p + b, e - b, g, hs + b);
            for (int64_t j = b; j < e; j++)
                h[hs[j]]++;
        }
    }
}

/* Bytes past each store that the scatter prefetches for writing (see scatter_aos). */
#define SCATTER_PREFETCH 128

/* Points [i0, i1) of the runs to their places: h[c]++ (h: the chunk's next place in each cell,
 * cell_start folded in by bin_sort).
 *
 * Along a run of points with the same hash the cursor stays in a register and goes back to h[]
 * once, at the run's end: with h[hs[j]]++ per point, each point of a run waited for the previous
 * point's store to h[] to forward to its load (a chain of ~5 cycles a point, 3.75 points a run).
 * Measured (builtin:default 1080p dir, 1 thread, the whole sort's thread CPU time, min / median of
 * 40 alternating runs in one process, machine under load): 9.95 / 10.76 -> 8.71 / 9.20 ms. Not
 * kept: the same run tracking in the count pass (a branch per run), 1.07x slower, 1.08x with the
 * run ends found 64 points at a time as a bit mask, 1.09x branch-free (the store of an unfinished
 * run sent to a dummy); the branch-free form here, no gain.
 *
 * Each store also prefetches, for writing, the line SCATTER_PREFETCH bytes past it. A cell's range
 * fills front to back, a few points at a visit (runs of 3.75 points on average in the spheres and
 * default views at 1080p), and the pixel-order walk crosses the grid diagonally: a screen row
 * visits ~500 cells all over the buffer and the next row comes back to their next slots or to the
 * cells just after them. So the store's line plus two is next touched a row or so later, and
 * without the prefetch that first touch is a miss to memory in one of ~500 interleaved streams,
 * which the hardware prefetchers do not follow. Measured (1 thread, 1080p dir, min of 40 frames in
 * one process, alternating): spheres:4K 4.91 -> 4.33 ms, default 4.53 -> 4.14, spheres:1M 5.45 ->
 * 4.91; 64, 192, 256 and 512 bytes ahead gained less. The address is formed as an integer: it
 * may lie past the buffer, and a prefetch never faults. */
static void scatter_aos(const izb_cpu_runs *in, int64_t i0, int64_t i1, const uint32_t *hash,
                        uint32_t *restrict h, izb_point *restrict out)
{
    int r = -1;
    int64_t o = 0;
    for (int64_t i = i0; i < i1;) {
        const izb_point *p;
        const uint32_t *hs = hash + i;
        const int64_t len = run_piece(in, &i, i1, &r, &o, &p);
        if (len <= 0) continue;
        /* the cell's cursor stays in a register along a run of equal hashes (see above) */
        uint32_t c = hs[0], d = h[c];
        for (int64_t j = 0; j < len; j++, d++) {
            if (hs[j] != c) {
                h[c] = d;
                c = hs[j], d = h[c];
            }
            __builtin_prefetch((const void *)((uintptr_t)(out + d) + SCATTER_PREFETCH), 1, 3);
            out[d] = p[j];
        }
        h[c] = d;
    }
}

/* Binned points [d0, d1) from the array of structs to the structure of arrays: sequential reads
 * and writes. Scattering straight into the four arrays was slower: measured 4.7-5.6 ms against
 * 3.0-3.1 (16-byte scatter) + 0.9-1.0 (this) for spheres:1M at 1080p on one thread, because every
 * point's four stores miss L1 where the one 16-byte store misses once. */
static void transpose(const izb_point *in, int64_t d0, int64_t d1, const izb_cpu_points *out)
{
    float *restrict x = out->x, *restrict y = out->y, *restrict z = out->z;
    uint32_t *restrict pixel = out->pixel;
    for (int64_t d = d0; d < d1; d++) {
        x[d] = in[d].x;
        y[d] = in[d].y;
        z[d] = in[d].z;
        pixel[d] = in[d].pixel;
    }
}

/* The sort of the runs' points, into exactly one of aos / soa. */
static void bin_sort(const izb_cpu_kernels *k, const izb_cpu_runs *in, const izb_grid *g, izb_point *aos,
                     const izb_cpu_points *soa, uint32_t *cell_start, uint32_t *cell_end, int threads,
                     uint32_t *scratch)
{
    const size_t cells = (size_t)g->w * (size_t)g->h;
    int64_t n = 0;
    for (int r = 0; r < in->count; r++)
        n += in->len[r];
    threads = izb_cpu_threads(threads);
    uint32_t range_total[IZB_CPU_MAX_THREADS]; /* points in each thread's range of cells */
    uint32_t *hash = scratch, *hist = scratch + n;
    /* the structure of arrays is written from a 16-byte scatter into scratch (transpose()) */
    izb_point *sorted = aos ? aos : (izb_point *)(hist + (size_t)threads * cells);
    if (n <= 0) {
        memset(cell_start, 0, cells * sizeof *cell_start);
        memset(cell_end, 0, cells * sizeof *cell_end);
        return;
    }

#pragma omp parallel num_threads(threads)
    {
        const int t = THREAD_NUM(), nt = NUM_THREADS();
        uint32_t *h = hist + (size_t)t * cells;
        int64_t i0, i1;
        izb_cpu_chunk(n, t, nt, &i0, &i1);
        memset(h, 0, cells * sizeof *h);
        count_range(k, in, i0, i1, g, hash, h);
#pragma omp barrier
        /* The scan, all threads at once: each takes a range of cells, turns the rows' counts into
         * each chunk's offset within the cell and the cells' counts into starts relative to its
         * range; then every range's start moves them to their place. */
        int64_t c0, c1;
        izb_cpu_chunk((int64_t)cells, t, nt, &c0, &c1);
        uint32_t run = 0;
        for (int64_t c = c0; c < c1; c++) {
            uint32_t in_cell = 0;
            for (int r = 0; r < nt; r++) {
                const uint32_t v = hist[(size_t)r * cells + (size_t)c];
                hist[(size_t)r * cells + (size_t)c] = in_cell;
                in_cell += v;
            }
            cell_start[c] = run;
            run += in_cell;
            cell_end[c] = run;
        }
        range_total[t] = run;
#pragma omp barrier
        uint32_t base = 0;
        for (int r = 0; r < t; r++)
            base += range_total[r];
        if (base)
            for (int64_t c = c0; c < c1; c++)
                cell_start[c] += base, cell_end[c] += base;
        /* Every chunk's offsets in this range of cells become places, so the scatter reads one
         * array of cursors instead of two (with 108K cells at 1080p, 0.43 MB each against a 1 MB
         * L2): 0.1-0.2 ms less on one thread once the scatter prefetches (neutral before it). */
        for (int r = 0; r < nt; r++) {
            uint32_t *restrict row = hist + (size_t)r * cells;
            for (int64_t c = c0; c < c1; c++)
                row[c] += cell_start[c];
        }
#pragma omp barrier
        scatter_aos(in, i0, i1, hash, h, sorted);
        if (!aos) {
#pragma omp barrier
            transpose(sorted, i0, i1, soa);
        }
    }
}

void izb_cpu_bin(const izb_point *in, int n, const izb_grid *g, izb_point *out, uint32_t *cell_start,
                 uint32_t *cell_end, int threads, uint32_t *scratch)
{
    const izb_cpu_runs runs = {1, {in}, {n > 0 ? n : 0}};
    bin_sort(izb_cpu_kernels_get(IZB_CPU_ISA_AUTO), &runs, g, out, NULL, cell_start, cell_end, threads,
             scratch);
}

bool izb_cpu_bin_soa(const izb_point *in, int n, const izb_grid *g, izb_cpu_points *out, uint32_t *cell_start,
                     uint32_t *cell_end, int threads, uint32_t *scratch, izb_cpu_isa isa)
{
    const izb_cpu_runs runs = {1, {in}, {n > 0 ? n : 0}};
    return izb_cpu_bin_runs(&runs, g, out, cell_start, cell_end, threads, scratch, isa);
}

bool izb_cpu_bin_runs(const izb_cpu_runs *in, const izb_grid *g, izb_cpu_points *out, uint32_t *cell_start,
                      uint32_t *cell_end, int threads, uint32_t *scratch, izb_cpu_isa isa)
{
    const izb_cpu_kernels *k = izb_cpu_kernels_get(isa);
    if (!k) return false;
    bin_sort(k, in, g, NULL, out, cell_start, cell_end, threads, scratch);
    return true;
}

void izb_ref_bin(const izb_point *in, int n, const izb_grid *g, izb_point *out, uint32_t *cell_start,
                 uint32_t *cell_end)
{
    const size_t words = izb_cpu_bin_scratch(n, g, 0);
    uint32_t *scratch = malloc(words ? words * sizeof(uint32_t) : 1);
    if (!scratch) {
        fprintf(stderr, "izb_ref: out of memory for binning scratch (%zu words)\n", words);
        abort();
    }
    izb_cpu_bin(in, n, g, out, cell_start, cell_end, 0, scratch);
    free(scratch);
}
