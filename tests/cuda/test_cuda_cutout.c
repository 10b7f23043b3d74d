/* test_cuda_cutout.c — the CUDA backend's cut-outs (izb_set_cutouts: issue 18 item 3) against the
 * CPU backend, bit for bit, on the random cut-out scenes of tests/cutout_gen.h (the same seed gives
 * the same scene, light, camera and frame as core_cutout_differential, which holds the CPU backend
 * to the brute force): random cards with random procedural alpha textures (random sides, wraps and
 * cutoffs), UVs outside [0, 1] and sometimes NaN / Inf / 1e30, opaque cards and triangles. Per seed:
 *  (a) kernel1/kernel2 x radix/atomic, without and with primitive ids, cull auto or off and a unit
 *      size by seed (a random grid on some seeds): the same mask byte for byte (every CUDA pixel
 *      written: its buffer starts at 77) and the same stats (points, survivors, grid, tris_cut);
 *  (b) kernel1 with 32-thread units at twice the frame's size: a triangle's points shared among
 *      several units (kernel1's splitting), without or with ids by seed;
 *  (c) the cut-out set replaced between frames (new textures of other sizes, triangles moved to
 *      other textures or made opaque): the new set on both, a frame; then izb_update_scene (which
 *      keeps the cut-outs) and a frame;
 *  (d) what must equal no cut-outs at all: a set whose triangles are all opaque, izb_set_cutouts
 *      NULL after a set, and izb_set_scene (which drops them) — each equal to the CPU backend's mask
 *      without cut-outs.
 * The alpha test must bite: the CPU's mask with cut-outs differs from its mask without on a share
 * of the seeds (else (a) could not tell a CUDA backend that ignores cut-outs). IZB_CUT_SEEDS=N runs
 * N seeds (default DEFAULT_SEEDS, sized for the SIMT emulator in CI) from IZB_CUT_SEED_BASE
 * (default 0); IZB_CUT_SEED=K replays one. Exits 77 without a CUDA device. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutout_gen.h"
#include "gpu_fixture.h"
#include "izb.h"
#include "ray_cast.h"
#include "test.h"

#define DEFAULT_SEEDS 16
#define MAX_W 48
#define MAX_H 40
#define SHOW_PIXELS 4 /* differing pixels printed per mismatch */

typedef struct pair {
    izb_backend *cpu, *gpu;
} pair;

static long frames_compared;
static int seeds_bite, configs_bite;

static void same_mask(uint64_t seed, const char *what, const char *an, const uint8_t *a, const char *bn,
                      const uint8_t *b, int W, int H)
{
    int bad = 0;
    for (int i = 0; i < W * H; i++) {
        if (a[i] == b[i]) continue;
        if (bad < SHOW_PIXELS)
            fprintf(stderr, "seed %llu: %s: pixel %d (%d, %d) of %dx%d: %s %d, %s %d\n", (unsigned long long)seed,
                    what, i, i % W, i / W, W, H, an, a[i], bn, b[i]);
        bad++;
    }
    frames_compared++;
    CHECK(bad == 0, "seed %llu: %s: %s != %s on %d of %d pixels (replay: IZB_CUT_SEED=%llu)",
          (unsigned long long)seed, what, an, bn, bad, W * H, (unsigned long long)seed);
}

/* One frame on both backends; masks and stats must agree. cm, gm (out): the masks. */
static void shade_both(const pair *p, uint64_t seed, const char *what, const izb_recon *f, const izb_settings *s,
                       const float *depth, const uint32_t *ids, uint8_t *cm, uint8_t *gm)
{
    const int W = f->width, H = f->height;
    memset(gm, 77, (size_t)W * H);
    izb_stats cs, gs;
    const bool cok = izb_shade_arrays_ids(p->cpu, f, s, depth, ids, cm, &cs);
    const bool gok = izb_shade_arrays_ids(p->gpu, f, s, depth, ids, gm, &gs);
    CHECK(cok && gok, "seed %llu: %s: shade failed (cpu %d, cuda %d)", (unsigned long long)seed, what, cok, gok);
    if (!cok || !gok) return;
    same_mask(seed, what, "cuda", gm, "cpu", cm, W, H);
    CHECK(gs.points == cs.points && gs.tris_after_cull == cs.tris_after_cull && gs.grid_w == cs.grid_w &&
              gs.grid_h == cs.grid_h && gs.tris_cut == cs.tris_cut,
          "seed %llu: %s: stats cuda/cpu points %d/%d, after cull %d/%d, grid %dx%d/%dx%d, cut %d/%d",
          (unsigned long long)seed, what, gs.points, cs.points, gs.tris_after_cull, cs.tris_after_cull, gs.grid_w,
          gs.grid_h, cs.grid_w, cs.grid_h, gs.tris_cut, cs.tris_cut);
}

