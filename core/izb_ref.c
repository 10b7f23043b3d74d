/* izb_ref.c — the CPU reference of the four IZB stages (izb_ref.h): reconstruction + bbox
 * reduction, counting-sort binning, culling + compaction, and the two irregular rasterisers.
 * Every per-element formula comes from izb_math.h; this file only owns the traversal and the
 * parallel bookkeeping (OpenMP). Work is split into contiguous chunks per thread and every
 * result is either order-independent (min/max, mask zeros) or written to a position fixed by a
 * prefix sum, so nothing depends on the thread count.
 */
#include "izb_cpu_stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The per-element math is fmaf-heavy (izb_math.h). Built for baseline x86-64, every fmaf is a
 * libm call; the hot loops below are therefore also compiled for FMA hardware and picked at run
 * time (GCC/Clang function multiversioning), with the math inlined (flatten) so it is compiled
 * for FMA too. fmaf is correctly rounded either way, and nothing is contracted implicitly
 * (-ffp-contract=off), so both versions give the same bits. */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && !defined(IZB_NO_CLONES)
#if __has_attribute(target_clones) && __has_attribute(flatten)
#define HOT __attribute__((target_clones("fma", "default"), flatten))
#endif
#endif
#ifndef HOT
#define HOT
#endif

#ifdef _OPENMP
#include <omp.h>
#define THREAD_NUM() omp_get_thread_num()
#define NUM_THREADS() omp_get_num_threads()
#else
#define THREAD_NUM() 0
#define NUM_THREADS() 1
#endif

/* [lo, hi) of chunk t of nt over n items */
static void chunk_range(int64_t n, int t, int nt, int64_t *lo, int64_t *hi);
/* malloc or abort with a message naming `what` (only the public wrappers allocate) */
static void *xmalloc(size_t size, const char *what);

static void chunk_range(int64_t n, int t, int nt, int64_t *lo, int64_t *hi)
{
    *lo = n * t / nt;
    *hi = n * (t + 1) / nt;
}

static void *xmalloc(size_t size, const char *what)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "izb_ref: out of memory for %s (%zu bytes)\n", what, size);
        abort();
    }
    return p;
}

int izb_cpu_threads(int threads)
{
#ifdef _OPENMP
    if (threads <= 0)
        threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    return threads < 1 ? 1 : threads > IZB_CPU_MAX_THREADS ? IZB_CPU_MAX_THREADS : threads;
}

/* ---- stage 1: reconstruction + bbox reduction (thesis §3) ------------------------------------ */

/* Rows [y0, y1): mask init, the points in pixel order from points[0], their count and bbox. */
HOT static uint32_t recon_rows(const izb_recon *f, const float *depth, int y0, int y1, uint8_t *mask,
                               izb_point *points, izb_bbox *box)
{
    uint32_t c = 0;
    izb_bbox b = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int py = y0; py < y1; py++) {
        const size_t row = (size_t)py * (size_t)f->width;
        for (int px = 0; px < f->width; px++) {
            izb_point *p = &points[c];
            izb_sample_kind k = izb_reconstruct(f, px, py, depth[row + px], p);
            mask[row + px] = k == IZB_UNLIT ? 0 : 255;
            if (k == IZB_SAMPLE) {
                c++;
                b.min_x = izb_minf(b.min_x, p->x);
                b.min_y = izb_minf(b.min_y, p->y);
                b.max_x = izb_maxf(b.max_x, p->x);
                b.max_y = izb_maxf(b.max_y, p->y);
            }
        }
    }
    *box = b;
    return c;
}

