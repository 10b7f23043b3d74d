/* izb_cpu_stages.h — private to the CPU backend (cpu/): the reference stages of
 * izb_ref.h with the thread count and scratch buffers passed in, so the CPU backend allocates
 * nothing per frame. The public izb_ref_* functions are these with all threads and scratch they
 * allocate themselves. Results never depend on `threads`.
 */
#ifndef IZB_CPU_STAGES_H
#define IZB_CPU_STAGES_H

#include <stddef.h>
#include <stdint.h>

#include "izb_ref.h"

/* Upper bound on worker threads (chunk counters live on the stack). */
#define IZB_CPU_MAX_THREADS 256

#include "izb_parallel.h" /* THREAD_NUM(), NUM_THREADS(), izb_threads_resolve */

/* threads <= 0: all (omp_get_max_threads()); clamped to [1, IZB_CPU_MAX_THREADS]. */
static inline int izb_cpu_threads(int threads)
{
    threads = izb_threads_resolve(threads);
    return threads > IZB_CPU_MAX_THREADS ? IZB_CPU_MAX_THREADS : threads;
}

/* [lo, hi) of chunk t of nt over n items: contiguous, in order, sizes differing by at most one. */
static inline void izb_cpu_chunk(int64_t n, int t, int nt, int64_t *lo, int64_t *hi)
{
    *lo = n * t / nt;
    *hi = n * (t + 1) / nt;
}

/* ---- stages 2 and 4: the binned points and the hot loops' instruction sets ------------------ */

/* Instruction sets the hot loops of binning and the raster are compiled for (cpu/isa.c); every
 * one gives the same bits. AUTO: the best this CPU runs (capped by the environment variable
 * IZB_CPU_ISA = base | avx2 | avx512, for measuring one against another). */
typedef enum izb_cpu_isa {
    IZB_CPU_ISA_AUTO = 0,
    IZB_CPU_ISA_BASE,   /* the build's baseline (x86-64: SSE2, fmaf from libm) */
    IZB_CPU_ISA_AVX2,   /* x86-64-v3: AVX2 + FMA, 8 lanes */
    IZB_CPU_ISA_AVX512, /* x86-64-v4: AVX-512 F/BW/DQ/VL, 16 lanes */
    IZB_CPU_ISA_COUNT
} izb_cpu_isa;

/* "auto", "base", "avx2", "avx512" */
const char *izb_cpu_isa_name(izb_cpu_isa isa);
/* Does this CPU and build run isa? (AUTO: always) */
bool izb_cpu_isa_available(izb_cpu_isa isa);
/* What AUTO runs here. */
izb_cpu_isa izb_cpu_isa_best(void);

/* Readable entries after the last point of each izb_cpu_points array: the raster reads whole
 * blocks of 16 points and masks off the lanes past a cell row. */
#define IZB_CPU_POINTS_PAD 16

/* Binned points as a structure of arrays (stage 2 writes, stage 4 reads): point i is (x[i], y[i],
 * z[i]) with pixel index pixel[i]. Each array holds cap + IZB_CPU_POINTS_PAD entries, 64-byte
 * aligned, zeroed when allocated. One allocation, owned by x; all NULL / 0 when empty. */
typedef struct izb_cpu_points {
    float *x, *y, *z;
    uint32_t *pixel;
    size_t cap;
} izb_cpu_points;

/* Make p hold at least n points (keeps p when it does, else reallocates: contents lost). False,
 * with a message naming `what`, when out of memory (p is then empty). */
bool izb_cpu_points_reserve(izb_cpu_points *p, size_t n, const char *what);
void izb_cpu_points_free(izb_cpu_points *p);
/* out[i] = point i of p, i in [0, n) (izb_get_debug's layout). */
void izb_cpu_points_to_aos(const izb_cpu_points *p, int n, izb_point *out);
/* Point i of p = in[i], i in [0, n); p holds n. */
void izb_cpu_points_from_aos(const izb_point *in, int n, izb_cpu_points *p);

/* Points in runs, taken in order: run r is at[r][0 .. len[r]), r < count <= IZB_CPU_MAX_THREADS.
 * Reconstruction leaves one run per chunk of rows (izb_cpu_reconstruct_runs) and binning reads them
 * where they are (izb_cpu_bin_runs): moving them together was a serial copy of ~7 MB at 1080p. */
