/* view.h — camera and light, and the per-frame IZB parameters built from them. */
#ifndef VIEW_H
#define VIEW_H

#include <stdbool.h>

#include "izb_math.h"

/* Fly camera. Looks along (cos(pitch)*sin(yaw), sin(pitch), -cos(pitch)*cos(yaw)); yaw = 0, pitch
 * = 0 looks down -Z. Angles in degrees. */
/* The camera's angles, in degrees: pitch within +-CAMERA_PITCH_MAX (at 90 the view direction is the
 * up vector and the view matrix is undefined), yaw within +-CAMERA_YAW_MAX (any angle, but a value
 * past it is a typo, not a pose). The options, the mouse and camera-path files keep to them. */
#define CAMERA_PITCH_MAX 89.0f
#define CAMERA_YAW_MAX 3600.0f

typedef struct camera {
    float pos[3];
    float yaw, pitch;
    float fovy;       /* degrees; 0 = 60 */
    float near, far;  /* 0 = derived from the scene bounds (camera_fit_clip) */
} camera;

/* A point light shines every way from pos: the IZB shades it as the six faces of a cube around it
 * (izb_frame_make_faces, izb_shade_arrays_faces). */
typedef enum light_type { LIGHT_DIRECTIONAL = 0, LIGHT_SPOT = 1, LIGHT_POINT = 2, LIGHT_TYPE_COUNT } light_type;
extern const char *const light_type_names[LIGHT_TYPE_COUNT]; /* "directional", "spot", "point" */

typedef struct light {
    light_type type;
    float dir[3];    /* direction the light travels (normalised on use) */
    float pos[3];    /* spot, point: position */
    float cone_deg;  /* spot: full opening angle; 0 = 60 */
    /* directional: the full angle of the cone the light comes from (degrees; 0 = a point at
     * infinity, hard shadows; at most IZB_SOFT_MAX_ANGLE_DEG: the sun is 0.53) and the light samples
     * its soft shadows take (16 .. 256, izb_soft.h; 0 = IZB_SOFT_DEFAULT_SAMPLES). A spot light
     * ignores both so far. */
    float angle_deg;
    int samples;
    /* spot: the emitter's width and height in world units along the light's image axes, facing its
     * aim (an area light, izb_area.h: soft shadows of `samples` samples on it; 0, 0 = a point, hard
     * shadows) and its shape, IZB_AREA_RECT or IZB_AREA_DISK. Other lights ignore them. */
    float size[2];
    int shape;
} light;

/* Several lights (issue 21): up to IZB_MAX_LIGHTS, each with its own IZB pass and mask, shaded as a
 * sum of each light's diffuse term times its own visibility. Light 0 is the one light of a
 * one-light run: a set of one at intensity 1 draws bit for bit what the single light did. */
#define IZB_MAX_LIGHTS 8
typedef struct light_set {
    int count;                       /* 1 .. IZB_MAX_LIGHTS */
    light l[IZB_MAX_LIGHTS];
    /* multiplies the light's colour, 0 .. LIGHT_MAX_INTENSITY; 0: the light contributes nothing
     * and its IZB pass is skipped (kept in the set so it can be turned up again) */
    float intensity[IZB_MAX_LIGHTS];
} light_set;
#define LIGHT_MAX_INTENSITY 100.0f

/* What the HUD, title and FPS log call l: "area" for a spot with an emitter (size > 0), else its
 * type's name ("?" for a type out of range). */
const char *light_kind_name(const light *l);

/* A set of the one light l at intensity 1. */
light_set light_set_one(const light *l);

void camera_forward(const camera *c, float out[3]);
/* Whether dir can be a light's direction: finite and not (nearly) zero. --light-dir and camera
 * path files refuse what fails this, with the same rule. */
bool light_dir_usable(const float dir[3]);
/* The light's unit direction of travel; straight down when l->dir is zero. */
void light_direction(const light *l, float out[3]);
void camera_right(const camera *c, float out[3]);
void camera_view(const camera *c, float out[16]);               /* world -> view */
void camera_proj(const camera *c, float aspect, float out[16]); /* GL perspective */
/* Set near/far from the scene bounds so the depth range hugs the scene (thesis §6.1.3). */
void camera_fit_clip(camera *c, const float bmin[3], const float bmax[3]);

/* The light's matrices for a scene with bounds [bmin, bmax]. izb: world -> light clip with the
 * depth key of izb_math.h (orthographic box around the scene, or spot perspective whose z row
 * makes z/w = -1/w). gl: the same view with a conventional GL projection for shadow maps.
 * Either may be NULL. */
void light_matrices(const light *l, const float bmin[3], const float bmax[3], float izb[16], float gl[16]);

/* A point light's cube: face i (0..5: +x, -x, +y, -y, +z, -z) is a square frustum of 90 degrees
 * from l->pos along that axis. izb and gl as light_matrices'. (light_matrices of a point light: the
 * face along l->dir; the shadow-map mode draws all six, render/shadow_map.c.) */
#define LIGHT_CUBE_FACES 6
void light_face_matrices(const light *l, int face, const float bmin[3], const float bmax[3], float izb[16],
                         float gl[16]);

/* Everything the IZB needs for one frame at width x height (bias: IZB_DEFAULT_BIAS; the backend
 * replaces it with izb_settings.bias). */
izb_recon izb_frame_make(const camera *c, const light *l, const float bmin[3], const float bmax[3],
                         int width, int height);
/* The frames of every frustum the light needs, into out[LIGHT_CUBE_FACES]: one for a directional
 * or spot light (izb_frame_make's), six for a point light (IZB_LIGHT_FACE, one per cube face).
 * Returns how many; izb_shade_arrays_faces shades them as one mask. */
int izb_frame_make_faces(const camera *c, const light *l, const float bmin[3], const float bmax[3], int width,
                         int height, izb_recon out[LIGHT_CUBE_FACES]);

#endif
