/* debug_view.c — sample-point and cell-occupancy views of the IZB's last frame (see
 * debug_view.h). */
#include "debug_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_shader.h"
#include "render_internal.h"

/* one vertex: light-plane position and its cell's point count (0 for lines) */
typedef struct dv_vertex {
    float x, y, count;
} dv_vertex;

enum { LINE_VERTS_MAX = 4 * (IZB_GRID_MAX_DIM + 1) + 8 };

struct debug_view {
    GLuint prog_points, prog_cells, vao, vbo, tex_cells;
    struct {
        GLint rect, max, mode, colour;
    } u_points;
    struct {
        GLint grid, max;
    } u_cells;
    dv_vertex *verts; /* capacity: cap_points + LINE_VERTS_MAX */
    float *counts;    /* IZB_GRID_MAX_DIM^2 */
    size_t cap_points;
    debug_view_stats last;
};

/* grow the point buffers to n points (first use, or a bigger target) */
static bool reserve_points(debug_view *d, size_t n);
/* counts[] from the cell arrays; fills d->last; returns the fullest cell's count */
static int cell_counts(debug_view *d, const izb_debug *dbg);
static void draw_points(debug_view *d, render *r, const izb_debug *dbg, int max_count);
static void draw_cells(debug_view *d, render *r, const izb_debug *dbg, int max_count);

void debug_view_ramp(int count, int max_count, float rgb[3])
{
    float m = max_count > 1 ? (float)max_count : 1.0f;
    float t = logf(1.0f + (float)(count > 0 ? count : 0)) / logf(1.0f + m);
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    for (int k = 0; k < 3; k++) {
        float v = 1.5f - fabsf(4.0f * t - (float)(3 - k));
        rgb[k] = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    }
}

