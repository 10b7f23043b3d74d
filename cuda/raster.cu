/* raster.cu — the irregular rasterisers of thesis §5 and the shadow-flag resolve.
 *
 * kernel1 (§5.1): one unit of UNIT threads per triangle; it loops over the cell rows cy0..cy1 of the
 * triangle's bbox (izb_tri_cells), and each row's cells cx0..cx1 are contiguous in binned order, so
 * the whole row is one point range [cell_start[row + cx0], cell_end[row + cx1]) spread over the
 * unit's lanes (§5.1.1).
 *
 * kernel2 (§5.2): unit (x, y) of an ux x uy layout owns the cells with cx % ux == x and
 * cy % uy == y (interleaved, §5.2.1) and loops over all triangles. A block stages the cell ranges
 * of 2^K2_TILE_LOG2 triangles (from their bboxes) in shared memory; each warp tests 32 of them at once against its
 * unit's cells (O(1): the first owned column/row inside the range) and walks only the hits.
 *
 * Both store shadow[j] = 1 for an occluded point j (binned order): several units may store to the
 * same flag for different triangles, with no synchronisation. That is a benign race: every store
 * writes the same value, a byte store never touches its neighbours, and nothing reads the flags
 * before the kernel ends. The resolve pass then writes mask[pixel] = 0 once per shadowed point.
 *
 * With primitive ids a hit by the point's own triangle, or one in its plane, is ignored
 * (izb_hit_is_own); a point already flagged skips that test (a racy read of the flag: a stale 0
 * only costs the test, whose answer cannot change the flag already set).
 *
 * Cut-outs (raster_cut): a hit of a cut-out survivor counts only where izb_alpha_tri_keeps (the
 * CPU's alpha test, core/izb_alpha.h) keeps the triangle at the point's light-plane position. The
 * decision "is this triangle a cut-out" is taken once per triangle (uniform over its unit) and
 * picks one of two copies of the triangle's walk: opaque triangles run the loop without the test.
 * A launch without cut-outs runs kernels in which the test is not compiled at all (CUTS false).
 */
#include "raster.h"

#include <math.h>

#include "cuda_check.h"
#include "cuda_device.cuh"
#include "cuda_tune.h"

#define RASTER_THREADS (1 << IZB_CUDA_RASTER_THREADS_LOG2)
#define K2_TILE (1 << IZB_CUDA_K2_TILE_LOG2)
#define THREADS (1 << IZB_CUDA_THREADS_LOG2)

/* kernel1 with splitting: `split` units per triangle (1 = the thesis form). Unit
 * (t, k) takes piece k of triangle t's points, taken as one sequence over its rows: a triangle
 * with w points gets min(split, ceil(w / (K1_SPLIT_WORK * UNIT))) pieces of equal length (a
 * multiple of UNIT, so loads stay coalesced), so one covering millions of points is no longer
 * serialised on one unit; a small triangle keeps one piece and the other units exit at once.
 * Piece k is unit index k * ntri + t: the spare units of the later pieces fill whole blocks. */
#define K1_SPLIT_WORK (1 << IZB_CUDA_K1_SPLIT_WORK_LOG2)

/* primitive ids (raster_args) as one kernel parameter */
struct own_args {
    const uint32_t *tri_id, *pixel_id;
    const float *xyz;
    uint32_t scene_n;
};

/* With ids: is the hit of compacted triangle t on binned point j (at `pixel`) to be ignored? */
static __device__ __forceinline__ bool own_hit(const own_args &o, uint32_t t, uint32_t pixel,
                                               const uint8_t *shadow, uint32_t j)
{
    return o.pixel_id && !shadow[j] &&
           izb_hit_is_own(o.xyz, 1, o.scene_n, o.scene_n, o.pixel_id[pixel], o.tri_id[t]);
}

/* (cut_args, cut_tri, cut_of: cuda_device.cuh, shared with raster_aa.cu) */

