/* test_cutout_differential.c — seeded differential runs of the CPU backend with cut-outs
 * (izb_set_cutouts, core/izb_alpha.h) against the brute force of tests/izb_brute.h. Each seed builds
 * (tests/cutout_gen.h) a ground and random alpha-tested cards (quads with random UV ranges that
 * cross texel edges and wrap), some opaque cards and loose triangles, 1 to 4 random procedural alpha textures (random
 * sides, power of two or not, 1x1 included; noise, disc, stripes, checker; random wrap per axis;
 * random cutoff), sometimes a card with NaN / Inf / 1e30 UVs; a random light (directional, grazing,
 * spot outside, spot among the cards) and camera; depth and ids by ray casting. Checked per seed:
 *  (a) the mask equals the brute force with the alpha test, for kernel 1/2 x radix/atomic x cull
 *      auto/off (random grid on some seeds), without and with ids;
 *  (b) every texture all-opaque (alpha 255) equals the mask without cut-outs, bit for bit (with
 *      and without ids): the alpha test never drops a hit it should keep;
 *  (c) every texture all-cut (alpha 0, cutoff > 0) equals the scene without its cut-out triangles,
 *      bit for bit (no ids: ids would index another scene): the test never keeps a hit it should
 *      drop. (b) and (c) catch the kind of bug that the brute force would share (both read
 *      izb_alpha.h and izb_cutouts.c);
 *  (d) izb_stats.tris_cut counts the cut-out triangles;
 *  (e) soft shadows (izb_soft.h) with cut-outs: on seeds with a directional light, also a soft
 *      frame (a random angular size and M): the backend's mask equals, byte for byte, the soft
 *      brute force with the per-sample alpha test (izb_soft_sample_keeps), cull auto/off x ids
 *      off/on, a random kernel and binning each; (b) and (c) hold for the soft frame too;
 *  (f) on most seeds with a spot light, the same for an area light (izb_area.h: a random emitter,
 *      M 16 or 64): each sample's own hit point alpha-tested (the area pair's barycentrics).
 * The alpha test must bite: the cut-out mask differs from the opaque one on a share of the seeds.
 * IZB_CUT_SEEDS=N runs seeds 0..N-1, IZB_CUT_SEED=K replays one. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_brute.h"
#include "izb_closed.h"
#include "izb_cutouts.h"
#include "test.h"
#include "cutout_gen.h"
#include "ray_cast.h"
#include "test_rng.h"
#include "view.h"

#define DEFAULT_SEEDS 300
#define MAX_W 48
#define MAX_H 40


static long comparisons;

static int diff_masks(const uint8_t *a, const uint8_t *b, int n, uint64_t seed, const char *what)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        comparisons++;
        if ((a[i] == 0) != (b[i] == 0)) {
            if (!bad) fprintf(stderr, "seed %llu: %s: pixel %d: %d vs %d\n", (unsigned long long)seed, what, i, a[i], b[i]);
            bad++;
        }
    }
    return bad;
}

static int seeds_bite, seeds_shadow, seeds_soft, seeds_soft_bite;

static const int soft_samples[5] = {16, 32, 64, 128, 256};
static int seeds_area, seeds_area_bite; /* (f) */

