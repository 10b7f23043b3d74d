/* bench_cpu.c — the CPU backend against Embree's shadow rays for the same sample points, side by
 * side in one process (not a test: run by hand or by scripts/bench-cpu.sh).
 *
 *   bench-cpu [--matrix] [--scene SPEC]... [--size WxH]... [--light dir|spot|both] [--frames N]
 *             [--warmup N] [--threads N[,N...]] [--csv FILE] [--ids] [--light-angle DEG]
 *             [--light-samples M] [--light-size W] [--shadow-samples-sweep]
 *
 * Static (every scene x size x light x thread count): each timed round runs, in turn, one IZB frame
 * (izb_shade_arrays, CPU backend), the same points' shadow rays with rtcOccluded1 and with
 * rtcOccluded16 over rows of 16 pixels (OpenMP over rows, the same thread count; Embree's default
 * BVH, build not counted; rays precomputed, so Embree is not charged for reconstruction), and the
 * stages' floors (bench_floor.h). Interleaving keeps a busy machine's slow moments fair to both.
 * Reports min / median / p95 after the warm-up rounds. A point light (--light point) is shaded by
 * izb_shade_arrays_faces (the partition into cube faces), and each round also times the path it
 * replaced, six whole passes combined by max (six_passes), with one line per case comparing the two
 * (times, stages, points, mask pixels that differ) and six_* rows in the CSV.
 *
 * Moving scenes (Embree rebuild / refit beside izb_update_scene) are bench-dynamic's
 * (tests/core/bench_dynamic.c).
 *
 * --matrix: the scenes, sizes and lights of issue 10 (builtin:spheres:4K, builtin:spheres:1M;
 * 1280x720, 1920x1080; directional and spot). --csv: one row per measurement, checked writes.
 * --ids: the IZB frames get the primitive ids of the depth (izb_shade_arrays_ids), as a depth
 * pass with gl_PrimitiveID would give them.
 *
 * --light-angle DEG [--light-samples M]: the directional light's frames are soft (izb_soft.h, M
 * samples, default 32); Embree still casts one ray per point to the light's centre, so its columns
 * and the mask diff are the hard shadow's (Embree with M rays per point is issue 20's next phase).
 *
 * --light-size W [--light-samples M]: the spot light's frames are an area light's (izb_area.h, a W x W
 * emitter, M samples); the penumbra counts as for --light-angle, and the area frame alternated with
 * the same spot's hard frame on one backend (min / median, ratio). Embree's columns stay hard.
 *
 * --shadow-samples-sweep: for a directional, spot or point light, anti-aliased frames (izb_aa.h) with N = 1, 4, 8,
 * 32 sub-samples per pixel, interleaved round by round on one backend (N = 1 is the hard path), then
 * Embree's rtcOccluded16 casting the same N rays per pixel (from the same sub-sample positions,
 * the footprint axes mapped back to world space) --frames times per N; ratios to N = 1 and to
 * Embree, and how many sub-sample answers differ from Embree's (estimated from the bytes).
 *
 * --load: what loading a scene costs instead (issue 22): the closed-mesh analysis izb_set_scene
 * runs (izb_closed_find_threads) beside Embree's BVH build of the same triangles (rtcCommitScene
 * alone, default quality, a device with the same thread count), alternating, --frames timed
 * rounds of each after --warmup; scenes default to builtin:spheres:1M, builtin:grass:1M,
 * builtin:tesseract and builtin:default, threads to 1,2. The load average is printed before and
 * after each scene, since the analysis is memory-bound and a busy machine moves it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_floor.h"
#include "bench_rays.h"
#include "file_out.h"
#include "izb.h"
#include "izb_parallel.h"
#include "izb_closed.h"
#include "izb_aa.h"
#include "izb_soft.h"
#include "izb_area.h"
#include "sample_rays.h"
#include "oracle.h"
#include "scene.h"
#include "scene_cutout.h"
#include "stats.h"
#include "view.h"

#include <embree3/rtcore.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_LIST 16

typedef struct bench_opts {
    const char *scenes[MAX_LIST];
    int scene_count;
    int sizes[MAX_LIST][2];
    int size_count;
    bool lights[LIGHT_TYPE_COUNT]; /* which light kinds to run: directional, spot, point */
    int frames, warmup;
    int threads[MAX_LIST]; /* 0 = all */
    int thread_count;
    const char *csv;
    bool ids;  /* --ids: izb_shade_arrays_ids */
    bool load; /* --load: closed-mesh analysis beside Embree's BVH build */
    float light_angle; /* --light-angle DEG: soft shadows of the directional light (izb_soft.h) */
    float light_size;  /* --light-size W: the spot is an area light of W x W world units (izb_area.h) */
    int light_samples; /* --light-samples M */
    bool aa_sweep;     /* --shadow-samples-sweep */
} bench_opts;

/* one bench case: the scene, its view and the buffers every measurement shares */
typedef struct bench_case {
    const scene *s;
    const izb_cutouts *cut; /* the scene's cut-outs (NULL: none): the IZB and Embree's filter alpha-test */
    int W, H;
    camera cam;
    light l;
    izb_recon f[LIGHT_CUBE_FACES]; /* one frame, or a point light's six faces */
    int faces;
    uint8_t *face_mask;            /* izb_shade_arrays_faces' scratch */
    float *depth;
    uint32_t *ids; /* the triangle each primary ray hit (IZB_NO_ID: sky) */
    bench_rays rays;
    uint8_t *mask, *ray_mask;
} bench_case;

/* a CSV row sink whose every write is checked */
typedef struct csv_out {
    FILE *fp;
    const char *path;
    bool failed;
} csv_out;

static double now_ms(void);
/* the light column's name: "dir" (the benchmark's tables say so since the start), "spot", "point" */
static const char *bench_light_name(light_type t)
{
    return t == LIGHT_DIRECTIONAL ? "dir" : light_type_names[t];
}

