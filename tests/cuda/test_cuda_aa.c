/* test_cuda_aa.c — anti-aliased shadow edges on the CUDA backend (cuda/raster_aa.cu, issue 19 item
 * 4) against the CPU backend (cpu/raster_aa.c, itself held to the brute force by cpu_aa), byte for
 * byte, on the random cases of tests/differential_gen.h with a directional light, or on seeds 1, 2
 * (mod 4) a spot light (diff_aa_light, as cpu_aa: the same camera and depth). Per seed:
 *  (a) N = 8 and 32: kernel1/kernel2 x radix/atomic, without and with primitive ids, the case's
 *      grid (adaptive or a random fixed one) and bias, a unit size by seed; on odd seeds also a
 *      fine grid (2 cells a pixel: footprints span several cells, so a cell range grown too little
 *      or a wrong per-cell extent misses points): CUDA mask == CPU mask (every CUDA pixel written:
 *      its buffer starts at 77), and the same points, triangles after culling (against the bbox
 *      grown by the footprints) and grid;
 *  (b) N = 1: the hard path, untouched: CUDA's bytes == the CPU's == CUDA's with N = 0, every mode,
 *      with and without ids;
 *  (c) a ground's edge with an occluder just past it in the light's view (cpu_aa's border case):
 *      only sub-samples reach it, and it lies outside the points' bbox, so culling against the bare
 *      bbox drops it; several views, N 8 and 32, both kernels: CUDA == CPU, and partly hidden
 *      pixels exist (else the case would test nothing); N 4 and 16 there too;
 *  (d) an all-sky frame (no points: nothing to cull against, no raster) and a ground alone with
 *      ids (every pair is the point's own plane): both backends agree, all 255;
 *  (e) cut-outs (tests/cutout_gen.h: alpha-tested cards, random textures, wraps, cutoffs, NaN UVs;
 *      directional or grazing light), CUT_SEEDS small frames, N 4/8/16/32 by seed: kernel1/kernel2
 *      x without/with ids, a unit size by seed: CUDA == CPU (each sub-sample alpha-tested at its own
 *      position, izb_aa_sample_keeps), and the alpha test changes the CPU's mask on some seed.
 * The seeds must exercise what they compare: partly hidden pixels (0 < byte < 255) and masks that
 * ids change. IZB_DIFF_SEEDS=N runs N seeds (default DEFAULT_SEEDS, sized for the SIMT emulator),
 * IZB_DIFF_SEED=K the one seed K. Exits 77 without a CUDA device. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutout_gen.h"
#include "differential_gen.h"
#include "gpu_fixture.h"
#include "izb.h"
#include "test.h"

#define DEFAULT_SEEDS 8
#define CUT_SEEDS 4

typedef struct pair {
    izb_backend *cpu, *gpu;
} pair;

static long frames_compared, partial_pixels, spot_partial, ids_changed;

/* Both backends on one frame: the same bytes and stats. cm, gm (out): the masks. */
static void shade_both(const pair *p, const char *what, const izb_recon *f, const izb_settings *s,
                       const float *depth, const uint32_t *ids, uint8_t *cm, uint8_t *gm)
{
    const int npix = f->width * f->height;
    memset(gm, 77, (size_t)npix);
    izb_stats cs, gs;
    const bool cok = izb_shade_arrays_ids(p->cpu, f, s, depth, ids, cm, &cs);
    const bool gok = izb_shade_arrays_ids(p->gpu, f, s, depth, ids, gm, &gs);
    CHECK(cok && gok, "%s: shade failed (cpu %d, cuda %d)", what, cok, gok);
    if (!cok || !gok) return;
    int first;
    const int bad = mismatching(cm, gm, npix, &first);
    frames_compared++;
    CHECK(bad == 0, "%s: cuda != cpu on %d of %d pixels (first %d (%d, %d): cuda %d, cpu %d)", what, bad,
          npix, first, first % f->width, first / f->width, first >= 0 ? gm[first] : 0,
          first >= 0 ? cm[first] : 0);
    CHECK(gs.points == cs.points && gs.tris_after_cull == cs.tris_after_cull && gs.grid_w == cs.grid_w &&
              gs.grid_h == cs.grid_h,
          "%s: stats cuda/cpu points %d/%d, after cull %d/%d, grid %dx%d/%dx%d", what, gs.points, cs.points,
          gs.tris_after_cull, cs.tris_after_cull, gs.grid_w, gs.grid_h, cs.grid_w, cs.grid_h);
}

