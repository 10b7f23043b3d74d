/* cuda_device.cuh — device helpers shared by the stage kernels (C++ only, included by .cu files):
 * 16-byte loads/stores of izb_point and izb_tri, the depth sources and mask sinks the image
 * templates are instantiated with, the warp-shuffle bbox reduction, and the cut-outs' kernel
 * parameter and per-triangle load (raster.cu, raster_aa.cu).
 */
#ifndef IZB_CUDA_DEVICE_CUH
#define IZB_CUDA_DEVICE_CUH

#include <stdint.h>

#include "../core/izb_alpha.h"
#include "cuda_common.h"

#define IZB_FULL_WARP 0xffffffffu

static_assert(sizeof(izb_point) == 16, "izb_point must be one float4 (thesis §4.1.2)");
static_assert(sizeof(izb_tri) == 64, "izb_tri must be four float4 planes");
static_assert(sizeof(izb_tri) % sizeof(float4) == 0, "izb_tri planes");

/* izb_point's alignment is 4, so a direct struct load would be four 4-byte loads; the buffers are
 * float4 (cudaMalloc aligns to 256 B) and the pixel index travels as the float's bits. */
static __device__ __forceinline__ izb_point point_load(const float4 *a, uint32_t i)
{
    float4 v = a[i];
    izb_point p;
    p.x = v.x;
    p.y = v.y;
    p.z = v.z;
    p.pixel = __float_as_uint(v.w);
    return p;
}

static __device__ __forceinline__ void point_store(float4 *a, uint32_t i, const izb_point &p)
{
    a[i] = make_float4(p.x, p.y, p.z, __uint_as_float(p.pixel));
}

/* A triangle as its 4 float4 planes: plane k holds words 4k..4k+3 of izb_tri (e[3][3], z[3],
 * x0, y0, x1, y1). The union gives the local copy float4 alignment. */
union tri_planes {
    izb_tri t;
    float4 v[4];
};

/* Plane k of triangle i lives at planes[k * capacity + i]. */
static __device__ __forceinline__ izb_tri tri_load(const float4 *planes, size_t capacity, uint32_t i)
{
    tri_planes u;
#pragma unroll
    for (int k = 0; k < 4; k++)
        u.v[k] = planes[(size_t)k * capacity + i];
    return u.t;
}

static __device__ __forceinline__ void tri_store(float4 *planes, size_t capacity, uint32_t i, const izb_tri &t)
{
    tri_planes u;
    u.t = t;
#pragma unroll
    for (int k = 0; k < 4; k++)
        planes[(size_t)k * capacity + i] = u.v[k];
}

/* kernel2's cell ownership (raster.cu, raster_aa.cu): the smallest c >= lo with c % m == own
 * (lo >= 0, 0 <= own < m). */
static __device__ __forceinline__ int first_owned(int lo, int own, int m)
{
    int d = (own - lo) % m;
    return lo + (d < 0 ? d + m : d);
}

/* Depth sources: the value at pixel (px, py), linear index i = py * width + px. */
struct depth_from_buffer {
    const float *p;
    __device__ float operator()(int, int, uint32_t i) const { return p[i]; }
};
struct depth_from_texture {
    cudaTextureObject_t tex; /* point sampling, unnormalised coordinates: texel centre is exact */
    __device__ float operator()(int px, int py, uint32_t) const
    {
        return tex2D<float>(tex, (float)px + 0.5f, (float)py + 0.5f);
    }
};

/* Mask sinks: store v at pixel (px, py) / index i. */
struct mask_to_buffer {
    uint8_t *p;
    __device__ void operator()(int, int, uint32_t i, uint8_t v) const { p[i] = v; }
};
struct mask_to_surface {
    cudaSurfaceObject_t surf; /* R8: x is in bytes */
    __device__ void operator()(int px, int py, uint32_t, uint8_t v) const { surf2Dwrite(v, surf, px, py); }
};

/* bbox as float4 (min_x, min_y, max_x, max_y); fminf/fmaxf ignore NaN and are exact, so the
 * result does not depend on the reduction order and equals the CPU's bit for bit (up to the
 * sign of a zero, which compares equal). */
static __device__ __forceinline__ float4 bbox_empty() { return make_float4(INFINITY, INFINITY, -INFINITY, -INFINITY); }

static __device__ __forceinline__ float4 bbox_merge(float4 a, float4 b)
{
    return make_float4(fminf(a.x, b.x), fminf(a.y, b.y), fmaxf(a.z, b.z), fmaxf(a.w, b.w));
}

/* Unrolled butterfly over the warp: every lane ends with the warp's box. */
static __device__ __forceinline__ float4 bbox_warp_reduce(float4 b)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        float4 n;
        n.x = __shfl_xor_sync(IZB_FULL_WARP, b.x, o);
        n.y = __shfl_xor_sync(IZB_FULL_WARP, b.y, o);
        n.z = __shfl_xor_sync(IZB_FULL_WARP, b.z, o);
        n.w = __shfl_xor_sync(IZB_FULL_WARP, b.w, o);
        b = bbox_merge(b, n);
    }
    return b;
}

/* Block-wide box, valid in warp 0 (thread 0 writes it). The level across warps reads s_warp with
 * sequential addressing (lane i reads word i: no bank conflicts). All THREADS threads must call
 * it; it contains one __syncthreads. */
template <int THREADS>
static __device__ __forceinline__ float4 bbox_block_reduce(float4 b, float4 *s_warp /* [THREADS/32] */)
{
    static_assert(THREADS % 32 == 0 && THREADS <= 1024, "block size");
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    b = bbox_warp_reduce(b);
    if (lane == 0)
        s_warp[warp] = b;
    __syncthreads();
    if (warp == 0) {
        b = lane < THREADS / 32 ? s_warp[lane] : bbox_empty();
        b = bbox_warp_reduce(b);
    }
    return b;
}

/* Cut-outs (raster_cut with the survivors' scene indices) as one kernel parameter (raster.cu,
 * raster_aa.cu; raster_soft.cu names scene triangles itself and leaves tri_id NULL) */
struct cut_args {
    const uint32_t *tri_id, *tex;
    const float *uv;
    const izb_alpha_tex *textures;
    const uint8_t *pool;
};

/* A cut-out survivor's alpha-test inputs, loaded once per triangle into registers (every lane of
 * the unit loads the same words: broadcast). */
struct cut_tri {
    izb_alpha_tex tex;
    float uv[6];
};

/* Is scene triangle id a cut-out? Then *ct holds its inputs. Uniform over the unit (one triangle),
 * so the branch on it never diverges; opaque triangles take the loops without the test. */
static __device__ __forceinline__ bool cut_of_scene(const cut_args &c, uint32_t id, cut_tri *ct)
{
    const uint32_t k = c.tex[id];
    if (k == IZB_OPAQUE)
        return false;
    ct->tex = c.textures[k];
#pragma unroll
    for (int i = 0; i < 6; i++)
        ct->uv[i] = c.uv[6 * (size_t)id + (size_t)i];
    return true;
}

/* The same for compacted triangle t (its scene index from c.tri_id). */
static __device__ __forceinline__ bool cut_of(const cut_args &c, uint32_t t, cut_tri *ct)
{
    return cut_of_scene(c, c.tri_id[t], ct);
}

#endif
