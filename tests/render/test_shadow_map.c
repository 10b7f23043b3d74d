/* test_shadow_map.c — the shadow-map mode of the renderer (render/shadow_map.h), headless:
 *  - sizes: the GL limit is at least 2048 here; a size above it, a size that is not a power of
 *    two and one below 512 are refused with one line naming the limit; the keys' halving stops
 *    at 512 and doubling at the limit;
 *  - modes: "map" shades with the shadow-map mask (the image differs from the IZB's exactly where
 *    the masks do), "none" lights every pixel, "diff" paints red exactly the pixels only the map
 *    has in shadow and blue those only the IZB has;
 *  - the map against the ray-cast truth on a close view of the default scene's fence: at 512^2 it
 *    disagrees on a clearly nonzero share of the pixels, at 4096^2 on fewer, while the IZB stays
 *    under 0.01%; both lights (directional, spot);
 *  - the spot's cone is round in both masks: outside it (the square clip space's corners too)
 *    every pixel is unlit in the IZB's mask and in the map's, inside it both light;
 *  - the mask target follows render_resize; leaving the map modes frees the map.
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
#include "shadow_map.h"

#if IZB_HAVE_EMBREE
#include "oracle.h"

enum { W = 320, H = 180 };
static float depth[W * H];
static uint8_t izb_mask[W * H], sm_mask[W * H], truth[W * H], rgba_izb[W * H * 4], rgba[W * H * 4];

/* mismatched share of covered pixels, and the counts */
static double mismatch(const uint8_t *m, mask_diff *d)
{
    *d = mask_compare(depth, m, truth, (long)W * H);
    return d->covered ? (double)d->mismatched / (double)d->covered : 1.0;
}

static void check_sizes(render *r)
{
    char err[512], msg[256];
    int max = render_shadow_map_max_size();
    printf("shadow map limit here: %d\n", max);
    CHECK(max >= 2048 && max <= SHADOW_MAP_MAX_SIZE, "limit %d", max);
    CHECK(!render_set_shadow_map(r, &(shadow_map_desc){.size = 2 * max}, err, sizeof err) &&
              strstr(err, "larger than") && !strchr(err, '\n'),
          "above the limit: '%s'", err);
    CHECK(!render_set_shadow_map(r, &(shadow_map_desc){.size = 1000}, err, sizeof err) &&
              strstr(err, "power of two"),
          "not a power of two: '%s'", err);
    CHECK(!render_set_shadow_map(r, &(shadow_map_desc){.size = 256}, err, sizeof err), "below 512: '%s'",
          err);
    CHECK(render_set_shadow_map(r, &(shadow_map_desc){.size = 1024}, err, sizeof err), "1024: %s", err);
    CHECK(render_shadow_keys(r, false, -1, msg, sizeof msg) && render_shadow_map_settings(r).size == 512,
          "[: %s", msg);
    CHECK(!render_shadow_keys(r, false, -1, msg, sizeof msg) && strstr(msg, "smallest") &&
              render_shadow_map_settings(r).size == 512,
          "[ at 512: '%s'", msg);
    CHECK(render_set_shadow_map(r, &(shadow_map_desc){.size = max}, err, sizeof err), "%d: %s", max, err);
    CHECK(!render_shadow_keys(r, false, 1, msg, sizeof msg) && strstr(msg, "larger than"),
          "] at the limit: '%s'", msg);
    CHECK(render_set_shadow_map(r, &(shadow_map_desc){.size = 2048}, err, sizeof err), "2048: %s", err);
    /* M cycles izb -> map -> diff -> none -> izb */
    shadow_mode seen[4];
    for (int i = 0; i < 4; i++) {
        CHECK(render_shadow_keys(r, true, 0, msg, sizeof msg), "M: %s", msg);
        seen[i] = render_shadow_mode(r);
    }
    CHECK(seen[0] == SHADOW_MODE_MAP && seen[1] == SHADOW_MODE_DIFF && seen[2] == SHADOW_MODE_NONE &&
              seen[3] == SHADOW_MODE_IZB,
          "M cycles the four modes");
}

