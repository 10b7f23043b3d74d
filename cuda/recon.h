/* recon.h — stage 1 on the device: point reconstruction fused with the bbox reduction (thesis
 * §3.2–3.3.4), then a single-block stage that reduces the per-block boxes and derives the grid.
 */
#ifndef IZB_CUDA_RECON_H
#define IZB_CUDA_RECON_H

#include "cuda_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-block boxes recon_run needs room for at npix pixels. */
uint32_t recon_block_count(size_t npix);

typedef struct recon_buffers {
    float4 *points;           /* out: sample points, room for `capacity` (order: see recon_run) */
    uint32_t capacity;        /* width*height always suffices */
    float4 *block_bbox;       /* scratch: recon_block_count(width*height) boxes */
    cuda_frame_info *info;    /* out: reset, then points, bbox, grid, overflows */
} recon_buffers;

/* Reconstruct every pixel of img (f->width x f->height) on stream s: write the mask of every pixel
 * (0 for IZB_UNLIT, 255 otherwise: the frame's initial mask), the points, and into *info the point
 * count, their bbox and izb_grid_make(bbox, count, req_w, req_h). Points are in pixel order within
 * each block of 2^(RECON_THREADS_LOG2 + RECON_LOADS_LOG2) pixels; blocks land in any order (one
 * atomicAdd per block), so the order differs from the CPU's but the set is the same. */
bool recon_run(const izb_recon *f, const cuda_image *img, int req_w, int req_h, const recon_buffers *b,
               cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