static void usage(void);
static void parse(int argc, char **argv, bench_opts *o);
static void csv_row(csv_out *c, const bench_case *bc, int threads, const char *metric, const char *unit,
                    stats_summary v);
static int run_static(const bench_opts *o, bench_case *bc, int threads, csv_out *csv);

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench-cpu [--matrix] [--scene SPEC]... [--size WxH]... [--light dir|spot|point|both|all]\n"
            "                 [--frames N] [--warmup N] [--threads N[,N...]] [--csv FILE] [--ids]\n"
            "                 [--light-angle DEG] [--light-samples M] [--light-size W] [--shadow-samples-sweep]\n"
            "       bench-cpu --load [--scene SPEC]... [--frames N] [--warmup N] [--threads N[,N...]]\n"
            "                 [--csv FILE]\n");
    exit(2);
}

static void parse(int argc, char **argv, bench_opts *o)
{
    *o = (bench_opts){.lights = {[LIGHT_DIRECTIONAL] = true}, .frames = 10, .warmup = 2, .thread_count = 1};
    bool threads_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--matrix")) {
            o->scenes[0] = "builtin:spheres:4K", o->scenes[1] = "builtin:spheres:1M", o->scene_count = 2;
            o->sizes[0][0] = 1280, o->sizes[0][1] = 720, o->sizes[1][0] = 1920, o->sizes[1][1] = 1080;
            o->size_count = 2, o->lights[LIGHT_DIRECTIONAL] = o->lights[LIGHT_SPOT] = true;
            continue;
        }
        if (!strcmp(a, "--ids")) {
            o->ids = true;
            continue;
        }
        if (!strcmp(a, "--shadow-samples-sweep")) {
            o->aa_sweep = true;
            continue;
        }
        if (!strcmp(a, "--load")) {
            o->load = true;
            continue;
        }
        if (!v) usage();
        i++;
        int w, h;
        if (!strcmp(a, "--scene") && o->scene_count < MAX_LIST)
            o->scenes[o->scene_count++] = v;
        else if (!strcmp(a, "--size") && o->size_count < MAX_LIST && sscanf(v, "%dx%d", &w, &h) == 2 &&
                 w > 0 && h > 0 && w <= 16384 && h <= 16384)
            o->sizes[o->size_count][0] = w, o->sizes[o->size_count++][1] = h;
        else if (!strcmp(a, "--light") && (!strcmp(v, "dir") || !strcmp(v, "spot") || !strcmp(v, "point") ||
                                            !strcmp(v, "both") || !strcmp(v, "all"))) {
            const bool all = !strcmp(v, "all"), both = !strcmp(v, "both");
            o->lights[LIGHT_DIRECTIONAL] = all || both || !strcmp(v, "dir");
            o->lights[LIGHT_SPOT] = all || both || !strcmp(v, "spot");
            o->lights[LIGHT_POINT] = all || !strcmp(v, "point");
        }
        else if (!strcmp(a, "--frames") && (o->frames = atoi(v)) >= 1)
            ;
        else if (!strcmp(a, "--warmup") && (o->warmup = atoi(v)) >= 0)
            ;
        else if (!strcmp(a, "--light-angle") && (o->light_angle = strtof(v, NULL)) > 0.0f &&
                 o->light_angle <= IZB_SOFT_MAX_ANGLE_DEG)
            ;
        else if (!strcmp(a, "--light-samples") && izb_soft_samples_ok(o->light_samples = atoi(v)))
            ;
        else if (!strcmp(a, "--light-size") && (o->light_size = strtof(v, NULL)) > 0.0f &&
                 o->light_size <= IZB_AREA_MAX_SIZE)
            ;
        else if (!strcmp(a, "--csv"))
            o->csv = v;
        else if (!strcmp(a, "--threads")) {
            o->thread_count = 0;
            threads_given = true;
            for (const char *p = v; *p && o->thread_count < MAX_LIST;) {
                char *end;
                long t = strtol(p, &end, 10);
                if (end == p || t < 0 || t > 1024) usage();
                o->threads[o->thread_count++] = (int)t;
                p = *end == ',' ? end + 1 : end;
                if (*end && *end != ',') usage();
            }
        } else {
            fprintf(stderr, "bench-cpu: bad option '%s %s'\n", a, v);
            usage();
        }
    }
    if (o->load && !o->scene_count) {
        static const char *const load_scenes[] = {"builtin:spheres:1M", "builtin:grass:1M",
                                                  "builtin:tesseract", "builtin:default"};
        for (int k = 0; k < 4; k++)
            o->scenes[o->scene_count++] = load_scenes[k];
    }
    if (o->load && o->thread_count == 1 && o->threads[0] == 0 && !threads_given)
        o->threads[0] = 1, o->threads[1] = 2, o->thread_count = 2;
    if (!o->scene_count) o->scenes[o->scene_count++] = "builtin:default";
    if (!o->size_count) o->sizes[0][0] = 1280, o->sizes[0][1] = 720, o->size_count = 1;
}

static void csv_row(csv_out *c, const bench_case *bc, int threads, const char *metric, const char *unit,
                    stats_summary v)
{
    if (!c->fp || c->failed) return;
    if (fprintf(c->fp, "%s,%d,%dx%d,%s,%d,%s,%s,%.4f,%.4f,%.4f\n", bc->s->name, bc->s->tri_count, bc->W,
                bc->H, bench_light_name(bc->l.type), threads, metric, unit, v.min, v.median, v.p95) < 0) {
        fprintf(stderr, "bench-cpu: writing %s failed\n", c->path);
        c->failed = true;
    }
}

static int resolve_threads(int t) { return izb_threads_resolve(t); }

