/* stages.cu — the test entry points of izb_cuda_stages.h: each stage on host arrays, through the
 * same launchers the backend uses. */
#include "izb_cuda_stages.h"

#include <string.h>

#include "binning.h"
#include "cuda_check.h"
#include "cuda_common.h"
#include "cull.h"
#include "raster.h"
#include "recon.h"

namespace {

/* Device allocations freed when the call returns, whichever way. */
struct device_arena {
    void *ptr[16] = {};
    int count = 0;
    cuda_scratch temp = {nullptr, 0};
    ~device_arena()
    {
        cudaDeviceSynchronize();
        for (int i = 0; i < count; i++)
            cudaFree(ptr[i]);
        cuda_scratch_free(&temp);
    }
    template <class T> bool alloc(T **p, size_t n)
    {
        *p = nullptr;
        if (count == 16)
            return false;
        cudaError_t err = cudaMalloc((void **)p, (n ? n : 1) * sizeof(T));
        if (err != cudaSuccess) {
            *p = nullptr;
            return cuda_report(err, "cudaMalloc", __FILE__, __LINE__);
        }
        ptr[count++] = *p;
        return true;
    }
};

int sm_count()
{
    int dev = 0, sm = 1;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        sm = 1;
    return sm;
}

} // namespace

extern "C" bool izb_cuda_available(const char **why)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    cudaGetLastError();
    if (why)
        *why = err != cudaSuccess ? cudaGetErrorString(err) : count == 0 ? "no device found" : "";
    return err == cudaSuccess && count > 0;
}

