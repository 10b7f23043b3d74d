/* hud.c — text overlay: stb_easy_font quads + a panel quad in one vertex buffer, drawn as
 * indexed triangles in one call (see hud.h). */
#include "hud.h"

#include <glad/gl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_shader.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* stb_easy_font's vertex: x, y, z, rgba8 */
typedef struct hud_vertex {
    float x, y, z;
    uint8_t rgba[4];
} hud_vertex;

/* ~270 bytes (17 vertices) per character on average; a generous fixed cap */
enum { MAX_QUADS = HUD_MAX_CHARS * 12, MARGIN = 4 };

struct hud {
    GLuint prog, vao, vbo, ibo;
    GLint u_scale, u_viewport;
    hud_vertex *verts; /* MAX_QUADS * 4, made at create */
    int quads;         /* in the buffer, the panel included */
    char text[HUD_MAX_CHARS + 1];
    long uploads;
};

hud *hud_create(const char *shader_dir, char *err, size_t err_size)
{
    hud *h = calloc(1, sizeof *h);
    if (h) h->verts = malloc((size_t)MAX_QUADS * 4 * sizeof *h->verts);
    uint32_t *idx = malloc((size_t)MAX_QUADS * 6 * sizeof *idx);
    if (!h || !h->verts || !idx) {
        snprintf(err, err_size, "hud: out of memory");
        free(idx);
        hud_destroy(h);
        return NULL;
    }
    h->prog = gl_program_load("hud.vert", "hud.frag", shader_dir, err, err_size);
    if (!h->prog) {
        free(idx);
        hud_destroy(h);
        return NULL;
    }
    h->u_scale = glGetUniformLocation(h->prog, "u_scale");
    h->u_viewport = glGetUniformLocation(h->prog, "u_viewport");
    for (uint32_t q = 0; q < MAX_QUADS; q++) { /* quads as two triangles, made once */
        static const uint32_t corner[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++)
            idx[6 * q + (uint32_t)k] = 4 * q + corner[k];
    }
    glCreateBuffers(1, &h->vbo);
    glCreateBuffers(1, &h->ibo);
    glNamedBufferStorage(h->vbo, (GLsizeiptr)((size_t)MAX_QUADS * 4 * sizeof(hud_vertex)), NULL,
                         GL_DYNAMIC_STORAGE_BIT);
    glNamedBufferStorage(h->ibo, (GLsizeiptr)((size_t)MAX_QUADS * 6 * sizeof(uint32_t)), idx, 0);
    free(idx);
    glCreateVertexArrays(1, &h->vao);
    glVertexArrayVertexBuffer(h->vao, 0, h->vbo, 0, sizeof(hud_vertex));
    glVertexArrayElementBuffer(h->vao, h->ibo);
    glEnableVertexArrayAttrib(h->vao, 0);
    glVertexArrayAttribFormat(h->vao, 0, 2, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(h->vao, 0, 0);
    glEnableVertexArrayAttrib(h->vao, 1);
    glVertexArrayAttribFormat(h->vao, 1, 4, GL_UNSIGNED_BYTE, GL_TRUE, offsetof(hud_vertex, rgba));
    glVertexArrayAttribBinding(h->vao, 1, 0);
    return h;
}

void hud_destroy(hud *h)
{
    if (!h) return;
    glDeleteBuffers(1, &h->vbo);
    glDeleteBuffers(1, &h->ibo);
    glDeleteVertexArrays(1, &h->vao);
    glDeleteProgram(h->prog);
    free(h->verts);
    free(h);
}

bool hud_set_text(hud *h, const char *text)
{
    if (strncmp(h->text, text, HUD_MAX_CHARS) == 0 && h->uploads > 0) return false;
    snprintf(h->text, sizeof h->text, "%s", text);
    /* quad 0: the panel behind the text, sized to it */
    float w = (float)stb_easy_font_width(h->text), ht = (float)stb_easy_font_height(h->text);
    float x0 = 0.0f, y0 = 0.0f, x1 = w + 2 * MARGIN, y1 = ht + 2 * MARGIN;
    const hud_vertex panel[4] = {{x0, y0, 0, {0, 0, 0, 150}},
                                 {x1, y0, 0, {0, 0, 0, 150}},
                                 {x1, y1, 0, {0, 0, 0, 150}},
                                 {x0, y1, 0, {0, 0, 0, 150}}};
    memcpy(h->verts, panel, sizeof panel);
    unsigned char white[4] = {235, 240, 245, 255};
    int quads = stb_easy_font_print((float)MARGIN, (float)MARGIN, h->text, white, h->verts + 4,
                                    (int)((size_t)(MAX_QUADS - 1) * 4 * sizeof(hud_vertex)));
    h->quads = 1 + quads;
    glNamedBufferSubData(h->vbo, 0, (GLsizeiptr)((size_t)h->quads * 4 * sizeof(hud_vertex)), h->verts);
    h->uploads++;
    return true;
}

void hud_draw(hud *h, unsigned fbo, int width, int height)
{
    if (h->quads <= 1 || width <= 0 || height <= 0) return;
    float scale = height < 600 ? 1.0f : height < 1000 ? 1.5f : 2.0f;
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, width, height);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(h->prog);
    glProgramUniform1f(h->prog, h->u_scale, scale);
    glProgramUniform2f(h->prog, h->u_viewport, (float)width, (float)height);
    glBindVertexArray(h->vao);
    glDrawElements(GL_TRIANGLES, h->quads * 6, GL_UNSIGNED_INT, NULL);
    glDisable(GL_BLEND);
}

long hud_uploads(const hud *h)
{
    return h->uploads;
}
