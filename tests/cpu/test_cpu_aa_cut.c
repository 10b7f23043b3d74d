/* test_cpu_aa_cut.c — cut-out (alpha-tested) triangles in anti-aliased frames (izb_aa.h's
 * izb_aa_sample_keeps, the CPU backend's kernels_aa.h): a cut-out hides a sub-sample only where the
 * alpha test keeps it at that sub-sample's own position.
 *  (a) izb_aa_sample_keeps against an independent double-precision computation: on random set-up
 *      triangles (directional light: affine barycentrics) and random footprints, the sub-sample's
 *      position, its barycentrics from the vertices, its UV and texel (repeat wrap) in double; every
 *      sample not within 1e-3 texels of a texel edge must get the double's answer. The textures'
 *      texels are much smaller than the footprints, so a UV taken at the pixel's centre instead
 *      of the sub-sample's gives another texel on most samples (counted: the case must bite);
 *  (b) the backend's byte EQUALS the brute force with the per-sub-sample alpha test
 *      (izb_brute_force_aa_cut, tests/izb_brute.h) on random cut-out scenes (tests/cutout_gen.h:
 *      cards with random alpha textures, wraps, cutoffs, NaN UVs; directional and grazing lights),
 *      N in {4, 8, 16, 32}, kernel 1/2 x radix/atomic x ids on/off, 1 and 3 threads; the alpha test
 *      must change the brute force's mask (versus every card opaque) on most seeds, and after
 *      izb_set_cutouts(NULL) the backend gives the opaque brute force's bytes.
 * IZB_AA_CUT_SEEDS=N runs N seeds (default DEFAULT_SEEDS), IZB_AA_CUT_SEED=K the one seed K. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutout_gen.h"
#include "differential_gen.h"
#include "izb.h"
#include "izb_aa.h"
#include "izb_brute.h"
#include "izb_closed.h"
#include "izb_cutouts.h"
#include "ray_cast.h"
#include "test.h"

#define DEFAULT_SEEDS 40

static const int counts[4] = {4, 8, 16, 32};

/* ---- (a) the per-sub-sample UV against double barycentrics --------------------------------- */