/* (e): the soft frame fs against the soft brute force with and without the alpha test */
static void check_soft(izb_backend *b, const cut_scene *s, const izb_recon *fs, const float *depth,
                       const uint32_t *ids, const izb_closed *cl, const izb_cutout_set *set, uint64_t seed)
{
    const int N = fs->width * fs->height;
    static uint8_t want[MAX_W * MAX_H], opaque[MAX_W * MAX_H], m[MAX_W * MAX_H];
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    bool bite = false;
    for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c += IZB_CULL_OFF - IZB_CULL_AUTO)
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            const izb_settings st = {.kernel = rnd() < 0.5 ? IZB_KERNEL1 : IZB_KERNEL2,
                                     .binning = rnd() < 0.5 ? IZB_BINNING_RADIX : IZB_BINNING_ATOMIC,
                                     .cull = (izb_cull)c};
            const izb_settings rs = izb_settings_resolve(st);
            izb_recon fb = *fs;
            fb.bias = rs.bias;
            izb_cull_view cv = {.mode = rs.cull, .comp = cl->comp, .boxes = cl->boxes,
                                .light_is_spot = izb_area_on(&fb), .light_reach = izb_area_reach(&fb)};
            if (izb_area_on(&fb)) izb_light_origin(fb.light, cv.light_origin);
            izb_brute_force_soft_cut(&fb, depth, with_ids ? ids : NULL, s->xyz, s->nt, &cv, true, set, want, pts, pix);
            izb_brute_force_soft_cut(&fb, depth, with_ids ? ids : NULL, s->xyz, s->nt, &cv, true, NULL, opaque, pts,
                                     pix);
            bite |= memcmp(want, opaque, (size_t)N) != 0;
            CHECK(izb_shade_arrays_ids(b, fs, &st, depth, with_ids ? ids : NULL, m, NULL), "seed %llu: (e) shade",
                  (unsigned long long)seed);
            int bad = 0, first = -1;
            for (int i = 0; i < N; i++) {
                comparisons++;
                if (m[i] != want[i] && bad++ == 0) first = i;
            }
            CHECK(bad == 0, "seed %llu: (e) soft %d samples %.1f deg, size %g x %g, kernel%d %s cull %s%s: %d pixels != "
                  "brute force (first %d: %d vs %d)", (unsigned long long)seed, fs->light_samples,
                  fs->light_angle * 180 / M_PI, (double)fs->light_size[0], (double)fs->light_size[1], st.kernel,
                  izb_binning_names[st.binning], izb_cull_names[c], with_ids ? " ids" : "", bad, first,
                  first >= 0 ? m[first] : 0, first >= 0 ? want[first] : 0);
        }
    if (izb_area_on(fs)) {
        seeds_area++;
        seeds_area_bite += bite;
        return;
    }
    seeds_soft++;
    seeds_soft_bite += bite;
}

