/* test_cuda_soft.c — the CUDA backend's soft shadows (cuda/raster_soft.cu: a directional light with
 * an angular size, issue 20 item 2) against the CPU backend, bit for bit. The CPU backend is held
 * to the brute force (every point x triangle x sample, no grid) by cpu_soft and, with cut-outs, by
 * core_cutout_differential; here the CUDA mask must equal it byte for byte.
 *
 * Per seed: a random scene of tests/cutout_gen.h (a ground, random cards, loose triangles) plus one
 * or two closed cubes (culling auto drops their faces that face away from every sample), a random
 * directional or grazing light, a random camera and a small frame with depth and primitive ids from
 * a double ray cast; an angle from tiny (0.01 degrees) to the maximum (20) and M by seed: 16 and 64,
 * every fifth seed 256 (eight mask words); cut-outs (random alpha textures) on every other seed,
 * on a few seeds a random fixed grid. Frames: kernel1/kernel2 x radix/atomic x ids off/on, cull
 * auto/off alternating, a unit size by seed (auto, 32, 64, 128, 256), and once per seed kernel1 at
 * twice the frame's size. Checked: the mask byte for byte (every CUDA pixel written: its buffer
 * starts at 77), the stats the CPU fills — points, survivors of the soft set-up, grid, the
 * penumbra tests with the frame's bound and with the per-cell bounds (sums over (triangle, cell):
 * equal) — and the pairs that ran their samples (they depend on when masks fill: at most the
 * visited tests, and zero exactly when the CPU's are). The seeds must exercise it: partial shadow
 * (0 < byte < 255) on at least half the seeds, and the alpha test changing the CPU's soft mask on some.
 * Then check_edges: M changing between frames, a hard frame among soft ones, sky only, no triangles.
 * IZB_CUDA_SOFT_SEEDS=N runs N seeds (default DEFAULT_SEEDS, sized for the SIMT emulator in CI)
 * from IZB_CUDA_SOFT_SEED_BASE (default 0); IZB_CUDA_SOFT_SEED=K replays one. Exits 77 without a
 * CUDA device. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_pair.h"
#include "izb.h"
#include "izb_soft.h"
#include "ray_cast.h"

#define DEFAULT_SEEDS 16
#define MAX_W 40
#define MAX_H 30

static int seeds_partial, seeds_cut, seeds_cut_bite;

static void run_seed(const pair *p, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x50F75AD0C0DAull;
    if (!rng_state) rng_state = 1;
    for (int k = 0; k < 4; k++) (void)rnd();
    const unsigned long long sd = (unsigned long long)seed;
    static cut_scene s;
    pair_gen_scene(&s);
    const light l = cut_gen_light(&s, rnd() < 0.75 ? CUT_L_DIR : CUT_L_GRAZE);
    const camera cam = cut_gen_camera(s.bmin, s.bmax);
    const int W = 16 + (int)(rnd() * (MAX_W - 15)), H = 12 + (int)(rnd() * (MAX_H - 11)), N = W * H;
    izb_recon f = izb_frame_make(&cam, &l, s.bmin, s.bmax, W, H);
    const double r = rnd();
    const double deg = r < 0.15 ? 0.01 : r < 0.3 ? 20.0 : r < 0.65 ? rnd_in(0.1, 3.0) : rnd_in(3.0, 20.0);
    f.light_angle = (float)(deg * M_PI / 180.0);
    if (f.light_angle > (float)(IZB_SOFT_MAX_ANGLE_DEG * M_PI / 180.0)) f.light_angle = nextafterf(f.light_angle, 0.0f);
    f.light_samples = seed % 5 == 4 ? 256 : seed % 2 ? 64 : 16;
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
    static uint8_t cm[4 * MAX_W * MAX_H], gm[4 * MAX_W * MAX_H], opaque[MAX_W * MAX_H];
    bool partial = false, bite = false;
    for (int k = IZB_KERNEL1; k <= IZB_KERNEL2; k++)
        for (int bn = IZB_BINNING_RADIX; bn <= IZB_BINNING_ATOMIC; bn++)
            for (int with_ids = 0; with_ids < 2; with_ids++) {
                const izb_cull cull = (k + bn + with_ids) % 2 ? IZB_CULL_OFF : IZB_CULL_AUTO;
                izb_settings st = {.kernel = (izb_kernel)k, .binning = (izb_binning)bn, .cull = cull, .unit_size = unit};
                if (rand_grid) st.grid_w = gw, st.grid_h = gh;
                snprintf(what, sizeof what, "kernel%d %s cull %s%s unit %d%s, M %d, %.3f deg, %d tris%s", k,
                         izb_binning_names[bn], izb_cull_names[cull], with_ids ? " ids" : "", unit,
                         rand_grid ? " random grid" : "", f.light_samples, deg, s.nt, with_cut ? ", cut-outs" : "");
                shade_both(p, seed, what, &f, &st, depth, with_ids ? ids : NULL, cm, gm);
                for (int i = 0; i < N; i++) partial |= cm[i] > 0 && cm[i] < 255;
                if (with_cut && k == IZB_KERNEL1 && bn == IZB_BINNING_RADIX) { /* does the alpha test bite? */
                    ok = izb_set_cutouts(p->cpu, NULL) &&
                         izb_shade_arrays_ids(p->cpu, &f, &st, depth, with_ids ? ids : NULL, opaque, NULL) &&
                         izb_set_cutouts(p->cpu, &co);
                    CHECK(ok, "seed %llu: %s: the CPU's opaque frame", sd, what);
                    bite |= memcmp(cm, opaque, (size_t)N) != 0;
                }
            }
    seeds_partial += partial;
    seeds_cut += with_cut;
    seeds_cut_bite += bite;

    /* kernel1 at twice the size: more points per triangle, more units sharing a point's mask */
    {
        izb_recon f2b = izb_frame_make(&cam, &l, s.bmin, s.bmax, 2 * W, 2 * H);
        f2b.light_angle = f.light_angle, f2b.light_samples = f.light_samples;
        ray_cast_depth(&cam, &f2b, s.xyz, s.nt, depth, ids);
        const bool with_ids = seed % 4 >= 2;
        const izb_settings st = {.kernel = IZB_KERNEL1,
                                 .binning = seed % 3 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                                 .cull = IZB_CULL_AUTO,
                                 .unit_size = 32};
        snprintf(what, sizeof what, "%dx%d kernel1 %s unit 32%s, M %d, %.3f deg", 2 * W, 2 * H,
                 izb_binning_names[st.binning], with_ids ? " ids" : "", f.light_samples, deg);
        shade_both(p, seed, what, &f2b, &st, depth, with_ids ? ids : NULL, cm, gm);
    }
}