/* samples of one measurement over the timed rounds */
typedef struct series {
    double *v;
    int n;
} series;

static stats_summary summarize(series *s)
{
    return stats_summarize(s->v, (size_t)s->n);
}

enum { M_TOTAL, M_RECON, M_BIN, M_CULL, M_RASTER, M_OCC1, M_OCC16, M_F_RECON, M_F_BIN, M_F_CULL,
       M_SIX, M_SIX_RECON, M_SIX_BIN, M_SIX_CULL, M_SIX_RASTER, M_COUNT };
static const char *const metric_names[M_COUNT] = {"izb_total",
                                                  "izb_reconstruct",
                                                  "izb_binning",
                                                  "izb_culling",
                                                  "izb_raster",
                                                  "embree_occluded1",
                                                  "embree_occluded16",
                                                  "floor_reconstruct_memcpy",
                                                  "floor_binning_memcpy",
                                                  "floor_culling_transform",
                                                  "six_total",
                                                  "six_reconstruct",
                                                  "six_binning",
                                                  "six_culling",
                                                  "six_raster"};

static double s_median_total(series *s) { return stats_summarize(s->v, (size_t)s->n).median; }

/* Soft and area frames: Embree casting the same M rays per point (the IZB's sample directions, or
 * the segments to an area light's samples, mapped back to world space), EMBREE_SOFT_ROUNDS times,
 * the median timed (one frame's time moved the area light's ratio 0.19-0.23 from run to run); its bytes against the IZB's (bc->mask, the last frame's). A pixel's
 * byte difference times M / 255 estimates how many of its (point, sample) answers differ (the bytes
 * hold the lit count, not which samples: differences inside one pixel can cancel). */
#define EMBREE_SOFT_ROUNDS 3
static void soft_vs_embree(bench_bvh *bvh, const bench_case *bc, double izb_ms, int T)
{
    const bool area = izb_area_on(&bc->f[0]);
    izb_soft_light L = {.m = bc->f[0].light_samples};
    if (!area) izb_soft_light_make(&bc->f[0], &L);
    float *dirs = malloc(sizeof(float) * 3 * (size_t)L.m);
    double *pts = malloc(sizeof(double) * 3 * (size_t)L.m);
    uint8_t *em = malloc((size_t)bc->W * bc->H);
    if (!dirs || !pts || !em) {
        free(dirs), free(pts), free(em);
        return;
    }
    if (area) {
        sample_rays_area_points(&bc->f[0], pts);
        for (int k = 0; k < 3 * L.m; k++) dirs[k] = (float)pts[k];
    } else {
        sample_rays_soft_dirs(&bc->f[0], dirs);
    }
    double round_ms[EMBREE_SOFT_ROUNDS];
    for (int r = 0; r < EMBREE_SOFT_ROUNDS; r++) {
        memcpy(em, bc->mask, (size_t)bc->W * bc->H);
        const double t0 = now_ms();
        if (area)
            bench_rays_occluded16_area(bvh, &bc->rays, dirs, L.m, em, T);
        else
            bench_rays_occluded16_soft(bvh, &bc->rays, dirs, L.m, em, T);
        round_ms[r] = now_ms() - t0;
    }
    const double ems = stats_summarize(round_ms, EMBREE_SOFT_ROUNDS).median;
    long differ = 0, darker = 0, valid = 0, grazing = 0;
    double samples = 0.0;
    float ld[3];
    light_direction(&bc->l, ld);
    for (long i = 0; i < (long)bc->W * bc->H; i++) {
        if (!bc->rays.valid[i]) continue;
        valid++;
        const int dlt = abs((int)em[i] - (int)bc->mask[i]);
        differ += dlt != 0;
        darker += bc->mask[i] < em[i];
        samples += dlt * (double)L.m / 255.0;
        /* where: a pixel whose surface is within ~6 degrees of edge-on to the light (|cos| < 0.1) */
        const uint32_t id = bc->ids[i];
        if (dlt && id < (uint32_t)bc->s->tri_count) {
            const float *q = bc->s->xyz + 9 * (size_t)id;
            const double e1[3] = {q[3] - q[0], q[4] - q[1], q[5] - q[2]}, e2[3] = {q[6] - q[0], q[7] - q[1], q[8] - q[2]};
            const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                                 e1[0] * e2[1] - e1[1] * e2[0]};
            const double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            grazing += nn > 0.0 && fabs(n[0] * ld[0] + n[1] * ld[1] + n[2] * ld[2]) < 0.1 * nn;
        }
    }
    printf("%s vs Embree rtcOccluded16 with the same %d rays per point: Embree %.1f ms (median of %d frames), IZB %.1f ms "
           "(median) = %.3fx; pixels whose byte differs %ld of %ld (%.4f%%; the IZB's darker on %ld; on a surface "
           "within ~6 degrees of edge-on to the light: %ld); (point, sample) "
           "answers that differ: "
           "about %.0f of %.4g (%.5f%%)\n",
           area ? "area" : "soft", L.m, ems, EMBREE_SOFT_ROUNDS, izb_ms, izb_ms / ems, differ, valid, 100.0 * (double)differ / (double)(valid ? valid : 1), darker,
           grazing,
           samples, (double)valid * L.m, 100.0 * samples / ((double)valid * L.m + 1e-300));
    free(dirs), free(pts), free(em);
}

/* the point tests of the same frame with a hard light (kernel1's cell ranges, bench_raster_tests) */
static double hard_tests(izb_backend *b, const bench_case *bc, const bench_opts *o)
{
    izb_recon f = bc->f[0];
    f.light_angle = 0.0f;
    f.light_size[0] = f.light_size[1] = 0.0f;
    izb_debug dbg;
    uint8_t *mask = malloc((size_t)bc->W * bc->H); /* bc->mask keeps the soft frame's */
    const bool ok = mask && izb_shade_arrays_ids(b, &f, &(izb_settings){0}, bc->depth, o->ids ? bc->ids : NULL,
                                                 mask, NULL) &&
                    izb_get_debug(b, &dbg) && dbg.tris;
    free(mask);
    return ok ? bench_raster_tests(dbg.tris, dbg.tri_count, dbg.cell_start, dbg.cell_end, &dbg.grid) : 0.0;
}