static void run_seed(const pair *p, uint64_t seed)
{
    static diff_case c;
    diff_gen_case(&c, seed);
    const int W = c.W, H = c.H, npix = W * H;
    /* seeds 1, 2 (mod 4) a spot light (each sub-sample divided by its own w), the others a
     * directional one: the same camera and depth (diff_aa_light). Seed 1 is in CI's race-mode run
     * (IZB_DIFF_SEEDS=2), odd seeds have the fine grid too. */
    const bool spot = seed % 4 == 1 || seed % 4 == 2;
    light l;
    izb_recon f;
    diff_aa_light(&c, spot, &l, &f);
    const bool set = izb_set_scene(p->cpu, c.g.xyz, c.g.nt) && izb_set_scene(p->gpu, c.g.xyz, c.g.nt);
    CHECK(set, "seed %llu: set_scene %d triangles", (unsigned long long)seed, c.g.nt);
    if (!set) return;
    static const int units[5] = {0, 32, 64, 128, 256};
    const int unit = units[seed % 5];
    static uint8_t cm[MAX_W * MAX_H], gm[MAX_W * MAX_H], no_ids[MAX_W * MAX_H], hard[MAX_W * MAX_H];
    char what[256];
    /* (a) N 8 and 32 */
    for (int ni = 0; ni < 2; ni++)
        for (int mode = 0; mode < (seed % 2 ? 6 : 4); mode++) {
            const bool fine = mode >= 4;
            const izb_settings s = {.kernel = mode % 2 ? IZB_KERNEL2 : IZB_KERNEL1,
                                    .binning = mode / 2 % 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                                    .unit_size = unit,
                                    .grid_w = fine          ? 2 * W
                                              : c.rand_grid ? c.gw
                                                            : 0,
                                    .grid_h = fine          ? 2 * H
                                              : c.rand_grid ? c.gh
                                                            : 0,
                                    .bias = c.bias};
            f.shadow_samples = ni ? 32 : 8;
            for (int with_ids = 0; with_ids < 2; with_ids++) {
                snprintf(what, sizeof what,
                         "seed %llu (a) N %d kernel%d %s unit %d grid %dx%d%s, %d tris, %dx%d",
                         (unsigned long long)seed, f.shadow_samples, s.kernel, izb_binning_names[s.binning],
                         unit, s.grid_w, s.grid_h, with_ids ? " ids" : "", c.g.nt, W, H);
                shade_both(p, what, &f, &s, c.depth, with_ids ? c.ids : NULL, cm, gm);
                if (!with_ids) memcpy(no_ids, cm, (size_t)npix);
                if (with_ids && mode == 0) ids_changed += memcmp(no_ids, cm, (size_t)npix) != 0;
                if (mode == 0)
                    for (int i = 0; i < npix; i++)
                        partial_pixels += cm[i] > 0 && cm[i] < 255, spot_partial += spot && cm[i] > 0 && cm[i] < 255;
            }
        }
    /* (b) N 1: the hard path (and N 0 on CUDA: the same bytes) */
    for (int mode = 0; mode < 4; mode++)
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            const izb_settings s = {.kernel = mode % 2 ? IZB_KERNEL2 : IZB_KERNEL1,
                                    .binning = mode / 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                                    .unit_size = unit,
                                    .bias = c.bias};
            const uint32_t *ids = with_ids ? c.ids : NULL;
            f.shadow_samples = 0;
            memset(hard, 77, (size_t)npix);
            CHECK(izb_shade_arrays_ids(p->gpu, &f, &s, c.depth, ids, hard, NULL), "seed %llu: N 0 frame",
                  (unsigned long long)seed);
            f.shadow_samples = 1;
            snprintf(what, sizeof what, "seed %llu (b) N 1 kernel%d %s%s", (unsigned long long)seed, s.kernel,
                     izb_binning_names[s.binning], with_ids ? " ids" : "");
            shade_both(p, what, &f, &s, c.depth, ids, cm, gm);
            CHECK(memcmp(hard, gm, (size_t)npix) == 0, "%s: N 1 != N 0 on CUDA", what);
        }
}

/* (c): cpu_aa's border case on both backends (see there): a ground square lit straight down, seen
 * from above with sky around it, and an occluder just past its edge. */
