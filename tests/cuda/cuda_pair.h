/* cuda_pair.h — the CPU and the CUDA backend side by side on random cut-out scenes, for the tests
 * that hold the CUDA soft and area paths to the CPU backend bit for bit (test_cuda_soft,
 * test_cuda_area; the CPU backend is held to the brute force by their CPU twins). One frame shaded
 * on both must give the same mask, byte for byte with every CUDA pixel written, and the same
 * counts; the seeds come from PREFIX_SEEDS / PREFIX_SEED_BASE / PREFIX_SEED (seed_range.h), and a
 * failing seed prints the line that replays it. Header-only: one test per executable includes it. */
#ifndef TEST_CUDA_PAIR_H
#define TEST_CUDA_PAIR_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cutout_gen.h"
#include "gpu_fixture.h"
#include "izb.h"
#include "seed_range.h"
#include "test.h"
#include "test_cube.h"

#define SHOW_PIXELS 4 /* differing pixels printed per mismatch */

typedef struct pair {
    izb_backend *cpu, *gpu;
    const char *prefix; /* the test's environment prefix: PREFIX_SEED=K replays seed K */
} pair;

static long frames_compared;

/* The CPU backend on one thread (the reference) and the CUDA backend; exits 77 without a device. */
static bool pair_open(pair *p, const char *test_name, const char *prefix)
{
    fixture_require_device(test_name);
    *p = (pair){izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1, .quiet = true}),
                izb_create(&(izb_desc){.backend = IZB_BACKEND_CUDA}), prefix};
    CHECK(p->cpu && p->gpu && strcmp(izb_name(p->gpu), "cuda") == 0,
          "no CPU or CUDA backend with a device present");
    return p->cpu && p->gpu;
}

static void pair_close(pair *p)
{
    izb_destroy(p->gpu);
    izb_destroy(p->cpu);
}

/* One frame on both backends: the same mask and the same counts. The soft counts (penumbra tests
 * with the frame's bound and with the per-cell bounds) are sums over (triangle, cell): equal; the
 * pairs that ran their samples depend on when masks fill: at most the tests, zero exactly when the
 * CPU's are. */
static void shade_both(const pair *p, uint64_t seed, const char *what, const izb_recon *f,
                       const izb_settings *s, const float *depth, const uint32_t *ids, uint8_t *cm,
                       uint8_t *gm)
{
    const int W = f->width, H = f->height;
    memset(gm, 77, (size_t)W * H);
    izb_stats cs, gs;
    const bool cok = izb_shade_arrays_ids(p->cpu, f, s, depth, ids, cm, &cs);
    const bool gok = izb_shade_arrays_ids(p->gpu, f, s, depth, ids, gm, &gs);
    const unsigned long long sd = (unsigned long long)seed;
    CHECK(cok && gok, "seed %llu: %s: shade failed (cpu %d, cuda %d)", sd, what, cok, gok);
    if (!cok || !gok) return;
    int bad = 0;
    for (int i = 0; i < W * H; i++) {
        if (cm[i] == gm[i]) continue;
        if (bad < SHOW_PIXELS)
            fprintf(stderr, "seed %llu: %s: pixel %d (%d, %d) of %dx%d: cuda %d, cpu %d\n", sd, what, i,
                    i % W, i / W, W, H, gm[i], cm[i]);
        bad++;
    }
    frames_compared++;
    CHECK(bad == 0, "seed %llu: %s: cuda != cpu on %d of %d pixels (replay: %s_SEED=%llu)", sd, what, bad,
          W * H, p->prefix, sd);
    CHECK(gs.points == cs.points && gs.tris_after_cull == cs.tris_after_cull && gs.grid_w == cs.grid_w &&
              gs.grid_h == cs.grid_h && gs.soft_tests_global == cs.soft_tests_global &&
              gs.soft_tests == cs.soft_tests,
          "seed %llu: %s: stats cuda/cpu points %d/%d, after set-up %d/%d, grid %dx%d/%dx%d, tests global "
          "%.0f/%.0f, "
          "visited %.0f/%.0f",
          sd, what, gs.points, cs.points, gs.tris_after_cull, cs.tris_after_cull, gs.grid_w, gs.grid_h,
          cs.grid_w, cs.grid_h, gs.soft_tests_global, cs.soft_tests_global, gs.soft_tests, cs.soft_tests);
    CHECK(gs.soft_pairs <= gs.soft_tests && (gs.soft_pairs > 0) == (cs.soft_pairs > 0),
          "seed %llu: %s: pairs cuda %.0f (of %.0f tests), cpu %.0f", sd, what, gs.soft_pairs, gs.soft_tests,
          cs.soft_pairs);
}

/* A seed's scene: tests/cutout_gen.h's (a ground, random cards, loose triangles) plus one or two
 * closed opaque cubes (culling auto drops their faces that face away from every sample), with the
 * bounds grown to hold them. rng_state must be seeded. */
static void pair_gen_scene(cut_scene *s)
{
    cut_gen_scene(s);
    const int cubes = 1 + (int)(rnd() * 2);
    for (int c = 0; c < cubes && s->nt + 12 <= CUT_MAX_TRIS; c++) {
        const float ctr[3] = {(float)rnd_in(-2.5, 2.5), (float)rnd_in(0.3, 2.0), (float)rnd_in(-2.5, 2.5)};
        const int first = s->nt;
        s->nt = test_add_cube(s->xyz, s->nt, ctr, (float)rnd_in(0.2, 0.6), false);
        for (int t = first; t < s->nt; t++) {
            s->image_of[t] = IZB_OPAQUE;
            memset(s->uv + 6 * t, 0, 6 * sizeof(float));
        }
    }
    for (int i = 0; i < 3 * s->nt; i++)
        for (int k = 0; k < 3; k++)
            s->bmin[k] = fminf(s->bmin[k], s->xyz[3 * i + k]),
            s->bmax[k] = fmaxf(s->bmax[k], s->xyz[3 * i + k]);
}

/* The scene, and its cut-outs when with_cut, on both backends. */
static bool pair_set_scene(const pair *p, uint64_t seed, const cut_scene *s, const izb_cutouts *co,
                           bool with_cut)
{
    const unsigned long long sd = (unsigned long long)seed;
    bool ok = izb_set_scene(p->cpu, s->xyz, s->nt) && izb_set_scene(p->gpu, s->xyz, s->nt);
    CHECK(ok, "seed %llu: set_scene %d triangles", sd, s->nt);
    if (ok && with_cut) {
        ok = izb_set_cutouts(p->cpu, co) && izb_set_cutouts(p->gpu, co);
        CHECK(ok, "seed %llu: set_cutouts", sd);
    }
    return ok;
}

/* run_seed on each seed of the range (default_n from 0 unless the environment says otherwise); a
 * seed that failed anything prints its replay line. */
static void pair_run_seeds(const pair *p, long default_n, void (*run_seed)(const pair *, uint64_t),
                           long *first, long *n)
{
    diff_seed_range_named(p->prefix, default_n, first, n);
    for (long sd = *first; sd < *first + *n; sd++) {
        const int before = test_failed_;
        run_seed(p, (uint64_t)sd);
        if (test_failed_ != before)
            fprintf(stderr, "seed %ld FAILED (replay: %s_SEED=%ld)\n", sd, p->prefix, sd);
    }
}

#endif
