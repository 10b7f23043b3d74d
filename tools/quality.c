/* quality.c — izb-quality: how exact are the IZB and conventional shadow maps? For fixed views of
 * the built-in scenes (quality_lib.c) it renders the camera depth with GL (headless EGL), makes the
 * shadow mask with the IZB (CPU backend always, CUDA when a device answers) and with shadow maps
 * of 1K .. 16K texels a side (as far as this GL allows), and compares each with the ground truth:
 * one Embree occlusion ray per covered pixel from the point the same GL depth reconstructs
 * (oracle_shadow). Cut-outs (alpha-tested materials, builtin:foliage): the IZB, the GL passes and
 * the truth (an Embree filter) all apply izb_alpha.h's test, and the last column counts the
 * mismatches the truth marks as near a texel edge (oracle_shadow_unsure). Prints a Markdown table
 * (or CSV) on stdout; with --out DIR also writes the shaded images, the truth mask and per-method
 * difference images as PNG. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_out.h"
#include "gl_context.h"
#include "izb.h"
#include "oracle.h"
#include "quality_lib.h"
#include "render.h"
#include "scene.h"
#include "scene_cutout.h"
#include "screenshot.h"
#include "shadow_map.h"

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2, MAX_SIZES = 8 };

typedef struct quality_opts {
    int width, height;
    const char *out_dir;
    bool csv;
    bool pcf;
    const char *only; /* run the views whose name contains this */
    int sizes[MAX_SIZES], size_count;
} quality_opts;

/* everything one run holds */
typedef struct quality_run {
    quality_opts opt;
    render *r;
    izb_backend *backends[2];
    int backend_count;
    bool no_cut[2]; /* this scene has cut-outs the backend cannot alpha-test (CUDA so far): skipped */
    float *depth;
    uint8_t *truth, *mask, *rgb;
    uint8_t *unsure; /* the truth's pixels near a cut-out texel edge (oracle_shadow_unsure) */
    long n;
} quality_run;

static void usage(FILE *f);
/* parse argv; 0 to go on, -1 for --help, else the exit code */
static int parse(int argc, char **argv, quality_opts *o);
/* one table row */
static void print_row(const quality_run *q, const char *view, const char *method, const quality_counts *c);
/* PNG of the colour target / of rgb into out_dir as VIEW-WHAT.png (no-op without --out) */
static bool save_colour(quality_run *q, const char *view, const char *what);
static bool save_rgb(quality_run *q, const char *view, const char *what);
/* compare q->mask (the method's) with q->truth: row + difference image */
static bool report(quality_run *q, const char *view, const char *method);

static void usage(FILE *f)
{
    fprintf(f, "usage: izb-quality [--out DIR] [--csv] [--width W] [--height H] [--sizes N,N,...] [--pcf]\n"
               "                   [--view NAME]\n"
               "  Compares the IZB and shadow maps with Embree ray-cast ground truth on fixed views\n"
               "  (default 800x450; shadow maps 1024,2048,4096,8192,16384 up to the GL limit).\n"
               "  --view NAME runs the views whose name contains NAME:");
    for (int i = 0; i < quality_view_count; i++)
        fprintf(f, " %s", quality_views[i].name);
    fputc('\n', f);
}