/* --light-size: the area frame and the same spot's hard frame, alternated `rounds` times on one
 * backend after one warm-up each; their IZB totals (min / median) and the ratio of the medians */
static void area_vs_hard(izb_backend *b, const bench_case *bc, const bench_opts *o, int rounds)
{
    izb_recon f[2] = {bc->f[0], bc->f[0]};
    f[1].light_size[0] = f[1].light_size[1] = 0.0f;
    double *ms = malloc(2 * sizeof(double) * (size_t)(rounds + 1));
    uint8_t *mask = malloc((size_t)bc->W * bc->H);
    bool ok = ms && mask;
    for (int r = 0; r <= rounds && ok; r++)
        for (int k = 0; k < 2 && ok; k++) {
            izb_stats st;
            ok = izb_shade_arrays_ids(b, &f[k], &(izb_settings){0}, bc->depth, o->ids ? bc->ids : NULL, mask, &st);
            if (r > 0) ms[k * rounds + r - 1] = st.total_ms; /* round 0: the warm-up */
        }
    if (ok) {
        const stats_summary a = stats_summarize(ms, (size_t)rounds), h = stats_summarize(ms + rounds, (size_t)rounds);
        printf("  area vs hard spot, alternated %d rounds: IZB total %.1f / %.1f ms vs %.1f / %.1f ms (min / median), "
               "%.2fx\n", rounds, a.min, a.median, h.min, h.median, a.median / h.median);
    }
    free(ms);
    free(mask);
}

/* --shadow-samples-sweep (see the top of the file) */
enum { AA_COUNTS = 4 };
static const int aa_counts[AA_COUNTS] = {1, 4, 8, 32};

static int aa_sweep(const bench_opts *o, bench_case *bc, izb_backend *b, bench_bvh *bvh, int T)
{
    const size_t npix = (size_t)bc->W * bc->H;
    float *axes = malloc(6 * sizeof(float) * npix);
    uint8_t *mask[AA_COUNTS], *em = malloc(npix);
    double *tot[AA_COUNTS], *ras[AA_COUNTS], *emb[AA_COUNTS], *set[AA_COUNTS];
    bool ok = axes && em;
    for (int c = 0; c < AA_COUNTS; c++) {
        ok = (mask[c] = malloc(npix)) && ok;
        ok = (tot[c] = malloc(sizeof(double) * (size_t)o->frames)) && ok;
        ok = (ras[c] = malloc(sizeof(double) * (size_t)o->frames)) && ok;
        ok = (emb[c] = malloc(sizeof(double) * (size_t)o->frames)) && ok;
        ok = (set[c] = malloc(sizeof(double) * (size_t)o->frames)) && ok;
    }
    if (!ok) {
        fprintf(stderr, "bench-cpu: shadow-samples sweep: out of memory\n");
        return 1;
    }
    /* the footprint axes in world space, as the backend's footprints (with --ids the facet's plane) */
    sample_rays_aa_axes_faces(bc->f, bc->faces, &bc->cam, bc->depth, o->ids ? bc->ids : NULL, bc->s->xyz,
                              bc->s->tri_count, axes);
    izb_stats st[AA_COUNTS];
    for (int round = 0; round < o->warmup + o->frames; round++)
        for (int c = 0; c < AA_COUNTS; c++) {
            izb_recon fc[LIGHT_CUBE_FACES]; /* one frame, or a point light's faces */
            for (int i = 0; i < bc->faces; i++)
                fc[i] = bc->f[i], fc[i].shadow_samples = aa_counts[c];
            if (!izb_shade_arrays_faces(b, fc, bc->faces, &(izb_settings){0}, bc->depth, o->ids ? bc->ids : NULL,
                                        mask[c], bc->face_mask, &st[c]))
                return 1;
            if (round >= o->warmup)
                tot[c][round - o->warmup] = st[c].total_ms, ras[c][round - o->warmup] = st[c].stage_ms[IZB_STAGE_RASTER],
                set[c][round - o->warmup] = st[c].stage_ms[IZB_STAGE_CULLING];
        }
    for (int round = 0; round < o->frames; round++)
        for (int c = 0; c < AA_COUNTS; c++) {
            izb_aa_samples S;
            izb_aa_samples_make(aa_counts[c], &S);
            memcpy(em, mask[c], npix);
            const double t0 = now_ms();
            bench_rays_occluded16_aa(bvh, &bc->rays, axes, S.u, S.v, S.n, em, T);
            emb[c][round] = now_ms() - t0;
        }
    stats_summary s1 = stats_summarize(tot[0], (size_t)o->frames);
    printf("shadow samples %s %dx%d (%d threads; %d points, %d triangles set up):\n", bc->s->name, bc->W, bc->H, T,
           st[0].points, st[0].tris_after_cull);
    for (int c = 0; c < AA_COUNTS; c++) {
        izb_aa_samples S;
        izb_aa_samples_make(aa_counts[c], &S);
        memcpy(em, mask[c], npix);
        bench_rays_occluded16_aa(bvh, &bc->rays, axes, S.u, S.v, S.n, em, T);
        long differ = 0, valid = 0;
        double wrong = 0.0;
        for (size_t i = 0; i < npix; i++) {
            if (!bc->rays.valid[i]) continue;
            valid++;
            const int dlt = abs((int)em[i] - (int)mask[c][i]);
            differ += dlt != 0;
            wrong += dlt * (double)S.n / 255.0;
        }
        const stats_summary t = stats_summarize(tot[c], (size_t)o->frames), r = stats_summarize(ras[c], (size_t)o->frames),
                            e = stats_summarize(emb[c], (size_t)o->frames),
                            su = stats_summarize(set[c], (size_t)o->frames);
        printf("  N %2d: IZB total %.1f / %.1f ms (min / median), footprints + set-up %.1f, raster %.1f; %.2fx N = 1 "
               "(medians); pairs that ran "
               "sub-samples %.4g of %.4g visited; Embree rtcOccluded16, %d rays per pixel: %.1f / %.1f ms, IZB / Embree "
               "%.3f; bytes differing %ld of %ld, sub-sample answers differing about %.0f of %.4g (%.5f%%)\n",
               aa_counts[c], t.min, t.median, su.median, r.median, t.median / s1.median, st[c].aa_pairs, st[c].aa_tests, S.n, e.min,
               e.median, t.median / e.median, differ, valid, wrong, (double)valid * S.n,
               100.0 * wrong / ((double)valid * S.n + 1e-300));
    }
    fflush(stdout);
    for (int c = 0; c < AA_COUNTS; c++)
        free(mask[c]), free(tot[c]), free(ras[c]), free(emb[c]), free(set[c]);
    free(axes), free(em);
    return 0;
}