/* the same cut-outs on both backends; both must take them */
static bool set_both(const pair *p, uint64_t seed, const char *what, const izb_cutouts *c)
{
    const bool cok = izb_set_cutouts(p->cpu, c), gok = izb_set_cutouts(p->gpu, c);
    CHECK(cok && gok, "seed %llu: %s: set_cutouts (cpu %d, cuda %d)", (unsigned long long)seed, what, cok, gok);
    return cok && gok;
}

/* a random settings record of the backends' kernels, binnings and cull modes */
static izb_settings rand_settings(void)
{
    return (izb_settings){.kernel = rnd() < 0.5 ? IZB_KERNEL1 : IZB_KERNEL2,
                          .binning = rnd() < 0.5 ? IZB_BINNING_RADIX : IZB_BINNING_ATOMIC,
                          .cull = rnd() < 0.5 ? IZB_CULL_AUTO : IZB_CULL_OFF};
}

static void run_seed(const pair *p, uint64_t seed)
{
    /* core_cutout_differential's seeding and draws, so a seed names the same case there */
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x51ED270B27A5F1ull;
    if (!rng_state) rng_state = 1;
    for (int k = 0; k < 4; k++) (void)rnd();
    static cut_scene s;
    cut_gen_scene(&s);
    const light l = cut_gen_light(&s, (int)(rnd() * CUT_L_KINDS));
    const camera cam = cut_gen_camera(s.bmin, s.bmax);
    const int W = 16 + (int)(rnd() * (MAX_W - 15)), H = 12 + (int)(rnd() * (MAX_H - 11)), N = W * H;
    const izb_recon f = izb_frame_make(&cam, &l, s.bmin, s.bmax, W, H);
    static float depth[MAX_W * MAX_H];
    static uint32_t ids[MAX_W * MAX_H];
    ray_cast_depth(&cam, &f, s.xyz, s.nt, depth, ids);
    const unsigned long long sd = (unsigned long long)seed;
    const bool rand_grid = rnd() < 0.25;
    const int gw = 1 + (int)(rnd() * 16), gh = 1 + (int)(rnd() * 16);
    static const int units[8] = {0, 32, 0, 64, 0, 128, 0, 256};
    const int unit = units[seed % 8];
    const izb_cull cull = seed % 2 ? IZB_CULL_OFF : IZB_CULL_AUTO;
    char what[256];
    static uint8_t cm[MAX_W * MAX_H], gm[MAX_W * MAX_H], opaque[MAX_W * MAX_H];

    bool ok = izb_set_scene(p->cpu, s.xyz, s.nt) && izb_set_scene(p->gpu, s.xyz, s.nt);
    CHECK(ok, "seed %llu: set_scene %d triangles", sd, s.nt);
    if (!ok) return;
    const izb_cutouts co = cut_cutouts_of(&s);
    if (!set_both(p, seed, "(a)", &co)) return;

    /* (a) */
    int n_cut = 0;
    for (int t = 0; t < s.nt; t++) n_cut += s.image_of[t] != IZB_OPAQUE;
    bool bite = false;
    for (int k = IZB_KERNEL1; k <= IZB_KERNEL2; k++)
        for (int bn = IZB_BINNING_RADIX; bn <= IZB_BINNING_ATOMIC; bn++)
            for (int with_ids = 0; with_ids < 2; with_ids++) {
                izb_settings st = {.kernel = (izb_kernel)k, .binning = (izb_binning)bn, .cull = cull, .unit_size = unit};
                if (rand_grid) st.grid_w = gw, st.grid_h = gh;
                snprintf(what, sizeof what, "(a) kernel%d %s cull %s%s unit %d%s, %d tris (%d cut)", k,
                         izb_binning_names[bn], izb_cull_names[cull], with_ids ? " ids" : "", unit,
                         rand_grid ? " random grid" : "", s.nt, n_cut);
                shade_both(p, seed, what, &f, &st, depth, with_ids ? ids : NULL, cm, gm);
                /* does the alpha test change this frame? (the CPU without cut-outs, then back) */
                if (k == IZB_KERNEL1 && bn == IZB_BINNING_RADIX) {
                    ok = izb_set_cutouts(p->cpu, NULL) &&
                         izb_shade_arrays_ids(p->cpu, &f, &st, depth, with_ids ? ids : NULL, opaque, NULL) &&
                         izb_set_cutouts(p->cpu, &co);
                    CHECK(ok, "seed %llu: %s: the CPU's opaque frame", sd, what);
                    const bool b = memcmp(cm, opaque, (size_t)N) != 0;
                    bite |= b;
                    configs_bite += b;
                }
            }
    seeds_bite += bite;

    /* (b) kernel1's splitting: 32-thread units, twice the size */
    {
        static float depth2[4 * MAX_W * MAX_H];
        static uint32_t ids2[4 * MAX_W * MAX_H];
        static uint8_t cm2[4 * MAX_W * MAX_H], gm2[4 * MAX_W * MAX_H];
        const izb_recon f2 = izb_frame_make(&cam, &l, s.bmin, s.bmax, 2 * W, 2 * H);
        ray_cast_depth(&cam, &f2, s.xyz, s.nt, depth2, ids2);
        const bool with_ids = seed % 4 >= 2;
        const izb_settings st = {.kernel = IZB_KERNEL1,
                                 .binning = seed % 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                                 .cull = cull,
                                 .unit_size = 32};
        snprintf(what, sizeof what, "(b) %dx%d kernel1 %s unit 32%s", 2 * W, 2 * H, izb_binning_names[st.binning],
                 with_ids ? " ids" : "");
        shade_both(p, seed, what, &f2, &st, depth2, with_ids ? ids2 : NULL, cm2, gm2);
    }

    /* (c) another set: new textures (other sides: the device buffers are replaced), triangles
     * moved to other textures or made opaque, cut-out ones made of opaque ones */
    {
        static cut_scene s2;
        memcpy(&s2, &s, sizeof s2);
        s2.n_images = 1 + (int)(rnd() * CUT_MAX_TEX);
        for (int i = 0; i < s2.n_images; i++) cut_gen_image(&s2, i);
        for (int t = 0; t < s2.nt; t++) {
            const double r = rnd();
            s2.image_of[t] = r < 0.2 ? IZB_OPAQUE : r < 0.9 ? (uint32_t)(rnd() * s2.n_images) : s.image_of[t];
            if (s2.image_of[t] != IZB_OPAQUE && s2.image_of[t] >= (uint32_t)s2.n_images) s2.image_of[t] = 0;
        }
        const izb_cutouts c2 = cut_cutouts_of(&s2);
        izb_settings st = rand_settings();
        st.unit_size = unit;
        const bool with_ids = rnd() < 0.5;
        if (set_both(p, seed, "(c) another set", &c2)) {
            snprintf(what, sizeof what, "(c) another set: kernel%d %s cull %s%s", st.kernel,
                     izb_binning_names[st.binning], izb_cull_names[st.cull], with_ids ? " ids" : "");
            shade_both(p, seed, what, &f, &st, depth, with_ids ? ids : NULL, cm, gm);
            ok = izb_update_scene(p->cpu, s.xyz, s.nt) && izb_update_scene(p->gpu, s.xyz, s.nt);
            CHECK(ok, "seed %llu: (c) update_scene", sd);
            snprintf(what, sizeof what, "(c) another set, after update_scene: kernel%d %s cull %s%s", st.kernel,
                     izb_binning_names[st.binning], izb_cull_names[st.cull], with_ids ? " ids" : "");
            if (ok) shade_both(p, seed, what, &f, &st, depth, with_ids ? ids : NULL, cm, gm);
        }
    }

    /* (d) no cut-outs, three ways: all opaque, NULL after a set, set_scene after a set */
    {
        static uint32_t none[CUT_MAX_TRIS];
        for (int t = 0; t < s.nt; t++) none[t] = IZB_OPAQUE;
        izb_cutouts c0 = co;
        c0.image_of = none;
        izb_settings st = rand_settings();
        st.unit_size = unit;
        const bool with_ids = rnd() < 0.5;
        const uint32_t *fid = with_ids ? ids : NULL;
        static uint8_t gm0[MAX_W * MAX_H];
        ok = izb_set_cutouts(p->cpu, NULL) && izb_shade_arrays_ids(p->cpu, &f, &st, depth, fid, opaque, NULL);
        CHECK(ok, "seed %llu: (d) the CPU without cut-outs", sd);
        snprintf(what, sizeof what, "kernel%d %s cull %s%s", st.kernel, izb_binning_names[st.binning],
                 izb_cull_names[st.cull], with_ids ? " ids" : "");
        /* all opaque: izb_set_cutouts takes it, nothing is cut */
        ok = izb_set_cutouts(p->gpu, &c0);
        CHECK(ok, "seed %llu: (d) set_cutouts of an all-opaque set", sd);
        memset(gm0, 77, (size_t)N);
        ok = ok && izb_shade_arrays_ids(p->gpu, &f, &st, depth, fid, gm0, NULL);
        if (ok) same_mask(seed, "(d) all-opaque set", "cuda", gm0, "cpu without cut-outs", opaque, W, H);
        /* NULL after a set */
        ok = izb_set_cutouts(p->gpu, &co) && izb_set_cutouts(p->gpu, NULL);
        CHECK(ok, "seed %llu: (d) set_cutouts of a set, then NULL", sd);
        memset(gm0, 77, (size_t)N);
        ok = ok && izb_shade_arrays_ids(p->gpu, &f, &st, depth, fid, gm0, NULL);
        if (ok) same_mask(seed, "(d) NULL after a set", "cuda", gm0, "cpu without cut-outs", opaque, W, H);
        /* set_scene after a set drops it */
        ok = izb_set_cutouts(p->gpu, &co) && izb_set_scene(p->gpu, s.xyz, s.nt);
        CHECK(ok, "seed %llu: (d) set_cutouts, then set_scene", sd);
        memset(gm0, 77, (size_t)N);
        izb_stats gs;
        ok = ok && izb_shade_arrays_ids(p->gpu, &f, &st, depth, fid, gm0, &gs);
        if (ok) {
            same_mask(seed, "(d) set_scene after a set", "cuda", gm0, "cpu without cut-outs", opaque, W, H);
            CHECK(gs.tris_cut == 0, "seed %llu: (d) tris_cut %d after set_scene", sd, gs.tris_cut);
        }
    }
}