/* Does triangle t's hit on binned point j (p) shadow it? CUT false: the opaque test, as before
 * cut-outs existed (the same instructions); CUT true: a point already flagged is done (a racy
 * read, as in own_hit: a stale 0 only costs the test), else the alpha test (izb_alpha.h, the CPU's
 * own function: texels read from the pool, no texture unit) must keep t there. The mask is an OR
 * over triangles of occludes AND keeps AND not own, so the order of the tests changes nothing. */
template <bool CUT>
static __device__ __forceinline__ bool hit_counts(const izb_tri &tri, const cut_tri &ct, const uint8_t *pool,
                                                  const own_args &own, uint32_t t, const izb_point &p,
                                                  const uint8_t *shadow, uint32_t j)
{
    if (CUT && (shadow[j] || !izb_alpha_tri_keeps(&tri, p.x, p.y, ct.uv, pool, &ct.tex)))
        return false;
    return !own_hit(own, t, p.pixel, shadow, j);
}

/* kernel1's walk of triangle t's rows, its unit's part [lo, hi) of their point sequence */
template <int UNIT, bool CUT>
static __device__ __forceinline__ void k1_rows(const izb_tri &tri, const cut_tri &ct, const uint8_t *pool,
                                               const float4 *__restrict__ points,
                                               const uint32_t *__restrict__ cell_start,
                                               const uint32_t *__restrict__ cell_end, uint32_t grid_w, int cx0,
                                               int cy0, int cx1, int cy1, uint32_t lo, uint32_t hi, uint32_t lane,
                                               const own_args &own, uint32_t t, uint8_t *__restrict__ shadow)
{
    uint32_t seen = 0; /* points of the rows before cy */
    for (int cy = cy0; cy <= cy1 && seen < hi; cy++) {
        const uint32_t row = (uint32_t)cy * grid_w;
        const uint32_t start = cell_start[row + (uint32_t)cx0], end = cell_end[row + (uint32_t)cx1];
        const uint32_t len = end > start ? end - start : 0u;
        if (seen + len > lo) {
            const uint32_t from = start + (lo > seen ? lo - seen : 0u);
            const uint32_t to = hi - seen < len ? start + (hi - seen) : end;
            for (uint32_t j = from + lane; j < to; j += UNIT) {
                const izb_point p = point_load(points, j);
                if (izb_tri_occludes(&tri, p.x, p.y, p.z) && hit_counts<CUT>(tri, ct, pool, own, t, p, shadow, j))
                    shadow[j] = 1;
            }
        }
        seen += len;
    }
}

/* CUTS: the launch has cut-outs (without, the alpha test is compiled out altogether) */
template <int UNIT, bool CUTS>
__global__ void __launch_bounds__(RASTER_THREADS)
    raster_k1(const float4 *__restrict__ tris, uint32_t tri_capacity, uint32_t ntri,          // in
              const float4 *__restrict__ points,                                              // in
              const uint32_t *__restrict__ cell_start, const uint32_t *__restrict__ cell_end, // in
              const izb_grid grid, uint32_t split,                                            // in
              const own_args own,                                                             // in: ids
              const cut_args cut,                                                             // in: cut-outs
              uint8_t *__restrict__ shadow)                                                   // out
{
    static_assert(UNIT >= 32 && UNIT <= RASTER_THREADS && RASTER_THREADS % UNIT == 0, "unit size");
    constexpr uint32_t UNITS = RASTER_THREADS / UNIT;
    const uint32_t u = blockIdx.x * UNITS + threadIdx.x / UNIT, lane = threadIdx.x % UNIT;
    if (u >= ntri * split) /* tail guard; kernel1 has no barriers */
        return;
    const uint32_t t = u % ntri, piece = u / ntri;
    const izb_tri tri = tri_load(tris, tri_capacity, t);
    const uint32_t grid_w = (uint32_t)grid.w;
    int cx0, cy0, cx1, cy1;
    izb_tri_cells(&tri, &grid, &cx0, &cy0, &cx1, &cy1);
    /* this unit's part [lo, hi) of the triangle's point sequence (all of it in the thesis form) */
    uint32_t lo = 0, hi = UINT32_MAX;
    if (split > 1) {
        uint32_t w = 0;
        for (int cy = cy0; cy <= cy1; cy++) {
            const uint32_t row = (uint32_t)cy * grid_w;
            const uint32_t start = cell_start[row + (uint32_t)cx0], end = cell_end[row + (uint32_t)cx1];
            w += end > start ? end - start : 0u; /* an empty range may have end < start */
        }
        const uint32_t per = (uint32_t)K1_SPLIT_WORK * UNIT;
        const uint32_t pieces = min(split, max(1u, (w + per - 1u) / per));
        if (piece >= pieces)
            return;
        const uint32_t chunk = ((w + pieces - 1u) / pieces + UNIT - 1u) / UNIT * UNIT;
        lo = piece * chunk;
        hi = piece + 1u == pieces ? w : lo + chunk;
    }
    cut_tri ct;
    if (CUTS && cut_of(cut, t, &ct))
        k1_rows<UNIT, true>(tri, ct, cut.pool, points, cell_start, cell_end, grid_w, cx0, cy0, cx1, cy1, lo, hi,
                            lane, own, t, shadow);
    else
        k1_rows<UNIT, false>(tri, ct, cut.pool, points, cell_start, cell_end, grid_w, cx0, cy0, cx1, cy1, lo,
                             hi, lane, own, t, shadow);
}

