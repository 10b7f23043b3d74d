/* scene_animate.h — dynamic scenes: the triangles of a scene at frame N, deterministic from N (no
 * state, so a benchmark or a test can ask for any frame). Every triangle but the ground moves each
 * frame; the IZB takes the new positions through izb_update_scene, a ray tracer must rebuild or
 * refit its BVH. */
#ifndef SCENE_ANIMATE_H
#define SCENE_ANIMATE_H

#include "scene.h"

typedef enum scene_motion {
    SCENE_MOTION_TURNTABLE, /* the model turns about the vertical axis through its centre */
    SCENE_MOTION_WAVE,      /* a travelling ripple lifts every vertex (builtin:wave) */
} scene_motion;

/* Degrees the turntable turns per frame. */
#define SCENE_TURNTABLE_DEG_PER_FRAME 1.0f

/* wave for builtin:wave scenes, turntable for everything else */
scene_motion scene_motion_of(const scene *s);

/* Write the positions (9 floats per triangle) and, when normals is not NULL, the normals of
 * `rest` at `frame` (frame 0 = rest). The ground stays: triangles 0 and 1 of built-in scenes, the
 * last ground_tris of loaded ones. xyz/normals: rest->tri_count * 9 floats, not rest's own. */
void scene_animate(const scene *rest, scene_motion m, long frame, float *xyz, float *normals);

#endif
