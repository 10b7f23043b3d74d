/* test_render_debug.c — what the demo shows, on headless frames of the built-in default scene
 * (CPU backend):
 *  - a screenshot is a valid PNG whose pixels follow the mask: where the mask says shadow the
 *    pixel is exactly the ambient-only shading (the frame shaded with the mask forced to 0), where
 *    it says lit exactly the fully lit shading (mask forced to 255); no shadowed pixel is brighter
 *    than its lit counterpart and most are clearly darker (the rest face away from the light);
 *  - the points view draws the frame's sample points (as many as izb_stats.points) with the bbox
 *    (yellow) over the dark background; the colour of the fullest cell is the ramp's top;
 *  - the cells view: the pixel over the fullest cell has the ramp's top colour, an empty cell is
 *    dark, a half-full cell is in between;
 *  - the HUD changes only its corner, and re-uploads only when its text changes.
 * Exit 77 without a GL 4.5 context. */
#undef NDEBUG
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "png_decode.h"

#include "debug_view.h"
#include "gl_test.h"
#include "hud.h"
#include "render.h"
#include "render_internal.h"
#include "scene.h"

enum { W = 321, H = 181 };

static float depth[W * H];
static uint8_t mask[W * H], shaded[W * H * 4], lit[W * H * 4], dark[W * H * 4], view[W * H * 4];

static const uint8_t *px(const uint8_t *rgba, int x, int y)
{
    return rgba + 4 * ((size_t)y * W + (size_t)x);
}

/* render the frame's camera pass with the mask forced to `value` */
static void shade_with(render *r, const camera *cam, const light *l, uint8_t value, uint8_t *out)
{
    render_depth_pass(r, cam);
    render_fill_mask(r, value);
    render_shade_pass(r, cam, l, RENDER_VIEW_SHADED);
    render_read_colour(r, out);
}

int main(void)
{
    gl_context ctx;
    gl_test_context(&ctx);
    char err[512];
    scene s;
    CHECK(scene_load("builtin:default", &s, err, sizeof err), "scene: %s", err);
    render *r = render_create(&(render_desc){.width = W, .height = H}, err, sizeof err);
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 2});
    CHECK(r && b, "render_create: %s", err);
    if (!r || !b) return test_done();
    CHECK(render_set_scene(r, &s, err, sizeof err) && izb_set_scene(b, s.xyz, s.tri_count), "scene set");
    camera cam = {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
    light l = {.type = LIGHT_DIRECTIONAL, .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}};

    /* 1. screenshot vs mask */
    izb_stats st;
    memset(&st, 0, sizeof st);
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = &l, .backend = b, .stats = &st}), "frame");
    render_read_depth(r, depth);
    render_read_mask(r, mask);
    render_read_colour(r, shaded);
    char path[] = "/tmp/izb-debug-XXXXXX.png";
    int fd = mkstemps(path, 4);
    close(fd);
    CHECK(render_screenshot(r, path, err, sizeof err), "screenshot: %s", err);
    int w = 0, h = 0, n = 0;
    uint8_t *img = stbi_load(path, &w, &h, &n, 3);
    unlink(path);
    CHECK(img && w == W && h == H, "the PNG decodes at %dx%d", w, h);
    shade_with(r, &cam, &l, 255, lit);
    shade_with(r, &cam, &l, 0, dark);
    long shadow = 0, litpx = 0, bad_shadow = 0, bad_lit = 0, facing = 0, darker = 0;
    for (int y = 0; img && w == W && h == H && y < H; y++)
        for (int x = 0; x < W; x++) {
            int i = y * W + x;
            if (!(depth[i] > 0.0f)) continue;
            const uint8_t *p = img + 3 * ((size_t)(H - 1 - y) * W + (size_t)x); /* PNG rows top-down */
            const uint8_t *want = mask[i] ? px(lit, x, y) : px(dark, x, y);
            bool same = p[0] == want[0] && p[1] == want[1] && p[2] == want[2];
            if (mask[i]) {
                litpx++;
                bad_lit += !same;
            } else {
                shadow++;
                bad_shadow += !same;
                const uint8_t *q = px(lit, x, y);
                facing += q[0] < p[0] || q[1] < p[1] || q[2] < p[2]; /* here: brighter in shadow */
                darker += q[0] + q[1] + q[2] > p[0] + p[1] + p[2] + 6;
            }
        }
    printf("screenshot: %ld shadowed px (%ld brighter than lit, %ld clearly darker), %ld lit px; mismatches %ld / %ld\n",
           shadow, facing, darker, litpx, bad_shadow, bad_lit);
    CHECK(shadow > W * H / 50 && litpx > W * H / 10, "a real shadow (%ld px) and light (%ld px)", shadow, litpx);
    CHECK(bad_shadow == 0, "%ld shadowed pixels are not the ambient-only shading", bad_shadow);
    CHECK(bad_lit == 0, "%ld lit pixels are not the lit shading", bad_lit);
    CHECK(facing == 0, "no shadowed pixel is brighter than its lit counterpart (%ld are)", facing);
    CHECK(darker * 10 > shadow * 8, "most shadowed pixels are clearly darker than lit (%ld of %ld)", darker, shadow);
    stbi_image_free(img);

    /* 2. points view */
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = &l, .backend = b, .stats = &st,
                                               .view = RENDER_VIEW_POINTS}),
          "points frame");
    render_read_colour(r, view);
    debug_view_stats ds = debug_view_last(r->debug_view);
    printf("points view: %d points, %d cells (%d occupied), fullest %d\n", ds.points, ds.cells, ds.occupied,
           ds.max_count);
    CHECK(ds.points == st.points && ds.cells == st.grid_w * st.grid_h, "draws the frame's %d points, %d cells",
          st.points, st.grid_w * st.grid_h);
    CHECK(ds.max_count >= ds.points / ds.occupied && ds.occupied > ds.cells / 4, "occupancy plausible");
    long yellow = 0, coloured = 0, top = 0;
    float hot[3];
    debug_view_ramp(ds.max_count, ds.max_count, hot);
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = view + 4 * i;
        yellow += p[0] > 240 && p[1] > 200 && p[1] < 235 && p[2] < 50;
        coloured += p[0] + p[1] + p[2] > 120;
        top += abs(p[0] - (int)(255 * hot[0] + 0.5f)) <= 2 && abs(p[1] - (int)(255 * hot[1] + 0.5f)) <= 2 &&
               abs(p[2] - (int)(255 * hot[2] + 0.5f)) <= 2;
    }
    CHECK(yellow > W, "the bbox is drawn (%ld yellow px)", yellow);
    CHECK(coloured > W * H / 10, "points cover the plane (%ld px)", coloured);
    CHECK(top > 0, "the fullest cell's points have the ramp's top colour (%ld px)", top);

    /* 3. cells view */
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = &l, .backend = b, .stats = &st,
                                               .view = RENDER_VIEW_CELLS}),
          "cells frame");
    render_read_colour(r, view);
    izb_debug dbg;
    CHECK(izb_get_debug(b, &dbg), "debug data");
    int gw = dbg.grid.w, gh = dbg.grid.h, best = 0, empty = -1, mid = -1, maxc = 0;
    for (int c = 0; c < gw * gh; c++) {
        int k = (int)(dbg.cell_end[c] - dbg.cell_start[c]);
        if (k > maxc) maxc = k, best = c;
    }
    for (int c = 0; c < gw * gh; c++) {
        int k = (int)(dbg.cell_end[c] - dbg.cell_start[c]);
        if (k == 0 && empty < 0) empty = c;
        if (k > 0 && k * 3 >= maxc && k * 3 <= 2 * maxc && mid < 0) mid = c;
    }
    CHECK(maxc == ds.max_count, "fullest cell %d = %d", maxc, ds.max_count);
    /* the pixel over the centre of a cell */
