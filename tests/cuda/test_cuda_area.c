/* test_cuda_area.c — the CUDA backend's area lights (cuda/raster_soft.cu with AREA: a spot with a
 * rectangle or disk emitter, core/izb_area.h) against the CPU backend, bit for bit. The CPU backend
 * is held to the brute force (every point x triangle x sample, no grid) and to a double-precision
 * segment test by cpu_area, and with cut-outs by core_cutout_differential; here the CUDA mask must
 * equal it byte for byte.
 *
 * Per seed: a random scene of tests/cutout_gen.h (a ground, random cards, loose triangles) plus one
 * or two closed cubes (culling auto drops their faces that face away from every sample, and keeps
 * a cube whose box the emitter may touch: izb_area_reach), a random spot outside the scene or among
 * the cards, a random camera and a small frame with depth and primitive ids from a double ray cast;
 * a random emitter by seed — tiny (1e-3..1e-2 units), small (0.1..1), large (1..3 units: it reaches past
 * cards, whose triangles then cross the light's plane and take unbounded boxes), a square — a
 * rectangle or a disk, M 16 or 64 (every fourth seed 128); cut-outs on every other seed, on a few
 * seeds a random fixed grid. Frames: kernel1/kernel2 x radix/atomic x ids off/on, cull auto/off
 * alternating, a unit size by seed, and once per seed kernel1 at twice the frame's size. Checked:
 * the mask byte for byte (every CUDA pixel written: its buffer starts at 77), the stats the CPU
 * fills — points, survivors of the set-up (culling included), grid, the penumbra tests for the
 * frame's and the per-cell bounds — and the pairs that ran samples (at most the tests, zero exactly
 * when the CPU's are). The seeds must exercise it: partial shadow on at least half of them, and the
 * area mask differing from the hard spot's on at least half.
 * Then check_edges: area, hard spot (size 0), area again; M changing between frames; a directional
 * soft frame between area ones (the cull view's spot and reach must not go stale either way); sky
 * only; no triangles (the hard spot's mask: lit in the cone). check_reach: an emitter reaching into
 * a closed cube under culling auto.
 * IZB_CUDA_AREA_SEEDS=N runs N seeds (default DEFAULT_SEEDS, sized for the SIMT emulator in CI)
 * from IZB_CUDA_AREA_SEED_BASE (default 0); IZB_CUDA_AREA_SEED=K replays one. Exits 77 without a
 * CUDA device. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_pair.h"
#include "izb.h"
#include "izb_area.h"
#include "ray_cast.h"
#include "view.h"

#define DEFAULT_SEEDS 16
#define MAX_W 40
#define MAX_H 30

static int seeds_partial, seeds_soft;

/* The seed's emitter: size class by seed (tiny, small, large, square), shape and M drawn */
static const char *gen_emitter(uint64_t seed, izb_recon *f)
{
    static const char *names[4] = {"tiny", "small", "large", "square"};
    const int cls = (int)(seed % 4);
    const double lo = cls == 0 ? 1e-3 : cls == 2 ? 1.0 : 0.1, hi = cls == 0 ? 1e-2 : cls == 2 ? 3.0 : 1.0;
    f->light_size[0] = (float)rnd_in(lo, hi);
    f->light_size[1] = cls == 3 ? f->light_size[0] : (float)rnd_in(lo, hi);
    f->light_disk = rnd() < 0.4 ? IZB_AREA_DISK : IZB_AREA_RECT;
    f->light_samples = seed % 4 == 3 ? 128 : seed % 2 ? 64 : 16;
    return names[cls];
}

