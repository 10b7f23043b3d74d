/* test_oracle_cutouts.c — the truth's alpha test (oracle_set_cutouts, issue 18), two ways.
 *
 * 1. Against geometry worked out by hand: a horizontal quad (two triangles) at y = 1 with random
 *    vertex UVs, a random 8x8 alpha image (random texels, wrap and cutoff), and vertical rays up
 *    from random ground points. Which triangle a ray meets and its barycentrics there are computed
 *    here in double from the quad's corners, independently of Embree's u, v; the texel rule is
 *    izb_alpha.h's (one copy of it, house rule). The oracle must say "hit" exactly where the texel
 *    keeps the triangle, at every point farther than 1/256 texel from a texel edge.
 * 2. Against the IZB: builtin:foliage (cut-out cards and fences) at 200x150, CPU backend with the
 *    same cut-outs, depth from the oracle's primary rays (which see through cut-away texels too):
 *    fewer than 0.01% of the covered pixels may differ, not counting those the truth marks unsure
 *    (oracle_shadow_unsure); and the truth without the cut-outs must differ from it on more than 1%
 *    (so that the view actually depends on the alpha test). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_config.h"
#include "scene.h"
#include "test.h"
#define TEST_RNG_SEED 0x5EEDC0DE1818ull
#include "test_rng.h"

#if IZB_HAVE_EMBREE
#include "oracle.h"
#include "scene_cutout.h"

enum { SIDE = 8, RAYS = 3000, QUADS = 24, W = 200, H = 150 };

/* the quad's corners (x, z) at y = 1, counter-clockwise from (-1, -1); triangles (0,1,2), (0,2,3) */
static const double CX[4] = {-1, 1, 1, -1}, CZ[4] = {-1, -1, 1, 1};
static const int TRI[2][3] = {{0, 1, 2}, {0, 2, 3}};

