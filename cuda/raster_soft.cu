/* raster_soft.cu — stages 3 and 4 of a soft frame (core/izb_soft.h) on the device: the CPU's
 * cpu/raster_soft.c and cpu/kernels_soft.h, kernel for kernel, on the hard path's binned points.
 *
 *  1. soft_cell_zmax: each cell's farthest receiver (izb_maxf over its points, as the CPU) and the
 *     frame's, an atomicMax of an order-preserving key per warp (max is order independent; the
 *     sign of a zero may differ from the CPU's, and izb_soft_tri_setup / izb_soft_box_at give the
 *     same results for either: both only ever see zmax - zmin through max(0, .) or "> 0").
 *  2. soft_setup_kernel: every scene triangle transformed and set up (izb_soft_tri_setup, culled
 *     by izb_may_cull as the CPU); survivors take a slot by atomicAdd. Their order differs from
 *     the CPU's input order, which changes nothing: a mask is an OR over (point, triangle) pairs.
 *  3. soft_k1 (a unit per survivor, its penumbra cells for the frame's zmax, each cell skipped when
 *     the box for its own farthest receiver misses it; a row's kept cells walked as one run) or soft_k2 (units own interleaved cells and
 *     walk every survivor, tiles of cell ranges in shared memory, ballots as raster.cu's kernel2).
 *     Per point: soft_point, the CPU's KERN(soft_point): the early-out when the mask is full, the
 *     pair set-up (its box test makes every traversal agree with the brute force), the samples,
 *     a cut-out's per-sample alpha test, the own-triangle rule, the OR. kernel1's units share
 *     points, so its masks take atomicOr and are read through L2 (__ldcg: never a stale L1 line;
 *     a stale word only costs tests, the OR is the same); kernel2's point has one owner thread (its
 *     cell's unit, lane (j - start) % unit for every triangle), plain loads and stores.
 *  4. soft_resolve: mask byte = izb_mask_value per point, every point's pixel written.
 * The counts of izb_stats.soft_* are the CPU's definitions: global and visited are sums over
 * (triangle, cell) and equal the CPU's; pairs depends on when masks fill (as on the CPU with
 * threads). The unit size is a launch parameter here, not a template: one instantiation per
 * kernel and cut-out flag.
 * An area light's frame (core/izb_area.h: a spot with an emitter, izb_area_on) takes the same
 * stages with the template flag AREA: izb_area_tri_setup and izb_area_pair_setup in place of the
 * directional set-ups, the samples of izb_area_light_make, culling with the emitter's reach
 * (soft_args.cull, filled by backend.cu) — the CPU's `area` flag (cpu/raster_soft.c). */
#include "raster_soft.h"

#include <math.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_device.cuh"
#include "cuda_tune.h"

#define THREADS (1 << IZB_CUDA_THREADS_LOG2)
#define RASTER_THREADS (1 << IZB_CUDA_RASTER_THREADS_LOG2)
#define K2_TILE (1 << IZB_CUDA_K2_TILE_LOG2)

/* world -> light clip, a launch parameter (as cull.cu's) */
struct soft_light_matrix {
    float m[16];
};

