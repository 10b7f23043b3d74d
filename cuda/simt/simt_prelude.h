/* simt_prelude.h — force-included (g++ -include) before every the .cu files of cuda/ compiled for the SIMT
 * emulator: CUDA's device vocabulary in plain C++17, so the .cu files compile unchanged.
 * The one `<<<...>>>` of the project is inside CUDA_LAUNCH (cuda/cuda_check.h): this prelude includes
 * that header first and redefines CUDA_LAUNCH to queue the launch on the emulator instead.
 */
#ifndef SIMT_PRELUDE_H
#define SIMT_PRELUDE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "simt.h"

/* ---- qualifiers ------------------------------------------------------------------------------ */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __grid_constant__
/* __constant__ data is host data the runtime copies into (cudaMemcpyToSymbol*). */
#define __constant__
/* A worker runs one block at a time to completion, so a per-OS-thread static is a per-block
 * array. Block-scope thread_local implies static; `extern __shared__ T a[]` becomes an extern
 * thread_local defined by the generated simt_dynamic_shared.cpp. */
#define __shared__ thread_local

#define threadIdx simt_threadIdx
#define blockIdx simt_blockIdx
#define blockDim simt_blockDim
#define gridDim simt_gridDim
static constexpr int warpSize = 32;

#define SIMT_SITE_ (simt::site{__FILE__, __LINE__})

/* ---- barriers and warp collectives: real meeting points (simt_exec.cpp) ----------------------- */
#define __syncthreads() simt::syncthreads(SIMT_SITE_)
#define __syncwarp(...) simt_syncwarp_(SIMT_SITE_, ##__VA_ARGS__)
#define __ballot_sync(mask, pred) \
    ((unsigned)simt::warp_collective(simt::coll::ballot, (mask), (pred) ? 1u : 0u, 0, 32, SIMT_SITE_))
#define __any_sync(mask, pred) \
    ((int)simt::warp_collective(simt::coll::any, (mask), (pred) ? 1u : 0u, 0, 32, SIMT_SITE_))
#define __all_sync(mask, pred) \
    ((int)simt::warp_collective(simt::coll::all, (mask), (pred) ? 1u : 0u, 0, 32, SIMT_SITE_))
#define __shfl_xor_sync(mask, v, lm, ...) simt_shfl_(simt::coll::shfl_xor, (mask), (v), (lm), SIMT_SITE_, ##__VA_ARGS__)
#define __shfl_sync(mask, v, src, ...) simt_shfl_(simt::coll::shfl_idx, (mask), (v), (src), SIMT_SITE_, ##__VA_ARGS__)
#define __shfl_up_sync(mask, v, d, ...) simt_shfl_(simt::coll::shfl_up, (mask), (v), (d), SIMT_SITE_, ##__VA_ARGS__)
#define __shfl_down_sync(mask, v, d, ...) simt_shfl_(simt::coll::shfl_down, (mask), (v), (d), SIMT_SITE_, ##__VA_ARGS__)

static inline void simt_syncwarp_(simt::site s, unsigned mask = 0xffffffffu)
{
    simt::warp_collective(simt::coll::syncwarp, mask, 0, 0, 32, s);
}
template <class T> static inline T simt_shfl_(simt::coll k, unsigned mask, T v, int arg, simt::site s, int width = 32)
{
    return simt::from_bits<T>(simt::warp_collective(k, mask, simt::to_bits(v), arg, width, s));
}

