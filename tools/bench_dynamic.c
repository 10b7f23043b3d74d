/* bench_dynamic.c — a moving scene, every frame: the IZB (izb_update_scene + izb_shade_arrays, CPU
 * backend) against Embree shadow rays after a per-frame BVH rebuild or refit, all on the same
 * sample points and the same threads in one process (not a test: run by hand, or by
 * scripts/bench-dynamic.sh for the plot in docs/benchmarks.md).
 *
 *   bench-dynamic [--scene SPEC] [--size WxH] [--frames N] [--warmup N] [--threads N] [--spot] [--csv]
 *
 * The scene moves by scene_animate (builtin:wave moves by itself; any other scene turns on a
 * turntable), frame i at t = i / 60 s. The points are those of one depth image of the rest pose
 * (oracle_depth, what the GL depth pass writes): every method answers the same question, "which of
 * these points see the light", for the moved triangles. Methods, each timed per frame:
 *   izb          izb_update_scene (checks + copies the triangles) + izb_shade_arrays
 *   embree-static rtcOccluded16 over rows of 16 pixels on a BVH built once (rest pose; no update):
 *                 the ray cost alone, the floor of every Embree method
 *   embree-rebuild copy into Embree's vertex buffer + rtcCommitScene (default quality) + rays
 *   embree-low    the same with RTC_SCENE_FLAG_DYNAMIC and RTC_BUILD_QUALITY_LOW (Embree's advice
 *                 for scenes rebuilt every frame) + rays
 *   embree-refit  the same with RTC_BUILD_QUALITY_REFIT (topology kept, boxes refitted) + rays
 * Embree's device gets "threads=N" and the rays run on N OpenMP threads: the IZB's count.
 * Prints min / median / p95 (ms) after the warm-up frames; --csv prints one line per method:
 * "tris,width,height,light,method,min,median,p95".
 */
#include <embree3/rtcore.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "izb.h"
#include "oracle.h"
#include "scene.h"
#include "stats.h"
#include "view.h"

#include "izb_parallel.h"

enum { M_IZB, M_STATIC, M_REBUILD, M_LOW, M_REFIT, M_COUNT };
static const char *const method_names[M_COUNT] = {"izb", "embree-static", "embree-rebuild", "embree-low",
                                                  "embree-refit"};

/* one Embree scene over n triangles (a soup: 3n vertices, indices 0..3n-1) */
typedef struct rt_scene {
    RTCScene scene;
    RTCGeometry geom;
    float *vb; /* Embree's vertex buffer, 3 floats a vertex */
} rt_scene;

/* what the shadow rays need, built once */
typedef struct ray_setup {
    const float *depth;
    int width, height, threads;
    float inv_view[12]; /* rows of R^T and -R^T t: view -> world */
    float sx, sy;
    const izb_recon *f;
    const light *l;
    float to_light[3]; /* directional */
    float tnear;
} ray_setup;

static double now_ms(void);
static void usage(const char *argv0);
static bool rt_make(RTCDevice dev, rt_scene *r, const float *xyz, int n, enum RTCSceneFlags flags,
                    enum RTCBuildQuality quality);
/* the moved triangles into Embree's buffer and a commit: rebuild or refit, per the scene's quality */
static void rt_update(rt_scene *r, const float *xyz, int n);
static ray_setup ray_setup_make(const camera *c, const light *l, const izb_recon *f, const float *depth, int threads);
/* one occlusion ray per covered pixel, rtcOccluded16 over rows of 16; mask as the IZB writes it */
static void rt_shadow(const rt_scene *r, const ray_setup *s, uint8_t *mask);

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--scene SPEC] [--size WxH] [--frames N] [--warmup N] [--threads N] [--spot] [--csv]\n",
            argv0);
    exit(2);
}

static bool rt_make(RTCDevice dev, rt_scene *r, const float *xyz, int n, enum RTCSceneFlags flags,
                    enum RTCBuildQuality quality)
{
    r->scene = rtcNewScene(dev);
    rtcSetSceneFlags(r->scene, flags);
    rtcSetSceneBuildQuality(r->scene, quality == RTC_BUILD_QUALITY_REFIT ? RTC_BUILD_QUALITY_LOW : quality);
    r->geom = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    rtcSetGeometryBuildQuality(r->geom, quality);
    r->vb = rtcSetNewGeometryBuffer(r->geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float),
                                    3 * (size_t)n);
    unsigned *ib =
        rtcSetNewGeometryBuffer(r->geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), (size_t)n);
    if (!r->vb || !ib)
        return false;
    for (size_t i = 0; i < 3 * (size_t)n; i++)
        ib[i] = (unsigned)i;
    memcpy(r->vb, xyz, 9 * sizeof(float) * (size_t)n);
    rtcCommitGeometry(r->geom);
    rtcAttachGeometry(r->scene, r->geom);
    rtcCommitScene(r->scene);
    return rtcGetDeviceError(dev) == RTC_ERROR_NONE;
}

