/* test_render_lights.c — several lights (view.h light_set, render_lights.c), CPU backend, headless:
 *  1. each light's mask of a frame of several lights equals the mask a frame of that light alone
 *     draws, bit for bit: random sets of 2..IZB_MAX_LIGHTS lights of mixed types (directional,
 *     spot, point), the IZB mode and the shadow-map mode (each light's map copied into its layer);
 *     a light of zero intensity has no pass (its stats zero) and a mask all lit;
 *  2. the shading pass sums each light's term times ITS OWN mask: where light A is lit and B is
 *     shadowed the two-light colour is A's alone, and where A is shadowed and B lit it is B's alone
 *     (a pass that read another light's mask layer would draw those pixels dark or too bright);
 *  3. a light count out of 1..IZB_MAX_LIGHTS is refused, not drawn.
 * Catches: a light shaded into the wrong layer or with another light's frame, layers shifted by
 * one, the map mode leaving the IZB's masks, the sum reading u_mask for every light. */
#undef NDEBUG
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test.h"
#include "izb.h"
#include "render.h"
#include "scene.h"
#include "shadow_map.h"
#include "test_rng.h"

enum { W = 160, H = 96, SEEDS = 3 };
#define PIXELS ((size_t)W * (size_t)H)

static scene s;
static render *r;
static izb_backend *b;
static camera cam;

/* a random light of type t around the scene: directional from the upper half, spot and point above
 * the scene's middle (spot aimed at a random point of it) */
static light random_light(light_type t)
{
    light l = {.type = t, .cone_deg = (float)rnd_in(40.0, 100.0)};
    float c[3], e[3];
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (s.bounds_min[k] + s.bounds_max[k]);
        e[k] = s.bounds_max[k] - s.bounds_min[k];
    }
    if (t == LIGHT_DIRECTIONAL) {
        l.dir[0] = (float)rnd_in(-0.8, 0.8), l.dir[1] = -1.0f, l.dir[2] = (float)rnd_in(-0.8, 0.8);
        return l;
    }
    l.pos[0] = c[0] + (float)rnd_in(-0.4, 0.4) * e[0];
    l.pos[1] = s.bounds_max[1] + (float)rnd_in(0.1, 0.6) * e[1];
    l.pos[2] = c[2] + (float)rnd_in(-0.4, 0.4) * e[2];
    for (int k = 0; k < 3; k++) l.dir[k] = c[k] + (float)rnd_in(-0.2, 0.2) * e[k] - l.pos[k];
    return l;
}

static bool frame(const light_set *ls, izb_stats *per_light)
{
    return render_frame(r, &(render_frame_desc){.cam = &cam, .lights = ls, .backend = b, .light_stats = per_light});
}

static size_t differing(const uint8_t *a, const uint8_t *c, size_t n)
{
    size_t d = 0;
    for (size_t i = 0; i < n; i++) d += a[i] != c[i];
    return d;
}

/* 1: every light's mask of the set against its own one-light frame, in shadow mode m */
static void masks_match_single(shadow_mode m, int seed)
{
    char err[256];
    CHECK(render_set_shadow_mode(r, m, err, sizeof err), "shadow mode: %s", err);
    light_set ls = {.count = 2 + (int)(rnd() * (IZB_MAX_LIGHTS - 1))};
    if (ls.count > IZB_MAX_LIGHTS) ls.count = IZB_MAX_LIGHTS;
    const int dark = ls.count > 2 ? 1 + (int)(rnd() * (ls.count - 1)) : -1; /* one light at intensity 0 */
    for (int i = 0; i < ls.count; i++) {
        ls.l[i] = random_light((light_type)(i == 0 ? seed % LIGHT_TYPE_COUNT : (int)(rnd() * LIGHT_TYPE_COUNT)));
        ls.intensity[i] = i == dark ? 0.0f : (float)rnd_in(0.3, 1.5);
    }
    static uint8_t masks[IZB_MAX_LIGHTS][PIXELS], alone[PIXELS];
    izb_stats per[IZB_MAX_LIGHTS];
    CHECK(frame(&ls, per), "seed %d: a frame of %d lights", seed, ls.count);
    for (int i = 0; i < ls.count; i++) {
        if (m == SHADOW_MODE_MAP && i == 0)
            render_read_shadow_map_mask(r, masks[0]);
        else
            render_read_light_mask(r, i, masks[i]);
    }
    for (int i = 0; i < ls.count; i++) {
        if (i == dark) {
            size_t unlit = 0;
            for (size_t p = 0; p < PIXELS; p++) unlit += masks[i][p] != 255;
            CHECK(unlit == 0, "seed %d %s: light %d of zero intensity: %zu pixels not lit", seed,
                  shadow_mode_names[m], i, unlit);
            CHECK(m != SHADOW_MODE_IZB || (per[i].points == 0 && per[i].total_ms == 0.0f),
                  "seed %d: light %d of zero intensity ran an IZB pass (%d points)", seed, i, per[i].points);
            continue;
        }
        CHECK(m != SHADOW_MODE_IZB || per[i].points > 0, "seed %d: light %d: no IZB numbers", seed, i);
        light_set one = light_set_one(&ls.l[i]);
        CHECK(frame(&one, NULL), "seed %d: light %d alone", seed, i);
        if (m == SHADOW_MODE_MAP)
            render_read_shadow_map_mask(r, alone);
        else
            render_read_mask(r, alone);
        size_t shadowed = 0;
        for (size_t p = 0; p < PIXELS; p++) shadowed += alone[p] < 128;
        const size_t d = differing(masks[i], alone, PIXELS);
        CHECK(d == 0, "seed %d %s: light %d (%s) of %d: %zu of %zu mask pixels differ from its frame alone", seed,
              shadow_mode_names[m], i, light_type_names[ls.l[i].type], ls.count, d, PIXELS);
        if (i == 1) /* the comparison means something: the light casts shadows here */
            CHECK(shadowed > 0 && shadowed < PIXELS, "seed %d: light 1 shadows %zu of %zu pixels", seed, shadowed,
                  PIXELS);
    }
}

