/* sample_rays.h — the world-space rays behind a soft frame's light samples (izb_soft.h) and an
 * anti-aliased frame's sub-samples (izb_aa.h), for the tools that cast them with Embree: bench-cpu's
 * peer (tools/bench_rays.c) and izb-quality's per-sample truth (tools/quality_samples.c). Both
 * follow the backends' own definitions, so a ray here is the one the IZB answers for. */
#ifndef SAMPLE_RAYS_H
#define SAMPLE_RAYS_H

#include <stdint.h>

#include "izb.h"
#include "view.h"

/* Frame f's light samples (f->light_angle > 0, izb_soft_light_make) as unit world directions toward
 * the light: dirs[3 j .. 3 j + 2], j < f->light_samples. The clip direction (dx_j, dy_j, -1) mapped
 * back through the light matrix's linear part, in double. */
void sample_rays_soft_dirs(const izb_recon *f, float *dirs);

/* Area frame f's light samples (izb_area_on, izb_area_light_make) as world points on the emitter:
 * pts[3 j .. 3 j + 2], j < f->light_samples. Sample j is the A-space point (dx_j, dy_j, 0): the
 * world point whose light clip rows x, y and w (rows 0, 1, 3 of f->light) are those, solved in
 * double. A sample's ray runs from the receiver to its point. */
void sample_rays_area_points(const izb_recon *f, double *pts);

/* Each pixel's footprint axes a, b in world space (axes[6 i .. 6 i + 5], pixel i = py * width + px),
 * as the backends build the footprint (izb_aa_axes: depth derivatives; with ids not NULL and a
 * scene triangle drawn there, that facet's plane, izb_aa_facet_normal); zero for sky. Sub-sample
 * (u, v) of the pixel lies at its point + u a + v b. xyz: the scene's triangles (9 floats each). */
void sample_rays_aa_axes(const izb_recon *f, const camera *cam, const float *depth, const uint32_t *ids,
                         const float *xyz, int tri_count, float *axes);

/* sample_rays_aa_axes for a light of `count` frames (izb_frame_make_faces): one frame, that; a
 * point light's cube faces (IZB_LIGHT_FACE), each pixel's footprint in the frame of the face
 * izb_face_owner gives it, its neighbours owned by other faces counting as sky
 * (izb_aa_face_depth), as the backends' per-face passes build it (izb_aa.h "Point lights"). */
void sample_rays_aa_axes_faces(const izb_recon *faces, int count, const camera *cam, const float *depth,
                               const uint32_t *ids, const float *xyz, int tri_count, float *axes);

#endif
