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
#include "izb_aa.h"
#include "izb_mask.h"
#include "oracle.h"
#include "quality_lib.h"
#include "quality_samples.h"
#include "sample_rays.h"
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
    /* per-sample views: the IZB's and the truth's hidden samples (IZB_MASK_MAX_WORDS per pixel),
     * the truth's and the anti-aliasing reference's visibility, footprint axes, primitive ids */
    uint32_t *izb_bits, *truth_bits, *ids;
    float *truth_vis, *ref_vis, *axes;
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
/* a per-sample view (quality_view_per_sample) in its loaded scene: its rows of the second table */
static bool sample_view(quality_run *q, const quality_view *qv, const scene *s, oracle *orc,
                        const camera *cam, const light *l);
static void print_header(bool csv);
static void print_sample_header(bool csv);
static void print_sample_row(const quality_run *q, const char *view, const char *method,
                             const quality_sample_counts *c);

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
               c->test_shadow, c->mismatched, quality_mismatch_pct(c), c->false_shadow, c->false_light,
               unsure);
    else
        printf("| %s | %s | %ld | %ld | %ld | %.4f%% | %ld | %ld | %ld |\n", view, method, c->covered,
               c->truth_shadow, c->mismatched, quality_mismatch_pct(c), c->false_shadow, c->false_light,
               unsure);
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

static void print_header(bool csv)
{
    if (csv)
        printf("view,method,covered_px,truth_shadow_px,method_shadow_px,mismatched_px,mismatched_pct,"
               "false_shadow_px,false_light_px,mismatched_near_texel_edge_px\n");
    else
        printf("| view | method | covered px | in shadow (truth) | mismatched | of covered | false shadow | "
               "false light | of them near a texel edge |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | "
               "---: | ---: |\n");
}