/* Enough resident blocks per SM for the unit count raster_k2_units aims at (without the minimum,
 * ptxas squeezed kernel2 into 32 registers and spilled). */
#define K2_MIN_BLOCKS (1 << (IZB_CUDA_K2_THREADS_PER_SM_LOG2 - IZB_CUDA_RASTER_THREADS_LOG2))

/* kernel2's walk of triangle t's cells that unit (ux, uy) owns (r: its cell range) */
template <int UNIT, bool CUT>
static __device__ __forceinline__ void k2_cells(const izb_tri &tri, const cut_tri &ct, const uint8_t *pool,
                                                const int4 r, int ux, int uy, int ux_count, int uy_count,
                                                const float4 *__restrict__ points,
                                                const uint32_t *__restrict__ cell_start,
                                                const uint32_t *__restrict__ cell_end, uint32_t grid_w,
                                                uint32_t lane, const own_args &own, uint32_t t,
                                                uint8_t *__restrict__ shadow)
{
    const int x0 = first_owned(r.x, ux, ux_count);
    for (int cy = first_owned(r.y, uy, uy_count); cy <= r.w; cy += uy_count) {
        for (int cx = x0; cx <= r.z; cx += ux_count) {
            const uint32_t c = (uint32_t)cy * grid_w + (uint32_t)cx;
            const uint32_t end = cell_end[c];
            for (uint32_t p = cell_start[c] + lane; p < end; p += UNIT) {
                const izb_point pt = point_load(points, p);
                if (izb_tri_occludes(&tri, pt.x, pt.y, pt.z) && hit_counts<CUT>(tri, ct, pool, own, t, pt, shadow, p))
                    shadow[p] = 1;
            }
        }
    }
}

