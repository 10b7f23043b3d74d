/* recon.cu — point reconstruction fused with the bbox reduction, and the final reduction that
 * also derives the grid on the device (thesis §3.2–3.3.4, figures 3.6–3.7). */
#include "recon.h"

#include "cuda_check.h"
#include "cuda_device.cuh"
#include "cuda_tune.h"

#define RECON_THREADS (1 << IZB_CUDA_RECON_THREADS_LOG2)
#define RECON_LOADS (1 << IZB_CUDA_RECON_LOADS_LOG2)
#define RECON_PIXELS (RECON_THREADS * RECON_LOADS) /* pixels per block */
#define RECON_WARPS (RECON_THREADS / 32)
#define FINAL_THREADS (1 << IZB_CUDA_FINAL_THREADS_LOG2)

/* The frame's matrices reach the kernel as a __grid_constant__ parameter: read by every thread at
 * the same address from the constant bank (the broadcast of thesis §3.2.2), per launch, so no
 * process-global __constant__ symbol and no copy from the caller's pageable memory. */

/* One block: RECON_LOADS depth loads per thread, RECON_THREADS apart so every load of the block
 * is coalesced. Writes the mask of each pixel, its box to block_bbox[blockIdx.x] and its points
 * in pixel order at an offset reserved with one atomicAdd on info->points. */
template <class Depth, class Mask>
__global__ void __launch_bounds__(RECON_THREADS)
recon_kernel(const __grid_constant__ izb_recon frame, // in: the frame's matrices
             Depth depth,                        // in: the depth image
             Mask mask,                          // out: every pixel's initial mask
             uint32_t npix, uint32_t width,      // in
             float4 *__restrict__ points,        // out
             uint32_t capacity,                  // in: room in points
             float4 *__restrict__ block_bbox,    // out: one box per block
             cuda_frame_info *__restrict__ info) // in/out: points, overflows
{
    __shared__ float4 s_box[RECON_WARPS];
    __shared__ uint32_t s_off[RECON_LOADS][RECON_WARPS]; /* points per (round, warp), then offsets */
    __shared__ uint32_t s_base;
    const uint32_t tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
    const uint32_t first = blockIdx.x * RECON_PIXELS + tid; /* < 2^31: npix <= 2^30 (recon_run) */

    izb_point pt[RECON_LOADS];
    bool has[RECON_LOADS];
    float4 box = bbox_empty();
#pragma unroll
    for (int k = 0; k < RECON_LOADS; k++) {
        const uint32_t i = first + (uint32_t)k * RECON_THREADS;
        pt[k] = izb_point{0.0f, 0.0f, 0.0f, 0u};
        has[k] = false;
        if (i < npix) { /* tail guard: no return, every thread joins the ballots and barriers */
            const int py = (int)(i / width), px = (int)(i - (uint32_t)py * width);
            izb_sample_kind kind = izb_reconstruct(&frame, px, py, depth(px, py, i), &pt[k]);
            mask(px, py, i, kind == IZB_UNLIT ? 0 : 255);
            if (kind == IZB_SAMPLE) {
                has[k] = true;
                box = bbox_merge(box, make_float4(pt[k].x, pt[k].y, pt[k].x, pt[k].y));
            }
        }
    }

    /* Rank of each point inside its warp's round: points keep pixel order (round-major, then
     * warp, then lane) and each warp's stores of a round are contiguous (coalesced). */
    const uint32_t lanes_below = (1u << lane) - 1u;
    uint32_t rank[RECON_LOADS];
#pragma unroll
    for (int k = 0; k < RECON_LOADS; k++) {
        const uint32_t ballot = __ballot_sync(IZB_FULL_WARP, has[k]);
        rank[k] = __popc(ballot & lanes_below);
        if (lane == 0)
            s_off[k][warp] = __popc(ballot);
    }
    box = bbox_block_reduce<RECON_THREADS>(box, s_box); /* its barrier also publishes s_off */

    if (tid == 0) {
        block_bbox[blockIdx.x] = box;
        uint32_t sum = 0;
        for (int k = 0; k < RECON_LOADS; k++)
            for (int w = 0; w < RECON_WARPS; w++) {
                const uint32_t c = s_off[k][w];
                s_off[k][w] = sum;
                sum += c;
            }
        s_base = sum ? atomicAdd(&info->points, sum) : 0u; /* one global atomic per block */
    }
    __syncthreads();

#pragma unroll
    for (int k = 0; k < RECON_LOADS; k++) {
        if (!has[k])
            continue;
        const uint32_t j = s_base + s_off[k][warp] + rank[k];
        if (j < capacity)
            point_store(points, j, pt[k]);
        else
            atomicAdd(&info->overflows, 1u);
    }
}

