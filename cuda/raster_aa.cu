/* raster_aa.cu — anti-aliased frames on the device (raster_aa.h; the CPU's cpu/raster_aa.c and
 * cpu/kernels_aa.h). The per-element math is core/izb_aa.h's, called as the CPU calls it: the
 * footprint (izb_aa_footprint, the facet normal with ids), the pair's pre-test (izb_aa_near), each
 * sub-sample's test (izb_aa_sample_hidden; a directional frame its copy without the division,
 * izb_aa_sample_hidden_affine), the grown cell ranges (izb_aa_tri_cells) and the byte
 * (izb_mask_value). A point's mask is one word (N <= 32).
 *
 * kernel1: one unit per triangle (the thesis form: no splitting of a triangle's points here), over
 * the cells of its range grown by the frame's extent, skipping a cell whose own largest extent
 * does not reach it; the lanes take the cell's points. Several units OR into the same mask word:
 * atomicOr, and the early-out's read of the word is a relaxed atomic load (a stale value only
 * costs the samples: the OR of the bits already set changes nothing).
 * kernel2: the interleaved cell ownership of raster.cu (raster_k2_units, first_owned); every unit
 * walks all triangles, their boxes staged in shared memory a tile at a time (one load per block,
 * as raster.cu's kernel2; its warp ballots over the tile are not copied: each unit tests the
 * boxes one by one). A point is always taken by the same thread (its cell's owner unit, lane
 * (j - cell_start) % UNIT), so its word is read and written plainly, without atomics.
 * The mask word: bits of the sub-samples t hides, less those set already; with ids nothing from
 * the point's own triangle or one in its plane (izb_hit_is_own), as kernels_aa.h's aa_point; a
 * cut-out t (raster_cut) keeps only the bits izb_aa_keep_bits keeps (each hidden sub-sample
 * alpha-tested at its own position). "Is t a cut-out" is decided once per triangle (uniform over its
 * unit); a launch without cut-outs runs kernels without the test compiled (CUTS false), and opaque
 * triangles of a launch with them take the copy without it (CUT false). */
#include "raster_aa.h"

#include "../core/izb_aa.h"

#include "cuda_check.h"
#include "cuda_device.cuh"
#include "cuda_tune.h"

#define THREADS (1 << IZB_CUDA_THREADS_LOG2)
#define RASTER_THREADS (1 << IZB_CUDA_RASTER_THREADS_LOG2)
#define K2_TILE (1 << IZB_CUDA_K2_TILE_LOG2)

/* primitive ids as one kernel parameter (tri_id: compacted -> scene index) */
struct aa_own {
    const uint32_t *tri_id, *pixel_id;
    const float *xyz;
    uint32_t scene_n;
};

/* (the cut-outs' kernel parameter and per-triangle inputs: cuda_device.cuh's cut_args, cut_tri, cut_of) */

/* izb_aa_foot as three float4 (16-byte loads): a0 a1 a2 b0 | b1 b2 ex ey | aw bw ez pad. A
 * directional frame (persp false: aw = bw = 0) loads the first two only. */
union aa_foot_planes {
    izb_aa_foot f;
    float4 v[3];
};
static_assert(sizeof(izb_aa_foot) == 3 * sizeof(float4), "izb_aa_foot must be three float4");

static __device__ __forceinline__ izb_aa_foot foot_load(const float4 *foot, uint32_t j, bool persp)
{
    aa_foot_planes u;
    u.v[0] = foot[3 * (size_t)j];
    u.v[1] = foot[3 * (size_t)j + 1];
    u.v[2] = persp ? foot[3 * (size_t)j + 2] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    return u.f;
}

/* The footprint of the point at pixel pix (kernels_aa.h's aa_footprints, per point): neighbours
 * outside the image count as sky; with an id the facet's normal, its 9 coordinates gathered from
 * the scene's planes in the CPU's order. */