template <int UNIT, bool CUTS>
__global__ void __launch_bounds__(RASTER_THREADS, K2_MIN_BLOCKS)
    raster_k2(const float4 *__restrict__ tris, uint32_t tri_capacity, uint32_t ntri,          // in
              const float4 *__restrict__ points,                                              // in
              const uint32_t *__restrict__ cell_start, const uint32_t *__restrict__ cell_end, // in
              const izb_grid grid, int ux_count, int uy_count, // in: grid, unit layout
              const own_args own,                          // in: ids
              const cut_args cut,                          // in: cut-outs
              uint8_t *__restrict__ shadow)                // out
{
    static_assert(UNIT >= 32 && UNIT <= RASTER_THREADS && RASTER_THREADS % UNIT == 0, "unit size");
    constexpr uint32_t UNITS = RASTER_THREADS / UNIT;
    __shared__ int4 s_range[K2_TILE]; /* (cx0, cy0, cx1, cy1) of the tile's triangles */
    const uint32_t u = blockIdx.x * UNITS + threadIdx.x / UNIT, lane = threadIdx.x % UNIT;
    const uint32_t warp_lane = threadIdx.x & 31u;
    /* Units are whole warps (UNIT >= 32), so `active` is warp-uniform and the ballots below see
     * full warps. Inactive units (the last block's spare ones) still join every barrier. */
    const bool active = u < (uint32_t)ux_count * (uint32_t)uy_count;
    const int ux = (int)(u % (uint32_t)ux_count), uy = (int)(u / (uint32_t)ux_count);
    const float4 *__restrict__ boxes = tris + 3 * (size_t)tri_capacity; /* plane 3: x0, y0, x1, y1 */
    const uint32_t grid_w = (uint32_t)grid.w;

    for (uint32_t base = 0; base < ntri; base += K2_TILE) {
        const uint32_t count = min((uint32_t)K2_TILE, ntri - base);
        __syncthreads(); /* the previous tile is consumed */
        for (uint32_t k = threadIdx.x; k < count; k += RASTER_THREADS) {
            const float4 r = boxes[base + k];
            s_range[k] = make_int4(izb_cell_x(&grid, r.x), izb_cell_y(&grid, r.y), izb_cell_x(&grid, r.z),
                                   izb_cell_y(&grid, r.w)); /* izb_tri_cells of the plane alone */
        }
        __syncthreads();
        if (!active)
            continue;
        for (uint32_t jb = 0; jb < count; jb += 32) {
            const uint32_t j = jb + warp_lane;
            bool hit = false;
            if (j < count) {
                const int4 r = s_range[j];
                hit = first_owned(r.x, ux, ux_count) <= r.z && first_owned(r.y, uy, uy_count) <= r.w;
            }
            uint32_t hits = __ballot_sync(IZB_FULL_WARP, hit);
            while (hits) { /* the same hits in every warp of the unit */
                const uint32_t jt = jb + (uint32_t)(__ffs(hits) - 1);
                hits &= hits - 1u;
                const int4 r = s_range[jt];
                const izb_tri tri = tri_load(tris, tri_capacity, base + jt);
                cut_tri ct;
                if (CUTS && cut_of(cut, base + jt, &ct))
                    k2_cells<UNIT, true>(tri, ct, cut.pool, r, ux, uy, ux_count, uy_count, points, cell_start,
                                         cell_end, grid_w, lane, own, base + jt, shadow);
                else
                    k2_cells<UNIT, false>(tri, ct, cut.pool, r, ux, uy, ux_count, uy_count, points, cell_start,
                                          cell_end, grid_w, lane, own, base + jt, shadow);
            }
        }
    }
}

/* mask[pixel] = 0 for every shadowed point: one scattered store per shadowed pixel per frame. */
template <class Mask>
__global__ void raster_resolve(const float4 *__restrict__ points, const uint8_t *__restrict__ shadow, // in
                               uint32_t n, uint32_t width,                                            // in
                               Mask mask)                                                             // out
{
    const uint32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n || !shadow[i])
        return;
    const uint32_t pixel = point_load(points, i).pixel;
    const uint32_t py = pixel / width;
    mask((int)(pixel - py * width), (int)py, pixel, 0);
}

extern "C" int raster_unit_size(int requested, int ntri, int n, int cells)
{
    if (requested == 32 || requested == 64 || requested == 128 || requested == 256)
        return requested;
    if (ntri < IZB_CUDA_AUTO_FEW_TRIS)
        return 256;
    if (cells > 0 && n / cells >= (1 << IZB_CUDA_AUTO_DENSE_PPC_LOG2))
        return 128;
    return 64;
}

