/* cull.c — stage 3 of the CPU backend: triangle culling + compaction (thesis §4.3–4.4), the mirror
 * of cuda/cull.cu. Every per-triangle formula comes from izb_math.h (izb_tri_setup); bundles of 16
 * triangles run in the per-ISA copies of kernels_cull.h. Triangles are split into contiguous chunks
 * per thread and the survivors written at positions fixed by a prefix sum over the chunks, so the
 * result never depends on the thread count.
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

/* Transform triangle i to light clip space and set it up; false when culled. */
static inline bool setup_tri(const float *xyz, int64_t i, const izb_recon *f, const izb_grid *g,
                             const izb_bbox *bbox, bool cull_back, izb_tri *out)
{
    float v[3][4];
    for (int k = 0; k < 3; k++)
        izb_transform(f->light, xyz + 9 * i + 3 * k, v[k]);
    return izb_tri_setup(v, g, bbox, cull_back, out);
}

/* Up to 16 set-up triangles in lanes (the bundle kernel's layout): lane k's izb_tri is
 * e[q][r] = te[3 * q + r][k], z[r] = te[9 + r][k], (x0, y0, x1, y1) = te[12 .. 15][k]. 1 KB. */
typedef struct cull_lanes {
    float te[16][16];
} __attribute__((aligned(64))) cull_lanes;

static inline void lane_put(cull_lanes *l, int k, const izb_tri *t)
{
    for (int q = 0; q < 3; q++)
        for (int r = 0; r < 3; r++)
            l->te[3 * q + r][k] = t->e[q][r];
    for (int r = 0; r < 3; r++)
        l->te[9 + r][k] = t->z[r];
    l->te[12][k] = t->x0, l->te[13][k] = t->y0, l->te[14][k] = t->x1, l->te[15][k] = t->y1;
}

/* bit k: izb_may_cull(cull, i + k), k < 16. Its value depends on the triangle only through its
 * component, and neighbours mostly share one, so a lane with its predecessor's component takes its
 * bit (the spot light's test per component is the costly part). */
static uint32_t cull_mask(const izb_cull_view *cull, int64_t i)
{
    if (cull->mode != IZB_CULL_AUTO || !cull->comp)
        return izb_may_cull(cull, (uint32_t)i) ? 0xffffu : 0u;
    uint32_t mask = 0, bit = 0, comp = 0;
    for (int k = 0; k < 16; k++) {
        const uint32_t ck = cull->comp[i + k];
        if (k == 0 || ck != comp)
            bit = izb_may_cull(cull, (uint32_t)(i + k)), comp = ck;
        mask |= bit << k;
    }
    return mask;
}

/* Triangles [i, i + len), len <= 16, culled and set up into lanes l; returns the survivors as bits
 * (bit k: triangle i + k). A whole bundle goes through the copy kern of the vectorised culling
 * (kernels.h: izb_tri_setup's own pieces for every lane, no branch on the outcome, which
 * mispredicts about half the time on closed meshes); it drops the back faces izb_may_cull allows
 * (cull_mask, computed here: AUTO needs the component lookup), and the rare triangles that cross
 * the light's w = 0 plane take the scalar izb_tri_setup in their lane, with cull_back false
 * because may_cull has been applied. A shorter tail takes the scalar set-up in every lane. Same
 * survivors either way: izb_tri_setup's verdict is a pure function of the triangle, whichever test
 * rejects it first. */
HOT static uint32_t cull_bundle_keep(const float *xyz, int64_t i, int len, const izb_recon *f,
                                     const izb_grid *g, const izb_bbox *bbox, const izb_cull_view *cull,
                                     const izb_cpu_kernels *kern, cull_lanes *l)
{
    uint32_t keep = 0;
    if (len < 16) {
        for (int k = 0; k < len; k++) {
            izb_tri t;
            if (setup_tri(xyz, i + k, f, g, bbox, izb_may_cull(cull, (uint32_t)(i + k)), &t)) {
                lane_put(l, k, &t);
                keep |= 1u << k;
            }
        }
        return keep;
    }
    uint32_t front, cross;
    kern->cull_bundle(xyz, i, f->light, bbox, cull_mask(cull, i), &front, &cross, l->te);
    keep = front;
    for (; cross; cross &= cross - 1) {
        const int k = __builtin_ctz(cross);
        izb_tri t;
        if (setup_tri(xyz, i + k, f, g, bbox, false, &t)) {
            lane_put(l, k, &t);
            keep |= 1u << k;
        }
    }
    return keep;
}