#define CELL_PX(c) px(view, (int)(((c) % gw + 0.5) * W / gw), (int)(((c) / gw + 0.5) * H / gh))
    const uint8_t *p = CELL_PX(best);
    CHECK(abs(p[0] - (int)(255 * hot[0] + 0.5f)) <= 2 && abs(p[1] - (int)(255 * hot[1] + 0.5f)) <= 2 &&
              abs(p[2] - (int)(255 * hot[2] + 0.5f)) <= 2,
          "fullest cell pixel %d %d %d, want the ramp's top", p[0], p[1], p[2]);
    if (empty >= 0) {
        p = CELL_PX(empty);
        CHECK(p[0] < 30 && p[1] < 30 && p[2] < 30, "an empty cell is dark: %d %d %d", p[0], p[1], p[2]);
    }
    if (mid >= 0) {
        p = CELL_PX(mid);
        float m[3];
        debug_view_ramp((int)(dbg.cell_end[mid] - dbg.cell_start[mid]), maxc, m);
        CHECK(abs(p[0] - (int)(255 * m[0] + 0.5f)) <= 3 && abs(p[1] - (int)(255 * m[1] + 0.5f)) <= 3 &&
                  abs(p[2] - (int)(255 * m[2] + 0.5f)) <= 3,
              "a middling cell has the ramp's colour for its count");
    }

    /* 4. HUD */
    hud *hd = r->hud;
    long up0 = hud_uploads(hd);
    render_set_hud_text(r, "12.3 fps\nkernel1 radix");
    render_set_hud_text(r, "12.3 fps\nkernel1 radix");
    CHECK(hud_uploads(hd) == up0 + 1, "same text: no re-upload (%ld -> %ld)", up0, hud_uploads(hd));
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = &l, .backend = b, .hud = true}), "hud frame");
    render_read_colour(r, view);
    long changed_in = 0, changed_out = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *a = px(view, x, y), *q = px(shaded, x, y);
            bool diff = a[0] != q[0] || a[1] != q[1] || a[2] != q[2];
            if (x < W / 2 && y > H / 2)
                changed_in += diff;
            else
                changed_out += diff;
        }
    CHECK(changed_in > 200 && changed_out == 0, "the HUD changes its corner only (%ld in, %ld outside)",
          changed_in, changed_out);

    izb_destroy(b);
    render_destroy(r);
    scene_free(&s);
    gl_context_shutdown(&ctx);
    return test_done();
}
