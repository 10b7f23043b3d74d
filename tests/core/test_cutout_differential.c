/* test_cutout_differential.c — seeded differential runs of the CPU backend with cut-outs
 * (izb_set_cutouts, core/izb_alpha.h) against the brute force of tests/izb_brute.h. Each seed builds
 * a ground and random alpha-tested cards (quads with random UV ranges that cross texel edges and
 * wrap), some opaque cards and loose triangles, 1 to 4 random procedural alpha textures (random
 * sides, power of two or not, 1x1 included; noise, disc, stripes, checker; random wrap per axis;
 * random cutoff), sometimes a card with NaN / Inf / 1e30 UVs; a random light (directional, grazing,
 * spot outside, spot among the cards) and camera; depth and ids by ray casting. Checked per seed:
 *  (a) the mask equals the brute force with the alpha test, for kernel 1/2 x radix/atomic x cull
 *      auto/off (random grid on some seeds), without and with ids;
 *  (b) every texture all-opaque (alpha 255) equals the mask without cut-outs, bit for bit (with
 *      and without ids): the alpha test never drops a hit it should keep;
 *  (c) every texture all-cut (alpha 0, cutoff > 0) equals the scene without its cut-out triangles,
 *      bit for bit (no ids: ids would index another scene): the test never keeps a hit it should
 *      drop. (b) and (c) catch the kind of bug that the brute force would share (both read
 *      izb_alpha.h and izb_cutouts.c);
 *  (d) izb_stats.tris_cut counts the cut-out triangles;
 *  (e) soft shadows (izb_soft.h) with cut-outs: on seeds with a directional light, also a soft
 *      frame (a random angular size and M): the backend's mask equals, byte for byte, the soft
 *      brute force with the per-sample alpha test (izb_soft_sample_keeps), cull auto/off x ids
 *      off/on, a random kernel and binning each; (b) and (c) hold for the soft frame too.
 * The alpha test must bite: the cut-out mask differs from the opaque one on a share of the seeds.
 * IZB_CUT_SEEDS=N runs seeds 0..N-1, IZB_CUT_SEED=K replays one. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_brute.h"
#include "izb_closed.h"
#include "izb_cutouts.h"
#include "test.h"
#include "ray_cast.h"
#include "test_rng.h"
#include "view.h"

#define DEFAULT_SEEDS 300
#define MAX_TRIS 200
#define MAX_TEX 4
#define MAX_SIDE 64
#define MAX_W 48
#define MAX_H 40

typedef struct cut_scene {
    float xyz[9 * MAX_TRIS];
    float uv[6 * MAX_TRIS];
    uint32_t image_of[MAX_TRIS];
    int nt;
    uint8_t alpha[MAX_TEX][MAX_SIDE * MAX_SIDE];
    izb_alpha_image images[MAX_TEX];
    int n_images;
    float bmin[3], bmax[3];
} cut_scene;

static void add_tri(cut_scene *s, const double p[3][3], const double uv[3][2], uint32_t image)
{
    if (s->nt >= MAX_TRIS) return;
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < 3; j++) s->xyz[9 * s->nt + 3 * k + j] = (float)p[k][j];
        s->uv[6 * s->nt + 2 * k] = (float)uv[k][0], s->uv[6 * s->nt + 2 * k + 1] = (float)uv[k][1];
    }
    s->image_of[s->nt++] = image;
}

/* a quad c + a * e1 + b * e2, a, b in [-1, 1], as two triangles, with UV (u0 + su * (a+1)/2, ...) */
static void add_card(cut_scene *s, const double c[3], const double e1[3], const double e2[3], const double uv0[2],
                     const double suv[2], uint32_t image)
{
    const double ab[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    double p[4][3], t[4][2];
    for (int k = 0; k < 4; k++) {
        for (int j = 0; j < 3; j++) p[k][j] = c[j] + ab[k][0] * e1[j] + ab[k][1] * e2[j];
        t[k][0] = uv0[0] + suv[0] * (ab[k][0] + 1) / 2, t[k][1] = uv0[1] + suv[1] * (ab[k][1] + 1) / 2;
    }
    const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
    for (int h = 0; h < 2; h++) {
        double q[3][3], w[3][2];
        for (int k = 0; k < 3; k++) memcpy(q[k], p[tri[h][k]], sizeof q[k]), memcpy(w[k], t[tri[h][k]], sizeof w[k]);
        add_tri(s, q, w, image);
    }
}

static void rand_unit(double d[3])
{
    double n;
    do {
        n = 0;
        for (int k = 0; k < 3; k++) d[k] = rnd_in(-1, 1), n += d[k] * d[k];
    } while (n > 1 || n < 1e-4);
    n = sqrt(n);
    for (int k = 0; k < 3; k++) d[k] /= n;
}

/* a random procedural alpha texture */
static void gen_image(cut_scene *s, int i)
{
    static const int sides[] = {1, 2, 3, 5, 8, 16, 17, 32, 64};
    const int w = sides[(int)(rnd() * 9)], h = sides[(int)(rnd() * 9)], kind = (int)(rnd() * 4);
    uint8_t *a = s->alpha[i];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double fx = (x + 0.5) / w - 0.5, fy = (y + 0.5) / h - 0.5;
            int v;
            switch (kind) {
            case 0: v = (int)(rnd() * 256); break;                       /* noise */
            case 1: v = fx * fx + fy * fy < 0.16 ? 255 - (int)(rnd() * 40) : (int)(rnd() * 40); break; /* disc */
            case 2: v = (x / (1 + w / 4)) % 2 ? 250 : 3; break;          /* stripes */
            default: v = ((x + y) % 2) ? 255 : 0; break;                  /* checker */
            }
            a[y * w + x] = (uint8_t)v;
        }
    const double r = rnd();
    s->images[i] = (izb_alpha_image){.alpha = a, .width = w, .height = h,
                                     .wrap_u = (izb_wrap)(int)(rnd() * IZB_WRAP_COUNT),
                                     .wrap_v = (izb_wrap)(int)(rnd() * IZB_WRAP_COUNT),
                                     .cutoff = r < 0.3 ? 0.5f : (float)rnd()};
}