static void check_view(render *r, izb_backend *b, oracle *o, const scene *s, const camera *cam_in,
                       const light *l, const char *what)
{
    char err[512];
    camera cam = *cam_in;
    camera_fit_clip(&cam, s->bounds_min, s->bounds_max);
    izb_recon f = izb_frame_make(&cam, l, s->bounds_min, s->bounds_max, W, H);

    CHECK(render_set_shadow_mode(r, SHADOW_MODE_IZB, err, sizeof err), "izb: %s", err);
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = l, .backend = b}), "%s: IZB frame",
          what);
    render_read_depth(r, depth);
    render_read_mask(r, izb_mask);
    render_read_colour(r, rgba_izb);
    oracle_shadow(o, &f, &cam, l, depth, truth);
    mask_diff d;
    double izb_err = mismatch(izb_mask, &d);
    long shadowed = 0;
    for (int i = 0; i < W * H; i++)
        shadowed += depth[i] > 0.0f && truth[i] == 0;
    CHECK(d.covered > W * H / 4 && shadowed > d.covered / 20, "%s: a real view (%ld covered, %ld shadow)",
          what, d.covered, shadowed);
    CHECK(izb_err < 1e-4, "%s: IZB mismatch %.4f%%", what, 100.0 * izb_err);

    double sm_err[2];
    const int sizes[2] = {512, 4096};
    for (int k = 0; k < 2; k++) {
        CHECK(render_set_shadow_map(r, &(shadow_map_desc){.size = sizes[k]}, err, sizeof err) &&
                  render_set_shadow_mode(r, SHADOW_MODE_MAP, err, sizeof err),
              "%d: %s", sizes[k], err);
        CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = l, .backend = b}), "map frame");
        render_read_shadow_map_mask(r, sm_mask);
        render_read_colour(r, rgba);
        sm_err[k] = mismatch(sm_mask, &d);
        printf("%s: IZB %.4f%%, shadow map %d: %.4f%% (%ld false shadow, %ld false light)\n", what,
               100.0 * izb_err, sizes[k], 100.0 * sm_err[k], d.false_shadow, d.false_light);
        /* the shading used the map's mask: the image differs from the IZB's only where the masks do,
         * and on lit-facing ground it does differ there */
        long differ_elsewhere = 0, mask_differs = 0;
        for (int i = 0; i < W * H; i++) {
            bool same_mask = (izb_mask[i] != 0) == (sm_mask[i] != 0);
            bool same_px = memcmp(rgba + 4 * i, rgba_izb + 4 * i, 4) == 0;
            differ_elsewhere += same_mask && !same_px;
            mask_differs += !same_mask;
        }
        CHECK(differ_elsewhere == 0, "%s %d: %ld pixels changed where the masks agree", what, sizes[k],
              differ_elsewhere);
        CHECK(mask_differs > 0, "%s %d: the masks differ somewhere", what, sizes[k]);
    }
    CHECK(sm_err[0] > 0.01, "%s: 512^2 mismatch %.4f%% (expected over 1%%)", what, 100.0 * sm_err[0]);
    CHECK(sm_err[1] < sm_err[0], "%s: 4096^2 (%.4f%%) better than 512^2 (%.4f%%)", what, 100.0 * sm_err[1],
          100.0 * sm_err[0]);
    CHECK(sm_err[0] > 10.0 * izb_err, "%s: the IZB is far closer to the truth", what);

    /* diff: red exactly where only the map says shadow, blue where only the IZB does */
    CHECK(render_set_shadow_mode(r, SHADOW_MODE_DIFF, err, sizeof err), "diff: %s", err);
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = l, .backend = b}), "diff frame");
    render_read_mask(r, izb_mask);
    render_read_shadow_map_mask(r, sm_mask);
    render_read_colour(r, rgba);
    long wrong = 0, red = 0, blue = 0;
    for (int i = 0; i < W * H; i++) {
        if (!(depth[i] > 0.0f)) continue;
        const uint8_t *p = rgba + 4 * i;
        bool is_red = p[0] > 240 && p[1] < 110 && p[2]<90, is_blue = p[2]> 240 && p[0] < 100;
        bool map_only = sm_mask[i] == 0 && izb_mask[i] != 0, izb_only = izb_mask[i] == 0 && sm_mask[i] != 0;
        wrong += (map_only != is_red) || (izb_only != is_blue);
        red += is_red;
        blue += is_blue;
    }
    CHECK(wrong == 0 && red + blue > 0, "%s diff view: %ld red, %ld blue, %ld pixels wrong", what, red, blue,
          wrong);

    /* none: every covered pixel lit; the mask read-back says so */
    CHECK(render_set_shadow_mode(r, SHADOW_MODE_NONE, err, sizeof err), "none: %s", err);
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = l, .backend = b}), "none frame");
    render_read_mask(r, izb_mask);
    long dark = 0;
    for (int i = 0; i < W * H; i++)
        dark += izb_mask[i] != 255;
    CHECK(dark == 0, "%s none: %ld pixels not lit", what, dark);
    CHECK(shadow_map_mask_texture(r) == 0, "none: the map's targets are freed");
}