typedef struct izb_cpu_runs {
    int count;
    const izb_point *at[IZB_CPU_MAX_THREADS];
    int64_t len[IZB_CPU_MAX_THREADS];
} izb_cpu_runs;

/* izb_ref_reconstruct on `threads` threads. */
int izb_cpu_reconstruct(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                        izb_bbox *bbox, int threads);
/* izb_cpu_reconstruct with the copy for isa, leaving the points in runs (one per chunk of rows,
 * in row order, each at its first pixel's place in points; the chunks do not depend on which thread
 * took them): the same points in the same order, without moving them together. -1 when isa does
 * not run here (nothing written). */
int izb_cpu_reconstruct_runs(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                             izb_bbox *bbox, izb_cpu_runs *runs, int threads, izb_cpu_isa isa);

/* Scratch words izb_cpu_bin needs for n points, grid g and `threads` threads. */
size_t izb_cpu_bin_scratch(int n, const izb_grid *g, int threads);
/* izb_ref_bin with scratch (capacity izb_cpu_bin_scratch(n, g, threads) words). */
void izb_cpu_bin(const izb_point *in, int n, const izb_grid *g, izb_point *out, uint32_t *cell_start,
                 uint32_t *cell_end, int threads, uint32_t *scratch);
/* izb_cpu_bin writing the structure of arrays out (capacity >= n; same order, same cells), with
 * the cell hash computed by the copy for isa; the same scratch (it stages the sorted points there).
 * False when isa does not run here. */
bool izb_cpu_bin_soa(const izb_point *in, int n, const izb_grid *g, izb_cpu_points *out, uint32_t *cell_start,
                     uint32_t *cell_end, int threads, uint32_t *scratch, izb_cpu_isa isa);

/* izb_cpu_bin_soa of the runs' points (in order; their total fits an int). */
bool izb_cpu_bin_runs(const izb_cpu_runs *in, const izb_grid *g, izb_cpu_points *out, uint32_t *cell_start,
                      uint32_t *cell_end, int threads, uint32_t *scratch, izb_cpu_isa isa);

/* izb_ref_cull with a thread count, and back faces dropped where izb_may_cull(cull, i) says so. */
int izb_cpu_cull(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                 const izb_cull_view *cull, izb_tri *out, int threads);
/* izb_cpu_cull writing each survivor's scene index to tri_id (capacity n) unless it is NULL. */
int izb_cpu_cull_ids(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                     const izb_cull_view *cull, izb_tri *out, uint32_t *tri_id, int threads);
/* izb_cpu_cull_ids with the pre-test's copy for isa (the same survivors from every copy); -1 when
 * isa does not run here. */
int izb_cpu_cull_isa(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                     const izb_cull_view *cull, izb_tri *out, uint32_t *tri_id, int threads, izb_cpu_isa isa);

/* izb_cpu_cull_isa skipping every bundle of 16 triangles (from each thread's chunk start) where no
 * triangle has `bit` in reach[] (one byte per triangle; NULL: none skipped): a point light's face
 * (cpu/faces.c) with the triangles that cannot reach its points marked. The survivors are those of
 * izb_cpu_cull_isa among the bundles kept. */
int izb_cpu_cull_reach(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                       const izb_cull_view *cull, izb_tri *out, uint32_t *tri_id, int threads, izb_cpu_isa isa,
                       const uint8_t *reach, uint8_t bit);

/* izb_ref_raster on `threads` threads. Kernel2 interleaves the cells over a G x G pattern of
 * groups (thesis §5.2.1, the smallest G >= 2 with G * G >= 2 * threads): cell (cx, cy) belongs to
 * group (cy % G) * G + cx % G, and one thread at a time owns a group. */
void izb_cpu_raster(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                    const uint32_t *cell_end, const izb_grid *g, izb_kernel kernel, uint8_t *mask,
                    int threads);
/* izb_ref_raster_own on `threads` threads. */
void izb_cpu_raster_own(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                        const uint32_t *cell_end, const izb_grid *g, izb_kernel kernel, const izb_own *own,
                        uint8_t *mask, int threads);
/* Scratch words (uint64_t) izb_cpu_raster_soa needs for n points on `threads` threads: one hit
 * bitmap and one set of cell flags (cut-out frames) per thread, plus the slack to start them on a
 * cache line. */
size_t izb_cpu_raster_scratch(int n, int threads);
/* izb_cpu_raster_own on the n structure-of-arrays points (the cell ranges lie in [0, n)), with the
 * copy of the hot loop for isa and scratch (capacity izb_cpu_raster_scratch(n, threads) words).
 * own NULL or own->pixel_id NULL: no ids. False when isa does not run here (mask untouched). */
