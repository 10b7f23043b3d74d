/* test_render_frame.c — whole headless frames of the built-in default scene through the GL path:
 * depth pass -> IZB (render_shade_izb: read-back, izb_shade_arrays_ids, upload) -> shading pass.
 *  - the mask read back from GL equals izb_shade_arrays_ids on the depth and primitive ids read
 *    back from GL, bit for bit (the bridge loses nothing; the odd width catches row-alignment bugs);
 *  - the primitive ids: IZB_NO_ID exactly where the depth is sky, a scene triangle elsewhere, the
 *    triangle the oracle's primary ray hits on all but 0.5% of the pixels both cover (pixel
 *    centres on an edge between two triangles may go either way);
 *  - that mask matches the Embree oracle (oracle_shadow on the same GL depth) on all but 0.01% of
 *    the covered pixels — the bound tests/core/test_oracle.c holds the CPU backend to: the oracle
 *    answers the same question (same bias offset), so what is left is float rounding at
 *    silhouette edges and contacts;
 *  - the GL depth agrees with the oracle's primary rays (independent depth);
 *  - the shaded image is darker in shadow than in light, and sky where depth is 0;
 *  - a frame of two lights (render_frame's light set: light 0 through this backend's one-light
 *    path, light 1 through its host arrays into the mask array) gives each light's mask equal to
 *    a CPU backend's frame of the same two lights, bit for bit (run with "cuda": CUDA against the
 *    CPU; with "cpu": the CPU backend's set path against a second CPU backend).
 *  - an anti-aliased frame (shadow_samples 8, a small size: the emulator's time) through this
 *    backend's GL path equals a CPU backend's array path on the depth and ids read back, byte for
 *    byte, with partly lit pixels (with "cuda": cuda/raster_aa.cu on GL's depth texture and mask
 *    surface); and a point light's (six faces through the host arrays, izb_shade_arrays_faces).
 * Run with "cuda" it checks the CUDA-GL interop path instead (skipped without a CUDA device).
 * Skipped (77) without a GL 4.5 context or without Embree. */
#undef NDEBUG
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frame_fixture.h"
#include "gl_test.h"
#include "izb.h"
#include "izb_config.h"
#include "render.h"
#include "scene.h"

#if IZB_HAVE_EMBREE
#include "oracle.h"
#endif

enum { W = 641, H = 361 };
#define MAX_MISMATCH 1e-4 /* fraction of covered pixels */

#if IZB_HAVE_EMBREE
static float gl_depth[W * H], ray_depth[W * H];
static uint32_t gl_ids[W * H], ray_ids[W * H];
static uint8_t gl_mask[W * H], arr_mask[W * H], truth[W * H], rgba[W * H * 4];

/* mean luma (0..255) of the covered pixels with mask == m on surfaces facing up (the ground) */
static double mean_luma(const uint8_t *mask_, uint8_t m)
{
    double sum = 0.0;
    long n = 0;
    for (int i = 0; i < W * H; i++)
        if (gl_depth[i] > 0.0f && mask_[i] == m) {
            sum += 0.299 * rgba[4 * i] + 0.587 * rgba[4 * i + 1] + 0.114 * rgba[4 * i + 2];
            n++;
        }
    return n ? sum / (double)n : -1.0;
}