extern "C" bool izb_cuda_stage_reconstruct(const izb_recon *f, const float *depth, int req_w, int req_h,
                                           izb_point *points, uint8_t *mask, int *count, izb_bbox *bbox,
                                           izb_grid *grid)
{
    const size_t npix = (size_t)f->width * (size_t)f->height;
    device_arena a;
    float *d_depth;
    uint8_t *d_mask;
    float4 *d_points, *d_boxes;
    cuda_frame_info *d_info;
    if (!a.alloc(&d_depth, npix) || !a.alloc(&d_mask, npix) || !a.alloc(&d_points, npix) ||
        !a.alloc(&d_boxes, recon_block_count(npix)) || !a.alloc(&d_info, 1))
        return false;
    CUDA_TRY(cudaMemcpy(d_depth, depth, npix * sizeof(float), cudaMemcpyHostToDevice));
    const cuda_image img = {d_depth, 0, d_mask, 0, f->width, f->height};
    const recon_buffers rb = {d_points, (uint32_t)npix, d_boxes, d_info};
    if (!recon_run(f, &img, req_w, req_h, &rb, 0))
        return false;
    cuda_frame_info info;
    CUDA_TRY(cudaMemcpy(&info, d_info, sizeof info, cudaMemcpyDeviceToHost));
    if (info.overflows || info.points > npix) {
        fprintf(stderr, "izb cuda: reconstruct: %u overflows, %u points\n", info.overflows, info.points);
        return false;
    }
    CUDA_TRY(cudaMemcpy(points, d_points, info.points * sizeof(izb_point), cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(mask, d_mask, npix, cudaMemcpyDeviceToHost));
    *count = (int)info.points;
    *bbox = info.bbox;
    *grid = info.grid;
    return true;
}

extern "C" bool izb_cuda_stage_bin(const izb_point *in, int n, const izb_grid *g, izb_binning mode, izb_point *out,
                                   uint32_t *cell_start, uint32_t *cell_end)
{
    const size_t cells = (size_t)g->w * (size_t)g->h;
    device_arena a;
    bin_buffers bb;
    float4 *d_in, *d_out;
    if (!a.alloc(&d_in, n) || !a.alloc(&d_out, n) || !a.alloc(&bb.cell_start, cells) || !a.alloc(&bb.cell_end, cells) ||
        !a.alloc(&bb.cell_count, cells) || !a.alloc(&bb.keys[0], n) || !a.alloc(&bb.keys[1], n) ||
        !a.alloc(&bb.vals[0], n) || !a.alloc(&bb.vals[1], n) || !a.alloc(&bb.block_off, bin_block_off_capacity()))
        return false;
    bb.points = d_in;
    bb.binned = d_out;
    bb.temp = &a.temp;
    CUDA_TRY(cudaMemcpy(d_in, in, (size_t)n * sizeof(izb_point), cudaMemcpyHostToDevice));
    if (!bin_run(mode, g, n, &bb, 0))
        return false;
    CUDA_TRY(cudaMemcpy(out, d_out, (size_t)n * sizeof(izb_point), cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(cell_start, bb.cell_start, cells * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(cell_end, bb.cell_end, cells * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    return true;
}

extern "C" bool izb_cuda_stage_cull(const float *xyz, int n, const izb_recon *f, const izb_grid *g,
                                    const izb_bbox *bbox, bool cull_back, int capacity, izb_tri *out, uint32_t *ids,
                                    int *count, int *overflows)
{
    if (n < 1 || capacity < 1 || capacity > n) {
        fprintf(stderr, "izb cuda: stage cull: bad count %d or capacity %d\n", n, capacity);
        return false;
    }
    const size_t un = (size_t)n, cap = (size_t)capacity;
    device_arena a;
    cull_buffers cb;
    float *d_xyz;
    uint32_t *d_flags, *d_offsets, *d_ids = nullptr;
    float4 *d_tris;
    cuda_frame_info *d_info;
    if (!a.alloc(&d_xyz, 9 * un) || !a.alloc(&d_flags, un + 1) || !a.alloc(&d_offsets, un + 1) ||
        !a.alloc(&d_tris, 4 * cap) || !a.alloc(&d_info, 1) || (ids && !a.alloc(&d_ids, cap)))
        return false;
    /* a fill the stage must leave alone past its count */
    CUDA_TRY(cudaMemset(d_tris, 0xAB, 4 * cap * sizeof(float4)));
    if (d_ids)
        CUDA_TRY(cudaMemset(d_ids, 0xAB, cap * sizeof(uint32_t)));
    float *soa = new float[9 * un];
    for (size_t i = 0; i < un; i++)
        for (size_t k = 0; k < 9; k++)
            soa[k * un + i] = xyz[9 * i + k];
    cudaError_t err = cudaMemcpy(d_xyz, soa, 9 * un * sizeof(float), cudaMemcpyHostToDevice);
    delete[] soa;
    CUDA_TRY(err);
    cuda_frame_info info;
    memset(&info, 0, sizeof info);
    info.bbox = *bbox;
    info.grid = *g;
    info.points = 1; /* the reference culls against the given bbox whatever the point count */
    CUDA_TRY(cudaMemcpy(d_info, &info, sizeof info, cudaMemcpyHostToDevice));
    cb.xyz = d_xyz;
    cb.flags = d_flags;
    cb.offsets = d_offsets;
    cb.tris = d_tris;
    cb.capacity = (uint32_t)cap;
    cb.info = d_info;
    cb.temp = &a.temp;
    cb.tri_id = d_ids;
    const izb_cull_view cv = {cull_back ? IZB_CULL_ON : IZB_CULL_OFF, NULL, NULL, {0.0f, 0.0f, 0.0f}, 0, 0.0f};
    if (!cull_run(f->light, n, &cv, &cb, 0))
        return false;
    CUDA_TRY(cudaMemcpy(&info, d_info, sizeof info, cudaMemcpyDeviceToHost));
    /* planes -> izb_tri: plane k of triangle i is words 4k..4k+3; every slot, the unwritten too */
    float4 *planes = new float4[4 * cap];
    err = cudaMemcpy(planes, d_tris, 4 * cap * sizeof(float4), cudaMemcpyDeviceToHost);
    for (size_t i = 0; err == cudaSuccess && i < cap; i++)
        for (size_t k = 0; k < 4; k++)
            memcpy((char *)&out[i] + 16 * k, &planes[k * cap + i], 16);
    delete[] planes;
    CUDA_TRY(err);
    if (d_ids)
        CUDA_TRY(cudaMemcpy(ids, d_ids, cap * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    *count = (int)info.tris;
    *overflows = (int)info.overflows;
    return true;
}

extern "C" bool izb_cuda_stage_raster(const izb_tri *tris, int nt, const izb_point *points, int n,
                                      const uint32_t *cell_start, const uint32_t *cell_end, const izb_grid *g,
                                      izb_kernel kernel, int unit, int k1_split, uint8_t *mask, int width,
                                      int height)
{
    const size_t cells = (size_t)g->w * (size_t)g->h, npix = (size_t)width * (size_t)height, unt = (size_t)nt;
    device_arena a;
    float4 *d_tris, *d_points;
    uint32_t *d_start, *d_end;
    uint8_t *d_shadow, *d_mask;
    if (!a.alloc(&d_tris, 4 * unt) || !a.alloc(&d_points, (size_t)n) || !a.alloc(&d_start, cells) ||
        !a.alloc(&d_end, cells) || !a.alloc(&d_shadow, (size_t)n) || !a.alloc(&d_mask, npix))
        return false;
    float4 *planes = new float4[4 * unt];
    for (size_t i = 0; i < unt; i++)
        for (size_t k = 0; k < 4; k++)
            memcpy(&planes[k * unt + i], (const char *)&tris[i] + 16 * k, 16);
    cudaError_t err = cudaMemcpy(d_tris, planes, 4 * unt * sizeof(float4), cudaMemcpyHostToDevice);
    delete[] planes;
    CUDA_TRY(err);
    CUDA_TRY(cudaMemcpy(d_points, points, (size_t)n * sizeof(izb_point), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_start, cell_start, cells * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_end, cell_end, cells * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_mask, mask, npix, cudaMemcpyHostToDevice));
    const raster_args ra = {d_tris, (uint32_t)unt, nt, d_points, n, d_start, d_end, *g, d_shadow, sm_count(), k1_split};
    const cuda_image img = {nullptr, 0, d_mask, 0, width, height};
    const int u = raster_unit_size(unit, nt, n, (int)cells);
    if (!raster_run(kernel, u, &ra, &img, 0))
        return false;
    CUDA_TRY(cudaMemcpy(mask, d_mask, npix, cudaMemcpyDeviceToHost));
    return true;
}

extern "C" void izb_cuda_k2_units(const izb_grid *g, int unit, int *ux, int *uy)
{
    raster_k2_units(g, unit, sm_count(), ux, uy);
}