bool izb_cpu_raster_soa(const izb_tri *tris, int nt, const izb_cpu_points *points, int n,
                        const uint32_t *cell_start, const uint32_t *cell_end, const izb_grid *g,
                        izb_kernel kernel, const izb_own *own, uint8_t *mask, int threads, uint64_t *scratch,
                        izb_cpu_isa isa);
/* izb_cpu_raster_soa with cut-outs (izb_cut; NULL: izb_cpu_raster_soa exactly): a hit of a
 * survivor whose texture is not IZB_OPAQUE counts only where izb_alpha_tri_keeps says so. */
bool izb_cpu_raster_cut(const izb_tri *tris, int nt, const izb_cpu_points *points, int n,
                        const uint32_t *cell_start, const uint32_t *cell_end, const izb_grid *g,
                        izb_kernel kernel, const izb_own *own, const izb_cut *cut, uint8_t *mask, int threads,
                        uint64_t *scratch, izb_cpu_isa isa);

/* ---- soft shadows (izb_soft.h; cpu/raster_soft.c) ------------------------------------------ */

#include "izb_soft.h"
#include "izb_area.h"

/* The largest key of points [0, n) (izb_maxf: NaN ignored; -INFINITY when none): the farthest
 * receiver, which bounds every triangle's penumbra. */
float izb_cpu_points_zmax(const izb_cpu_points *p, int n, int threads);

/* Stage 3 for a soft frame: the n scene triangles transformed by f->light and set up with
 * izb_soft_tri_setup (points' keys <= zmax, bbox pb, samples L; triangle i culled when it faces
 * away from every sample and izb_may_cull(cull, i)); the survivors, in scene order, go to
 * out[0 ..), their scene indices to tri_id (capacities n). Returns the survivors' count. */
int izb_cpu_soft_setup(const float *xyz, int n, const izb_recon *f, const izb_soft_light *L, float zmax,
                       const izb_bbox *pb, const izb_cull_view *cull, izb_soft_tri *out, uint32_t *tri_id,
                       int threads);

/* What a soft frame's raster did: point tests a global bound (the frame's farthest receiver) would
 * visit, the tests the per-cell bounds visited, and the pairs set up past the per-point box and
 * the plane-side test (the ones that run the samples). */
typedef struct izb_cpu_soft_counts {
    uint64_t global, visited, pairs;
} izb_cpu_soft_counts;

/* Stage 4 for a soft frame: every survivor against the points of the cells its penumbra box reaches
 * (izb_soft_tri_cells: the range for the frame's farthest receiver zmax, and in it the cells its
 * box for the cell's own farthest point reaches; cell_zmax: scratch of g->w * g->h, filled here).
 * kernel1: triangles in parallel, atomic ORs; kernel2: interleaved cell groups, one thread per
 * group. The hidden samples are OR-ed into masks (n points x izb_mask_words(L->m) words, cleared
 * here), then mask[pixel] = izb_mask_value for every point. own as izb_cpu_raster_own's (NULL: no
 * ids). cut (NULL: none) as izb_cpu_raster_cut's, but indexed by scene id (tri_id unread): a cut-out
 * triangle hides a sample only where its alpha test keeps the sample ray's own hit point
 * (izb_soft_sample_keeps). *counts (may be NULL): what it visited, for measuring the penumbra
 * boxes. False when isa does not run here. */
bool izb_cpu_soft_raster(const izb_soft_tri *tris, const uint32_t *tri_id, int nt, const izb_soft_light *L,
                         const izb_cpu_points *p, int n, const uint32_t *cell_start, const uint32_t *cell_end,
                         const izb_grid *g, float zmax, float *cell_zmax, izb_kernel kernel, const izb_own *own,
                         const izb_cut *cut, uint32_t *masks, uint8_t *mask, int threads, izb_cpu_isa isa,
                         izb_cpu_soft_counts *counts);

/* An area light's frame (izb_area.h): the soft set-up and raster above with izb_area_tri_setup and
 * izb_area_pair_setup in place of the directional ones; L from izb_area_light_make, cull with the
 * light's origin and reach (izb_area_reach). Same contracts otherwise. */
