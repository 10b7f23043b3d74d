/* bench_cpu.c — the CPU backend's per-stage times on one view of a scene, against Embree's
 * occlusion rays for the same sample points (not a test: run by hand).
 *
 *   bench-cpu [--scene SPEC] [--size WxH] [--frames N] [--kernel 1|2] [--binning radix|atomic]
 *             [--threads N] [--spot]
 *
 * Depth comes from the oracle's primary rays (what the GL depth pass writes); the scene's
 * suggested camera and light. Prints min / median / p95 per stage over N frames (after one
 * warm-up frame), the Embree shadow-ray time for the same depth image (median of 5), their ratio,
 * and the mask mismatch against Embree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "file_out.h"
#include "izb.h"
#include "oracle.h"
#include "scene.h"
#include "stats.h"
#include "view.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static double now_ms(void);
static void usage(const char *argv0);

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--scene SPEC] [--size WxH] [--frames N] [--kernel 1|2] [--binning radix|atomic]\n"
            "          [--threads N] [--spot]\n",
            argv0);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *spec = "builtin:default";
    int W = 1280, H = 720, frames = 30, threads = 0;
    bool spot = false;
    izb_settings set = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--spot")) {
            spot = true;
            continue;
        }
        if (!v)
            usage(argv[0]);
        i++;
        if (!strcmp(a, "--scene"))
            spec = v;
        else if (!strcmp(a, "--size") && sscanf(v, "%dx%d", &W, &H) == 2 && W > 0 && H > 0 && W <= 16384 && H <= 16384)
            ;
        else if (!strcmp(a, "--frames") && (frames = atoi(v)) >= 1)
            ;
        else if (!strcmp(a, "--kernel") && (!strcmp(v, "1") || !strcmp(v, "2")))
            set.kernel = v[0] == '1' ? IZB_KERNEL1 : IZB_KERNEL2;
        else if (!strcmp(a, "--binning") && (!strcmp(v, "radix") || !strcmp(v, "atomic")))
            set.binning = v[0] == 'r' ? IZB_BINNING_RADIX : IZB_BINNING_ATOMIC;
        else if (!strcmp(a, "--threads") && (threads = atoi(v)) >= 0)
            ;
        else {
            fprintf(stderr, "bench-cpu: bad option '%s %s'\n", a, v);
            usage(argv[0]);
        }
    }

    scene s;
    char err[512];
    double t0 = now_ms();
    if (!scene_load(spec, &s, err, sizeof err)) {
        fprintf(stderr, "bench-cpu: %s\n", err);
        return 1;
    }
    double t1 = now_ms();
    oracle *o = oracle_create(s.xyz, s.tri_count);
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = threads});
    float *depth = malloc(sizeof(float) * (size_t)W * H);
    uint8_t *mask = malloc((size_t)W * H), *truth = malloc((size_t)W * H);
    double *stage[IZB_STAGE_COUNT + 1];
    for (int k = 0; k <= IZB_STAGE_COUNT; k++)
        stage[k] = malloc(sizeof(double) * (size_t)frames);
    if (!o || !b || !depth || !mask || !truth || !stage[IZB_STAGE_COUNT] || !izb_set_scene(b, s.xyz, s.tri_count)) {
        fprintf(stderr, "bench-cpu: setup failed (out of memory?)\n");
        return 1;
    }
    double t2 = now_ms();

    camera cam = {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
    float c[3];
    for (int k = 0; k < 3; k++)
        c[k] = 0.5f * (s.bounds_min[k] + s.bounds_max[k]);
    light l = spot ? (light){.type = LIGHT_SPOT,
                             .pos = {s.light_pos[0], s.light_pos[1], s.light_pos[2]},
                             .dir = {c[0] - s.light_pos[0], c[1] - s.light_pos[1], c[2] - s.light_pos[2]},
                             .cone_deg = 60}
                   : (light){.type = LIGHT_DIRECTIONAL, .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}};
    oracle_depth(o, &cam, W, H, depth);
    izb_recon f = izb_frame_make(&cam, &l, s.bounds_min, s.bounds_max, W, H);

    int nthreads = 1;
#ifdef _OPENMP
    nthreads = threads > 0 ? threads : omp_get_max_threads();
#endif
    printf("scene %s: %d triangles (load %.0f ms, Embree build %.0f ms), %dx%d, %s light, %d threads\n", s.name,
           s.tri_count, t1 - t0, t2 - t1, W, H, spot ? "spot" : "directional", nthreads);

    izb_stats st;
    izb_shade_arrays(b, &f, &set, depth, mask, &st); /* warm-up: buffers, page faults, caches */
    for (int i = 0; i < frames; i++) {
        if (!izb_shade_arrays(b, &f, &set, depth, mask, &st))
            return 1;
        for (int k = 0; k < IZB_STAGE_COUNT; k++)
            stage[k][i] = st.stage_ms[k];
        stage[IZB_STAGE_COUNT][i] = st.total_ms;
    }
    printf("points %d, triangles %d -> %d after culling, grid %dx%d, kernel%d, %s binning\n", st.points, st.tris_in,
           st.tris_after_cull, st.grid_w, st.grid_h, st.kernel == IZB_KERNEL2 ? 2 : 1,
           st.binning == IZB_BINNING_ATOMIC ? "atomic" : "radix");
    printf("%-12s %10s %10s %10s   (ms over %d frames)\n", "stage", "min", "median", "p95", frames);
    stats_summary sum = {0};
    for (int k = 0; k <= IZB_STAGE_COUNT; k++) {
        sum = stats_summarize(stage[k], (size_t)frames);
        printf("%-12s %10.2f %10.2f %10.2f\n", k < IZB_STAGE_COUNT ? izb_stage_names[k] : "total", sum.min,
               sum.median, sum.p95);
    }
    double izb_median = sum.median;

    double ot[5];
    for (int i = 0; i < 5; i++) {
        double a = now_ms();
        oracle_shadow(o, &f, &cam, &l, depth, truth);
        ot[i] = now_ms() - a;
    }
    stats_summary osum = stats_summarize(ot, 5);
    mask_diff d = mask_compare(depth, mask, truth, (long)W * H);
    printf("embree shadow rays (oracle_shadow, same points): min %.2f median %.2f ms; IZB/Embree median ratio %.2f\n",
           osum.min, osum.median, izb_median / osum.median);
    printf("mask vs Embree: %ld of %ld covered pixels differ (%.4f%%: %ld false shadow, %ld false light)\n",
           d.mismatched, d.covered, d.covered ? 100.0 * (double)d.mismatched / (double)d.covered : 0.0,
           d.false_shadow, d.false_light);

    for (int k = 0; k <= IZB_STAGE_COUNT; k++)
        free(stage[k]);
    free(depth), free(mask), free(truth);
    izb_destroy(b);
    oracle_destroy(o);
    scene_free(&s);
    /* the report is the result: `bench-cpu > /dev/full` must not exit 0 */
    if (!file_out_stdout_ok(err, sizeof err)) {
        fprintf(stderr, "bench-cpu: %s\n", err);
        return 1;
    }
    return 0;
}
