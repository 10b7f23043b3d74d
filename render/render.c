/* render.c — the GL side of a frame: programs, scene buffers, targets, the depth pass, the shading
 * pass, present, timings and read-backs. The IZB bridge between the passes is render_izb.c. */
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debug_view.h"
#include "gl_shader.h"
#include "hud.h"
#include "screenshot.h"

const char *const render_view_names[RENDER_VIEW_COUNT] = {"shaded", "overlay", "mask", "depth",
                                                            "points", "cells"};

/* delete the targets and host buffers (safe on a half-made set) */
static void targets_free(render *r);
/* make targets at w x h; false (nothing made) with a reason */
static bool targets_make(render *r, int w, int h, char *err, size_t n);
/* GL texture with immutable storage and nearest filtering */
static GLuint make_texture(GLenum format, int w, int h);
/* the camera matrices for the targets' aspect ratio */
static void camera_matrices(const render *r, const camera *c, float view[16], float proj[16]);

static GLuint make_texture(GLenum format, int w, int h)
{
    GLuint t = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &t);
    glTextureStorage2D(t, 1, format, w, h);
    glTextureParameteri(t, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(t, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTextureParameteri(t, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(t, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    return t;
}

static void targets_free(render *r)
{
    GLuint fbos[2] = {r->fbo_depth, r->fbo_colour};
    GLuint texs[5] = {r->tex_depth, r->tex_depth_ds, r->tex_colour, r->tex_mask, r->tex_ids};
    glDeleteFramebuffers(2, fbos);
    glDeleteTextures(5, texs);
    r->fbo_depth = r->fbo_colour = r->tex_depth = r->tex_depth_ds = r->tex_colour = r->tex_mask = r->tex_ids =
        0;
    free(r->host_depth);
    free(r->host_ids);
    free(r->host_mask);
    free(r->host_face_mask);
    r->host_face_mask = NULL;
    r->host_current = false;
    render_lights_free(r); /* made again at the new size by the next frame */
    r->host_depth = NULL;
    r->host_ids = NULL;
    r->host_mask = NULL;
}

static bool targets_make(render *r, int w, int h, char *err, size_t n)
{
    size_t pixels = (size_t)w * (size_t)h;
    while (glGetError() != GL_NO_ERROR) {
    }
    r->targets_generation++;
    r->tex_depth = make_texture(GL_R32F, w, h);
    r->tex_depth_ds = make_texture(GL_DEPTH_COMPONENT32F, w, h);
    r->tex_colour = make_texture(GL_RGBA8, w, h);
    r->tex_mask = make_texture(GL_R8, w, h);
    r->tex_ids = make_texture(GL_R32UI, w, h);
    glCreateFramebuffers(1, &r->fbo_depth);
    glNamedFramebufferTexture(r->fbo_depth, GL_COLOR_ATTACHMENT0, r->tex_depth, 0);
    glNamedFramebufferTexture(r->fbo_depth, GL_COLOR_ATTACHMENT1, r->tex_ids, 0);
    static const GLenum depth_outputs[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
    glNamedFramebufferDrawBuffers(r->fbo_depth, 2, depth_outputs);
    glNamedFramebufferTexture(r->fbo_depth, GL_DEPTH_ATTACHMENT, r->tex_depth_ds, 0);
    glCreateFramebuffers(1, &r->fbo_colour);
    glNamedFramebufferTexture(r->fbo_colour, GL_COLOR_ATTACHMENT0, r->tex_colour, 0);
    glNamedFramebufferTexture(r->fbo_colour, GL_DEPTH_ATTACHMENT, r->tex_depth_ds, 0);
    r->host_depth = malloc(pixels * sizeof(float));
    r->host_ids = malloc(pixels * sizeof(uint32_t));
    r->host_mask = malloc(pixels);
    r->host_face_mask = malloc(pixels);

    GLenum gl_err = glGetError();
    const char *why = NULL;
    if (gl_err == GL_OUT_OF_MEMORY || !r->host_depth || !r->host_ids || !r->host_mask || !r->host_face_mask)
        why = "out of memory";
    else if (gl_err != GL_NO_ERROR)
        why = "GL error";
    else if (glCheckNamedFramebufferStatus(r->fbo_depth, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE ||
             glCheckNamedFramebufferStatus(r->fbo_colour, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        why = "framebuffer incomplete";
    if (why) {
        snprintf(err, n, "render targets %dx%d: %s", w, h, why);
        targets_free(r);
        return false;
    }
    r->width = w;
    r->height = h;
    if (r->sm && !shadow_map_targets_changed(r, err, n)) { /* its mask shares tex_depth_ds */
        targets_free(r);
        return false;
    }
    render_fill_mask(r, 255);
    return true;
}

render *render_create(const render_desc *desc, char *err, size_t err_size)
{
    render_desc d = desc ? *desc : (render_desc){0};
    if (d.width <= 0) d.width = 1280;
    if (d.height <= 0) d.height = 720;
    if (!d.shader_dir || !d.shader_dir[0]) d.shader_dir = getenv("IZB_SHADER_DIR");

    render *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, err_size, "render: out of memory");
        return NULL;
    }
    r->prog_depth = gl_program_load_lib("depth.vert", "depth.frag", "alpha_test.frag", d.shader_dir, err, err_size);
    if (r->prog_depth)
        r->prog_shade =
            gl_program_load_lib("shade.vert", "shade.frag", "alpha_test.frag", d.shader_dir, err, err_size);
    if (r->prog_shade)
        r->prog_sky = gl_program_load("fullscreen.vert", "sky.frag", d.shader_dir, err, err_size);
    if (r->prog_sky)
        r->prog_debug = gl_program_load("fullscreen.vert", "debug.frag", d.shader_dir, err, err_size);
    if (r->prog_debug) r->sm = shadow_map_create(d.shader_dir, err, err_size);
    if (!r->sm) {
        render_destroy(r);
        return NULL;
    }
    r->hud = hud_create(d.shader_dir, err, err_size);
    if (r->hud) r->debug_view = debug_view_create(d.shader_dir, err, err_size);
    if (!r->debug_view) {
        render_destroy(r);
        return NULL;
    }
    r->u_depth.view = glGetUniformLocation(r->prog_depth, "u_view");
    r->u_depth.proj = glGetUniformLocation(r->prog_depth, "u_proj");
    r->u_depth.first = glGetUniformLocation(r->prog_depth, "u_first");
#define SHADE_UNIFORM(field) r->u_shade.field = glGetUniformLocation(r->prog_shade, "u_" #field)
    SHADE_UNIFORM(view);
    SHADE_UNIFORM(proj);
    SHADE_UNIFORM(light_count);
    SHADE_UNIFORM(intensity);
    SHADE_UNIFORM(light_type);
    SHADE_UNIFORM(light_dir);
    SHADE_UNIFORM(light_pos);
    SHADE_UNIFORM(cos_outer);
    SHADE_UNIFORM(cos_inner);
    SHADE_UNIFORM(cam_pos);
    SHADE_UNIFORM(bounds_min);
    SHADE_UNIFORM(bounds_max);
    SHADE_UNIFORM(show_mask);
    SHADE_UNIFORM(diff);
    SHADE_UNIFORM(material);
    SHADE_UNIFORM(base_colour);
    SHADE_UNIFORM(first);
#undef SHADE_UNIFORM
    r->u_debug.mode = glGetUniformLocation(r->prog_debug, "u_mode");
    r->u_debug.far = glGetUniformLocation(r->prog_debug, "u_far");
    glProgramUniform1i(r->prog_shade, glGetUniformLocation(r->prog_shade, "u_mask"), 0);
    glProgramUniform1i(r->prog_shade, glGetUniformLocation(r->prog_shade, "u_mask2"), 1);
    glProgramUniform1i(r->prog_shade, glGetUniformLocation(r->prog_shade, "u_base_tex"), 2);
    glProgramUniform1i(r->prog_shade, glGetUniformLocation(r->prog_shade, "u_masks"), RENDER_MASKS_UNIT);
    glProgramUniform1i(r->prog_debug, glGetUniformLocation(r->prog_debug, "u_depth"), 0);
    glProgramUniform1i(r->prog_debug, glGetUniformLocation(r->prog_debug, "u_mask"), 1);

    glCreateVertexArrays(1, &r->vao);
    glCreateVertexArrays(1, &r->vao_empty);
    glEnableVertexArrayAttrib(r->vao, 0);
    glVertexArrayAttribFormat(r->vao, 0, 3, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(r->vao, 0, 0);
    glEnableVertexArrayAttrib(r->vao, 1);
    glVertexArrayAttribFormat(r->vao, 1, 3, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(r->vao, 1, 1);
    for (int i = 0; i < 3; i++) {
        r->bounds_min[i] = -1.0f;
        r->bounds_max[i] = 1.0f;
    }
    /* tight packing for every read-back and upload (R8 rows are not 4-byte multiples) */
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);

    gl_timer_init(&r->timer_depth);
    gl_timer_init(&r->timer_shade);
    if (!targets_make(r, d.width, d.height, err, err_size)) {
        render_destroy(r);
        return NULL;
    }
    return r;
}

void render_destroy(render *r)
{
    if (!r) return;
    targets_free(r);
    shadow_map_destroy(r->sm);
    hud_destroy(r->hud);
    debug_view_destroy(r->debug_view);
    if (r->timer_depth.query[0]) gl_timer_destroy(&r->timer_depth);
    if (r->timer_shade.query[0]) gl_timer_destroy(&r->timer_shade);
    render_materials_free(r);
    render_cutouts_free(r);
    GLuint bufs[2] = {r->vbo_pos, r->vbo_normal};
    glDeleteBuffers(2, bufs);
    GLuint vaos[2] = {r->vao, r->vao_empty};
    glDeleteVertexArrays(2, vaos);
    glDeleteProgram(r->prog_depth);
    glDeleteProgram(r->prog_shade);
    glDeleteProgram(r->prog_sky);
    glDeleteProgram(r->prog_debug);
    free(r);
}

bool render_update_positions(render *r, const float *xyz, const float *normals, int tri_count, char *err,
                             size_t err_size)
{
    if (!xyz || tri_count != r->tri_count || tri_count <= 0) {
        snprintf(err, err_size, "render: update of %d triangles, but the scene has %d", tri_count, r->tri_count);
        return false;
    }
    const GLsizeiptr bytes = (GLsizeiptr)((size_t)tri_count * 9 * sizeof(float));
    glNamedBufferSubData(r->vbo_pos, 0, bytes, xyz);
    if (normals)
        glNamedBufferSubData(r->vbo_normal, 0, bytes, normals);
    return true;
}

bool render_set_scene(render *r, const scene *s, char *err, size_t err_size)
{
    if (!s || s->tri_count <= 0 || !s->xyz) {
        snprintf(err, err_size, "render: empty scene");
        return false;
    }
    size_t floats = (size_t)s->tri_count * 9;
    float *flat = NULL;
    const float *normals = s->normals;
    if (!normals) { /* one-off at load: flat normals from the winding */
        flat = malloc(floats * sizeof(float));
        if (!flat) {
            snprintf(err, err_size, "render: out of memory for %d triangles", s->tri_count);
            return false;
        }
        for (int t = 0; t < s->tri_count; t++) {
            const float *v = s->xyz + 9 * (size_t)t;
            float a[3], b[3], nrm[3];
            for (int k = 0; k < 3; k++) {
                a[k] = v[3 + k] - v[k];
                b[k] = v[6 + k] - v[k];
            }
            nrm[0] = a[1] * b[2] - a[2] * b[1];
            nrm[1] = a[2] * b[0] - a[0] * b[2];
            nrm[2] = a[0] * b[1] - a[1] * b[0];
            float len = sqrtf(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
            float inv = len > 0.0f ? 1.0f / len : 0.0f;
            for (int i = 0; i < 3; i++)
                for (int k = 0; k < 3; k++)
                    flat[9 * (size_t)t + 3 * (size_t)i + (size_t)k] = nrm[k] * inv;
        }
        normals = flat;
    }
    GLuint bufs[2] = {r->vbo_pos, r->vbo_normal};
    glDeleteBuffers(2, bufs);
    while (glGetError() != GL_NO_ERROR) {
    }
    glCreateBuffers(1, &r->vbo_pos);
    glCreateBuffers(1, &r->vbo_normal);
    /* dynamic: moving scenes upload new positions every frame (render_update_positions) */
    glNamedBufferStorage(r->vbo_pos, (GLsizeiptr)(floats * sizeof(float)), s->xyz, GL_DYNAMIC_STORAGE_BIT);
    glNamedBufferStorage(r->vbo_normal, (GLsizeiptr)(floats * sizeof(float)), normals, GL_DYNAMIC_STORAGE_BIT);
    free(flat);
    if (glGetError() != GL_NO_ERROR) {
        snprintf(err, err_size, "render: out of GPU memory for %d triangles", s->tri_count);
        r->tri_count = 0;
        return false;
    }
    glVertexArrayVertexBuffer(r->vao, 0, r->vbo_pos, 0, 3 * sizeof(float));
    glVertexArrayVertexBuffer(r->vao, 1, r->vbo_normal, 0, 3 * sizeof(float));
    r->tri_count = s->tri_count;
    r->ground_tris = s->ground_tris < 0 ? 0 : s->ground_tris > s->tri_count ? s->tri_count : s->ground_tris;
    if (!render_materials_set(r, s, err, err_size)) {
        r->tri_count = 0;
        return false;
    }
    memcpy(r->bounds_min, s->bounds_min, sizeof r->bounds_min);
    memcpy(r->bounds_max, s->bounds_max, sizeof r->bounds_max);
    return true;
}

bool render_resize(render *r, int width, int height, char *err, size_t err_size)
{
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
        snprintf(err, err_size, "render: bad target size %dx%d", width, height);
        return false;
    }
    if (width == r->width && height == r->height) return true;
    int old_w = r->width, old_h = r->height;
    targets_free(r);
    if (targets_make(r, width, height, err, err_size)) return true;
    char ignored[64];
    targets_make(r, old_w, old_h, ignored, sizeof ignored); /* try to keep working at the old size */
    return false;
}

bool render_remake_targets(render *r, char *err, size_t err_size)
{
    int w = r->width, h = r->height;
    targets_free(r);
    return targets_make(r, w, h, err, err_size);
}

int render_width(const render *r)
{
    return r->width;
}
int render_height(const render *r)
{
    return r->height;
}

static void camera_matrices(const render *r, const camera *c, float view[16], float proj[16])
{
    camera_view(c, view);
    camera_proj(c, (float)r->width / (float)r->height, proj);
}

void render_depth_pass(render *r, const camera *c)
{
    float view[16], proj[16];
    camera_matrices(r, c, view, proj);
    static const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    static const float one = 1.0f;
    static const GLuint no_id[4] = {IZB_NO_ID, 0, 0, 0};

    r->host_current = false; /* a new depth: the IZB reads it back again */
    glBindFramebuffer(GL_FRAMEBUFFER, r->fbo_depth);
    render_cutouts_bind(r); /* kept bound for the frame's later passes (units of their own) */
    gl_timer_begin(&r->timer_depth);
    glViewport(0, 0, r->width, r->height);
    glDepthMask(GL_TRUE);
    glClearNamedFramebufferfv(r->fbo_depth, GL_COLOR, 0, zero); /* 0 = sky */
    glClearNamedFramebufferuiv(r->fbo_depth, GL_COLOR, 1, no_id); /* sky: no triangle */
    glClearNamedFramebufferfv(r->fbo_depth, GL_DEPTH, 0, &one);
    if (r->tri_count > 0) {
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glDisable(GL_CULL_FACE); /* scenes have single-sided surfaces seen from both sides */
        glUseProgram(r->prog_depth);
        glProgramUniformMatrix4fv(r->prog_depth, r->u_depth.view, 1, GL_FALSE, view);
        glProgramUniformMatrix4fv(r->prog_depth, r->u_depth.proj, 1, GL_FALSE, proj);
        glBindVertexArray(r->vao);
        render_draw_triangles(r, 0, r->tri_count, r->u_depth.first);
    }
    gl_timer_end(&r->timer_depth);
}

void render_draw_triangles(const render *r, int first, int count, GLint first_loc)
{
    const int ground = r->tri_count - r->ground_tris, end = first + count;
    const int mid = first > ground ? first : end < ground ? end : ground;
    if (mid > first) {
        glUniform1ui(first_loc, (GLuint)first); /* location -1: ignored */
        glDrawArrays(GL_TRIANGLES, 3 * first, 3 * (mid - first));
    }
    if (end > mid) {
        glUniform1ui(first_loc, (GLuint)mid);
        /* the ground and a floor in its plane rasterise to depths a rounding apart: the offset (one
         * depth step beyond the slope) lets the scene win every tie, and GL applies it alike in
         * every pass. The colour target's linear depth, which the IZB reads, is not offset. */
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(1.0f, 1.0f);
        glDrawArrays(GL_TRIANGLES, 3 * mid, 3 * (end - mid));
        glDisable(GL_POLYGON_OFFSET_FILL);
    }
}

void render_fill_mask(render *r, uint8_t value)
{
    glClearTexImage(r->tex_mask, 0, GL_RED, GL_UNSIGNED_BYTE, &value);
}

void render_shade_pass(render *r, const camera *c, const light *l, render_view view)
{
    const light_set one = light_set_one(l);
    char err[256];
    if (!render_lights_targets(r, 1, err, sizeof err)) fprintf(stderr, "%s\n", err);
    render_shade_pass_lights(r, c, &one, view);
}

/* the shading pass's light uniforms for ls (light i at index i of each array) */
static void light_uniforms(render *r, const light_set *ls)
{
    int type[IZB_MAX_LIGHTS];
    float dir[IZB_MAX_LIGHTS][3], pos[IZB_MAX_LIGHTS][3], cos_outer[IZB_MAX_LIGHTS], cos_inner[IZB_MAX_LIGHTS];
    const int n = ls->count < 1 ? 1 : ls->count > IZB_MAX_LIGHTS ? IZB_MAX_LIGHTS : ls->count;
    for (int i = 0; i < n; i++) {
        const light *l = &ls->l[i];
        light_direction(l, dir[i]);
        memcpy(pos[i], l->pos, sizeof pos[i]);
        float half = 0.5f * (l->cone_deg > 0.0f ? l->cone_deg : 60.0f) * 0.017453292519943295f;
        cos_outer[i] = cosf(half);
        cos_inner[i] = cosf(0.85f * half);
        type[i] = (int)l->type; /* 0 directional, 1 spot, 2 point */
    }
    GLuint p = r->prog_shade;
    glProgramUniform1i(p, r->u_shade.light_count, n);
    glProgramUniform1iv(p, r->u_shade.light_type, n, type);
    glProgramUniform3fv(p, r->u_shade.light_dir, n, &dir[0][0]);
    glProgramUniform3fv(p, r->u_shade.light_pos, n, &pos[0][0]);
    glProgramUniform1fv(p, r->u_shade.cos_outer, n, cos_outer);
    glProgramUniform1fv(p, r->u_shade.cos_inner, n, cos_inner);
    glProgramUniform1fv(p, r->u_shade.intensity, n, ls->intensity);
}

void render_shade_pass_lights(render *r, const camera *c, const light_set *ls, render_view view)
{
    float mview[16], proj[16];
    camera_matrices(r, c, mview, proj);

    glBindFramebuffer(GL_FRAMEBUFFER, r->fbo_colour);
    gl_timer_begin(&r->timer_shade);
    glViewport(0, 0, r->width, r->height);
    glDepthMask(GL_FALSE);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glBindVertexArray(r->vao_empty);
    /* the mode's mask (shadow_map.h); the difference view also reads the shadow map's */
    GLuint sm_mask = shadow_map_mask_texture(r);
    GLuint mask = r->shadow_mode == SHADOW_MODE_MAP && sm_mask ? sm_mask : r->tex_mask;
    bool diff = r->shadow_mode == SHADOW_MODE_DIFF && sm_mask;

    if (view == RENDER_VIEW_MASK || view == RENDER_VIEW_DEPTH) {
        glUseProgram(r->prog_debug);
        glProgramUniform1i(r->prog_debug, r->u_debug.mode, view == RENDER_VIEW_MASK ? 1 : 2);
        glProgramUniform1f(r->prog_debug, r->u_debug.far, c->far > 0.0f ? c->far : 100.0f);
        glBindTextureUnit(0, r->tex_depth);
        glBindTextureUnit(1, mask);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        gl_timer_end(&r->timer_shade);
        return;
    }

    glUseProgram(r->prog_sky); /* everywhere; the scene overwrites the covered pixels */
    glDrawArrays(GL_TRIANGLES, 0, 3);

    if (r->tri_count > 0) {
        GLuint p = r->prog_shade;
        glUseProgram(p);
        glProgramUniformMatrix4fv(p, r->u_shade.view, 1, GL_FALSE, mview);
        glProgramUniformMatrix4fv(p, r->u_shade.proj, 1, GL_FALSE, proj);
        light_uniforms(r, ls);
        glProgramUniform3fv(p, r->u_shade.cam_pos, 1, c->pos);
        glProgramUniform3fv(p, r->u_shade.bounds_min, 1, r->bounds_min);
        glProgramUniform3fv(p, r->u_shade.bounds_max, 1, r->bounds_max);
        glProgramUniform1i(p, r->u_shade.show_mask, view == RENDER_VIEW_OVERLAY ? 1 : 0);
        glProgramUniform1i(p, r->u_shade.diff, diff ? 1 : 0);
        glBindTextureUnit(0, mask);
        glBindTextureUnit(1, diff ? sm_mask : mask);
        glBindTextureUnit(RENDER_MASKS_UNIT, r->tex_masks);
        /* same gl_Position as the depth pass (invariant): exactly the pixels it covered pass */
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LEQUAL);
        glBindVertexArray(r->vao);
        render_materials_draw(r); /* one draw per material range (render_material.c) */
        glDisable(GL_DEPTH_TEST);
    }
    gl_timer_end(&r->timer_shade);
}

bool render_frame(render *r, const render_frame_desc *f)
{
    light_set one;
    const light_set *ls = f->lights;
    if (!ls) {
        one = light_set_one(f->light);
        ls = &one;
    }
    if (ls->count < 1 || ls->count > IZB_MAX_LIGHTS) {
        fprintf(stderr, "render: %d lights (1 to %d)\n", ls->count, IZB_MAX_LIGHTS);
        return false;
    }
    char err[256];
    if (!render_lights_targets(r, ls->count, err, sizeof err)) { /* only when the count or size changed */
        fprintf(stderr, "%s\n", err);
        return false;
    }
    bool ok = true;
    render_depth_pass(r, f->cam);
    shadow_mode m = r->shadow_mode;
    if (f->light_stats) memset(f->light_stats, 0, IZB_MAX_LIGHTS * sizeof *f->light_stats);
    if (f->backend && (m == SHADOW_MODE_IZB || m == SHADOW_MODE_DIFF)) {
        ok = render_izb_lights(r, f->cam, ls, f->backend, f->settings, f->shadow_samples, f->stats,
                               f->light_stats);
    } else {
        for (int i = 0; i < ls->count; i++) render_fill_light_mask(r, i, 255);
    }
    /* the map mode: every light's map (its mask into its layer); the difference view: light 0's */
    if (m == SHADOW_MODE_MAP || m == SHADOW_MODE_DIFF)
        render_shadow_map_pass_lights(r, f->cam, ls, m == SHADOW_MODE_MAP ? ls->count : 1);
    render_shade_pass_lights(r, f->cam, ls, f->view);
    if (f->view == RENDER_VIEW_POINTS || f->view == RENDER_VIEW_CELLS)
        debug_view_draw(r->debug_view, r, f->backend, f->view);
    if (f->hud) hud_draw(r->hud, r->fbo_colour, r->width, r->height);
    return ok;
}

void render_set_hud_text(render *r, const char *text)
{
    hud_set_text(r->hud, text);
}

void render_present(render *r, int fb_width, int fb_height)
{
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glBlitNamedFramebuffer(r->fbo_colour, 0, 0, 0, r->width, r->height, 0, 0, fb_width, fb_height,
                           GL_COLOR_BUFFER_BIT, GL_NEAREST);
}

render_timings render_get_timings(render *r)
{
    gl_timer_poll(&r->timer_depth);
    gl_timer_poll(&r->timer_shade);
    float sm_ms = 0.0f;
    long sm_frame = -1;
    if (r->sm) shadow_map_timing(r->sm, &sm_ms, &sm_frame);
    return (render_timings){
        .depth_ms = r->timer_depth.ms,
        .shade_ms = r->timer_shade.ms,
        .transfer_ms = r->transfer_ms,
        .depth_frame = r->timer_depth.ms_frame,
        .shade_frame = r->timer_shade.ms_frame,
        .shadow_map_ms = sm_ms,
        .shadow_map_frame = sm_frame,
    };
}

void render_read_depth(render *r, float *depth)
{
    glGetTextureImage(r->tex_depth, 0, GL_RED, GL_FLOAT,
                      (GLsizei)((size_t)r->width * (size_t)r->height * sizeof(float)), depth);
}

void render_read_ids(render *r, uint32_t *ids)
{
    glGetTextureImage(r->tex_ids, 0, GL_RED_INTEGER, GL_UNSIGNED_INT,
                      (GLsizei)((size_t)r->width * (size_t)r->height * sizeof(uint32_t)), ids);
}

void render_read_mask(render *r, uint8_t *mask)
{
    glGetTextureImage(r->tex_mask, 0, GL_RED, GL_UNSIGNED_BYTE,
                      (GLsizei)((size_t)r->width * (size_t)r->height), mask);
}

void render_read_colour(render *r, uint8_t *rgba)
{
    glGetTextureImage(r->tex_colour, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                      (GLsizei)((size_t)r->width * (size_t)r->height * 4), rgba);
}

bool render_screenshot(render *r, const char *path, char *err, size_t err_size)
{
    /* a one-off, not per frame: the pixels go through a temporary buffer */
    size_t bytes = (size_t)r->width * (size_t)r->height * 3;
    uint8_t *rgb = malloc(bytes);
    if (!rgb) {
        snprintf(err, err_size, "screenshot '%s': out of memory", path);
        return false;
    }
    glGetTextureImage(r->tex_colour, 0, GL_RGB, GL_UNSIGNED_BYTE, (GLsizei)bytes, rgb);
    bool ok = render_png_write(path, rgb, r->width, r->height, 3, err, err_size);
    free(rgb);
    return ok;
}