int izb_cpu_area_setup(const float *xyz, int n, const izb_recon *f, const izb_soft_light *L, float zmax,
                       const izb_bbox *pb, const izb_cull_view *cull, izb_soft_tri *out, uint32_t *tri_id,
                       int threads);
bool izb_cpu_area_raster(const izb_soft_tri *tris, const uint32_t *tri_id, int nt, const izb_soft_light *L,
                         const izb_cpu_points *p, int n, const uint32_t *cell_start, const uint32_t *cell_end,
                         const izb_grid *g, float zmax, float *cell_zmax, izb_kernel kernel, const izb_own *own,
                         const izb_cut *cut, uint32_t *masks, uint8_t *mask, int threads, izb_cpu_isa isa,
                         izb_cpu_soft_counts *counts);

/* ---- anti-aliased edges (izb_aa.h; cpu/raster_aa.c) ---------------------------------------- */

#include "izb_aa.h"

#include <math.h>

/* The binned points' footprints (izb_aa_foot) by field, one array each (point j's a[i] is a[i][j]):
 * the raster's kernels load 16 points' fields as vectors (an array of izb_aa_foot made every load a
 * gather). Each holds n + IZB_CPU_POINTS_PAD floats. */
typedef struct izb_cpu_aa_feet {
    float *a[3], *b[3], *ex, *ey;
    float *aw, *bw, *ez; /* a spot light's (izb_aa_foot); zero for a directional light */
} izb_cpu_aa_feet;

/* The feet of n points in one buffer of IZB_CPU_AA_FEET_FLOATS(n) floats */
#define IZB_CPU_AA_FEET_FLOATS(n) (11 * ((size_t)(n) + IZB_CPU_POINTS_PAD))
static inline izb_cpu_aa_feet izb_cpu_aa_feet_in(float *buf, int n)
{
    const size_t s = (size_t)n + IZB_CPU_POINTS_PAD;
    return (izb_cpu_aa_feet){{buf, buf + s, buf + 2 * s}, {buf + 3 * s, buf + 4 * s, buf + 5 * s}, buf + 6 * s,
                             buf + 7 * s, buf + 8 * s, buf + 9 * s, buf + 10 * s};
}

/* Entry e of D = entry j of F, every field (binning_aa.c's copies: one place that names them all,
 * so a field added to izb_cpu_aa_feet cannot be left behind there); F NULL: zeros (the pad). */
static inline void izb_cpu_aa_feet_copy(const izb_cpu_aa_feet *D, size_t e, const izb_cpu_aa_feet *F, size_t j)
{
    for (int i = 0; i < 3; i++)
        D->a[i][e] = F ? F->a[i][j] : 0.0f, D->b[i][e] = F ? F->b[i][j] : 0.0f;
    D->ex[e] = F ? F->ex[j] : 0.0f, D->ey[e] = F ? F->ey[j] : 0.0f;
    D->aw[e] = F ? F->aw[j] : 0.0f, D->bw[e] = F ? F->bw[j] : 0.0f, D->ez[e] = F ? F->ez[j] : 0.0f;
}

/* Point j's footprint */
static inline __attribute__((always_inline)) izb_aa_foot izb_cpu_aa_foot_at(const izb_cpu_aa_feet *F, size_t j)
{
    return (izb_aa_foot){{F->a[0][j], F->a[1][j], F->a[2][j]}, {F->b[0][j], F->b[1][j], F->b[2][j]}, F->ex[j],
                         F->ey[j], F->aw[j], F->bw[j], F->ez[j], 0.0f};
}

/* The footprint of each binned point j < n (izb_aa_footprint, from the depth image of frame f, the
 * point's pixel p->pixel[j]; with ids, where ids[pixel] < tri_count, on the plane of that triangle of
 * xyz) into F's entry j (the pad zeroed). *ex_max, *ey_max: the largest extents (0 when n is 0). */
void izb_cpu_aa_footprints(const izb_recon *f, const float *depth, const uint32_t *ids, const float *xyz,
                           uint32_t tri_count, const izb_cpu_points *p, int n, const izb_cpu_aa_feet *F,
                           float *ex_max, float *ey_max, int threads);

/* What an anti-aliased frame's raster did: point tests in the non-empty cells of the triangles'
 * ranges, those in cells whose reach box passed (izb_cpu_aa_cell_boxes), and the (point, triangle)
 * pairs whose sub-samples ran. */
typedef struct izb_cpu_aa_counts {
    uint64_t global, visited, pairs;
} izb_cpu_aa_counts;