/* 2: the sum reads each light's own mask */
static void sum_reads_own_mask(void)
{
    char err[256];
    CHECK(render_set_shadow_mode(r, SHADOW_MODE_IZB, err, sizeof err), "shadow mode: %s", err);
    const light a = {.type = LIGHT_DIRECTIONAL, .dir = {0.7f, -1.0f, 0.2f}};
    const light c = {.type = LIGHT_DIRECTIONAL, .dir = {-0.6f, -1.0f, -0.3f}};
    static uint8_t mask_a[PIXELS], mask_c[PIXELS], both[4 * PIXELS], only_a[4 * PIXELS], only_c[4 * PIXELS],
        none[4 * PIXELS];
    const light_set ac = {.count = 2, .l = {a, c}, .intensity = {1.0f, 1.0f}};
    CHECK(frame(&ac, NULL), "two lights");
    render_read_light_mask(r, 0, mask_a);
    render_read_light_mask(r, 1, mask_c);
    render_read_colour(r, both);
    /* each alone, and neither (the ambient term): the same lights, the other at intensity 0 */
    const light_set sa = {.count = 2, .l = {a, c}, .intensity = {1.0f, 0.0f}};
    const light_set sc = {.count = 2, .l = {a, c}, .intensity = {0.0f, 1.0f}};
    const light_set s0 = {.count = 2, .l = {a, c}, .intensity = {0.0f, 0.0f}};
    CHECK(frame(&sa, NULL), "light A");
    render_read_colour(r, only_a);
    CHECK(frame(&sc, NULL), "light B");
    render_read_colour(r, only_c);
    CHECK(frame(&s0, NULL), "no light");
    render_read_colour(r, none);
    size_t a_only_px = 0, c_only_px = 0, bad_a = 0, bad_c = 0, lit_by_c = 0;
    for (size_t p = 0; p < PIXELS; p++) {
        int worst_a = 0, worst_c = 0, gain = 0;
        for (int k = 0; k < 3; k++) {
            worst_a = fmax(worst_a, abs((int)both[4 * p + k] - (int)only_a[4 * p + k]));
            worst_c = fmax(worst_c, abs((int)both[4 * p + k] - (int)only_c[4 * p + k]));
            gain = fmax(gain, (int)only_c[4 * p + k] - (int)none[4 * p + k]);
        }
        if (mask_a[p] == 255 && mask_c[p] == 0) a_only_px++, bad_a += worst_a > 1;
        if (mask_a[p] == 0 && mask_c[p] == 255) {
            c_only_px++, bad_c += worst_c > 1;
            lit_by_c += gain > 8; /* B visibly lights it: reading A's mask there would leave it dark */
        }
    }
    CHECK(a_only_px > 50 && c_only_px > 50 && lit_by_c > 50,
          "the view has pixels lit by one light only: %zu by A, %zu by B (%zu visibly)", a_only_px, c_only_px,
          lit_by_c);
    CHECK(bad_a == 0, "%zu of %zu pixels lit by A and shadowed for B differ from A alone", bad_a, a_only_px);
    CHECK(bad_c == 0, "%zu of %zu pixels shadowed for A and lit by B differ from B alone", bad_c, c_only_px);
}

int main(void)
{
    gl_context ctx;
    gl_test_context(&ctx);
    char err[512];
    CHECK(scene_load("builtin:default", &s, err, sizeof err), "scene_load: %s", err);
    r = render_create(&(render_desc){.width = W, .height = H}, err, sizeof err);
    CHECK(r != NULL, "render_create: %s", err);
    CHECK(render_set_scene(r, &s, err, sizeof err), "render_set_scene: %s", err);
    b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .quiet = true});
    CHECK(b && izb_set_scene(b, s.xyz, s.tri_count), "CPU backend with the scene");
    cam = (camera){.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    camera_fit_clip(&cam, s.bounds_min, s.bounds_max);

    for (int seed = 0; seed < SEEDS; seed++) masks_match_single(SHADOW_MODE_IZB, seed);
    masks_match_single(SHADOW_MODE_MAP, SEEDS);
    sum_reads_own_mask();

    /* 3: counts out of range are refused (one line on stderr), nothing drawn */
    light_set bad = light_set_one(&(light){.type = LIGHT_DIRECTIONAL, .dir = {0, -1, 0}});
    static const int counts[] = {-1, 0, IZB_MAX_LIGHTS + 1};
    for (int k = 0; k < 3; k++) {
        const int n = counts[k];
        bad.count = n;
        gl_test_capture_begin();
        bool ok = frame(&bad, NULL);
        const char *said = gl_test_capture_end();
        CHECK(!ok && strstr(said, "lights"), "%d lights: refused with a reason (said '%s')", n, said);
    }

    izb_destroy(b);
    render_destroy(r);
    scene_free(&s);
    gl_context_shutdown(&ctx);
    return test_done();
}