int izb_cpu_reconstruct(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                        izb_bbox *bbox, int threads)
{
    uint32_t count[IZB_CPU_MAX_THREADS];
    size_t start[IZB_CPU_MAX_THREADS];
    izb_bbox box[IZB_CPU_MAX_THREADS];
    int teams = 1;
    threads = izb_cpu_threads(threads);

    /* One pass: each chunk of rows writes its points where its first pixel is (the buffer holds
     * width*height points, so chunks cannot collide), then the chunks are moved down in order to
     * close the gaps. The move is a memmove of the points only, far cheaper than reconstructing
     * every pixel twice to learn the offsets first. */
#pragma omp parallel num_threads(threads)
    {
        const int t = THREAD_NUM(), nt = NUM_THREADS();
        int64_t y0, y1;
        chunk_range(f->height, t, nt, &y0, &y1);
        if (t == 0)
            teams = nt;
        start[t] = (size_t)y0 * (size_t)f->width;
        count[t] = recon_rows(f, depth, (int)y0, (int)y1, mask, points + start[t], &box[t]);
    }
    /* In chunk order: chunk t's destination ends at or before its own start, so it never
     * overwrites a later chunk's points; memmove handles the overlap with its own. */
    size_t off = 0;
    for (int t = 0; t < teams; t++) {
        if (start[t] != off && count[t] > 0)
            memmove(points + off, points + start[t], (size_t)count[t] * sizeof *points);
        off += count[t];
    }

    int n = 0;
    izb_bbox b = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int t = 0; t < teams; t++) {
        n += (int)count[t];
        b.min_x = izb_minf(b.min_x, box[t].min_x);
        b.min_y = izb_minf(b.min_y, box[t].min_y);
        b.max_x = izb_maxf(b.max_x, box[t].max_x);
        b.max_y = izb_maxf(b.max_y, box[t].max_y);
    }
    *bbox = b;
    return n;
}

int izb_ref_reconstruct(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                        izb_bbox *bbox)
{
    return izb_cpu_reconstruct(f, depth, points, mask, bbox, 0);
}

/* ---- stage 2: binning, a stable parallel counting sort by cell hash (thesis §4.1–4.2) -------- */

size_t izb_cpu_bin_scratch(int n, const izb_grid *g, int threads)
{
    return (size_t)(n > 0 ? n : 0) + (size_t)izb_cpu_threads(threads) * (size_t)g->w * (size_t)g->h;
}

/* Cell hash of points [i0, i1) into hash[], counted into the histogram h. */
HOT static void bin_count(const izb_point *in, int64_t i0, int64_t i1, const izb_grid *g, uint32_t *hash, uint32_t *h)
{
    for (int64_t i = i0; i < i1; i++) {
        uint32_t c = izb_cell_hash(g, in[i].x, in[i].y);
        hash[i] = c;
        h[c]++;
    }
}

void izb_cpu_bin(const izb_point *in, int n, const izb_grid *g, izb_point *out, uint32_t *cell_start,
                 uint32_t *cell_end, int threads, uint32_t *scratch)
{
    const size_t cells = (size_t)g->w * (size_t)g->h;
    uint32_t *hash = scratch, *hist = scratch + (n > 0 ? n : 0);
    threads = izb_cpu_threads(threads);
    if (n <= 0) {
        memset(cell_start, 0, cells * sizeof *cell_start);
        memset(cell_end, 0, cells * sizeof *cell_end);
        return;
    }

    /* Chunk t of the points counts into its own histogram row hist[t]; a column scan over the rows
     * turns each into the chunk's offset within every cell, an exclusive scan over the cells gives
     * cell_start, and each chunk scatters its points in input order: stable. */
#pragma omp parallel num_threads(threads)
    {
        const int t = THREAD_NUM(), nt = NUM_THREADS();
        uint32_t *h = hist + (size_t)t * cells;
        int64_t i0, i1;
        chunk_range(n, t, nt, &i0, &i1);
        memset(h, 0, cells * sizeof *h);
        bin_count(in, i0, i1, g, hash, h);
#pragma omp barrier
#pragma omp for schedule(static)
        for (int64_t c = 0; c < (int64_t)cells; c++) {
            uint32_t run = 0;
            for (int k = 0; k < nt; k++) {
                uint32_t v = hist[(size_t)k * cells + (size_t)c];
                hist[(size_t)k * cells + (size_t)c] = run;
                run += v;
            }
            cell_end[c] = run; /* the cell's count, for now */
        }
#pragma omp single
        {
            uint32_t run = 0;
            for (size_t c = 0; c < cells; c++) {
                cell_start[c] = run;
                run += cell_end[c];
                cell_end[c] = run;
            }
        }
        for (int64_t i = i0; i < i1; i++) {
            uint32_t c = hash[i];
            out[cell_start[c] + h[c]++] = in[i];
        }
    }
}

void izb_ref_bin(const izb_point *in, int n, const izb_grid *g, izb_point *out, uint32_t *cell_start,
                 uint32_t *cell_end)
{
    uint32_t *scratch = xmalloc(izb_cpu_bin_scratch(n, g, 0) * sizeof(uint32_t), "binning scratch");
    izb_cpu_bin(in, n, g, out, cell_start, cell_end, 0, scratch);
    free(scratch);
}