static void gen_scene(cut_scene *s)
{
    s->nt = 0;
    s->n_images = 1 + (int)(rnd() * MAX_TEX);
    for (int i = 0; i < s->n_images; i++) gen_image(s, i);
    /* the ground: opaque, or on some seeds cut (a fence lying flat) */
    const double g = 4.0, c0[3] = {0, 0, 0}, gx[3] = {g, 0, 0}, gz[3] = {0, 0, -g}, uv0[2] = {0, 0}, suv[2] = {4, 4};
    add_card(s, c0, gx, gz, uv0, suv, rnd() < 0.2 ? 0u : IZB_OPAQUE);
    const int cards = 4 + (int)(rnd() * 30);
    const bool bad_uv = rnd() < 0.2;
    for (int i = 0; i < cards; i++) {
        double c[3] = {rnd_in(-3, 3), rnd_in(0.2, 3), rnd_in(-3, 3)}, e1[3], e2[3], d[3];
        rand_unit(e1);
        do rand_unit(d); while (fabs(d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2]) > 0.9);
        /* e2 = part of d orthogonal to e1 (Gram-Schmidt), both scaled */
        const double dot = d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2];
        double n2 = 0;
        for (int k = 0; k < 3; k++) e2[k] = d[k] - dot * e1[k], n2 += e2[k] * e2[k];
        const double s1 = rnd_in(0.2, 1.2), s2 = rnd_in(0.2, 1.2);
        for (int k = 0; k < 3; k++) e1[k] *= s1, e2[k] *= s2 / sqrt(n2);
        double u0[2] = {rnd_in(-2, 2), rnd_in(-2, 2)}, su[2] = {rnd_in(-3, 3), rnd_in(-3, 3)};
        if (bad_uv && i == 0) { /* a card whose UVs are not numbers: the texel rule still names one */
            const double bad[] = {NAN, INFINITY, -INFINITY, 1e30, -1e30};
            u0[0] = bad[(int)(rnd() * 5)], u0[1] = bad[(int)(rnd() * 5)];
        }
        const uint32_t image = rnd() < 0.8 ? (uint32_t)(rnd() * s->n_images) : IZB_OPAQUE;
        add_card(s, c, e1, e2, u0, su, image);
    }
    for (int i = 0; i < 4; i++) { /* loose opaque triangles */
        double p[3][3], uv[3][2] = {{0}};
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++) p[k][j] = rnd_in(-3, 3) * (j == 1 ? 0.5 : 1) + (j == 1 ? 1.5 : 0);
        add_tri(s, p, uv, IZB_OPAQUE);
    }
    for (int k = 0; k < 3; k++) s->bmin[k] = INFINITY, s->bmax[k] = -INFINITY;
    for (int i = 0; i < 3 * s->nt; i++)
        for (int k = 0; k < 3; k++)
            s->bmin[k] = fminf(s->bmin[k], s->xyz[3 * i + k]), s->bmax[k] = fmaxf(s->bmax[k], s->xyz[3 * i + k]);
}

