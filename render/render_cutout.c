/* render_cutout.c — the cut-outs on the GL side (issue 18): the scene's alpha images, their
 * parameters and each triangle's image as three buffer textures that shaders/alpha_test.frag
 * reads with texelFetch (units RENDER_ALPHA_UNIT.. +2), and its on/off uniform in every program
 * that draws the scene. The same rule as the IZB's (core/izb_alpha.h), on the same images. */
#include "render_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void render_cutouts_free(render *r)
{
    glDeleteTextures(3, r->alpha_tex);
    glDeleteBuffers(3, r->alpha_buf);
    memset(r->alpha_tex, 0, sizeof r->alpha_tex);
    memset(r->alpha_buf, 0, sizeof r->alpha_buf);
    r->alpha_on = false;
}

/* a buffer texture over `bytes` of data in `format` */
static void make_buffer_texture(GLuint *buf, GLuint *tex, GLenum format, const void *data, size_t bytes)
{
    glCreateBuffers(1, buf);
    glNamedBufferStorage(*buf, (GLsizeiptr)(bytes ? bytes : 4), data, 0);
    glCreateTextures(GL_TEXTURE_BUFFER, 1, tex);
    glTextureBuffer(*tex, format, *buf);
}

bool render_set_cutouts(render *r, const scene_cutouts *c, char *err, size_t err_size)
{
    render_cutouts_free(r);
    if (!c || c->cut_tris <= 0) {
        render_cutouts_apply(r);
        return true;
    }
    if (c->tri_count != r->tri_count) {
        snprintf(err, err_size, "render: cut-outs for %d triangles, the scene has %d", c->tri_count, r->tri_count);
        render_cutouts_apply(r);
        return false;
    }
    while (glGetError() != GL_NO_ERROR) {
    }
    size_t pool = 0;
    for (int i = 0; i < c->image_count; i++) pool += (size_t)c->images[i].width * (size_t)c->images[i].height;
    uint8_t *bytes = malloc(pool ? pool : 1);
    uint32_t *params = malloc((size_t)(c->image_count ? c->image_count : 1) * 4 * sizeof *params);
    if (!bytes || !params) {
        free(bytes);
        free(params);
        snprintf(err, err_size, "render: out of memory for the cut-outs");
        return false;
    }
    size_t at = 0;
    for (int i = 0; i < c->image_count; i++) {
        const izb_alpha_image *im = &c->images[i];
        const size_t n = (size_t)im->width * (size_t)im->height;
        memcpy(bytes + at, im->alpha, n);
        params[4 * i] = (uint32_t)at, params[4 * i + 1] = (uint32_t)im->width, params[4 * i + 2] = (uint32_t)im->height;
        params[4 * i + 3] = (uint32_t)im->wrap_u | (uint32_t)im->wrap_v << 8 |
                            (uint32_t)izb_alpha_threshold(im->cutoff) << 16; /* izb_cutout_set_build's threshold */
        at += n;
    }
    make_buffer_texture(&r->alpha_buf[0], &r->alpha_tex[0], GL_R8UI, bytes, pool);
    make_buffer_texture(&r->alpha_buf[1], &r->alpha_tex[1], GL_RGBA32UI, params,
                        (size_t)c->image_count * 4 * sizeof *params);
    make_buffer_texture(&r->alpha_buf[2], &r->alpha_tex[2], GL_R32UI, c->image_of,
                        (size_t)c->tri_count * sizeof *c->image_of);
    free(bytes);
    free(params);
    if (glGetError() != GL_NO_ERROR) {
        render_cutouts_free(r);
        render_cutouts_apply(r);
        snprintf(err, err_size, "render: the cut-outs' buffers could not be made (%zu bytes of alpha)", pool);
        return false;
    }
    r->alpha_on = true;
    render_cutouts_apply(r);
    return true;
}

void render_cutouts_apply(render *r)
{
    const GLuint progs[4] = {r->prog_depth, r->prog_shade, shadow_map_program(r->sm, 0), shadow_map_program(r->sm, 1)};
    for (int i = 0; i < 4; i++)
        if (progs[i]) glProgramUniform1i(progs[i], glGetUniformLocation(progs[i], "u_alpha_on"), r->alpha_on);
}

void render_cutouts_bind(const render *r)
{
    for (int i = 0; i < 3; i++) glBindTextureUnit(RENDER_ALPHA_UNIT + (GLuint)i, r->alpha_tex[i]);
}