static void run_seed(const pair *p, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0xA4EA11D7ull;
    if (!rng_state) rng_state = 1;
    for (int k = 0; k < 4; k++) (void)rnd();
    const unsigned long long sd = (unsigned long long)seed;
    static cut_scene s;
    pair_gen_scene(&s);
    const light l = cut_gen_light(&s, rnd() < 0.5 ? CUT_L_SPOT_OUT : CUT_L_SPOT_AMONG);
    const camera cam = cut_gen_camera(s.bmin, s.bmax);
    const int W = 16 + (int)(rnd() * (MAX_W - 15)), H = 12 + (int)(rnd() * (MAX_H - 11)), N = W * H;
    izb_recon f = izb_frame_make(&cam, &l, s.bmin, s.bmax, W, H);
    const char *cls = gen_emitter(seed, &f);
    static float depth[4 * MAX_W * MAX_H];
    static uint32_t ids[4 * MAX_W * MAX_H];
    ray_cast_depth(&cam, &f, s.xyz, s.nt, depth, ids);
    const bool rand_grid = rnd() < 0.25;
    const int gw = 1 + (int)(rnd() * 16), gh = 1 + (int)(rnd() * 16);
    static const int units[5] = {0, 32, 64, 128, 256};
    const int unit = units[seed % 5];
    const bool with_cut = seed % 2 == 0;

    const izb_cutouts co = cut_cutouts_of(&s);
    bool ok = pair_set_scene(p, seed, &s, &co, with_cut);
    if (!ok) return;
    char what[256];
    static uint8_t cm[4 * MAX_W * MAX_H], gm[4 * MAX_W * MAX_H], hard[MAX_W * MAX_H];
    { /* the hard spot's mask (size 0, the same cut-outs), to see that the emitter changes it */
        izb_recon h = f;
        h.light_size[0] = h.light_size[1] = 0.0f;
        ok = izb_shade_arrays_ids(p->cpu, &h, &(izb_settings){0}, depth, NULL, hard, NULL);
        CHECK(ok, "seed %llu: the CPU's hard spot frame", sd);
    }
    bool partial = false, soft = false;
    for (int k = IZB_KERNEL1; k <= IZB_KERNEL2; k++)
        for (int bn = IZB_BINNING_RADIX; bn <= IZB_BINNING_ATOMIC; bn++)
            for (int with_ids = 0; with_ids < 2; with_ids++) {
                const izb_cull cull = (k + bn + with_ids) % 2 ? IZB_CULL_OFF : IZB_CULL_AUTO;
                izb_settings st = {.kernel = (izb_kernel)k, .binning = (izb_binning)bn, .cull = cull, .unit_size = unit};
                if (rand_grid) st.grid_w = gw, st.grid_h = gh;
                snprintf(what, sizeof what, "kernel%d %s cull %s%s unit %d%s, M %d, %s %s %.4g x %.4g, %d tris%s", k,
                         izb_binning_names[bn], izb_cull_names[cull], with_ids ? " ids" : "", unit,
                         rand_grid ? " random grid" : "", f.light_samples, cls, f.light_disk ? "disk" : "rect",
                         (double)f.light_size[0], (double)f.light_size[1], s.nt, with_cut ? ", cut-outs" : "");
                shade_both(p, seed, what, &f, &st, depth, with_ids ? ids : NULL, cm, gm);
                for (int i = 0; i < N; i++) partial |= cm[i] > 0 && cm[i] < 255;
                if (!with_ids) soft |= memcmp(cm, hard, (size_t)N) != 0;
            }
    seeds_partial += partial;
    seeds_soft += soft;

    /* kernel1 at twice the size: more points per triangle, more units sharing a point's mask */
    {
        izb_recon f2b = izb_frame_make(&cam, &l, s.bmin, s.bmax, 2 * W, 2 * H);
        f2b.light_size[0] = f.light_size[0], f2b.light_size[1] = f.light_size[1];
        f2b.light_disk = f.light_disk, f2b.light_samples = f.light_samples;
        ray_cast_depth(&cam, &f2b, s.xyz, s.nt, depth, ids);
        const bool with_ids = seed % 4 >= 2;
        const izb_settings st = {.kernel = IZB_KERNEL1,
                                 .binning = seed % 3 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                                 .cull = IZB_CULL_AUTO,
                                 .unit_size = 32};
        snprintf(what, sizeof what, "%dx%d kernel1 %s unit 32%s, M %d, %s", 2 * W, 2 * H,
                 izb_binning_names[st.binning], with_ids ? " ids" : "", f.light_samples, cls);
        shade_both(p, seed, what, &f2b, &st, depth, with_ids ? ids : NULL, cm, gm);
    }
}

