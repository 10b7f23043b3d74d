/* test_sample_truth.c — every (point, sample) answer of the CPU backend's soft and anti-aliased
 * frames against its own Embree ray (tools/quality_samples.h: what izb-quality's per-sample views
 * report), on random views: builtin:default from its camera and from a low one, a directional light
 * at a random elevation (12..75 degrees) and azimuth, with and without primitive ids.
 * - Soft: angle 0.3..8 degrees, M = 16 or 64. The IZB's sample directions (izb_soft.h) and the
 *   truth's (sample_rays_soft_dirs, through the light matrix's inverse in double) are two
 *   derivations of one light: a swapped, mirrored or mis-scaled pattern on either side shows up as
 *   whole penumbrae wrong.
 * - Anti-aliased: N = 8 or 32 sub-samples at the footprints sample_rays_aa_axes rebuilds in world
 *   space; the IZB tests them in light clip space (izb_aa.h).
 * - Area lights: a spot at a random place above the scene aimed at its centre, a W x H rectangle
 *   or ellipse (0.1..2.5 world units a side), M = 16 or 64. The IZB works in the spot's clip rows
 *   (izb_area.h's A-space); the truth casts each segment to the sample's world point
 *   (sample_rays_area_points, the affine map inverted in double): a mis-scaled emitter, a swapped
 *   axis or a sample pattern that differs between the two shows as penumbrae wrong.
 * - Point lights, anti-aliased: a light above the scene's centre, N = 32 or 8, its six cube faces;
 *   each pixel's footprint in its owner face's frame (sample_rays_aa_axes_faces), the IZB's answers
 *   from each face's pass (quality_izb_face_bits, which must give the frame's bytes).
 * The two sides agree but for float rounding at shadow edges: at most 0.01% of the answers may
 * differ, and at most 0.005% off the pixels where the light straddles the drawn facet's horizon
 * (quality_soft_horizon: the terminator band, where the receiver bias applied along the light's
 * centre once hid samples the truth reaches, up to 0.5% of a view's answers; izb_soft.h now applies
 * it along each sample's ray, as the truth does); and each view must have real penumbrae (at least
 * 0.5% of its covered pixels partly lit), or it proves nothing. Also the counters
 * (quality_sample_compare) against a count bit by bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_aa.h"
#include "izb_area.h"
#include "izb_config.h"
#include "izb_mask.h"
#include "scene.h"
#include "test.h"
#define TEST_RNG_SEED 0x5A3B1E5EED19ull
#include "test_rng.h"

#if IZB_HAVE_EMBREE
#include "oracle.h"
#include "quality_samples.h"
#include "sample_rays.h"

enum { W = 160, H = 100, VIEWS = 8, AREA_VIEWS = 4, POINT_VIEWS = 2 };

static void test_counters(void)
{
    enum { N = 500, M = 64 };
    uint32_t *a = test_xcalloc(2 * N, sizeof *a), *g = test_xcalloc(2 * N, sizeof *g);
    float *vis = test_xcalloc(N, sizeof *vis);
    long wrong = 0, hidden_only = 0, covered = 0;
    double err = 0.0;
    for (int i = 0; i < N; i++) {
        int ha = 0, hg = 0;
        const bool sky = rnd() < 0.1;
        for (int k = 0; k < M; k++) {
            const int x = rnd() < 0.3, y = rnd() < 0.3;
            a[2 * i + k / 32] |= (uint32_t)x << (k % 32);
            g[2 * i + k / 32] |= (uint32_t)y << (k % 32);
            ha += x, hg += y;
            if (!sky) wrong += x != y, hidden_only += x && !y;
        }
        vis[i] = sky ? -1.0f : 1.0f - (float)hg / M;
        if (!sky) covered++, err += fabs((1.0 - (double)ha / M) - (1.0 - (double)hg / M));
    }
    const quality_sample_counts c = quality_sample_compare(a, NULL, g, vis, NULL, NULL, M, N);
    CHECK(c.covered == covered && c.wrong == wrong && c.false_hidden == hidden_only &&
              c.answers == covered * M,
          "counters: %ld/%ld covered, %ld/%ld wrong, %ld/%ld wrongly hidden", c.covered, covered, c.wrong,
          wrong, c.false_hidden, hidden_only);
    CHECK(fabs(c.abs_err - err / covered) < 1e-6, "mean error %g, counted %g", c.abs_err, err / covered);
    free(a), free(g), free(vis);
}

/* One view's answers against the truth: real penumbrae, few answers that differ (flagged: soft
 * views count the terminator band apart) */
