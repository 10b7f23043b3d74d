/* render.h — the two OpenGL passes of a frame and the bridge to the IZB between them:
 *   1. depth pass (camera): R32F colour = linear view depth (-z_view, 0 = sky) + DEPTH32F depth;
 *   2. IZB (izb.h): depth -> shadow mask (GL_R8, 255 lit, 0 shadow), through GL interop when the
 *      backend can, else read-back + izb_shade_arrays + upload;
 *   3. shading pass (camera): sky, N.L diffuse (spot cone falloff) x mask + ambient, into an RGBA8
 *      colour target that is blitted to the window or read back for screenshots.
 * Needs a current GL 4.5 core context (gl_context.h). Every GL object and host buffer is made at
 * render_create / render_set_scene / render_resize, never per frame.
 */
#ifndef RENDER_H
#define RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "izb.h"
#include "scene.h"
#include "scene_cutout.h"
#include "view.h"

typedef struct render render;

typedef enum render_view {
    RENDER_VIEW_SHADED = 0, /* the lit scene */
    RENDER_VIEW_OVERLAY,    /* the lit scene, shadowed pixels tinted red */
    RENDER_VIEW_MASK,       /* the raw mask: white lit, black shadow, blue sky */
    RENDER_VIEW_DEPTH,      /* linear depth, near white */
    RENDER_VIEW_POINTS,     /* sample points on the light's plane by cell density, bbox, grid (debug_view.h) */
    RENDER_VIEW_CELLS,      /* cell-occupancy heat map (debug_view.h) */
    RENDER_VIEW_COUNT
} render_view;

extern const char *const render_view_names[RENDER_VIEW_COUNT]; /* "shaded", "overlay", ... */

/* Defaults (zero fields): 1280x720 targets; shaders embedded in the binary, or read from the
 * directory in $IZB_SHADER_DIR when that is set. */
typedef struct render_desc {
    int width, height;      /* size of the targets (follow the framebuffer with render_resize) */
    const char *shader_dir; /* read shaders/ files from here instead of the embedded copies */
} render_desc;

/* Last measured pass times. GPU times come from double-buffered timer queries and may belong to
 * the previous frame (see `frame`). */
typedef struct render_timings {
    float depth_ms;    /* GPU: depth pass */
    float shade_ms;    /* GPU: shading pass (sky + scene) */
    float transfer_ms; /* CPU wall: depth read-back + mask upload (0 on the GL interop path) */
    long depth_frame;  /* frame number (0-based count of render_depth_pass calls) of depth_ms */
    long shade_frame;  /* same for shade_ms */
    float shadow_map_ms;   /* GPU: shadow map from the light + its mask pass (shadow_map.h; 0: not run) */
    long shadow_map_frame; /* frame number of shadow_map_ms (count of shadow-map passes), -1: none */
} render_timings;

/* One whole frame for render_frame(). */
typedef struct render_frame_desc {
    const camera *cam;
    const light *light;           /* the one light, at intensity 1, where lights is NULL */
    const light_set *lights;      /* several lights (view.h): one IZB pass and mask each, shaded as a sum */
    izb_stats *light_stats;       /* out, may be NULL: [IZB_MAX_LIGHTS], each light's IZB numbers (zero: skipped) */
    izb_backend *backend;         /* NULL: no IZB, every pixel lit */
    const izb_settings *settings; /* NULL: defaults */
    izb_stats *stats;             /* out, may be NULL: the frame's IZB numbers, summed over the lights */
    render_view view;
    bool hud; /* draw the text of render_set_hud_text over the image */
    int shadow_samples; /* sub-samples per pixel for the IZB (izb_recon.shadow_samples); 0 = 1; used
                         * for hard directional, spot and point lights (izb_aa_frame_ok) */
} render_frame_desc;

/* Compile the shaders and make the targets. NULL with a one-line reason in err (shader errors
 * also print the GL info log to stderr). */
render *render_create(const render_desc *desc, char *err, size_t err_size);
void render_destroy(render *r);

/* Upload the scene once: s->xyz and s->normals (9 floats per triangle each; normals may be NULL:
 * flat normals are made) into one vertex buffer, and its materials (texture coordinates, images,
 * base colours: scene.h) for the shading pass. The caller keeps `s`; its bounds frame the
 * light and the shading tint. Replaces a previous scene. */