static void run(render *r, izb_backend *b, oracle *o, const scene *s, const camera *cam_in, const light *l,
                const char *what)
{
    camera cam = *cam_in;
    camera_fit_clip(&cam, s->bounds_min, s->bounds_max);
    izb_stats st;
    memset(&st, 0, sizeof st);
    bool ok = render_frame(r, &(render_frame_desc){.cam = &cam, .light = l, .backend = b, .stats = &st});
    CHECK(ok, "%s: render_frame", what);
    render_read_depth(r, gl_depth);
    render_read_ids(r, gl_ids);
    render_read_mask(r, gl_mask);
    render_read_colour(r, rgba);

    /* the bridge: same answer as the array path on the same depth and ids */
    izb_recon f = izb_frame_make(&cam, l, s->bounds_min, s->bounds_max, W, H);
    CHECK(izb_shade_arrays_ids(b, &f, NULL, gl_depth, gl_ids, arr_mask, NULL), "%s: izb_shade_arrays_ids",
          what);
    long bridge_diff = 0;
    for (int i = 0; i < W * H; i++)
        bridge_diff += gl_mask[i] != arr_mask[i];
    CHECK(bridge_diff == 0, "%s: GL mask differs from the array path at %ld pixels", what, bridge_diff);

    /* against the oracle */
    oracle_shadow(o, &f, &cam, l, gl_depth, truth);
    mask_diff d = mask_compare(gl_depth, gl_mask, truth, (long)W * H);
    long shadowed = 0;
    for (int i = 0; i < W * H; i++)
        shadowed += gl_depth[i] > 0.0f && truth[i] == 0;
    double frac = d.covered ? (double)d.mismatched / (double)d.covered : 1.0;
    printf("%s: covered %ld, in shadow %ld, mismatched %ld (%.4f%%: %ld false shadow, %ld false light), "
           "points %d, tris %d -> %d\n",
           what, d.covered, shadowed, d.mismatched, 100.0 * frac, d.false_shadow, d.false_light, st.points,
           st.tris_in, st.tris_after_cull);
    CHECK(d.covered > W * H / 10, "%s: the view shows the scene (%ld covered pixels)", what, d.covered);
    CHECK(shadowed > d.covered / 100, "%s: a real shadow to compare (%ld pixels)", what, shadowed);
    CHECK(frac < MAX_MISMATCH, "%s: mismatch %.4f%% of covered pixels (bound %.4f%%)", what, 100.0 * frac,
          100.0 * MAX_MISMATCH);
    CHECK(st.points > 0 && st.tris_in == s->tri_count, "%s: stats: %d points, %d triangles in", what,
          st.points, st.tris_in);

    /* GL depth vs ray-cast depth: coverage may differ only along silhouettes (a pixel centre
     * within float error of an edge); where both hit, the depths agree to 1e-4 relative except
     * at those same edges (a neighbouring surface). Both bounds: 0.5% of the pixels. */
    oracle_depth_ids(o, &cam, W, H, ray_depth, ray_ids);
    long cover_diff = 0, depth_diff = 0, both = 0, id_diff = 0, id_bad = 0;
    for (int i = 0; i < W * H; i++) {
        bool a = gl_depth[i] > 0.0f, c = ray_depth[i] > 0.0f;
        cover_diff += a != c;
        id_bad += a ? gl_ids[i] >= (uint32_t)s->tri_count : gl_ids[i] != IZB_NO_ID;
        if (a && c) {
            both++;
            depth_diff += fabsf(gl_depth[i] - ray_depth[i]) > 1e-4f * ray_depth[i];
            id_diff += gl_ids[i] != ray_ids[i];
        }
    }
    printf("%s: GL vs ray-cast depth: coverage differs at %ld pixels, depth at %ld of %ld, primitive id at "
           "%ld\n",
           what, cover_diff, depth_diff, both, id_diff);
    CHECK(cover_diff < W * H / 200, "%s: coverage differs at %ld pixels", what, cover_diff);
    CHECK(depth_diff < both / 200, "%s: depth differs at %ld of %ld pixels", what, depth_diff, both);
    CHECK(id_bad == 0, "%s: %ld pixels with an id that is neither a scene triangle nor IZB_NO_ID on sky",
          what, id_bad);
    CHECK(id_diff < both / 200, "%s: primitive id differs from the primary ray's at %ld of %ld pixels", what,
          id_diff, both);

    /* the picture: shadowed pixels darker on average; sky pixels blue */
    double lit = mean_luma(gl_mask, 255), dark = mean_luma(gl_mask, 0);
    printf("%s: mean luma lit %.1f, shadow %.1f\n", what, lit, dark);
    CHECK(lit > 0.0 && dark >= 0.0 && dark < 0.75 * lit, "%s: shadow luma %.1f vs lit %.1f", what, dark, lit);
    long sky = 0, sky_blue = 0;
    for (int i = 0; i < W * H; i++)
        if (gl_depth[i] == 0.0f) {
            sky++;
            sky_blue += rgba[4 * i + 2] > rgba[4 * i] + 20;
        }
    CHECK(sky_blue == sky, "%s: %ld of %ld sky pixels have the sky colour", what, sky_blue, sky);
}

