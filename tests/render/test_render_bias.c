/* test_render_bias.c — settings that only show in the frame (suite gl, headless; no Embree):
 *  - the IZB bias reaches the frame: a plate lifted 0.5 above a ground quad casts a shadow with the
 *    default bias and none with a bias that moves the ground's points above the plate, through
 *    izb_shade_arrays and through render_frame (the read-back path);
 *  - the mask render_frame uploads equals izb_shade_arrays_ids on the depth and primitive ids it
 *    read back, every row
 *    (the top row too: an upload one row short would leave it stale);
 *  - the shadow map's receiver bias (the IZB bias as a world shift) alone keeps a lone ground quad
 *    free of acne, with the polygon and normal offsets off.
 * The camera looks almost straight down from 10 units, so every pixel sees the ground. */
#undef NDEBUG
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test.h"
#include "izb.h"
#include "render.h"
#include "scene.h"
#include "shadow_map.h"
#include "view.h"

enum { W = 161, H = 121 };
#define PLATE_H 0.5f

/* ground [-10, 10]^2 at y = 0 and, with `plate`, [-2, 2]^2 at y = PLATE_H; all facing up */
static void make_scene(scene *s, bool plate)
{
    static const float quads[2][3] = {{10.0f, 0.0f, 0}, {2.0f, PLATE_H, 0}};
    memset(s, 0, sizeof *s);
    s->tri_count = plate ? 4 : 2;
    s->xyz = malloc(sizeof(float) * 9 * (size_t)s->tri_count);
    s->normals = malloc(sizeof(float) * 9 * (size_t)s->tri_count);
    for (int q = 0; q < s->tri_count / 2; q++) {
        const float r = quads[q][0], y = quads[q][1];
        /* counter-clockwise seen from above, as the built-in scenes' ground */
        const float v[6][3] = {{-r, y, -r}, {-r, y, r}, {r, y, r}, {-r, y, -r}, {r, y, r}, {r, y, -r}};
        memcpy(s->xyz + 18 * q, v, sizeof v);
        for (int k = 0; k < 6; k++) {
            float *n = s->normals + 18 * q + 3 * k;
            n[0] = 0.0f, n[1] = 1.0f, n[2] = 0.0f;
        }
    }
    const float bmin[3] = {-10, 0, -10}, bmax[3] = {10, PLATE_H, 10};
    memcpy(s->bounds_min, bmin, sizeof bmin);
    memcpy(s->bounds_max, bmax, sizeof bmax);
    snprintf(s->name, sizeof s->name, "%s", plate ? "lifted plate" : "lone ground");
}

static long count_below(const uint8_t *mask, uint8_t v)
{
    long n = 0;
    for (int i = 0; i < W * H; i++)
        n += mask[i] < v;
    return n;
}

static camera top_camera(void)
{
    camera c = {.pos = {0.3f, 10.0f, 1.0f}, .yaw = 0.0f, .pitch = -85.0f, .fovy = 60.0f};
    const float bmin[3] = {-10, 0, -10}, bmax[3] = {10, PLATE_H, 10};
    camera_fit_clip(&c, bmin, bmax);
    return c;
}