/* Frames around the seeds' ones, on one scene with a spot among the cards: area frames with M
 * growing and shrinking (16 -> 256 -> 64 -> 16), a hard spot frame (size 0) between area ones, a
 * directional soft frame between them (each turns the cull view's spot and reach on or off), a
 * frame of sky only (no points), and a scene of no triangles (every point lit) — each equal to the
 * CPU's. */
static void check_edges(const pair *p)
{
    rng_state = 0xA4EA5EEDull;
    static cut_scene s;
    cut_gen_scene(&s);
    const float ctr[3] = {0.5f, 1.2f, -0.4f};
    s.nt = test_add_cube(s.xyz, s.nt, ctr, 0.5f, false);
    for (int i = 0; i < 3 * s.nt; i++)
        for (int k = 0; k < 3; k++)
            s.bmin[k] = fminf(s.bmin[k], s.xyz[3 * i + k]), s.bmax[k] = fmaxf(s.bmax[k], s.xyz[3 * i + k]);
    const light l = cut_gen_light(&s, CUT_L_SPOT_AMONG);
    const light ld = cut_gen_light(&s, CUT_L_DIR);
    const camera cam = cut_gen_camera(s.bmin, s.bmax);
    enum { EW = 20, EH = 16 };
    izb_recon f = izb_frame_make(&cam, &l, s.bmin, s.bmax, EW, EH);
    izb_recon fd = izb_frame_make(&cam, &ld, s.bmin, s.bmax, EW, EH);
    fd.light_angle = (float)(3.0 * M_PI / 180.0), fd.light_samples = 32;
    static float depth[EW * EH], depth_d[EW * EH], sky[EW * EH];
    static uint32_t ids[EW * EH], ids_d[EW * EH];
    static uint8_t cm[EW * EH], gm[EW * EH];
    ray_cast_depth(&cam, &f, s.xyz, s.nt, depth, ids);
    ray_cast_depth(&cam, &fd, s.xyz, s.nt, depth_d, ids_d);
    CHECK(izb_set_scene(p->cpu, s.xyz, s.nt) && izb_set_scene(p->gpu, s.xyz, s.nt), "edges: set_scene");
    const izb_settings st = {.kernel = IZB_KERNEL2, .binning = IZB_BINNING_ATOMIC, .cull = IZB_CULL_AUTO};
    const int ms[4] = {16, 256, 64, 16};
    char what[96];
    f.light_size[0] = 0.8f, f.light_size[1] = 0.4f, f.light_disk = IZB_AREA_RECT;
    for (int k = 0; k < 4; k++) {
        f.light_samples = ms[k];
        snprintf(what, sizeof what, "edges: area M %d after M %d", ms[k], k ? ms[k - 1] : 0);
        shade_both(p, 1000, what, &f, &st, depth, ids, cm, gm);
        if (k == 1) { /* a hard spot frame between area ones */
            izb_recon h = f;
            h.light_size[0] = h.light_size[1] = 0.0f;
            shade_both(p, 1000, "edges: a hard spot frame after area ones", &h, &st, depth, ids, cm, gm);
        }
        if (k == 2) /* a directional soft frame between area ones */
            shade_both(p, 1000, "edges: a directional soft frame after area ones", &fd, &st, depth_d, ids_d, cm, gm);
    }
    f.light_disk = IZB_AREA_DISK;
    shade_both(p, 1000, "edges: sky only (no points)", &f, &st, sky, NULL, cm, gm);
    CHECK(izb_set_scene(p->cpu, s.xyz, 0) && izb_set_scene(p->gpu, s.xyz, 0), "edges: an empty scene");
    shade_both(p, 1000, "edges: no triangles", &f, &st, depth, NULL, cm, gm);
    /* nothing to hide any sample: the hard spot's mask (lit inside the cone, 0 outside it) */
    izb_recon h = f;
    h.light_size[0] = h.light_size[1] = 0.0f;
    CHECK(izb_shade_arrays_ids(p->cpu, &h, &st, depth, NULL, cm, NULL), "edges: no triangles: the hard spot");
    int lit = 0;
    for (int i = 0; i < EW * EH; i++) {
        lit += gm[i] == 255;
        if (gm[i] != cm[i]) {
            CHECK(false, "edges: no triangles: pixel %d is %d, the hard spot's %d", i, gm[i], cm[i]);
            break;
        }
    }
    CHECK(lit > 0, "edges: no triangles: no pixel lit");
}