static void print_sample_header(bool csv)
{
    if (csv)
        printf("view,method,samples_per_px,covered_px,answers,wrong_answers,wrong_pct,false_hidden,"
               "wrong_where_light_straddles_horizon,mean_abs_vis_error,mean_abs_vis_error_ref256\n");
    else
        printf(
            "| view | method | samples per px | covered px | (point, sample) answers | wrong | of answers | "
            "wrongly hidden | of them where the light straddles the surface's horizon | mean abs. visibility "
            "error | against 256 sub-samples |\n"
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
}

static void print_sample_row(const quality_run *q, const char *view, const char *method,
                             const quality_sample_counts *c)
{
    const double pct = c->answers ? 100.0 * (double)c->wrong / (double)c->answers : 0.0;
    char ref[32] = "", flagged[32] = "";
    if (c->abs_err_ref >= 0.0) snprintf(ref, sizeof ref, "%.5f", c->abs_err_ref);
    if (c->wrong_flagged >= 0) snprintf(flagged, sizeof flagged, "%ld", c->wrong_flagged);
    if (q->opt.csv) {
        printf("%s,%s,%d,%ld,%ld,%ld,%.5f,%ld,%s,%.5f,%s\n", view, method, c->samples, c->covered, c->answers,
               c->wrong, pct, c->false_hidden, flagged, c->abs_err, ref);
    } else if (c->samples) {
        printf("| %s | %s | %d | %ld | %ld | %ld | %.5f%% | %ld | %s | %.5f | %s |\n", view, method,
               c->samples, c->covered, c->answers, c->wrong, pct, c->false_hidden, flagged, c->abs_err, ref);
    } else { /* a filtered map answers no sample: only its visibility */
        printf("| %s | %s | | %ld | | | | | | %.5f | %s |\n", view, method, c->covered, c->abs_err, ref);
    }
    fflush(stdout);
}

/* into out_dir: the method's visibility (q->mask) as VIEW-WHAT-vis.png and its error against the
 * truth's as VIEW-WHAT-diff.png */
static bool save_vis(quality_run *q, const char *view, const char *what)
{
    char name[64];
    quality_mask_vis_image(q->mask, q->truth_vis, q->n, q->rgb);
    snprintf(name, sizeof name, "%s-vis", what);
    bool ok = save_rgb(q, view, name);
    quality_vis_diff_image(q->mask, q->truth_vis, q->n, q->rgb);
    snprintf(name, sizeof name, "%s-diff", what);
    return save_rgb(q, view, name) && ok;
}

/* Shadow maps with 3x3 PCF (the filtered mask is a visibility fraction) at every size, against
 * the truth's visibility (and the reference's, ref not NULL). */
static bool sample_view_maps(quality_run *q, const char *view, const camera *cam, const light *l, int m,
                             const float *ref)
{
    char err[1024];
    const int max = render_shadow_map_max_size();
    bool ok = true;
    /* a soft light (an angled sun, an area light) is also drawn as games draw it: PCSS, by the
     * renderer's own rule (render/shadow_map.h) */
    const int filters = shadow_map_uses_pcss(&(shadow_map_desc){.pcss = true}, l) ? 2 : 1;
    for (int i = 0; i < q->opt.size_count && ok; i++)
        for (int pcss = 0; pcss < filters && ok; pcss++) {
            if (q->opt.sizes[i] > max) continue;
            const shadow_map_desc d = {.size = q->opt.sizes[i], .pcf = !pcss, .pcss = pcss};
            if (!render_set_shadow_map(q->r, &d, err, sizeof err) ||
                !render_set_shadow_mode(q->r, SHADOW_MODE_MAP, err, sizeof err)) {
                fprintf(stderr, "izb-quality: %s\n", err);
                continue;
            }
            render_frame(q->r, &(render_frame_desc){.cam = cam, .light = l});
            render_read_shadow_map_mask(q->r, q->mask);
            const quality_sample_counts c =
                quality_sample_compare(NULL, q->mask, NULL, q->truth_vis, ref, NULL, m, q->n);
            char method[32];
            snprintf(method, sizeof method, "sm%d-%s", q->opt.sizes[i], pcss ? "pcss" : "pcf");
            print_sample_row(q, view, method, &c);
            ok = save_colour(q, view, method) && save_vis(q, view, method);
        }
    render_set_shadow_mode(q->r, SHADOW_MODE_IZB, err, sizeof err);
    render_set_shadow_map(q->r, &(shadow_map_desc){.size = 1024}, err, sizeof err);
    return ok;
}

/* A point light's answers (quality_izb_face_bits), which must be the frame's (q->mask) */
static bool point_izb_bits(quality_run *q, const izb_recon *faces, int count, int n)
{
    long differ = 0;
    if (!quality_izb_face_bits(q->backends[0], faces, count, n, q->depth, q->ids, q->mask, q->n, q->izb_bits,
                               &differ)) {
        fprintf(stderr, "izb-quality: a point light's faces, run one by one: no sample masks\n");
        return false;
    }
    if (differ)
        fprintf(stderr, "izb-quality: a point light's faces, run one by one, differ from the frame on %ld pixels\n",
                differ);
    return differ == 0;
}

/* One IZB frame of the CPU backend (q->backends[0]) with n sub-samples per pixel (0: as the light
 * says), its mask in q->mask and its answers in q->izb_bits; depth and ids read back. faces: the
 * light's frames (izb_frame_make_faces), count of them. */
static bool sample_izb_frame(quality_run *q, const camera *cam, const light *l, int n, int m,
                             const izb_recon *faces, int count)
{
    char err[1024];
    render_set_shadow_mode(q->r, SHADOW_MODE_IZB, err, sizeof err);
    if (!render_frame(q->r, &(render_frame_desc){
                                .cam = cam, .light = l, .backend = q->backends[0], .shadow_samples = n}))
        return false;
    render_read_depth(q->r, q->depth);
    render_read_ids(q->r, q->ids);
    render_read_mask(q->r, q->mask);
    if (m == 1) { /* the hard path keeps no sample masks: its one answer is the mask */
        quality_hard_bits(q->mask, q->n, q->izb_bits);
        return true;
    }
    if (count > 1) return point_izb_bits(q, faces, count, m);
    izb_debug d;
    if (!izb_get_debug(q->backends[0], &d) || d.sample_bits != m ||
        !quality_izb_bits(&d, q->n, q->izb_bits)) {
        fprintf(stderr, "izb-quality: the CPU backend kept no %d-sample masks\n", m);
        return false;
    }
    return true;
}

static bool sample_view(quality_run *q, const quality_view *qv, const scene *s, oracle *orc,
                        const camera *cam, const light *l)
{
    const izb_recon f0 = izb_frame_make(cam, l, s->bounds_min, s->bounds_max, q->opt.width, q->opt.height);
    izb_recon faces[LIGHT_CUBE_FACES]; /* one frame, or a point light's cube faces */
    const int count = izb_frame_make_faces(cam, l, s->bounds_min, s->bounds_max, q->opt.width, q->opt.height, faces);
    if (!qv->aa) { /* a soft light: M light samples, each its own ray from the point */
        const int m = f0.light_samples;
        if (!sample_izb_frame(q, cam, l, 0, m, faces, count)) return false;
        quality_truth_soft(orc, &f0, cam, l, q->depth, q->truth_bits, q->truth_vis);
        quality_soft_horizon(&f0, cam, l, q->depth, q->ids, s->xyz, s->tri_count, q->n, q->unsure);
        const quality_sample_counts c = quality_sample_compare(q->izb_bits, q->mask, q->truth_bits,
                                                               q->truth_vis, NULL, q->unsure, m, q->n);
        char method[32];
        snprintf(method, sizeof method, "izb-cpu M=%d", m);
        print_sample_row(q, qv->name, method, &c);
        quality_vis_image(q->truth_vis, q->n, q->rgb);
        bool ok = save_rgb(q, qv->name, "truth") && save_colour(q, qv->name, "izb-cpu") &&
                  save_vis(q, qv->name, "izb-cpu");
        return sample_view_maps(q, qv->name, cam, l, m, NULL) && ok;
    }
    /* anti-aliased edges: the footprints (from the first frame's depth and ids, as the backend's)
     * and the 256-sub-sample reference, then N = 1, 8, 32 each against its own N rays */
    static const int counts[] = {1, 8, 32};
    float ru[QUALITY_AA_REF_SIDE * QUALITY_AA_REF_SIDE], rv[QUALITY_AA_REF_SIDE * QUALITY_AA_REF_SIDE];
    quality_aa_ref_grid(ru, rv);
    bool ok = true;
    for (int c = 0; c < 3 && ok; c++) {
        const int n = counts[c];
        if (!sample_izb_frame(q, cam, l, n, n, faces, count)) return false;
        if (c == 0) {
            sample_rays_aa_axes_faces(faces, count, cam, q->depth, q->ids, s->xyz, s->tri_count, q->axes);
            quality_truth_aa(orc, &f0, cam, l, q->depth, q->axes, ru, rv,
                             QUALITY_AA_REF_SIDE * QUALITY_AA_REF_SIDE, NULL, q->ref_vis);
        }
        izb_aa_samples S;
        izb_aa_samples_make(n, &S);
        quality_truth_aa(orc, &f0, cam, l, q->depth, q->axes, S.u, S.v, n, q->truth_bits, q->truth_vis);
        const quality_sample_counts k = quality_sample_compare(q->izb_bits, q->mask, q->truth_bits,
                                                               q->truth_vis, q->ref_vis, NULL, n, q->n);
        char method[32];
        snprintf(method, sizeof method, "izb-cpu N=%d", n);
        print_sample_row(q, qv->name, method, &k);
        snprintf(method, sizeof method, "izb-cpu-n%d", n);
        ok = save_colour(q, qv->name, method) && save_vis(q, qv->name, method);
    }
    /* the maps against the one-ray truth (N = 1) and the reference */
    izb_aa_samples S1;
    izb_aa_samples_make(1, &S1);
    quality_truth_aa(orc, &f0, cam, l, q->depth, q->axes, S1.u, S1.v, 1, NULL, q->truth_vis);
    quality_vis_image(q->ref_vis, q->n, q->rgb);
    ok = save_rgb(q, qv->name, "ref256") && ok;
    return sample_view_maps(q, qv->name, cam, l, 1, q->ref_vis) && ok;
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
    q.izb_bits = malloc((size_t)q.n * IZB_MASK_MAX_WORDS * sizeof(uint32_t));
    q.truth_bits = malloc((size_t)q.n * IZB_MASK_MAX_WORDS * sizeof(uint32_t));
    q.ids = malloc((size_t)q.n * sizeof(uint32_t));
    q.truth_vis = malloc((size_t)q.n * sizeof(float));
    q.ref_vis = malloc((size_t)q.n * sizeof(float));
    q.axes = malloc((size_t)q.n * 6 * sizeof(float));
    if (!q.r || !q.depth || !q.truth || !q.mask || !q.rgb || !q.unsure || !q.izb_bits || !q.truth_bits ||
        !q.ids || !q.truth_vis || !q.ref_vis || !q.axes) {
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

    scene s = {0};
    scene_cutouts cut = {0};
    const char *loaded = NULL;
    oracle *orc = NULL;
    /* two passes, each its own table: the hard views, then the per-sample views */
    for (int pass = 0; pass < 2; pass++) {
        bool header = false;
        for (int v = 0; v < quality_view_count && rc == 0; v++) {
            const quality_view *qv = &quality_views[v];
            if (o->only && !strstr(qv->name, o->only)) continue;
            if (quality_view_per_sample(qv) != (pass == 1)) continue;
            if (!header) {
                if (pass == 1)
                    print_sample_header(o->csv);
                else
                    print_header(o->csv);
                header = true;
            }
            if (!loaded || strcmp(loaded, qv->scene) != 0) {
                oracle_destroy(orc);
                scene_cutouts_free(&cut);
                scene_free(&s);
                orc = NULL;
                loaded = NULL;
                if (!scene_load(qv->scene, &s, err, sizeof err) ||
                    !render_set_scene(q.r, &s, err, sizeof err)) {
                    fprintf(stderr, "izb-quality: %s\n", err);
                    rc = EXIT_RUNTIME;
                    break;
                }
                for (int b = 0; b < q.backend_count; b++)
                    if (!izb_set_scene(q.backends[b], s.xyz, s.tri_count)) rc = EXIT_RUNTIME;
                if (!(orc = oracle_create(s.xyz, s.tri_count))) rc = EXIT_RUNTIME;
                if (rc) {
                    fprintf(stderr, "izb-quality: scene %s: cannot set up the IZB or the oracle\n",
                            qv->scene);
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
                for (int b = 0; b < q.backend_count;
                     b++) { /* the CPU backend (0) must cut; another is skipped */
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
            if (pass == 1) {
                if (!sample_view(&q, qv, &s, orc, &cam, &l)) rc = EXIT_RUNTIME;
                continue;
            }

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
        if (header && !o->csv) printf("\n");
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
    free(q.izb_bits), free(q.truth_bits), free(q.ids), free(q.truth_vis), free(q.ref_vis), free(q.axes);
    if (!file_out_stdout_ok(err, sizeof err)) { /* the table is the result: a lost one is a failure */
        fprintf(stderr, "izb-quality: %s\n", err);
        if (rc == 0) rc = EXIT_RUNTIME;
    }
    return rc;
}
