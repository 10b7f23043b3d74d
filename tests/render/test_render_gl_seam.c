/* test_render_gl_seam.c (suite gl) — render/'s side of the GL path of izb.h, tested with a
 * stand-in backend so it runs on any GL 4.5 (no CUDA): a GL-capable function table whose shade_gl
 * reads the depth and id textures it is given, shades them with the CPU backend and writes the mask
 * texture.
 * A backend that registers textures (CUDA interop) keys the registration on (name, size,
 * generation), because GL may hand a deleted texture's name to a new one. So render/ must:
 *  - pass the same generation frame after frame while its targets live (no re-registration);
 *  - pass a generation never seen before after every re-make of its targets (resize, and the
 *    re-make after a failed shade_gl), and none when a resize keeps the size;
 *  - hand shade_gl the textures the frame is drawn with: the mask read back from GL equals the CPU
 *    backend's mask on the read-back depth, so the backend wrote the texture render/ shades with.
 * Exit 77 without a GL 4.5 context or without Embree (the frame fixture's oracle). */
#undef NDEBUG
#include <stdlib.h>

#include <glad/gl.h>

#include "frame_fixture.h"
#include "izb_backend.h"

enum { W = 160, H = 100, MAX_CALLS = 64 };

typedef struct standin {
    izb_backend base;
    izb_backend *cpu; /* does the shading */
    bool fail_next;   /* the next shade_gl fails as a lost CUDA context would */
    int calls;
    unsigned generation[MAX_CALLS], depth_tex[MAX_CALLS], ids_tex[MAX_CALLS], mask_tex[MAX_CALLS];
} standin;

static bool standin_set_scene(izb_backend *b, const float *xyz, int n, const izb_closed *c)
{
    (void)b, (void)xyz, (void)n, (void)c;
    return true; /* the wrapped CPU backend already holds the scene */
}

static bool standin_shade_arrays(izb_backend *b, const izb_recon *f, const izb_settings *s, const float *depth,
                                 const uint32_t *ids, uint8_t *mask, izb_stats *st)
{
    return izb_shade_arrays_ids(((standin *)b)->cpu, f, s, depth, ids, mask, st);
}

/* What an interop backend does, through host memory: depth texture in, mask texture out. */
static bool standin_shade_gl(izb_backend *b, const izb_recon *f, const izb_settings *s, unsigned depth_tex,
                             unsigned ids_tex, unsigned mask_tex, unsigned generation, izb_stats *st)
{
    standin *x = (standin *)b;
    if (x->calls < MAX_CALLS) {
        x->generation[x->calls] = generation;
        x->depth_tex[x->calls] = depth_tex;
        x->ids_tex[x->calls] = ids_tex;
        x->mask_tex[x->calls] = mask_tex;
    }
    x->calls++;
    if (x->fail_next) {
        x->fail_next = false;
        return false;
    }
    const size_t n = (size_t)f->width * (size_t)f->height;
    float *depth = malloc(n * sizeof *depth);
    uint32_t *ids = malloc(n * sizeof *ids);
    uint8_t *mask = malloc(n);
    bool ok = depth && ids && mask && ids_tex != 0;
    if (ok) {
        glGetTextureImage(depth_tex, 0, GL_RED, GL_FLOAT, (GLsizei)(n * sizeof *depth), depth);
        glGetTextureImage(ids_tex, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, (GLsizei)(n * sizeof *ids), ids);
        ok = izb_shade_arrays_ids(x->cpu, f, s, depth, ids, mask, st);
    }
    if (ok)
        glTextureSubImage2D(mask_tex, 0, 0, 0, f->width, f->height, GL_RED, GL_UNSIGNED_BYTE, mask);
    free(depth);
    free(ids);
    free(mask);
    return ok && glGetError() == GL_NO_ERROR;
}

static void standin_destroy(izb_backend *b) { (void)b; }

static const izb_backend_vtbl standin_vtbl = {
    .name = "standin",
    .destroy = standin_destroy,
    .set_scene = standin_set_scene,
    .shade_arrays = standin_shade_arrays,
    .shade_gl = standin_shade_gl,
};

static float depth[W * H];
static uint32_t ids[W * H];
static uint8_t mask[W * H], want[W * H];

