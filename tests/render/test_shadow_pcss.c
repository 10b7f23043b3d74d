/* test_shadow_pcss.c — PCSS in the shadow-map mode (shadow_map_desc.pcss, core/izb_pcss.h),
 * headless:
 *  - the shader against the C reference: on four generated views (two scenes, random light directions,
 *    angles 0.5 .. 20 degrees, cameras and map sizes) every pixel the shader filtered with PCSS
 *    equals izb_pcss_lit over the read-back map at the pass's own inputs (the probe: s and the
 *    receiver-plane slope) within 1/255 — but for pixels whose reference changes when s moves by
 *    one ulp (a tap on a texel edge, a compare on a tie: a GPU's last-ulp differences in the
 *    division or the taps' sums may decide those either way; fewer than FRAGILE_MAX of the
 *    filtered pixels may be such, and how many of them differ is printed);
 *  - the same on two generated area-light views (a spot with a W x H emitter, rect or disk);
 *  - angle 0 with PCSS on is the hard map bit for bit (and PCF with PCF on), no pixel filtered;
 *    so is an area light of size 0, 0 (the plain spot map), and with a size it differs;
 *  - the app's rule: PCSS only for a directional light with an angle in range, or a spot with a
 *    size in range (bad angles and sides: hard);
 *  - several lights: a soft light's layer in the map mode equals its frame alone;
 *  - against the IZB's exact soft mask (CPU backend) on the fence close-up, a sun of 5 degrees and
 *    an area light of 0.6 x 0.4 m: the mean absolute error of PCSS is below the hard map's
 *    (printed: docs/pcss.md quotes it).
 * Skipped (77) without a GL 4.5 context. */
#undef NDEBUG
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test.h"
#include "izb.h"
#include "izb_area.h"
#include "izb_pcss.h"
#include "render.h"
#include "scene.h"
#include "shadow_map.h"

enum { W = 320, H = 180 };
#define FRAGILE_MAX 0.01

static uint8_t mask[W * H], mask2[W * H], izb_mask[W * H];
static float coord[W * H * 4], slope[W * H * 2], depth[W * H];
static float *map; /* SHADOW_MAP_MAX_SIZE used here: 2048^2 */

