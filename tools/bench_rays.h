/* bench_rays.h — Embree's side of bench-cpu: the shadow rays of the IZB's sample points, cast with
 * rtcOccluded1 or rtcOccluded16 (rows of 16 pixels, OpenMP over rows), and a BVH that can be
 * rebuilt or refitted when the triangles move. Not the oracle (tools/oracle.c): that one builds
 * with RTC_BUILD_QUALITY_HIGH and reconstructs in double per call; this one uses Embree's default
 * build and precomputed rays so only the traversal is timed. */
#ifndef BENCH_RAYS_H
#define BENCH_RAYS_H

#include <stdbool.h>
#include <stdint.h>

#include "izb.h"
#include "view.h"

typedef struct bench_bvh bench_bvh;

/* BVH over tri_count triangles (9 floats each). refit: RTC_BUILD_QUALITY_REFIT + dynamic scene
 * (bench_bvh_update refits), else Embree's default quality (bench_bvh_update rebuilds).
 * threads: Embree's own build threads (0 = all). NULL on failure. */
bench_bvh *bench_bvh_create(const float *xyz, int tri_count, bool refit, int threads);
/* New vertex positions (same count): copy them in and commit (refit or rebuild). */
void bench_bvh_update(bench_bvh *b, const float *xyz);
void bench_bvh_destroy(bench_bvh *b);
/* Cut-outs (izb_set_cutouts' form): an occlusion filter drops hits that the alpha test cuts away
 * (oracle_cut_keeps, the truth's test), as the IZB does. NULL: opaque again. False (a message) when
 * c does not fit the triangles or memory runs out. */
bool bench_bvh_set_cutouts(bench_bvh *b, const izb_cutouts *c);

/* One shadow ray per pixel, structure of arrays, pixel order; valid[i] == 0 for sky / unlit. */
typedef struct bench_rays {
    int width, height;
    float *ox, *oy, *oz, *dx, *dy, *dz, *tnear, *tfar;
    int32_t *valid;
    long count; /* valid rays */
    bool spot;  /* rays end at the light (a spot's: dir is the segment to it), not along a direction */
} bench_rays;

/* The rays oracle_shadow would cast for the points reconstructed from depth (same points as the
 * IZB's, same bias). false on OOM. */
bool bench_rays_make(bench_rays *r, const izb_recon *f, const camera *c, const light *l, const float *depth);
void bench_rays_free(bench_rays *r);

/* Cast every valid ray on `threads` OpenMP threads; mask[i] = 0 where occluded, 255 otherwise
 * (invalid rays: left as they are). */
void bench_rays_occluded1(bench_bvh *b, const bench_rays *r, uint8_t *mask, int threads);
void bench_rays_occluded16(bench_bvh *b, const bench_rays *r, uint8_t *mask, int threads);

/* Soft shadows (izb_soft.h): every valid ray cast once per light sample, toward world direction
 * dirs[3 j .. 3 j + 2] (unit, toward the light; j < m), rows of 16 pixels per rtcOccluded16 call;
 * mask[i] = round(255 lit / m) as izb_mask_value. Invalid rays: left as they are. */
void bench_rays_occluded16_soft(bench_bvh *b, const bench_rays *r, const float *dirs, int m, uint8_t *mask,
                                int threads);

/* Area lights (izb_area.h): every valid ray (a spot's: [tnear, tfar] fractions of the segment to the
 * light) cast once per light sample j < m as the segment from its origin to world point
 * targets[3 j .. 3 j + 2] on the emitter (sample_rays_area_points); mask as for soft shadows. */
void bench_rays_occluded16_area(bench_bvh *b, const bench_rays *r, const float *targets, int m, uint8_t *mask,
                                int threads);

/* Anti-aliased edges (izb_aa.h): every valid ray cast once per sub-sample j < n, from its origin
 * moved by u[j] a + v[j] b (axes[6 i .. 6 i + 5]: pixel i's footprint axes a, b in world space), in
 * the ray's direction (a spot light's: the segment from there to the light, as izb-quality's truth), rows of 16 pixels per rtcOccluded16 call; mask[i] = round(255 lit / n) as
 * izb_mask_value. Invalid rays: left as they are. */
void bench_rays_occluded16_aa(bench_bvh *b, const bench_rays *r, const float *axes, const float *u, const float *v,
                              int n, uint8_t *mask, int threads);

#endif
