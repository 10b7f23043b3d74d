/* test_cuda_differential.c — seeded differential runs of the CUDA backend against the CPU backend
 * (issue 23 item 2), over the random cases of tests/differential_gen.h: the same seed gives the
 * same scene, light, camera, frame and motion as core_differential, which holds the CPU backend to
 * the brute force; here the CUDA backend must equal the CPU backend bit for bit. Per seed:
 *  (a) kernel1/kernel2 x radix/atomic x cull auto/off, without and with primitive ids
 *      (izb_shade_arrays_ids), the case's grid (adaptive, or a random fixed one) and bias, a unit
 *      size by seed (auto, 32, 64, 128, 256: kernel1's splitting needs small units here): the same
 *      mask byte for byte (every CUDA pixel written: its buffer starts at 77) and the same stats
 *      (points, triangles after culling, grid);
 *  (b) kernel1 with 32-thread units at twice the frame's size, without and with ids: where kernel1
 *      shares a triangle's points among several units (past 16 x unit points in its rows);
 *  (c) the rigid motion, cull auto and off with the case's kernel, binning and ids: izb_set_scene,
 *      a frame, izb_update_scene to the moved triangles, a frame — equal to a fresh izb_set_scene of
 *      them on CUDA and to the CPU backend's frame of them (the first frame equal too); on most
 *      seeds the light is a spot where a closed mesh moves to, so auto culling's decision changes.
 *  (d) on the seeds with a point light (differential_gen.h), its six faces combined
 *      (izb_shade_arrays_faces) with the case's settings for one cull x ids pair by seed.
 * On a mismatch: the seed, the config and the first differing pixels; IZB_DIFF_SEED=K replays one
 * seed (here or in core_differential), IZB_DIFF_SEEDS=N runs N seeds (default DEFAULT_SEEDS, sized
 * for the SIMT emulator in CI: see docs/testing.md) from IZB_DIFF_SEED_BASE (default 0), so that a
 * long run or a real GPU covers other seeds; IZB_DIFF_SECONDS=S starts no seed after S seconds
 * (scripts/device-run: as many seeds as 90 s allow). Exits 77 without a CUDA device. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "differential_gen.h"
#include "gpu_fixture.h"
#include "izb.h"
#include "test.h"

#define DEFAULT_SEEDS 64
#define SHOW_PIXELS 4 /* differing pixels printed per mismatch */

typedef struct pair {
    izb_backend *cpu, *gpu;
} pair;

/* what the seeds exercised (a comparison of all-lit masks would prove little) */
static long frames_compared;
static int seeds_mixed, seeds_light_inside, seeds_ids_differs, seeds_update_cull_changed, seeds_point;

/* a and b byte for byte; on a mismatch the seed, the config and the first differing pixels */
static bool same_mask(uint64_t seed, const char *what, const char *an, const uint8_t *a, const char *bn,
                      const uint8_t *b, int W, int H)
{
    int bad = 0;
    for (int i = 0; i < W * H; i++) {
        if (a[i] == b[i]) continue;
        if (bad < SHOW_PIXELS)
            fprintf(stderr, "seed %llu: %s: pixel %d (%d, %d) of %dx%d: %s %d, %s %d\n",
                    (unsigned long long)seed, what, i, i % W, i / W, W, H, an, a[i], bn, b[i]);
        bad++;
    }
    frames_compared++;
    CHECK(bad == 0, "seed %llu: %s: %s != %s on %d of %d pixels (replay: IZB_DIFF_SEED=%llu)",
          (unsigned long long)seed, what, an, bn, bad, W * H, (unsigned long long)seed);
    return bad == 0;
}

