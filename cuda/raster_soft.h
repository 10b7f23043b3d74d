/* raster_soft.h — stages 3 and 4 of a soft frame on the device (light_angle > 0, core/izb_soft.h):
 * the CPU backend's cpu/raster_soft.c in CUDA, on the same binned points and grid as a hard frame.
 * Per-cell farthest receiver and the frame's (cell_zmax), the soft set-up of every scene triangle
 * (izb_soft_tri_setup, culled as the CPU culls), then kernel1 or kernel2 over each survivor's
 * penumbra cells with the CPU's predicate, visibility masks OR-ed per point, and a resolve pass
 * that writes izb_mask_value per point. The mask equals the CPU backend's bit for bit.
 * An area light's frame (izb_area_on: a spot with an emitter, core/izb_area.h) runs the same
 * stages with the area set-ups, as the CPU backend does.
 */
#ifndef IZB_CUDA_RASTER_SOFT_H
#define IZB_CUDA_RASTER_SOFT_H

#include "../core/izb.h"
#include "../core/izb_area.h"
#include "../core/izb_soft.h"
#include "cuda_common.h"
#include "raster.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the device counts during a soft frame (read back with the frame's last sync). */
typedef struct soft_counters {
    uint32_t zmax_key;            /* the frame's farthest receiver, as an ordered key (raster_soft.cu) */
    uint32_t ntri;                /* survivors of the soft set-up */
    unsigned long long global;    /* izb_stats.soft_tests_global */
    unsigned long long visited;   /* izb_stats.soft_tests */
    unsigned long long pairs;     /* izb_stats.soft_pairs */
} soft_counters;

/* The soft frame's device buffers (grow-only, allocated on the first soft frame; a hard-only run
 * never allocates them). Owned by the backend, zero-initialised. */
typedef struct soft_buffers {
    void *tris;          /* izb_soft_tri[tri_cap] */
    size_t tri_cap;
    uint32_t *masks;     /* mask words: mask_cap */
    size_t mask_cap;
    float *cell_zmax;    /* cells_cap */
    size_t cells_cap;
    soft_counters *d_counters, *h_counters; /* h_counters: pinned */
} soft_buffers;

/* A soft frame's inputs: the binned points and cells of the hard path's stages 1-2, the scene as
 * cull.h's 9 planes, the closed meshes' cull view (directional: light_is_spot 0; an area light:
 * the spot's origin and izb_area_reach), ids and
 * cut-outs as raster_args has them; tri_id: scratch for the survivors' scene indices
 * (tri_count entries). */
typedef struct soft_args {
    const float *xyz;
    int tri_count;
    izb_cull_view cull;
    const float4 *points;
    int n;
    const uint32_t *cell_start, *cell_end;
    izb_grid grid;
    izb_bbox bbox;
    uint32_t *tri_id;
    const uint32_t *pixel_id; /* NULL: no ids */
    raster_cut cut;           /* cut.tex NULL: no cut-outs */
    int sm_count;
} soft_args;

/* Room for a frame of n points, tri_count triangles, `cells` cells and M samples; false with a
 * message. */
bool soft_reserve(soft_buffers *b, int n, int tri_count, int cells, int m);
void soft_free(soft_buffers *b);

/* Stages 3 and 4 of frame f (light_angle > 0 or izb_area_on, checked by izb.c) on stream s:
 * every point's mask byte written to img. Needs n >= 1. The counters are final after the stream's
 * next sync. */
bool soft_run(const izb_recon *f, izb_kernel kernel, int unit, const soft_args *a, soft_buffers *b,
              const cuda_image *img, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