/* Second stage (figure 3.7): one block reduces the per-block boxes, several loads per thread, and
 * derives the grid from the box and the point count — no host round trip in between. */
__global__ void __launch_bounds__(FINAL_THREADS)
recon_final_kernel(const float4 *__restrict__ block_bbox, // in
                   uint32_t nblocks, uint32_t capacity,   // in
                   int req_w, int req_h,                  // in: requested grid (0 = adaptive)
                   cuda_frame_info *__restrict__ info)    // in: points; out: bbox, grid
{
    __shared__ float4 s_box[FINAL_THREADS / 32];
    float4 box = bbox_empty();
    for (uint32_t i = threadIdx.x; i < nblocks; i += FINAL_THREADS)
        box = bbox_merge(box, block_bbox[i]);
    box = bbox_block_reduce<FINAL_THREADS>(box, s_box);
    if (threadIdx.x == 0) {
        const uint32_t n = min(info->points, capacity);
        const izb_bbox b = {box.x, box.y, box.z, box.w};
        izb_grid g = {0.0f, 0.0f, 0.0f, 0.0f, 0, 0}; /* as the CPU backend: no points, no grid */
        if (n > 0)
            g = izb_grid_make(b, (int)n, req_w, req_h);
        info->bbox = b;
        info->grid = g;
    }
}

extern "C" uint32_t recon_block_count(size_t npix) { return (uint32_t)((npix + RECON_PIXELS - 1) / RECON_PIXELS); }

template <class Depth, class Mask>
static bool launch_recon(const izb_recon *f, Depth depth, Mask mask, uint32_t npix, uint32_t width,
                         const recon_buffers *b, cudaStream_t s)
{
    auto kernel = recon_kernel<Depth, Mask>;
    CUDA_LAUNCH(kernel, recon_block_count(npix), RECON_THREADS, 0, s, *f, depth, mask, npix, width, b->points,
                b->capacity, b->block_bbox, b->info);
    return true;
}

extern "C" bool recon_run(const izb_recon *f, const cuda_image *img, int req_w, int req_h, const recon_buffers *b,
                          cudaStream_t s)
{
    const size_t npix = (size_t)f->width * (size_t)f->height;
    if (f->width <= 0 || f->height <= 0 || npix > ((size_t)1 << 30) || img->width != f->width ||
        img->height != f->height) {
        fprintf(stderr, "izb cuda: reconstruct: bad image size %dx%d\n", f->width, f->height);
        return false;
    }
    CUDA_TRY(cudaMemsetAsync(b->info, 0, sizeof *b->info, s));
    bool ok;
    if (img->depth && img->mask)
        ok = launch_recon(f, depth_from_buffer{img->depth}, mask_to_buffer{img->mask}, (uint32_t)npix,
                          (uint32_t)f->width, b, s);
    else if (!img->depth && !img->mask)
        ok = launch_recon(f, depth_from_texture{img->depth_tex}, mask_to_surface{img->mask_surf},
                          (uint32_t)npix, (uint32_t)f->width, b, s);
    else {
        fprintf(stderr, "izb cuda: reconstruct: mixed buffer/GL image\n");
        return false;
    }
    if (!ok)
        return false;
    CUDA_LAUNCH(recon_final_kernel, 1, FINAL_THREADS, 0, s, b->block_bbox, recon_block_count(npix), b->capacity,
                req_w, req_h, b->info);
    return true;
}