static unsigned rng = 12345u;
static float frand(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

/* the reference at s moved one ulp either way along each axis differs from `lit` by over 1/255 */
static bool fragile_at(const izb_pcss *p, const float s[3], const float g[2], int rot, float lit)
{
    for (int a = 0; a < 3; a++)
        for (int sign = -1; sign <= 1; sign += 2) {
            float t[3] = {s[0], s[1], s[2]};
            t[a] = nextafterf(t[a], sign * INFINITY);
            if (fabsf(izb_pcss_lit(p, map, t, g, rot) - lit) * 255.0f > 1.0f) return true;
        }
    return false;
}

static bool map_frame(render *r, const camera *c, const light *l, shadow_map_desc d)
{
    char err[512];
    bool ok = render_set_shadow_map(r, &d, err, sizeof err) &&
              render_set_shadow_mode(r, SHADOW_MODE_MAP, err, sizeof err);
    CHECK(ok, "map settings: %s", err);
    return ok && render_frame(r, &(render_frame_desc){.cam = c, .light = l});
}

/* a camera near the scene's own, turned a little */
static camera random_camera(const scene *s)
{
    camera cam = {.pos = {s->cam_pos[0] + frand(-1.0f, 1.0f), s->cam_pos[1] + frand(-0.3f, 0.5f),
                          s->cam_pos[2] + frand(-1.0f, 1.0f)},
                  .yaw = s->cam_yaw + frand(-25.0f, 25.0f),
                  .pitch = s->cam_pitch + frand(-10.0f, 5.0f)};
    camera_fit_clip(&cam, s->bounds_min, s->bounds_max);
    return cam;
}

static void compare_view(render *r, const camera *c, const light *l, int size, const char *what, int k);

/* one generated view: the shader's mask against the reference */
static void check_view(render *r, const scene *s, const char *what, int k)
{
    const float el = frand(35.0f, 75.0f) * 0.017453293f, az = frand(0.0f, 6.2831853f);
    light l = {.type = LIGHT_DIRECTIONAL,
               .dir = {cosf(el) * cosf(az), -sinf(el), cosf(el) * sinf(az)},
               .angle_deg = expf(frand(logf(0.5f), logf(IZB_SOFT_MAX_ANGLE_DEG)))};
    camera cam = random_camera(s);
    compare_view(r, &cam, &l, k % 2 ? 1024 : 2048, what, k);
}

/* one generated area-light view: a spot near the scene's light position, aimed at its centre, with an
 * emitter of 1 .. 8 % of the bounds' diagonal a side (W != H), either shape */
static void check_area_view(render *r, const scene *s, const char *what, int k)
{
    float diag = 0.0f;
    for (int a = 0; a < 3; a++)
        diag += (s->bounds_max[a] - s->bounds_min[a]) * (s->bounds_max[a] - s->bounds_min[a]);
    diag = sqrtf(diag);
    light l = {.type = LIGHT_SPOT,
               .cone_deg = frand(50.0f, 80.0f),
               .size = {diag * frand(0.01f, 0.08f), diag * frand(0.01f, 0.08f)},
               .shape = k % 2 ? IZB_AREA_DISK : IZB_AREA_RECT};
    for (int a = 0; a < 3; a++) {
        l.pos[a] = s->light_pos[a] + frand(-0.05f, 0.05f) * diag;
        l.dir[a] = 0.5f * (s->bounds_min[a] + s->bounds_max[a]) - l.pos[a];
    }
    camera cam = random_camera(s);
    compare_view(r, &cam, &l, k % 2 ? 2048 : 1024, what, k);
}

/* The probe's receiver-plane slope against the map coordinates themselves: between pixel i and
 * i + STEP to the right and up, where both were filtered and carry the same slope (one face, as far
 * as can be told), the change of s.z is the slope times the change of s.u, s.v — whatever matrix,
 * orthographic or perspective (a plane stays a plane under both). Returns the share of such pairs
 * that agree within 2 %, and counts them into *pairs. */
enum { STEP = 3 };
static double slope_agreement(long *pairs)
{
    long n = 0, agree = 0;
    for (int i = 0; i < W * H; i++) {
        const int x = i % W, y = i / W;
        for (int d = 0; d < 2; d++) {
            const int j = d ? i + STEP * W : i + STEP;
            if ((d ? y + STEP >= H : x + STEP >= W) || coord[4 * i + 3] != 1.0f || coord[4 * j + 3] != 1.0f)
                continue;
            const float *gi = slope + 2 * i, *gj = slope + 2 * j;
            const double gl = hypot(gi[0], gi[1]);
            if (hypot(gi[0] - gj[0], gi[1] - gj[1]) > 1e-3 * gl + 1e-6 || gl >= 8.0)
                continue; /* not one face, clamped */
            const double du = (double)coord[4 * j] - coord[4 * i],
                         dv = (double)coord[4 * j + 1] - coord[4 * i + 1],
                         dz = (double)coord[4 * j + 2] - coord[4 * i + 2], pred = gi[0] * du + gi[1] * dv;
            if (fabs(pred) < 1e-5) continue; /* below the float depths' resolution near 1 */
            n++;
            agree += fabs(dz - pred) <= 0.02 * fabs(pred);
        }
    }
    *pairs = n;
    return n ? (double)agree / (double)n : 0.0;
}

/* light l's PCSS mask from the shader against the reference over the read-back map */
static void compare_view(render *r, const camera *c, const light *l, int size, const char *what, int k)
{
    const camera cam = *c;
    CHECK(map_frame(r, &cam, l, (shadow_map_desc){.size = size, .pcss = true}), "%s %d: frame", what, k);
    render_read_shadow_map_mask(r, mask);
    CHECK(shadow_map_read_probe(r, coord, slope), "%s %d: probe", what, k);
    CHECK(shadow_map_read_depths(r, map) == size, "%s %d: map read-back", what, k);
    izb_pcss p;
    shadow_map_pcss_params(r, l, &p);
    CHECK(p.size == size && p.ku > 0.0f, "%s %d: parameters", what, k);
    if (l->type == LIGHT_SPOT) /* the search disk's reach at the far plane, in map units */
        printf("%s %d: area k %.4g, %.4g, z0 %.6f: search radius at most %.3g, %.3g\n", what, k, (double)p.ku,
               (double)p.kv, (double)p.z0, (double)(p.ku * (1.0f - p.z0)), (double)(p.kv * (1.0f - p.z0)));

    long filtered = 0, penumbra = 0, fragile = 0, fragile_differ = 0, wrong = 0, worst = 0;
    for (int i = 0; i < W * H; i++) {
        if (coord[4 * i + 3] != 1.0f) continue;
        filtered++;
        const int rot = izb_pcss_rotation(i % W, i / W);
        const float lit = izb_pcss_lit(&p, map, coord + 4 * i, slope + 2 * i, rot);
        const long want = lroundf(lit * 255.0f), diff = labs((long)mask[i] - want);
        penumbra += lit > 0.0f && lit < 1.0f;
        if (fragile_at(&p, coord + 4 * i, slope + 2 * i, rot, lit)) {
            fragile++;
            fragile_differ += diff > 1;
            continue;
        }
        if (diff > 1) {
            if (wrong < 5)
                fprintf(stderr, "  pixel %d: shader %u, reference %ld (s %.7g %.7g %.7g)\n", i, mask[i], want,
                        (double)coord[4 * i], (double)coord[4 * i + 1], (double)coord[4 * i + 2]);
            wrong++;
        }
        if (diff > worst) worst = diff;
    }
    printf("%s %d: %s %.3g x %.3g, map %d: %ld pixels filtered, %ld in penumbra, %ld near a tie (%ld of them "
           "differ), %ld others differ (worst %ld/255)\n",
           what, k, l->type == LIGHT_SPOT ? "area" : "angle",
           (double)(l->type == LIGHT_SPOT ? l->size[0] : l->angle_deg),
           (double)(l->type == LIGHT_SPOT ? l->size[1] : 0.0f), size, filtered, penumbra, fragile,
           fragile_differ, wrong, worst);
    CHECK(filtered > W * H / 5 && penumbra > 50, "%s %d: a soft view (%ld filtered, %ld penumbra)", what, k,
          filtered, penumbra);
    CHECK(wrong == 0, "%s %d: %ld pixels differ from the reference by more than 1/255", what, k, wrong);
    long pairs;
    const double agree = slope_agreement(&pairs);
    printf("%s %d: receiver slope vs the map coordinates' own change: %.1f%% of %ld pixel pairs agree\n",
           what, k, 100.0 * agree, pairs);
    /* the rest: pairs across an edge that have the same slope (a cube's parallel faces), a ulp of z */
    CHECK(pairs > 1000 && agree > 0.95, "%s %d: the receiver slope is s's own (%.1f%% of %ld pairs)", what, k,
          100.0 * agree, pairs);
    CHECK(fragile <= FRAGILE_MAX * (double)filtered, "%s %d: %ld pixels near a tie", what, k, fragile);
}

/* angle 0: PCSS on draws the hard map (or PCF) bit for bit and filters nothing */
static void check_angle0(render *r, const scene *s)
{
    light l = {.type = LIGHT_DIRECTIONAL, .dir = {s->light_dir[0], s->light_dir[1], s->light_dir[2]}};
    camera cam = {
        .pos = {s->cam_pos[0], s->cam_pos[1], s->cam_pos[2]}, .yaw = s->cam_yaw, .pitch = s->cam_pitch};
    camera_fit_clip(&cam, s->bounds_min, s->bounds_max);
    for (int pcf = 0; pcf < 2; pcf++) {
        CHECK(map_frame(r, &cam, &l, (shadow_map_desc){.size = 1024, .pcf = pcf, .pcss = true}), "angle 0");
        CHECK(render_shadow_map_settings(r).pcss, "the setting is kept");
        render_read_shadow_map_mask(r, mask);
        CHECK(shadow_map_read_probe(r, coord, slope), "probe");
        long filtered = 0, shadow = 0;
        for (int i = 0; i < W * H; i++)
            filtered += coord[4 * i + 3] != 0.0f, shadow += mask[i] < 255;
        CHECK(map_frame(r, &cam, &l, (shadow_map_desc){.size = 1024, .pcf = pcf}), "angle 0, PCSS off");
        render_read_shadow_map_mask(r, mask2);
        CHECK(filtered == 0 && shadow > W * H / 50 && memcmp(mask, mask2, sizeof mask) == 0,
              "angle 0%s: PCSS on equals off (%ld filtered, %ld shadowed)", pcf ? " PCF" : "", filtered,
              shadow);
    }
    /* the rule the renderer and the app share */
    const shadow_map_desc on = {.pcss = true}, off = {0};
    light soft = l, widest = l, spot = {.type = LIGHT_SPOT, .angle_deg = 2.0f};
    soft.angle_deg = 2.0f;
    widest.angle_deg = IZB_SOFT_MAX_ANGLE_DEG;
    CHECK(shadow_map_uses_pcss(&on, &soft) && shadow_map_uses_pcss(&on, &widest) &&
              !shadow_map_uses_pcss(&off, &soft) && !shadow_map_uses_pcss(&on, &l) &&
              !shadow_map_uses_pcss(&on, &spot),
          "PCSS: on, a directional light, an angle in (0, max]");
    /* area lights: a spot with a size, either side; bad sides (the app and the IZB refuse them) and
     * size 0, 0: the hard spot */
    light area = spot;
    area.size[0] = 0.5f;
    CHECK(shadow_map_uses_pcss(&on, &area) && !shadow_map_uses_pcss(&off, &area), "PCSS: an area light");
    area.size[0] = 0.0f, area.size[1] = 0.5f;
    CHECK(shadow_map_uses_pcss(&on, &area), "PCSS: an area light of width 0");
    const float bad_side[5] = {-1.0f, NAN, INFINITY, IZB_AREA_MAX_SIZE * 1.01f, 0.0f};
    for (int i = 0; i < 5; i++) {
        light b = spot;
        b.size[0] = bad_side[i], b.size[1] = i == 4 ? 0.0f : 0.5f;
        CHECK(!shadow_map_uses_pcss(&on, &b), "area side %g: the hard spot", (double)bad_side[i]);
    }
    /* bad angles (the app and the IZB refuse them): the hard map */
    const float bad[5] = {-1.0f, NAN, INFINITY, IZB_SOFT_MAX_ANGLE_DEG * 1.01f, 1e30f};
    for (int i = 0; i < 5; i++) {
        light b = l;
        b.angle_deg = bad[i];
        CHECK(!shadow_map_uses_pcss(&on, &b), "angle %g: the hard map", (double)bad[i]);
    }
}

/* an area light of size 0, 0 with PCSS on is today's spot map (and PCF) byte for byte, no pixel
 * filtered; with a size, PCSS on filters and differs */
static void check_area_size0(render *r, const scene *s)
{
    light l = {.type = LIGHT_SPOT, .cone_deg = 60.0f};
    for (int a = 0; a < 3; a++) {
        l.pos[a] = s->light_pos[a];
        l.dir[a] = 0.5f * (s->bounds_min[a] + s->bounds_max[a]) - l.pos[a];
    }
    camera cam = {
        .pos = {s->cam_pos[0], s->cam_pos[1], s->cam_pos[2]}, .yaw = s->cam_yaw, .pitch = s->cam_pitch};
    camera_fit_clip(&cam, s->bounds_min, s->bounds_max);
    for (int pcf = 0; pcf < 2; pcf++) {
        CHECK(map_frame(r, &cam, &l, (shadow_map_desc){.size = 1024, .pcf = pcf, .pcss = true}), "spot");
        render_read_shadow_map_mask(r, mask);
        CHECK(shadow_map_read_probe(r, coord, slope), "probe");
        long filtered = 0, shadow = 0;
        for (int i = 0; i < W * H; i++)
            filtered += coord[4 * i + 3] != 0.0f, shadow += mask[i] < 255;
        CHECK(map_frame(r, &cam, &l, (shadow_map_desc){.size = 1024, .pcf = pcf}), "spot, PCSS off");
        render_read_shadow_map_mask(r, mask2);
        CHECK(filtered == 0 && shadow > W * H / 50 && memcmp(mask, mask2, sizeof mask) == 0,
              "spot size 0%s: PCSS on equals off (%ld filtered, %ld shadowed)", pcf ? " PCF" : "", filtered,
              shadow);
    }
    l.size[0] = l.size[1] = 0.5f;
    CHECK(map_frame(r, &cam, &l, (shadow_map_desc){.size = 1024, .pcss = true}), "area light");
    render_read_shadow_map_mask(r, mask);
    long differ = 0;
    for (int i = 0; i < W * H; i++)
        differ += mask[i] != mask2[i];
    CHECK(differ > 50, "an area light's PCSS differs from the hard spot (%ld pixels)", differ);
}

/* several lights in the map mode: a soft light i > 0 gets PCSS in its own layer, equal to its frame
 * alone, beside a hard light 0 */
static void check_lights(render *r, const scene *s)
{
    light hard = {.type = LIGHT_DIRECTIONAL, .dir = {0.6f, -1.0f, 0.3f}};
    light soft = {.type = LIGHT_DIRECTIONAL,
                  .dir = {s->light_dir[0], s->light_dir[1], s->light_dir[2]},
                  .angle_deg = 6.0f};
    camera cam = {
        .pos = {s->cam_pos[0], s->cam_pos[1], s->cam_pos[2]}, .yaw = s->cam_yaw, .pitch = s->cam_pitch};
    camera_fit_clip(&cam, s->bounds_min, s->bounds_max);
    char err[256];
    CHECK(render_set_shadow_map(r, &(shadow_map_desc){.size = 1024, .pcss = true}, err, sizeof err) &&
              render_set_shadow_mode(r, SHADOW_MODE_MAP, err, sizeof err),
          "lights: %s", err);
    const light_set two = {.count = 2, .l = {hard, soft}, .intensity = {1.0f, 1.0f}};
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .lights = &two}), "two lights");
    render_read_light_mask(r, 1, mask);
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = &soft}), "the soft light alone");
    render_read_shadow_map_mask(r, mask2);
    long penumbra = 0;
    for (int i = 0; i < W * H; i++)
        penumbra += mask2[i] > 0 && mask2[i] < 255;
    CHECK(penumbra > 50 && memcmp(mask, mask2, sizeof mask) == 0,
          "the soft light's layer equals its frame alone (%ld penumbra pixels)", penumbra);
}