/* barycentrics of (x, z) in the 2D triangle a, b, c; all >= 0 inside */
static void bary(const double a[2], const double b[2], const double c[2], double x, double z, double w[3])
{
    const double d = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
    w[1] = ((x - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (z - a[1])) / d;
    w[2] = ((b[0] - a[0]) * (z - a[1]) - (x - a[0]) * (b[1] - a[1])) / d;
    w[0] = 1.0 - w[1] - w[2];
}

/* distance of texel coordinate c * size to the nearest texel edge */
static double edge_dist(double c, int size)
{
    const double s = c * size;
    return fabs(s - floor(s + 0.5));
}

static void test_hand_quad(void)
{
    long checked = 0, kept = 0, cut = 0, wrong = 0;
    for (int q = 0; q < QUADS; q++) {
        float xyz[18], uv[12];
        double cuv[4][2];
        for (int k = 0; k < 4; k++)
            cuv[k][0] = rnd_in(-2, 3), cuv[k][1] = rnd_in(-2, 3);
        for (int t = 0; t < 2; t++)
            for (int k = 0; k < 3; k++) {
                const int c = TRI[t][k];
                xyz[9 * t + 3 * k] = (float)CX[c], xyz[9 * t + 3 * k + 1] = 1.0f,
                                xyz[9 * t + 3 * k + 2] = (float)CZ[c];
                uv[6 * t + 2 * k] = (float)cuv[c][0], uv[6 * t + 2 * k + 1] = (float)cuv[c][1];
                cuv[c][0] = uv[6 * t + 2 * k], cuv[c][1] = uv[6 * t + 2 * k + 1]; /* as stored */
            }
        uint8_t alpha[SIDE * SIDE];
        for (int i = 0; i < SIDE * SIDE; i++)
            alpha[i] = (uint8_t)(rnd() * 256);
        const izb_alpha_image im = {.alpha = alpha,
                                    .width = SIDE,
                                    .height = SIDE,
                                    .wrap_u = (int)(rnd() * 3),
                                    .wrap_v = (int)(rnd() * 3),
                                    .cutoff = (float)rnd()};
        uint32_t image_of[2] = {0, 0};
        const izb_cutouts c = {
            .images = &im, .image_count = 1, .uv = uv, .image_of = image_of, .tri_count = 2};
        oracle *o = oracle_create(xyz, 2);
        CHECK(o && oracle_set_cutouts(o, &c), "quad %d: oracle with cut-outs", q);
        if (!o) continue;
        const izb_alpha_tex tex = {.offset = 0,
                                   .width = SIDE,
                                   .height = SIDE,
                                   .wrap_u = (uint8_t)im.wrap_u,
                                   .wrap_v = (uint8_t)im.wrap_v,
                                   .threshold = izb_alpha_threshold(im.cutoff)};
        for (int r = 0; r < RAYS; r++) {
            const double x = rnd_in(-0.999, 0.999), z = rnd_in(-0.999, 0.999);
            const int t = x > z ? 0 : 1; /* the diagonal (-1,-1)-(1,1) splits the quad */
            if (fabs(x - z) < 1e-6) continue;
            double w[3], a[3][2];
            for (int k = 0; k < 3; k++)
                a[k][0] = CX[TRI[t][k]], a[k][1] = CZ[TRI[t][k]];
            bary(a[0], a[1], a[2], x, z, w);
            double u = 0, v = 0;
            for (int k = 0; k < 3; k++)
                u += w[k] * cuv[TRI[t][k]][0], v += w[k] * cuv[TRI[t][k]][1];
            if (edge_dist(u, SIDE) < 1.0 / 256 || edge_dist(v, SIDE) < 1.0 / 256) continue;
            const bool want = izb_alpha_keeps(alpha, &tex, (float)u, (float)v);
            const oracle_ray ray = {
                .org = {(float)x, 0.0f, (float)z}, .dir = {0, 1, 0}, .tnear = 0.0f, .tfar = 10.0f};
            float th;
            const long hit = oracle_ray_first_hit(o, &ray, -1, &th);
            checked++;
            kept += want, cut += !want;
            if ((hit >= 0) != want || (want && hit != t)) {
                if (wrong++ < 5)
                    fprintf(stderr, "quad %d: (%.6f, %.6f) uv (%.6f, %.6f): want %s, oracle hit %ld\n", q, x,
                            z, u, v, want ? "hit" : "none", hit);
            }
        }
        oracle_destroy(o);
    }
    CHECK(wrong == 0, "%ld of %ld rays disagree with the hand-made UVs", wrong, checked);
    CHECK(kept > checked / 10 && cut > checked / 10, "both outcomes occur: %ld kept, %ld cut", kept, cut);
}

static void test_foliage_vs_izb(void)
{
    char err[512];
    scene s;
    scene_cutouts sc;
    if (!scene_load("builtin:foliage:300", &s, err, sizeof err) ||
        !scene_cutouts_make(&s, &sc, err, sizeof err)) {
        CHECK(0, "%s", err);
        return;
    }
    const izb_cutouts cv = scene_cutouts_view(&sc);
    oracle *o = oracle_create(s.xyz, s.tri_count);
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .quiet = true});
    CHECK(sc.cut_tris > 0 && o && b && oracle_set_cutouts(o, &cv) && izb_set_scene(b, s.xyz, s.tri_count) &&
              izb_set_cutouts(b, &cv),
          "set up");
    float *depth = test_xcalloc((size_t)W * H, sizeof *depth);
    uint8_t *truth = test_xcalloc((size_t)W * H, 1), *opaque = test_xcalloc((size_t)W * H, 1);
    uint8_t *unsure = test_xcalloc((size_t)W * H, 1), *mask = test_xcalloc((size_t)W * H, 1);
    /* the scene's camera, and one under the bushes looking across the ground */
    const camera cams[2] = {
        {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch},
        {.pos = {0.6f, 2.0f, 3.0f}, .yaw = -15.0f, .pitch = -40.0f}};
    for (int v = 0; o && b && v < 2; v++) {
        camera cam = cams[v];
        camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
        const light l = {.type = LIGHT_DIRECTIONAL, .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}};
        oracle_depth(o, &cam, W, H, depth);
        const izb_recon f = izb_frame_make(&cam, &l, s.bounds_min, s.bounds_max, W, H);
        oracle_shadow_unsure(o, &f, &cam, &l, depth, truth, unsure);
        CHECK(izb_shade_arrays(b, &f, &(izb_settings){0}, depth, mask, NULL), "view %d: IZB", v);
        long covered = 0, wrong = 0, wrong_unsure = 0, flagged = 0;
        for (int i = 0; i < W * H; i++) {
            if (!(depth[i] > 0.0f)) continue;
            covered++;
            flagged += unsure[i];
            if ((mask[i] != 0) != (truth[i] != 0)) unsure[i] ? wrong_unsure++ : wrong++;
        }
        CHECK(covered > W * H / 4 && (double)wrong <= 1e-4 * (double)covered,
              "view %d: IZB vs filtered truth: %ld of %ld covered pixels differ (+%ld near a texel edge)", v,
              wrong, covered, wrong_unsure);
        CHECK(flagged < covered / 50, "view %d: %ld of %ld pixels unsure", v, flagged, covered);
        /* the same truth without the alpha test: the view must depend on it */
        oracle_set_cutouts(o, NULL);
        oracle_shadow(o, &f, &cam, &l, depth, opaque);
        oracle_set_cutouts(o, &cv);
        long differ = 0;
        for (int i = 0; i < W * H; i++)
            differ += depth[i] > 0.0f && (opaque[i] != 0) != (truth[i] != 0);
        CHECK(differ > covered / 100, "view %d: the opaque truth differs on only %ld of %ld pixels", v,
              differ, covered);
        printf("view %d: %ld covered, IZB differs on %ld (+%ld unsure, %ld flagged), opaque truth on %ld\n",
               v, covered, wrong, wrong_unsure, flagged, differ);
    }
    free(depth), free(truth), free(opaque), free(unsure), free(mask);
    izb_destroy(b);
    oracle_destroy(o);
    scene_cutouts_free(&sc);
    scene_free(&s);
}

int main(void)
{
    test_hand_quad();
    test_foliage_vs_izb();
    return test_done();
}
#else
int main(void)
{
    TEST_SKIP("built without Embree");
}
#endif
