/* bench_cutouts.c — what the alpha test costs the CPU backend (issue 18: a cut-out scene should
 * cost at most 1.5x the same scene opaque). builtin:foliage:N seen straight down from above its
 * bushes (every pixel a ground point under the cards, the same points both ways), the IZB run
 * alternately with the cut-outs and without (izb_set_cutouts NULL), kernel 1 and 2; min and median
 * of the raster stage and the IZB total. Not a test:
 *   meson test -C BUILD --benchmark cutouts -v   (IZB_BENCH_CARDS=N, IZB_BENCH_SIZE=WxH,
 *   IZB_BENCH_RUNS=R, IZB_BENCH_THREADS=T; IZB_BENCH_ONLY=cut or opaque runs one side, for perf;
 *   IZB_BENCH_KERNEL=1 or 2 one kernel). The CPU column is the process's CPU time per frame: on a
 *   loaded machine it moves less than the wall-clock ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "izb.h"
#include "scene.h"
#include "scene_cutout.h"
#include "stats.h"
#include "view.h"

static long env_long(const char *name, long def)
{
    const char *e = getenv(name);
    return e && atol(e) > 0 ? atol(e) : def;
}

int main(void)
{
    const long cards = env_long("IZB_BENCH_CARDS", 100000), runs = env_long("IZB_BENCH_RUNS", 15);
    int W = 1280, H = 720;
    const char *only_s = getenv("IZB_BENCH_ONLY"); /* "cut" or "opaque": run that side only (perf) */
    const int only = only_s ? strcmp(only_s, "cut") == 0 : -1;
    const long kern = env_long("IZB_BENCH_KERNEL", 0); /* 1 or 2: that kernel only */
    const char *sz = getenv("IZB_BENCH_SIZE");
    if (sz && sscanf(sz, "%dx%d", &W, &H) != 2) W = 1280, H = 720;
    char err[512];
    scene s;
    scene_cutouts c;
    if (!scene_builtin("foliage", cards, &s, err, sizeof err) || !scene_cutouts_make(&s, &c, err, sizeof err)) {
        fprintf(stderr, "bench_cutouts: %s\n", err);
        return 1;
    }
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = (int)env_long("IZB_BENCH_THREADS", 1)});
    if (!b || !izb_set_scene(b, s.xyz, s.tri_count)) return 1;
    const camera cam = {.pos = {0, 12, 0.01f}, .pitch = -89, .fovy = 60};
    const light l = {.type = LIGHT_DIRECTIONAL, .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}};
    const izb_recon f = izb_frame_make(&cam, &l, s.bounds_min, s.bounds_max, W, H);
    float *depth = malloc((size_t)W * H * sizeof *depth);
    uint8_t *mask = malloc((size_t)W * H);
    double *t[2][2][3]; /* [cut][kernel][raster, total, CPU time] */
    for (int a = 0; a < 12; a++) ((double **)t)[a] = malloc((size_t)runs * sizeof(double));
    for (int i = 0; i < W * H; i++) depth[i] = 12.0f; /* the ground, straight below */
    const izb_cutouts v = scene_cutouts_view(&c);
    int shadowed[2] = {0, 0};
    for (long r = -1; r < runs; r++) /* run -1 warms up */
        for (int cut = 0; cut < 2; cut++) {
            if (only >= 0 && cut != only) continue; /* IZB_BENCH_ONLY: profile one side */
            izb_set_cutouts(b, cut ? &v : NULL);
            for (int k = 0; k < 2; k++) {
                if (kern && k + 1 != kern) continue; /* IZB_BENCH_KERNEL: one kernel only */
                izb_stats st;
                struct timespec c0, c1;
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
                izb_shade_arrays(b, &f, &(izb_settings){.kernel = k ? IZB_KERNEL2 : IZB_KERNEL1}, depth, mask, &st);
                if (r < 0) {
                    if (k == 0)
                        for (int i = 0; i < W * H; i++) shadowed[cut] += mask[i] == 0;
                    continue;
                }
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
                t[cut][k][0][r] = st.stage_ms[IZB_STAGE_RASTER];
                t[cut][k][1][r] = st.total_ms;
                t[cut][k][2][r] = (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-6;
            }
        }
    printf("builtin:foliage:%ld (%d triangles, %d cut-out) at %dx%d, %ld runs, shadowed %d opaque / %d cut\n", cards,
           s.tri_count, c.cut_tris, W, H, runs, shadowed[0], shadowed[1]);
    for (int k = 0; k < 2; k++)
        for (int cut = 0; cut < 2; cut++) {
            if ((only >= 0 && cut != only) || (kern && k + 1 != kern)) continue;
            const stats_summary rs = stats_summarize(t[cut][k][0], (size_t)runs), ts = stats_summarize(t[cut][k][1], (size_t)runs),
                                cs = stats_summarize(t[cut][k][2], (size_t)runs);
            printf("kernel%d %-8s raster min %7.2f median %7.2f ms   IZB total min %7.2f median %7.2f ms   CPU min %7.2f median %7.2f ms\n", k + 1,
                   cut ? "cut-outs" : "opaque", rs.min, rs.median, ts.min, ts.median, cs.min, cs.median);
        }
    izb_destroy(b);
    scene_cutouts_free(&c);
    scene_free(&s);
    return 0;
}