static void run_seed(izb_backend *b, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x51ED270B27A5F1ull;
    if (!rng_state) rng_state = 1;
    for (int k = 0; k < 4; k++) (void)rnd();
    static cut_scene s;
    cut_gen_scene(&s);
    const light l = cut_gen_light(&s, (int)(rnd() * CUT_L_KINDS));
    const camera cam = cut_gen_camera(s.bmin, s.bmax);
    const int W = 16 + (int)(rnd() * (MAX_W - 15)), H = 12 + (int)(rnd() * (MAX_H - 11)), N = W * H;
    izb_recon f = izb_frame_make(&cam, &l, s.bmin, s.bmax, W, H);
    static float depth[MAX_W * MAX_H];
    static uint32_t ids[MAX_W * MAX_H];
    ray_cast_depth(&cam, &f, s.xyz, s.nt, depth, ids);
    const unsigned long long sd = (unsigned long long)seed;

    izb_closed cl;
    CHECK(izb_closed_find(s.xyz, s.nt, &cl), "seed %llu: closed analysis", sd);
    CHECK(izb_set_scene(b, s.xyz, s.nt), "seed %llu: set_scene", sd);
    const izb_cutouts co = cut_cutouts_of(&s);
    CHECK(izb_set_cutouts(b, &co), "seed %llu: set_cutouts", sd);
    izb_cutout_set set;
    CHECK(izb_cutout_set_build(&set, &co, s.nt, "test"), "seed %llu: cutout set", sd);

    const bool rand_grid = rnd() < 0.25;
    const int gw = 1 + (int)(rnd() * 16), gh = 1 + (int)(rnd() * 16);
    static uint8_t want[MAX_W * MAX_H], m[MAX_W * MAX_H], opaque[2][MAX_W * MAX_H];
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    char what[200];
    int cut_counted = 0;
    for (int t = 0; t < s.nt; t++) cut_counted += s.image_of[t] != IZB_OPAQUE;
    bool bite = false;
    for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c += IZB_CULL_OFF - IZB_CULL_AUTO)
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            const izb_settings rs = izb_settings_resolve((izb_settings){.cull = (izb_cull)c});
            izb_recon fb = f;
            fb.bias = rs.bias;
            izb_cull_view cv = {.mode = rs.cull, .comp = cl.comp, .boxes = cl.boxes, .light_is_spot = fb.light_is_spot};
            if (fb.light_is_spot) izb_light_origin(fb.light, cv.light_origin);
            izb_brute_force_cut(&fb, depth, with_ids ? ids : NULL, s.xyz, s.nt, &cv, &set, want, pts, pix);
            izb_brute_force_cut(&fb, depth, with_ids ? ids : NULL, s.xyz, s.nt, &cv, NULL, opaque[with_ids], pts, pix);
            bite |= memcmp(want, opaque[with_ids], (size_t)N) != 0;
            for (int k = IZB_KERNEL1; k <= IZB_KERNEL2; k++)
                for (int bn = IZB_BINNING_RADIX; bn <= IZB_BINNING_ATOMIC; bn++) {
                    izb_settings st = {.kernel = (izb_kernel)k, .binning = (izb_binning)bn, .cull = (izb_cull)c};
                    if (rand_grid) st.grid_w = gw, st.grid_h = gh;
                    snprintf(what, sizeof what, "(a) kernel%d %s cull %s%s%s, %d tris", k, izb_binning_names[bn],
                             izb_cull_names[c], with_ids ? " ids" : "", rand_grid ? " random grid" : "", s.nt);
                    izb_stats stats;
                    CHECK(izb_shade_arrays_ids(b, &f, &st, depth, with_ids ? ids : NULL, m, &stats),
                          "seed %llu: %s: shade", sd, what);
                    CHECK(diff_masks(m, want, N, seed, what) == 0, "seed %llu: %s: backend != brute force", sd, what);
                    CHECK(stats.tris_cut == set.cut_count && set.cut_count == cut_counted,
                          "seed %llu: (d) tris_cut %d, set %d, scene %d", sd, stats.tris_cut, set.cut_count, cut_counted);
                }
        }
    seeds_bite += bite;
    for (int i = 0; i < N; i++)
        if (!want[i]) {
            seeds_shadow++;
            break;
        }
    /* (e) a soft frame of the directional light */
    izb_recon fr[2] = {f, f};
    int nf = 1;
    if (l.type == LIGHT_DIRECTIONAL && rnd() < 0.6) {
        fr[1].light_angle = (float)(rnd_in(0.5, 20.0) * M_PI / 180.0);
        fr[1].light_samples = soft_samples[(int)(rnd() * 5)];
        check_soft(b, &s, &fr[1], depth, ids, &cl, &set, seed);
        nf = 2;
    }
    /* (f) an area light (the spot with an emitter, izb_area.h): its per-sample alpha test, as (e).
     * Drawn from a copy of the generator, so the checks below see the draws they saw before. */
    if (l.type == LIGHT_SPOT) {
        const uint64_t keep = rng_state;
        if (rnd() < 0.6) {
            izb_recon fa = f;
            float ext = 0.0f;
            for (int k = 0; k < 3; k++) ext = fmaxf(ext, s.bmax[k] - s.bmin[k]);
            fa.light_size[0] = (float)(ext * rnd_in(0.01, 0.3));
            fa.light_size[1] = (float)(ext * rnd_in(0.01, 0.3));
            fa.light_disk = rnd() < 0.3 ? IZB_AREA_DISK : IZB_AREA_RECT;
            fa.light_samples = rnd() < 0.5 ? 16 : 64;
            check_soft(b, &s, &fa, depth, ids, &cl, &set, seed);
        }
        rng_state = keep;
    }
    izb_cutout_set_free(&set);

    /* (b) every texture all-opaque: the mask without cut-outs, bit for bit */
    const izb_settings st = {.kernel = rnd() < 0.5 ? IZB_KERNEL1 : IZB_KERNEL2, .cull = IZB_CULL_OFF};
    static uint8_t a[MAX_W * MAX_H];
    izb_alpha_image keep_img[CUT_MAX_TEX];
    static uint8_t full[CUT_MAX_SIDE * CUT_MAX_SIDE], none[CUT_MAX_SIDE * CUT_MAX_SIDE];
    memset(full, 255, sizeof full);
    memset(none, 0, sizeof none);
    for (int k = 0; k < nf; k++)
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            CHECK(izb_set_cutouts(b, NULL), "seed %llu: set_cutouts NULL", sd);
            CHECK(izb_shade_arrays_ids(b, &fr[k], &st, depth, with_ids ? ids : NULL, a, NULL), "seed %llu: shade", sd);
            for (int i = 0; i < s.n_images; i++) keep_img[i] = s.images[i], keep_img[i].alpha = full;
            izb_cutouts kc = co;
            kc.images = keep_img;
            CHECK(izb_set_cutouts(b, &kc), "seed %llu: set_cutouts all-opaque", sd);
            CHECK(izb_shade_arrays_ids(b, &fr[k], &st, depth, with_ids ? ids : NULL, m, NULL), "seed %llu: shade", sd);
            CHECK(memcmp(a, m, (size_t)N) == 0, "seed %llu: (b) all-opaque textures%s%s != no cut-outs", sd,
                  with_ids ? " (ids)" : "", k ? " (soft)" : "");
        }

    /* (c) every texture all-cut (cutoff > 0): the scene without the cut-out triangles */
    for (int i = 0; i < s.n_images; i++) keep_img[i] = s.images[i], keep_img[i].alpha = none,
                                         keep_img[i].cutoff = fmaxf(keep_img[i].cutoff, 0.01f);
    izb_cutouts cc = co;
    cc.images = keep_img;
    static uint8_t cut_masks[2][MAX_W * MAX_H];
    CHECK(izb_set_cutouts(b, &cc), "seed %llu: set_cutouts all-cut", sd);
    for (int k = 0; k < nf; k++)
        CHECK(izb_shade_arrays(b, &fr[k], &st, depth, cut_masks[k], NULL), "seed %llu: shade", sd);
    static float kept[9 * CUT_MAX_TRIS];
    int nk = 0;
    for (int t = 0; t < s.nt; t++)
        if (s.image_of[t] == IZB_OPAQUE) memcpy(kept + 9 * nk++, s.xyz + 9 * t, 9 * sizeof(float));
    CHECK(izb_set_scene(b, kept, nk), "seed %llu: set_scene of the opaque part", sd);
    for (int k = 0; k < nf; k++) {
        CHECK(izb_shade_arrays(b, &fr[k], &st, depth, a, NULL), "seed %llu: shade", sd);
        CHECK(memcmp(a, cut_masks[k], (size_t)N) == 0, "seed %llu: (c) all-cut textures != the scene without them%s",
              sd, k ? " (soft)" : "");
    }
    izb_closed_free(&cl);
}

