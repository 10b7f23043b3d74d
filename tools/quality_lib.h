/* quality_lib.h — what izb-quality (tools/quality.c) measures, factored out so tests can check it:
 * the per-method counters against the ray-cast truth, the images, and the fixed views. */
#ifndef QUALITY_LIB_H
#define QUALITY_LIB_H

#include <stdbool.h>
#include <stdint.h>

#include "scene.h"
#include "view.h"

/* One method's mask against the truth over the covered (depth > 0) pixels. A mask byte != 0 is
 * lit (as mask_compare reads it). */
typedef struct quality_counts {
    long covered;      /* non-sky pixels */
    long truth_shadow; /* covered pixels the truth has in shadow */
    long test_shadow;  /* covered pixels the method has in shadow */
    long mismatched;   /* false_shadow + false_light */
    long false_shadow; /* method: shadow, truth: lit */
    long false_light;  /* method: lit, truth: shadow */
} quality_counts;

/* Count over n pixels (depth: linear view depth, 0 = sky). Uses mask_compare (tools/oracle.h). */
quality_counts quality_count(const float *depth, const uint8_t *test, const uint8_t *truth, long n);
/* Of the covered pixels where test and truth differ, how many the truth marked unsure (a cut-out
 * hit within a hair of a texel edge: oracle_shadow_unsure). */
long quality_count_unsure(const float *depth, const uint8_t *test, const uint8_t *truth, const uint8_t *unsure,
                          long n);
/* mismatched as a percentage of covered (0 when nothing is covered) */
double quality_mismatch_pct(const quality_counts *c);

/* RGB images (3 bytes a pixel, row 0 at the bottom, n pixels). Mask: white lit, black shadow,
 * blue sky. Difference: the truth in greys (light lit, dark shadow), red false shadow, blue false
 * light, blue-grey sky. */
void quality_mask_image(const float *depth, const uint8_t *mask, long n, uint8_t *rgb);
void quality_diff_image(const float *depth, const uint8_t *test, const uint8_t *truth, long n, uint8_t *rgb);

/* The fixed views: a scene and how the camera and the light are placed in it. A view with
 * light_angle_deg > 0 (a soft shadow, M = light_samples) or aa (anti-aliased edges: rows for N = 1,
 * 8 and 32) is a per-sample view (tools/quality_samples.h), with its own table; it places the
 * camera and light as the view named `base` does (NULL: its own name). */
typedef struct quality_view {
    const char *name;  /* file-name safe */
    const char *scene; /* scene_load spec */
    const char *what;  /* one line for the table */
    const char *base;
    float light_angle_deg;
    int light_samples;
    float light_size[2]; /* a spot base: an area light of this emitter (world units), light_shape */
    int light_shape;
    bool aa;
} quality_view;

/* whether v is a per-sample view */
bool quality_view_per_sample(const quality_view *v);

extern const quality_view quality_views[];
extern const int quality_view_count;

/* Camera (near/far fitted) and light for view v in its loaded scene s. */
void quality_view_setup(const quality_view *v, const scene *s, camera *cam, light *l);

#endif
