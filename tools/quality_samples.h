/* quality_samples.h — izb-quality's per-sample measures (issues 19 and 20): a soft shadow's light
 * samples and anti-aliased edges' sub-samples. The IZB answers each (point, sample) pair in its
 * visibility mask (izb_debug.sample_masks); the truth casts that sample's own Embree ray
 * (tools/sample_rays.h: the light sample's direction, or the sub-sample's position on the
 * footprint) from the point the same depth reconstructs. A method that gives only a visibility
 * fraction per pixel (a shadow map with PCF) is measured by its mean absolute visibility error. */
#ifndef QUALITY_SAMPLES_H
#define QUALITY_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>

#include "izb.h"
#include "oracle.h"
#include "view.h"

/* The side of the anti-aliasing reference's grid: 16 x 16 = 256 sub-samples per footprint, so the
 * error of the N-sample pattern itself shows against it. */
#define QUALITY_AA_REF_SIDE 16

/* One method against the truth over the pixels with a ray (covered, lit side of a spot's cone). */
typedef struct quality_sample_counts {
    long covered;
    int samples;        /* per pixel: M or N; 0 for a method without per-sample answers */
    long answers;       /* covered * samples */
    long wrong;         /* answers that differ from their ray */
    long false_hidden;  /* of them: the method hides the sample, its ray reaches the light */
    long wrong_flagged; /* of them: at pixels flagged (quality_soft_horizon), -1 without flags */
    double abs_err;     /* mean over covered pixels of |visibility - the truth's|, in [0, 1] */
    double abs_err_ref; /* the same against the reference (anti-aliasing: 256 sub-samples); -1 none */
} quality_sample_counts;

/* Per pixel the hidden samples' bits (words = izb_mask_words(m) per pixel) and the visibility in
 * [0, 1] (-1 where no ray: sky, outside a spot cone). Soft: m = f->light_samples light directions;
 * an area light's frame (izb_area_on): m segments to the emitter's samples (sample_rays_area_points).
 * bits may be NULL (visibility only). */
void quality_truth_soft(oracle *o, const izb_recon *f, const camera *c, const light *l, const float *depth,
                        uint32_t *bits, float *vis);
/* Anti-aliasing: the m sub-samples (u[k], v[k]) in [-1/2, 1/2]^2 of each pixel's footprint (axes:
 * sample_rays_aa_axes), each cast along the pixel's own shadow ray direction. m <= 256 when bits is
 * NULL, else m <= IZB_MASK_MAX_BITS too. */
void quality_truth_aa(oracle *o, const izb_recon *f, const camera *c, const light *l, const float *depth,
                      const float *axes, const float *u, const float *v, int m, uint32_t *bits, float *vis);
/* The reference grid: QUALITY_AA_REF_SIDE^2 offsets (cell centres of [-1/2, 1/2]^2). */
void quality_aa_ref_grid(float *u, float *v);

/* Soft frames: flag[i] = 1 where the light's samples straddle the horizon of the facet drawn at
 * pixel i (ids: the depth pass's primitive ids; xyz, tri_count: the scene), some above its plane and
 * some below, else 0. There the bias (which moves the point toward the light's centre, izb_soft.h)
 * puts a point facing slightly away from the centre under its own surface, and the IZB hides the
 * samples above the horizon that its ray reaches (a terminator band a pixel or two wide): the
 * measured answers say how many of the wrong ones lie there. */
void quality_soft_horizon(const izb_recon *f, const camera *c, const light *l, const float *depth, const uint32_t *ids,
                          const float *xyz, int tri_count, long npix, uint8_t *flag);

/* The IZB's answers per pixel from its debug view (d->sample_masks; bits zero where no point), npix
 * pixels of izb_mask_words(d->sample_bits) words. False when the frame kept no sample masks. */
bool quality_izb_bits(const izb_debug *d, long npix, uint32_t *bits);

/* A point light's anti-aliased answers (faces: its cube faces, izb_frame_make_faces, count > 1; n
 * sub-samples): backend b keeps the points of its last pass only, one face's, so each face's pass
 * is run again as izb_faces.c runs it (the face's own pixels, the others sky: izb_aa_face_depth;
 * default settings) and its sub-sample masks taken for its own pixels, into bits as
 * quality_izb_bits. *differ: the pixels whose byte differs from mask's (the frame's: else the
 * answers would not be its). False when a pass fails or keeps no masks, or out of memory. */
bool quality_izb_face_bits(izb_backend *b, const izb_recon *faces, int count, int n, const float *depth,
                           const uint32_t *ids, const uint8_t *mask, long npix, uint32_t *bits, long *differ);
/* Hard frame (N = 1): bit 0 set where the 8-bit mask is 0. */
void quality_hard_bits(const uint8_t *mask, long npix, uint32_t *bits);

/* Compare a method with the truth over npix pixels (vis_truth[i] < 0: no ray, skipped). bits (m
 * samples, izb_mask_words(m) words per pixel) NULL: only vis (mask byte / 255) is compared, and
 * samples is 0 in the result. ref NULL: abs_err_ref -1. flag (may be NULL): wrong answers at
 * flagged pixels are also counted in wrong_flagged. */
quality_sample_counts quality_sample_compare(const uint32_t *bits, const uint8_t *mask, const uint32_t *truth_bits,
                                             const float *truth_vis, const float *ref_vis, const uint8_t *flag, int m,
                                             long npix);

/* RGB images (3 bytes a pixel): visibility in greys (blue sky), and the signed visibility error
 * of vis_test (mask / 255) against vis_truth (red: too dark, blue: too bright, full at 0.25). */
void quality_vis_image(const float *vis, long n, uint8_t *rgb);
/* The same for a method's mask (its byte / 255 as the visibility), sky where vis_truth < 0. */
void quality_mask_vis_image(const uint8_t *mask, const float *vis_truth, long n, uint8_t *rgb);
void quality_vis_diff_image(const uint8_t *mask, const float *vis_truth, long n, uint8_t *rgb);

#endif