/* The last frame's mask in GL equals the CPU backend's on the depth in GL (some of it shadowed). */
static void check_mask(frame_fixture *fx, const camera *cam, const light *sun, int w, int h, const char *when)
{
    render_read_depth(fx->r, depth);
    render_read_ids(fx->r, ids);
    render_read_mask(fx->r, mask);
    izb_recon f = izb_frame_make(cam, sun, fx->s.bounds_min, fx->s.bounds_max, w, h);
    CHECK(izb_shade_arrays_ids(fx->b, &f, NULL, depth, ids, want, NULL), "%s: CPU backend", when);
    long diff = 0, shadowed = 0;
    for (int i = 0; i < w * h; i++) {
        diff += mask[i] != want[i];
        shadowed += depth[i] > 0.0f && want[i] == 0;
    }
    CHECK(shadowed > 0 && diff == 0, "%s: the mask in GL differs at %ld of %d pixels (%ld shadowed)", when, diff,
          w * h, shadowed);
}

/* generation g was not passed by any call before `upto` */
static bool generation_is_new(const standin *x, int upto, unsigned g)
{
    for (int i = 0; i < upto; i++)
        if (x->generation[i] == g)
            return false;
    return true;
}

int main(void)
{
    frame_fixture fx;
    if (!frame_fixture_init(&fx, W, H, IZB_BACKEND_CPU))
        return test_done();
    standin x = {.base = {.vt = &standin_vtbl, .tri_count = -1}, .cpu = fx.b};
    izb_backend *b = &x.base;
    CHECK(izb_supports_gl(b), "the stand-in offers the GL path");
    camera cam = {.pos = {fx.s.cam_pos[0], fx.s.cam_pos[1], fx.s.cam_pos[2]},
                  .yaw = fx.s.cam_yaw,
                  .pitch = fx.s.cam_pitch};
    camera_fit_clip(&cam, fx.s.bounds_min, fx.s.bounds_max);
    light sun = fixture_sun(&fx.s);
    render_frame_desc d = {.cam = &cam, .light = &sun, .backend = b};
    char err[256];

    /* live targets: one generation, the same textures, the mask lands in the shaded texture */
    CHECK(render_frame(fx.r, &d) && render_frame(fx.r, &d), "two frames through shade_gl");
    CHECK(x.calls == 2, "shade_gl called once a frame (%d calls)", x.calls);
    CHECK(x.ids_tex[0] != 0 && x.ids_tex[0] != x.depth_tex[0] && x.ids_tex[0] != x.mask_tex[0],
          "shade_gl is handed the id texture (%u)", x.ids_tex[0]);
    CHECK(x.generation[1] == x.generation[0] && x.depth_tex[1] == x.depth_tex[0] && x.ids_tex[1] == x.ids_tex[0] &&
              x.mask_tex[1] == x.mask_tex[0],
          "unchanged targets keep their generation (%u, %u)", x.generation[0], x.generation[1]);
    check_mask(&fx, &cam, &sun, W, H, "live targets");

    /* a resize to the same size re-makes nothing */
    CHECK(render_resize(fx.r, W, H, err, sizeof err), "same-size resize: %s", err);
    CHECK(render_frame(fx.r, &d), "frame after a same-size resize");
    CHECK(x.generation[2] == x.generation[0], "a same-size resize keeps the generation");

    /* every re-make: a generation never seen, then stable again */
    const int sizes[2][2] = {{W / 2 + 1, H / 2 + 3}, {W, H}};
    for (int k = 0; k < 2; k++) {
        const int w = sizes[k][0], h = sizes[k][1], at = x.calls;
        CHECK(render_resize(fx.r, w, h, err, sizeof err), "resize to %dx%d: %s", w, h, err);
        CHECK(render_frame(fx.r, &d) && render_frame(fx.r, &d), "frames at %dx%d", w, h);
        CHECK(generation_is_new(&x, at, x.generation[at]), "resize %d: generation %u is new", k, x.generation[at]);
        CHECK(x.generation[at + 1] == x.generation[at], "resize %d: then stable", k);
        check_mask(&fx, &cam, &sun, w, h, k ? "resized back" : "resized");
    }

    /* a failed shade_gl: the frame fails, render/ re-makes its targets, the next frame gets a new
     * generation and succeeds with a correct mask */
    x.fail_next = true;
    const int at = x.calls;
    CHECK(!render_frame(fx.r, &d), "a failing shade_gl fails the frame");
    CHECK(render_frame(fx.r, &d), "the next frame succeeds");
    CHECK(x.calls == at + 2, "shade_gl called for both frames (%d)", x.calls - at);
    CHECK(generation_is_new(&x, at + 1, x.generation[at + 1]),
          "after the failure the targets have a new generation (%u, failed frame %u)", x.generation[at + 1],
          x.generation[at]);
    check_mask(&fx, &cam, &sun, W, H, "after the failure");

    frame_fixture_free(&fx);
    return test_done();
}