static void test_izb_bias(gl_context *ctx)
{
    (void)ctx;
    char err[512];
    scene s;
    make_scene(&s, true);
    render *r = render_create(&(render_desc){.width = W, .height = H}, err, sizeof err);
    CHECK(r && render_set_scene(r, &s, err, sizeof err), "renderer: %s", err);
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .quiet = true});
    CHECK(b && izb_set_scene(b, s.xyz, s.tri_count), "CPU backend");
    if (!r || !b) return;

    const camera cam = top_camera();
    const light sun = {.type = LIGHT_DIRECTIONAL, .dir = {1.0f, -1.0f, 0.3f}};
    const izb_recon f = izb_frame_make(&cam, &sun, s.bounds_min, s.bounds_max, W, H);
    /* the bias is in depth-key units: world distance along the light = bias / |key gradient| */
    const double key_grad = sqrt((double)f.light[2] * f.light[2] + (double)f.light[6] * f.light[6] +
                                 (double)f.light[10] * f.light[10]);
    float dir[3];
    light_direction(&sun, dir);
    /* along the light, a ground point must rise PLATE_H / |dir.y| to pass the plate */
    const double needed = PLATE_H / fabs((double)dir[1]) * key_grad;
    const float big = 0.09f, small = (float)(0.2 * needed);
    CHECK(big > 1.3 * needed && big < 0.1f, "the large bias %g passes the plate (needs %g)", (double)big,
          needed);
    CHECK(IZB_DEFAULT_BIAS < 0.1 * needed, "the default bias is far below the plate (%g vs %g)",
          (double)IZB_DEFAULT_BIAS, needed);

    float *depth = malloc(sizeof(float) * W * H);
    uint8_t *mask = malloc(W * H), *ref = malloc(W * H);
    uint32_t *ids = malloc(sizeof(uint32_t) * W * H);
    const float biases[3] = {0.0f, small, big}; /* 0: the default */
    long shadow_arrays[3] = {0}, shadow_frame[3] = {0};
    for (int i = 0; i < 3; i++) {
        izb_settings set = {.bias = biases[i]};
        izb_stats st;
        CHECK(render_frame(r, &(render_frame_desc){.cam = &cam,
                                                   .light = &sun,
                                                   .backend = b,
                                                   .settings = &set,
                                                   .stats = &st,
                                                   .view = RENDER_VIEW_MASK}),
              "render_frame, bias %g", (double)biases[i]);
        render_read_depth(r, depth);
        render_read_mask(r, mask);
        render_read_ids(r, ids);
        long sky = 0;
        for (int p = 0; p < W * H; p++)
            sky += !(depth[p] > 0.0f);
        CHECK(sky == 0, "every pixel sees the ground (%ld sky)", sky);
        /* the mask uploaded after the read-back equals izb_shade_arrays_ids on that depth and
         * those ids (render_frame passes the depth pass's primitive ids), every row */
        CHECK(izb_shade_arrays_ids(b, &f, &set, depth, ids, ref, &st), "izb_shade_arrays_ids");
        long diff = 0, diff_top = 0;
        for (int p = 0; p < W * H; p++) {
            diff += mask[p] != ref[p];
            diff_top += p >= (H - 1) * W && mask[p] != ref[p];
        }
        CHECK(diff == 0,
              "bias %g: read-back mask differs from izb_shade_arrays_ids on %ld pixels (%ld in the top row)",
              (double)biases[i], diff, diff_top);
        shadow_frame[i] = count_below(mask, 128);
        shadow_arrays[i] = count_below(ref, 128);
    }
    printf("shadowed pixels, bias default / %g / %g: frame %ld / %ld / %ld, arrays %ld / %ld / %ld\n",
           (double)small, (double)big, shadow_frame[0], shadow_frame[1], shadow_frame[2], shadow_arrays[0],
           shadow_arrays[1], shadow_arrays[2]);
    CHECK(shadow_frame[0] > 200, "the plate shadows the ground with the default bias: %ld px",
          shadow_frame[0]);
    CHECK(labs(shadow_frame[1] - shadow_frame[0]) < shadow_frame[0] / 20, "a small bias keeps the shadow");
    CHECK(shadow_frame[2] == 0, "a bias beyond the plate lights the ground: %ld px still shadowed",
          shadow_frame[2]);
    CHECK(shadow_arrays[0] == shadow_frame[0] && shadow_arrays[2] == 0, "izb_shade_arrays the same");

    free(depth), free(mask), free(ref), free(ids);
    izb_destroy(b);
    render_destroy(r);
    scene_free(&s);
}

static void test_shadow_map_receiver_bias(void)
{
    char err[512];
    scene s;
    make_scene(&s, false);
    render *r = render_create(&(render_desc){.width = W, .height = H}, err, sizeof err);
    CHECK(r && render_set_scene(r, &s, err, sizeof err), "renderer: %s", err);
    if (!r) return;
    /* offsets off: polygon offset ~0 (0 means the default), normal offset negative = none */
    CHECK(render_set_shadow_map(
              r,
              &(shadow_map_desc){
                  .size = 1024, .slope_factor = 1e-30f, .offset_units = 1e-30f, .normal_offset = -1.0f},
              err, sizeof err) &&
              render_set_shadow_mode(r, SHADOW_MODE_MAP, err, sizeof err),
          "shadow map: %s", err);
    const camera cam = top_camera();
    /* a light a few degrees off the normal: across a texel (28 / 1024 world) the map's depth
     * varies by ~1.5e-3 world, half of it under the receiver shift (2e-4 of the depth range,
     * ~2.8e-3): no acne; a shift scaled the wrong way (~1e-5) leaves acne on half the ground */
    const light lights[2] = {{.type = LIGHT_DIRECTIONAL, .dir = {0.06f, -1.0f, 0.03f}},
                             {.type = LIGHT_DIRECTIONAL, .dir = {-0.02f, -1.0f, -0.05f}}};
    uint8_t *mask = malloc(W * H);
    for (int i = 0; i < 2; i++) {
        CHECK(render_frame(
                  r, &(render_frame_desc){.cam = &cam, .light = &lights[i], .view = RENDER_VIEW_SHADED}),
              "render_frame");
        render_read_shadow_map_mask(r, mask);
        long acne = count_below(mask, 128);
        CHECK(acne == 0, "light %d: %ld pixels of acne on a lone ground quad", i, acne);
    }
    free(mask);
    render_destroy(r);
    scene_free(&s);
}

int main(void)
{
    gl_context ctx;
    gl_test_context(&ctx);
    test_izb_bias(&ctx);
    test_shadow_map_receiver_bias();
    gl_context_shutdown(&ctx);
    return test_done();
}
