/* render_material.c — the materials of loaded files on the GL side: texture coordinates as vertex
 * attribute 2, each decoded image as an sRGB texture (mipmapped, repeating: glTF's default
 * sampler), and the shading pass split into one draw per material range. Triangles no range
 * covers (built-in scenes, a ground added after loading) keep the shader's own tint. The depth
 * pass and the IZB never see any of this: they draw positions only. */
#include "render_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* append a draw; the array has room for 2 * range_count + 1 */
static void add_draw(render *r, render_draw d)
{
    if (d.count > 0) r->draws[r->draw_count++] = d;
}

/* ranges sorted by first triangle */
static int by_first(const void *a, const void *b)
{
    const scene_range *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

void render_materials_free(render *r)
{
    glDeleteBuffers(1, &r->vbo_uv);
    r->vbo_uv = 0;
    if (r->mat_textures) glDeleteTextures(r->mat_texture_count, r->mat_textures);
    free(r->mat_textures);
    free(r->draws);
    r->mat_textures = NULL;
    r->draws = NULL;
    r->mat_texture_count = r->draw_count = 0;
    if (r->vao) glDisableVertexArrayAttrib(r->vao, 2); /* reads (0, 0): the tint ignores it */
}

bool render_materials_set(render *r, const scene *s, char *err, size_t err_size)
{
    render_materials_free(r);
    while (glGetError() != GL_NO_ERROR) { /* only this upload's errors count below */
    }
    int n = s->range_count;
    scene_range *ranges = n > 0 ? malloc((size_t)n * sizeof *ranges) : NULL;
    r->draws = malloc((size_t)(2 * n + 1) * sizeof *r->draws);
    r->mat_textures = s->texture_count > 0 ? calloc((size_t)s->texture_count, sizeof(GLuint)) : NULL;
    if ((n > 0 && !ranges) || !r->draws || (s->texture_count > 0 && !r->mat_textures)) {
        free(ranges);
        render_materials_free(r);
        snprintf(err, err_size, "render: out of memory for %d materials", n);
        return false;
    }
    /* images: row 0 at the top in the file, at t = 0 in GL; the shader samples (u, 1 - v) */
    r->mat_texture_count = s->texture_count;
    for (int i = 0; i < s->texture_count; i++) {
        const scene_texture *t = &s->textures[i];
        if (!t->rgba) continue; /* an image that could not be read (warned at load) */
        int levels = 1;
        for (int m = t->width > t->height ? t->width : t->height; m > 1; m >>= 1)
            levels++;
        glCreateTextures(GL_TEXTURE_2D, 1, &r->mat_textures[i]);
        GLuint tex = r->mat_textures[i];
        glTextureStorage2D(tex, levels, GL_SRGB8_ALPHA8, t->width, t->height);
        glTextureSubImage2D(tex, 0, 0, 0, t->width, t->height, GL_RGBA, GL_UNSIGNED_BYTE, t->rgba);
        glGenerateTextureMipmap(tex);
        glTextureParameteri(tex, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
        glTextureParameteri(tex, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTextureParameteri(tex, GL_TEXTURE_WRAP_S, GL_REPEAT);
        glTextureParameteri(tex, GL_TEXTURE_WRAP_T, GL_REPEAT);
    }
    if (s->uv && s->uv_tri_count > 0) {
        /* one uv per vertex for every triangle; triangles added after loading get (0, 0) */
        size_t have = (size_t)(s->uv_tri_count < s->tri_count ? s->uv_tri_count : s->tri_count) * 6;
        glCreateBuffers(1, &r->vbo_uv);
        glNamedBufferStorage(r->vbo_uv, (GLsizeiptr)((size_t)s->tri_count * 6 * sizeof(float)), NULL,
                             GL_DYNAMIC_STORAGE_BIT);
        glNamedBufferSubData(r->vbo_uv, 0, (GLsizeiptr)(have * sizeof(float)), s->uv);
        if (have < (size_t)s->tri_count * 6) {
            static const float zero = 0.0f;
            glClearNamedBufferSubData(r->vbo_uv, GL_R32F, (GLintptr)(have * sizeof(float)),
                                      (GLsizeiptr)(((size_t)s->tri_count * 6 - have) * sizeof(float)), GL_RED,
                                      GL_FLOAT, &zero);
        }
        glEnableVertexArrayAttrib(r->vao, 2);
        glVertexArrayAttribFormat(r->vao, 2, 2, GL_FLOAT, GL_FALSE, 0);
        glVertexArrayAttribBinding(r->vao, 2, 2);
        glVertexArrayVertexBuffer(r->vao, 2, r->vbo_uv, 0, 2 * sizeof(float));
    }

    /* draws: the ranges in order, the gaps between them in the tint */
    if (n > 0) { /* (qsort and memcpy want non-NULL pointers even for 0 elements) */
        memcpy(ranges, s->ranges, (size_t)n * sizeof *ranges);
        qsort(ranges, (size_t)n, sizeof *ranges, by_first);
    }
    int next = 0;
    for (int i = 0; i < n; i++) {
        const scene_range *g = &ranges[i];
        int first = g->first > next ? g->first : next, end = g->first + g->count;
        if (end > s->tri_count) end = s->tri_count;
        if (first >= end || g->material < 0 || g->material >= s->material_count) continue;
        add_draw(r, (render_draw){.first = next, .count = first - next});
        const scene_material *m = &s->materials[g->material];
        GLuint tex = m->texture >= 0 && m->texture < r->mat_texture_count ? r->mat_textures[m->texture] : 0;
        render_draw d = {.first = first, .count = end - first, .mode = tex ? 2 : 1, .texture = tex};
        memcpy(d.colour, m->base_colour, sizeof d.colour);
        add_draw(r, d);
        next = end;
    }
    add_draw(r, (render_draw){.first = next, .count = s->tri_count - next});
    free(ranges);
    if (glGetError() == GL_OUT_OF_MEMORY) {
        render_materials_free(r);
        snprintf(err, err_size, "render: out of GPU memory for %d textures", s->texture_count);
        return false;
    }
    return true;
}

void render_materials_draw(render *r)
{
    GLuint p = r->prog_shade;
    for (int i = 0; i < r->draw_count; i++) {
        const render_draw *d = &r->draws[i];
        glProgramUniform1i(p, r->u_shade.material, d->mode);
        glProgramUniform4fv(p, r->u_shade.base_colour, 1, d->colour);
        glBindTextureUnit(2, d->texture);
        render_draw_triangles(r, d->first, d->count, r->u_shade.first); /* u_first: cut-outs */
    }
}
