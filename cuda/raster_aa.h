/* raster_aa.h — anti-aliased frames on the device (shadow_samples N > 1, core/izb_aa.h, issue 19):
 * the CPU backend's cpu/raster_aa.c on the GPU. Three calls around the hard pipeline's stages:
 *  1. aa_extent_run, after reconstruction and before culling: every point's footprint
 *     (izb_aa_footprint, from the depth image and the ids) for the frame's largest extent (ex, ey),
 *     then info->bbox is grown by it (izb_aa_grow_bbox, the original kept), so culling keeps a
 *     triangle that reaches only sub-samples past the points' bbox, as the CPU's aa frame does;
 *  2. aa_bbox_restore_run, after culling: info->bbox is the points' own again (stats, debug);
 *  3. aa_raster_run, after binning, instead of raster_run: the binned points' footprints (the same
 *     function again: storing them in stage 1 would need their binned order, which is not known
 *     yet), each cell's largest extent, kernel1 or kernel2 over the triangles' ranges grown by the
 *     frame's extent giving each point's N-bit mask (an OR over pairs, izb_mask.h), then the mask's
 *     byte (izb_mask_value) at every point's pixel.
 * Equal to the CPU backend's anti-aliased frame byte for byte (tests/cuda/test_cuda_aa.c), cut-outs
 * included: each hidden sub-sample alpha-tested at its own position (izb_aa_sample_keeps). */
#ifndef IZB_CUDA_RASTER_AA_H
#define IZB_CUDA_RASTER_AA_H

#include "cuda_common.h"
#include "raster.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device's per-frame state of stages 1 and 2 (aa_buffers.frame). */
typedef struct aa_frame_state {
    uint32_t ex_bits, ey_bits; /* the largest extents as float bits (non-negative: integer max) */
    izb_bbox points_bbox;      /* info->bbox before it was grown */
} aa_frame_state;

typedef struct aa_buffers {
    aa_frame_state *frame; /* one */
    float4 *foot;          /* 3 per point (izb_aa_foot as three float4): room for the frame's points */
    uint32_t *masks;       /* one word per point (N <= 32) */
    float2 *cell_ext;      /* per cell: its points' largest (ex, ey); room for grid.w * grid.h */
} aa_buffers;

/* Stage 1. points: the reconstructed points (any order), capacity their room; pixel_id, xyz,
 * scene_n: the ids (NULL: none) and the scene's 9 planes (as raster_args). */
bool aa_extent_run(const izb_recon *f, const cuda_image *img, const uint32_t *pixel_id, const float *xyz,
                   uint32_t scene_n, const float4 *points, uint32_t capacity, cuda_frame_info *info,
                   const aa_buffers *b, cudaStream_t s);

/* Stage 2. */
bool aa_bbox_restore_run(cuda_frame_info *info, const aa_buffers *b, cudaStream_t s);

/* Stage 3 (instead of raster_run; needs n >= 1, ntri >= 1): a's triangles, points, cells, ids
 * (a->tri_id with a->pixel_id or a->cut.tex); a->shadow and a->k1_split are not used. A cut-out
 * (a->cut) hides a sub-sample only where izb_aa_sample_keeps keeps it. */
bool aa_raster_run(izb_kernel kernel, int unit, const izb_recon *f, const raster_args *a,
                   const cuda_image *img, const aa_buffers *b, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