static void check_border(const pair *p)
{
    long partial = 0;
    for (int c = 0; c < 6; c++) {
        const float e = 1.0f, off = (float)rnd_in(0.0, 0.03);
        const float xyz[27] = {-e,      0,    -e,    -e,       0,    e,    e,       0,    e,
                               -e,      0,    -e,    e,        0,    e,    e,       0,    -e,
                               e + off, 0.5f, -0.5f, e + 0.5f, 0.5f, 0.5f, e + off, 0.5f, 0.5f};
        const camera cam = {.pos = {(float)rnd_in(-0.05, 0.05), 3.0f, (float)rnd_in(-0.05, 0.05)},
                            .pitch = -89.9f,
                            .fovy = 60};
        const light l = {.type = LIGHT_DIRECTIONAL, .dir = {0.0f, -1.0f, 0.0f}};
        const float bmin[3] = {-1.5f, -0.1f, -1.5f}, bmax[3] = {1.5f, 0.6f, 1.5f};
        enum { W = 48, H = 40 };
        izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, W, H);
        static const int ns[4] = {8, 32, 4, 16}; /* 4 and 16 here: a mask word's unused bits */
        f.shadow_samples = ns[c % 4];
        float depth[W * H];
        uint32_t ids[W * H];
        ray_cast_depth(&cam, &f, xyz, 2, depth,
                       ids); /* the ground only: the occluder stays out of the depth */
        CHECK(izb_set_scene(p->cpu, xyz, 3) && izb_set_scene(p->gpu, xyz, 3), "border: set_scene");
        const izb_settings s = {.cull = IZB_CULL_OFF,
                                .kernel = c / 2 % 2 ? IZB_KERNEL2 : IZB_KERNEL1,
                                .binning = c / 4 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX};
        static uint8_t cm[W * H], gm[W * H];
        char what[160];
        snprintf(what, sizeof what, "(c) border view %d (offset %g, N %d, kernel%d)", c, off,
                 f.shadow_samples, s.kernel);
        shade_both(p, what, &f, &s, depth, c % 3 ? ids : NULL, cm, gm);
        for (int i = 0; i < W * H; i++)
            partial += cm[i] > 0 && cm[i] < 255;
    }
    CHECK(partial > 10, "border: only %ld partly hidden pixels: the case does not test the grown bbox",
          partial);
}

/* (d): no points (sky everywhere), and a ground alone with ids (only its own plane's triangles). */
static void check_empty(const pair *p)
{
    const float xyz[18] = {-1, 0, -1, -1, 0, 1, 1, 0, 1, -1, 0, -1, 1, 0, 1, 1, 0, -1};
    const camera cam = {.pos = {0.0f, 3.0f, 0.0f}, .pitch = -89.9f, .fovy = 60};
    const light l = {.type = LIGHT_DIRECTIONAL, .dir = {0.0f, -1.0f, 0.0f}};
    const float bmin[3] = {-1.5f, -0.1f, -1.5f}, bmax[3] = {1.5f, 0.6f, 1.5f};
    enum { W = 24, H = 16 };
    izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, W, H);
    f.shadow_samples = 8;
    float depth[W * H];
    uint32_t ids[W * H];
    ray_cast_depth(&cam, &f, xyz, 2, depth, ids);
    static const float sky[W * H];
    CHECK(izb_set_scene(p->cpu, xyz, 2) && izb_set_scene(p->gpu, xyz, 2), "empty: set_scene");
    static uint8_t cm[W * H], gm[W * H];
    for (int k = 0; k < 2; k++) {
        const izb_settings s = {.kernel = k ? IZB_KERNEL2 : IZB_KERNEL1};
        shade_both(p, k ? "(d) all sky" : "(d) the ground alone", &f, &s, k ? sky : depth, k ? NULL : ids, cm,
                   gm);
        int lit = 0;
        for (int i = 0; i < W * H; i++)
            lit += gm[i] == 255;
        CHECK(lit == W * H, "(d) %s: %d of %d pixels lit", k ? "all sky" : "the ground alone", lit, W * H);
    }
}

/* (e): cut-out scenes (see the top) */
static long cut_bite;