/* One frame on both backends; masks and stats must agree. cm, gm (out): the masks. */
static void shade_both(const pair *p, uint64_t seed, const char *what, const izb_recon *f,
                       const izb_settings *s, const float *depth, const uint32_t *ids, uint8_t *cm,
                       uint8_t *gm)
{
    const int W = f->width, H = f->height;
    memset(gm, 77, (size_t)W * H); /* every pixel must be written */
    izb_stats cs, gs;
    const bool cok = izb_shade_arrays_ids(p->cpu, f, s, depth, ids, cm, &cs);
    const bool gok = izb_shade_arrays_ids(p->gpu, f, s, depth, ids, gm, &gs);
    CHECK(cok && gok, "seed %llu: %s: shade failed (cpu %d, cuda %d)", (unsigned long long)seed, what, cok,
          gok);
    if (!cok || !gok) return;
    same_mask(seed, what, "cuda", gm, "cpu", cm, W, H);
    CHECK(gs.points == cs.points && gs.tris_after_cull == cs.tris_after_cull && gs.grid_w == cs.grid_w &&
              gs.grid_h == cs.grid_h,
          "seed %llu: %s: stats cuda/cpu points %d/%d, after cull %d/%d, grid %dx%d/%dx%d",
          (unsigned long long)seed, what, gs.points, cs.points, gs.tris_after_cull, cs.tris_after_cull,
          gs.grid_w, gs.grid_h, cs.grid_w, cs.grid_h);
}

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Is the spot light inside a closed mesh, so that auto must keep that mesh's back faces (where a
 * backend treating the spot as directional, or culling with stale boxes, goes wrong)? */
static bool light_inside_closed(const diff_case *dc)
{
    izb_closed cl;
    if (!dc->f.light_is_spot || !izb_closed_find(dc->g.xyz, dc->g.nt, &cl)) return false;
    izb_cull_view v = {.mode = IZB_CULL_AUTO, .comp = cl.comp, .boxes = cl.boxes, .light_is_spot = 1};
    izb_light_origin(dc->f.light, v.light_origin);
    bool inside = false;
    for (int t = 0; t < dc->g.nt && !inside; t++)
        inside = cl.comp[t] != IZB_OPEN && !izb_may_cull(&v, (uint32_t)t);
    izb_closed_free(&cl);
    return inside;
}

static bool differ(const uint8_t *a, const uint8_t *b, int n)
{
    return memcmp(a, b, (size_t)n) != 0;
}