/* The spot's cone is round in both masks (izb_spot_outside; shadow_mask.frag mirrors it): a spot
 * narrower than the view, seen from above. Every covered pixel whose world point (from the depth,
 * in double) is more than CONE_MARGIN radians outside the cone is 0 in the IZB's mask and in the
 * map's, the square clip space's corners beyond the circle among them (required in view), and
 * pixels inside it are lit in both. CONE_MARGIN: the map's test runs on the interpolated vertex
 * position in GL's float, the IZB's on the depth read back. */
#define CONE_MARGIN 2e-3
static void check_cone(render *r, izb_backend *b, const scene *s)
{
    char err[512];
    float c[3], ext = 0.0f;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (s->bounds_min[k] + s->bounds_max[k]);
        ext = fmaxf(ext, s->bounds_max[k] - s->bounds_min[k]);
    }
    const light l = {.type = LIGHT_SPOT, .pos = {c[0], s->bounds_max[1] + 0.3f * ext, c[2]},
                     .dir = {0.1f, -1.0f, 0.05f}, .cone_deg = 40.0f};
    camera cam = {.pos = {c[0], s->bounds_max[1] + 0.45f * ext, c[2] + 0.1f * ext}, .pitch = -80.0f, .fovy = 70.0f};
    camera_fit_clip(&cam, s->bounds_min, s->bounds_max);
    const izb_recon f = izb_frame_make(&cam, &l, s->bounds_min, s->bounds_max, W, H);
    CHECK(render_set_shadow_mode(r, SHADOW_MODE_IZB, err, sizeof err), "izb: %s", err);
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = &l, .backend = b}), "cone: IZB frame");
    render_read_depth(r, depth);
    render_read_mask(r, izb_mask);
    CHECK(render_set_shadow_map(r, &(shadow_map_desc){.size = 2048}, err, sizeof err) &&
              render_set_shadow_mode(r, SHADOW_MODE_MAP, err, sizeof err),
          "map: %s", err);
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = &l, .backend = b}), "cone: map frame");
    render_read_shadow_map_mask(r, sm_mask);

    float view[16], lm[16], dirf[3];
    camera_view(&cam, view);
    light_matrices(&l, s->bounds_min, s->bounds_max, lm, NULL);
    light_direction(&l, dirf);
    const double half = 0.5 * l.cone_deg * 0.017453292519943295, tan_half = tan(half);
    double u[3], v[3], axis[3] = {dirf[0], dirf[1], dirf[2]}, nu = 0.0, nv = 0.0;
    for (int k = 0; k < 3; k++) /* the light's image-plane axes: its clip x and y rows */
        u[k] = lm[4 * k], v[k] = lm[4 * k + 1], nu += u[k] * u[k], nv += v[k] * v[k];
    long outside = 0, corners = 0, inside = 0, izb_lit_out = 0, map_lit_out = 0, izb_lit_in = 0, map_lit_in = 0;
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            const int i = py * W + px;
            const double d = depth[i];
            if (!(d > 0.0)) continue;
            const double vv[3] = {((2.0 * px + 1.0) / W - 1.0) * f.ray_sx * d,
                                  ((2.0 * py + 1.0) / H - 1.0) * f.ray_sy * d, -d};
            double a[3], ax = 0.0, au = 0.0, av = 0.0;
            for (int j = 0; j < 3; j++) {
                a[j] = view[4 * j] * (vv[0] - view[12]) + view[4 * j + 1] * (vv[1] - view[13]) +
                       view[4 * j + 2] * (vv[2] - view[14]) - l.pos[j];
                ax += a[j] * axis[j], au += a[j] * u[j] / sqrt(nu), av += a[j] * v[j] / sqrt(nv);
            }
            const double angle = atan2(sqrt(fmax(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] - ax * ax, 0.0)), ax);
            if (angle > half + CONE_MARGIN) {
                outside++;
                corners += ax > 0.0 && fabs(au) <= ax * tan_half && fabs(av) <= ax * tan_half;
                izb_lit_out += izb_mask[i] != 0;
                map_lit_out += sm_mask[i] != 0;
            } else if (angle < half - CONE_MARGIN) {
                inside++;
                izb_lit_in += izb_mask[i] != 0;
                map_lit_in += sm_mask[i] != 0;
            }
        }
    printf("cone: %ld covered pixels inside (IZB lit %ld, map lit %ld), %ld outside (%ld in the square's corners): "
           "IZB lit %ld, map lit %ld\n",
           inside, izb_lit_in, map_lit_in, outside, corners, izb_lit_out, map_lit_out);
    CHECK(inside > W * H / 20 && outside > W * H / 20 && corners > 200,
          "cone: the view shows the cone (%ld), outside it (%ld) and the square's corners (%ld)", inside, outside,
          corners);
    CHECK(izb_lit_out == 0 && map_lit_out == 0, "cone: outside the round cone the IZB lights %ld, the map %ld pixels",
          izb_lit_out, map_lit_out);
    CHECK(izb_lit_in > inside / 2 && map_lit_in > inside / 2, "cone: inside it both light most pixels (%ld, %ld of %ld)",
          izb_lit_in, map_lit_in, inside);
}
#endif

