/* oracle.h — the independent ground truth (DESIGN.md "Correctness rules"): Embree ray casting.
 * A visible pixel is in shadow iff the segment from its world position to the light hits a
 * triangle. Also renders the camera's linear view depth by primary rays, so CPU-only tests need
 * no GL. Built only where Embree is found (IZB_HAVE_EMBREE). */
#ifndef ORACLE_H
#define ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "izb.h"
#include "view.h"

typedef struct oracle oracle;

/* Build an Embree scene over tri_count triangles (9 floats each). NULL with a message on failure. */
oracle *oracle_create(const float *xyz, int tri_count);
void oracle_destroy(oracle *o);

/* Linear view depth (distance along the camera's -Z, 0 = sky) at each pixel centre of a
 * width x height image, row 0 at the bottom — what the GL depth pass writes. */
void oracle_depth(oracle *o, const camera *c, int width, int height, float *depth);
/* oracle_depth plus, where ids is not NULL, the index of the triangle each primary ray hits
 * (IZB_NO_ID for sky): the primitive ids a depth pass gives izb_shade_arrays_ids. */
void oracle_depth_ids(oracle *o, const camera *c, int width, int height, float *depth, uint32_t *ids);

/* The true mask for the points reconstructed from `depth` with frame f (izb_frame_make): 255 lit,
 * 0 in shadow or outside the spot cone; sky 255. Positions are reconstructed in double precision
 * from the same depth values the IZB gets. */
void oracle_shadow(oracle *o, const izb_recon *f, const camera *c, const light *l, const float *depth,
                   uint8_t *mask);

/* The scene's cut-outs (izb_set_cutouts' form, issue 18): a candidate hit on a cut-out triangle
 * counts only where core/izb_alpha.h's test keeps it at the hit's barycentrics (an Embree filter
 * on occlusion and primary rays alike, so oracle_depth sees through cut-away texels as the GL
 * depth pass does). NULL: every triangle opaque again. False (with a message, opaque) when c does
 * not fit the scene or memory runs out. */
bool oracle_set_cutouts(oracle *o, const izb_cutouts *c);
/* oracle_shadow, and per pixel in unsure (not NULL) 1 where a cut-out candidate hit of its shadow
 * ray fell within ORACLE_TEXEL_EDGE of a texel edge (its verdict may differ from the IZB's by float
 * rounding of the barycentrics, tools/oracle.c), else 0. */
#define ORACLE_TEXEL_EDGE (1.0f / 1024.0f) /* of a texel */
/* The filter's test, for other Embree users (bench-cpu's rays): does cut-out set c (izb_cutouts.h)
 * keep triangle prim at Embree's barycentrics (u, v)? Opaque and unknown triangles: true. Sets
 * *near_edge (not NULL) as oracle_shadow_unsure explains. */
struct izb_cutout_set;
bool oracle_cut_keeps(const struct izb_cutout_set *c, unsigned prim, float u, float v, bool *near_edge);
void oracle_shadow_unsure(oracle *o, const izb_recon *f, const camera *c, const light *l, const float *depth,
                          uint8_t *mask, uint8_t *unsure);

/* skip = true: a point is never occluded by the triangle it lies on (the one the camera's primary
 * ray hits at its pixel; Embree filter), nor by a triangle in that triangle's plane (every vertex
 * within 1e-6 of the coordinates' magnitude of it: the other half of a quad, the rest of a flat
 * face). Geometrically it cannot be: the segment to the light meets the plane only at the point;
 * with the plain rule (the
 * default: any triangle from the bias offset on) the truth itself shows acne where light grazes a
 * surface, since the float depth puts the point a hair under its own triangle and the bias offset
 * along a grazing ray does not lift it out, and so it hides the IZB's own acne there. */
void oracle_skip_self(oracle *o, bool skip);
/* The shadow ray of one pixel, as oracle_shadow casts it (for benchmarks that cast the same rays
 * their own way): world-space origin, direction toward the light, [tnear, tfar]. */
typedef struct oracle_ray {
    float org[3], dir[3], tnear, tfar;
} oracle_ray;
typedef struct oracle_ray_setup {
    double view[16], light[16], to_light[3], light_pos[3], sx, sy;
    float tnear_spot, tnear_dir;
    int width, height;
    bool spot;       /* rays to light_pos (a spot light, a point light's face) */
    bool all_around; /* a point light: no frustum, every point has its ray */
} oracle_ray_setup;
enum { ORACLE_PIXEL_SKY, ORACLE_PIXEL_UNLIT, ORACLE_PIXEL_RAY };
oracle_ray_setup oracle_ray_setup_make(const izb_recon *f, const camera *c, const light *l);
/* ORACLE_PIXEL_RAY with *ray filled, or SKY (mask 255) / UNLIT (outside the spot cone, mask 0). */
int oracle_pixel_ray(const oracle_ray_setup *rs, int px, int py, float depth, oracle_ray *ray);

/* Diagnostics (one ray each, slow): the triangle the camera sees at pixel (px, py), -1 for sky; the
 * nearest triangle a shadow ray hits in [tnear, tfar] other than `skip` (-1: none), -1 when none,
 * with its distance in *t (units of ray->dir). */
long oracle_pixel_prim(oracle *o, const camera *c, int width, int height, int px, int py);
long oracle_ray_first_hit(oracle *o, const oracle_ray *r, long skip, float *t);
/* Whether ray r (oracle_pixel_ray's, or one of a pixel's per-sample rays: tools/sample_rays.h) hits
 * a triangle in [tnear, tfar], through the cut-out filter; skip >= 0 never counts, nor a triangle in
 * its plane (oracle_skip_self's rule). Thread-safe: izb-quality casts its sample rays in parallel. */
bool oracle_occluded(oracle *o, const oracle_ray *r, long skip);

typedef struct mask_diff {
    long covered;      /* non-sky pixels */
    long mismatched;   /* covered pixels where test != truth */
    long false_shadow; /* test says shadow, truth says lit */
    long false_light;  /* test says lit, truth says shadow */
} mask_diff;

/* Compare two masks over the covered (depth > 0) pixels of an n-pixel image. */
mask_diff mask_compare(const float *depth, const uint8_t *test, const uint8_t *truth, long n);

#endif