int main(void)
{
    fixture_require_device("cuda_cutout");
    pair p = {izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1, .quiet = true}),
              izb_create(&(izb_desc){.backend = IZB_BACKEND_CUDA})};
    CHECK(p.cpu && p.gpu && strcmp(izb_name(p.gpu), "cuda") == 0, "no CPU or CUDA backend with a device present");
    if (!p.cpu || !p.gpu) return test_done();
    long first = 0, n = DEFAULT_SEEDS;
    const char *e = getenv("IZB_CUT_SEEDS");
    if (e && atol(e) > 0) n = atol(e);
    e = getenv("IZB_CUT_SEED_BASE");
    if (e) first = atol(e);
    e = getenv("IZB_CUT_SEED");
    if (e) first = atol(e), n = 1;
    for (long sd = first; sd < first + n; sd++) {
        const int before = test_failed_;
        run_seed(&p, (uint64_t)sd);
        if (test_failed_ != before) fprintf(stderr, "seed %ld FAILED (replay: IZB_CUT_SEED=%ld)\n", sd, sd);
    }
    izb_destroy(p.gpu);
    izb_destroy(p.cpu);
    printf("seeds %ld..%ld: %ld frames compared; the alpha test changed the mask in %d seeds (%d configs)\n", first,
           first + n - 1, frames_compared, seeds_bite, configs_bite);
    if (n >= DEFAULT_SEEDS) /* the seeds must exercise what they compare */
        CHECK(seeds_bite * 2 >= n, "the alpha test changed the CPU's mask in only %d of %ld seeds", seeds_bite, n);
    return test_done();
}
