/* bench_front_ab.c — the harness of scripts/bench-front-ab (compiled by it, not by meson): the CPU
 * backend's first two stages, reconstruction and binning (cpu/recon.c, cpu/binning.c of the
 * working tree), on one frame (a built-in scene's view at WxH, directional light, depth ray cast by
 * Embree) in two set-ups, alternating, ROUNDS times after 2 warm-ups each, on one thread:
 *   order:  pixel order (izb_cpu_reconstruct_runs) vs screen tiles (izb_cpu_reconstruct_tiles),
 *           every buffer from izb_cpu_alloc;
 *   pages:  tiles both, every buffer on 4 KB pages vs from izb_cpu_alloc (huge pages);
 *   both:   pixel order on 4 KB pages (the backend before issue 22's tiles) vs tiles from
 *           izb_cpu_alloc (the backend's).
 * Prints each stage's min per set-up, the median of the per-round ratios (second / first) per
 * stage and for the two together, and whether both gave the same count, bbox, mask and cell ranges
 * (the order within a cell differs between the orders); exit 1 when they differ. The depth image
 * is the caller's in the backend: on 4 KB pages here in both. Time: the thread's CPU time, as
 * bench_binning_ab.c.
 *
 *   bench_front_ab SCENE W H ROUNDS order|pages|both */