/* A point light the way izb_shade_arrays_faces shaded it before the partition (to 6458a2a): one
 * whole izb_shade_arrays_ids per cube face (IZB_LIGHT_FACE alone: its square frustum), every pixel
 * reconstructed six times, the masks combined by max. Measured beside today's path in the same
 * rounds; its mask is compared with today's. Returns the wall time (ms); st[i]: face i's stats. */
static double six_passes(izb_backend *b, const bench_case *bc, const bench_opts *o, const izb_settings *set,
                         uint8_t *mask, uint8_t *scratch, izb_stats st[LIGHT_CUBE_FACES])
{
    const size_t npix = (size_t)bc->W * bc->H;
    const double t0 = now_ms();
    for (int i = 0; i < bc->faces; i++) {
        if (!izb_shade_arrays_ids(b, &bc->f[i], set, bc->depth, o->ids ? bc->ids : NULL, i ? scratch : mask, &st[i]))
            return -1.0;
        for (size_t p = 0; i > 0 && p < npix; p++)
            mask[p] = scratch[p] > mask[p] ? scratch[p] : mask[p];
    }
    return now_ms() - t0;
}

static int run_static(const bench_opts *o, bench_case *bc, int threads, csv_out *csv)
{
    const int T = resolve_threads(threads);
    const size_t npix = (size_t)bc->W * bc->H;
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = T});
    bench_bvh *bvh = bench_bvh_create(bc->s->xyz, bc->s->tri_count, false, T);
    /* floors: the largest copy is reconstruction's (depth in, points + mask out) */
    const size_t floor_bytes = npix * (sizeof(float) + sizeof(izb_point) + 1) + 64;
    char *fa = malloc(floor_bytes), *fb = malloc(floor_bytes);
    float checksum = 0.0f; /* the transform floor's sum: stored through a pointer, so it must be computed */
    series m[M_COUNT];
    bool ok = b && bvh && fa && fb && izb_set_scene(b, bc->s->xyz, bc->s->tri_count) &&
              izb_set_cutouts(b, bc->cut) && bench_bvh_set_cutouts(bvh, bc->cut);
    for (int k = 0; k < M_COUNT; k++)
        ok = (m[k] = (series){malloc(sizeof(double) * (size_t)o->frames), 0}).v && ok;
    if (!ok) {
        fprintf(stderr, "bench-cpu: setup failed (out of memory?)\n");
        return 1;
    }
    memset(fa, 1, floor_bytes), memset(fb, 2, floor_bytes);
    izb_settings set = {0};
    izb_stats st = {0};
    /* a point light: the path before the partition too (six_passes), its mask kept for the diff */
    const bool point = bc->faces > 1;
    int six_points = 0; /* the six passes' points, summed over the faces (a seam point in two) */
    uint8_t *six_mask = point ? malloc(npix) : NULL, *six_scratch = point ? malloc(npix) : NULL;
    if (point && (!six_mask || !six_scratch)) {
        fprintf(stderr, "bench-cpu: out of memory\n");
        return 1;
    }
    for (int round = 0; round < o->warmup + o->frames; round++) {
        const bool timed = round >= o->warmup;
        if (!izb_shade_arrays_faces(b, bc->f, bc->faces, &set, bc->depth, o->ids ? bc->ids : NULL, bc->mask,
                                    bc->face_mask, &st))
            return 1;
        izb_stats six_st[LIGHT_CUBE_FACES] = {0};
        double six_ms = 0.0, six_stage[IZB_STAGE_COUNT] = {0};
        six_points = 0;
        if (point) {
            six_ms = six_passes(b, bc, o, &set, six_mask, six_scratch, six_st);
            if (six_ms < 0.0) return 1;
            for (int i = 0; i < bc->faces; i++)
                for (int k = 0; k < IZB_STAGE_COUNT; k++)
                    six_stage[k] += six_st[i].stage_ms[k];
            for (int i = 0; i < bc->faces; i++)
                six_points += six_st[i].points;
        }
        double t0 = now_ms();
        bench_rays_occluded1(bvh, &bc->rays, bc->ray_mask, T);
        double t1 = now_ms();
        bench_rays_occluded16(bvh, &bc->rays, bc->ray_mask, T);
        double t2 = now_ms();
        const size_t cells = (size_t)st.grid_w * st.grid_h, n = (size_t)st.points;
        /* reconstruction reads the depth and writes points and mask; the memcpy moves as many bytes */
        const size_t recon_bytes = (npix * sizeof(float) + n * sizeof(izb_point) + npix) / 2;
        const size_t bin_bytes = n * sizeof(izb_point) + cells * 2 * sizeof(uint32_t);
        const double f_recon =
            bench_floor_memcpy(fb, fa, recon_bytes < floor_bytes ? recon_bytes : floor_bytes, T);
        const double f_bin = bench_floor_memcpy(fb, fa, bin_bytes < floor_bytes ? bin_bytes : floor_bytes, T);
        const double f_cull = bench_floor_transform(bc->s->xyz, bc->s->tri_count, bc->f[0].light, &checksum, T);
        if (!timed) continue;
        const double v[M_COUNT] = {st.total_ms,
                                   st.stage_ms[IZB_STAGE_RECONSTRUCT],
                                   st.stage_ms[IZB_STAGE_BINNING],
                                   st.stage_ms[IZB_STAGE_CULLING],
                                   st.stage_ms[IZB_STAGE_RASTER],
                                   t1 - t0,
                                   t2 - t1,
                                   f_recon,
                                   f_bin,
                                   f_cull,
                                   six_ms,
                                   six_stage[IZB_STAGE_RECONSTRUCT],
                                   six_stage[IZB_STAGE_BINNING],
                                   six_stage[IZB_STAGE_CULLING],
                                   six_stage[IZB_STAGE_RASTER]};
        for (int k = 0; k < M_COUNT; k++)
            m[k].v[m[k].n++] = v[k];
    }
    /* the raster's work: point-triangle tests of the last frame */
    izb_debug dbg;
    double tests = 0.0;
    if (izb_get_debug(b, &dbg) && dbg.tris)
        tests = bench_raster_tests(dbg.tris, dbg.tri_count, dbg.cell_start, dbg.cell_end, &dbg.grid);
    mask_diff d = mask_compare(bc->depth, bc->mask, bc->ray_mask, (long)npix);
    if (o->aa_sweep &&
        (bc->l.type == LIGHT_DIRECTIONAL || bc->l.type == LIGHT_POINT ||
         (bc->l.type == LIGHT_SPOT && !izb_area_on(&bc->f[0]))) &&
        !(bc->f[0].light_angle > 0.0f) && aa_sweep(o, bc, b, bvh, T))
        return 1;
    if (bc->f[0].light_angle > 0.0f) {
        printf("soft %s %dx%d, %.2f degrees, M %d: %d triangles set up; point tests %.4g with the global "
               "penumbra bound, %.4g with per-cell bounds, %.4g pairs ran their samples; hard frame: %.4g tests\n",
               bc->s->name, bc->W, bc->H, (double)bc->f[0].light_angle * 57.29577951308232, bc->f[0].light_samples,
               st.tris_after_cull, st.soft_tests_global, st.soft_tests, st.soft_pairs, hard_tests(b, bc, o));
        soft_vs_embree(bvh, bc, s_median_total(&m[M_TOTAL]), T);
    }
    if (izb_area_on(&bc->f[0])) {
        printf("area %s %dx%d, %g x %g world units, M %d: %d triangles set up; point tests %.4g with the global "
               "penumbra bound, %.4g with per-cell bounds, %.4g pairs ran their samples; hard frame: %.4g tests\n",
               bc->s->name, bc->W, bc->H, (double)bc->f[0].light_size[0], (double)bc->f[0].light_size[1],
               bc->f[0].light_samples, st.tris_after_cull, st.soft_tests_global, st.soft_tests, st.soft_pairs,
               hard_tests(b, bc, o));
        area_vs_hard(b, bc, o, o->frames);
        soft_vs_embree(bvh, bc, s_median_total(&m[M_TOTAL]), T);
    }

    stats_summary s[M_COUNT];
    for (int k = 0; k < M_COUNT; k++) {
        s[k] = summarize(&m[k]);
        if (point || k < M_SIX) csv_row(csv, bc, T, metric_names[k], "ms", s[k]);
        free(m[k].v);
    }
    const double gtests = tests / (s[M_RASTER].median * 1e6);
    csv_row(csv, bc, T, "raster_gtests_per_s", "1e9/s", (stats_summary){gtests, gtests, gtests, gtests});
    /* what the backend says its buffers hold, plus the caller's mask */
    const double bpp = ((double)st.frame_bytes + (double)npix) / (double)npix;
    const double bpt = (double)st.scene_bytes / (double)(st.tris_in > 0 ? st.tris_in : 1);
    csv_row(csv, bc, T, "bytes_per_pixel", "B", (stats_summary){bpp, bpp, bpp, bpp});
    csv_row(csv, bc, T, "bytes_per_triangle", "B", (stats_summary){bpt, bpt, bpt, bpt});
    printf("| %s | %d | %dx%d | %s | %d | %d | %.2f / %.2f / %.2f | %.2f | %.2f | **%.2f** | %.2f (%.2f) | "
           "%.2f (%.2f) "
           "| %.2f (%.2f) | %.2f (%.2f G tests/s) | %.0f | %.0f | %ld |\n",
           bc->s->name, bc->s->tri_count, bc->W, bc->H, bench_light_name(bc->l.type), T, st.points,
           s[M_TOTAL].min, s[M_TOTAL].median, s[M_TOTAL].p95, s[M_OCC1].median, s[M_OCC16].median,
           s[M_TOTAL].median / s[M_OCC16].median, s[M_RECON].median, s[M_F_RECON].median, s[M_BIN].median,
           s[M_F_BIN].median, s[M_CULL].median, s[M_F_CULL].median, s[M_RASTER].median, gtests, bpp, bpt,
           d.mismatched);
    if (point) {
        long differ = 0;
        for (size_t p = 0; p < npix; p++)
            differ += (six_mask[p] == 0) != (bc->mask[p] == 0);
        printf("point %s %dx%d, %d threads: partition (today) %.2f / %.2f ms min / median, six passes (before) "
               "%.2f / %.2f ms = %.2fx; six passes' stages (median ms): reconstruct %.2f, binning %.2f, culling "
               "%.2f, raster %.2f; partition's: %.2f, %.2f, %.2f, %.2f; points %d (six passes: %d); mask pixels "
               "that differ between the two: %ld\n",
               bc->s->name, bc->W, bc->H, T, s[M_TOTAL].min, s[M_TOTAL].median, s[M_SIX].min, s[M_SIX].median,
               s[M_SIX].median / s[M_TOTAL].median, s[M_SIX_RECON].median, s[M_SIX_BIN].median,
               s[M_SIX_CULL].median, s[M_SIX_RASTER].median, s[M_RECON].median, s[M_BIN].median, s[M_CULL].median,
               s[M_RASTER].median, st.points, six_points, differ);
    }
    fflush(stdout);
    free(six_mask), free(six_scratch);
    free(fa), free(fb);
    bench_bvh_destroy(bvh);
    izb_destroy(b);
    return 0;
}