/* ---- stage 3: triangle culling + compaction (thesis §4.3–4.4) -------------------------------- */

/* Transform triangle i to light clip space and set it up; false when culled. */
static inline bool setup_tri(const float *xyz, int64_t i, const izb_recon *f, const izb_grid *g,
                             const izb_bbox *bbox, const izb_cull_view *cull, izb_tri *out)
{
    float v[3][4];
    for (int k = 0; k < 3; k++)
        izb_transform(f->light, xyz + 9 * i + 3 * k, v[k]);
    return izb_tri_setup(v, g, bbox, izb_may_cull(cull, (uint32_t)i), out);
}

/* The survivors of triangles [i0, i1), set up, from out[0]; returns how many. tri_id (may be
 * NULL): each survivor's index i, from tri_id[0]. */
HOT static uint32_t cull_range(const float *xyz, int64_t i0, int64_t i1, const izb_recon *f,
                               const izb_grid *g, const izb_bbox *bbox, const izb_cull_view *cull,
                               izb_tri *out, uint32_t *tri_id)
{
    uint32_t c = 0;
    if (tri_id)
        for (int64_t i = i0; i < i1; i++) {
            tri_id[c] = (uint32_t)i; /* overwritten by the next survivor when culled */
            c += setup_tri(xyz, i, f, g, bbox, cull, &out[c]);
        }
    else
        for (int64_t i = i0; i < i1; i++)
            c += setup_tri(xyz, i, f, g, bbox, cull, &out[c]);
    return c;
}

int izb_cpu_cull(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                 const izb_cull_view *cull, izb_tri *out, int threads)
{
    return izb_cpu_cull_ids(xyz, n, f, g, bbox, cull, out, NULL, threads);
}

int izb_cpu_cull_ids(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                     const izb_cull_view *cull, izb_tri *out, uint32_t *tri_id, int threads)
{
    uint32_t count[IZB_CPU_MAX_THREADS];
    int64_t start[IZB_CPU_MAX_THREADS];
    int teams = 1;
    threads = izb_cpu_threads(threads);
    if (n <= 0)
        return 0;

    /* The GPU needs flags -> scan -> scatter to compact in parallel. Here each chunk writes its
     * survivors where its first triangle is (out holds n), then the chunks close the gaps in
     * order — the same compacted, input-ordered result with one setup per triangle. */
#pragma omp parallel num_threads(threads)
    {
        const int t = THREAD_NUM(), nt = NUM_THREADS();
        int64_t i0, i1;
        chunk_range(n, t, nt, &i0, &i1);
        if (t == 0)
            teams = nt;
        start[t] = i0;
        count[t] = cull_range(xyz, i0, i1, f, g, bbox, cull, out + i0, tri_id ? tri_id + i0 : NULL);
    }
    int64_t off = 0; /* chunk t moves to [off, off + count[t]), which ends before start[t + 1] */
    for (int t = 0; t < teams; t++) {
        if (start[t] != off && count[t] > 0) {
            memmove(out + off, out + start[t], (size_t)count[t] * sizeof *out);
            if (tri_id) memmove(tri_id + off, tri_id + start[t], (size_t)count[t] * sizeof *tri_id);
        }
        off += count[t];
    }
    return (int)off;
}

int izb_ref_cull(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                 bool cull_back, izb_tri *out)
{
    return izb_ref_cull_ids(xyz, n, f, g, bbox, cull_back, out, NULL);
}

int izb_ref_cull_ids(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                     bool cull_back, izb_tri *out, uint32_t *tri_id)
{
    const izb_cull_view all = {.mode = cull_back ? IZB_CULL_ON : IZB_CULL_OFF};
    return izb_cpu_cull_ids(xyz, n, f, g, bbox, &all, out, tri_id, 0);
}

/* ---- stage 4: irregular rasterisation (thesis §5) -------------------------------------------- */

/* With ids, is the hit of compacted triangle i on the point at `pixel` to be ignored
 * (izb_hit_is_own)? A pixel already in shadow skips the plane test: its store changes nothing. */
static inline bool own_hit(const izb_own *o, uint32_t i, uint32_t pixel, const uint8_t *mask)
{
    return o->pixel_id && __atomic_load_n(&mask[pixel], __ATOMIC_RELAXED) != 0 &&
           izb_hit_is_own(o->xyz, 9, 1, o->tri_count, o->pixel_id[pixel], o->tri_id[i]);
}