static void check_view(const char *what, const quality_sample_counts *c, const float *vis, bool flagged)
{
    const long away = c->wrong - (flagged ? c->wrong_flagged : 0); /* off the terminator band */
    long partial = 0;
    for (int i = 0; i < W * H; i++)
        partial += vis[i] > 0.0f && vis[i] < 1.0f;
    printf("%s: %ld covered, %ld partly lit, %ld of %ld answers differ (%ld wrongly hidden; %ld where the light "
           "straddles the horizon), mean visibility error %.5f\n",
           what, c->covered, partial, c->wrong, c->answers, c->false_hidden, c->wrong - away, c->abs_err);
    CHECK(c->covered > W * H / 8 && partial * 200 >= c->covered, "%s: %ld covered, %ld partly lit", what, c->covered,
          partial);
    CHECK((double)away <= 5e-5 * (double)c->answers, "%s: %ld of %ld answers differ off the terminator", what, away,
          c->answers);
    CHECK((double)c->wrong <= 1e-4 * (double)c->answers, "%s: %ld of %ld answers differ", what, c->wrong, c->answers);
}

/* builtin:default with its oracle, a CPU backend and the per-pixel buffers both view kinds use */
typedef struct truth_run {
    scene s;
    oracle *o;
    izb_backend *b;
    float *depth, *vis, *axes;
    uint32_t *ids, *izb_bits, *truth_bits;
    uint8_t *mask, *flag;
} truth_run;

static bool run_open(truth_run *r)
{
    char err[512];
    if (!scene_load("builtin:default", &r->s, err, sizeof err)) {
        CHECK(false, "%s", err);
        return false;
    }
    r->o = oracle_create(r->s.xyz, r->s.tri_count);
    r->b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .quiet = true});
    r->depth = test_xcalloc(W * H, sizeof *r->depth), r->vis = test_xcalloc(W * H, sizeof *r->vis);
    r->axes = test_xcalloc(6 * W * H, sizeof *r->axes);
    r->ids = test_xcalloc(W * H, sizeof *r->ids);
    r->izb_bits = test_xcalloc((size_t)W * H * IZB_MASK_MAX_WORDS, sizeof *r->izb_bits);
    r->truth_bits = test_xcalloc((size_t)W * H * IZB_MASK_MAX_WORDS, sizeof *r->truth_bits);
    r->mask = test_xcalloc(W * H, 1), r->flag = test_xcalloc(W * H, 1);
    const bool ok = r->o && r->b && izb_set_scene(r->b, r->s.xyz, r->s.tri_count);
    CHECK(ok, "oracle and CPU backend");
    return ok;
}

static void run_close(truth_run *r)
{
    free(r->depth), free(r->vis), free(r->axes), free(r->ids), free(r->izb_bits), free(r->truth_bits);
    free(r->mask), free(r->flag);
    izb_destroy(r->b);
    oracle_destroy(r->o);
    scene_free(&r->s);
}