static void check_sample_keeps(void)
{
    enum { TW = 8, TH = 8 };
    uint8_t alpha[TW * TH];
    for (int i = 0; i < TW * TH; i++)
        alpha[i] = (uint8_t)(rnd() * 256);
    const izb_alpha_tex tex = {.offset = 0, .width = TW, .height = TH, .wrap_u = IZB_WRAP_REPEAT,
                               .wrap_v = IZB_WRAP_REPEAT, .threshold = 128};
    izb_aa_samples S;
    izb_aa_samples_make(32, &S);
    const izb_bbox all = {-1e30f, -1e30f, 1e30f, 1e30f};
    const izb_grid g = izb_grid_make((izb_bbox){-1.0f, -1.0f, 1.0f, 1.0f}, 1, 4, 4);
    long tested = 0, wrong = 0, centre_differs = 0;
    for (int it = 0; it < 3000; it++) {
        const double scale = pow(10.0, rnd_in(-2.0, 2.0)), off = rnd_in(-2.0, 2.0) * scale;
        float v[3][4];
        double V[3][2];
        for (int k = 0; k < 3; k++) {
            v[k][0] = (float)(off + rnd_in(-1.0, 1.0) * scale), v[k][1] = (float)(off + rnd_in(-1.0, 1.0) * scale);
            v[k][2] = (float)rnd_in(0.0, 1.0), v[k][3] = 1.0f;
            V[k][0] = v[k][0], V[k][1] = v[k][1];
        }
        izb_tri t;
        if (!izb_tri_setup(v, &g, &all, false, &t)) continue;
        const double det = (V[1][0] - V[0][0]) * (V[2][1] - V[0][1]) - (V[2][0] - V[0][0]) * (V[1][1] - V[0][1]);
        if (fabs(det) < 1e-3 * scale * scale) continue; /* a sliver: its barycentrics are ill-conditioned */
        float uv[6];
        for (int k = 0; k < 6; k++)
            uv[k] = (float)rnd_in(-6.0, 6.0); /* ~ several texels across the footprint */
        /* a point inside, a footprint of 1/20 .. 1/4 of the triangle's size */
        double w0 = rnd(), w1 = rnd() * (1.0 - w0);
        const double w[3] = {w0, w1, 1.0 - w0 - w1};
        const float x = (float)(w[0] * V[0][0] + w[1] * V[1][0] + w[2] * V[2][0]);
        const float y = (float)(w[0] * V[0][1] + w[1] * V[1][1] + w[2] * V[2][1]);
        const double fs = scale * rnd_in(0.05, 0.25);
        izb_aa_foot f = {.a = {(float)(fs * rnd_in(-1, 1)), (float)(fs * rnd_in(-1, 1)), 0.0f},
                         .b = {(float)(fs * rnd_in(-1, 1)), (float)(fs * rnd_in(-1, 1)), 0.0f}};
        float uc, vc; /* the pixel centre's UV, for the bite count */
        izb_alpha_uv(&t, x, y, uv, &uc, &vc);
        for (int k = 0; k < S.n; k++) {
            const double sx = (double)x + (double)S.u[k] * f.a[0] + (double)S.v[k] * f.b[0];
            const double sy = (double)y + (double)S.u[k] * f.a[1] + (double)S.v[k] * f.b[1];
            /* affine barycentrics of (sx, sy) (an orthographic light: w = 1 at every vertex) */
            const double b1 = ((sx - V[0][0]) * (V[2][1] - V[0][1]) - (V[2][0] - V[0][0]) * (sy - V[0][1])) / det;
            const double b2 = ((V[1][0] - V[0][0]) * (sy - V[0][1]) - (sx - V[0][0]) * (V[1][1] - V[0][1])) / det;
            const double b0 = 1.0 - b1 - b2;
            if (b0 < 1e-6 || b1 < 1e-6 || b2 < 1e-6) continue; /* outside: never alpha-tested */
            const double su = (b0 * uv[0] + b1 * uv[2] + b2 * uv[4]) * TW, sv = (b0 * uv[1] + b1 * uv[3] + b2 * uv[5]) * TH;
            if (fabs(su - floor(su + 0.5)) < 1e-3 || fabs(sv - floor(sv + 0.5)) < 1e-3) continue;
            const int col = (int)(((long long)floor(su) % TW + TW) % TW), row = (int)(((long long)floor(sv) % TH + TH) % TH);
            const bool want = alpha[row * TW + col] >= tex.threshold;
            const bool got = izb_aa_sample_keeps(&t, x, y, &f, S.u[k], S.v[k], uv, alpha, &tex);
            tested++;
            if (got != want && wrong++ < 5)
                fprintf(stderr, "(a) it %d sample %d: keeps %d, double says %d (texel %d, %d)\n", it, k, got, want,
                        col, row);
            centre_differs += izb_alpha_keeps(alpha, &tex, uc, vc) != want;
            /* the word form names the same samples */
            const uint32_t bit = 1u << k;
            CHECK(izb_aa_keep_bits(&t, x, y, &f, &S, bit, uv, alpha, &tex) == (got ? bit : 0u),
                  "(a) it %d sample %d: izb_aa_keep_bits disagrees with izb_aa_sample_keeps", it, k);
        }
    }
    CHECK(wrong == 0, "(a) izb_aa_sample_keeps: %ld of %ld samples wrong", wrong, tested);
    CHECK(tested > 20000 && centre_differs * 5 > tested,
          "(a) %ld samples tested, the centre's UV differs on %ld: the case does not test per-sample UVs", tested,
          centre_differs);
    fprintf(stderr, "(a) %ld samples, the pixel centre's texel answers differently on %ld\n", tested, centre_differs);
}

/* ---- (b) the backend against the brute force ----------------------------------------------- */


static long seeds_bite, seeds_partial_cut;

