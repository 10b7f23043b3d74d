/* render_internal.h — the renderer's state, shared by render.c (passes, targets, read-back) and
 * render_izb.c (the IZB bridge). Private to render/. */
#ifndef RENDER_INTERNAL_H
#define RENDER_INTERNAL_H

#include <glad/gl.h>

#include "gl_timer.h"
#include "render.h"
#include "shadow_map.h"

struct render {
    int width, height;

    /* programs and their uniforms */
    GLuint prog_depth, prog_shade, prog_sky, prog_debug;
    struct {
        GLint view, proj, first;
    } u_depth;
    struct {
        GLint view, proj, light_count, light_type, light_dir, light_pos, cos_outer, cos_inner, intensity, cam_pos,
            bounds_min, bounds_max, show_mask, diff, material, base_colour, first;
    } u_shade;
    struct {
        GLint mode, far;
    } u_debug;

    /* scene: positions and normals in two buffers (texture coordinates in a third), one VAO */
    GLuint vao, vbo_pos, vbo_normal, vao_empty;
    int tri_count;
    int ground_tris; /* the last ground_tris of them: the added ground (scene.h), drawn behind its plane */
    float bounds_min[3], bounds_max[3];

    /* targets (re-made on resize): the depth FBO and the colour FBO share depth_ds */
    GLuint fbo_depth, tex_depth, tex_depth_ds, fbo_colour, tex_colour, tex_mask;
    /* the depth pass's second target: GL_R32UI primitive ids (IZB_NO_ID = sky) */
    GLuint tex_ids;
    /* bumped whenever the targets are made again: a texture name GL hands out again is another
     * texture to a backend that registered the old one (izb_shade_gl's generation) */
    unsigned targets_generation;

    /* host buffers (re-made on resize): width*height elements each */
    float *host_depth;
    uint32_t *host_ids;
    uint8_t *host_mask;
    uint8_t *host_face_mask; /* a point light: the mask of the cube face being shaded */
    bool host_current;       /* host_depth and host_ids hold this frame's depth pass (read back once) */

    /* lights 1.. (render_lights.c): their masks, one GL_R8 layer each of a 2D array texture of
     * masks_w x masks_h x masks_layers (1x1x1 while there is one light), made when the light count
     * or the size changes, never per frame */
    GLuint tex_masks;
    int masks_w, masks_h, masks_layers;

    gl_timer timer_depth, timer_shade;
    float transfer_ms;

    struct hud *hud;                /* text overlay (hud.c) */
    struct debug_view *debug_view;  /* points / cells views (debug_view.c) */

    /* conventional shadow map beside the IZB (shadow_map.c): programs made at create, textures
     * when a mode first uses them */
    shadow_map *sm;
    shadow_mode shadow_mode;

    /* materials of loaded files (render_material.c): texture coordinates (attribute 2), one GL
     * texture per image, and the shading pass's draws covering [0, tri_count) in order */
    GLuint vbo_uv;
    GLuint *mat_textures;
    int mat_texture_count;
    struct render_draw *draws;
    int draw_count;

    /* cut-outs (render_cutout.c): alpha pool, image parameters, per-triangle image, as buffer
     * textures at units RENDER_ALPHA_UNIT..+2 (shaders/alpha_test.frag's bindings) */
    GLuint alpha_buf[3], alpha_tex[3];
    bool alpha_on;
};

#define RENDER_ALPHA_UNIT 5 /* alpha_test.frag: layout(binding = 5, 6, 7) */
#define RENDER_MASKS_UNIT 3 /* shade.frag's u_masks */

/* render_lights.c: the mask array for `count` lights at the targets' size (made again only when
 * either changed). False with a reason (out of memory). */
bool render_lights_targets(render *r, int count, char *err, size_t err_size);
void render_lights_free(render *r);
/* Light i's (>= 1) layer set to `value` everywhere. */
void render_fill_light_mask(render *r, int which, uint8_t value);
/* Every light's IZB pass (zero intensity: none, its mask filled lit): light 0 by the one-light path
 * into tex_mask, last (the backend's debug data and the frame's grid are light 0's), the others
 * into their layers. sum: the frame's numbers (one light: its own);
 * per_light[i] each light's (zero where skipped); either may be NULL. shadow_samples: sub-samples
 * per pixel (izb_recon.shadow_samples) for the hard directional, spot and point lights; the others get 0. False
 * when the backend fails. */
bool render_izb_lights(render *r, const camera *c, const light_set *ls, izb_backend *b, const izb_settings *s,
                       int shadow_samples, izb_stats *sum, izb_stats per_light[IZB_MAX_LIGHTS]);
/* render_izb.c: light i's (>= 1) IZB mask through host memory into its layer (the depth pass read
 * back once a frame: r->host_current). */
bool render_shade_izb_layer(render *r, izb_backend *b, const izb_recon *frames, int count, const izb_settings *s,
                            izb_stats *stats, int which);

/* the cut-outs' buffers freed (alpha test off) */
void render_cutouts_free(render *r);
/* every scene program's u_alpha_on from r->alpha_on */
void render_cutouts_apply(render *r);
/* bind the cut-outs' buffer textures (a pass that draws the scene, before drawing) */
void render_cutouts_bind(const render *r);

/* One draw of the shading pass: triangles [first, first + count) in one material. */
typedef struct render_draw {
    int first, count;
    int mode;         /* 0: the renderer's tint, 1: base colour, 2: base colour x texture */
    float colour[4];  /* linear base colour */
    GLuint texture;   /* mode 2 */
} render_draw;

/* Upload s's texture coordinates and images and make the draws (replacing earlier ones). A scene
 * without materials gets one draw in the tint. False (nothing kept) on out of memory. */
bool render_materials_set(render *r, const scene *s, char *err, size_t err_size);
void render_materials_free(render *r);
/* The shading pass's scene draws (program, matrices, VAO and depth state already set). */
void render_materials_draw(render *r);
/* glDrawArrays of the scene's triangles [first, first + count) (program, VAO, depth state set), the
 * added ground's part with a polygon offset that puts it behind the scene's faces lying in its
 * plane (scene_add_ground: a floor of the scene's own). Every pass that draws the scene against
 * the depth pass's depth draws through this, so each pixel takes the same triangle in all.
 * first_loc: a uniform of the bound program that gets each draw's first triangle (depth.frag's
 * u_first, which makes gl_PrimitiveID a scene index), or -1. */
void render_draw_triangles(const render *r, int first, int count, GLint first_loc);
/* Delete and make the targets again at the same size (render.c): after a backend failed while it
 * held them. False with a reason when they cannot be made. */
bool render_remake_targets(render *r, char *err, size_t err_size);

#endif