static void rt_update(rt_scene *r, const float *xyz, int n)
{
    memcpy(r->vb, xyz, 9 * sizeof(float) * (size_t)n);
    rtcUpdateGeometryBuffer(r->geom, RTC_BUFFER_TYPE_VERTEX, 0);
    rtcCommitGeometry(r->geom);
    rtcCommitScene(r->scene);
}

static ray_setup ray_setup_make(const camera *c, const light *l, const izb_recon *f, const float *depth, int threads)
{
    ray_setup s = {.depth = depth, .width = f->width, .height = f->height, .threads = threads, .f = f, .l = l};
    float v[16];
    camera_view(c, v);
    /* view = [R t]: world = R^T (v - t) */
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 3; i++)
            s.inv_view[4 * j + i] = v[4 * j + i];
        s.inv_view[4 * j + 3] = -(v[4 * j] * v[12] + v[4 * j + 1] * v[13] + v[4 * j + 2] * v[14]);
    }
    s.sx = f->ray_sx, s.sy = f->ray_sy;
    light_direction(l, s.to_light);
    for (int k = 0; k < 3; k++)
        s.to_light[k] = -s.to_light[k];
    /* the IZB's bias in the ray's terms, as oracle_shadow sets it */
    const float *L = f->light;
    const double key_grad = sqrt((double)L[2] * L[2] + (double)L[6] * L[6] + (double)L[10] * L[10]);
    s.tnear = l->type == LIGHT_SPOT ? (float)(f->bias / (1.0 + f->bias))
                                    : (key_grad > 0.0 ? (float)(f->bias / key_grad) : 0.0f);
    return s;
}

static void rt_shadow(const rt_scene *r, const ray_setup *s, uint8_t *mask)
{
    const int W = s->width, H = s->height, spans = (W + 15) / 16;
    const bool spot = s->l->type == LIGHT_SPOT;
    const float *L = s->f->light, *M = s->inv_view;
#pragma omp parallel for schedule(dynamic, 4) num_threads(s->threads)
    for (long job = 0; job < (long)H * spans; job++) {
        const int py = (int)(job / spans), px0 = (int)(job % spans) * 16;
        struct RTCIntersectContext ctx;
        rtcInitIntersectContext(&ctx);
        struct RTCRay16 ray;
        int valid[16];
        for (int k = 0; k < 16; k++) {
            const int px = px0 + k;
            const size_t i = (size_t)py * W + px;
            valid[k] = 0;
            if (px >= W)
                continue;
            const float d = s->depth[i];
            if (!(d > 0.0f) || !(d <= 3.0e38f)) {
                mask[i] = 255;
                continue;
            }
            const float vx = ((2.0f * px + 1.0f) / W - 1.0f) * s->sx * d;
            const float vy = ((2.0f * py + 1.0f) / H - 1.0f) * s->sy * d, vz = -d;
            float p[3];
            for (int j = 0; j < 3; j++)
                p[j] = M[4 * j] * vx + M[4 * j + 1] * vy + M[4 * j + 2] * vz + M[4 * j + 3];
            if (spot) {
                float q[4];
                for (int a = 0; a < 4; a++)
                    q[a] = L[a] * p[0] + L[4 + a] * p[1] + L[8 + a] * p[2] + L[12 + a];
                if (!(q[3] > 0.0f) || izb_spot_outside(q[0] / q[3], q[1] / q[3])) {
                    mask[i] = 0;
                    continue;
                }
            }
            valid[k] = -1;
            ray.org_x[k] = p[0], ray.org_y[k] = p[1], ray.org_z[k] = p[2];
            if (spot) {
                ray.dir_x[k] = s->l->pos[0] - p[0], ray.dir_y[k] = s->l->pos[1] - p[1];
                ray.dir_z[k] = s->l->pos[2] - p[2];
                ray.tfar[k] = 1.0f - 1e-4f;
            } else {
                ray.dir_x[k] = s->to_light[0], ray.dir_y[k] = s->to_light[1], ray.dir_z[k] = s->to_light[2];
                ray.tfar[k] = INFINITY;
            }
            ray.tnear[k] = s->tnear;
            ray.time[k] = 0.0f;
            ray.mask[k] = 0xFFFFFFFFu;
            ray.id[k] = 0;
            ray.flags[k] = 0;
        }
        rtcOccluded16(valid, r->scene, &ctx, &ray);
        for (int k = 0; k < 16; k++)
            if (valid[k])
                mask[(size_t)py * W + px0 + k] = ray.tfar[k] < 0.0f ? 0 : 255;
    }
}

