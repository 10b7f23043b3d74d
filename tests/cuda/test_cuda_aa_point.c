/* test_cuda_aa_point.c — anti-aliased shadow edges under a point light on the CUDA backend
 * (izb_aa.h "Point lights": core/izb_faces.c runs one anti-aliased pass per cube face on every
 * backend) against the CPU backend (itself held to the brute force and a double ray truth by
 * cpu_aa_point), byte for byte. The random cases of tests/differential_gen.h (scene, camera, depth
 * and ids) with a point light at a random position inside the scene's box (inside a closed mesh
 * on some seeds: culling auto must keep its faces), its six faces (izb_frame_make_faces): N = 8 or
 * 32 by seed (both over the default seeds), kernel1/kernel2 x radix/atomic, without and with
 * primitive ids, culling auto, a unit size by seed; on odd seeds also a fine grid (2 cells a pixel:
 * a cell range grown too little misses points). Every CUDA pixel written (its buffer starts at
 * 77); the seeds must exercise what they compare: partly hidden pixels exist. IZB_DIFF_SEEDS=N
 * runs N seeds (default DEFAULT_SEEDS, sized for the SIMT emulator), IZB_DIFF_SEED=K the one seed
 * K. Exits 77 without a CUDA device. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "differential_gen.h"
#include "gpu_fixture.h"
#include "izb.h"
#include "test.h"

#define DEFAULT_SEEDS 6

static long frames_compared, partial_pixels;

static void run_seed(izb_backend *cpu, izb_backend *gpu, uint64_t seed)
{
    static diff_case c;
    diff_gen_case(&c, seed);
    const int W = c.W, H = c.H, npix = W * H;
    light pl = {.type = LIGHT_POINT};
    for (int k = 0; k < 3; k++)
        pl.pos[k] = (float)rnd_in(c.g.bmin[k], c.g.bmax[k]);
    izb_recon faces[LIGHT_CUBE_FACES];
    const int count = izb_frame_make_faces(&c.cam, &pl, c.g.bmin, c.g.bmax, W, H, faces);
    const int n = seed % 2 ? 8 : 32;
    for (int i = 0; i < count; i++)
        faces[i].shadow_samples = n;
    const bool set = izb_set_scene(cpu, c.g.xyz, c.g.nt) && izb_set_scene(gpu, c.g.xyz, c.g.nt);
    CHECK(set, "seed %llu: set_scene %d triangles", (unsigned long long)seed, c.g.nt);
    if (!set) return;
    static const int units[5] = {0, 32, 64, 128, 256};
    static uint8_t cm[MAX_W * MAX_H], gm[MAX_W * MAX_H], scratch[MAX_W * MAX_H];
    for (int mode = 0; mode < (seed % 2 ? 6 : 4); mode++)
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            const bool fine = mode >= 4; /* 2 cells a pixel: footprints span several cells */
            const izb_settings s = {.kernel = mode % 2 ? IZB_KERNEL2 : IZB_KERNEL1,
                                    .binning = mode / 2 % 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                                    .unit_size = units[(seed + (uint64_t)mode) % 5],
                                    .grid_w = fine ? 2 * W : 0,
                                    .grid_h = fine ? 2 * H : 0,
                                    .bias = c.bias};
            const uint32_t *ids = with_ids ? c.ids : NULL;
            memset(gm, 77, (size_t)npix);
            izb_stats cs, gs;
            const bool cok = izb_shade_arrays_faces(cpu, faces, count, &s, c.depth, ids, cm, scratch, &cs);
            const bool gok = izb_shade_arrays_faces(gpu, faces, count, &s, c.depth, ids, gm, scratch, &gs);
            CHECK(cok && gok, "seed %llu mode %d: shade failed (cpu %d, cuda %d)", (unsigned long long)seed, mode, cok,
                  gok);
            if (!cok || !gok) continue;
            int first;
            const int bad = mismatching(cm, gm, npix, &first);
            frames_compared++;
            CHECK(bad == 0,
                  "seed %llu N %d kernel%d %s%s unit %d (%d tris, %dx%d): cuda != cpu on %d pixels (first (%d, %d): "
                  "cuda %d, cpu %d)",
                  (unsigned long long)seed, n, s.kernel, izb_binning_names[s.binning], with_ids ? " ids" : "",
                  s.unit_size, c.g.nt, W, H, bad, first % W, first / W, first >= 0 ? gm[first] : 0,
                  first >= 0 ? cm[first] : 0);
            CHECK(gs.points == cs.points && gs.tris_after_cull == cs.tris_after_cull,
                  "seed %llu: stats cuda/cpu points %d/%d, after cull %d/%d", (unsigned long long)seed, gs.points,
                  cs.points, gs.tris_after_cull, cs.tris_after_cull);
            if (mode == 0)
                for (int i = 0; i < npix; i++)
                    partial_pixels += cm[i] > 0 && cm[i] < 255;
        }
}

int main(void)
{
    fixture_require_device("cuda_aa_point");
    izb_backend *cpu = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1, .quiet = true});
    izb_backend *gpu = izb_create(&(izb_desc){.backend = IZB_BACKEND_CUDA});
    CHECK(cpu && gpu && strcmp(izb_name(gpu), "cuda") == 0, "no CPU or CUDA backend with a device present");
    if (!cpu || !gpu) return test_done();
    long first, n;
    diff_seed_range(DEFAULT_SEEDS, &first, &n);
    (void)diff_auto_cull_changes; /* (differential_gen.h's, for the update tests) */
    for (long s = first; s < first + n; s++) {
        const int before = test_failed_;
        run_seed(cpu, gpu, (uint64_t)s);
        if (test_failed_ != before) fprintf(stderr, "seed %ld FAILED (replay: IZB_DIFF_SEED=%ld)\n", s, s);
    }
    printf("seeds %ld..%ld: %ld frames compared, %ld partly hidden pixels (kernel1 radix)\n", first, first + n - 1,
           frames_compared, partial_pixels);
    CHECK(partial_pixels > 0, "no partly hidden pixel: the seeds test nothing of the sub-samples");
    izb_destroy(gpu);
    izb_destroy(cpu);
    return test_done();
}