/* mean |a - b| / 255 over the covered pixels */
static double mae(const uint8_t *a, const uint8_t *b)
{
    double sum = 0.0;
    long n = 0;
    for (int i = 0; i < W * H; i++)
        if (depth[i] > 0.0f) sum += fabs((double)a[i] - (double)b[i]) / 255.0, n++;
    return n ? sum / (double)n : 1.0;
}

/* PCSS is nearer the IZB's exact soft shadows than the hard map: a sun of 5 degrees, and an area
 * light of 0.6 x 0.4 m at the scene's spot position (w x h, either shape) */
static void check_against_izb(render *r, const scene *s, const light *l_in, const char *what)
{
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .quiet = true});
    CHECK(b && izb_set_scene(b, s->xyz, s->tri_count), "CPU backend");
    if (!b) return;
    const light l = *l_in;
    camera cam = {.pos = {-4.0f, 0.9f, -4.6f}, .yaw = -20.0f, .pitch = -45.0f}; /* the fence's shadows */
    camera_fit_clip(&cam, s->bounds_min, s->bounds_max);
    char err[256];
    CHECK(render_set_shadow_mode(r, SHADOW_MODE_IZB, err, sizeof err), "izb: %s", err);
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = &l, .backend = b}), "IZB soft frame");
    render_read_depth(r, depth);
    render_read_mask(r, izb_mask);
    CHECK(map_frame(r, &cam, &l, (shadow_map_desc){.size = 2048, .pcss = true}), "PCSS frame");
    render_read_shadow_map_mask(r, mask);
    CHECK(map_frame(r, &cam, &l, (shadow_map_desc){.size = 2048}), "hard frame");
    render_read_shadow_map_mask(r, mask2);
    const double e_pcss = mae(mask, izb_mask), e_hard = mae(mask2, izb_mask);
    printf("default fence view, %s, map 2048, against the IZB's soft mask (64 samples): mean |error| "
           "PCSS %.4f, hard map %.4f\n",
           what, e_pcss, e_hard);
    CHECK(e_pcss < e_hard, "PCSS (%.4f) nearer the exact soft shadows than the hard map (%.4f)", e_pcss,
          e_hard);
    izb_destroy(b);
}