static int parse(int argc, char **argv, quality_opts *o)
{
    *o = (quality_opts){
        .width = 800, .height = 450, .sizes = {1024, 2048, 4096, 8192, 16384}, .size_count = 5};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(a, "--csv") == 0) {
            o->csv = true;
        } else if (strcmp(a, "--pcf") == 0) {
            o->pcf = true;
        } else if (!v) {
            fprintf(stderr, "izb-quality: %s: unknown option or missing value\n", a);
            usage(stderr);
            return EXIT_USAGE;
        } else if (strcmp(a, "--out") == 0) {
            o->out_dir = v, i++;
        } else if (strcmp(a, "--view") == 0) {
            o->only = v, i++;
        } else if (strcmp(a, "--width") == 0 || strcmp(a, "--height") == 0) {
            char *end;
            long x = strtol(v, &end, 10);
            if (*end || x < 16 || x > 8192) {
                fprintf(stderr, "izb-quality: %s '%s': a size from 16 to 8192\n", a, v);
                return EXIT_USAGE;
            }
            *(a[2] == 'w' ? &o->width : &o->height) = (int)x, i++;
        } else if (strcmp(a, "--sizes") == 0) {
            o->size_count = 0;
            const char *p = v;
            while (*p) {
                char *end;
                long x = strtol(p, &end, 10);
                if (end == p || (*end && *end != ',') || o->size_count >= MAX_SIZES ||
                    x < SHADOW_MAP_MIN_SIZE || x > SHADOW_MAP_MAX_SIZE || (x & (x - 1))) {
                    fprintf(
                        stderr,
                        "izb-quality: --sizes '%s': up to %d powers of two from %d to %d, comma-separated\n",
                        v, MAX_SIZES, SHADOW_MAP_MIN_SIZE, SHADOW_MAP_MAX_SIZE);
                    return EXIT_USAGE;
                }
                o->sizes[o->size_count++] = (int)x;
                p = *end ? end + 1 : end;
            }
            i++;
        } else {
            fprintf(stderr, "izb-quality: %s: unknown option\n", a);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    return 0;
}

static void print_row(const quality_run *q, const char *view, const char *method, const quality_counts *c)
{
    const long unsure = quality_count_unsure(q->depth, q->mask, q->truth, q->unsure, q->n);
    if (q->opt.csv)
        printf("%s,%s,%ld,%ld,%ld,%ld,%.4f,%ld,%ld,%ld\n", view, method, c->covered, c->truth_shadow,
               c->test_shadow, c->mismatched, quality_mismatch_pct(c), c->false_shadow, c->false_light, unsure);
    else
        printf("| %s | %s | %ld | %ld | %ld | %.4f%% | %ld | %ld | %ld |\n", view, method, c->covered,
               c->truth_shadow, c->mismatched, quality_mismatch_pct(c), c->false_shadow, c->false_light, unsure);
    fflush(stdout);
}

static bool save_colour(quality_run *q, const char *view, const char *what)
{
    if (!q->opt.out_dir) return true;
    char path[1024], err[1200];
    snprintf(path, sizeof path, "%s/%s-%s.png", q->opt.out_dir, view, what);
    if (render_screenshot(q->r, path, err, sizeof err)) return true;
    fprintf(stderr, "izb-quality: %s\n", err);
    return false;
}

static bool save_rgb(quality_run *q, const char *view, const char *what)
{
    if (!q->opt.out_dir) return true;
    char path[1024], err[1200];
    snprintf(path, sizeof path, "%s/%s-%s.png", q->opt.out_dir, view, what);
    if (render_png_write(path, q->rgb, q->opt.width, q->opt.height, 3, err, sizeof err)) return true;
    fprintf(stderr, "izb-quality: %s\n", err);
    return false;
}

static bool report(quality_run *q, const char *view, const char *method)
{
    quality_counts c = quality_count(q->depth, q->mask, q->truth, q->n);
    print_row(q, view, method, &c);
    bool ok = save_colour(q, view, method);
    quality_diff_image(q->depth, q->mask, q->truth, q->n, q->rgb);
    char what[64];
    snprintf(what, sizeof what, "%s-diff", method);
    return save_rgb(q, view, what) && ok;
}