/* The binned points with wide footprints copied into every cell their footprint's box touches
 * (cpu/binning_aa.c): the anti-aliased raster's other traversal, where a triangle meets them over
 * its own bbox's cells and the other points over its bbox grown by the threshold. Cell c
 * holds copies [start[c], end[c]) of `entries`, copy e being binned point orig[e] (p, F: its
 * position, pixel and footprint; masks: its own word during the raster) on the frame's grid; box:
 * 4 per cell, the cells' reach boxes (izb_cpu_aa_cell_boxes). The buffers persist between frames;
 * zero-initialise, free with izb_cpu_aa_dup_free. */
typedef struct izb_cpu_aa_dup {
    izb_cpu_points p;
    izb_cpu_aa_feet F;
    float *foot, *box;
    uint32_t *orig, *masks, *start, *end, *hist;
    size_t foot_cap, orig_cap, mask_cap, start_cap, end_cap, box_cap, hist_cap; /* (elements) */
    size_t entries;
} izb_cpu_aa_dup;

/* How far point (x, y) with footprint extent ex reaches in x (y: the same with y, ey): ex widened
 * by ~1e-5 of the magnitudes, against the rounding of izb_aa_near's t->x0 - ex (~6e-8 of them), so
 * a triangle near the point meets [x - reach, x + reach] in float too (cpu/binning_aa.c). */
static inline float izb_cpu_aa_reach(float x, float ex)
{
    return ex + fmaf(1e-5f, fabsf(x) + ex, 1e-30f);
}

/* The reach box of each cell c < cells (inside a parallel region: an omp for): box[4c..4c+3] = x0,
 * y0, x1, y1, the union of the boxes [x - reach, x + reach] x [y - reach_y, y + reach_y] of points
 * [start[c], end[c]) of p, F (NaN ignored; empty: an inverted box). It holds their sub-samples. */
void izb_cpu_aa_cell_boxes(const izb_cpu_points *p, const izb_cpu_aa_feet *F, const uint32_t *start,
                           const uint32_t *end, int64_t cells, float tx, float ty, float *box);

/* Fill d with the n binned points p whose footprints F are wider than tx or ty, each copied into
 * every cell of grid g its reach box touches: 1 done; 0 when the copies would exceed max_entries
 * (d->entries is then 0: take the dilated traversal); -1 out of memory (said). */
int izb_cpu_aa_dup_bin(const izb_cpu_points *p, const izb_cpu_aa_feet *F, int n, const izb_grid *g, float tx,
                       float ty, size_t max_entries, izb_cpu_aa_dup *d, int threads);
void izb_cpu_aa_dup_free(izb_cpu_aa_dup *d);
size_t izb_cpu_aa_dup_bytes(const izb_cpu_aa_dup *d);

/* Stage 4 for an anti-aliased frame: every set-up triangle against the points of the cells its
 * bbox grown by the frame's largest extent (ex, ey) covers, skipping the cells whose reach box
 * misses it (cell_box: scratch of 4 g->w g->h, filled here, izb_cpu_aa_cell_boxes). kernel1: triangles in
 * parallel, atomic ORs; kernel2: interleaved cell groups. The hidden sub-samples are OR-ed into
 * masks (one word per point, cleared here), then mask[pixel] = izb_mask_value for every point. own
 * as izb_cpu_raster_own's (NULL: no ids); tri_id: the triangles' scene indices. cut: cut-outs
 * (NULL: every triangle opaque; its tri_id is not read, tri_id above names the scene triangle): a
 * cut-out hides a sub-sample only where izb_aa_sample_keeps keeps it. dup (NULL: the dilated
 * traversal always): the footprint binning's buffers, used with IZB_CPU_AA_TRAVERSAL=copies
 * (raster_aa.c). *counts may be NULL. False when isa does not run here. */
bool izb_cpu_aa_raster(const izb_tri *tris, const uint32_t *tri_id, int nt, const izb_aa_samples *S,
                       const izb_cpu_points *p, const izb_cpu_aa_feet *F, int n, const uint32_t *cell_start,
                       const uint32_t *cell_end, const izb_grid *g, float ex, float ey, float *cell_box,
                       izb_kernel kernel, const izb_own *own, const izb_cut *cut, uint32_t *masks, uint8_t *mask,
                       int threads, izb_cpu_isa isa, izb_cpu_aa_dup *dup, izb_cpu_aa_counts *counts);

#endif