static void print_loadavg(const char *when)
{
    char line[128] = "?";
    FILE *fp = fopen("/proc/loadavg", "r");
    if (fp) {
        if (!fgets(line, sizeof line, fp)) strcpy(line, "?\n");
        fclose(fp);
    }
    printf("load average %s: %s", when, line);
}

/* Embree's BVH over the same triangles, built once per call: the time of rtcCommitScene alone
 * (buffers filled before the clock starts); < 0 on failure. */
static double embree_build_ms(RTCDevice dev, const float *xyz, int n)
{
    RTCScene sc = rtcNewScene(dev);
    RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    float *vb = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float),
                                        3 * (size_t)n);
    unsigned *ib = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                           3 * sizeof(unsigned), (size_t)n);
    double ms = -1.0;
    if (vb && ib) {
        memcpy(vb, xyz, 9 * (size_t)n * sizeof(float));
        for (unsigned i = 0; i < 3u * (unsigned)n; i++)
            ib[i] = i;
        rtcCommitGeometry(g);
        rtcAttachGeometry(sc, g);
        const double t0 = now_ms();
        rtcCommitScene(sc);
        ms = now_ms() - t0;
        if (rtcGetDeviceError(dev) != RTC_ERROR_NONE) ms = -1.0;
    }
    rtcReleaseGeometry(g);
    rtcReleaseScene(sc);
    return ms;
}