static void run_seed(izb_backend *b1, izb_backend *b3, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!rng_state) rng_state = 1;
    for (int k = 0; k < 4; k++) (void)rnd();
    static cut_scene s;
    cut_gen_scene(&s);
    const light l = cut_gen_light(&s, rnd() < 0.75 ? CUT_L_DIR : CUT_L_GRAZE);
    const camera cam = cut_gen_camera(s.bmin, s.bmax);
    const int W = 24 + (int)(rnd() * 25), H = 18 + (int)(rnd() * 19), N = W * H;
    izb_recon f = izb_frame_make(&cam, &l, s.bmin, s.bmax, W, H);
    f.shadow_samples = counts[seed % 4];
    static float depth[MAX_W * MAX_H];
    static uint32_t ids[MAX_W * MAX_H];
    ray_cast_depth(&cam, &f, s.xyz, s.nt, depth, ids);
    const unsigned long long sd = (unsigned long long)seed;

    izb_closed cl;
    CHECK(izb_closed_find(s.xyz, s.nt, &cl), "seed %llu: closed analysis", sd);
    const izb_cutouts co = cut_cutouts_of(&s);
    CHECK(izb_set_scene(b1, s.xyz, s.nt) && izb_set_scene(b3, s.xyz, s.nt), "seed %llu: set_scene", sd);
    CHECK(izb_set_cutouts(b1, &co) && izb_set_cutouts(b3, &co), "seed %llu: set_cutouts", sd);
    izb_cutout_set set;
    CHECK(izb_cutout_set_build(&set, &co, s.nt, "test"), "seed %llu: cutout set", sd);

    const izb_settings rs = izb_settings_resolve((izb_settings){0});
    izb_recon fb = f;
    fb.bias = rs.bias;
    const izb_cull_view cv = {.mode = rs.cull, .comp = cl.comp, .boxes = cl.boxes};
    static uint8_t want[2][MAX_W * MAX_H], opaque[2][MAX_W * MAX_H], got[MAX_W * MAX_H];
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    bool bite = false, partial = false;
    for (int with_ids = 0; with_ids < 2; with_ids++) {
        const uint32_t *id = with_ids ? ids : NULL;
        izb_brute_force_aa_cut(&fb, depth, id, s.xyz, s.nt, &cv, true, &set, want[with_ids], pts, pix);
        izb_brute_force_aa_cut(&fb, depth, id, s.xyz, s.nt, &cv, true, NULL, opaque[with_ids], pts, pix);
        for (int i = 0; i < N; i++) {
            bite |= want[with_ids][i] != opaque[with_ids][i];
            partial |= want[with_ids][i] != opaque[with_ids][i] && want[with_ids][i] > 0 && want[with_ids][i] < 255;
        }
    }
    seeds_bite += bite;
    seeds_partial_cut += partial;
    int first;
    for (int mode = 0; mode < 4; mode++) {
        const izb_settings st = {.kernel = mode % 2 ? IZB_KERNEL2 : IZB_KERNEL1,
                                 .binning = mode / 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX};
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            izb_backend *b = (mode + with_ids) % 2 ? b3 : b1;
            memset(got, 7, sizeof got);
            const bool ok = izb_shade_arrays_ids(b, &f, &st, depth, with_ids ? ids : NULL, got, NULL);
            const int bad = mismatching(got, want[with_ids], N, &first);
            CHECK(ok && bad == 0,
                  "seed %llu (N %d, kernel %s, %s, %s, %d tris, %dx%d): %d pixels differ from the brute force "
                  "(first %d: %d, want %d, opaque %d)",
                  sd, f.shadow_samples, izb_kernel_name(st.kernel), izb_binning_name(st.binning),
                  with_ids ? "ids" : "no ids", s.nt, W, H, bad, first, first >= 0 ? got[first] : 0,
                  first >= 0 ? want[with_ids][first] : 0, first >= 0 ? opaque[with_ids][first] : 0);
        }
    }
    /* without cut-outs the same scene is the opaque brute force's */
    CHECK(izb_set_cutouts(b1, NULL) && izb_set_cutouts(b3, NULL), "seed %llu: set_cutouts(NULL)", sd);
    for (int k = 0; k < 2; k++) {
        const izb_settings st = {.kernel = k ? IZB_KERNEL2 : IZB_KERNEL1};
        CHECK(izb_shade_arrays_ids(k ? b3 : b1, &f, &st, depth, ids, got, NULL), "seed %llu: opaque shade", sd);
        const int bad = mismatching(got, opaque[1], N, &first);
        CHECK(bad == 0, "seed %llu kernel %d: cut-outs off: %d pixels differ from the opaque brute force", sd, k + 1,
              bad);
    }
    izb_cutout_set_free(&set);
    izb_closed_free(&cl);
}

int main(void)
{
    rng_state = 777;
    check_sample_keeps();
    izb_backend *b1 = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1});
    izb_backend *b3 = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 3});
    CHECK(b1 && b3, "create");
    if (!b1 || !b3) return test_done();
    long first, seeds;
    diff_seed_range_named("IZB_AA_CUT", DEFAULT_SEEDS, &first, &seeds);
    (void)diff_seed_range;
    (void)diff_auto_cull_changes;
    (void)diff_gen_case; /* (differential_gen.h's: here for MAX_W, MAX_H and the seed range) */
    for (long s = first; s < first + seeds; s++)
        run_seed(b1, b3, (uint64_t)s);
    fprintf(stderr, "(b) %ld seeds: the alpha test changed the mask on %ld, partly lit pixels on %ld\n", seeds,
            seeds_bite, seeds_partial_cut);
    CHECK(seeds < 4 || (seeds_bite * 3 >= seeds * 2 && seeds_partial_cut * 2 >= seeds),
          "the alpha test changed the mask on %ld, partial pixels on %ld of %ld seeds", seeds_bite, seeds_partial_cut,
          seeds);
    izb_destroy(b1);
    izb_destroy(b3);
    return test_done();
}
