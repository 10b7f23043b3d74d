/* gpu_fixture.h — what the GPU tests and bench-gpu share: scenes with a camera and two lights, frames, depth
 * images, float comparison and the device check that turns "no GPU" into a skipped test. */
#ifndef GPU_FIXTURE_H
#define GPU_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "izb.h"
#include "view.h"

typedef struct fixture {
    char name[64];
    float *xyz; /* 9 floats per triangle (owned) */
    int tri_count;
    float bmin[3], bmax[3];
    camera cam;
    light sun, spot; /* a directional and a spot light over the scene */
} fixture;

/* Exit 77 (skipped) unless a CUDA device answers. */
void fixture_require_device(const char *test);

/* The built-in scene `name` (scene/scene.h) with its suggested camera and lights; false (and a
 * message) when it cannot be built. */
bool fixture_builtin(fixture *f, const char *name, long tri_target);
/* A small synthetic scene: ground, floating boxes (closed, CCW), a slanted plane, a sliver, a
 * degenerate triangle and randomly oriented triangles (about half face away from any light). */
void fixture_synthetic(fixture *f);
void fixture_free(fixture *f);

/* The frame for f's camera turned by yaw_deg, with the spot or the directional light. */
izb_recon fixture_frame(const fixture *f, bool spot, float yaw_deg, int width, int height);
/* Linear view depth (malloc'ed width*height) of f seen by its camera turned by yaw_deg. */
float *fixture_depth(const fixture *f, float yaw_deg, int width, int height);
/* fixture_depth with the primitive ids of the same pixels (*ids: malloc'ed width*height). */
float *fixture_depth_ids(const fixture *f, float yaw_deg, int width, int height, uint32_t **ids);

/* Equal floats, where NaN equals NaN (payloads may differ between CPU and GPU) and -0 == +0. */
bool feq(float a, float b);
/* Field-by-field equality. */
bool point_eq(const izb_point *a, const izb_point *b);
/* Set-up triangles bit for bit: every word equal, except that a NaN equals any NaN (its payload and
 * sign are not promised: x86 and the GPU make different default NaNs). Not feq: the stage's
 * contract is the same bits, and feq would let 0 and -0 pass. */
bool tri_eq(const izb_tri *a, const izb_tri *b);
bool grid_eq(const izb_grid *a, const izb_grid *b);
bool bbox_eq(const izb_bbox *a, const izb_bbox *b);
/* qsort comparator: by pixel index. */
int point_by_pixel(const void *a, const void *b);

/* Deterministic random numbers in [lo, hi). */
double frand(double lo, double hi);
void *xmalloc(size_t bytes);

#endif