/* An emitter reaching into a closed cube, its centre just above the top face: culling auto must
 * count the cube as holding the light (izb_cull_view.light_reach, as the CPU does), or it drops the
 * faces every sample lies behind — the sides and the bottom — and the samples inside the cube shine
 * through them onto the ground. The frame must have partial shadow for that to show. */
static void check_reach(const pair *p)
{
    static float xyz[9 * 14];
    const float g[4][3] = {{-3, 0, -3}, {3, 0, -3}, {3, 0, 3}, {-3, 0, 3}};
    const int q[6] = {0, 2, 1, 0, 3, 2};
    for (int k = 0; k < 6; k++) memcpy(xyz + 3 * k, g[q[k]], sizeof g[0]);
    const float ctr[3] = {0.0f, 0.6f, 0.0f};
    const int nt = test_add_cube(xyz, 2, ctr, 0.4f, false);
    const float bmin[3] = {-3, 0, -3}, bmax[3] = {3, 1, 3};
    const light l = {.type = LIGHT_SPOT, .pos = {0.0f, 1.05f, 0.0f}, .dir = {1, -1, 0}, .cone_deg = 120};
    const camera cam = {.pos = {4.0f, 6.0f, 1.0f}, .pitch = -55.0f, .yaw = -75.0f, .fovy = 60};
    camera c = cam;
    camera_fit_clip(&c, bmin, bmax);
    enum { RW = 24, RH = 18 };
    izb_recon f = izb_frame_make(&c, &l, bmin, bmax, RW, RH);
    f.light_size[0] = f.light_size[1] = 0.7f, f.light_samples = 64, f.light_disk = IZB_AREA_RECT;
    static float depth[RW * RH];
    static uint32_t ids[RW * RH];
    static uint8_t cm[RW * RH], gm[RW * RH];
    ray_cast_depth(&c, &f, xyz, nt, depth, ids);
    CHECK(izb_set_scene(p->cpu, xyz, nt) && izb_set_scene(p->gpu, xyz, nt), "reach: set_scene");
    int partial = 0;
    for (int k = IZB_KERNEL1; k <= IZB_KERNEL2; k++) {
        const izb_settings st = {.kernel = (izb_kernel)k, .cull = IZB_CULL_AUTO};
        shade_both(p, 2000, k == IZB_KERNEL1 ? "reach: kernel1" : "reach: kernel2", &f, &st, depth, NULL, cm, gm);
        for (int i = 0; i < RW * RH; i++) partial += cm[i] > 0 && cm[i] < 255;
    }
    CHECK(partial > 0, "reach: no partial shadow: the frame shows nothing");
}

int main(void)
{
    pair p;
    if (!pair_open(&p, "cuda_area", "IZB_CUDA_AREA")) return test_done();
    long first, n;
    pair_run_seeds(&p, DEFAULT_SEEDS, run_seed, &first, &n);
    check_edges(&p);
    check_reach(&p);
    pair_close(&p);
    printf("seeds %ld..%ld: %ld frames compared; partial shadow on %d seeds; the area mask differs from the hard "
           "spot's on %d\n",
           first, first + n - 1, frames_compared, seeds_partial, seeds_soft);
    if (n >= DEFAULT_SEEDS) { /* the seeds must exercise what they compare */
        CHECK(seeds_partial * 2 >= n, "partial shadow on only %d of %ld seeds", seeds_partial, n);
        CHECK(seeds_soft * 2 >= n, "the area mask differs from the hard spot's on only %d of %ld seeds", seeds_soft,
              n);
    }
    return test_done();
}