enum { L_DIR, L_GRAZE, L_SPOT_OUT, L_SPOT_AMONG, L_KINDS };

static light gen_light(const cut_scene *s, int kind)
{
    light l = {.type = LIGHT_DIRECTIONAL, .cone_deg = (float)rnd_in(60, 130)};
    double d[3];
    rand_unit(d);
    switch (kind) {
    case L_DIR: l.dir[0] = (float)d[0], l.dir[1] = -(float)fabs(d[1]) - 0.2f, l.dir[2] = (float)d[2]; break;
    case L_GRAZE: l.dir[0] = (float)d[0], l.dir[1] = -0.05f, l.dir[2] = (float)d[2]; break;
    case L_SPOT_OUT:
        d[1] = fabs(d[1]) + 0.5;
        l.type = LIGHT_SPOT;
        for (int k = 0; k < 3; k++) l.pos[k] = (float)(8.0 * d[k]), l.dir[k] = -(float)d[k];
        break;
    default: /* among the cards, pointing down-ish */
        l.type = LIGHT_SPOT;
        l.pos[0] = (float)rnd_in(-2, 2), l.pos[1] = (float)rnd_in(1.5, 3.5), l.pos[2] = (float)rnd_in(-2, 2);
        l.dir[0] = (float)d[0] * 0.5f, l.dir[1] = -1.0f, l.dir[2] = (float)d[2] * 0.5f;
        break;
    }
    (void)s;
    return l;
}

static camera gen_camera(const float bmin[3], const float bmax[3])
{
    double d[3];
    rand_unit(d);
    d[1] = fabs(d[1]) + 0.3;
    const double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    camera cam = {.fovy = (float)rnd_in(45, 75)};
    for (int k = 0; k < 3; k++) cam.pos[k] = (float)(rnd_in(6, 10) * d[k] / n);
    cam.pitch = (float)(asin(-d[1] / n) * 180 / M_PI);
    cam.yaw = (float)(atan2(-d[0], d[2]) * 180 / M_PI);
    camera_fit_clip(&cam, bmin, bmax);
    return cam;
}

static long comparisons;

static int diff_masks(const uint8_t *a, const uint8_t *b, int n, uint64_t seed, const char *what)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        comparisons++;
        if ((a[i] == 0) != (b[i] == 0)) {
            if (!bad) fprintf(stderr, "seed %llu: %s: pixel %d: %d vs %d\n", (unsigned long long)seed, what, i, a[i], b[i]);
            bad++;
        }
    }
    return bad;
}

static int seeds_bite, seeds_shadow, seeds_soft, seeds_soft_bite;

static const int soft_samples[5] = {16, 32, 64, 128, 256};