/* Kernel1 (§5.1): one triangle at a time per thread; each of its cell rows is one contiguous
 * "fragment line" of points, cell_start[first cell] .. cell_end[last cell] (§5.1.1). Several
 * threads may zero the same pixel: the same value, stored atomically so it is no data race. */
#define K1_BATCH 16 /* triangles per scheduling unit */

HOT static void k1_tris(const izb_tri *tris, int i0, int i1, const izb_point *points,
                        const uint32_t *cell_start, const uint32_t *cell_end, const izb_grid *g,
                        const izb_own *own, uint8_t *mask)
{
    for (int i = i0; i < i1; i++) {
        const izb_tri t = tris[i];
        for (int cy = t.cy0; cy <= t.cy1; cy++) {
            const uint32_t end = cell_end[cy * g->w + t.cx1];
            for (uint32_t j = cell_start[cy * g->w + t.cx0]; j < end; j++) {
                const izb_point p = points[j];
                if (izb_tri_occludes(&t, p.x, p.y, p.z) && !own_hit(own, (uint32_t)i, p.pixel, mask))
                    __atomic_store_n(&mask[p.pixel], (uint8_t)0, __ATOMIC_RELAXED);
            }
        }
    }
}

static void raster_kernel1(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                           const uint32_t *cell_end, const izb_grid *g, const izb_own *own, uint8_t *mask,
                           int threads)
{
    const int batches = (nt + K1_BATCH - 1) / K1_BATCH;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int bi = 0; bi < batches; bi++) {
        const int i0 = bi * K1_BATCH, i1 = i0 + K1_BATCH < nt ? i0 + K1_BATCH : nt;
        k1_tris(tris, i0, i1, points, cell_start, cell_end, g, own, mask);
    }
}

/* x >= lo, x ≡ r (mod m): the first such value */
static inline int first_congruent(int lo, int r, int m)
{
    int d = (r - lo) % m;
    return lo + (d < 0 ? d + m : d);
}

/* Kernel2 (§5.2): cell groups interleaved over the grid; each group visits, for every triangle,
 * only its own cells inside the triangle's range. A pixel's point lives in exactly one cell, so
 * the thread that owns the group is the only writer of its pixels. */
HOT static void k2_group(const izb_tri *tris, int nt, int gx, int gy, int side, const izb_point *points,
                         const uint32_t *cell_start, const uint32_t *cell_end, const izb_grid *g,
                         const izb_own *own, uint8_t *mask)
{
    for (int i = 0; i < nt; i++) {
        const izb_tri *t = &tris[i];
        const int cx_first = first_congruent(t->cx0, gx, side);
        if (cx_first > t->cx1)
            continue;
        for (int cy = first_congruent(t->cy0, gy, side); cy <= t->cy1; cy += side) {
            for (int cx = cx_first; cx <= t->cx1; cx += side) {
                const int c = cy * g->w + cx;
                for (uint32_t j = cell_start[c]; j < cell_end[c]; j++) {
                    const izb_point p = points[j];
                    if (izb_tri_occludes(t, p.x, p.y, p.z) && !own_hit(own, (uint32_t)i, p.pixel, mask))
                        mask[p.pixel] = 0;
                }
            }
        }
    }
}

static void raster_kernel2(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                           const uint32_t *cell_end, const izb_grid *g, const izb_own *own, uint8_t *mask,
                           int threads)
{
    int side = 2;
    while (side * side < 2 * threads)
        side++;
    const int groups = side * side;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int grp = 0; grp < groups; grp++) {
        const int gx = grp % side, gy = grp / side;
        if (gx < g->w && gy < g->h)
            k2_group(tris, nt, gx, gy, side, points, cell_start, cell_end, g, own, mask);
    }
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
    const izb_own none = {NULL, NULL, NULL, 0};
    own = own && own->pixel_id ? own : &none;
    threads = izb_cpu_threads(threads);
    if (nt <= 0 || g->w <= 0 || g->h <= 0)
        return;
    if (kernel == IZB_KERNEL2)
        raster_kernel2(tris, nt, points, cell_start, cell_end, g, own, mask, threads);
    else
        raster_kernel1(tris, nt, points, cell_start, cell_end, g, own, mask, threads);
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
