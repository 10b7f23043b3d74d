/* bench_gpu.c — bench-gpu: headless per-stage timings of the CUDA backend (not a test).
 *
 * For each scene x resolution, the depth images of a fixed camera path (--poses poses turning
 * around the scene's suggested camera) are rendered once on the CPU (depth_raster.c); then for
 * each kernel x binning x unit configuration it runs --warmup frames, then --frames measured frames
 * cycling through the poses, and reports min / median / p95 of every stage's CUDA-event time, of
 * the IZB total (GPU, reconstruction to resolve, one host round trip included) and of the wall
 * time of izb_shade_arrays (adds the depth upload and mask download of the array path). Scene
 * triangles per second = scene triangles / median total. A table on stdout, one CSV row per
 * configuration with --csv.
 *
 *   bench-gpu [--res 512x512,1280x720,1920x1080,3840x2160]
 *             [--scenes tesseract:14000,tesseract:123000,spheres:1000000,spheres:4000000]
 *             [--kernels 1,2] [--binning radix,atomic] [--units 0] [--grid WxH]
 *             [--light sun|spot] [--frames 200] [--warmup 20] [--poses 8] [--csv FILE]
 * Exits 77 when no CUDA device answers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "file_out.h"
#include "gpu_fixture.h"
#include "izb.h"
#include "izb_cuda_stages.h"
#include "stats.h"

#define MAX_LIST 16

typedef struct options {
    int res[MAX_LIST][2], nres;
    char scenes[MAX_LIST][64];
    long scene_tris[MAX_LIST];
    int nscenes;
    int kernels[2], nkernels;
    int binnings[2], nbinnings;
    int units[5], nunits;
    int grid_w, grid_h;
    bool spot;
    int frames, warmup, poses;
    const char *csv;
} options;

enum { M_RECON, M_BIN, M_CULL, M_RASTER, M_TOTAL, M_WALL, M_COUNT };
static const char *const metric_names[M_COUNT] = {"reconstruct", "binning", "culling", "raster", "total", "wall"};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench-gpu [--res WxH,...] [--scenes NAME:N,...] [--kernels 1,2] [--binning radix,atomic]\n"
                    "                 [--units 0|32|64|128|256,...] [--grid WxH] [--light sun|spot] [--frames N]\n"
                    "                 [--warmup N] [--poses N] [--csv FILE]\n");
    exit(2);
}

static int parse_int(const char *opt, const char *s, int lo, int hi)
{
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) {
        fprintf(stderr, "bench-gpu: %s: '%s' is not an integer in [%d, %d]\n", opt, s, lo, hi);
        exit(2);
    }
    return (int)v;
}

/* Split a comma list into tokens (at most MAX_LIST); returns the count. */
static int split(const char *opt, const char *s, char tok[MAX_LIST][64])
{
    int n = 0;
    const char *p = s;
    while (*p) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (n == MAX_LIST || len == 0 || len >= 64) {
            fprintf(stderr, "bench-gpu: %s: bad list '%s'\n", opt, s);
            exit(2);
        }
        memcpy(tok[n], p, len);
        tok[n++][len] = '\0';
        p += len + (e ? 1 : 0);
    }
    return n;
}

static void parse_size(const char *opt, const char *s, int *w, int *h)
{
    if (sscanf(s, "%dx%d", w, h) != 2 || *w < 1 || *h < 1 || *w > 16384 || *h > 16384) {
        fprintf(stderr, "bench-gpu: %s: '%s' is not WxH\n", opt, s);
        exit(2);
    }
}