/* ---- integer and bit intrinsics ---------------------------------------------------------------- */
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline unsigned __brev(unsigned x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
static inline unsigned __float_as_uint(float f) { return simt::from_bits<unsigned>(simt::to_bits(f)); }
static inline int __float_as_int(float f) { return simt::from_bits<int>(simt::to_bits(f)); }
static inline float __uint_as_float(unsigned u) { return simt::from_bits<float>(simt::to_bits(u)); }
static inline float __int_as_float(int i) { return simt::from_bits<float>(simt::to_bits(i)); }

/* CUDA's overloaded min/max for device code (mixed signedness goes unsigned, as in CUDA). */
static inline int min(int a, int b) { return a < b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned min(int a, unsigned b) { return min((unsigned)a, b); }
static inline unsigned min(unsigned a, int b) { return min(a, (unsigned)b); }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline unsigned max(int a, unsigned b) { return max((unsigned)a, b); }
static inline unsigned max(unsigned a, int b) { return max(a, (unsigned)b); }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
static inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
static inline float max(float a, float b) { return fmaxf(a, b); }

static inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
static inline float2 make_float2(float x, float y) { return float2{x, y}; }
static inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
static inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }

/* ---- atomics: real atomics across workers; relaxed, like CUDA's (old value returned) ------------ */
template <class T> static inline T simt_atomic_add_(T *p, T v)
{
    simt::maybe_yield();
    if constexpr (std::is_floating_point<T>::value) {
        T old, sum;
        __atomic_load(p, &old, __ATOMIC_RELAXED);
        do
            sum = old + v;
        while (!__atomic_compare_exchange(p, &old, &sum, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        return old;
    } else {
        return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    }
}
static inline unsigned atomicAdd(unsigned *p, unsigned v) { return simt_atomic_add_(p, v); }
static inline int atomicAdd(int *p, int v) { return simt_atomic_add_(p, v); }
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return simt_atomic_add_(p, v); }
static inline float atomicAdd(float *p, float v) { return simt_atomic_add_(p, v); }
static inline unsigned atomicSub(unsigned *p, unsigned v) { return simt_atomic_add_(p, 0u - v); }
static inline int atomicSub(int *p, int v) { return simt_atomic_add_(p, -v); }
template <class T> static inline T simt_atomic_minmax_(T *p, T v, bool want_max)
{
    simt::maybe_yield();
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while ((want_max ? v > old : v < old) &&
           !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}
static inline unsigned atomicMax(unsigned *p, unsigned v) { return simt_atomic_minmax_(p, v, true); }
static inline int atomicMax(int *p, int v) { return simt_atomic_minmax_(p, v, true); }
static inline unsigned atomicMin(unsigned *p, unsigned v) { return simt_atomic_minmax_(p, v, false); }
static inline int atomicMin(int *p, int v) { return simt_atomic_minmax_(p, v, false); }
template <class T> static inline T atomicExch(T *p, T v)
{
    simt::maybe_yield();
    return __atomic_exchange_n(p, v, __ATOMIC_RELAXED);
}
template <class T> static inline T atomicCAS(T *p, T expected, T desired)
{
    simt::maybe_yield();
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return expected;
}
template <class T> static inline T atomicOr(T *p, T v)
{
    simt::maybe_yield();
    return __atomic_fetch_or(p, v, __ATOMIC_RELAXED);
}
template <class T> static inline T atomicAnd(T *p, T v)
{
    simt::maybe_yield();
    return __atomic_fetch_and(p, v, __ATOMIC_RELAXED);
}
/* __ldcg: a load cached in L2 only, so it sees other SMs' atomics there (no stale L1 line): a
 * relaxed atomic load here, so race mode takes it for what it is on the device, a load that may
 * meet concurrent atomics on purpose (cuda/raster_soft.cu's early-out reads). Strict mode
 * interleaves threads at it, as at an atomic. */
template <class T> static inline T __ldcg(const T *p)
{
    simt::maybe_yield();
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* ---- texture and surface objects (simt_runtime.cpp) --------------------------------------------- */
extern "C" float simt_tex2d_float(cudaTextureObject_t tex, float x, float y);
extern "C" void simt_surf2d_write(cudaSurfaceObject_t surf, const void *value, size_t bytes, int x_bytes, int y,
                                  int boundary);
template <class T> static inline T tex2D(cudaTextureObject_t tex, float x, float y)
{
    static_assert(std::is_same<T, float>::value, "the emulator samples float textures only");
    return simt_tex2d_float(tex, x, y);
}
template <class T>
static inline void surf2Dwrite(T value, cudaSurfaceObject_t surf, int x_bytes, int y,
                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    simt_surf2d_write(surf, &value, sizeof value, x_bytes, y, (int)mode);
}

/* ---- launches ----------------------------------------------------------------------------------- */
#include "../cuda_check.h"
#undef CUDA_LAUNCH
#define CUDA_LAUNCH(kernel, grid, block, smem, stream, ...)                                        \
    do {                                                                                           \
        simt::launch(#kernel, SIMT_SITE_, kernel, dim3(grid), dim3(block), (smem), (stream), __VA_ARGS__); \
        if (!cuda_launch_check(#kernel, __FILE__, __LINE__, (stream)))                            \
            return false;                                                                          \
    } while (0)

#endif