/* --load: izb_closed_find_threads against rtcCommitScene on one scene and thread count */
static int run_load(const bench_opts *o, const scene *s, int threads, csv_out *csv)
{
    const int T = resolve_threads(threads);
    char config[64];
    snprintf(config, sizeof config, "threads=%d", T);
    RTCDevice dev = rtcNewDevice(config);
    series a = {malloc(sizeof(double) * (size_t)o->frames), 0},
           e = {malloc(sizeof(double) * (size_t)o->frames), 0};
    if (!dev || !a.v || !e.v) {
        fprintf(stderr, "bench-cpu: --load setup failed\n");
        return 1;
    }
    izb_closed c = {0};
    for (int round = 0; round < o->warmup + o->frames; round++) {
        const bool timed = round >= o->warmup;
        izb_closed_free(&c);
        const double t0 = now_ms();
        const bool ok = izb_closed_find_threads(s->xyz, s->tri_count, T, &c);
        const double t1 = now_ms();
        const double eb = embree_build_ms(dev, s->xyz, s->tri_count);
        if (!ok || eb < 0.0) {
            fprintf(stderr, "bench-cpu: %s: %s failed\n", s->name, ok ? "Embree's build" : "izb_closed_find");
            return 1;
        }
        if (timed) a.v[a.n++] = t1 - t0, e.v[e.n++] = eb;
    }
    const stats_summary sa = summarize(&a), se = summarize(&e);
    printf("| %s | %d | %d | %.1f / %.1f | %.1f / %.1f | %.2f | %d | %d |\n", s->name, s->tri_count, T,
           sa.min, sa.median, se.min, se.median, sa.median / se.median, c.comp_count, c.cullable);
    fflush(stdout);
    const bench_case bc = {.s = s};
    csv_row(csv, &bc, T, "closed_find", "ms", sa);
    csv_row(csv, &bc, T, "embree_build", "ms", se);
    izb_closed_free(&c);
    free(a.v), free(e.v);
    rtcReleaseDevice(dev);
    return 0;
}