/* float -> uint32 whose unsigned order is the floats' order (NaN-free input) */
static __device__ __forceinline__ uint32_t zmax_key(float z)
{
    const uint32_t u = __float_as_uint(z);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

static __device__ __forceinline__ float zmax_of(uint32_t k)
{
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

/* primitive ids and cut-outs, indexed by scene triangle */
struct soft_own {
    const uint32_t *pixel_id; /* NULL: no ids */
    const float *xyz;
    uint32_t scene_n;
};
__global__ void soft_cell_zmax(const float4 *__restrict__ points, const uint32_t *__restrict__ cell_start,
                               const uint32_t *__restrict__ cell_end, uint32_t cells, // in
                               float *__restrict__ cell_zmax, soft_counters *__restrict__ cnt) // out
{
    const uint32_t c = blockIdx.x * THREADS + threadIdx.x;
    float m = -INFINITY;
    if (c < cells) {
        for (uint32_t j = cell_start[c]; j < cell_end[c]; j++)
            m = izb_maxf(m, points[j].z);
        cell_zmax[c] = m;
    }
    for (int o = 16; o > 0; o >>= 1) /* every lane takes part: no early return above */
        m = izb_maxf(m, __shfl_xor_sync(IZB_FULL_WARP, m, o));
    if ((threadIdx.x & 31u) == 0 && m > -INFINITY)
        atomicMax(&cnt->zmax_key, zmax_key(m));
}

/* AREA: an area light's frame (core/izb_area.h): its set-ups in place of the directional ones,
 * everything else shared, as the CPU's `area` flag (cpu/raster_soft.c) */
template <bool AREA>
__global__ void soft_setup_kernel(const float *__restrict__ xyz, uint32_t n, izb_cull_view cull, // in
                                  const __grid_constant__ soft_light_matrix light,             // in
                                  const __grid_constant__ izb_soft_light L, izb_bbox bbox,     // in
                                  soft_counters *__restrict__ cnt,     // in: zmax; out: ntri
                                  izb_soft_tri *__restrict__ out, uint32_t *__restrict__ tri_id) // out
{
    const uint32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    const float zmax = zmax_of(cnt->zmax_key);
    float v[3][4];
    for (int k = 0; k < 3; k++) {
        const float p[3] = {xyz[(3 * k + 0) * (size_t)n + i], xyz[(3 * k + 1) * (size_t)n + i],
                            xyz[(3 * k + 2) * (size_t)n + i]};
        izb_transform(light.m, p, v[k]);
    }
    izb_soft_tri t;
    const bool cull_back = izb_may_cull(&cull, i);
    if (!(AREA ? izb_area_tri_setup(v, zmax, &L, &bbox, cull_back, &t)
               : izb_soft_tri_setup(v, zmax, &L, &bbox, cull_back, &t)))
        return;
    const uint32_t slot = atomicAdd(&cnt->ntri, 1u);
    out[slot] = t;
    tri_id[slot] = i;
}

/* The pair set-up of an area light's frame or a directional one's */
template <bool AREA>
static __device__ __forceinline__ bool soft_pair_of(const izb_soft_tri &t, const izb_point &p,
                                                    izb_soft_pair *pr)
{
    return AREA ? izb_area_pair_setup(&t, p.x, p.y, p.z, pr) : izb_soft_pair_setup(&t, p.x, p.y, p.z, pr);
}

/* Point p (binned index j, mask words mk) against triangle t (scene index id): the CPU's
 * KERN(soft_point) step for step. Returns whether the pair was set up (ran its samples). */
template <bool SHARED, bool CUT, bool AREA>
static __device__ __forceinline__ uint32_t soft_point(const izb_soft_tri &t, uint32_t id, const izb_soft_light &L,
                                                      const izb_point &p, uint32_t *mk, const soft_own &own,
                                                      const cut_tri &ct, const uint8_t *pool)
{
    const int words = izb_mask_words(L.m);
    uint32_t cur[IZB_MASK_MAX_WORDS];
    for (int w = 0; w < words; w++)
        cur[w] = SHARED ? __ldcg(mk + w) : mk[w];
    if (izb_mask_full(cur, L.m))
        return 0;
    izb_soft_pair pr;
    if (!soft_pair_of<AREA>(t, p, &pr))
        return 0;
    uint32_t bits[IZB_MASK_MAX_WORDS], any = 0;
    for (int w = 0; w < words; w++) {
        const int len = L.m - 32 * w;
        uint32_t b = 0;
        for (int k = 0; k < 32 && k < len; k++)
            b |= (uint32_t)izb_soft_sample_hidden(&pr, t.n, L.dx[32 * w + k], L.dy[32 * w + k]) << k;
        b &= ~cur[w];
        if (CUT && b) { /* only the hidden samples are looked up, each at its own ray's hit point */
            uint32_t keep = 0;
            for (uint32_t r = b; r; r &= r - 1u) {
                const int k = __ffs((int)r) - 1, j = 32 * w + k;
                keep |= (uint32_t)izb_soft_sample_keeps(&pr, L.dx[j], L.dy[j], ct.uv, pool, &ct.tex) << k;
            }
            b = keep;
        }
        bits[w] = b;
        any |= b;
    }
    if (!any || (own.pixel_id && izb_hit_is_own(own.xyz, 1, own.scene_n, own.scene_n, own.pixel_id[p.pixel], id)))
        return 1;
    for (int w = 0; w < words; w++) {
        if (!bits[w])
            continue;
        if (SHARED)
            atomicOr(mk + w, bits[w]);
        else
            mk[w] |= bits[w];
    }
    return 1;
}

/* The points [start, end) of one cell against t, lanes lane, lane + unit, ...; the box test first
 * (the one izb_soft_pair_setup starts with: no mask load for a point outside it). */
template <bool SHARED, bool AREA>
static __device__ __forceinline__ uint32_t soft_cell(const izb_soft_tri &t, uint32_t id, bool is_cut,
                                                     const cut_tri &ct, const cut_args &cut,
                                                     const izb_soft_light &L, const float4 *__restrict__ points,
                                                     uint32_t start, uint32_t end, uint32_t lane, uint32_t unit,
                                                     const soft_own &own, uint32_t *__restrict__ masks, int words)
{
    uint32_t pairs = 0;
    for (uint32_t j = start + lane; j < end; j += unit) {
        const izb_point p = point_load(points, j);
        float x0, y0, x1, y1;
        izb_soft_box_at(&t, p.z, &x0, &y0, &x1, &y1);
        if (!((p.x >= x0) & (p.x <= x1) & (p.y >= y0) & (p.y <= y1)))
            continue;
        uint32_t *mk = masks + (size_t)j * (size_t)words;
        pairs += is_cut ? soft_point<SHARED, true, AREA>(t, id, L, p, mk, own, ct, cut.pool)
                        : soft_point<SHARED, false, AREA>(t, id, L, p, mk, own, ct, cut.pool);
    }
    return pairs;
}

/* Does t's penumbra box for cell c's own farthest receiver reach cell (cx, cy)? */
static __device__ __forceinline__ bool cell_reached(const izb_soft_tri &t, float cell_zmax, const izb_grid &g, int cx,
                                                    int cy)
{
    int a0, b0, a1, b1;
    izb_soft_tri_cells(&t, cell_zmax, &g, &a0, &b0, &a1, &b1);
    return !(cx < a0 || cx > a1 || cy < b0 || cy > b1);
}

static __device__ __forceinline__ void counts_add(soft_counters *cnt, unsigned long long global,
                                                  unsigned long long visited, uint32_t pairs)
{
    if (global) atomicAdd(&cnt->global, global);
    if (visited) atomicAdd(&cnt->visited, visited);
    if (pairs) atomicAdd(&cnt->pairs, (unsigned long long)pairs);
}

/* kernel1: unit u takes survivor u (units of `unit` threads, whole warps; no barriers) */
template <bool AREA>
__global__ void __launch_bounds__(RASTER_THREADS)
    soft_k1(const izb_soft_tri *__restrict__ tris, const uint32_t *__restrict__ tri_id,       // in
            const float4 *__restrict__ points,                                                 // in
            const uint32_t *__restrict__ cell_start, const uint32_t *__restrict__ cell_end,    // in
            const float *__restrict__ cell_zmax, const izb_grid grid, uint32_t unit,           // in
            const __grid_constant__ izb_soft_light L, const soft_own own, const cut_args cut, // in
            soft_counters *__restrict__ cnt, uint32_t *__restrict__ masks)                     // in/out
{
    const uint32_t u = blockIdx.x * (RASTER_THREADS / unit) + threadIdx.x / unit, lane = threadIdx.x % unit;
    if (u >= cnt->ntri)
        return;
    const float zmax = zmax_of(cnt->zmax_key);
    const izb_soft_tri t = tris[u];
    const uint32_t id = tri_id[u];
    cut_tri ct = {}; /* read only when is_cut */
    const bool is_cut = cut.tex && cut_of_scene(cut, id, &ct);
    const int words = izb_mask_words(L.m);
    int cx0, cy0, cx1, cy1;
    izb_soft_tri_cells(&t, zmax, &grid, &cx0, &cy0, &cx1, &cy1);
    unsigned long long global = 0, visited = 0;
    uint32_t pairs = 0;
    for (int cy = cy0; cy <= cy1; cy++) {
        /* the row's cells the per-cell bound keeps, lo .. hi; their points are one contiguous run
         * in binned order (cells are row-major), walked by all lanes at once as raster.cu's rows:
         * a cell holds a few points, a unit 32 to 256 lanes. A point of a skipped cell inside the
         * run fails the box test (its box lies in its cell's, which misses the cell). */
        const uint32_t row = (uint32_t)cy * (uint32_t)grid.w;
        int lo = -1, hi = -1;
        for (int cx = cx0; cx <= cx1; cx++) {
            const uint32_t c = row + (uint32_t)cx;
            const uint32_t start = cell_start[c], end = cell_end[c];
            if (start >= end)
                continue;
            global += end - start;
            if (!cell_reached(t, cell_zmax[c], grid, cx, cy))
                continue;
            visited += end - start;
            lo = lo < 0 ? cx : lo;
            hi = cx;
        }
        if (lo >= 0)
            pairs += soft_cell<true, AREA>(t, id, is_cut, ct, cut, L, points, cell_start[row + (uint32_t)lo],
                                           cell_end[row + (uint32_t)hi], lane, unit, own, masks, words);
    }
    counts_add(cnt, lane == 0 ? global : 0, lane == 0 ? visited : 0, pairs);
}

/* The smallest c >= lo with c % m == own (lo >= 0, 0 <= own < m); raster.cu's first_owned. */
static __device__ __forceinline__ int soft_first_owned(int lo, int own, int m)
{
    const int d = (own - lo) % m;
    return lo + (d < 0 ? d + m : d);
}

/* kernel2: unit (ux, uy) of ux_count x uy_count owns the cells cx % ux_count == ux,
 * cy % uy_count == uy, and walks every survivor whose penumbra range holds one of them */
template <bool AREA>
__global__ void __launch_bounds__(RASTER_THREADS)
    soft_k2(const izb_soft_tri *__restrict__ tris, const uint32_t *__restrict__ tri_id,       // in
            const float4 *__restrict__ points,                                                 // in
            const uint32_t *__restrict__ cell_start, const uint32_t *__restrict__ cell_end,    // in
            const float *__restrict__ cell_zmax, const izb_grid grid, uint32_t unit,           // in
            int ux_count, int uy_count,                                                        // in
            const __grid_constant__ izb_soft_light L, const soft_own own, const cut_args cut, // in
            soft_counters *__restrict__ cnt, uint32_t *__restrict__ masks)                     // in/out
{
    __shared__ int4 s_range[K2_TILE]; /* the tile's penumbra cell ranges for the frame's zmax */
    const uint32_t u = blockIdx.x * (RASTER_THREADS / unit) + threadIdx.x / unit, lane = threadIdx.x % unit;
    const uint32_t warp_lane = threadIdx.x & 31u;
    const bool active = u < (uint32_t)ux_count * (uint32_t)uy_count; /* warp-uniform: units are whole warps */
    const int ux = (int)(u % (uint32_t)ux_count), uy = (int)(u / (uint32_t)ux_count);
    const uint32_t ntri = cnt->ntri;
    const float zmax = zmax_of(cnt->zmax_key);
    const int words = izb_mask_words(L.m);
    unsigned long long global = 0, visited = 0;
    uint32_t pairs = 0;
    for (uint32_t base = 0; base < ntri; base += K2_TILE) {
        const uint32_t count = min((uint32_t)K2_TILE, ntri - base);
        __syncthreads(); /* the previous tile is consumed */
        for (uint32_t k = threadIdx.x; k < count; k += RASTER_THREADS) {
            int4 r;
            izb_soft_tri_cells(&tris[base + k], zmax, &grid, &r.x, &r.y, &r.z, &r.w);
            s_range[k] = r;
        }
        __syncthreads();
        if (!active)
            continue;
        for (uint32_t jb = 0; jb < count; jb += 32) {
            const uint32_t j = jb + warp_lane;
            bool hit = false;
            if (j < count) {
                const int4 r = s_range[j];
                hit = soft_first_owned(r.x, ux, ux_count) <= r.z && soft_first_owned(r.y, uy, uy_count) <= r.w;
            }
            uint32_t hits = __ballot_sync(IZB_FULL_WARP, hit);
            while (hits) { /* the same hits in every warp of the unit */
                const uint32_t jt = jb + (uint32_t)(__ffs((int)hits) - 1);
                hits &= hits - 1u;
                const int4 r = s_range[jt];
                const izb_soft_tri t = tris[base + jt];
                const uint32_t id = tri_id[base + jt];
                cut_tri ct = {}; /* read only when is_cut */
                const bool is_cut = cut.tex && cut_of_scene(cut, id, &ct);
                const int x0 = soft_first_owned(r.x, ux, ux_count);
                for (int cy = soft_first_owned(r.y, uy, uy_count); cy <= r.w; cy += uy_count)
                    for (int cx = x0; cx <= r.z; cx += ux_count) {
                        const uint32_t c = (uint32_t)cy * (uint32_t)grid.w + (uint32_t)cx;
                        const uint32_t start = cell_start[c], end = cell_end[c];
                        if (start >= end)
                            continue;
                        global += end - start;
                        if (!cell_reached(t, cell_zmax[c], grid, cx, cy))
                            continue;
                        visited += end - start;
                        pairs += soft_cell<false, AREA>(t, id, is_cut, ct, cut, L, points, start, end, lane,
                                                        unit, own, masks, words);
                    }
            }
        }
    }
    counts_add(cnt, lane == 0 ? global : 0, lane == 0 ? visited : 0, pairs);
}

/* mask[pixel] = the lit fraction of every point's mask */
template <class Mask>
__global__ void soft_resolve(const float4 *__restrict__ points, const uint32_t *__restrict__ masks, // in
                             uint32_t n, uint32_t width, int m,                                      // in
                             Mask mask)                                                              // out
{
    const uint32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    const uint32_t pixel = point_load(points, i).pixel, py = pixel / width;
    mask((int)(pixel - py * width), (int)py, pixel, izb_mask_value(masks + (size_t)i * (size_t)izb_mask_words(m), m));
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem, const char *what)
{
    if (need <= *cap && *p)
        return true;
    if (*p)
        cudaFree(*p);
    *p = NULL;
    *cap = 0;
    const cudaError_t err = cudaMalloc(p, (need ? need : 1) * elem);
    if (err != cudaSuccess) {
        *p = NULL;
        fprintf(stderr, "izb cuda: out of GPU memory: %.1f MB for %s (%s)\n", (double)(need * elem) / 1048576.0, what,
                cudaGetErrorString(err));
        cudaGetLastError();
        return false;
    }
    *cap = need;
    return true;
}

extern "C" bool soft_reserve(soft_buffers *b, int n, int tri_count, int cells, int m)
{
    if (!b->d_counters) {
        CUDA_TRY(cudaMalloc((void **)&b->d_counters, sizeof *b->d_counters));
        CUDA_TRY(cudaMallocHost((void **)&b->h_counters, sizeof *b->h_counters));
    }
    return grow(&b->tris, &b->tri_cap, (size_t)(tri_count > 0 ? tri_count : 1), sizeof(izb_soft_tri),
                "soft triangle setup") &&
           grow((void **)&b->masks, &b->mask_cap, (size_t)n * (size_t)izb_mask_words(m), sizeof(uint32_t),
                "visibility masks") &&
           grow((void **)&b->cell_zmax, &b->cells_cap, (size_t)cells, sizeof(float), "cells' farthest receivers");
}

extern "C" void soft_free(soft_buffers *b)
{
    if (b->tris) cudaFree(b->tris);
    if (b->masks) cudaFree(b->masks);
    if (b->cell_zmax) cudaFree(b->cell_zmax);
    if (b->d_counters) cudaFree(b->d_counters);
    if (b->h_counters) cudaFreeHost(b->h_counters);
    memset(b, 0, sizeof *b);
}

extern "C" bool soft_run(const izb_recon *f, izb_kernel kernel, int unit, const soft_args *a, soft_buffers *b,
                         const cuda_image *img, cudaStream_t s)
{
    const int cells = a->grid.w * a->grid.h;
    if (a->n <= 0 || cells <= 0 || img->width <= 0 || a->tri_count < 0 ||
        (unit != 32 && unit != 64 && unit != 128 && unit != 256) ||
        (a->cut.tex && (!a->cut.uv || !a->cut.textures || !a->cut.pool))) {
        fprintf(stderr, "izb cuda: soft raster: bad input (%d points, %d triangles, unit %d)\n", a->n, a->tri_count,
                unit);
        return false;
    }
    const bool area = izb_area_on(f);
    izb_soft_light L;
    if (area)
        izb_area_light_make(f, &L);
    else
        izb_soft_light_make(f, &L);
    const uint32_t n = (uint32_t)a->n, words = (uint32_t)izb_mask_words(L.m);
    CUDA_TRY(cudaMemsetAsync(b->d_counters, 0, sizeof *b->d_counters, s));
    CUDA_TRY(cudaMemsetAsync(b->masks, 0, (size_t)n * words * sizeof(uint32_t), s));
    CUDA_LAUNCH(soft_cell_zmax, cuda_blocks((size_t)cells, THREADS), THREADS, 0, s, a->points, a->cell_start,
                a->cell_end, (uint32_t)cells, b->cell_zmax, b->d_counters);
    if (a->tri_count > 0) {
        soft_light_matrix lm;
        memcpy(lm.m, f->light, sizeof lm.m);
        izb_soft_tri *tris = (izb_soft_tri *)b->tris;
        const uint32_t nt = (uint32_t)a->tri_count;
        auto setup = area ? soft_setup_kernel<true> : soft_setup_kernel<false>;
        CUDA_LAUNCH(setup, cuda_blocks(nt, THREADS), THREADS, 0, s, a->xyz, nt, a->cull, lm, L, a->bbox,
                    b->d_counters, tris, a->tri_id);
        const soft_own own = {a->pixel_id, a->xyz, nt};
        const cut_args cut = {NULL, a->cut.tex, a->cut.uv, a->cut.textures, a->cut.pool};
        const uint32_t units = RASTER_THREADS / (uint32_t)unit, u = (uint32_t)unit;
        if (kernel == IZB_KERNEL2) {
            int ux, uy;
            raster_k2_units(&a->grid, unit, a->sm_count, &ux, &uy);
            auto k2 = area ? soft_k2<true> : soft_k2<false>;
            CUDA_LAUNCH(k2, cuda_blocks((size_t)ux * uy, units), RASTER_THREADS, 0, s, tris, a->tri_id,
                        a->points, a->cell_start, a->cell_end, b->cell_zmax, a->grid, u, ux, uy, L, own, cut,
                        b->d_counters, b->masks);
        } else {
            auto k1 = area ? soft_k1<true> : soft_k1<false>;
            CUDA_LAUNCH(k1, cuda_blocks(nt, units), RASTER_THREADS, 0, s, tris, a->tri_id, a->points,
                        a->cell_start, a->cell_end, b->cell_zmax, a->grid, u, L, own, cut, b->d_counters, b->masks);
        }
    }
    if (img->mask) {
        auto k = soft_resolve<mask_to_buffer>;
        CUDA_LAUNCH(k, cuda_blocks(n, THREADS), THREADS, 0, s, a->points, b->masks, n, (uint32_t)img->width, L.m,
                    mask_to_buffer{img->mask});
    } else {
        auto k = soft_resolve<mask_to_surface>;
        CUDA_LAUNCH(k, cuda_blocks(n, THREADS), THREADS, 0, s, a->points, b->masks, n, (uint32_t)img->width, L.m,
                    mask_to_surface{img->mask_surf});
    }
    CUDA_TRY(cudaMemcpyAsync(b->h_counters, b->d_counters, sizeof *b->h_counters, cudaMemcpyDeviceToHost, s));
    return true;
}
