/* bench_binning_ab.c — the harness of scripts/bench-binning-ab (compiled by it, not by meson): two
 * copies of cpu/binning.c, linked with their public names prefixed old_ and new_, sort the same
 * frame's points (a built-in scene's view at WxH, directional light, reconstructed by the CPU
 * backend's own stage: in pixel order, or with AB_TILES set in the backend's screen tiles,
 * izb_cpu_reconstruct_tiles) in alternating order, ROUNDS times after 2 warm-ups each. Prints min,
 * q25 and median per copy, the median of the per-round ratios new / old, and whether both wrote
 * the same bytes (cell ranges and the four arrays); exit 1 when they differ.
 *
 * Time: CPU time, which leaves out the time a thread waits descheduled, so that on a loaded machine
 * the two copies compare within a few per cent (the wall clock of the same runs swings 2x): with
 * one thread the calling thread's (CLOCK_THREAD_CPUTIME_ID), with more the process's, all threads
 * summed (CLOCK_PROCESS_CPUTIME_ID; the script sets OMP_WAIT_POLICY=passive so that a thread
 * waiting at a barrier sleeps instead of spinning on the clock). The work, not the latency.
 *
 *   bench_binning_ab SCENE W H THREADS ROUNDS */
#include "izb_cpu_isa.h"
#include "oracle.h"
#include "scene.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef bool bin_fn(const izb_cpu_runs *in, const izb_grid *g, izb_cpu_points *out, uint32_t *cell_start,
                    uint32_t *cell_end, int threads, uint32_t *scratch, izb_cpu_isa isa);
typedef size_t scratch_fn(int n, const izb_grid *g, int threads);
bin_fn old_izb_cpu_bin_runs, new_izb_cpu_bin_runs;
scratch_fn old_izb_cpu_bin_scratch, new_izb_cpu_bin_scratch;
bool new_izb_cpu_points_reserve(izb_cpu_points *p, size_t n, const char *what);

typedef struct copy {
    const char *name;
    bin_fn *bin;
    uint32_t *scratch, *cs, *ce;
    izb_cpu_points out;
    double *ms;
} copy;

static double now_ms(clockid_t clk)
{
    struct timespec t;
    clock_gettime(clk, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static bool same_output(const copy *a, const copy *b, int n, size_t cells)
{
    const size_t pn = (size_t)n * 4;
    return !memcmp(a->cs, b->cs, cells * 4) && !memcmp(a->ce, b->ce, cells * 4) &&
           !memcmp(a->out.x, b->out.x, pn) && !memcmp(a->out.y, b->out.y, pn) &&
           !memcmp(a->out.z, b->out.z, pn) && !memcmp(a->out.pixel, b->out.pixel, pn);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: bench_binning_ab SCENE W H THREADS ROUNDS\n");
        return 2;
    }
    const char *spec = argv[1];
    const int W = atoi(argv[2]), H = atoi(argv[3]), T = atoi(argv[4]), R = atoi(argv[5]);
    if (W <= 0 || H <= 0 || T <= 0 || R <= 0) {
        fprintf(stderr, "bench_binning_ab: bad size, threads or rounds\n");
        return 2;
    }
    scene s;
    char err[256];
    if (!scene_load(spec, &s, err, sizeof err)) {
        fprintf(stderr, "bench_binning_ab: %s\n", err);
        return 2;
    }
    /* bench-cpu's view of the scene: its camera fitted to the bounds, depth from Embree */
    camera cam = {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
    const light l = {.type = LIGHT_DIRECTIONAL, .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}};
    const size_t npix = (size_t)W * (size_t)H;
    float *depth = malloc(sizeof(float) * npix);
    uint32_t *ids = malloc(sizeof(uint32_t) * npix);
    izb_point *points = malloc(sizeof(izb_point) * npix);
    uint8_t *mask = malloc(npix);
    oracle *o = oracle_create(s.xyz, s.tri_count);
    if (!depth || !ids || !points || !mask || !o) {
        fprintf(stderr, "bench_binning_ab: out of memory\n");
        return 2;
    }
    oracle_depth_ids(o, &cam, W, H, depth, ids);
    izb_recon f[6];
    izb_frame_make_faces(&cam, &l, s.bounds_min, s.bounds_max, W, H, f);
    izb_bbox bbox;
    izb_cpu_runs runs;
    const int n = (getenv("AB_TILES") ? izb_cpu_reconstruct_tiles : izb_cpu_reconstruct_runs)(
        &f[0], depth, points, mask, &bbox, &runs, T, IZB_CPU_ISA_AUTO);
    if (n <= 0) {
        fprintf(stderr, "bench_binning_ab: no points in the view\n");
        return 2;
    }
    const izb_grid g = izb_grid_make(bbox, n, 0, 0);
    const size_t cells = (size_t)g.w * (size_t)g.h;
    const clockid_t clk = T == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID;
    printf("%s %dx%d, %d thread(s), %d points, grid %dx%d, %d rounds, %s\n", spec, W, H, T, n, g.w, g.h, R,
           T == 1 ? "thread CPU time" : "process CPU time");

    copy c[2] = {{"old", old_izb_cpu_bin_runs}, {"new", new_izb_cpu_bin_runs}};
    const size_t words[2] = {old_izb_cpu_bin_scratch(n, &g, T), new_izb_cpu_bin_scratch(n, &g, T)};
    for (int v = 0; v < 2; v++) {
        c[v].scratch = malloc(words[v] * 4 + 4);
        c[v].cs = malloc(cells * 4);
        c[v].ce = malloc(cells * 4);
        c[v].ms = malloc(sizeof(double) * (size_t)(R + 2));
        if (!c[v].scratch || !c[v].cs || !c[v].ce || !c[v].ms ||
            !new_izb_cpu_points_reserve(&c[v].out, (size_t)n, "bench_binning_ab")) {
            fprintf(stderr, "bench_binning_ab: out of memory\n");
            return 2;
        }
    }
    for (int r = 0; r < R + 2; r++)
        for (int k = 0; k < 2; k++) {
            copy *v = &c[(k + r) % 2]; /* alternate which copy goes first */
            const double t0 = now_ms(clk);
            v->bin(&runs, &g, &v->out, v->cs, v->ce, T, v->scratch, IZB_CPU_ISA_AUTO);
            v->ms[r] = now_ms(clk) - t0;
        }
    const bool same = same_output(&c[0], &c[1], n, cells);
    double *ratio = malloc(sizeof(double) * (size_t)R);
    if (!ratio) return 2;
    for (int r = 0; r < R; r++)
        ratio[r] = c[1].ms[r + 2] / c[0].ms[r + 2];
    qsort(ratio, (size_t)R, sizeof *ratio, cmp_double);
    for (int v = 0; v < 2; v++) {
        double *t = c[v].ms + 2;
        qsort(t, (size_t)R, sizeof *t, cmp_double);
        printf("%s: min %.2f  q25 %.2f  median %.2f ms\n", c[v].name, t[0], t[R / 4], t[R / 2]);
    }
    printf("new / old: min %.3f, median of the rounds' ratios %.3f; same output: %s\n",
           c[1].ms[2] / c[0].ms[2], ratio[R / 2], same ? "yes" : "NO");
    return same ? 0 : 1;
}