int main(void)
{
    gl_context ctx;
    gl_test_context(&ctx);
    char err[512];
    render *r = render_create(&(render_desc){.width = W, .height = H}, err, sizeof err);
    CHECK(r != NULL, "render_create: %s", err);
    map = malloc((size_t)2048 * 2048 * sizeof *map);
    CHECK(map != NULL, "out of memory");
    if (!r || !map) return test_done();
    CHECK(render_set_shadow_mode(r, SHADOW_MODE_MAP, err, sizeof err) &&
              shadow_map_set_probe(r, true, err, sizeof err),
          "probe: %s", err);
    const char *scenes[2] = {"builtin:default", "builtin:spheres:10000"};
    for (int k = 0; k < 2; k++) {
        scene s;
        CHECK(scene_load(scenes[k], &s, err, sizeof err), "%s: %s", scenes[k], err);
        CHECK(render_set_scene(r, &s, err, sizeof err), "render_set_scene: %s", err);
        for (int v = 0; v < 2; v++)
            check_view(r, &s, scenes[k], v);
        check_area_view(r, &s, scenes[k], k);
        if (k == 0) {
            check_angle0(r, &s);
            check_area_size0(r, &s);
            const light sun = {.type = LIGHT_DIRECTIONAL,
                               .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]},
                               .angle_deg = 5.0f,
                               .samples = 64};
            light area = {.type = LIGHT_SPOT, .cone_deg = 60.0f, .samples = 64, .size = {0.6f, 0.4f}};
            for (int a = 0; a < 3; a++) {
                area.pos[a] = s.light_pos[a];
                area.dir[a] = 0.5f * (s.bounds_min[a] + s.bounds_max[a]) - area.pos[a];
            }
            check_against_izb(r, &s, &sun, "sun 5 deg");
            check_against_izb(r, &s, &area, "area 0.6 x 0.4 m rect");
            check_lights(r, &s);
        }
        scene_free(&s);
    }
    CHECK(shadow_map_set_probe(r, false, err, sizeof err), "probe off: %s", err);
    free(map);
    render_destroy(r);
    gl_context_shutdown(&ctx);
    return test_done();
}
