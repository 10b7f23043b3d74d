/* bench_recon_ab.c — the harness of scripts/bench-recon-ab (compiled by it, not by meson): two
 * copies of cpu/kernels_recon.h's recon_rows, the git revision's (KERN suffix _old, from the file
 * RECON_OLD) and the working tree's (_new), both the AVX-512 copy (the AVX2 one with -DAB_AVX2)
 * and both over the working tree's core headers, reconstruct the same frame (a built-in scene's
 * view at WxH, directional or spot light, depth ray cast by Embree) in alternating order, ROUNDS
 * times after 2 warm-ups each, on one thread. Prints min, q25 and median per copy, the median of
 * the per-round ratios new / old, and whether both wrote the same bytes (count, bbox, mask and
 * points); exit 1 when they differ.
 * Time: the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), as bench_binning_ab.c, so that a loaded
 * machine's descheduled moments are left out.
 *
 *   bench_recon_ab SCENE W H dir|spot ROUNDS */
#include "izb_cpu_isa.h"
#include "oracle.h"
#include "scene.h"
#include "view.h"

#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#pragma GCC push_options
#define KERN_BLOCK 16
#ifdef AB_AVX2 /* the AVX2 copy (isa_copies.h's) */
#pragma GCC target("arch=x86-64-v3")
#define KERN_MOVEMASK(f)                                                                                     \
    ((uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f))) |                                      \
     (uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f) + 8)) << 8)
#else
#pragma GCC target("arch=x86-64-v4,prefer-vector-width=512")
#define KERN_MOVEMASK(f) ((uint32_t)_mm512_movepi32_mask(_mm512_load_si512(f)))
#endif
#define KERN(name) name##_old
#include RECON_OLD
#undef KERN
#define KERN(name) name##_new
#include "kernels_recon.h"
#undef KERN
#pragma GCC pop_options

typedef uint32_t rows_fn(const izb_recon *f, const float *depth, int y0, int y1, uint8_t *mask,
                         izb_point *points, izb_bbox *box);

/* Both copies in pixel order: recon_rows takes a tile width from issue 22's screen tiles on (the
 * script defines OLD_TILE_W when REV's copy does), the frame's width for pixel order. */
static uint32_t rows_old(const izb_recon *f, const float *depth, int y0, int y1, uint8_t *mask, izb_point *points,
                         izb_bbox *box)
{
#ifdef OLD_TILE_W
    return recon_rows_old(f, depth, y0, y1, f->width, mask, points, box);
#else
    return recon_rows_old(f, depth, y0, y1, mask, points, box);
#endif
}
static uint32_t rows_new(const izb_recon *f, const float *depth, int y0, int y1, uint8_t *mask, izb_point *points,
                         izb_bbox *box)
{
    return recon_rows_new(f, depth, y0, y1, f->width, mask, points, box);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: bench_recon_ab SCENE W H dir|spot ROUNDS\n");
        return 2;
    }
    const int W = atoi(argv[2]), H = atoi(argv[3]), R = atoi(argv[5]);
    const bool spot = !strcmp(argv[4], "spot");
    if (W <= 0 || H <= 0 || R <= 0 || (!spot && strcmp(argv[4], "dir"))) {
        fprintf(stderr, "bench_recon_ab: bad size, light or rounds\n");
        return 2;
    }
    scene s;
    char err[256];
    if (!scene_load(argv[1], &s, err, sizeof err)) {
        fprintf(stderr, "bench_recon_ab: %s\n", err);
        return 2;
    }
    camera cam = {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
    light l = {.type = LIGHT_DIRECTIONAL, .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}};
    if (spot) {
        /* a spot above the scene's centre looking down at it, its cone over the whole bounds */
        float c[3], r = 0.0f;
        for (int i = 0; i < 3; i++) {
            c[i] = 0.5f * (s.bounds_min[i] + s.bounds_max[i]);
            r = fmaxf(r, s.bounds_max[i] - s.bounds_min[i]);
        }
        l = (light){.type = LIGHT_SPOT, .pos = {c[0], c[1] + r, c[2]}, .dir = {0.0f, -1.0f, 0.0f},
                    .cone_deg = 100.0f};
    }
    const size_t npix = (size_t)W * (size_t)H;
    float *depth = malloc(sizeof(float) * npix);
    uint32_t *ids = malloc(sizeof(uint32_t) * npix);
    izb_point *pts[2] = {malloc(sizeof(izb_point) * npix), malloc(sizeof(izb_point) * npix)};
    uint8_t *mask[2] = {malloc(npix), malloc(npix)};
    oracle *o = oracle_create(s.xyz, s.tri_count);
    double *ms[2] = {malloc(sizeof(double) * (size_t)(R + 2)), malloc(sizeof(double) * (size_t)(R + 2))};
    double *ratio = malloc(sizeof(double) * (size_t)R);
    if (!depth || !ids || !pts[0] || !pts[1] || !mask[0] || !mask[1] || !o || !ms[0] || !ms[1] || !ratio) {
        fprintf(stderr, "bench_recon_ab: out of memory\n");
        return 2;
    }
    memset(pts[0], 0, sizeof(izb_point) * npix), memset(pts[1], 0, sizeof(izb_point) * npix);
    oracle_depth_ids(o, &cam, W, H, depth, ids);
    izb_recon f[6];
    izb_frame_make_faces(&cam, &l, s.bounds_min, s.bounds_max, W, H, f);
    rows_fn *fn[2] = {rows_old, rows_new};
    uint32_t n[2];
    izb_bbox box[2];
    for (int r = 0; r < R + 2; r++)
        for (int k = 0; k < 2; k++) {
            const int v = (k + r) % 2; /* alternate which copy goes first */
            const double t0 = now_ms();
            n[v] = fn[v](&f[0], depth, 0, H, mask[v], pts[v], &box[v]);
            ms[v][r] = now_ms() - t0;
        }
    const bool same = n[0] == n[1] && !memcmp(&box[0], &box[1], sizeof box[0]) &&
                      !memcmp(mask[0], mask[1], npix) && !memcmp(pts[0], pts[1], sizeof(izb_point) * n[0]);
    printf("%s %dx%d %s light, %u points of %zu pixels, %d rounds, one thread's CPU time\n", argv[1], W, H,
           argv[4], n[1], npix, R);
    for (int r = 0; r < R; r++)
        ratio[r] = ms[1][r + 2] / ms[0][r + 2];
    qsort(ratio, (size_t)R, sizeof *ratio, cmp_double);
    for (int v = 0; v < 2; v++) {
        double *t = ms[v] + 2;
        qsort(t, (size_t)R, sizeof *t, cmp_double);
        printf("%s: min %.2f  q25 %.2f  median %.2f ms\n", v ? "new" : "old", t[0], t[R / 4], t[R / 2]);
    }
    printf("new / old: min %.3f, median of the rounds' ratios %.3f; same output: %s\n", ms[1][2] / ms[0][2],
           ratio[R / 2], same ? "yes" : "NO");
    return same ? 0 : 1;
}