/* The survivors of triangles [i0, i1), set up, from out[0]; returns how many. One thread. */
static uint32_t cull_range(const float *xyz, int64_t i0, int64_t i1, const izb_recon *f, const izb_grid *g,
                           const izb_bbox *bbox, const izb_cull_view *cull, izb_tri *out, uint32_t *tri_id,
                           const izb_cpu_kernels *kern, const uint8_t *reach, uint8_t bit)
{
    uint32_t c = 0;
    cull_lanes l;
    for (int64_t i = i0; i < i1; i += 16) {
        const int len = i1 - i < 16 ? (int)(i1 - i) : 16;
        if (reach) { /* a bundle none of whose triangles can reach the face's points is skipped */
            uint8_t any = 0;
            for (int k = 0; k < len; k++)
                any |= reach[i + k];
            if (!(any & bit)) continue;
        }
        const uint32_t keep = cull_bundle_keep(xyz, i, len, f, g, bbox, cull, kern, &l);
        kern->cull_emit(l.te, keep, i, out + c, tri_id ? tri_id + c : NULL);
        c += (uint32_t)__builtin_popcount(keep);
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

/* Chunk c's survivors, set up at out[start] (and tri_id), moved to out[off]: by all threads, a
 * piece each, where the two ranges are apart (the survivors are at most half the chunk's
 * triangles, the usual case with back faces culled), else by one thread (memmove). */
static void cull_move(izb_tri *out, uint32_t *tri_id, int64_t start, int64_t off, int64_t count, int t, int nt)
{
    if (start == off || count == 0)
        return;
    if (start - off >= count) {
        int64_t a, z;
        izb_cpu_chunk(count, t, nt, &a, &z);
        memcpy(out + off + a, out + start + a, (size_t)(z - a) * sizeof *out);
        if (tri_id) memcpy(tri_id + off + a, tri_id + start + a, (size_t)(z - a) * sizeof *tri_id);
    } else if (t == 0) {
        memmove(out + off, out + start, (size_t)count * sizeof *out);
        if (tri_id) memmove(tri_id + off, tri_id + start, (size_t)count * sizeof *tri_id);
    }
}

int izb_cpu_cull_isa(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                     const izb_cull_view *cull, izb_tri *out, uint32_t *tri_id, int threads, izb_cpu_isa isa)
{
    return izb_cpu_cull_reach(xyz, n, f, g, bbox, cull, out, tri_id, threads, isa, NULL, 0);
}

int izb_cpu_cull_reach(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                       const izb_cull_view *cull, izb_tri *out, uint32_t *tri_id, int threads, izb_cpu_isa isa,
                       const uint8_t *reach, uint8_t bit)
{
    uint32_t count[IZB_CPU_MAX_THREADS];
    int64_t total = 0;
    const izb_cpu_kernels *kern = izb_cpu_kernels_get(isa);
    if (!kern)
        return -1;
    threads = izb_cpu_threads(threads);
    if (n <= 0)
        return 0;

    /* The GPU needs flags -> scan -> scatter to compact in parallel. Here each chunk writes its
     * survivors where its first triangle is (out holds n), then the chunks close the gaps in
     * order, each chunk's move shared by the threads — the same compacted, input-ordered result
     * with one setup per triangle. (A single pass with a decoupled look-back, which writes every
     * survivor once, was tried: each block then waits for the counts of the blocks before it, and
     * on a machine with more threads than free cores those waits cost more than the moves.) */
#pragma omp parallel num_threads(threads)
    {
        const int t = THREAD_NUM(), nt = NUM_THREADS();
        int64_t i0, i1;
        izb_cpu_chunk(n, t, nt, &i0, &i1);
        count[t] = cull_range(xyz, i0, i1, f, g, bbox, cull, out + i0, tri_id ? tri_id + i0 : NULL, kern, reach, bit);
#pragma omp barrier
        int64_t off = count[0];
        for (int c = 1; c < nt; c++) {
            int64_t start, end;
            izb_cpu_chunk(n, c, nt, &start, &end);
            cull_move(out, tri_id, start, off, count[c], t, nt);
            off += count[c];
#pragma omp barrier
        }
        if (t == 0)
            total = off;
    }
    return (int)total;
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