static void check_cut(const pair *p, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x6A09E667F3BCC909ull;
    for (int k = 0; k < 4; k++) (void)rnd();
    static cut_scene sc;
    cut_gen_scene(&sc);
    const light l = cut_gen_light(&sc, rnd() < 0.75 ? CUT_L_DIR : CUT_L_GRAZE);
    const camera cam = cut_gen_camera(sc.bmin, sc.bmax);
    const int W = 24 + (int)(rnd() * 17), H = 18 + (int)(rnd() * 13), npix = W * H;
    izb_recon f = izb_frame_make(&cam, &l, sc.bmin, sc.bmax, W, H);
    static const int ns[4] = {4, 8, 16, 32};
    f.shadow_samples = ns[seed % 4];
    static float depth[MAX_W * MAX_H];
    static uint32_t ids[MAX_W * MAX_H];
    ray_cast_depth(&cam, &f, sc.xyz, sc.nt, depth, ids);
    const izb_cutouts co = cut_cutouts_of(&sc);
    const bool ok = izb_set_scene(p->cpu, sc.xyz, sc.nt) && izb_set_scene(p->gpu, sc.xyz, sc.nt) &&
                    izb_set_cutouts(p->cpu, &co) && izb_set_cutouts(p->gpu, &co);
    CHECK(ok, "(e) seed %llu: set_scene / set_cutouts", (unsigned long long)seed);
    if (!ok) return;
    static const int units[5] = {0, 32, 64, 128, 256};
    static uint8_t cm[MAX_W * MAX_H], gm[MAX_W * MAX_H], opaque[MAX_W * MAX_H];
    char what[256];
    for (int k = 0; k < 2; k++)
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            const izb_settings s = {.kernel = k ? IZB_KERNEL2 : IZB_KERNEL1, .unit_size = units[(seed + k) % 5]};
            snprintf(what, sizeof what, "seed %llu (e) cut-outs N %d kernel%d unit %d%s, %d tris, %dx%d",
                     (unsigned long long)seed, f.shadow_samples, s.kernel, s.unit_size, with_ids ? " ids" : "",
                     sc.nt, W, H);
            shade_both(p, what, &f, &s, depth, with_ids ? ids : NULL, cm, gm);
        }
    /* does the alpha test bite? the CPU's last mask (kernel2, ids) with every card opaque */
    CHECK(izb_set_cutouts(p->cpu, NULL) &&
              izb_shade_arrays_ids(p->cpu, &f, &(izb_settings){.kernel = IZB_KERNEL2}, depth, ids, opaque, NULL),
          "(e) seed %llu: opaque frame", (unsigned long long)seed);
    cut_bite += memcmp(opaque, cm, (size_t)npix) != 0;
}

int main(void)
{
    fixture_require_device("cuda_aa");
    pair p = {izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1, .quiet = true}),
              izb_create(&(izb_desc){.backend = IZB_BACKEND_CUDA})};
    CHECK(p.cpu && p.gpu && strcmp(izb_name(p.gpu), "cuda") == 0,
          "no CPU or CUDA backend with a device present");
    if (!p.cpu || !p.gpu) return test_done();
    long first, n;
    diff_seed_range(DEFAULT_SEEDS, &first, &n);
    (void)diff_auto_cull_changes; /* (differential_gen.h's, for the update tests) */
    for (long s = first; s < first + n; s++) {
        const int before = test_failed_;
        run_seed(&p, (uint64_t)s);
        if (test_failed_ != before) fprintf(stderr, "seed %ld FAILED (replay: IZB_DIFF_SEED=%ld)\n", s, s);
    }
    rng_state = 12345;
    check_border(&p);
    check_empty(&p);
    for (uint64_t s = 0; s < CUT_SEEDS; s++)
        check_cut(&p, s);
    printf("(e) %d cut-out seeds: the alpha test changed the mask on %ld\n", CUT_SEEDS, cut_bite);
    CHECK(cut_bite > 0, "(e) the alpha test changed no mask in %d cut-out seeds", CUT_SEEDS);
    printf("seeds %ld..%ld: %ld frames compared, %ld partly hidden pixels (N > 1, kernel1 radix), ids "
           "changed the "
           "mask on %ld of %ld\n",
           first, first + n - 1, frames_compared, partial_pixels, ids_changed, 2 * n);
    CHECK(partial_pixels > 0, "no partly hidden pixel: the seeds test nothing of the sub-samples");
    if (n >= 4) CHECK(spot_partial > 0, "no partly hidden pixel under a spot light in %ld seeds", n);
    printf("%ld partly hidden pixels under spot lights\n", spot_partial);
    if (n >= 4) CHECK(ids_changed > 0, "ids changed no mask in %ld seeds", n);
    izb_destroy(p.gpu);
    izb_destroy(p.cpu);
    return test_done();
}