/* Frames around the seeds' ones, on one scene: M growing and shrinking between frames (the mask
 * words per point change: 1 -> 8 -> 2 -> 1), a hard frame after soft ones and a soft one after it
 * (the hard path's culling is skipped in soft frames: nothing of it may go stale), a frame of sky
 * only (no points), and a scene of no triangles (every point lit) — each equal to the CPU's. */
static void check_edges(const pair *p)
{
    rng_state = 0x5EED5EEDull;
    static cut_scene s;
    cut_gen_scene(&s);
    const light l = cut_gen_light(&s, CUT_L_DIR);
    const camera cam = cut_gen_camera(s.bmin, s.bmax);
    enum { EW = 24, EH = 18 };
    izb_recon f = izb_frame_make(&cam, &l, s.bmin, s.bmax, EW, EH);
    static float depth[EW * EH], sky[EW * EH];
    static uint32_t ids[EW * EH];
    static uint8_t cm[EW * EH], gm[EW * EH];
    ray_cast_depth(&cam, &f, s.xyz, s.nt, depth, ids);
    CHECK(izb_set_scene(p->cpu, s.xyz, s.nt) && izb_set_scene(p->gpu, s.xyz, s.nt), "edges: set_scene");
    const izb_settings st = {.kernel = IZB_KERNEL2, .binning = IZB_BINNING_ATOMIC};
    const int ms[5] = {16, 256, 64, 16, 128};
    char what[96];
    for (int k = 0; k < 5; k++) {
        f.light_angle = (float)(5.0 * M_PI / 180.0), f.light_samples = ms[k];
        snprintf(what, sizeof what, "edges: M %d after M %d", ms[k], k ? ms[k - 1] : 0);
        shade_both(p, 1000, what, &f, &st, depth, ids, cm, gm);
        if (k == 2) { /* a hard frame between soft ones */
            izb_recon h = f;
            h.light_angle = 0.0f;
            shade_both(p, 1000, "edges: a hard frame after soft ones", &h, &st, depth, ids, cm, gm);
        }
    }
    shade_both(p, 1000, "edges: sky only (no points)", &f, &st, sky, NULL, cm, gm);
    CHECK(izb_set_scene(p->cpu, s.xyz, 0) && izb_set_scene(p->gpu, s.xyz, 0), "edges: an empty scene");
    shade_both(p, 1000, "edges: no triangles", &f, &st, depth, NULL, cm, gm);
    for (int i = 0; i < EW * EH; i++)
        if (depth[i] > 0.0f && gm[i] != 255) {
            CHECK(false, "edges: no triangles: pixel %d is %d, not lit", i, gm[i]);
            break;
        }
}

int main(void)
{
    pair p;
    if (!pair_open(&p, "cuda_soft", "IZB_CUDA_SOFT")) return test_done();
    long first, n;
    pair_run_seeds(&p, DEFAULT_SEEDS, run_seed, &first, &n);
    check_edges(&p);
    pair_close(&p);
    printf("seeds %ld..%ld: %ld frames compared; partial shadow on %d seeds; the alpha test changed the soft mask on "
           "%d of %d seeds with cut-outs\n",
           first, first + n - 1, frames_compared, seeds_partial, seeds_cut_bite, seeds_cut);
    if (n >= DEFAULT_SEEDS) { /* the seeds must exercise what they compare */
        CHECK(seeds_partial * 2 >= n, "partial shadow on only %d of %ld seeds", seeds_partial, n);
        CHECK(seeds_cut_bite >= 1, "the alpha test changed the soft mask on none of %d seeds", seeds_cut);
    }
    return test_done();
}
