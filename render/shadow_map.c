/* shadow_map.c — the conventional shadow map and its mask pass (shadow_map.h), and the
 * renderer's shadow mode. The map is a GL_DEPTH_COMPONENT32F texture with hardware depth compare;
 * the mask pass redraws the scene with shade.vert (invariant gl_Position, depth test GL_LEQUAL
 * against the camera depth pass) into a screen-sized GL_R8 texture. */
#include "shadow_map.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_shader.h"
#include "izb_area.h"
#include "izb_pcss.h"
#include "render_internal.h"

struct shadow_map {
    GLuint prog_depth, prog_mask;
    GLint u_depth_light;
    struct {
        GLint view, proj, light, spot, light_dir, light_pos, bias, texel_world, normal_offset, pcf, texel;
        GLint pcss, pcss_k, pcss_z0, map_size, pcss_search, pcss_filter, pcss_rot;
    } u;
    GLuint smp_depth;     /* the map read as depths (PCSS's taps): nearest, no compare */
    shadow_map_desc desc; /* settings; desc.size is what the map is (or will be) made at */
    int map_size;         /* size of tex_map; 0 = not made */
    GLuint tex_map, fbo_map;
    int mask_w, mask_h; /* size of tex_mask; 0 = not made */
    GLuint tex_mask, fbo_mask;
    bool probe; /* shadow_map_set_probe: tex_probe, tex_slope beside the mask */
    GLuint tex_probe, tex_slope;
    gl_timer timer;
};

const char *const shadow_mode_names[SHADOW_MODE_COUNT] = {"izb", "map", "diff", "none"};

/* the mode draws the shadow map */
static bool mode_uses_map(shadow_mode m);
/* delete the map / the mask target (safe when not made) */
static void map_free(shadow_map *sm);
static void mask_free(shadow_map *sm);
/* make what `mode` needs and is missing, free what it does not need; false (nothing half-made)
 * with a reason */
static bool ensure(render *r, shadow_mode mode, char *err, size_t n);
/* clear pending GL errors; then the first new one after the calls, as "GL error 0x.." or NULL */
static void gl_errors_clear(void);
static const char *gl_error_reason(void);

/* the program's tap arrays have izb_pcss.h's sizes: a drift would make the shader and the
 * reference differ without a word */
static bool pcss_arrays_match(GLuint p, char *err, size_t n);

static bool mode_uses_map(shadow_mode m)
{
    return m == SHADOW_MODE_MAP || m == SHADOW_MODE_DIFF;
}

/* an area light's side: in [0, IZB_AREA_MAX_SIZE] (NaN is not) */
static bool area_side_ok(float w)
{
    return w >= 0.0f && w <= IZB_AREA_MAX_SIZE;
}

bool shadow_map_uses_pcss(const shadow_map_desc *d, const light *l)
{
    if (!d->pcss) return false;
    /* an area light (izb_area_on: a spot with a size); bad sides, which the app and the IZB refuse,
     * keep the hard spot */
    if (l->type == LIGHT_SPOT)
        return area_side_ok(l->size[0]) && area_side_ok(l->size[1]) &&
               (l->size[0] > 0.0f || l->size[1] > 0.0f);
    /* past the largest angle (the app and the IZB refuse it) tan(angle / 2) runs away: hard */
    return l->type == LIGHT_DIRECTIONAL && l->angle_deg > 0.0f && l->angle_deg <= IZB_SOFT_MAX_ANGLE_DEG;
}

static bool pcss_arrays_match(GLuint p, char *err, size_t n)
{
    const char *name[3] = {"u_pcss_search", "u_pcss_filter", "u_pcss_rot"};
    const int size[3] = {IZB_PCSS_SEARCH_TAPS, IZB_PCSS_FILTER_TAPS, IZB_PCSS_ROTATIONS};
    for (int i = 0; i < 3; i++) {
        char last[64], past[64];
        snprintf(last, sizeof last, "%s[%d]", name[i], size[i] - 1);
        snprintf(past, sizeof past, "%s[%d]", name[i], size[i]);
        if (glGetUniformLocation(p, last) < 0 || glGetUniformLocation(p, past) >= 0) {
            snprintf(err, n, "shadow_mask.frag: %s must have %d entries (core/izb_pcss.h)", name[i], size[i]);
            return false;
        }
    }
    return true;
}