int main(int argc, char **argv)
{
    static quality_run q;
    int rc = parse(argc, argv, &q.opt);
    if (rc) return rc < 0 ? 0 : rc;
    quality_opts *o = &q.opt;
    if (o->out_dir && mkdir(o->out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "izb-quality: --out '%s': %s\n", o->out_dir, strerror(errno));
        return EXIT_USAGE;
    }

    char err[1024];
    gl_context gl;
    if (!gl_context_init(&gl, &(gl_context_desc){.headless = true}, err, sizeof err)) {
        fprintf(stderr, "izb-quality: %s\n", err);
        return EXIT_RUNTIME;
    }
    q.r = render_create(&(render_desc){.width = o->width, .height = o->height}, err, sizeof err);
    q.n = (long)o->width * o->height;
    q.depth = malloc((size_t)q.n * sizeof(float));
    q.truth = malloc((size_t)q.n);
    q.mask = malloc((size_t)q.n);
    q.rgb = malloc((size_t)q.n * 3);
    q.unsure = malloc((size_t)q.n);
    if (!q.r || !q.depth || !q.truth || !q.mask || !q.rgb || !q.unsure) {
        fprintf(stderr, "izb-quality: %s\n", q.r ? "out of memory" : err);
        return EXIT_RUNTIME;
    }
    q.backends[q.backend_count++] = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .quiet = true});
    izb_backend *cuda = izb_create(&(izb_desc){.backend = IZB_BACKEND_AUTO, .quiet = true});
    if (cuda && strcmp(izb_name(cuda), "cuda") == 0)
        q.backends[q.backend_count++] = cuda;
    else
        izb_destroy(cuda);
    if (!q.backends[0]) return EXIT_RUNTIME;

    int max = render_shadow_map_max_size();
    for (int i = 0; i < o->size_count; i++)
        if (o->sizes[i] > max)
            fprintf(stderr, "izb-quality: shadow map %d skipped: larger than this GL allows (%d)\n",
                    o->sizes[i], max);
    fprintf(stderr, "izb-quality: %dx%d, GL %s, IZB backends:", o->width, o->height, gl.renderer);
    for (int b = 0; b < q.backend_count; b++)
        fprintf(stderr, " %s", izb_name(q.backends[b]));
    fprintf(stderr, "\n");

    if (o->csv)
        printf("view,method,covered_px,truth_shadow_px,method_shadow_px,mismatched_px,mismatched_pct,"
               "false_shadow_px,false_light_px,mismatched_near_texel_edge_px\n");
    else
        printf("| view | method | covered px | in shadow (truth) | mismatched | of covered | false shadow | "
               "false light | of them near a texel edge |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");

    scene s = {0};
    scene_cutouts cut = {0};
    const char *loaded = NULL;
    oracle *orc = NULL;
    for (int v = 0; v < quality_view_count && rc == 0; v++) {
        const quality_view *qv = &quality_views[v];
        if (o->only && !strstr(qv->name, o->only)) continue;
        if (!loaded || strcmp(loaded, qv->scene) != 0) {
            oracle_destroy(orc);
            scene_cutouts_free(&cut);
            scene_free(&s);
            orc = NULL;
            loaded = NULL;
            if (!scene_load(qv->scene, &s, err, sizeof err) || !render_set_scene(q.r, &s, err, sizeof err)) {
                fprintf(stderr, "izb-quality: %s\n", err);
                rc = EXIT_RUNTIME;
                break;
            }
            for (int b = 0; b < q.backend_count; b++)
                if (!izb_set_scene(q.backends[b], s.xyz, s.tri_count)) rc = EXIT_RUNTIME;
            if (!(orc = oracle_create(s.xyz, s.tri_count))) rc = EXIT_RUNTIME;
            if (rc) {
                fprintf(stderr, "izb-quality: scene %s: cannot set up the IZB or the oracle\n", qv->scene);
                break;
            }
            /* cut-outs (alpha-tested materials) for the IZB, the GL passes and the truth alike */
            if (!scene_cutouts_make(&s, &cut, err, sizeof err)) {
                fprintf(stderr, "izb-quality: %s\n", err);
                rc = EXIT_RUNTIME;
                break;
            }
            const izb_cutouts cv = scene_cutouts_view(&cut);
            const izb_cutouts *cp = cut.cut_tris > 0 ? &cv : NULL;
            for (int b = 0; b < q.backend_count; b++) { /* the CPU backend (0) must cut; another is skipped */
                q.no_cut[b] = !izb_set_cutouts(q.backends[b], cp);
                if (q.no_cut[b] && b == 0) rc = EXIT_RUNTIME;
            }
            if (!render_set_cutouts(q.r, cp ? &cut : NULL, err, sizeof err)) {
                fprintf(stderr, "izb-quality: %s\n", err);
                rc = EXIT_RUNTIME;
            }
            if (!oracle_set_cutouts(orc, cp)) rc = EXIT_RUNTIME;
            if (rc) {
                fprintf(stderr, "izb-quality: scene %s: cannot set up its cut-outs\n", qv->scene);
                break;
            }
            loaded = qv->scene;
        }
        camera cam;
        light l;
        quality_view_setup(qv, &s, &cam, &l);
        fprintf(stderr, "izb-quality: view %s: %s\n", qv->name, qv->what);

        /* the IZB; the first backend's frame gives the depth every method is judged on */
        for (int b = 0; b < q.backend_count && rc == 0; b++) {
            if (q.no_cut[b]) continue; /* izb_set_cutouts said why */
            render_set_shadow_mode(q.r, SHADOW_MODE_IZB, err, sizeof err);
            if (!render_frame(q.r,
                              &(render_frame_desc){.cam = &cam, .light = &l, .backend = q.backends[b]})) {
                fprintf(stderr, "izb-quality: view %s: the %s IZB failed\n", qv->name,
                        izb_name(q.backends[b]));
                rc = EXIT_RUNTIME;
                break;
            }
            if (b == 0) {
                render_read_depth(q.r, q.depth);
                izb_recon f = izb_frame_make(&cam, &l, s.bounds_min, s.bounds_max, o->width, o->height);
                oracle_shadow_unsure(orc, &f, &cam, &l, q.depth, q.truth, q.unsure);
                quality_mask_image(q.depth, q.truth, q.n, q.rgb);
                if (!save_rgb(&q, qv->name, "truth")) rc = EXIT_RUNTIME;
            }
            render_read_mask(q.r, q.mask);
            char method[32];
            snprintf(method, sizeof method, "izb-%s", izb_name(q.backends[b]));
            if (!report(&q, qv->name, method)) rc = EXIT_RUNTIME;
        }

        /* shadow maps */
        for (int i = 0; i < o->size_count && rc == 0; i++) {
            if (o->sizes[i] > max) continue;
            if (!render_set_shadow_map(q.r, &(shadow_map_desc){.size = o->sizes[i], .pcf = o->pcf}, err,
                                       sizeof err) ||
                !render_set_shadow_mode(q.r, SHADOW_MODE_MAP, err, sizeof err)) {
                fprintf(stderr, "izb-quality: %s\n", err);
                continue; /* out of memory at this size: the table says what could be measured */
            }
            render_frame(q.r, &(render_frame_desc){.cam = &cam, .light = &l});
            render_read_shadow_map_mask(q.r, q.mask);
            if (o->pcf) /* a soft mask: lit where at least half the taps are */
                for (long p = 0; p < q.n; p++)
                    q.mask[p] = q.mask[p] >= 128 ? 255 : 0;
            char method[32];
            snprintf(method, sizeof method, "sm%d%s", o->sizes[i], o->pcf ? "-pcf" : "");
            if (!report(&q, qv->name, method)) rc = EXIT_RUNTIME;
        }
        /* leave the big map behind before the next view's IZB frames */
        render_set_shadow_mode(q.r, SHADOW_MODE_IZB, err, sizeof err);
        render_set_shadow_map(q.r, &(shadow_map_desc){.size = 1024}, err, sizeof err);
    }

    oracle_destroy(orc);
    scene_cutouts_free(&cut);
    scene_free(&s);
    for (int b = 0; b < q.backend_count; b++)
        izb_destroy(q.backends[b]);
    render_destroy(q.r);
    gl_context_shutdown(&gl);
    free(q.depth);
    free(q.truth);
    free(q.mask);
    free(q.rgb);
    free(q.unsure);
    if (!file_out_stdout_ok(err, sizeof err)) { /* the table is the result: a lost one is a failure */
        fprintf(stderr, "izb-quality: %s\n", err);
        if (rc == 0) rc = EXIT_RUNTIME;
    }
    return rc;
}