/* (e): the soft frame fs against the soft brute force with and without the alpha test */
static void check_soft(izb_backend *b, const cut_scene *s, const izb_recon *fs, const float *depth,
                       const uint32_t *ids, const izb_closed *cl, const izb_cutout_set *set, uint64_t seed)
{
    const int N = fs->width * fs->height;
    static uint8_t want[MAX_W * MAX_H], opaque[MAX_W * MAX_H], m[MAX_W * MAX_H];
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    bool bite = false;
    for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c += IZB_CULL_OFF - IZB_CULL_AUTO)
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            const izb_settings st = {.kernel = rnd() < 0.5 ? IZB_KERNEL1 : IZB_KERNEL2,
                                     .binning = rnd() < 0.5 ? IZB_BINNING_RADIX : IZB_BINNING_ATOMIC,
                                     .cull = (izb_cull)c};
            const izb_settings rs = izb_settings_resolve(st);
            izb_recon fb = *fs;
            fb.bias = rs.bias;
            const izb_cull_view cv = {.mode = rs.cull, .comp = cl->comp, .boxes = cl->boxes};
            izb_brute_force_soft_cut(&fb, depth, with_ids ? ids : NULL, s->xyz, s->nt, &cv, true, set, want, pts, pix);
            izb_brute_force_soft_cut(&fb, depth, with_ids ? ids : NULL, s->xyz, s->nt, &cv, true, NULL, opaque, pts,
                                     pix);
            bite |= memcmp(want, opaque, (size_t)N) != 0;
            CHECK(izb_shade_arrays_ids(b, fs, &st, depth, with_ids ? ids : NULL, m, NULL), "seed %llu: (e) shade",
                  (unsigned long long)seed);
            int bad = 0, first = -1;
            for (int i = 0; i < N; i++) {
                comparisons++;
                if (m[i] != want[i] && bad++ == 0) first = i;
            }
            CHECK(bad == 0, "seed %llu: (e) soft %d samples %.1f deg kernel%d %s cull %s%s: %d pixels != brute force "
                  "(first %d: %d vs %d)", (unsigned long long)seed, fs->light_samples, fs->light_angle * 180 / M_PI,
                  st.kernel, izb_binning_names[st.binning], izb_cull_names[c], with_ids ? " ids" : "", bad, first,
                  first >= 0 ? m[first] : 0, first >= 0 ? want[first] : 0);
        }
    seeds_soft++;
    seeds_soft_bite += bite;
}

static izb_cutouts cutouts_of(const cut_scene *s)
{
    return (izb_cutouts){.images = s->images, .image_count = s->n_images, .uv = s->uv, .image_of = s->image_of,
                         .tri_count = s->nt};
}

