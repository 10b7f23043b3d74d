/* izb_ref.h — the CPU reference of each IZB stage, on plain host arrays. The CPU backend is these
 * stages plus buffers and timing; the CUDA tests compare each GPU stage with them on the same
 * input. Multi-threaded with OpenMP where it helps; results do not depend on the thread count. */
#ifndef IZB_REF_H
#define IZB_REF_H

#include "izb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stage 1 (thesis §3): reconstruct every pixel of `depth` (f->width x f->height) and reduce the
 * points' bbox. points (out): capacity width*height, written in pixel order; mask (out):
 * width*height, 0 for IZB_UNLIT pixels, 255 for the rest. Returns the point count; *bbox is
 * empty (min > max) when it is 0. */
int izb_ref_reconstruct(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                        izb_bbox *bbox);

/* Stage 2 (thesis §4.1–4.2): bin n points into grid g. out: n points grouped by cell in cell
 * order, stable within a cell; cell_start/cell_end (out): g->w*g->h entries each, cell c holds
 * out[cell_start[c] .. cell_end[c]) — empty cells have start == end. */
void izb_ref_bin(const izb_point *in, int n, const izb_grid *g, izb_point *out, uint32_t *cell_start,
                 uint32_t *cell_end);

/* Stage 3 (thesis §4.3–4.4): transform n triangles (9 floats each, world space) by f->light, cull
 * (degenerate, back-facing unless !cull_back, outside bbox) and compact the survivors, in input
 * order, into out (capacity n). Returns how many survived. */
int izb_ref_cull(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                 bool cull_back, izb_tri *out);

/* Stage 4 (thesis §5): rasterise nt triangles against the binned points; set mask[p.pixel] = 0
 * for every occluded point. kernel selects the traversal order (kernel1: per triangle over its
 * cell rows; kernel2: per interleaved cell group over all triangles); the mask is the same. */
void izb_ref_raster(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                    const uint32_t *cell_end, const izb_grid *g, izb_kernel kernel, uint8_t *mask);

/* Primitive ids (izb_hit_is_own): izb_ref_cull that also writes each survivor's scene index to
 * tri_id (capacity n; NULL: not written), and izb_ref_raster where neither a point's own triangle
 * nor one in its plane shadows it: own->tri_id from izb_ref_cull_ids, own->pixel_id one per pixel
 * (IZB_NO_ID: unknown), own->xyz the scene given to izb_ref_cull_ids (tri_count triangles). own
 * NULL or own->pixel_id NULL: izb_ref_raster exactly. */
typedef struct izb_own {
    const uint32_t *tri_id;
    const uint32_t *pixel_id;
    const float *xyz;
    uint32_t tri_count;
} izb_own;
/* Cut-outs (izb_alpha.h): survivor i is alpha-tested when tex[tri_id[i]] != IZB_OPAQUE, with UVs
 * uv + 6 * tri_id[i] and texture textures[tex[tri_id[i]]] over pool; tri_id from izb_ref_cull_ids.
 * NULL: every triangle opaque. */
typedef struct izb_cut {
    const uint32_t *tri_id;
    const uint32_t *tex;
    const float *uv;
    const izb_alpha_tex *textures;
    const uint8_t *pool;
} izb_cut;
int izb_ref_cull_ids(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                     bool cull_back, izb_tri *out, uint32_t *tri_id);
void izb_ref_raster_own(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                        const uint32_t *cell_end, const izb_grid *g, izb_kernel kernel, const izb_own *own,
                        uint8_t *mask);

#ifdef __cplusplus
}
#endif
#endif