debug_view *debug_view_create(const char *shader_dir, char *err, size_t err_size)
{
    debug_view *d = calloc(1, sizeof *d);
    if (d) d->counts = malloc((size_t)IZB_GRID_MAX_DIM * IZB_GRID_MAX_DIM * sizeof(float));
    if (!d || !d->counts) {
        snprintf(err, err_size, "debug view: out of memory");
        debug_view_destroy(d);
        return NULL;
    }
    d->prog_points = gl_program_load("points.vert", "points.frag", shader_dir, err, err_size);
    if (d->prog_points) d->prog_cells = gl_program_load("fullscreen.vert", "cells.frag", shader_dir, err, err_size);
    if (!d->prog_cells) {
        debug_view_destroy(d);
        return NULL;
    }
    d->u_points.rect = glGetUniformLocation(d->prog_points, "u_rect");
    d->u_points.max = glGetUniformLocation(d->prog_points, "u_max");
    d->u_points.mode = glGetUniformLocation(d->prog_points, "u_mode");
    d->u_points.colour = glGetUniformLocation(d->prog_points, "u_colour");
    d->u_cells.grid = glGetUniformLocation(d->prog_cells, "u_grid");
    d->u_cells.max = glGetUniformLocation(d->prog_cells, "u_max");
    glProgramUniform1i(d->prog_cells, glGetUniformLocation(d->prog_cells, "u_cells"), 0);

    glCreateTextures(GL_TEXTURE_2D, 1, &d->tex_cells);
    glTextureStorage2D(d->tex_cells, 1, GL_R32F, IZB_GRID_MAX_DIM, IZB_GRID_MAX_DIM);
    glTextureParameteri(d->tex_cells, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(d->tex_cells, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glCreateVertexArrays(1, &d->vao);
    glEnableVertexArrayAttrib(d->vao, 0);
    glVertexArrayAttribFormat(d->vao, 0, 2, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(d->vao, 0, 0);
    glEnableVertexArrayAttrib(d->vao, 1);
    glVertexArrayAttribFormat(d->vao, 1, 1, GL_FLOAT, GL_FALSE, 2 * sizeof(float));
    glVertexArrayAttribBinding(d->vao, 1, 0);
    return d;
}

void debug_view_destroy(debug_view *d)
{
    if (!d) return;
    glDeleteProgram(d->prog_points);
    glDeleteProgram(d->prog_cells);
    glDeleteBuffers(1, &d->vbo);
    glDeleteVertexArrays(1, &d->vao);
    glDeleteTextures(1, &d->tex_cells);
    free(d->verts);
    free(d->counts);
    free(d);
}

debug_view_stats debug_view_last(const debug_view *d)
{
    return d->last;
}

static bool reserve_points(debug_view *d, size_t n)
{
    if (n <= d->cap_points && d->verts) return true;
    free(d->verts);
    d->verts = malloc((n + LINE_VERTS_MAX) * sizeof *d->verts);
    glDeleteBuffers(1, &d->vbo);
    d->vbo = 0;
    d->cap_points = 0;
    if (!d->verts) return false;
    glCreateBuffers(1, &d->vbo);
    glNamedBufferStorage(d->vbo, (GLsizeiptr)((n + LINE_VERTS_MAX) * sizeof *d->verts), NULL,
                         GL_DYNAMIC_STORAGE_BIT);
    glVertexArrayVertexBuffer(d->vao, 0, d->vbo, 0, sizeof(dv_vertex));
    d->cap_points = n;
    return true;
}

static int cell_counts(debug_view *d, const izb_debug *dbg)
{
    int cells = dbg->grid.w * dbg->grid.h, max_count = 0, occupied = 0;
    for (int c = 0; c < cells; c++) {
        int n = dbg->cell_start && dbg->cell_end ? (int)(dbg->cell_end[c] - dbg->cell_start[c]) : 0;
        if (n < 0) n = 0;
        d->counts[c] = (float)n;
        occupied += n > 0;
        max_count = n > max_count ? n : max_count;
    }
    d->last = (debug_view_stats){
        .points = dbg->point_count, .cells = cells, .occupied = occupied, .max_count = max_count};
    return max_count;
}

bool debug_view_draw(debug_view *d, render *r, izb_backend *b, render_view view)
{
    izb_debug dbg;
    memset(&dbg, 0, sizeof dbg);
    glBindFramebuffer(GL_FRAMEBUFFER, r->fbo_colour);
    glViewport(0, 0, r->width, r->height);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    if (!b || !izb_get_debug(b, &dbg) || dbg.grid.w <= 0 || dbg.grid.h <= 0 ||
        dbg.grid.w > IZB_GRID_MAX_DIM || dbg.grid.h > IZB_GRID_MAX_DIM) {
        static const float no_data[4] = {0.3f, 0.05f, 0.05f, 1.0f};
        glClearNamedFramebufferfv(r->fbo_colour, GL_COLOR, 0, no_data);
        d->last = (debug_view_stats){0};
        return false;
    }
    int max_count = cell_counts(d, &dbg);
    if (view == RENDER_VIEW_CELLS)
        draw_cells(d, r, &dbg, max_count);
    else
        draw_points(d, r, &dbg, max_count);
    return true;
}

static void draw_cells(debug_view *d, render *r, const izb_debug *dbg, int max_count)
{
    glTextureSubImage2D(d->tex_cells, 0, 0, 0, dbg->grid.w, dbg->grid.h, GL_RED, GL_FLOAT, d->counts);
    glUseProgram(d->prog_cells);
    glProgramUniform2i(d->prog_cells, d->u_cells.grid, dbg->grid.w, dbg->grid.h);
    glProgramUniform1f(d->prog_cells, d->u_cells.max, (float)max_count);
    glBindTextureUnit(0, d->tex_cells);
    glBindVertexArray(r->vao_empty);
    glDrawArrays(GL_TRIANGLES, 0, 3);
}

static void draw_points(debug_view *d, render *r, const izb_debug *dbg, int max_count)
{
    static const float background[4] = {0.06f, 0.06f, 0.08f, 1.0f};
    glClearNamedFramebufferfv(r->fbo_colour, GL_COLOR, 0, background);
    size_t cap = (size_t)r->width * (size_t)r->height; /* at most one point per pixel */
    if (!reserve_points(d, cap)) return;
    const izb_grid *g = &dbg->grid;
    float cw = g->inv_cell_w > 0.0f ? 1.0f / g->inv_cell_w : 0.0f;
    float ch = g->inv_cell_h > 0.0f ? 1.0f / g->inv_cell_h : 0.0f;
    float x0 = g->min_x, y0 = g->min_y, x1 = x0 + cw * (float)g->w, y1 = y0 + ch * (float)g->h;

    /* points, grouped by cell: each takes its cell's count */
    size_t n = 0;
    int cells = g->w * g->h;
    if (dbg->points && dbg->cell_start && dbg->cell_end) {
        for (int c = 0; c < cells; c++)
            for (uint32_t i = dbg->cell_start[c]; i < dbg->cell_end[c] && n < cap; i++)
                d->verts[n++] = (dv_vertex){dbg->points[i].x, dbg->points[i].y, d->counts[c]};
    }
    /* grid lines (every k-th when cells are small on screen), then the bbox */
    float ex = fmaxf(x1 - x0, 1e-6f), ey = fmaxf(y1 - y0, 1e-6f);
    /* the light-plane window: the bbox with a 4% margin, widened to the viewport's aspect */
    float aspect = (float)r->width / (float)r->height, cx = 0.5f * (x0 + x1), cy = 0.5f * (y0 + y1);
    float hw = 0.52f * ex, hh = 0.52f * ey;
    if (hw / hh < aspect)
        hw = hh * aspect;
    else
        hh = hw / aspect;
    float px_per_cell = fminf(cw / (2.0f * hw) * (float)r->width, ch / (2.0f * hh) * (float)r->height);
    int step = px_per_cell >= 4.0f || px_per_cell <= 0.0f ? 1 : (int)ceilf(4.0f / px_per_cell);
    size_t line0 = n;
    for (int i = 0; i <= g->w; i += step) {
        float x = x0 + cw * (float)i;
        d->verts[n++] = (dv_vertex){x, y0, 0.0f};
        d->verts[n++] = (dv_vertex){x, y1, 0.0f};
    }
    for (int j = 0; j <= g->h; j += step) {
        float y = y0 + ch * (float)j;
        d->verts[n++] = (dv_vertex){x0, y, 0.0f};
        d->verts[n++] = (dv_vertex){x1, y, 0.0f};
    }
    size_t box0 = n;
    const float bx[4] = {x0, x1, x1, x0}, by[4] = {y0, y0, y1, y1};
    for (int k = 0; k < 4; k++) {
        d->verts[n++] = (dv_vertex){bx[k], by[k], 0.0f};
        d->verts[n++] = (dv_vertex){bx[(k + 1) % 4], by[(k + 1) % 4], 0.0f};
    }
    glNamedBufferSubData(d->vbo, 0, (GLsizeiptr)(n * sizeof *d->verts), d->verts);

    GLuint p = d->prog_points;
    glUseProgram(p);
    glProgramUniform4f(p, d->u_points.rect, cx - hw, cy - hh, cx + hw, cy + hh);
    glProgramUniform1f(p, d->u_points.max, (float)max_count);
    glBindVertexArray(d->vao);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glProgramUniform1i(p, d->u_points.mode, 1);
    glProgramUniform4f(p, d->u_points.colour, 0.6f, 0.6f, 0.65f, 0.35f);
    glDrawArrays(GL_LINES, (GLint)line0, (GLsizei)(box0 - line0));
    glDisable(GL_BLEND);
    glProgramUniform1i(p, d->u_points.mode, 0);
    glDrawArrays(GL_POINTS, 0, (GLsizei)line0);
    glProgramUniform1i(p, d->u_points.mode, 1);
    glProgramUniform4f(p, d->u_points.colour, 1.0f, 0.85f, 0.1f, 1.0f);
    glDrawArrays(GL_LINES, (GLint)box0, (GLsizei)(n - box0));
}