static void run_seed(izb_backend *b, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x51ED270B27A5F1ull;
    if (!rng_state) rng_state = 1;
    for (int k = 0; k < 4; k++) (void)rnd();
    static cut_scene s;
    gen_scene(&s);
    const light l = gen_light(&s, (int)(rnd() * L_KINDS));
    const camera cam = gen_camera(s.bmin, s.bmax);
    const int W = 16 + (int)(rnd() * (MAX_W - 15)), H = 12 + (int)(rnd() * (MAX_H - 11)), N = W * H;
    izb_recon f = izb_frame_make(&cam, &l, s.bmin, s.bmax, W, H);
    static float depth[MAX_W * MAX_H];
    static uint32_t ids[MAX_W * MAX_H];
    ray_cast_depth(&cam, &f, s.xyz, s.nt, depth, ids);
    const unsigned long long sd = (unsigned long long)seed;

    izb_closed cl;
    CHECK(izb_closed_find(s.xyz, s.nt, &cl), "seed %llu: closed analysis", sd);
    CHECK(izb_set_scene(b, s.xyz, s.nt), "seed %llu: set_scene", sd);
    const izb_cutouts co = cutouts_of(&s);
    CHECK(izb_set_cutouts(b, &co), "seed %llu: set_cutouts", sd);
    izb_cutout_set set;
    CHECK(izb_cutout_set_build(&set, &co, s.nt, "test"), "seed %llu: cutout set", sd);

    const bool rand_grid = rnd() < 0.25;
    const int gw = 1 + (int)(rnd() * 16), gh = 1 + (int)(rnd() * 16);
    static uint8_t want[MAX_W * MAX_H], m[MAX_W * MAX_H], opaque[2][MAX_W * MAX_H];
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    char what[200];
    int cut_counted = 0;
    for (int t = 0; t < s.nt; t++) cut_counted += s.image_of[t] != IZB_OPAQUE;
    bool bite = false;
    for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c += IZB_CULL_OFF - IZB_CULL_AUTO)
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            const izb_settings rs = izb_settings_resolve((izb_settings){.cull = (izb_cull)c});
            izb_recon fb = f;
            fb.bias = rs.bias;
            izb_cull_view cv = {.mode = rs.cull, .comp = cl.comp, .boxes = cl.boxes, .light_is_spot = fb.light_is_spot};
            if (fb.light_is_spot) izb_light_origin(fb.light, cv.light_origin);
            izb_brute_force_cut(&fb, depth, with_ids ? ids : NULL, s.xyz, s.nt, &cv, &set, want, pts, pix);
            izb_brute_force_cut(&fb, depth, with_ids ? ids : NULL, s.xyz, s.nt, &cv, NULL, opaque[with_ids], pts, pix);
            bite |= memcmp(want, opaque[with_ids], (size_t)N) != 0;
            for (int k = IZB_KERNEL1; k <= IZB_KERNEL2; k++)
                for (int bn = IZB_BINNING_RADIX; bn <= IZB_BINNING_ATOMIC; bn++) {
                    izb_settings st = {.kernel = (izb_kernel)k, .binning = (izb_binning)bn, .cull = (izb_cull)c};
                    if (rand_grid) st.grid_w = gw, st.grid_h = gh;
                    snprintf(what, sizeof what, "(a) kernel%d %s cull %s%s%s, %d tris", k, izb_binning_names[bn],
                             izb_cull_names[c], with_ids ? " ids" : "", rand_grid ? " random grid" : "", s.nt);
                    izb_stats stats;
                    CHECK(izb_shade_arrays_ids(b, &f, &st, depth, with_ids ? ids : NULL, m, &stats),
                          "seed %llu: %s: shade", sd, what);
                    CHECK(diff_masks(m, want, N, seed, what) == 0, "seed %llu: %s: backend != brute force", sd, what);
                    CHECK(stats.tris_cut == set.cut_count && set.cut_count == cut_counted,
                          "seed %llu: (d) tris_cut %d, set %d, scene %d", sd, stats.tris_cut, set.cut_count, cut_counted);
                }
        }
    seeds_bite += bite;
    for (int i = 0; i < N; i++)
        if (!want[i]) {
            seeds_shadow++;
            break;
        }
    /* (e) a soft frame of the directional light */
    izb_recon fr[2] = {f, f};
    int nf = 1;
    if (l.type == LIGHT_DIRECTIONAL && rnd() < 0.6) {
        fr[1].light_angle = (float)(rnd_in(0.5, 20.0) * M_PI / 180.0);
        fr[1].light_samples = soft_samples[(int)(rnd() * 5)];
        check_soft(b, &s, &fr[1], depth, ids, &cl, &set, seed);
        nf = 2;
    }
    izb_cutout_set_free(&set);

    /* (b) every texture all-opaque: the mask without cut-outs, bit for bit */
    const izb_settings st = {.kernel = rnd() < 0.5 ? IZB_KERNEL1 : IZB_KERNEL2, .cull = IZB_CULL_OFF};
    static uint8_t a[MAX_W * MAX_H];
    izb_alpha_image keep_img[MAX_TEX];
    static uint8_t full[MAX_SIDE * MAX_SIDE], none[MAX_SIDE * MAX_SIDE];
    memset(full, 255, sizeof full);
    memset(none, 0, sizeof none);
    for (int k = 0; k < nf; k++)
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            CHECK(izb_set_cutouts(b, NULL), "seed %llu: set_cutouts NULL", sd);
            CHECK(izb_shade_arrays_ids(b, &fr[k], &st, depth, with_ids ? ids : NULL, a, NULL), "seed %llu: shade", sd);
            for (int i = 0; i < s.n_images; i++) keep_img[i] = s.images[i], keep_img[i].alpha = full;
            izb_cutouts kc = co;
            kc.images = keep_img;
            CHECK(izb_set_cutouts(b, &kc), "seed %llu: set_cutouts all-opaque", sd);
            CHECK(izb_shade_arrays_ids(b, &fr[k], &st, depth, with_ids ? ids : NULL, m, NULL), "seed %llu: shade", sd);
            CHECK(memcmp(a, m, (size_t)N) == 0, "seed %llu: (b) all-opaque textures%s%s != no cut-outs", sd,
                  with_ids ? " (ids)" : "", k ? " (soft)" : "");
        }

    /* (c) every texture all-cut (cutoff > 0): the scene without the cut-out triangles */
    for (int i = 0; i < s.n_images; i++) keep_img[i] = s.images[i], keep_img[i].alpha = none,
                                         keep_img[i].cutoff = fmaxf(keep_img[i].cutoff, 0.01f);
    izb_cutouts cc = co;
    cc.images = keep_img;
    static uint8_t cut_masks[2][MAX_W * MAX_H];
    CHECK(izb_set_cutouts(b, &cc), "seed %llu: set_cutouts all-cut", sd);
    for (int k = 0; k < nf; k++)
        CHECK(izb_shade_arrays(b, &fr[k], &st, depth, cut_masks[k], NULL), "seed %llu: shade", sd);
    static float kept[9 * MAX_TRIS];
    int nk = 0;
    for (int t = 0; t < s.nt; t++)
        if (s.image_of[t] == IZB_OPAQUE) memcpy(kept + 9 * nk++, s.xyz + 9 * t, 9 * sizeof(float));
    CHECK(izb_set_scene(b, kept, nk), "seed %llu: set_scene of the opaque part", sd);
    for (int k = 0; k < nf; k++) {
        CHECK(izb_shade_arrays(b, &fr[k], &st, depth, a, NULL), "seed %llu: shade", sd);
        CHECK(memcmp(a, cut_masks[k], (size_t)N) == 0, "seed %llu: (c) all-cut textures != the scene without them%s",
              sd, k ? " (soft)" : "");
    }
    izb_closed_free(&cl);
}