/* the scene's view for one light; depth from Embree primary rays (what the GL depth pass writes) */
static bool case_make(bench_case *bc, const scene *s, oracle *o, int W, int H, light_type kind,
                      const bench_opts *opt)
{
    *bc = (bench_case){.s = s, .W = W, .H = H};
    bc->cam = (camera){
        .pos = {s->cam_pos[0], s->cam_pos[1], s->cam_pos[2]}, .yaw = s->cam_yaw, .pitch = s->cam_pitch};
    camera_fit_clip(&bc->cam, s->bounds_min, s->bounds_max);
    float c[3];
    for (int k = 0; k < 3; k++)
        c[k] = 0.5f * (s->bounds_min[k] + s->bounds_max[k]);
    bc->l =
        kind != LIGHT_DIRECTIONAL ? (light){.type = kind,
                       .pos = {s->light_pos[0], s->light_pos[1], s->light_pos[2]},
                       .dir = {c[0] - s->light_pos[0], c[1] - s->light_pos[1], c[2] - s->light_pos[2]},
                       .cone_deg = 60,
                       .size = {opt->light_size, opt->light_size},
                       .samples = opt->light_samples}
             : (light){.type = LIGHT_DIRECTIONAL,
                       .dir = {s->light_dir[0], s->light_dir[1], s->light_dir[2]},
                       .angle_deg = opt->light_angle,
                       .samples = opt->light_samples};
    const size_t npix = (size_t)W * H;
    bc->depth = malloc(sizeof(float) * npix);
    bc->mask = malloc(npix);
    bc->ray_mask = malloc(npix);
    bc->ids = malloc(sizeof(uint32_t) * npix);
    bc->face_mask = malloc(npix);
    if (!bc->depth || !bc->mask || !bc->ray_mask || !bc->ids || !bc->face_mask) return false;
    oracle_depth_ids(o, &bc->cam, W, H, bc->depth, bc->ids);
    bc->faces = izb_frame_make_faces(&bc->cam, &bc->l, s->bounds_min, s->bounds_max, W, H, bc->f);
    izb_settings r = izb_settings_resolve((izb_settings){0});
    for (int i = 0; i < bc->faces; i++)
        bc->f[i].bias = r.bias; /* the bias izb_shade_arrays applies, so the rays start where the IZB tests */
    if (!bench_rays_make(&bc->rays, &bc->f[0], &bc->cam, &bc->l, bc->depth)) return false;
    memset(bc->ray_mask, 255, npix); /* sky and unlit pixels: what the IZB writes there */
    for (size_t i = 0; i < npix; i++)
        if (bc->depth[i] > 0.0f && !bc->rays.valid[i]) bc->ray_mask[i] = 0;
    return true;
}

static void case_free(bench_case *bc)
{
    bench_rays_free(&bc->rays);
    free(bc->depth), free(bc->mask), free(bc->ray_mask), free(bc->ids), free(bc->face_mask);
}

int main(int argc, char **argv)
{
    bench_opts o;
    parse(argc, argv, &o);
    csv_out csv = {.path = o.csv};
    if (o.csv && !(csv.fp = fopen(o.csv, "w"))) {
        fprintf(stderr, "bench-cpu: cannot write %s\n", o.csv);
        return 1;
    }
    if (csv.fp && fprintf(csv.fp, "scene,triangles,size,light,threads,metric,unit,min,median,p95\n") < 0)
        csv.failed = true;
    if (o.load) {
        printf(
            "| scene | tris | threads | izb_closed_find min / median ms | Embree build min / median ms | "
            "closed/Embree (median) | closed components | cullable |\n|---|--:|--:|--:|--:|--:|--:|--:|\n");
        int rc = 0;
        for (int si = 0; si < o.scene_count && !rc; si++) {
            scene s;
            char err[512];
            if (!scene_load(o.scenes[si], &s, err, sizeof err)) {
                fprintf(stderr, "bench-cpu: %s\n", err);
                return 1;
            }
            print_loadavg("before");
            for (int ti = 0; ti < o.thread_count && !rc; ti++)
                rc = run_load(&o, &s, o.threads[ti], &csv);
            print_loadavg("after");
            scene_free(&s);
        }
        if (csv.fp && (fclose(csv.fp) != 0 || csv.failed)) {
            fprintf(stderr, "bench-cpu: writing %s failed\n", o.csv);
            return 1;
        }
        char out_err[256];
        if (!rc && !file_out_stdout_ok(out_err, sizeof out_err)) {
            fprintf(stderr, "bench-cpu: %s\n", out_err);
            return 1;
        }
        return rc;
    }
    printf("| scene | tris | size | light | threads | points | IZB min / median / p95 ms | occ1 | occ16 | "
           "IZB/occ16 "
           "| reconstruct (memcpy floor) | binning (memcpy floor) | culling (transform floor) | raster | "
           "B/pixel "
           "| B/tri | mask diff |\n|---|--:|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    int rc = 0;
    for (int si = 0; si < o.scene_count && !rc; si++) {
        scene s;
        char err[512];
        if (!scene_load(o.scenes[si], &s, err, sizeof err)) {
            fprintf(stderr, "bench-cpu: %s\n", err);
            return 1;
        }
        oracle *orc = oracle_create(s.xyz, s.tri_count);
        scene_cutouts cut;
        if (!orc || !scene_cutouts_make(&s, &cut, err, sizeof err)) return 1;
        /* cut-outs: the depth sees through cut-away texels (as GL's), the IZB and the rays alpha-test */
        const izb_cutouts cv = scene_cutouts_view(&cut);
        const izb_cutouts *cp = cut.cut_tris > 0 ? &cv : NULL;
        if (!oracle_set_cutouts(orc, cp)) return 1;
        if (cp) fprintf(stderr, "bench-cpu: %s: %d cut-out triangles alpha-tested by the IZB and by Embree's filter\n", s.name, cut.cut_tris);
        for (int zi = 0; zi < o.size_count && !rc; zi++)
            for (int li = 0; li < LIGHT_TYPE_COUNT && !rc; li++) {
                if (!o.lights[li]) continue;
                bench_case bc;
                if (!case_make(&bc, &s, orc, o.sizes[zi][0], o.sizes[zi][1], (light_type)li, &o)) {
                    fprintf(stderr, "bench-cpu: out of memory\n");
                    return 1;
                }
                bc.cut = cp;
                for (int ti = 0; ti < o.thread_count && !rc; ti++)
                    rc = run_static(&o, &bc, o.threads[ti], &csv);
                case_free(&bc);
            }
        oracle_destroy(orc);
        scene_cutouts_free(&cut);
        scene_free(&s);
    }
    if (csv.fp && (fclose(csv.fp) != 0 || csv.failed)) {
        fprintf(stderr, "bench-cpu: writing %s failed\n", o.csv);
        return 1;
    }
    /* the report is the result: `bench-cpu > /dev/full` must not exit 0 */
    char out_err[256];
    if (!file_out_stdout_ok(out_err, sizeof out_err)) {
        fprintf(stderr, "bench-cpu: %s\n", out_err);
        return 1;
    }
    return rc;
}