static options parse(int argc, char **argv)
{
    options o = {.nkernels = 2, .kernels = {IZB_KERNEL1, IZB_KERNEL2}, .nbinnings = 2,
                 .binnings = {IZB_BINNING_RADIX, IZB_BINNING_ATOMIC}, .nunits = 1, .units = {0},
                 .frames = 200, .warmup = 20, .poses = 8};
    const char *res = "512x512,1280x720,1920x1080,3840x2160";
    const char *scenes = "tesseract:14000,tesseract:123000,spheres:1000000,spheres:4000000";
    char tok[MAX_LIST][64];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "--res"))
            res = v;
        else if (!strcmp(a, "--scenes"))
            scenes = v;
        else if (!strcmp(a, "--kernels")) {
            o.nkernels = split(a, v, tok);
            for (int k = 0; k < o.nkernels && k < 2; k++)
                o.kernels[k] = parse_int(a, tok[k], 1, 2) == 2 ? IZB_KERNEL2 : IZB_KERNEL1;
            o.nkernels = o.nkernels > 2 ? 2 : o.nkernels;
        } else if (!strcmp(a, "--binning")) {
            o.nbinnings = split(a, v, tok);
            o.nbinnings = o.nbinnings > 2 ? 2 : o.nbinnings;
            for (int k = 0; k < o.nbinnings; k++) {
                if (strcmp(tok[k], "radix") && strcmp(tok[k], "atomic")) {
                    fprintf(stderr, "bench-gpu: --binning: '%s' is not radix or atomic\n", tok[k]);
                    exit(2);
                }
                o.binnings[k] = strcmp(tok[k], "atomic") ? IZB_BINNING_RADIX : IZB_BINNING_ATOMIC;
            }
        } else if (!strcmp(a, "--units")) {
            o.nunits = split(a, v, tok);
            o.nunits = o.nunits > 5 ? 5 : o.nunits;
            for (int k = 0; k < o.nunits; k++) {
                o.units[k] = parse_int(a, tok[k], 0, 256);
                if (o.units[k] && o.units[k] != 32 && o.units[k] != 64 && o.units[k] != 128 && o.units[k] != 256) {
                    fprintf(stderr, "bench-gpu: --units: %d is not 0, 32, 64, 128 or 256\n", o.units[k]);
                    exit(2);
                }
            }
        } else if (!strcmp(a, "--grid"))
            parse_size(a, v, &o.grid_w, &o.grid_h);
        else if (!strcmp(a, "--light")) {
            if (strcmp(v, "sun") && strcmp(v, "spot"))
                usage();
            o.spot = !strcmp(v, "spot");
        } else if (!strcmp(a, "--frames"))
            o.frames = parse_int(a, v, 1, 1000000);
        else if (!strcmp(a, "--warmup"))
            o.warmup = parse_int(a, v, 0, 1000000);
        else if (!strcmp(a, "--poses"))
            o.poses = parse_int(a, v, 1, 64);
        else if (!strcmp(a, "--csv"))
            o.csv = v;
        else
            usage();
    }
    o.nres = split("--res", res, tok);
    for (int k = 0; k < o.nres; k++)
        parse_size("--res", tok[k], &o.res[k][0], &o.res[k][1]);
    o.nscenes = split("--scenes", scenes, tok);
    for (int k = 0; k < o.nscenes; k++) {
        char *colon = strchr(tok[k], ':');
        o.scene_tris[k] = colon ? parse_int("--scenes", colon + 1, 1, 100000000) : 0;
        if (colon)
            *colon = '\0';
        snprintf(o.scenes[k], sizeof o.scenes[k], "%s", tok[k]);
    }
    return o;
}

/* Run one configuration; false when a frame fails. */
static bool bench(const options *o, izb_backend *gpu, const fixture *fx, int w, int h, float **depth,
                  const izb_recon *frames, izb_kernel kernel, izb_binning binning, int unit, FILE *csv)
{
    const izb_settings st = {.kernel = kernel, .binning = binning, .unit_size = unit, .grid_w = o->grid_w,
                             .grid_h = o->grid_h};
    uint8_t *mask = xmalloc((size_t)w * (size_t)h);
    double *v[M_COUNT];
    for (int m = 0; m < M_COUNT; m++)
        v[m] = xmalloc((size_t)o->frames * sizeof(double));
    double points = 0, culled = 0;
    izb_stats s = {0};
    bool ok = true;
    for (int i = 0; i < o->warmup + o->frames && ok; i++) {
        const int pose = i % o->poses;
        const double t0 = now_ms();
        ok = izb_shade_arrays(gpu, &frames[pose], &st, depth[pose], mask, &s);
        const double t1 = now_ms();
        const int j = i - o->warmup;
        if (!ok || j < 0)
            continue;
        v[M_RECON][j] = s.stage_ms[IZB_STAGE_RECONSTRUCT];
        v[M_BIN][j] = s.stage_ms[IZB_STAGE_BINNING];
        v[M_CULL][j] = s.stage_ms[IZB_STAGE_CULLING];
        v[M_RASTER][j] = s.stage_ms[IZB_STAGE_RASTER];
        v[M_TOTAL][j] = s.total_ms;
        v[M_WALL][j] = t1 - t0;
        points += s.points;
        culled += s.tris_after_cull;
    }
    if (ok) {
        stats_summary sm[M_COUNT];
        for (int m = 0; m < M_COUNT; m++)
            sm[m] = stats_summarize(v[m], (size_t)o->frames);
        const double mtris = fx->tri_count / (sm[M_TOTAL].median * 1e-3) * 1e-6;
        printf("%-20s %5dx%-5d k%d %-6s %3d %9.0f %9.0f %4dx%-4d %7.3f %7.3f %7.3f %7.3f | %7.3f %7.3f %7.3f | %7.3f %8.1f\n",
               fx->name, w, h, kernel == IZB_KERNEL2 ? 2 : 1, binning == IZB_BINNING_ATOMIC ? "atomic" : "radix",
               s.unit_size, points / o->frames, culled / o->frames, s.grid_w, s.grid_h, sm[M_RECON].median,
               sm[M_BIN].median, sm[M_CULL].median, sm[M_RASTER].median, sm[M_TOTAL].min, sm[M_TOTAL].median,
               sm[M_TOTAL].p95, sm[M_WALL].median, mtris);
        fflush(stdout);
        if (csv) {
            fprintf(csv, "%s,%d,%d,%d,%d,%s,%d,%d,%s,%d,%.0f,%.0f,%d,%d", fx->name, fx->tri_count, w, h,
                    kernel == IZB_KERNEL2 ? 2 : 1, binning == IZB_BINNING_ATOMIC ? "atomic" : "radix", unit, s.unit_size,
                    o->spot ? "spot" : "sun", o->frames, points / o->frames, culled / o->frames, s.grid_w, s.grid_h);
            for (int m = 0; m < M_COUNT; m++)
                fprintf(csv, ",%.4f,%.4f,%.4f", sm[m].min, sm[m].median, sm[m].p95);
            fprintf(csv, ",%.2f\n", mtris);
            fflush(csv);
        }
    } else {
        fprintf(stderr, "bench-gpu: %s %dx%d: a frame failed\n", fx->name, w, h);
    }
    for (int m = 0; m < M_COUNT; m++)
        free(v[m]);
    free(mask);
    return ok;
}