#include "izb_cpu_isa.h"
#include "oracle.h"
#include "scene.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int recon_fn(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask, izb_bbox *bbox,
                     izb_cpu_runs *runs, int threads, izb_cpu_isa isa);

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* bytes on 4 KB pages (plain) or from izb_cpu_alloc, zeroed (touched) */
static void *get(size_t bytes, bool huge)
{
    void *p = huge ? izb_cpu_alloc(bytes) : aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (!p) {
        fprintf(stderr, "bench_front_ab: out of memory\n");
        exit(2);
    }
    return memset(p, 0, bytes);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: bench_front_ab SCENE W H ROUNDS order|pages|both\n");
        return 2;
    }
    const int W = atoi(argv[2]), H = atoi(argv[3]), R = atoi(argv[4]);
    const char *mode = argv[5];
    if (W <= 0 || H <= 0 || R <= 0 ||
        (strcmp(mode, "order") && strcmp(mode, "pages") && strcmp(mode, "both"))) {
        fprintf(stderr, "bench_front_ab: bad size, rounds or mode\n");
        return 2;
    }
    recon_fn *fn[2] = {izb_cpu_reconstruct_tiles, izb_cpu_reconstruct_tiles};
    bool huge[2] = {true, true};
    if (strcmp(mode, "pages")) fn[0] = izb_cpu_reconstruct_runs;
    if (strcmp(mode, "order")) huge[0] = false;
    scene s;
    char err[256];
    if (!scene_load(argv[1], &s, err, sizeof err)) {
        fprintf(stderr, "bench_front_ab: %s\n", err);
        return 2;
    }
    camera cam = {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
    const light l = {.type = LIGHT_DIRECTIONAL, .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}};
    const size_t npix = (size_t)W * (size_t)H;
    float *depth = get(sizeof(float) * npix, false);
    uint32_t *ids = get(sizeof(uint32_t) * npix, false);
    oracle *o = oracle_create(s.xyz, s.tri_count);
    if (!o) return 2;
    oracle_depth_ids(o, &cam, W, H, depth, ids);
    izb_recon f[6];
    izb_frame_make_faces(&cam, &l, s.bounds_min, s.bounds_max, W, H, f);
    izb_point *points[2];
    uint8_t *mask[2];
    uint32_t *scratch[2], *cs[2], *ce[2];
    izb_cpu_points out[2];
    izb_bbox box[2];
    izb_cpu_runs runs;
    int n[2];
    for (int v = 0; v < 2; v++) {
        points[v] = get(sizeof(izb_point) * npix, huge[v]);
        mask[v] = get(npix, huge[v]);
    }
    n[0] = izb_cpu_reconstruct_runs(&f[0], depth, points[0], mask[0], &box[0], &runs, 1, IZB_CPU_ISA_AUTO);
    if (n[0] <= 0) {
        fprintf(stderr, "bench_front_ab: no points in the view\n");
        return 2;
    }
    const izb_grid g = izb_grid_make(box[0], n[0], 0, 0);
    const size_t cells = (size_t)g.w * (size_t)g.h, len = npix + IZB_CPU_POINTS_PAD + 16;
    double *ms[2][2];
    for (int v = 0; v < 2; v++) {
        scratch[v] = get(sizeof(uint32_t) * izb_cpu_bin_scratch(n[0], &g, 1), huge[v]);
        cs[v] = get(4 * cells, huge[v]), ce[v] = get(4 * cells, huge[v]);
        float *all = get(16 * len, huge[v]); /* izb_cpu_points_reserve's layout */
        out[v] = (izb_cpu_points){all, all + len, all + 2 * len, (uint32_t *)(all + 3 * len), npix};
        ms[v][0] = malloc(sizeof(double) * (size_t)(R + 2)),
        ms[v][1] = malloc(sizeof(double) * (size_t)(R + 2));
        if (!ms[v][0] || !ms[v][1]) return 2;
    }
    printf("%s %dx%d dir, %d points, grid %dx%d, %d rounds, one thread's CPU time, %s: %s -> %s\n", argv[1],
           W, H, n[0], g.w, g.h, R, mode,
           !strcmp(mode, "pages")   ? "tiles on 4 KB pages"
           : !strcmp(mode, "order") ? "pixel order"
                                    : "pixel order on 4 KB pages",
           !strcmp(mode, "pages")   ? "tiles on huge pages"
           : !strcmp(mode, "order") ? "tiles"
                                    : "tiles on huge pages");
    for (int r = 0; r < R + 2; r++)
        for (int k = 0; k < 2; k++) {
            const int v = (k + r) % 2; /* alternate which goes first */
            const double t0 = now_ms();
            n[v] = fn[v](&f[0], depth, points[v], mask[v], &box[v], &runs, 1, IZB_CPU_ISA_AUTO);
            const double t1 = now_ms();
            izb_cpu_bin_runs(&runs, &g, &out[v], cs[v], ce[v], 1, scratch[v], IZB_CPU_ISA_AUTO);
            ms[v][0][r] = t1 - t0, ms[v][1][r] = now_ms() - t1;
        }
    const bool same = n[0] == n[1] && !memcmp(&box[0], &box[1], sizeof box[0]) &&
                      !memcmp(mask[0], mask[1], npix) && !memcmp(cs[0], cs[1], 4 * cells) &&
                      !memcmp(ce[0], ce[1], 4 * cells);
    double *ratio = malloc(sizeof(double) * 3 * (size_t)R);
    if (!ratio) return 2;
    for (int r = 0; r < R; r++) {
        const double *a0 = ms[0][0] + 2, *a1 = ms[0][1] + 2, *b0 = ms[1][0] + 2, *b1 = ms[1][1] + 2;
        ratio[r] = b0[r] / a0[r], ratio[R + r] = b1[r] / a1[r],
        ratio[2 * R + r] = (b0[r] + b1[r]) / (a0[r] + a1[r]);
    }
    for (int k = 0; k < 3; k++)
        qsort(ratio + k * R, (size_t)R, sizeof *ratio, cmp_double);
    for (int v = 0; v < 2; v++)
        for (int st = 0; st < 2; st++)
            qsort(ms[v][st] + 2, (size_t)R, sizeof(double), cmp_double);
    printf("reconstruction min %.2f -> %.2f ms, median ratio %.3f\n", ms[0][0][2], ms[1][0][2], ratio[R / 2]);
    printf("binning        min %.2f -> %.2f ms, median ratio %.3f\n", ms[0][1][2], ms[1][1][2],
           ratio[R + R / 2]);
    printf("the two: median ratio %.3f; same count, bbox, mask, cell ranges: %s\n", ratio[2 * R + R / 2],
           same ? "yes" : "NO");
    return same ? 0 : 1;
}
