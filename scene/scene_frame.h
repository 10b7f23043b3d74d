/* scene_frame.h — internal to scene/: a scene's bounds and its suggested camera and light, shared
 * by the loaders (files frame their bounds, built-in scenes a focus box of their own). A leaf: it
 * calls nothing else in scene/. scene_frame_view (scene_frame.c too) is public: scene.h. */
#ifndef SCENE_FRAME_H
#define SCENE_FRAME_H

#include "scene.h"

/* Bounds of the triangle soup in s (an empty scene gets zero bounds). */
void scene_compute_bounds(scene *s);

/* How a scene wants to be looked at: the focus box (the part worth seeing), the camera's
 * direction (degrees, scene/view.h convention) and the direction the light travels. */
typedef struct view_desc {
    float fmin[3], fmax[3];
    float yaw, pitch;
    float light_dir[3];
    /* a scene seen from inside (builtin:room): the camera at cam_at and the (spot or point) light
     * at light_at, as given, instead of framed from outside */
    bool inside;
    float cam_at[3], light_at[3];
} view_desc;

/* Sets the suggested view of s (its bounds must be set): the camera looks along (yaw, pitch) at
 * the focus centre from far enough to frame it; light_dir is normalised; the spot sits on the line
 * through the bounds' centre, far enough back that a 60-degree cone holds the whole focus box. */
void scene_view_focus(scene *s, const view_desc *v);

#endif