/* Resize and re-registration: the targets made again at other sizes and back at the first (new
 * texture names, a new generation); at each size the mask the backend wrote into GL equals its
 * array path on the depth read back. With CUDA every size change registers the textures again. */
static void resize_round(render *r, izb_backend *b, const scene *s, const camera *cam_in, const light *l)
{
    const int sizes[][2] = {{200, 120}, {131, 77}, {200, 120}, {W, H}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        char err[256];
        CHECK(render_resize(r, w, h, err, sizeof err), "resize to %dx%d: %s", w, h, err);
        camera cam = *cam_in;
        camera_fit_clip(&cam, s->bounds_min, s->bounds_max);
        CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = l, .backend = b}), "%dx%d: render_frame", w,
              h);
        render_read_depth(r, gl_depth);
        render_read_ids(r, gl_ids);
        render_read_mask(r, gl_mask);
        izb_recon f = izb_frame_make(&cam, l, s->bounds_min, s->bounds_max, w, h);
        CHECK(izb_shade_arrays_ids(b, &f, NULL, gl_depth, gl_ids, arr_mask, NULL),
              "%dx%d: izb_shade_arrays_ids", w, h);
        long diff = 0, shadow = 0;
        for (int i = 0; i < w * h; i++) {
            diff += gl_mask[i] != arr_mask[i];
            shadow += gl_depth[i] > 0.0f && arr_mask[i] == 0;
        }
        CHECK(diff == 0 && shadow > 0, "%dx%d after a resize: GL mask differs at %ld pixels (%ld in shadow)", w, h,
              diff, shadow);
    }
}

/* An anti-aliased frame at 131x77 through b's GL path against a CPU backend's array path on what
 * GL holds (depth, ids), then back to W x H. */
static void aa_round(render *r, izb_backend *b, const scene *s, const camera *cam_in, const light *l)
{
    enum { w = 131, h = 77, N = 8 };
    char err[256];
    CHECK(render_resize(r, w, h, err, sizeof err), "aa: resize to %dx%d: %s", w, h, err);
    camera cam = *cam_in;
    camera_fit_clip(&cam, s->bounds_min, s->bounds_max);
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = l, .backend = b, .shadow_samples = N}),
          "aa: render_frame");
    render_read_depth(r, gl_depth);
    render_read_ids(r, gl_ids);
    render_read_mask(r, gl_mask);
    izb_backend *cpu = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .quiet = true});
    CHECK(cpu && izb_set_scene(cpu, s->xyz, s->tri_count), "aa: a CPU backend with the scene");
    if (cpu) {
        izb_recon f[LIGHT_CUBE_FACES]; /* one frame, or a point light's faces */
        static uint8_t scratch[W * H];
        const int count = izb_frame_make_faces(&cam, l, s->bounds_min, s->bounds_max, w, h, f);
        for (int i = 0; i < count; i++)
            f[i].shadow_samples = N;
        CHECK(izb_shade_arrays_faces(cpu, f, count, NULL, gl_depth, gl_ids, arr_mask, scratch, NULL),
              "aa: the CPU's frame");
        izb_destroy(cpu);
        long diff = 0, partial = 0;
        for (int i = 0; i < w * h; i++) {
            diff += gl_mask[i] != arr_mask[i];
            partial += arr_mask[i] > 0 && arr_mask[i] < 255;
        }
        CHECK(diff == 0 && partial > 0, "aa: %s's GL mask differs from the CPU's at %ld pixels (%ld partly lit)",
              izb_name(b), diff, partial);
    }
    CHECK(render_resize(r, W, H, err, sizeof err), "aa: resize back: %s", err);
}
#endif