shadow_map_desc shadow_map_desc_resolve(shadow_map_desc d)
{
    if (d.size <= 0) d.size = 2048;
    if (d.slope_factor == 0.0f) d.slope_factor = 2.0f;
    if (d.offset_units == 0.0f) d.offset_units = 4.0f;
    if (d.normal_offset == 0.0f) d.normal_offset = 1.0f;
    if (d.normal_offset < 0.0f) d.normal_offset = 0.0f;
    return d;
}

int render_shadow_map_max_size(void)
{
    GLint tex = 0, rb = 0, vp[2] = {0, 0}, fw = 0, fh = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &tex);
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &rb);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, vp);
    glGetIntegerv(GL_MAX_FRAMEBUFFER_WIDTH, &fw);
    glGetIntegerv(GL_MAX_FRAMEBUFFER_HEIGHT, &fh);
    int m = SHADOW_MAP_MAX_SIZE;
    GLint lim[6] = {tex, rb, vp[0], vp[1], fw, fh};
    for (int i = 0; i < 6; i++)
        if (lim[i] > 0 && lim[i] < m) m = lim[i];
    return m;
}

static void gl_errors_clear(void)
{
    while (glGetError() != GL_NO_ERROR) {
    }
}

static const char *gl_error_reason(void)
{
    static char buf[32];
    GLenum e = glGetError();
    gl_errors_clear();
    if (e == GL_NO_ERROR) return NULL;
    if (e == GL_OUT_OF_MEMORY) return "out of GPU memory";
    snprintf(buf, sizeof buf, "GL error 0x%04x", (unsigned)e);
    return buf;
}