int main(void)
{
    const char *th = getenv("IZB_DIFF_THREADS");
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = th && atoi(th) > 0 ? atoi(th) : 1,
                                            .quiet = true});
    CHECK(b != NULL, "no CPU backend");
    if (!b) return test_done();
    long n = DEFAULT_SEEDS, first = 0;
    const char *e = getenv("IZB_CUT_SEEDS");
    if (e && atol(e) > 0) n = atol(e);
    e = getenv("IZB_CUT_SEED");
    if (e) first = atol(e), n = 1;
    for (long sd = first; sd < first + n; sd++) {
        const int before = test_failed_;
        run_seed(b, (uint64_t)sd);
        if (test_failed_ != before) fprintf(stderr, "seed %ld FAILED (replay: IZB_CUT_SEED=%ld)\n", sd, sd);
    }
    izb_destroy(b);
    if (n >= 20) {
        CHECK(seeds_bite * 3 >= n, "the alpha test changed the brute force's mask in only %d of %ld seeds",
              seeds_bite, n);
        CHECK(seeds_shadow * 2 >= n, "only %d of %ld seeds have shadow", seeds_shadow, n);
        CHECK(comparisons > 2000L * n, "only %ld comparisons", comparisons);
        CHECK(seeds_soft * 8 >= n && seeds_soft_bite * 2 >= seeds_soft,
              "(e) soft frames on %d of %ld seeds, the alpha test changed %d of them", seeds_soft, n, seeds_soft_bite);
        CHECK(seeds_area * 8 >= n && seeds_area_bite * 3 >= seeds_area,
              "(f) area lights on %d of %ld seeds, the alpha test changed %d of them", seeds_area, n, seeds_area_bite);
    }
    if (getenv("IZB_DIFF_VERBOSE")) printf("%ld seeds, %d bite, %d shadow, %d soft (%d bite), %d area (%d bite), %ld comparisons\n", n, seeds_bite, seeds_shadow,
                                        seeds_soft, seeds_soft_bite, seeds_area, seeds_area_bite, comparisons);
    return test_done();
}