static void test_views(truth_run *r)
{
    const scene s = r->s;
    oracle *o = r->o;
    izb_backend *b = r->b;
    float *depth = r->depth, *vis = r->vis, *axes = r->axes;
    uint32_t *ids = r->ids, *izb_bits = r->izb_bits, *truth_bits = r->truth_bits;
    uint8_t *mask = r->mask, *flag = r->flag;
    for (int v = 0; o && b && v < VIEWS; v++) {
        camera cam = {
            .pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
        if (v % 2) /* low, looking across the ground at the objects' feet */
            cam.pos[1] = 0.6f, cam.pitch = -8.0f;
        camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
        const double el = rnd_in(12.0, 75.0) * M_PI / 180.0, az = rnd_in(0.0, 2.0 * M_PI);
        light l = {.type = LIGHT_DIRECTIONAL,
                   .dir = {(float)(cos(el) * sin(az)), (float)-sin(el), (float)(cos(el) * cos(az))}};
        const bool with_ids = v % 4 >= 2, soft = v % 8 < 4;
        oracle_depth_ids(o, &cam, W, H, depth, ids);
        int m;
        if (soft) {
            l.angle_deg = (float)rnd_in(0.3, 8.0);
            l.samples = m = rnd() < 0.5 ? 16 : 64;
        } else {
            m = rnd() < 0.5 ? 8 : 32;
        }
        izb_recon f = izb_frame_make(&cam, &l, s.bounds_min, s.bounds_max, W, H);
        f.shadow_samples = soft ? 0 : m;
        izb_debug d;
        const bool shaded =
            izb_shade_arrays_ids(b, &f, &(izb_settings){0}, depth, with_ids ? ids : NULL, mask, NULL) &&
            izb_get_debug(b, &d) && d.sample_bits == m && quality_izb_bits(&d, W * H, izb_bits);
        CHECK(shaded, "view %d: the IZB frame and its sample masks", v);
        if (!shaded) continue;
        if (soft) {
            quality_truth_soft(o, &f, &cam, &l, depth, truth_bits, vis);
            quality_soft_horizon(&f, &cam, &l, depth, ids, s.xyz, s.tri_count, W * H, flag);
        } else {
            izb_aa_samples S;
            izb_aa_samples_make(m, &S);
            sample_rays_aa_axes(&f, &cam, depth, with_ids ? ids : NULL, s.xyz, s.tri_count, axes);
            quality_truth_aa(o, &f, &cam, &l, depth, axes, S.u, S.v, m, truth_bits, vis);
        }
        const quality_sample_counts c =
            quality_sample_compare(izb_bits, mask, truth_bits, vis, NULL, soft ? flag : NULL, m, W * H);
        char what[128];
        snprintf(what, sizeof what, "view %d (%s %d, %s ids, elevation %.0f deg)", v, soft ? "soft M" : "aa N", m,
                 with_ids ? "with" : "no", el * 180.0 / M_PI);
        check_view(what, &c, vis, soft);
    }
}

/* Area lights: random spots with random emitters over builtin:default */
static void test_area_views(truth_run *r)
{
    const scene s = r->s;
    oracle *o = r->o;
    izb_backend *b = r->b;
    float *depth = r->depth, *vis = r->vis;
    uint32_t *ids = r->ids, *izb_bits = r->izb_bits, *truth_bits = r->truth_bits;
    uint8_t *mask = r->mask, *flag = r->flag;
    for (int v = 0; o && b && v < AREA_VIEWS; v++) {
        camera cam = {
            .pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
        camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
        light l = {.type = LIGHT_SPOT, .cone_deg = 90.0f, .samples = rnd() < 0.5 ? 16 : 64,
                   .shape = rnd() < 0.5 ? IZB_AREA_RECT : IZB_AREA_DISK,
                   .size = {(float)rnd_in(0.1, 2.5), (float)rnd_in(0.1, 2.5)}};
        const double el = rnd_in(35.0, 75.0) * M_PI / 180.0, az = rnd_in(0.0, 2.0 * M_PI), dist = rnd_in(8.0, 14.0);
        float centre[3];
        for (int k = 0; k < 3; k++)
            centre[k] = 0.5f * (s.bounds_min[k] + s.bounds_max[k]);
        l.pos[0] = centre[0] + (float)(dist * cos(el) * sin(az));
        l.pos[1] = centre[1] + (float)(dist * sin(el));
        l.pos[2] = centre[2] + (float)(dist * cos(el) * cos(az));
        for (int k = 0; k < 3; k++)
            l.dir[k] = centre[k] - l.pos[k];
        const bool with_ids = v % 2;
        oracle_depth_ids(o, &cam, W, H, depth, ids);
        const izb_recon f = izb_frame_make(&cam, &l, s.bounds_min, s.bounds_max, W, H);
        izb_debug d;
        const bool shaded =
            izb_area_on(&f) &&
            izb_shade_arrays_ids(b, &f, &(izb_settings){0}, depth, with_ids ? ids : NULL, mask, NULL) &&
            izb_get_debug(b, &d) && d.sample_bits == l.samples && quality_izb_bits(&d, W * H, izb_bits);
        CHECK(shaded, "area view %d: the IZB frame and its sample masks", v);
        if (!shaded) continue;
        quality_truth_soft(o, &f, &cam, &l, depth, truth_bits, vis);
        quality_soft_horizon(&f, &cam, &l, depth, ids, s.xyz, s.tri_count, W * H, flag);
        const quality_sample_counts c =
            quality_sample_compare(izb_bits, mask, truth_bits, vis, NULL, flag, l.samples, W * H);
        char what[160];
        snprintf(what, sizeof what, "area view %d (%s %.2f x %.2f, M %d, %s ids, elevation %.0f deg)", v,
                 l.shape == IZB_AREA_DISK ? "disk" : "rect", (double)l.size[0], (double)l.size[1], l.samples,
                 with_ids ? "with" : "no", el * 180.0 / M_PI);
        check_view(what, &c, vis, true);
    }
}

/* Anti-aliased point lights: a light above the scene's centre, its six cube faces; the IZB's answers
 * per face (quality_izb_face_bits, which must give the frame's bytes) against the sub-sample rays
 * from the footprints sample_rays_aa_axes_faces rebuilds (each pixel's in its owner face's frame) */
static void test_point_views(truth_run *r)
{
    const scene s = r->s;
    static uint8_t scratch[W * H];
    for (int v = 0; r->o && r->b && v < POINT_VIEWS; v++) {
        camera cam = {
            .pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
        camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
        light l = {.type = LIGHT_POINT};
        for (int k = 0; k < 3; k++)
            l.pos[k] = 0.5f * (s.bounds_min[k] + s.bounds_max[k]) + (float)rnd_in(-2.0, 2.0);
        l.pos[1] = (float)rnd_in(2.5, 4.0);
        const bool with_ids = v % 2;
        const int m = v % 2 ? 8 : 32;
        const uint32_t *ids = with_ids ? r->ids : NULL;
        oracle_depth_ids(r->o, &cam, W, H, r->depth, r->ids);
        izb_recon faces[LIGHT_CUBE_FACES];
        const int count = izb_frame_make_faces(&cam, &l, s.bounds_min, s.bounds_max, W, H, faces);
        for (int i = 0; i < count; i++)
            faces[i].shadow_samples = m;
        long differ = -1;
        const bool shaded =
            izb_shade_arrays_faces(r->b, faces, count, &(izb_settings){0}, r->depth, ids, r->mask, scratch, NULL) &&
            quality_izb_face_bits(r->b, faces, count, m, r->depth, ids, r->mask, W * H, r->izb_bits, &differ);
        CHECK(shaded && differ == 0, "point view %d: the IZB frame and its faces' sample masks (%ld bytes differ)", v,
              differ);
        if (!shaded) continue;
        izb_aa_samples S;
        izb_aa_samples_make(m, &S);
        sample_rays_aa_axes_faces(faces, count, &cam, r->depth, ids, s.xyz, s.tri_count, r->axes);
        quality_truth_aa(r->o, &faces[0], &cam, &l, r->depth, r->axes, S.u, S.v, m, r->truth_bits, r->vis);
        const quality_sample_counts c =
            quality_sample_compare(r->izb_bits, r->mask, r->truth_bits, r->vis, NULL, NULL, m, W * H);
        char what[160];
        snprintf(what, sizeof what, "point view %d (aa N %d, %s ids, light at %.1f, %.1f, %.1f)", v, m,
                 with_ids ? "with" : "no", (double)l.pos[0], (double)l.pos[1], (double)l.pos[2]);
        check_view(what, &c, r->vis, false);
    }
}

int main(void)
{
    test_counters();
    truth_run r = {0};
    if (run_open(&r)) {
        test_views(&r);
        test_area_views(&r);
        test_point_views(&r);
    }
    run_close(&r);
    return test_done();
}
#else
int main(void)
{
    TEST_SKIP("built without Embree");
}
#endif