int main(int argc, char **argv)
{
    const char *spec = "builtin:wave:1M";
    int W = 1920, H = 1080, frames = 10, warmup = 2, threads = 0;
    bool spot = false, csv = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--spot") || !strcmp(a, "--csv")) {
            *(a[2] == 's' ? &spot : &csv) = true;
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
        else if (!strcmp(a, "--warmup") && (warmup = atoi(v)) >= 0 && strspn(v, "0123456789") == strlen(v))
            ;
        else if (!strcmp(a, "--threads") && (threads = atoi(v)) >= 0)
            ;
        else {
            fprintf(stderr, "bench-dynamic: bad option '%s %s'\n", a, v);
            usage(argv[0]);
        }
    }
    threads = izb_threads_resolve(threads);

    scene s;
    char err[512];
    if (!scene_load(spec, &s, err, sizeof err)) {
        fprintf(stderr, "bench-dynamic: %s\n", err);
        return 1;
    }
    if (s.motion == SCENE_MOTION_NONE)
        scene_set_motion(&s, SCENE_MOTION_TURNTABLE);
    const int n = s.tri_count;
    float *moved = malloc(9 * sizeof(float) * (size_t)n);
    float *depth = malloc(sizeof(float) * (size_t)W * H);
    uint8_t *mask[M_COUNT];
    for (int m = 0; m < M_COUNT; m++)
        mask[m] = malloc((size_t)W * H);
    double *ms[M_COUNT];
    for (int m = 0; m < M_COUNT; m++)
        ms[m] = malloc(sizeof(double) * (size_t)frames);
    double *update_ms = malloc(sizeof(double) * (size_t)frames), *copy_ms = malloc(sizeof(double) * (size_t)frames);
    double *stage_ms[IZB_STAGE_COUNT];
    for (int k = 0; k < IZB_STAGE_COUNT; k++)
        stage_ms[k] = malloc(sizeof(double) * (size_t)frames);
    float *copy_dst = malloc(9 * sizeof(float) * (size_t)n);
    oracle *o = oracle_create(s.xyz, n);
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = threads});
    char cfg[32];
    snprintf(cfg, sizeof cfg, "threads=%d", threads);
    RTCDevice dev = rtcNewDevice(cfg);
    if (!moved || !depth || !mask[M_COUNT - 1] || !ms[M_COUNT - 1] || !copy_dst || !stage_ms[IZB_STAGE_COUNT - 1] ||
        !update_ms || !copy_ms || !o || !b || !dev || !izb_set_scene(b, s.xyz, n)) {
        fprintf(stderr, "bench-dynamic: setup failed (out of memory?)\n");
        return 1;
    }
    rt_scene rt[M_COUNT] = {0};
    double build_ms[M_COUNT] = {0};
    const struct {
        int m;
        enum RTCSceneFlags flags;
        enum RTCBuildQuality q;
    } kinds[] = {{M_STATIC, RTC_SCENE_FLAG_NONE, RTC_BUILD_QUALITY_MEDIUM},
                 {M_REBUILD, RTC_SCENE_FLAG_NONE, RTC_BUILD_QUALITY_MEDIUM},
                 {M_LOW, RTC_SCENE_FLAG_DYNAMIC, RTC_BUILD_QUALITY_LOW},
                 {M_REFIT, RTC_SCENE_FLAG_DYNAMIC, RTC_BUILD_QUALITY_REFIT}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const double t0 = now_ms();
        if (!rt_make(dev, &rt[kinds[k].m], s.xyz, n, kinds[k].flags, kinds[k].q)) {
            fprintf(stderr, "bench-dynamic: Embree scene failed\n");
            return 1;
        }
        build_ms[kinds[k].m] = now_ms() - t0;
    }

    camera cam = {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    float c[3], r = 0.0f, bmin[3], bmax[3];
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (s.bounds_min[k] + s.bounds_max[k]);
        r = fmaxf(r, 0.5f * (s.bounds_max[k] - s.bounds_min[k]));
    }
    /* bounds that hold every pose: the turntable sweeps a circle, the wave lifts */
    for (int k = 0; k < 3; k++)
        bmin[k] = c[k] - 1.5f * r, bmax[k] = c[k] + 1.5f * r;
    camera_fit_clip(&cam, bmin, bmax);
    light l = spot ? (light){.type = LIGHT_SPOT,
                             .pos = {s.light_pos[0], s.light_pos[1], s.light_pos[2]},
                             .dir = {c[0] - s.light_pos[0], c[1] - s.light_pos[1], c[2] - s.light_pos[2]},
                             .cone_deg = 60}
                   : (light){.type = LIGHT_DIRECTIONAL, .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}};
    oracle_depth(o, &cam, W, H, depth);
    izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, W, H);
    f.bias = izb_settings_resolve((izb_settings){0}).bias;
    const ray_setup rs = ray_setup_make(&cam, &l, &f, depth, threads);

    izb_stats st = {0};
    for (int i = -warmup; i < frames; i++) {
        scene_animate(&s, (double)(i + warmup) / 60.0, moved, NULL);
        double t0 = now_ms();
        memcpy(copy_dst, moved, 9 * sizeof(float) * (size_t)n); /* the floor of any update */
        double t1 = now_ms();
        if (!izb_update_scene(b, moved, n))
            return 1;
        double t2 = now_ms();
        if (!izb_shade_arrays(b, &f, NULL, depth, mask[M_IZB], &st))
            return 1;
        double t3 = now_ms();
        double m_ms[M_COUNT] = {t3 - t1};
        for (int m = M_STATIC; m < M_COUNT; m++) {
            const double a = now_ms();
            if (m != M_STATIC)
                rt_update(&rt[m], moved, n);
            rt_shadow(&rt[m], &rs, mask[m]);
            m_ms[m] = now_ms() - a;
        }
        if (i < 0)
            continue;
        copy_ms[i] = t1 - t0;
        update_ms[i] = t2 - t1;
        for (int k = 0; k < IZB_STAGE_COUNT; k++)
            stage_ms[k][i] = st.stage_ms[k];
        for (int m = 0; m < M_COUNT; m++)
            ms[m][i] = m_ms[m];
    }

    stats_summary sum[M_COUNT];
    for (int m = 0; m < M_COUNT; m++)
        sum[m] = stats_summarize(ms[m], (size_t)frames);
    if (csv) {
        for (int m = 0; m < M_COUNT; m++)
            printf("%d,%d,%d,%s,%s,%.3f,%.3f,%.3f\n", n, W, H, spot ? "spot" : "dir", method_names[m], sum[m].min,
                   sum[m].median, sum[m].p95);
    } else {
        printf("scene %s: %d triangles (%d move), %dx%d, %s light, %d threads; %d frames after %d warm-ups\n", s.name,
               n, s.motion_count, W, H, spot ? "spot" : "directional", threads, frames, warmup);
        printf("points %d, triangles after culling %d, grid %dx%d\n", st.points, st.tris_after_cull, st.grid_w,
               st.grid_h);
        printf("Embree first builds: static %.0f ms, rebuild %.0f ms, low %.0f ms, refit %.0f ms\n", build_ms[M_STATIC],
               build_ms[M_REBUILD], build_ms[M_LOW], build_ms[M_REFIT]);
        printf("%-16s %9s %9s %9s %9s   (ms per frame)\n", "method", "min", "median", "p95", "/ izb");
        for (int m = 0; m < M_COUNT; m++)
            printf("%-16s %9.2f %9.2f %9.2f %9.2f\n", method_names[m], sum[m].min, sum[m].median, sum[m].p95,
                   sum[m].median / sum[M_IZB].median);
        stats_summary u = stats_summarize(update_ms, (size_t)frames), cp = stats_summarize(copy_ms, (size_t)frames);
        printf("izb update       %9.2f %9.2f %9.2f   (memcpy of the same %.1f MB: median %.2f ms)\n", u.min, u.median,
               u.p95, 36.0 * n / 1e6, cp.median);
        for (int k = 0; k < IZB_STAGE_COUNT; k++) {
            stats_summary q = stats_summarize(stage_ms[k], (size_t)frames);
            printf("izb %-12s %9.2f %9.2f %9.2f\n", izb_stage_names[k], q.min, q.median, q.p95);
        }
        for (int m = M_STATIC + 1; m < M_COUNT; m++) {
            mask_diff d = mask_compare(depth, mask[M_IZB], mask[m], (long)W * H);
            printf("mask izb vs %s: %ld of %ld covered pixels differ (%.4f%%)\n", method_names[m], d.mismatched,
                   d.covered, d.covered ? 100.0 * (double)d.mismatched / (double)d.covered : 0.0);
        }
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "bench-dynamic: writing the results failed\n");
        return 1;
    }
    for (int m = 0; m < M_COUNT; m++) {
        if (rt[m].scene)
            rtcReleaseScene(rt[m].scene);
        if (rt[m].geom)
            rtcReleaseGeometry(rt[m].geom);
        free(mask[m]), free(ms[m]);
    }
    for (int k = 0; k < IZB_STAGE_COUNT; k++)
        free(stage_ms[k]);
    rtcReleaseDevice(dev);
    izb_destroy(b);
    oracle_destroy(o);
    free(moved), free(depth), free(update_ms), free(copy_ms), free(copy_dst);
    scene_free(&s);
    return 0;
}