template <class Depth>
static __device__ __forceinline__ void point_foot(const izb_recon &f, const izb_aa_view &V,
                                                  const Depth &depth, const aa_own &own, uint32_t pix,
                                                  izb_aa_foot *out)
{
    const int W = f.width, H = f.height;
    const int py = (int)(pix / (uint32_t)W), px = (int)(pix - (uint32_t)py * (uint32_t)W);
    const float nb[4] = {px > 0 ? depth(px - 1, py, pix - 1u) : 0.0f,
                         px + 1 < W ? depth(px + 1, py, pix + 1u) : 0.0f,
                         py > 0 ? depth(px, py - 1, pix - (uint32_t)W) : 0.0f,
                         py + 1 < H ? depth(px, py + 1, pix + (uint32_t)W) : 0.0f};
    const uint32_t id = own.pixel_id ? own.pixel_id[pix] : IZB_NO_ID;
    float nv[3];
    if (id < own.scene_n) {
        float tri[9];
#pragma unroll
        for (int k = 0; k < 9; k++)
            tri[k] = own.xyz[(size_t)k * own.scene_n + id];
        izb_aa_facet_normal(&V, tri, nv);
    }
    izb_aa_footprint(&f, px, py, depth(px, py, pix), nb, id < own.scene_n ? nv : NULL, out);
}

/* Stage 1: the frame's largest extents over points [0, min(info->points, capacity)); a warp's max
 * (izb_maxf: a NaN is ignored, as the CPU's loop does), then one integer atomicMax per warp (the
 * extents are >= 0, where float order is the bits' order). */
template <class Depth>
__global__ void aa_extent_kernel(const __grid_constant__ izb_recon f, const __grid_constant__ izb_aa_view V,
                                 Depth depth, const aa_own own,                        // in
                                 const float4 *__restrict__ points, uint32_t capacity, // in
                                 const cuda_frame_info *__restrict__ info,             // in: points
                                 aa_frame_state *__restrict__ fs)                      // out: extents
{
    const uint32_t j = blockIdx.x * THREADS + threadIdx.x;
    const uint32_t n = min(info->points, capacity);
    float ex = 0.0f, ey = 0.0f;
    if (j < n) { /* no return: every lane joins the shuffles */
        izb_aa_foot ft;
        point_foot(f, V, depth, own, point_load(points, j).pixel, &ft);
        ex = izb_maxf(ex, ft.ex);
        ey = izb_maxf(ey, ft.ey);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        ex = izb_maxf(ex, __shfl_xor_sync(IZB_FULL_WARP, ex, o));
        ey = izb_maxf(ey, __shfl_xor_sync(IZB_FULL_WARP, ey, o));
    }
    if ((threadIdx.x & 31u) == 0 && ex + ey > 0.0f) {
        atomicMax(&fs->ex_bits, __float_as_uint(ex));
        atomicMax(&fs->ey_bits, __float_as_uint(ey));
    }
}

/* Stage 1's end (one thread, after every block's max): keep the points' bbox, grow info's. */
__global__ void aa_grow_kernel(cuda_frame_info *__restrict__ info, aa_frame_state *__restrict__ fs)
{
    fs->points_bbox = info->bbox;
    info->bbox = izb_aa_grow_bbox(info->bbox, __uint_as_float(fs->ex_bits), __uint_as_float(fs->ey_bits));
}

/* Stage 2 (one thread). */
__global__ void aa_restore_kernel(cuda_frame_info *__restrict__ info, const aa_frame_state *__restrict__ fs)
{
    info->bbox = fs->points_bbox;
}

/* Stage 3's set-up: binned point j's footprint, its mask cleared. */
template <class Depth>
__global__ void aa_foot_kernel(const __grid_constant__ izb_recon f, const __grid_constant__ izb_aa_view V,
                               Depth depth, const aa_own own, const float4 *__restrict__ points,
                               uint32_t n,                                              // in
                               float4 *__restrict__ foot, uint32_t *__restrict__ masks) // out
{
    const uint32_t j = blockIdx.x * THREADS + threadIdx.x;
    if (j >= n) return;
    aa_foot_planes u;
    point_foot(f, V, depth, own, point_load(points, j).pixel, &u.f);
    foot[3 * (size_t)j] = u.v[0];
    foot[3 * (size_t)j + 1] = u.v[1];
    foot[3 * (size_t)j + 2] = u.v[2];
    masks[j] = 0u;
}