extern "C" void raster_k2_units(const izb_grid *g, int unit, int sm_count, int *ux, int *uy)
{
    const double target = (double)(sm_count > 0 ? sm_count : 1) * (double)(1 << IZB_CUDA_K2_THREADS_PER_SM_LOG2) / unit;
    const int w = g->w > 0 ? g->w : 1, h = g->h > 0 ? g->h : 1;
    int x = (int)floor(sqrt(target * w / h) + 0.5);
    x = x < 1 ? 1 : x > w ? w : x;
    int y = (int)floor(target / x + 0.5);
    y = y < 1 ? 1 : y > h ? h : y;
    *ux = x;
    *uy = y;
}

template <int UNIT>
static bool launch_raster(izb_kernel kernel, const raster_args *a, cudaStream_t s)
{
    constexpr uint32_t UNITS = RASTER_THREADS / UNIT;
    const uint32_t ntri = (uint32_t)a->ntri;
    const own_args own = {a->tri_id, a->pixel_id, a->xyz, a->scene_n};
    const cut_args cut = {a->tri_id, a->cut.tex, a->cut.uv, a->cut.textures, a->cut.pool};
    if (kernel == IZB_KERNEL2) {
        int ux, uy;
        raster_k2_units(&a->grid, UNIT, a->sm_count, &ux, &uy);
        auto k = cut.tex ? raster_k2<UNIT, true> : raster_k2<UNIT, false>;
        CUDA_LAUNCH(k, cuda_blocks((size_t)ux * uy, UNITS), RASTER_THREADS, 0, s, a->tris, a->tri_capacity,
                    ntri, a->points, a->cell_start, a->cell_end, a->grid, ux, uy, own, cut, a->shadow);
    } else {
        const uint32_t split = a->k1_split > 1 ? (uint32_t)a->k1_split : 1u;
        auto k = cut.tex ? raster_k1<UNIT, true> : raster_k1<UNIT, false>;
        CUDA_LAUNCH(k, cuda_blocks((size_t)ntri * split, UNITS), RASTER_THREADS, 0, s, a->tris,
                    a->tri_capacity, ntri, a->points, a->cell_start, a->cell_end, a->grid, split, own, cut,
                    a->shadow);
    }
    return true;
}

extern "C" bool raster_run(izb_kernel kernel, int unit, const raster_args *a, const cuda_image *img, cudaStream_t s)
{
    if (a->ntri <= 0 || a->n <= 0 || a->grid.w <= 0 || a->grid.h <= 0 || img->width <= 0 ||
        (a->cut.tex && (!a->tri_id || !a->cut.uv || !a->cut.textures || !a->cut.pool)) ||
        (size_t)a->ntri * (size_t)(a->k1_split > 1 ? a->k1_split : 1) >= ((size_t)1 << 32)) {
        fprintf(stderr, "izb cuda: raster: bad input (%d triangles, %d points)\n", a->ntri, a->n);
        return false;
    }
    CUDA_TRY(cudaMemsetAsync(a->shadow, 0, (size_t)a->n, s));
    bool ok;
    switch (unit) {
    case 32: ok = launch_raster<32>(kernel, a, s); break;
    case 64: ok = launch_raster<64>(kernel, a, s); break;
    case 128: ok = launch_raster<128>(kernel, a, s); break;
    case 256: ok = launch_raster<256>(kernel, a, s); break;
    default:
        fprintf(stderr, "izb cuda: raster: unit size %d is not 32, 64, 128 or 256\n", unit);
        return false;
    }
    if (!ok)
        return false;
    const uint32_t n = (uint32_t)a->n, width = (uint32_t)img->width;
    if (img->mask) {
        auto k = raster_resolve<mask_to_buffer>;
        CUDA_LAUNCH(k, cuda_blocks(n, THREADS), THREADS, 0, s, a->points, a->shadow, n, width, mask_to_buffer{img->mask});
    } else {
        auto k = raster_resolve<mask_to_surface>;
        CUDA_LAUNCH(k, cuda_blocks(n, THREADS), THREADS, 0, s, a->points, a->shadow, n, width,
                    mask_to_surface{img->mask_surf});
    }
    return true;
}