static void run_seed(const pair *p, uint64_t seed)
{
    static diff_case dc;
    diff_gen_case(&dc, seed);
    const scene_gen *const g = &dc.g;
    const int W = dc.W, H = dc.H, npix = W * H;
    const char *lname = light_kind_names[dc.light_kind];
    char what[256];
    static uint8_t cm[MAX_W * MAX_H], gm[MAX_W * MAX_H];
    static uint8_t cpu_mask[2][IZB_CULL_COUNT][MAX_W * MAX_H]; /* [ids][cull], kernel1 radix */

    const bool set = izb_set_scene(p->cpu, g->xyz, g->nt) && izb_set_scene(p->gpu, g->xyz, g->nt);
    CHECK(set, "seed %llu: set_scene %d triangles", (unsigned long long)seed, g->nt);
    if (!set) return;
    /* (a) every kernel x binning x cull auto/off, without and with ids. The unit size (the CUDA
     * backend's alone: kernel2's unit layout and kernel1's launch follow it) by seed: auto on half
     * of them, else 32..256 in turn. */
    static const int units[8] = {0, 32, 0, 64, 0, 128, 0, 256};
    const int unit = units[seed % 8];
    for (int k = IZB_KERNEL1; k <= IZB_KERNEL2; k++)
        for (int bn = IZB_BINNING_RADIX; bn <= IZB_BINNING_ATOMIC; bn++)
            for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c += IZB_CULL_OFF - IZB_CULL_AUTO)
                for (int with_ids = 0; with_ids < 2; with_ids++) {
                    izb_settings s = {.kernel = (izb_kernel)k,
                                      .binning = (izb_binning)bn,
                                      .cull = (izb_cull)c,
                                      .unit_size = unit,
                                      .bias = dc.bias};
                    if (dc.rand_grid) s.grid_w = dc.gw, s.grid_h = dc.gh;
                    snprintf(what, sizeof what,
                             "(a) kernel%d %s cull %s%s unit %d%s bias %g, %s light, %d tris", k,
                             izb_binning_names[bn], izb_cull_names[c], with_ids ? " ids" : "", unit,
                             dc.rand_grid ? " random grid" : "", dc.bias, lname, g->nt);
                    shade_both(p, seed, what, &dc.f, &s, dc.depth, with_ids ? dc.ids : NULL, cm, gm);
                    if (k == IZB_KERNEL1 && bn == IZB_BINNING_RADIX)
                        memcpy(cpu_mask[with_ids][c], cm, (size_t)npix);
                }
    {
        int sh = 0, lit = 0;
        for (int i = 0; i < npix; i++) {
            izb_point pt;
            if (izb_reconstruct(&dc.f, i % W, i / W, dc.depth[i], &pt) != IZB_SAMPLE) continue;
            if (cpu_mask[0][IZB_CULL_AUTO][i])
                lit++;
            else
                sh++;
        }
        seeds_mixed += sh > 0 && lit > 0;
    }
    seeds_light_inside += light_inside_closed(&dc);
    seeds_ids_differs += differ(cpu_mask[0][IZB_CULL_AUTO], cpu_mask[1][IZB_CULL_AUTO], npix);

    /* (b) kernel1 with 32-thread units at twice the frame's size, without and with ids: kernel1
     * shares a triangle's points among units only past 2^IZB_CUDA_K1_SPLIT_WORK_LOG2 x unit points
     * in its rows, which the small frames' occluders rarely reach (a planted bug that drops the
     * last share passed (a) on 60 seeds) */
    {
        static float depth2[4 * MAX_W * MAX_H];
        static uint32_t ids2[4 * MAX_W * MAX_H];
        static uint8_t cm2[4 * MAX_W * MAX_H], gm2[4 * MAX_W * MAX_H];
        const izb_recon f2 = izb_frame_make(&dc.cam, &dc.l, g->bmin, g->bmax, 2 * W, 2 * H);
        ray_cast_depth(&dc.cam, &f2, g->xyz, g->nt, depth2, ids2);
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            const izb_settings s = {.kernel = IZB_KERNEL1,
                                    .binning = seed % 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                                    .unit_size = 32,
                                    .bias = dc.bias};
            snprintf(what, sizeof what, "(b) %dx%d kernel1 %s unit 32%s bias %g, %s light, %d tris", 2 * W,
                     2 * H, izb_binning_names[s.binning], with_ids ? " ids" : "", dc.bias, lname, g->nt);
            shade_both(p, seed, what, &f2, &s, depth2, with_ids ? ids2 : NULL, cm2, gm2);
        }
    }

    /* (d) a point light's faces combined (the scene is still g) */
    if (dc.point) {
        const int q = (int)(seed % 4);
        const izb_settings s = {.kernel = dc.pt_kernel[q], .binning = dc.pt_binning[q],
                                .cull = q & 1 ? IZB_CULL_OFF : IZB_CULL_AUTO, .bias = dc.bias};
        const uint32_t *ids = q & 2 ? dc.ids : NULL;
        static uint8_t scratch[MAX_W * MAX_H];
        snprintf(what, sizeof what, "(d) point light (%s position) kernel%d %s cull %s%s, %d tris", lname, s.kernel,
                 izb_binning_names[s.binning], izb_cull_names[s.cull], ids ? " ids" : "", g->nt);
        memset(gm, 77, (size_t)npix);
        const bool cok = izb_shade_arrays_faces(p->cpu, dc.faces, dc.nfaces, &s, dc.depth, ids, cm, scratch, NULL);
        const bool gok = izb_shade_arrays_faces(p->gpu, dc.faces, dc.nfaces, &s, dc.depth, ids, gm, scratch, NULL);
        CHECK(cok && gok, "seed %llu: %s: shade failed (cpu %d, cuda %d)", (unsigned long long)seed, what, cok, gok);
        if (cok && gok) same_mask(seed, what, "cuda", gm, "cpu", cm, W, H);
        seeds_point++;
    }

    /* (c) update after the rigid motion vs a fresh set_scene on CUDA and vs the CPU */
    static uint8_t mu[MAX_W * MAX_H], mf[MAX_W * MAX_H], mc[MAX_W * MAX_H];
    for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c += IZB_CULL_OFF - IZB_CULL_AUTO) {
        const izb_settings s = {
            .kernel = dc.upd_kernel[c], .binning = dc.upd_binning[c], .cull = (izb_cull)c, .bias = dc.bias};
        const bool ids = dc.upd_ids[c];
        snprintf(what, sizeof what, "(c) update kernel%d %s cull %s%s, %s light moved to %s", s.kernel,
                 izb_binning_names[s.binning], izb_cull_names[c], ids ? " ids" : "", lname,
                 dc.lm.type == LIGHT_SPOT ? "spot" : "directional");
        bool ok = izb_set_scene(p->cpu, g->xyz, g->nt) && izb_set_scene(p->gpu, g->xyz, g->nt);
        CHECK(ok, "seed %llu: %s: set_scene", (unsigned long long)seed, what);
        if (!ok) continue;
        char w0[300];
        snprintf(w0, sizeof w0, "%s, frame 0", what);
        shade_both(p, seed, w0, &dc.f0, &s, dc.depth0, ids ? dc.ids0 : NULL, cm, gm);
        memset(mu, 77, (size_t)npix);
        memset(mf, 77, (size_t)npix);
        ok = izb_update_scene(p->gpu, dc.moved, g->nt) &&
             izb_shade_arrays_ids(p->gpu, &dc.f1, &s, dc.depth1, ids ? dc.ids1 : NULL, mu, NULL) &&
             izb_set_scene(p->gpu, dc.moved, g->nt) &&
             izb_shade_arrays_ids(p->gpu, &dc.f1, &s, dc.depth1, ids ? dc.ids1 : NULL, mf, NULL) &&
             izb_set_scene(p->cpu, dc.moved, g->nt) &&
             izb_shade_arrays_ids(p->cpu, &dc.f1, &s, dc.depth1, ids ? dc.ids1 : NULL, mc, NULL);
        CHECK(ok, "seed %llu: %s: update, fresh set_scene or a frame failed", (unsigned long long)seed, what);
        if (!ok) continue;
        same_mask(seed, what, "cuda update", mu, "cuda fresh set_scene", mf, W, H);
        same_mask(seed, what, "cuda update", mu, "cpu fresh set_scene", mc, W, H);
    }
    seeds_update_cull_changed += diff_auto_cull_changes(&dc);
}