int main(void)
{
    const char *th = getenv("IZB_DIFF_THREADS");
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = th && atoi(th) > 0 ? atoi(th) : 1,
                                            .quiet = true});
    CHECK(b != NULL, "no CPU backend");
    if (!b) return test_done();
    long n = DEFAULT_SEEDS, first = 0;
    const char *e = getenv("IZB_CUT_SEEDS");
    if (e && atol(e) > 0) n = atol(e);
    e = getenv("IZB_CUT_SEED");
    if (e) first = atol(e), n = 1;
    for (long sd = first; sd < first + n; sd++) {
        const int before = test_failed_;
        run_seed(b, (uint64_t)sd);
        if (test_failed_ != before) fprintf(stderr, "seed %ld FAILED (replay: IZB_CUT_SEED=%ld)\n", sd, sd);
    }
    izb_destroy(b);
    if (n >= 20) {
        CHECK(seeds_bite * 3 >= n, "the alpha test changed the brute force's mask in only %d of %ld seeds",
              seeds_bite, n);
        CHECK(seeds_shadow * 2 >= n, "only %d of %ld seeds have shadow", seeds_shadow, n);
        CHECK(comparisons > 2000L * n, "only %ld comparisons", comparisons);
        CHECK(seeds_soft * 8 >= n && seeds_soft_bite * 2 >= seeds_soft,
              "(e) soft frames on %d of %ld seeds, the alpha test changed %d of them", seeds_soft, n, seeds_soft_bite);
    }
    if (getenv("IZB_DIFF_VERBOSE")) printf("%ld seeds, %d bite, %d shadow, %d soft (%d bite), %ld comparisons\n", n, seeds_bite, seeds_shadow,
                                        seeds_soft, seeds_soft_bite, comparisons);
    return test_done();
}