/* Each cell's largest extent over its points, in binned order as the CPU's loop (raster_aa.c). */
__global__ void aa_cell_ext_kernel(const float4 *__restrict__ foot, const uint32_t *__restrict__ cell_start,
                                   const uint32_t *__restrict__ cell_end, uint32_t cells, // in
                                   float2 *__restrict__ cell_ext)                         // out
{
    const uint32_t c = blockIdx.x * THREADS + threadIdx.x;
    if (c >= cells) return;
    float mx = 0.0f, my = 0.0f;
    for (uint32_t j = cell_start[c]; j < cell_end[c]; j++) {
        const float4 e = foot[3 * (size_t)j + 1]; /* (b1, b2, ex, ey) */
        mx = izb_maxf(mx, e.z);
        my = izb_maxf(my, e.w);
    }
    cell_ext[c] = make_float2(mx, my);
}

/* A read of a word other threads atomicOr into: relaxed atomic (volatile on the device; the SIMT
 * emulator's race mode needs a real atomic to see no race). */
static __device__ __forceinline__ uint32_t load_relaxed(const uint32_t *p)
{
#if defined(__CUDA_ARCH__)
    return *(const volatile uint32_t *)p;
#else
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

/* Triangle tri (compacted index t) against binned point j: kernels_aa.h's aa_point after its
 * izb_aa_near. SHARED: other threads OR into masks[j] too (kernel1). CUT: tri is a cut-out with
 * inputs ct over pool. */
template <bool SHARED, bool CUT>
static __device__ __forceinline__ void aa_pair(const izb_tri &tri, uint32_t t, const izb_aa_samples &S,
                                               const aa_own &own, const cut_tri &ct,
                                               const uint8_t *__restrict__ pool, const float4 *__restrict__ points,
                                               const float4 *__restrict__ foot, uint32_t j,
                                               uint32_t *__restrict__ masks)
{
    const izb_point p = point_load(points, j);
    const izb_aa_foot ft = foot_load(foot, j, S.persp != 0);
    if (!izb_aa_near(&tri, p.x, p.y, ft.ex, ft.ey)) return;
    const uint32_t full = izb_mask_word_bits(S.n, 0);
    const uint32_t cur = SHARED ? load_relaxed(&masks[j]) : masks[j];
    if ((cur & full) == full) /* the early-out: every sub-sample hidden already */
        return;
    uint32_t bits = 0;
    if (S.persp) /* (uniform: the frame's light) a spot's sub-samples divide by their own w */
        for (int k = 0; k < S.n; k++)
            bits |= (uint32_t)izb_aa_sample_hidden(&tri, p.x, p.y, p.z, &ft, S.u[k], S.v[k]) << k;
    else
        for (int k = 0; k < S.n; k++)
            bits |= (uint32_t)izb_aa_sample_hidden_affine(&tri, p.x, p.y, p.z, &ft, S.u[k], S.v[k]) << k;
    bits &= ~cur;
    if (!bits || (own.pixel_id &&
                  izb_hit_is_own(own.xyz, 1, own.scene_n, own.scene_n, own.pixel_id[p.pixel], own.tri_id[t])))
        return;
    if (CUT && !(bits = izb_aa_keep_bits(&tri, p.x, p.y, &ft, &S, bits, ct.uv, pool, &ct.tex)))
        return;
    if (SHARED)
        atomicOr(&masks[j], bits);
    else
        masks[j] = cur | bits;
}

/* Triangle t against cell c's points, unless the cell is empty or its own largest extent does not
 * reach it from t's box (raster_aa.c's tri_cells). */
template <int UNIT, bool SHARED, bool CUT>
static __device__ __forceinline__ void
aa_cell(const izb_tri &tri, uint32_t t, int cx, int cy, const izb_grid &grid,
        const uint32_t *__restrict__ cell_start, const uint32_t *__restrict__ cell_end,
        const float2 *__restrict__ cell_ext, const izb_aa_samples &S, const aa_own &own, const cut_tri &ct,
        const uint8_t *__restrict__ pool,
        const float4 *__restrict__ points, const float4 *__restrict__ foot, uint32_t lane,
        uint32_t *__restrict__ masks)
{
    const uint32_t c = (uint32_t)cy * (uint32_t)grid.w + (uint32_t)cx;
    const uint32_t start = cell_start[c], end = cell_end[c];
    if (start >= end) return;
    const float2 ce = cell_ext[c];
    int a0, b0, a1, b1;
    izb_aa_tri_cells(&tri, ce.x, ce.y, &grid, &a0, &b0, &a1, &b1);
    if (cx < a0 || cx > a1 || cy < b0 || cy > b1) return;
    for (uint32_t j = start + lane; j < end; j += UNIT)
        aa_pair<SHARED, CUT>(tri, t, S, own, ct, pool, points, foot, j, masks);
}

/* kernel1's walk of triangle t's grown cell range */
template <int UNIT, bool CUT>
static __device__ __forceinline__ void k1_cells(const izb_tri &tri, uint32_t t, int cx0, int cy0, int cx1, int cy1,
                                                const izb_grid &grid, const uint32_t *__restrict__ cell_start,
                                                const uint32_t *__restrict__ cell_end,
                                                const float2 *__restrict__ cell_ext, const izb_aa_samples &S,
                                                const aa_own &own, const cut_tri &ct,
                                                const uint8_t *__restrict__ pool, const float4 *__restrict__ points,
                                                const float4 *__restrict__ foot, uint32_t lane,
                                                uint32_t *__restrict__ masks)
{
    for (int cy = cy0; cy <= cy1; cy++)
        for (int cx = cx0; cx <= cx1; cx++)
            aa_cell<UNIT, true, CUT>(tri, t, cx, cy, grid, cell_start, cell_end, cell_ext, S, own, ct, pool, points,
                                     foot, lane, masks);
}

/* CUTS: the launch has cut-outs (without, the alpha test is compiled out altogether) */
template <int UNIT, bool CUTS>
__global__ void __launch_bounds__(RASTER_THREADS)
    aa_k1(const float4 *__restrict__ tris, uint32_t tri_capacity, uint32_t ntri,          // in
          const float4 *__restrict__ points, const float4 *__restrict__ foot,             // in
          const uint32_t *__restrict__ cell_start, const uint32_t *__restrict__ cell_end, // in
          const float2 *__restrict__ cell_ext, const izb_grid grid,                       // in
          const aa_frame_state *__restrict__ fs, const __grid_constant__ izb_aa_samples S,
          const aa_own own, const cut_args cut, // in
          uint32_t *__restrict__ masks)            // in/out
{
    constexpr uint32_t UNITS = RASTER_THREADS / UNIT;
    const uint32_t t = blockIdx.x * UNITS + threadIdx.x / UNIT, lane = threadIdx.x % UNIT;
    if (t >= ntri) /* no barriers */
        return;
    const izb_tri tri = tri_load(tris, tri_capacity, t);
    int cx0, cy0, cx1, cy1;
    izb_aa_tri_cells(&tri, __uint_as_float(fs->ex_bits), __uint_as_float(fs->ey_bits), &grid, &cx0, &cy0,
                     &cx1, &cy1);
    cut_tri ct;
    if (CUTS && cut_of(cut, t, &ct))
        k1_cells<UNIT, true>(tri, t, cx0, cy0, cx1, cy1, grid, cell_start, cell_end, cell_ext, S, own, ct, cut.pool,
                             points, foot, lane, masks);
    else
        k1_cells<UNIT, false>(tri, t, cx0, cy0, cx1, cy1, grid, cell_start, cell_end, cell_ext, S, own, ct, cut.pool,
                              points, foot, lane, masks);
}

/* kernel2's walk of triangle t's cells owned by unit (ux, uy) from (x0, y0) */
template <int UNIT, bool CUT>
static __device__ __forceinline__ void k2_cells(const izb_tri &tri, uint32_t t, int x0, int y0, int cx1, int cy1,
                                                int ux_count, int uy_count, const izb_grid &grid,
                                                const uint32_t *__restrict__ cell_start,
                                                const uint32_t *__restrict__ cell_end,
                                                const float2 *__restrict__ cell_ext, const izb_aa_samples &S,
                                                const aa_own &own, const cut_tri &ct,
                                                const uint8_t *__restrict__ pool, const float4 *__restrict__ points,
                                                const float4 *__restrict__ foot, uint32_t lane,
                                                uint32_t *__restrict__ masks)
{
    for (int cy = y0; cy <= cy1; cy += uy_count)
        for (int cx = x0; cx <= cx1; cx += ux_count)
            aa_cell<UNIT, false, CUT>(tri, t, cx, cy, grid, cell_start, cell_end, cell_ext, S, own, ct, pool, points,
                                      foot, lane, masks);
}

template <int UNIT, bool CUTS>
__global__ void __launch_bounds__(RASTER_THREADS)
    aa_k2(const float4 *__restrict__ tris, uint32_t tri_capacity, uint32_t ntri,                // in
          const float4 *__restrict__ points, const float4 *__restrict__ foot,                   // in
          const uint32_t *__restrict__ cell_start, const uint32_t *__restrict__ cell_end,       // in
          const float2 *__restrict__ cell_ext, const izb_grid grid, int ux_count, int uy_count, // in
          const aa_frame_state *__restrict__ fs, const __grid_constant__ izb_aa_samples S,
          const aa_own own, const cut_args cut, // in
          uint32_t *__restrict__ masks)            // in/out
{
    constexpr uint32_t UNITS = RASTER_THREADS / UNIT;
    __shared__ float4 s_box[K2_TILE]; /* plane 3 (x0, y0, x1, y1) of the tile's triangles */
    const uint32_t u = blockIdx.x * UNITS + threadIdx.x / UNIT, lane = threadIdx.x % UNIT;
    /* inactive units (the last block's spare ones) still join every barrier */
    const bool active = u < (uint32_t)ux_count * (uint32_t)uy_count;
    const int ux = (int)(u % (uint32_t)ux_count), uy = (int)(u / (uint32_t)ux_count);
    const float ex = __uint_as_float(fs->ex_bits), ey = __uint_as_float(fs->ey_bits);
    const float4 *__restrict__ boxes = tris + 3 * (size_t)tri_capacity;
    for (uint32_t base = 0; base < ntri; base += K2_TILE) {
        const uint32_t count = min((uint32_t)K2_TILE, ntri - base);
        __syncthreads(); /* the previous tile is consumed */
        for (uint32_t k = threadIdx.x; k < count; k += RASTER_THREADS)
            s_box[k] = boxes[base + k];
        __syncthreads();
        if (!active) continue;
        for (uint32_t i = 0; i < count; i++) {
            tri_planes b;
            b.v[3] = s_box[i];
            int cx0, cy0, cx1, cy1; /* reads the box alone */
            izb_aa_tri_cells(&b.t, ex, ey, &grid, &cx0, &cy0, &cx1, &cy1);
            const int x0 = first_owned(cx0, ux, ux_count), y0 = first_owned(cy0, uy, uy_count);
            if (x0 > cx1 || y0 > cy1) continue;
            const uint32_t t = base + i;
            const izb_tri tri = tri_load(tris, tri_capacity, t);
            cut_tri ct;
            if (CUTS && cut_of(cut, t, &ct))
                k2_cells<UNIT, true>(tri, t, x0, y0, cx1, cy1, ux_count, uy_count, grid, cell_start, cell_end,
                                     cell_ext, S, own, ct, cut.pool, points, foot, lane, masks);
            else
                k2_cells<UNIT, false>(tri, t, x0, y0, cx1, cy1, ux_count, uy_count, grid, cell_start, cell_end,
                                      cell_ext, S, own, ct, cut.pool, points, foot, lane, masks);
        }
    }
}

/* Every binned point's byte at its pixel (the CPU's last loop in izb_cpu_aa_raster). */
template <class Mask>
__global__ void aa_resolve(const float4 *__restrict__ points, const uint32_t *__restrict__ masks, uint32_t n,
                           uint32_t width, int samples, Mask mask)
{
    const uint32_t j = blockIdx.x * THREADS + threadIdx.x;
    if (j >= n) return;
    const uint32_t pixel = point_load(points, j).pixel, py = pixel / width;
    mask((int)(pixel - py * width), (int)py, pixel, izb_mask_value(&masks[j], samples));
}

template <class Depth>
static bool launch_extent(const izb_recon *f, const izb_aa_view &V, Depth depth, const aa_own &own,
                          const float4 *points, uint32_t capacity, cuda_frame_info *info, const aa_buffers *b,
                          cudaStream_t s)
{
    CUDA_TRY(cudaMemsetAsync(b->frame, 0, sizeof *b->frame, s));
    auto k = aa_extent_kernel<Depth>;
    CUDA_LAUNCH(k, cuda_blocks(capacity, THREADS), THREADS, 0, s, *f, V, depth, own, points, capacity, info,
                b->frame);
    CUDA_LAUNCH(aa_grow_kernel, 1, 1, 0, s, info, b->frame);
    return true;
}

extern "C" bool aa_extent_run(const izb_recon *f, const cuda_image *img, const uint32_t *pixel_id,
                              const float *xyz, uint32_t scene_n, const float4 *points, uint32_t capacity,
                              cuda_frame_info *info, const aa_buffers *b, cudaStream_t s)
{
    if (capacity == 0 || !izb_aa_samples_ok(f->shadow_samples)) {
        fprintf(stderr, "izb cuda: aa: bad input (%u points, %d samples)\n", capacity, f->shadow_samples);
        return false;
    }
    izb_aa_view V;
    izb_aa_view_make(f, &V);
    const aa_own own = {NULL, pixel_id, xyz, pixel_id ? scene_n : 0u};
    if (img->depth)
        return launch_extent(f, V, depth_from_buffer{img->depth}, own, points, capacity, info, b, s);
    return launch_extent(f, V, depth_from_texture{img->depth_tex}, own, points, capacity, info, b, s);
}

extern "C" bool aa_bbox_restore_run(cuda_frame_info *info, const aa_buffers *b, cudaStream_t s)
{
    CUDA_LAUNCH(aa_restore_kernel, 1, 1, 0, s, info, b->frame);
    return true;
}

template <int UNIT, bool CUTS>
static bool launch_aa(izb_kernel kernel, const raster_args *a, const aa_buffers *b, const izb_aa_samples &S,
                      const aa_own &own, const cut_args &cut, cudaStream_t s)
{
    constexpr uint32_t UNITS = RASTER_THREADS / UNIT;
    const uint32_t ntri = (uint32_t)a->ntri;
    if (kernel == IZB_KERNEL2) {
        int ux, uy;
        raster_k2_units(&a->grid, UNIT, a->sm_count, &ux, &uy);
        auto k = aa_k2<UNIT, CUTS>;
        CUDA_LAUNCH(k, cuda_blocks((size_t)ux * uy, UNITS), RASTER_THREADS, 0, s, a->tris, a->tri_capacity,
                    ntri, a->points, b->foot, a->cell_start, a->cell_end, b->cell_ext, a->grid, ux, uy,
                    b->frame, S, own, cut, b->masks);
    } else {
        auto k = aa_k1<UNIT, CUTS>;
        CUDA_LAUNCH(k, cuda_blocks(ntri, UNITS), RASTER_THREADS, 0, s, a->tris, a->tri_capacity, ntri,
                    a->points, b->foot, a->cell_start, a->cell_end, b->cell_ext, a->grid, b->frame, S, own,
                    cut, b->masks);
    }
    return true;
}

/* launch_aa with the launch's cut-outs (a->cut.tex NULL: none, the kernels without the test) */
template <int UNIT>
static bool launch_aa_cut(izb_kernel kernel, const raster_args *a, const aa_buffers *b, const izb_aa_samples &S,
                          const aa_own &own, cudaStream_t s)
{
    const cut_args cut = {a->tri_id, a->cut.tex, a->cut.uv, a->cut.textures, a->cut.pool};
    return a->cut.tex ? launch_aa<UNIT, true>(kernel, a, b, S, own, cut, s)
                      : launch_aa<UNIT, false>(kernel, a, b, S, own, cut, s);
}

template <class Depth>
static bool launch_foot(const izb_recon *f, Depth depth, const aa_own &own, const raster_args *a,
                        const aa_buffers *b, cudaStream_t s)
{
    izb_aa_view V;
    izb_aa_view_make(f, &V);
    auto k = aa_foot_kernel<Depth>;
    CUDA_LAUNCH(k, cuda_blocks((size_t)a->n, THREADS), THREADS, 0, s, *f, V, depth, own, a->points,
                (uint32_t)a->n, b->foot, b->masks);
    return true;
}

extern "C" bool aa_raster_run(izb_kernel kernel, int unit, const izb_recon *f, const raster_args *a,
                              const cuda_image *img, const aa_buffers *b, cudaStream_t s)
{
    if (a->ntri <= 0 || a->n <= 0 || a->grid.w <= 0 || a->grid.h <= 0 || img->width <= 0 ||
        ((a->pixel_id || a->cut.tex) && !a->tri_id) || !izb_aa_samples_ok(f->shadow_samples)) {
        fprintf(stderr, "izb cuda: aa raster: bad input (%d triangles, %d points)\n", a->ntri, a->n);
        return false;
    }
    const aa_own own = {a->tri_id, a->pixel_id, a->xyz, a->pixel_id ? a->scene_n : 0u};
    if (!(img->depth ? launch_foot(f, depth_from_buffer{img->depth}, own, a, b, s)
                     : launch_foot(f, depth_from_texture{img->depth_tex}, own, a, b, s)))
        return false;
    const uint32_t cells = (uint32_t)a->grid.w * (uint32_t)a->grid.h;
    CUDA_LAUNCH(aa_cell_ext_kernel, cuda_blocks(cells, THREADS), THREADS, 0, s, b->foot, a->cell_start,
                a->cell_end, cells, b->cell_ext);
    izb_aa_samples S;
    izb_aa_samples_make(f->shadow_samples, &S);
    S.persp = f->light_is_spot != 0;
    bool ok;
    switch (unit) {
    case 32:
        ok = launch_aa_cut<32>(kernel, a, b, S, own, s);
        break;
    case 64:
        ok = launch_aa_cut<64>(kernel, a, b, S, own, s);
        break;
    case 128:
        ok = launch_aa_cut<128>(kernel, a, b, S, own, s);
        break;
    case 256:
        ok = launch_aa_cut<256>(kernel, a, b, S, own, s);
        break;
    default:
        fprintf(stderr, "izb cuda: aa raster: unit size %d is not 32, 64, 128 or 256\n", unit);
        return false;
    }
    if (!ok) return false;
    const uint32_t n = (uint32_t)a->n, width = (uint32_t)img->width;
    if (img->mask) {
        auto k = aa_resolve<mask_to_buffer>;
        CUDA_LAUNCH(k, cuda_blocks(n, THREADS), THREADS, 0, s, a->points, b->masks, n, width,
                    f->shadow_samples, mask_to_buffer{img->mask});
    } else {
        auto k = aa_resolve<mask_to_surface>;
        CUDA_LAUNCH(k, cuda_blocks(n, THREADS), THREADS, 0, s, a->points, b->masks, n, width,
                    f->shadow_samples, mask_to_surface{img->mask_surf});
    }
    return true;
}