bool render_set_scene(render *r, const scene *s, char *err, size_t err_size);

/* The scene's cut-outs (scene_cutout.h; after render_set_scene, for the same triangles): every pass
 * that draws the scene discards the fragments they cut away (shaders/alpha_test.frag, the GLSL
 * mirror of core/izb_alpha.h). NULL or no cut-out triangle: nothing is cut (--alpha-test off). False
 * with a reason (nothing cut) on a triangle count that is not the scene's, or out of memory. */
bool render_set_cutouts(render *r, const scene_cutouts *c, char *err, size_t err_size);

/* The scene's triangles moved (scene_animate): tri_count as render_set_scene got, xyz 9 floats a
 * triangle, normals likewise or NULL (kept). Uploads into the existing buffers, no allocation.
 * False with a reason when the count differs. */
bool render_update_positions(render *r, const float *xyz, const float *normals, int tri_count, char *err,
                             size_t err_size);

/* Re-make the targets and read-back buffers at width x height (both > 0); no-op when unchanged.
 * False (targets unchanged) with a reason on bad sizes or when the GPU is out of memory. */
bool render_resize(render *r, int width, int height, char *err, size_t err_size);
int render_width(const render *r);
int render_height(const render *r);

/* Pass 1: the camera's linear view depth. The camera's near/far are used as given (see
 * camera_fit_clip); the aspect ratio is the targets'. */
void render_depth_pass(render *r, const camera *c);

/* Pass 2: the shadow mask for frame f (izb_frame_make at this size) from the depth pass's result.
 * False when the backend fails (its message is on stderr); the mask keeps its old contents. */
bool render_shade_izb(render *r, izb_backend *b, const izb_recon *f, const izb_settings *s, izb_stats *stats);
/* The same for a light of several frusta (a point light's cube faces, izb_frame_make_faces): always
 * through host memory (izb_shade_arrays_faces), whatever the backend. */
bool render_shade_izb_faces(render *r, izb_backend *b, const izb_recon *frames, int count, const izb_settings *s,
                            izb_stats *stats);

/* Set every mask texel to `value` (255 = all lit): for running without an IZB. */
void render_fill_mask(render *r, uint8_t value);

/* Pass 3: shade into the colour target. */
void render_shade_pass(render *r, const camera *c, const light *l, render_view view);
/* The same for several lights: the sum over ls's lights of each one's diffuse term times its own
 * mask and intensity (light i > 0: layer i - 1 of the mask array render_frame fills). The overlay,
 * mask and difference views show light 0's mask. */
void render_shade_pass_lights(render *r, const camera *c, const light_set *ls, render_view view);

/* Passes 1-3 for one frame. False when the IZB failed. */
bool render_frame(render *r, const render_frame_desc *f);

/* The HUD's text (hud.h): its vertices are rebuilt only when the text changes. */
void render_set_hud_text(render *r, const char *text);

/* Blit the colour target to the default framebuffer (fb_width x fb_height; windows only). */
void render_present(render *r, int fb_width, int fb_height);

/* The latest pass times whose queries have completed (does not wait for the GPU). */
render_timings render_get_timings(render *r);

/* Read-backs (tests, screenshots). Row 0 is the bottom row; sizes are width*height elements:
 * depth floats (0 = sky), ids (uint32), mask bytes (255 lit), colour RGBA bytes (4 per pixel). They wait for
 * the GPU. */
void render_read_depth(render *r, float *depth);
void render_read_mask(render *r, uint8_t *mask);
/* The mask light `which` (0 .. the last frame's light count - 1) was shaded with: light 0 is
 * render_read_mask's (the IZB's); light i > 0 its layer (the IZB's, or the shadow map's in the map
 * mode; 255 where its intensity is 0). All zero for a light the last frame did not have. */
void render_read_light_mask(render *r, int which, uint8_t *mask);
/* ids: the depth pass's primitive ids, IZB_NO_ID (0xffffffff) for sky */
void render_read_ids(render *r, uint32_t *ids);
void render_read_colour(render *r, uint8_t *rgba);

/* Write the colour target to a PNG (RGB, top row first). False with a reason naming the file. */
bool render_screenshot(render *r, const char *path, char *err, size_t err_size);

#endif