shadow_map *shadow_map_create(const char *shader_dir, char *err, size_t err_size)
{
    shadow_map *sm = calloc(1, sizeof *sm);
    if (!sm) {
        snprintf(err, err_size, "shadow map: out of memory");
        return NULL;
    }
    sm->prog_depth =
        gl_program_load_lib("shadow_depth.vert", "shadow_depth.frag", "alpha_test.frag", shader_dir, err, err_size);
    if (sm->prog_depth)
        sm->prog_mask =
            gl_program_load_lib("shade.vert", "shadow_mask.frag", "alpha_test.frag", shader_dir, err, err_size);
    if (!sm->prog_mask || !pcss_arrays_match(sm->prog_mask, err, err_size)) {
        shadow_map_destroy(sm);
        return NULL;
    }
    sm->u_depth_light = glGetUniformLocation(sm->prog_depth, "u_light");
#define MASK_UNIFORM(field) sm->u.field = glGetUniformLocation(sm->prog_mask, "u_" #field)
    MASK_UNIFORM(view);
    MASK_UNIFORM(proj);
    MASK_UNIFORM(light);
    MASK_UNIFORM(spot);
    MASK_UNIFORM(light_dir);
    MASK_UNIFORM(light_pos);
    MASK_UNIFORM(bias);
    MASK_UNIFORM(texel_world);
    MASK_UNIFORM(normal_offset);
    MASK_UNIFORM(pcf);
    MASK_UNIFORM(texel);
    MASK_UNIFORM(pcss);
    MASK_UNIFORM(pcss_k);
    MASK_UNIFORM(pcss_z0);
    MASK_UNIFORM(map_size);
    MASK_UNIFORM(pcss_search);
    MASK_UNIFORM(pcss_filter);
    MASK_UNIFORM(pcss_rot);
#undef MASK_UNIFORM
    glCreateSamplers(1, &sm->smp_depth);
    glSamplerParameteri(sm->smp_depth, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glSamplerParameteri(sm->smp_depth, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glSamplerParameteri(sm->smp_depth, GL_TEXTURE_COMPARE_MODE, GL_NONE);
    glProgramUniform1i(sm->prog_mask, glGetUniformLocation(sm->prog_mask, "u_map"), 0);
    sm->desc = shadow_map_desc_resolve((shadow_map_desc){0});
    gl_timer_init(&sm->timer);
    return sm;
}

unsigned shadow_map_program(const shadow_map *sm, int which)
{
    return !sm ? 0 : which ? sm->prog_mask : sm->prog_depth;
}

void shadow_map_destroy(shadow_map *sm)
{
    if (!sm) return;
    map_free(sm);
    mask_free(sm);
    if (sm->timer.query[0]) gl_timer_destroy(&sm->timer);
    glDeleteSamplers(1, &sm->smp_depth);
    glDeleteProgram(sm->prog_depth);
    glDeleteProgram(sm->prog_mask);
    free(sm);
}

static void map_free(shadow_map *sm)
{
    glDeleteFramebuffers(1, &sm->fbo_map);
    glDeleteTextures(1, &sm->tex_map);
    sm->fbo_map = sm->tex_map = 0;
    sm->map_size = 0;
}

static void mask_free(shadow_map *sm)
{
    glDeleteFramebuffers(1, &sm->fbo_mask);
    glDeleteTextures(1, &sm->tex_mask);
    glDeleteTextures(1, &sm->tex_probe);
    glDeleteTextures(1, &sm->tex_slope);
    sm->fbo_mask = sm->tex_mask = sm->tex_probe = sm->tex_slope = 0;
    sm->mask_w = sm->mask_h = 0;
}

static bool ensure(render *r, shadow_mode mode, char *err, size_t n)
{
    shadow_map *sm = r->sm;
    if (!mode_uses_map(mode)) { /* a 16K map is 1 GiB: give it back when nothing draws it */
        map_free(sm);
        mask_free(sm);
        return true;
    }
    gl_errors_clear();
    if (sm->map_size != sm->desc.size) {
        int s = sm->desc.size;
        map_free(sm);
        glCreateTextures(GL_TEXTURE_2D, 1, &sm->tex_map);
        glTextureStorage2D(sm->tex_map, 1, GL_DEPTH_COMPONENT32F, s, s);
        GLenum filter = sm->desc.pcf ? GL_LINEAR : GL_NEAREST;
        glTextureParameteri(sm->tex_map, GL_TEXTURE_MIN_FILTER, (GLint)filter);
        glTextureParameteri(sm->tex_map, GL_TEXTURE_MAG_FILTER, (GLint)filter);
        glTextureParameteri(sm->tex_map, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_BORDER);
        glTextureParameteri(sm->tex_map, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_BORDER);
        static const float far_border[4] = {1.0f, 1.0f, 1.0f, 1.0f}; /* outside the map: lit */
        glTextureParameterfv(sm->tex_map, GL_TEXTURE_BORDER_COLOR, far_border);
        glTextureParameteri(sm->tex_map, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
        glTextureParameteri(sm->tex_map, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
        glCreateFramebuffers(1, &sm->fbo_map);
        glNamedFramebufferTexture(sm->fbo_map, GL_DEPTH_ATTACHMENT, sm->tex_map, 0);
        glNamedFramebufferDrawBuffer(sm->fbo_map, GL_NONE);
        glNamedFramebufferReadBuffer(sm->fbo_map, GL_NONE);
        const char *why = gl_error_reason();
        if (!why && glCheckNamedFramebufferStatus(sm->fbo_map, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
            why = "framebuffer incomplete";
        if (why) {
            snprintf(err, n, "shadow map %dx%d (%.0f MiB): %s", s, s, (double)s * s * 4.0 / 1048576.0, why);
            map_free(sm);
            return false;
        }
        sm->map_size = s;
    }
    if (sm->mask_w != r->width || sm->mask_h != r->height || !sm->fbo_mask) {
        mask_free(sm);
        glCreateTextures(GL_TEXTURE_2D, 1, &sm->tex_mask);
        glTextureStorage2D(sm->tex_mask, 1, GL_R8, r->width, r->height);
        glTextureParameteri(sm->tex_mask, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTextureParameteri(sm->tex_mask, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTextureParameteri(sm->tex_mask, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTextureParameteri(sm->tex_mask, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        glCreateFramebuffers(1, &sm->fbo_mask);
        glNamedFramebufferTexture(sm->fbo_mask, GL_COLOR_ATTACHMENT0, sm->tex_mask, 0);
        glNamedFramebufferTexture(sm->fbo_mask, GL_DEPTH_ATTACHMENT, r->tex_depth_ds, 0);
        if (sm->probe) { /* the test's probe: the filter's inputs at locations 1 and 2 */
            glCreateTextures(GL_TEXTURE_2D, 1, &sm->tex_probe);
            glTextureStorage2D(sm->tex_probe, 1, GL_RGBA32F, r->width, r->height);
            glCreateTextures(GL_TEXTURE_2D, 1, &sm->tex_slope);
            glTextureStorage2D(sm->tex_slope, 1, GL_RG32F, r->width, r->height);
            glNamedFramebufferTexture(sm->fbo_mask, GL_COLOR_ATTACHMENT1, sm->tex_probe, 0);
            glNamedFramebufferTexture(sm->fbo_mask, GL_COLOR_ATTACHMENT2, sm->tex_slope, 0);
            static const GLenum bufs[3] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2};
            glNamedFramebufferDrawBuffers(sm->fbo_mask, 3, bufs);
        }
        const char *why = gl_error_reason();
        if (!why && glCheckNamedFramebufferStatus(sm->fbo_mask, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
            why = "framebuffer incomplete";
        if (why) {
            snprintf(err, n, "shadow-map mask %dx%d: %s", r->width, r->height, why);
            mask_free(sm);
            return false;
        }
        sm->mask_w = r->width;
        sm->mask_h = r->height;
        static const uint8_t lit = 255;
        glClearTexImage(sm->tex_mask, 0, GL_RED, GL_UNSIGNED_BYTE, &lit);
    }
    return true;
}

bool render_set_shadow_mode(render *r, shadow_mode mode, char *err, size_t err_size)
{
    if ((int)mode < 0 || mode >= SHADOW_MODE_COUNT) {
        snprintf(err, err_size, "shadow mode %d: unknown", (int)mode);
        return false;
    }
    if (!ensure(r, mode, err, err_size)) return false;
    r->shadow_mode = mode;
    return true;
}

shadow_mode render_shadow_mode(const render *r)
{
    return r->shadow_mode;
}

bool render_set_shadow_map(render *r, const shadow_map_desc *d, char *err, size_t err_size)
{
    shadow_map_desc nd = shadow_map_desc_resolve(*d);
    int max = render_shadow_map_max_size();
    if (nd.size > max) {
        snprintf(err, err_size,
                 "shadow map %d: larger than this GL allows (%d: GL_MAX_TEXTURE_SIZE / "
                 "GL_MAX_RENDERBUFFER_SIZE / viewport)",
                 nd.size, max);
        return false;
    }
    if (nd.size < SHADOW_MAP_MIN_SIZE || (nd.size & (nd.size - 1)) != 0) {
        snprintf(err, err_size, "shadow map %d: the size must be a power of two from %d to %d", nd.size,
                 SHADOW_MAP_MIN_SIZE, max);
        return false;
    }
    if (!(nd.slope_factor >= 0.0f && nd.slope_factor < 1e4f && nd.offset_units >= 0.0f &&
          nd.offset_units < 1e6f && nd.normal_offset < 1e3f)) {
        snprintf(err, err_size, "shadow map: bias out of range (factor %g, units %g, normal offset %g)",
                 (double)nd.slope_factor, (double)nd.offset_units, (double)nd.normal_offset);
        return false;
    }
    shadow_map *sm = r->sm;
    shadow_map_desc old = sm->desc;
    sm->desc = nd;
    if (!ensure(r, r->shadow_mode, err, err_size)) {
        sm->desc = old;
        char ignored[128];
        ensure(r, r->shadow_mode, ignored, sizeof ignored); /* keep working at the old size */
        return false;
    }
    if (sm->tex_map) {
        GLint filter = nd.pcf ? GL_LINEAR : GL_NEAREST;
        glTextureParameteri(sm->tex_map, GL_TEXTURE_MIN_FILTER, filter);
        glTextureParameteri(sm->tex_map, GL_TEXTURE_MAG_FILTER, filter);
    }
    return true;
}

shadow_map_desc render_shadow_map_settings(const render *r)
{
    return r->sm->desc;
}

bool shadow_map_targets_changed(render *r, char *err, size_t err_size)
{
    mask_free(r->sm); /* it held the old depth attachment */
    return ensure(r, r->shadow_mode, err, err_size);
}

unsigned shadow_map_mask_texture(const render *r)
{
    return r->sm ? r->sm->tex_mask : 0;
}

void shadow_map_pcss_params(const render *r, const light *l, izb_pcss *out)
{
    float lizb[16], lgl[16];
    light_matrices(l, r->bounds_min, r->bounds_max, lizb, lgl);
    const int size = r->sm->map_size ? r->sm->map_size : r->sm->desc.size;
    if (l->type != LIGHT_SPOT) {
        izb_pcss_make(lgl, l->angle_deg * 0.017453292519943295f, size, out);
        return;
    }
    /* the nearest a blocker can be: the scene bounds' nearest corner along the aim (clip w) */
    float d_min = INFINITY;
    for (int c = 0; c < 8; c++) {
        const float x = (c & 1 ? r->bounds_max : r->bounds_min)[0],
                    y = (c & 2 ? r->bounds_max : r->bounds_min)[1],
                    z = (c & 4 ? r->bounds_max : r->bounds_min)[2];
        d_min = fminf(d_min, lgl[3] * x + lgl[7] * y + lgl[11] * z + lgl[15]);
    }
    izb_pcss_make_area(lgl, l->size[0], l->size[1], d_min, size, out);
}

bool shadow_map_set_probe(render *r, bool on, char *err, size_t err_size)
{
    shadow_map *sm = r->sm;
    if (sm->probe == on) return true;
    sm->probe = on;
    mask_free(sm); /* made again with or without the probe's targets */
    if (ensure(r, r->shadow_mode, err, err_size)) return true;
    sm->probe = false;
    char ignored[128];
    ensure(r, r->shadow_mode, ignored, sizeof ignored);
    return false;
}

bool shadow_map_read_probe(render *r, float *coord, float *slope)
{
    shadow_map *sm = r->sm;
    if (!sm->tex_probe) return false;
    size_t n = (size_t)r->width * (size_t)r->height;
    glGetTextureImage(sm->tex_probe, 0, GL_RGBA, GL_FLOAT, (GLsizei)(n * 4 * sizeof(float)), coord);
    glGetTextureImage(sm->tex_slope, 0, GL_RG, GL_FLOAT, (GLsizei)(n * 2 * sizeof(float)), slope);
    return true;
}

int shadow_map_read_depths(render *r, float *map)
{
    shadow_map *sm = r->sm;
    if (!sm->tex_map) return 0;
    size_t n = (size_t)sm->map_size * (size_t)sm->map_size;
    glGetTextureImage(sm->tex_map, 0, GL_DEPTH_COMPONENT, GL_FLOAT, (GLsizei)(n * sizeof(float)), map);
    return sm->map_size;
}

void shadow_map_timing(shadow_map *sm, float *ms, long *frame)
{
    gl_timer_poll(&sm->timer);
    *ms = sm->timer.ms;
    *frame = sm->timer.ms_frame;
}

/* One light frustum: its map (into the one 2D map, reused) from lgl, then its mask pass over the
 * covered pixels. frustum: 0 directional, 1 spot, 2 one face of a point light's cube (square);
 * outside a spot's or a face's frustum the pass writes 0. combine: max-blend into the mask (a point
 * light's later faces: a point is lit when lit in the face that holds it, as the IZB's
 * izb_shade_arrays_faces) instead of overwriting it. */
static void map_and_mask(render *r, const float view[16], const float proj[16], const float lizb[16],
                         const float lgl[16], int frustum, const float dir[3], const float pos[3],
                         bool combine, const izb_pcss *pcss)
{
    shadow_map *sm = r->sm;
    /* the IZB's bias as a receiver shift (as tools/oracle.c does): directional, bias over the
     * depth key's world gradient; spot and face, a fraction of the distance */
    double key_grad =
        sqrt((double)lizb[2] * lizb[2] + (double)lizb[6] * lizb[6] + (double)lizb[10] * lizb[10]);
    float bias = frustum ? IZB_DEFAULT_BIAS : (key_grad > 0.0 ? (float)(IZB_DEFAULT_BIAS / key_grad) : 0.0f);
    /* texel size: 2 / (size * |row 0|) world units (orthographic), per unit of clip w (spot) */
    float row0 = sqrtf(lgl[0] * lgl[0] + lgl[4] * lgl[4] + lgl[8] * lgl[8]);
    int s = sm->map_size;
    float texel_world = row0 > 0.0f ? 2.0f / ((float)s * row0) : 0.0f;

    /* 1. depth from the light */
    static const float one = 1.0f;
    glBindFramebuffer(GL_FRAMEBUFFER, sm->fbo_map);
    glViewport(0, 0, s, s);
    glDepthMask(GL_TRUE);
    glClearNamedFramebufferfv(sm->fbo_map, GL_DEPTH, 0, &one);
    if (r->tri_count > 0) {
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glDisable(GL_CULL_FACE); /* single-sided ground and closed objects: both faces cast */
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(sm->desc.slope_factor, sm->desc.offset_units);
        glUseProgram(sm->prog_depth);
        render_cutouts_bind(r);
        glProgramUniformMatrix4fv(sm->prog_depth, sm->u_depth_light, 1, GL_FALSE, lgl);
        glBindVertexArray(r->vao);
        glDrawArrays(GL_TRIANGLES, 0, r->tri_count * 3);
        glDisable(GL_POLYGON_OFFSET_FILL);
    }

    /* 2. the mask over the pixels the camera depth pass covered */
    glBindFramebuffer(GL_FRAMEBUFFER, sm->fbo_mask);
    glViewport(0, 0, r->width, r->height);
    if (r->tri_count > 0) {
        GLuint p = sm->prog_mask;
        glUseProgram(p);
        glProgramUniformMatrix4fv(p, sm->u.view, 1, GL_FALSE, view);
        glProgramUniformMatrix4fv(p, sm->u.proj, 1, GL_FALSE, proj);
        glProgramUniformMatrix4fv(p, sm->u.light, 1, GL_FALSE, lgl);
        glProgramUniform1i(p, sm->u.spot, frustum);
        glProgramUniform3fv(p, sm->u.light_dir, 1, dir);
        glProgramUniform3fv(p, sm->u.light_pos, 1, pos);
        glProgramUniform1f(p, sm->u.bias, bias);
        glProgramUniform1f(p, sm->u.texel_world, texel_world);
        glProgramUniform1f(p, sm->u.normal_offset, sm->desc.normal_offset);
        glProgramUniform1i(p, sm->u.pcf, sm->desc.pcf ? 1 : 0);
        glProgramUniform1f(p, sm->u.texel, 1.0f / (float)s);
        glProgramUniform1i(p, sm->u.pcss, pcss ? 1 : 0);
        if (pcss) {
            glProgramUniform2f(p, sm->u.pcss_k, pcss->ku, pcss->kv);
            glProgramUniform1f(p, sm->u.pcss_z0, pcss->z0);
            glProgramUniform1f(p, sm->u.map_size, (float)pcss->size);
            glProgramUniform2fv(p, sm->u.pcss_search, IZB_PCSS_SEARCH_TAPS, &pcss->search[0][0]);
            glProgramUniform2fv(p, sm->u.pcss_filter, IZB_PCSS_FILTER_TAPS, &pcss->filter[0][0]);
            glProgramUniform2fv(p, sm->u.pcss_rot, IZB_PCSS_ROTATIONS, &pcss->rot[0][0]);
            glBindTextureUnit(4, sm->tex_map); /* shadow_mask.frag's u_depth */
            glBindSampler(4, sm->smp_depth);
        }
        glBindTextureUnit(0, sm->tex_map);
        glDepthMask(GL_FALSE);
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LEQUAL);
        if (combine) {
            glEnable(GL_BLEND);
            glBlendEquation(GL_MAX);
        }
        glBindVertexArray(r->vao);
        render_draw_triangles(r, 0, r->tri_count, glGetUniformLocation(p, "u_first")); /* cut-outs */
        if (combine) {
            glBlendEquation(GL_FUNC_ADD);
            glDisable(GL_BLEND);
        }
        glDisable(GL_DEPTH_TEST);
        if (pcss) glBindSampler(4, 0);
    }
}

/* light l's map and mask into the mask target (cleared to lit first) */
static void light_map_and_mask(render *r, const float view[16], const float proj[16], const light *l)
{
    shadow_map *sm = r->sm;
    float dir[3];
    light_direction(l, dir);
    static const float lit[4] = {1.0f, 1.0f, 1.0f, 1.0f}; /* sky pixels keep it */
    static const float none[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    glClearNamedFramebufferfv(sm->fbo_mask, GL_COLOR, 0, lit);
    if (sm->tex_probe) {
        glClearNamedFramebufferfv(sm->fbo_mask, GL_COLOR, 1, none);
        glClearNamedFramebufferfv(sm->fbo_mask, GL_COLOR, 2, none);
    }
    float lgl[16], lizb[16];
    if (l->type == LIGHT_POINT) { /* a cube map: six faces through the one 2D map, masks by max */
        for (int face = 0; face < LIGHT_CUBE_FACES; face++) {
            light_face_matrices(l, face, r->bounds_min, r->bounds_max, lizb, lgl);
            map_and_mask(r, view, proj, lizb, lgl, IZB_LIGHT_FACE, dir, l->pos, face > 0, NULL);
        }
    } else {
        light_matrices(l, r->bounds_min, r->bounds_max, lizb, lgl);
        izb_pcss pcss;
        const bool soft = shadow_map_uses_pcss(&sm->desc, l);
        if (soft) shadow_map_pcss_params(r, l, &pcss);
        map_and_mask(r, view, proj, lizb, lgl, l->type == LIGHT_SPOT ? IZB_LIGHT_SPOT : 0, dir, l->pos, false,
                     soft ? &pcss : NULL);
    }
}

static bool map_usable(const render *r)
{
    const shadow_map *sm = r->sm;
    return sm && sm->fbo_map && sm->fbo_mask && sm->mask_w == r->width && sm->mask_h == r->height;
}

bool render_shadow_map_pass(render *r, const camera *c, const light *l)
{
    const light_set one = light_set_one(l);
    return render_shadow_map_pass_lights(r, c, &one, 1);
}

bool render_shadow_map_pass_lights(render *r, const camera *c, const light_set *ls, int count)
{
    if (!map_usable(r)) return false;
    shadow_map *sm = r->sm;
    float view[16], proj[16];
    /* the same calls as render.c's camera_matrices: gl_Position must match the depth pass */
    camera_view(c, view);
    camera_proj(c, (float)r->width / (float)r->height, proj);
    gl_timer_begin(&sm->timer);
    /* light 0 last: the mask target keeps its mask (the difference view, read-backs); each later
     * light's mask is copied into its layer of the renderer's mask array */
    for (int i = count - 1; i >= 0; i--) {
        if (i > 0 && ls->intensity[i] <= 0.0f) continue; /* adds nothing: render_frame filled its layer */
        light_map_and_mask(r, view, proj, &ls->l[i]);
        if (i > 0)
            glCopyImageSubData(sm->tex_mask, GL_TEXTURE_2D, 0, 0, 0, 0, r->tex_masks, GL_TEXTURE_2D_ARRAY, 0, 0, 0,
                               i - 1, r->width, r->height, 1);
    }
    gl_timer_end(&sm->timer);
    return true;
}

bool render_shadow_keys(render *r, bool next_mode, int step, char *msg, size_t msg_size)
{
    shadow_map_desc d = r->sm->desc;
    char err[256];
    if (step != 0) {
        int max = render_shadow_map_max_size();
        long want = step < 0 ? d.size / 2 : (long)d.size * 2;
        if (want < SHADOW_MAP_MIN_SIZE) {
            snprintf(msg, msg_size, "shadow map %d: already the smallest (%d)", d.size, SHADOW_MAP_MIN_SIZE);
            return false;
        }
        if (want > max) {
            snprintf(msg, msg_size,
                     "shadow map %ld: larger than this GL allows (GL_MAX_TEXTURE_SIZE etc.: %d)", want, max);
            return false;
        }
        d.size = (int)want;
        if (!render_set_shadow_map(r, &d, err, sizeof err)) {
            snprintf(msg, msg_size, "%s", err);
            return false;
        }
    }
    if (next_mode && !render_set_shadow_mode(r, (shadow_mode)((r->shadow_mode + 1) % SHADOW_MODE_COUNT), err,
                                             sizeof err)) {
        snprintf(msg, msg_size, "%s", err);
        return false;
    }
    snprintf(msg, msg_size, "shadows: %s, shadow map %dx%d%s%s", shadow_mode_names[r->shadow_mode],
             r->sm->desc.size, r->sm->desc.size, r->sm->desc.pcf ? " PCF" : "",
             r->sm->desc.pcss ? " (PCSS for a soft light)" : "");
    return true;
}

void render_read_shadow_map_mask(render *r, uint8_t *mask)
{
    shadow_map *sm = r->sm;
    size_t n = (size_t)r->width * (size_t)r->height;
    if (!sm || !sm->tex_mask || sm->mask_w != r->width || sm->mask_h != r->height) {
        memset(mask, 255, n);
        return;
    }
    glGetTextureImage(sm->tex_mask, 0, GL_RED, GL_UNSIGNED_BYTE, (GLsizei)n, mask);
}
