/* cull.cu — triangle culling and compaction (thesis §4.4, figure 4.18): flags -> exclusive scan
 * (cub::DeviceScan) -> scatter. The scatter sets each surviving triangle up again instead of
 * reading a full-size array of set-up triangles: the setup is a few dozen flops per triangle, the
 * array would be 64 bytes written and read per input triangle. izb_tri_setup is deterministic, so
 * both passes agree. */
#include "cull.h"

#include <string.h>

#include <cub/device/device_scan.cuh>

#include "cuda_check.h"
#include "cuda_device.cuh"
#include "cuda_tune.h"

#define THREADS (1 << IZB_CUDA_THREADS_LOG2)

/* world -> light clip (frame->light), a kernel parameter: read-only, in the constant bank, broadcast
 * like __constant__ memory but per launch. Not a __constant__ symbol filled with
 * cudaMemcpyToSymbolAsync from the caller's pageable stack: that is process-global state shared by
 * all backends, and a pageable source can make the "async" copy stall the host. __grid_constant__
 * lets the kernel take its address without a local copy. */
struct light_matrix {
    float m[16];
};

struct cull_view { /* what every thread needs from the frame, loaded once */
    izb_grid grid;
    izb_bbox bbox;
    bool any_points;
};

static __device__ __forceinline__ cull_view view_load(const cuda_frame_info *info)
{
    cull_view v;
    v.grid = info->grid;
    v.bbox = info->bbox;
    v.any_points = info->points > 0;
    return v;
}

static __device__ __forceinline__ bool setup(const float *__restrict__ xyz, size_t n, uint32_t i, const cull_view &v,
                                             const float *light, const izb_cull_view &cull, izb_tri *t)
{
    float clip[3][4];
#pragma unroll
    for (int k = 0; k < 3; k++) {
        const float p[3] = {xyz[(3 * k + 0) * n + i], xyz[(3 * k + 1) * n + i], xyz[(3 * k + 2) * n + i]};
        izb_transform(light, p, clip[k]);
    }
    return izb_tri_setup(clip, &v.grid, &v.bbox, izb_may_cull(&cull, i), t);
}

/* flags[i] = triangle i survives; flags[n] = 0 so the scan's last entry is the total. */
__global__ void cull_flag_kernel(const float *__restrict__ xyz, uint32_t n, izb_cull_view cull, // in
                                 const __grid_constant__ light_matrix light,                 // in
                                 const cuda_frame_info *__restrict__ info,                  // in
                                 uint32_t *__restrict__ flags)                              // out: n + 1
{
    const uint32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i > n)
        return;
    const cull_view v = view_load(info);
    izb_tri t;
    flags[i] = i < n && v.any_points && setup(xyz, n, i, v, light.m, cull, &t) ? 1u : 0u;
}

__global__ void cull_scatter_kernel(const float *__restrict__ xyz, uint32_t n, izb_cull_view cull, // in
                                    const __grid_constant__ light_matrix light,                    // in
                                    const uint32_t *__restrict__ flags,                            // in
                                    const uint32_t *__restrict__ offsets,         // in: exclusive scan
                                    cuda_frame_info *__restrict__ info,           // in; out: tris
                                    float4 *__restrict__ tris, uint32_t capacity, // out
                                    uint32_t *__restrict__ tri_id)                // out, may be NULL
{
    const uint32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i == 0)
        info->tris = min(offsets[n], capacity);
    if (i >= n || !flags[i])
        return;
    const cull_view v = view_load(info);
    izb_tri t;
    setup(xyz, n, i, v, light.m, cull, &t);
    const uint32_t j = offsets[i];
    if (j < capacity) {
        tri_store(tris, capacity, j, t);
        if (tri_id) tri_id[j] = i;
    } else
        atomicAdd(&info->overflows, 1u);
}

extern "C" size_t cull_temp_bytes(int n)
{
    size_t bytes = 0;
    const cudaError_t err = cub::DeviceScan::ExclusiveSum(nullptr, bytes, (uint32_t *)nullptr, (uint32_t *)nullptr, n + 1);
    if (err != cudaSuccess) /* a failed count would read as "nothing survived": name the cause */
        return cuda_report(err, "culling scratch size (cub::DeviceScan::ExclusiveSum)", __FILE__, __LINE__), 0;
    return bytes;
}

extern "C" bool cull_run(const float light[16], int n, const izb_cull_view *cull, const cull_buffers *b,
                         cudaStream_t s)
{
    if (n <= 0 || n >= (1 << 30)) {
        fprintf(stderr, "izb cuda: culling: bad triangle count %d\n", n);
        return false;
    }
    size_t need = cull_temp_bytes(n);
    if (!need || !cuda_scratch_reserve(b->temp, need, "culling scratch"))
        return false;
    light_matrix lm;
    memcpy(lm.m, light, sizeof lm.m);
    const uint32_t un = (uint32_t)n;
    CUDA_LAUNCH(cull_flag_kernel, cuda_blocks(un + 1, THREADS), THREADS, 0, s, b->xyz, un, *cull, lm, b->info,
                b->flags);
    size_t bytes = b->temp->bytes;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(b->temp->ptr, bytes, b->flags, b->offsets, n + 1, s));
    CUDA_LAUNCH(cull_scatter_kernel, cuda_blocks(un, THREADS), THREADS, 0, s, b->xyz, un, *cull, lm, b->flags,
                b->offsets, b->info, b->tris, b->capacity, b->tri_id);
    return true;
}