#if IZB_HAVE_EMBREE
/* Two lights through backend b and through a fresh CPU backend: each light's mask bit for bit. */
static void two_lights(render *r, izb_backend *b, const scene *s, const camera *cam_in, const light *l0,
                       const light *l1)
{
    const light_set ls = {.count = 2, .l = {*l0, *l1}, .intensity = {1.0f, 1.0f}};
    camera cam = *cam_in;
    camera_fit_clip(&cam, s->bounds_min, s->bounds_max);
    static uint8_t got[2][W * H], want[2][W * H];
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .lights = &ls, .backend = b}), "two lights: %s",
          izb_name(b));
    for (int i = 0; i < 2; i++) render_read_light_mask(r, i, got[i]);
    izb_backend *cpu = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .quiet = true});
    CHECK(cpu && izb_set_scene(cpu, s->xyz, s->tri_count), "a CPU backend with the scene");
    if (!cpu) return;
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .lights = &ls, .backend = cpu}), "two lights: cpu");
    for (int i = 0; i < 2; i++) render_read_light_mask(r, i, want[i]);
    izb_destroy(cpu);
    for (int i = 0; i < 2; i++) {
        size_t d = 0, shadowed = 0;
        for (int p = 0; p < W * H; p++) d += got[i][p] != want[i][p], shadowed += want[i][p] == 0;
        CHECK(d == 0 && shadowed > 0, "two lights: light %d's mask from %s differs from the CPU's on %zu pixels "
              "(%zu shadowed)", i, izb_name(b), d, shadowed);
    }
}
#endif

int main(int argc, char **argv)
{
#if !IZB_HAVE_EMBREE
    TEST_SKIP("built without Embree: no oracle");
#else
    /* "cpu" (gl suite): the read-back bridge; "cuda" (gpu suite): CUDA-GL interop, whose mask must
     * equal the CUDA array path and the oracle just the same. */
    bool want_cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
    frame_fixture fx;
    if (!frame_fixture_init(&fx, W, H, want_cuda ? IZB_BACKEND_CUDA : IZB_BACKEND_CPU))
        return test_done();
    if (want_cuda)
        CHECK(izb_supports_gl(fx.b), "the CUDA backend shades GL textures directly (interop)");
    render *r = fx.r;
    izb_backend *b = fx.b;
    oracle *o = fx.o;
    const scene s = fx.s;
    printf("backend %s, scene %s: %d triangles, %dx%d\n", izb_name(b), s.name, s.tri_count, W, H);

    camera cam = {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    light dir = fixture_sun(&s), spot = fixture_spot(&s);
    run(r, b, o, &s, &cam, &dir, "directional");
    run(r, b, o, &s, &cam, &spot, "spot");
    /* a closer view from another side */
    camera near_cam = cam;
    float c[3];
    for (int k = 0; k < 3; k++)
        c[k] = 0.5f * (s.bounds_min[k] + s.bounds_max[k]);
    near_cam.yaw = cam.yaw + 120.0f;
    near_cam.pitch = -25.0f;
    float fwd[3];
    camera_forward(&near_cam, fwd);
    float dist = 0.35f * (s.bounds_max[0] - s.bounds_min[0]);
    for (int k = 0; k < 3; k++)
        near_cam.pos[k] = c[k] - dist * fwd[k];
    run(r, b, o, &s, &near_cam, &dir, "close directional");
    two_lights(r, b, &s, &cam, &spot, &dir);
    resize_round(r, b, &s, &cam, &dir);
    aa_round(r, b, &s, &cam, &dir);
    light point = spot; /* a point light takes N too (render_izb_lights: every face) */
    point.type = LIGHT_POINT;
    aa_round(r, b, &s, &cam, &point);

    frame_fixture_free(&fx);
    return test_done();
#endif
}