int main(void)
{
    fixture_require_device("cuda_differential");
    pair p = {izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1, .quiet = true}),
              izb_create(&(izb_desc){.backend = IZB_BACKEND_CUDA})};
    CHECK(p.cpu && p.gpu && strcmp(izb_name(p.gpu), "cuda") == 0,
          "no CPU or CUDA backend with a device present");
    if (!p.cpu || !p.gpu) return test_done();
    long first, n;
    diff_seed_range(DEFAULT_SEEDS, &first, &n);
    /* IZB_DIFF_SECONDS=S: start no seed after S seconds (a long run inside a time limit) */
    const char *e = getenv("IZB_DIFF_SECONDS");
    const double budget = e && atof(e) > 0 ? atof(e) : INFINITY, t0 = now_s();
    long done = 0;
    for (long s = first; s < first + n && now_s() - t0 < budget; s++, done++) {
        const int before = test_failed_;
        run_seed(&p, (uint64_t)s);
        if (test_failed_ != before) fprintf(stderr, "seed %ld FAILED (replay: IZB_DIFF_SEED=%ld)\n", s, s);
    }
    n = done;
    izb_destroy(p.gpu);
    izb_destroy(p.cpu);
    printf(
        "seeds %ld..%ld in %.1f s: %ld frames compared; seeds with shadowed and lit points %d, with the spot "
        "light inside a closed mesh %d, where ids change the mask %d, where auto culling changed with the "
        "motion %d, with a point light %d\n",
        first, first + n - 1, now_s() - t0, frames_compared, seeds_mixed, seeds_light_inside,
        seeds_ids_differs, seeds_update_cull_changed, seeds_point);
    if (n >= 20) { /* the seeds must exercise what they compare */
        CHECK(seeds_mixed * 2 >= n, "only %d of %ld seeds have both shadowed and lit points", seeds_mixed, n);
        CHECK(seeds_ids_differs * 20 >= n, "ids changed the mask in only %d of %ld seeds", seeds_ids_differs,
              n);
        CHECK(seeds_light_inside * 10 >= n, "the spot light was inside a closed mesh in only %d of %ld seeds",
              seeds_light_inside, n);
        CHECK(seeds_update_cull_changed * 10 >= n,
              "auto culling changed with the motion in only %d of %ld seeds", seeds_update_cull_changed, n);
        CHECK(seeds_point * 10 >= n, "a point light on only %d of %ld seeds", seeds_point, n);
    }
    return test_done();
}