int main(void)
{
#if !IZB_HAVE_EMBREE
    TEST_SKIP("built without Embree: no oracle");
#else
    frame_fixture fx;
    if (!frame_fixture_init(&fx, 64, 48, IZB_BACKEND_CPU))
        return test_done();
    render *r = fx.r;
    izb_backend *b = fx.b;
    oracle *o = fx.o;
    const scene s = fx.s;
    char err[512];
    CHECK(render_shadow_mode(r) == SHADOW_MODE_IZB, "the IZB by default");

    check_sizes(r);
    /* the map's mask follows a resize made while a map mode is on */
    CHECK(render_set_shadow_mode(r, SHADOW_MODE_MAP, err, sizeof err), "map: %s", err);
    CHECK(render_resize(r, W, H, err, sizeof err), "resize: %s", err);

    /* close to the fence, looking down at the shadows of its pickets and rails */
    light dir = fixture_sun(&s);
    camera cam = {.pos = {-4.0f, 0.9f, -4.6f}, .yaw = -20.0f, .pitch = -45.0f};
    check_view(r, b, o, &s, &cam, &dir, "fence, directional");
    light spot = fixture_spot(&s);
    check_view(r, b, o, &s, &cam, &spot, "fence, spot");
    check_cone(r, b, &s);

    frame_fixture_free(&fx);
    return test_done();
#endif
}
