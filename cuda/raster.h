/* raster.h — stage 4 on the device: irregular rasterisation (thesis §5) into an intermediate
 * per-point shadow flag in binned order (the thesis' future work §5.4.1: the rasterisers' stores
 * follow their coalesced point loads), then one resolve pass scatters the flags into the mask.
 */
#ifndef IZB_CUDA_RASTER_H
#define IZB_CUDA_RASTER_H

#include "../core/izb.h"
#include "../core/izb_alpha.h"
#include "cuda_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scene's cut-outs on the device (izb_cutout_set uploaded by set_cutouts), indexed by scene
 * triangle through raster_args.tri_id. tex NULL: no cut-outs (every triangle opaque; the kernels
 * without the alpha test run). */
typedef struct raster_cut {
    const uint32_t *tex;           /* per scene triangle: texture index or IZB_OPAQUE */
    const float *uv;               /* 6 per scene triangle: u0 v0 u1 v1 u2 v2 */
    const izb_alpha_tex *textures; /* the textures tex names */
    const uint8_t *pool;           /* their alpha (izb_alpha_tex.offset) */
} raster_cut;

typedef struct raster_args {
    const float4 *tris;              /* in: ntri set-up triangles as 4 planes (cull.h) */
    uint32_t tri_capacity;           /* plane stride of tris */
    int ntri;
    const float4 *points;            /* in: n binned points */
    int n;
    const uint32_t *cell_start, *cell_end; /* in: grid.w*grid.h each */
    izb_grid grid;
    uint8_t *shadow;                 /* scratch: n flags */
    int sm_count;                    /* multiprocessors, sizes kernel2's unit count */
    int k1_split;                    /* kernel1: at most this many units per triangle; <= 1: the
                                        thesis form (one unit per triangle); IZB_CUDA_K1_SPLIT */
    const uint32_t *tri_id;          /* in: ntri scene indices (cull_buffers.tri_id) */
    const uint32_t *pixel_id;        /* in: per pixel, the scene triangle drawn there; NULL: no ids,
                                        else neither a point's own triangle nor one in its plane
                                        shadows it (izb_hit_is_own) */
    const float *xyz;                /* in: the scene, 9 planes of scene_n floats (cull.h) */
    uint32_t scene_n;
    raster_cut cut;                  /* in: cut-outs (cut.tex NULL: none); needs tri_id. A hit of a
                                        cut-out survivor counts only where izb_alpha_tri_keeps */
} raster_args;

/* The unit size `requested` resolves to: itself when 32/64/128/256, else (0 = auto) the
 * heuristic of cuda_tune.h from the triangle count and the average points per cell. */
int raster_unit_size(int requested, int ntri, int n, int cells);

/* kernel2's unit layout: ux x uy units, unit (x, y) owns the cells with cx % ux == x and
 * cy % uy == y (the interleaved scheme of thesis §5.2.1, figure 5.4). */
void raster_k2_units(const izb_grid *g, int unit, int sm_count, int *ux, int *uy);

/* Rasterise every triangle against the points with kernel1 or kernel2 and `unit` threads per unit
 * (32, 64, 128 or 256), then set img's mask to 0 at every occluded point's pixel. The mask's other
 * pixels are left as they are (recon_run initialised them). Needs ntri >= 1 and n >= 1. */
bool raster_run(izb_kernel kernel, int unit, const raster_args *a, const cuda_image *img, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
