/* cuda_common.h — POD types shared by the CUDA stages and the backend, readable by C and C++.
 * Device buffers hold points as float4 (izb_point bit for bit, thesis §4.1.2) and triangles as 4
 * float4 planes (izb_tri bit for bit, see cull.h), so kernels load them with 16-byte loads.
 */
#ifndef IZB_CUDA_COMMON_H
#define IZB_CUDA_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "../core/izb_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the device learns per frame, read back by the host once (after culling). Reset by
 * recon_run at the start of a frame. */
typedef struct cuda_frame_info {
    izb_bbox bbox;      /* points' bbox; empty (+inf, +inf, -inf, -inf) when there are none */
    izb_grid grid;      /* izb_grid_make(bbox, points, req); all zero when there are no points */
    uint32_t points;    /* sample points found (more than the capacity only on overflow) */
    uint32_t tris;      /* triangles left after culling */
    uint32_t overflows; /* writes refused because a fixed-capacity buffer was full */
    uint32_t pad_;
} cuda_frame_info;

/* Where a frame's depth comes from and its mask goes: device buffers (shade_arrays, tests) or
 * a mapped GL texture/surface (shade_gl). Exactly one of each pair is set. */
typedef struct cuda_image {
    const float *depth;            /* width*height floats, row 0 at the bottom; or NULL */
    cudaTextureObject_t depth_tex; /* R32F texture object (point sampling, unnormalised) */
    uint8_t *mask;                 /* width*height bytes; or NULL */
    cudaSurfaceObject_t mask_surf; /* R8 surface object */
    int width, height;
} cuda_image;

/* Grow-only device scratch (CUB temporary storage). */
typedef struct cuda_scratch {
    void *ptr;
    size_t bytes;
} cuda_scratch;

/* Make s at least `bytes` large (grows, never shrinks; false with a message on failure). */
bool cuda_scratch_reserve(cuda_scratch *s, size_t bytes, const char *what);
void cuda_scratch_free(cuda_scratch *s);

#ifdef __cplusplus
}
#endif
#endif
