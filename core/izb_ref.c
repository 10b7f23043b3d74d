/* izb_ref.c — the CPU reference of the four IZB stages (izb_ref.h): reconstruction + bbox
 * reduction and culling + compaction here; binning in izb_cpu_bin.c, the two irregular rasterisers
 * in izb_cpu_raster.c.
 * Every per-element formula comes from izb_math.h; this file only owns the traversal and the
 * parallel bookkeeping (OpenMP). Work is split into contiguous chunks per thread and every
 * result is either order-independent (min/max, mask zeros) or written to a position fixed by a
 * prefix sum, so nothing depends on the thread count.
 */
#include "izb_cpu_isa.h"
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

#define RECON_CHUNKS_PER_THREAD 8

int izb_cpu_reconstruct_runs(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                             izb_bbox *bbox, izb_cpu_runs *runs, int threads, izb_cpu_isa isa)
{
    const izb_cpu_kernels *kern = izb_cpu_kernels_get(isa);
    if (!kern) return -1;
    izb_bbox box[IZB_CPU_MAX_THREADS]; /* per chunk */
    threads = izb_cpu_threads(threads);
    /* Chunks of rows, several per thread and taken as threads come free: sky rows cost less than
     * rows of geometry, so equal shares leave a thread waiting. */
    int64_t chunks = (int64_t)RECON_CHUNKS_PER_THREAD * threads;
    chunks = chunks < IZB_CPU_MAX_THREADS ? chunks : IZB_CPU_MAX_THREADS;
    chunks = chunks < f->height ? chunks : f->height;

    /* One pass: each chunk of rows writes its points where its first pixel is (the buffer holds
     * width*height points, so chunks cannot collide); they stay there, one run per chunk. */
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int64_t r = 0; r < chunks; r++) {
        int64_t y0, y1;
        izb_cpu_chunk(f->height, (int)r, (int)chunks, &y0, &y1);
        izb_point *at = points + (size_t)y0 * (size_t)f->width;
        runs->at[r] = at;
        runs->len[r] = kern->recon_rows(f, depth, (int)y0, (int)y1, mask, at, &box[r]);
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

/* ---- stage 2: binning — core/izb_cpu_bin.c ------------------------------------------------- */

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
 * NULL): each survivor's index i, from tri_id[0]. Bundles of 16 go through the copy kern of the
 * vectorised culling (izb_cpu_kernels.h: izb_tri_setup's own pieces for every lane, no branch on
 * the outcome, which mispredicts about half the time on closed meshes); its survivors are copied
 * out in input order, and the rare triangles that cross the light's w = 0 plane take the scalar
 * izb_tri_setup in their place. The tail of fewer than 16 takes the plain loop. Same survivors
 * either way: izb_tri_setup's verdict is a pure function of the triangle, whichever test rejects
 * it first. */
HOT static uint32_t cull_range(const float *xyz, int64_t i0, int64_t i1, const izb_recon *f,
                               const izb_grid *g, const izb_bbox *bbox, const izb_cull_view *cull,
                               izb_tri *out, uint32_t *tri_id, const izb_cpu_kernels *kern)
{
    uint32_t c = 0;
    int64_t i = i0;
    float te[12][16] __attribute__((aligned(64)));
    int32_t tc[4][16] __attribute__((aligned(64)));
    for (; i + 16 <= i1; i += 16) {
        uint32_t front, cross, back;
        kern->cull_bundle(xyz, i, f->light, bbox, g, &front, &cross, &back, te, tc);
        for (uint32_t live = front | cross; live; live &= live - 1) {
            const int k = __builtin_ctz(live);
            const int64_t j = i + k;
            if ((back >> k & 1) && izb_may_cull(cull, (uint32_t)j))
                continue; /* a back face izb_tri_setup would reject */
            if (tri_id) tri_id[c] = (uint32_t)j;
            if (front >> k & 1) {
                izb_tri *t = &out[c++];
                for (int q = 0; q < 3; q++)
                    for (int r = 0; r < 3; r++)
                        t->e[q][r] = te[3 * q + r][k];
                for (int r = 0; r < 3; r++)
                    t->z[r] = te[9 + r][k];
                t->cx0 = tc[0][k], t->cy0 = tc[1][k], t->cx1 = tc[2][k], t->cy1 = tc[3][k];
            } else { /* crossing w = 0; cull_back false: a back face here is one izb_may_cull keeps */
                float v[3][4];
                for (int q = 0; q < 3; q++)
                    izb_transform(f->light, xyz + 9 * j + 3 * q, v[q]);
                c += izb_tri_setup(v, g, bbox, false, &out[c]);
            }
        }
    }
    for (; i < i1; i++) {
        if (tri_id) tri_id[c] = (uint32_t)i; /* overwritten by the next survivor when culled */
        c += setup_tri(xyz, i, f, g, bbox, cull, &out[c]);
    }
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
    return izb_cpu_cull_isa(xyz, n, f, g, bbox, cull, out, tri_id, threads, IZB_CPU_ISA_AUTO);
}

int izb_cpu_cull_isa(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                     const izb_cull_view *cull, izb_tri *out, uint32_t *tri_id, int threads, izb_cpu_isa isa)
{
    uint32_t count[IZB_CPU_MAX_THREADS];
    int64_t start[IZB_CPU_MAX_THREADS];
    int teams = 1;
    const izb_cpu_kernels *kern = izb_cpu_kernels_get(isa);
    if (!kern)
        return -1;
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
        izb_cpu_chunk(n, t, nt, &i0, &i1);
        if (t == 0)
            teams = nt;
        start[t] = i0;
        count[t] = cull_range(xyz, i0, i1, f, g, bbox, cull, out + i0, tri_id ? tri_id + i0 : NULL, kern);
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

/* ---- stage 4: irregular rasterisation — core/izb_cpu_raster.c -------------------------------- */