int main(int argc, char **argv)
{
    const options o = parse(argc, argv);
    const char *why = "";
    if (!izb_cuda_available(&why)) {
        fprintf(stderr, "bench-gpu: no CUDA device answers (%s)\n", why);
        return 77;
    }
    izb_backend *gpu = izb_create(&(izb_desc){.backend = IZB_BACKEND_CUDA});
    if (!gpu)
        return 1;
    FILE *csv = NULL;
    file_out csv_out; /* a temporary name renamed into place when every row is written */
    char csv_err[1400];
    if (o.csv) {
        if (!file_out_open(&csv_out, o.csv, csv_err, sizeof csv_err)) {
            fprintf(stderr, "bench-gpu: --csv %s\n", csv_err);
            return 1;
        }
        csv = csv_out.f;
        fprintf(csv, "scene,scene_tris,width,height,kernel,binning,unit_requested,unit,light,frames,points,"
                     "tris_after_cull,grid_w,grid_h");
        for (int m = 0; m < M_COUNT; m++)
            fprintf(csv, ",%s_min_ms,%s_median_ms,%s_p95_ms", metric_names[m], metric_names[m], metric_names[m]);
        fprintf(csv, ",mtris_per_s\n");
    }
    printf("%-20s %11s %2s %-6s %3s %9s %9s %9s %7s %7s %7s %7s | %23s | %7s %8s\n", "scene", "resolution", "k",
           "bin", "unit", "points", "tris", "grid", "recon", "bin", "cull", "raster", "total min/median/p95",
           "wall", "Mtris/s");
    printf("%-20s %11s %2s %-6s %3s %9s %9s %9s %31s | %23s | %7s\n", "", "", "", "", "", "", "", "",
           "(median ms per stage)", "(ms)", "(median)");
    int failures = 0;
    for (int sc = 0; sc < o.nscenes; sc++) {
        fixture fx;
        if (!fixture_builtin(&fx, o.scenes[sc], o.scene_tris[sc])) {
            failures++;
            continue;
        }
        if (!izb_set_scene(gpu, fx.xyz, fx.tri_count)) {
            failures++;
            fixture_free(&fx);
            continue;
        }
        for (int r = 0; r < o.nres; r++) {
            const int w = o.res[r][0], h = o.res[r][1];
            float *depth[64];
            izb_recon frames[64];
            const double t0 = now_ms();
            for (int p = 0; p < o.poses; p++) { /* the path: turn from -20 to +20 degrees */
                const float yaw = o.poses > 1 ? -20.0f + 40.0f * (float)p / (float)(o.poses - 1) : 0.0f;
                depth[p] = fixture_depth(&fx, yaw, w, h);
                frames[p] = fixture_frame(&fx, o.spot, yaw, w, h);
            }
            fprintf(stderr, "bench-gpu: %s %dx%d: %d depth images in %.1f s\n", fx.name, w, h, o.poses,
                    (now_ms() - t0) * 1e-3);
            for (int k = 0; k < o.nkernels; k++)
                for (int b = 0; b < o.nbinnings; b++)
                    for (int u = 0; u < o.nunits; u++)
                        failures += !bench(&o, gpu, &fx, w, h, depth, frames, (izb_kernel)o.kernels[k],
                                           (izb_binning)o.binnings[b], o.units[u], csv);
            for (int p = 0; p < o.poses; p++)
                free(depth[p]);
        }
        fixture_free(&fx);
    }
    if (csv && !file_out_commit(&csv_out, csv_err, sizeof csv_err)) {
        fprintf(stderr, "bench-gpu: --csv %s\n", csv_err);
        failures++;
    }
    if (!file_out_stdout_ok(csv_err, sizeof csv_err)) {
        fprintf(stderr, "bench-gpu: %s\n", csv_err);
        failures++;
    }
    izb_destroy(gpu);
    return failures ? 1 : 0;
}
