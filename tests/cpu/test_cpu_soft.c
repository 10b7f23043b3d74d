/* test_cpu_soft.c — soft shadows of a directional light with an angular size (izb_soft.h, the CPU
 * backend's cpu/raster_soft.c), against the brute force of tests/izb_brute.h and against a double
 * precision ray cast that shares nothing with izb_soft.h.
 *
 * Seeded random scenes: a ground (two triangles) under random occluders — small and large
 * triangles, slivers, closed cubes, some high over the ground — a random sun 15..90 degrees up with
 * a random angular size 0.5..20 degrees and M in {16, 32, 64, 128, 256}, a camera looking down at
 * the ground, depth and primitive ids from a ray cast of the scene (double), small frames. Checked:
 *  (a) the backend's 8-bit mask EQUALS the brute force (every point x triangle x sample, no grid)
 *      for kernel 1/2 x radix/atomic x cull auto/on/off, with and without ids, 1 and 3 threads, and
 *      on some seeds every instruction set (IZB_CPU_ISA): a wrong cell range, a lost atomic OR, a
 *      wrong early-out or a wrong own-triangle rule changes bytes;
 *  (b) the brute force with culling off equals the one whose penumbra boxes are unbounded (every
 *      point tested against every triangle): fails if the dilation were too small (counted: seeds
 *      where the boxes matter, an occluder far above the ground with a wide angle, must occur);
 *      and culling auto (faces away from every sample, closed meshes) equals culling off;
 *  (c) angle 0 (any M) gives the hard path's mask, byte for byte (the hard brute force);
 *  (d) the predicate (izb_soft_pair_setup + izb_soft_sample_hidden, the sample directions of
 *      izb_soft_light_make) equals a Moller-Trumbore ray/triangle test in double, with the sample
 *      directions derived here from the light's world axes, on random cases away from edges, with
 *      a bias of 0, the default or 0.05: the receiver is binned at its key - bias and a sample is
 *      hidden by hits at t > bias along its own ray only (izb_soft.h); and
 *      for each hidden sample, the cut-out UV of its own hit point (izb_soft_sample_uv) equals the
 *      UV at Moller-Trumbore's barycentrics (a vertex's weight swapped or a wrong sign fails);
 *  (e) the pattern: M points in the unit disk, a quarter of them in each quadrant (+-M/8), equal to
 *      the golden-angle spiral computed here in double;
 *  (f) the mask layer: izb_mask_value = round(255 lit / M) in double, izb_mask_full;
 *  (g) bad frames (angle < 0, NaN, past the maximum, M not in the set, a spot light): false, no
 *      crash. IZB_SOFT_SEEDS=N runs N seeds (default DEFAULT_SEEDS). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_brute.h"
#include "izb_closed.h"
#include "izb_mask.h"
#include "izb_soft.h"
#include "mode_sweep.h"
#include "test.h"
#include "test_cube.h"
#include "test_rng.h"
#include "view.h"

#define DEFAULT_SEEDS 60
#define MAX_TRIS 160
#define MAX_W 40
#define MAX_H 30

static const int sample_counts[5] = {16, 32, 64, 128, 256};

/* Moller-Trumbore in double: does o + t d, t > 0, hit triangle q (9 values)? *t_out, barycentrics
 * *u, *v (for "away from the edges") */
static bool ray_tri(const double o[3], const double d[3], const double q[9], double *t_out, double *u_out,
                    double *v_out)
{
    double e1[3], e2[3], s[3], pv[3], qv[3];
    for (int k = 0; k < 3; k++)
        e1[k] = q[3 + k] - q[k], e2[k] = q[6 + k] - q[k], s[k] = o[k] - q[k];
    pv[0] = d[1] * e2[2] - d[2] * e2[1], pv[1] = d[2] * e2[0] - d[0] * e2[2], pv[2] = d[0] * e2[1] - d[1] * e2[0];
    const double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
    if (fabs(det) < 1e-300) return false;
    const double u = (s[0] * pv[0] + s[1] * pv[1] + s[2] * pv[2]) / det;
    qv[0] = s[1] * e1[2] - s[2] * e1[1], qv[1] = s[2] * e1[0] - s[0] * e1[2], qv[2] = s[0] * e1[1] - s[1] * e1[0];
    const double v = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) / det;
    const double t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
    *t_out = t, *u_out = u, *v_out = v;
    return u >= 0 && v >= 0 && u + v <= 1 && t > 0;
}

/* ---- scenes ------------------------------------------------------------------------------------ */

typedef struct scene_gen {
    float xyz[9 * MAX_TRIS];
    int nt;
    float bmin[3], bmax[3];
    bool high; /* an occluder far over the ground: penumbrae much wider than the triangles */
} scene_gen;

static void add_tri(scene_gen *g, const double c[3], double size, double sliver)
{
    if (g->nt >= MAX_TRIS) return;
    float *o = g->xyz + 9 * g->nt++;
    double a[3], b[3];
    for (int k = 0; k < 3; k++)
        a[k] = rnd_in(-1, 1), b[k] = rnd_in(-1, 1);
    for (int k = 0; k < 3; k++) {
        o[k] = (float)c[k];
        o[3 + k] = (float)(c[k] + size * a[k]);
        o[6 + k] = (float)(c[k] + size * (a[k] * (1 - sliver) + sliver * b[k]));
    }
}

static void gen_scene(scene_gen *g)
{
    const float G = 4.0f;
    const float ground[18] = {-G, 0, -G, -G, 0, G, G, 0, G, -G, 0, -G, G, 0, G, G, 0, -G};
    memcpy(g->xyz, ground, sizeof ground);
    g->nt = 2;
    g->high = false;
    const int objects = 1 + (int)(rnd() * 10);
    for (int i = 0; i < objects; i++) {
        double c[3] = {rnd_in(-2.5, 2.5), rnd_in(0.05, 1.5), rnd_in(-2.5, 2.5)};
        const double kind = rnd();
        if (kind < 0.2) {
            c[1] = rnd_in(2.0, 4.0); /* far over the ground, small */
            g->high = true;
            add_tri(g, c, rnd_in(0.05, 0.3), 1.0);
        } else if (kind < 0.55) {
            add_tri(g, c, rnd_in(0.1, 1.2), 1.0);
        } else if (kind < 0.7) {
            add_tri(g, c, rnd_in(0.2, 1.5), rnd_in(1e-4, 1e-2)); /* a sliver */
        } else if (g->nt + 12 <= MAX_TRIS) {
            const float cf[3] = {(float)c[0], (float)c[1] + 0.3f, (float)c[2]};
            g->nt = test_add_cube(g->xyz, g->nt, cf, (float)rnd_in(0.1, 0.5), false);
        }
    }
    for (int k = 0; k < 3; k++)
        g->bmin[k] = INFINITY, g->bmax[k] = -INFINITY;
    for (int i = 0; i < 3 * g->nt; i++)
        for (int k = 0; k < 3; k++)
            g->bmin[k] = fminf(g->bmin[k], g->xyz[3 * i + k]), g->bmax[k] = fmaxf(g->bmax[k], g->xyz[3 * i + k]);
}

/* nearest hit of each camera ray: linear view depth (0 = sky) and the triangle's index */
static void ray_cast(const camera *cam, const izb_recon *f, const scene_gen *g, float *depth, uint32_t *ids)
{
    float m[16];
    camera_view(cam, m);
    for (int py = 0; py < f->height; py++)
        for (int px = 0; px < f->width; px++) {
            const double v1[3] = {((2.0 * px + 1.0) / f->width - 1.0) * f->ray_sx,
                                  ((2.0 * py + 1.0) / f->height - 1.0) * f->ray_sy, -1.0};
            const double t[3] = {-m[12], -m[13], -m[14]};
            double o[3], dir[3];
            for (int j = 0; j < 3; j++) {
                o[j] = m[4 * j] * t[0] + m[4 * j + 1] * t[1] + m[4 * j + 2] * t[2];
                dir[j] = m[4 * j] * v1[0] + m[4 * j + 1] * v1[1] + m[4 * j + 2] * v1[2];
            }
            double best = INFINITY;
            uint32_t bid = IZB_NO_ID;
            for (int i = 0; i < g->nt; i++) {
                double q[9], d, u, v;
                for (int k = 0; k < 9; k++)
                    q[k] = g->xyz[9 * i + k];
                if (ray_tri(o, dir, q, &d, &u, &v) && d > 1e-4 && d < best) best = d, bid = (uint32_t)i;
            }
            const int i = py * f->width + px;
            depth[i] = isfinite(best) ? (float)best : 0.0f;
            ids[i] = bid;
        }
}

static light gen_light(void)
{
    const double elev = rnd_in(15, 90) * M_PI / 180, az = rnd_in(0, 2 * M_PI);
    light l = {.type = LIGHT_DIRECTIONAL};
    l.dir[0] = (float)(-cos(elev) * cos(az));
    l.dir[1] = (float)(-sin(elev));
    l.dir[2] = (float)(-cos(elev) * sin(az));
    return l;
}

static camera gen_camera(void)
{
    camera c = {.fovy = (float)rnd_in(40, 70), .yaw = (float)rnd_in(-180, 180), .pitch = (float)rnd_in(-80, -40)};
    const double back = rnd_in(5, 8);
    float fw[3];
    camera_forward(&c, fw);
    for (int k = 0; k < 3; k++)
        c.pos[k] = (float)(-fw[k] * back);
    c.pos[1] += 0.5f;
    return c;
}

/* ---- the seeds --------------------------------------------------------------------------------- */


static int seeds_box_matters, seeds_partial;
static long seeds_culled_partial; /* pixels where cull on (every back face) differs from auto */

static void run_seed(izb_backend *b1, izb_backend *b3, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!rng_state) rng_state = 1;
    static scene_gen g;
    gen_scene(&g);
    const light l = gen_light();
    const camera cam = gen_camera();
    const int W = 16 + (int)(rnd() * (MAX_W - 15)), H = 12 + (int)(rnd() * (MAX_H - 11));
    izb_recon f = izb_frame_make(&cam, &l, g.bmin, g.bmax, W, H);
    f.light_angle = (float)(rnd_in(0.5, 20.0) * M_PI / 180.0);
    if (g.high && rnd() < 0.5) f.light_angle = (float)(20.0 * M_PI / 180.0);
    f.light_samples = sample_counts[(int)(rnd() * 5)];
    static float depth[MAX_W * MAX_H];
    static uint32_t ids[MAX_W * MAX_H];
    ray_cast(&cam, &f, &g, depth, ids);

    CHECK(izb_set_scene(b1, g.xyz, g.nt) && izb_set_scene(b3, g.xyz, g.nt), "seed %llu: set_scene",
          (unsigned long long)seed);
    izb_recon fb = f;
    fb.bias = izb_settings_resolve((izb_settings){0}).bias;
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    /* want[cull mode][ids]: the brute force with the backend's culling decision per mode */
    static uint8_t want[3][2][MAX_W * MAX_H], unbounded[MAX_W * MAX_H], got[MAX_W * MAX_H];
    izb_closed cl;
    CHECK(izb_closed_find(g.xyz, g.nt, &cl), "seed %llu: closed analysis", (unsigned long long)seed);
    for (int c = 0; c < 3; c++) {
        const izb_cull_view cv = {.mode = (izb_cull)(IZB_CULL_AUTO + c), .comp = cl.comp, .boxes = cl.boxes};
        izb_brute_force_soft(&fb, depth, NULL, g.xyz, g.nt, &cv, true, want[c][0], pts, pix);
        izb_brute_force_soft(&fb, depth, ids, g.xyz, g.nt, &cv, true, want[c][1], pts, pix);
    }
    const izb_cull_view off = {.mode = IZB_CULL_OFF};
    izb_brute_force_soft(&fb, depth, NULL, g.xyz, g.nt, &off, false, unbounded, pts, pix);
    for (int i = 0; i < W * H; i++)
        if (want[0][0][i] > 0 && want[0][0][i] < 255) {
            seeds_partial++;
            break;
        }

    /* (b) the penumbra boxes hold every hit; (b') culling auto (closed meshes only) is exact:
     * the same mask as no culling */
    int first, bad = mismatching(want[2][0], unbounded, W * H, &first);
    CHECK(bad == 0, "seed %llu: brute force with penumbra boxes vs unbounded: %d pixels differ (first %d: %d vs %d)",
          (unsigned long long)seed, bad, first, first >= 0 ? want[2][0][first] : 0, first >= 0 ? unbounded[first] : 0);
    bad = mismatching(want[0][0], want[2][0], W * H, &first);
    CHECK(bad == 0, "seed %llu: culling auto vs off: %d pixels differ", (unsigned long long)seed, bad);
    {
        /* (b'') a large bias: the boxes must grow from the receiver's own key, the bias past its
         * binned one (izb_soft_tri_setup's z_min - beta) */
        izb_recon fz = fb;
        fz.bias = 0.05f;
        static uint8_t zb[MAX_W * MAX_H], zu[MAX_W * MAX_H];
        izb_brute_force_soft(&fz, depth, NULL, g.xyz, g.nt, &off, true, zb, pts, pix);
        izb_brute_force_soft(&fz, depth, NULL, g.xyz, g.nt, &off, false, zu, pts, pix);
        bad = mismatching(zb, zu, W * H, &first);
        CHECK(bad == 0, "seed %llu: bias 0.05, penumbra boxes vs unbounded: %d pixels differ",
              (unsigned long long)seed, bad);
    }
    for (int i = 0; i < W * H; i++)
        seeds_culled_partial += want[0][0][i] != want[1][0][i]; /* cull on: open meshes' back faces go */
    /* the boxes matter where a triangle's bare bbox would miss shadowed points: count such seeds */
    {
        izb_recon hard = fb;
        hard.light_angle = 0.0f;
        static uint8_t h[MAX_W * MAX_H];
        izb_cull_view cv = {.mode = IZB_CULL_OFF};
        izb_brute_force(&hard, depth, NULL, g.xyz, g.nt, &cv, h, pts, pix);
        int shadow_soft = 0, shadow_hard = 0;
        for (int i = 0; i < W * H; i++)
            shadow_soft += want[2][0][i] < 255, shadow_hard += h[i] < 255;
        seeds_box_matters += shadow_soft > shadow_hard + 8;
    }

    /* (a) every mode, both thread counts, with and without ids */
    {
        char light_desc[96];
        snprintf(light_desc, sizeof light_desc, "M %d, %.2f deg", f.light_samples, f.light_angle * 180 / M_PI);
        check_every_mode(b1, b3, &f, depth, ids, &want[0][0][0], sizeof want[0][0], seed, light_desc, g.nt);
    }

    /* (c) angle 0 takes the hard path, whatever M says */
    izb_recon f0 = f;
    f0.light_angle = 0.0f;
    f0.light_samples = seed % 2 ? 0 : 64;
    izb_recon f0b = f0;
    f0b.bias = fb.bias;
    static uint8_t hard_want[MAX_W * MAX_H];
    izb_cull_view cv = {.mode = IZB_CULL_AUTO, .comp = cl.comp, .boxes = cl.boxes};
    izb_brute_force(&f0b, depth, NULL, g.xyz, g.nt, &cv, hard_want, pts, pix);
    izb_closed_free(&cl);
    memset(got, 7, sizeof got);
    CHECK(izb_shade_arrays(b1, &f0, NULL, depth, got, NULL), "seed %llu: angle 0", (unsigned long long)seed);
    bad = mismatching(got, hard_want, W * H, &first);
    CHECK(bad == 0, "seed %llu: angle 0 vs the hard brute force: %d pixels differ", (unsigned long long)seed, bad);
}

/* ---- (d) the predicate against a double ray cast ---------------------------------------------- */

static void check_predicate(void)
{
    int decided = 0, hits = 0, wrong = 0, uv_checked = 0, uv_wrong = 0;
    int near_bias = 0; /* crossings between the receiver and its offset: the bias must spare them */
    for (int c = 0; c < 300; c++) {
        light l = gen_light();
        const float bmin[3] = {-3, 0, -3}, bmax[3] = {3, 2, 3};
        const camera cam = {.pos = {0, 5, 5}, .pitch = -45};
        izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, 8, 8);
        f.light_angle = (float)(rnd_in(0.5, 20.0) * M_PI / 180.0);
        f.light_samples = sample_counts[c % 5];
        const double bias = c % 3 == 0 ? 0.0 : c % 3 == 1 ? IZB_DEFAULT_BIAS : 0.05;
        f.bias = (float)bias;
        izb_soft_light L;
        izb_soft_light_make(&f, &L);
        /* the sample directions from the light's world axes: toward the light = -(row z), offsets
         * along rows x and y, all unit in world space, then into clip space by the matrix */
        double A[3][3], nrm[3];
        for (int r = 0; r < 3; r++) {
            nrm[r] = 0;
            for (int k = 0; k < 3; k++)
                A[r][k] = f.light[4 * k + r], nrm[r] += A[r][k] * A[r][k];
            nrm[r] = sqrt(nrm[r]);
        }
        const double th = tan(0.5 * f.light_angle), golden = M_PI * (3 - sqrt(5.0));
        double dirs[IZB_MASK_MAX_BITS][3];
        for (int j = 0; j < L.m; j++) {
            const double r = sqrt((j + 0.5) / L.m), ox = r * cos(j * golden) * th, oy = r * sin(j * golden) * th;
            double w[3], cdir[3];
            for (int k = 0; k < 3; k++)
                w[k] = -A[2][k] / nrm[2] + ox * A[0][k] / nrm[0] + oy * A[1][k] / nrm[1];
            for (int r2 = 0; r2 < 3; r2++)
                cdir[r2] = A[r2][0] * w[0] + A[r2][1] * w[1] + A[r2][2] * w[2];
            for (int k = 0; k < 3; k++)
                dirs[j][k] = cdir[k] / -cdir[2];
            CHECK(fabs(dirs[j][0] - L.dx[j]) < 1e-5 && fabs(dirs[j][1] - L.dy[j]) < 1e-5,
                  "sample %d of %d: direction (%g, %g), izb_soft_light_make (%g, %g)", j, L.m, dirs[j][0], dirs[j][1],
                  L.dx[j], L.dy[j]);
        }
        for (int k = 0; k < 40; k++) {
            float v[3][4];
            double q[9];
            for (int i = 0; i < 3; i++) {
                v[i][0] = (float)rnd_in(-0.5, 0.5), v[i][1] = (float)rnd_in(-0.5, 0.5), v[i][2] = (float)rnd_in(-0.8, 0.6);
                v[i][3] = 1.0f;
                for (int a = 0; a < 3; a++)
                    q[3 * i + a] = v[i][a];
            }
            const float p[3] = {(float)rnd_in(-0.6, 0.6), (float)rnd_in(-0.6, 0.6), (float)rnd_in(-0.5, 1.0)};
            const izb_bbox all = {-INFINITY, -INFINITY, INFINITY, INFINITY};
            izb_soft_tri t;
            const bool set = izb_soft_tri_setup(v, 1.0f, &L, &all, false, &t);
            izb_soft_pair pr;
            /* binned as izb_clip_point does: key - bias */
            const bool paired = set && izb_soft_pair_setup(&t, p[0], p[1], p[2] - f.bias, &pr);
            for (int j = 0; j < L.m; j++) {
                const double o[3] = {p[0], p[1], p[2]}, d[3] = {L.dx[j], L.dy[j], -1.0};
                double tt, u, w;
                const bool want = ray_tri(o, d, q, &tt, &u, &w) && tt > bias;
                /* away from the edges and from t = 0 and t = bias (the float answers may differ there) */
                if (fmin(fmin(u, w), 1 - u - w) > -1e-3 && fmin(fmin(u, w), 1 - u - w) < 1e-3) continue;
                if (fabs(tt) < 1e-3 || fabs(tt - bias) < 1e-3) continue;
                near_bias += tt > 0 && tt < bias && fmin(fmin(u, w), 1 - u - w) > 0;
                const bool got = paired && izb_soft_sample_hidden(&pr, t.n, L.dx[j], L.dy[j]);
                if (got && want) {
                    float uv[6], gu, gv;
                    for (int a = 0; a < 6; a++) uv[a] = (float)rnd_in(-2.0, 3.0);
                    izb_soft_sample_uv(&pr, L.dx[j], L.dy[j], uv, &gu, &gv);
                    const double b0 = 1.0 - u - w, wu = b0 * uv[0] + u * uv[2] + w * uv[4],
                                 wv = b0 * uv[1] + u * uv[3] + w * uv[5];
                    uv_checked++;
                    if (!(fabs(gu - wu) < 1e-3 && fabs(gv - wv) < 1e-3) && uv_wrong++ < 5)
                        fprintf(stderr, "case %d/%d sample %d: uv (%g, %g), ray cast (%g, %g)\n", c, k, j, gu, gv, wu, wv);
                }
                decided++;
                hits += want;
                if (got != want && wrong++ < 5)
                    fprintf(stderr, "case %d/%d sample %d: predicate %d, ray cast %d (t %g, u %g, v %g)\n", c, k, j, got,
                            want, tt, u, w);
            }
        }
    }
    CHECK(wrong == 0, "predicate vs Moller-Trumbore: %d of %d wrong", wrong, decided);
    CHECK(uv_wrong == 0 && uv_checked > 1000, "cut-out UV vs Moller-Trumbore: %d of %d wrong", uv_wrong, uv_checked);
    CHECK(hits > decided / 50 && hits < decided - decided / 50, "cases both ways: %d hits of %d", hits, decided);
    CHECK(near_bias > 100, "crossings within the bias: %d", near_bias);
}

/* ---- (e) the pattern, (f) the mask layer, (g) bad frames -------------------------------------- */

static void check_pattern_and_mask(void)
{
    for (int s = 0; s < 5; s++) {
        const int m = sample_counts[s];
        float ox[IZB_MASK_MAX_BITS], oy[IZB_MASK_MAX_BITS];
        izb_soft_pattern(m, ox, oy);
        int quad[4] = {0};
        const double golden = M_PI * (3 - sqrt(5.0));
        for (int j = 0; j < m; j++) {
            CHECK(ox[j] * ox[j] + oy[j] * oy[j] < 1.0f, "M %d sample %d outside the disk", m, j);
            const double r = sqrt((j + 0.5) / m);
            CHECK(fabs(ox[j] - r * cos(j * golden)) < 1e-5 && fabs(oy[j] - r * sin(j * golden)) < 1e-5,
                  "M %d sample %d: (%g, %g) is not the golden-angle spiral", m, j, ox[j], oy[j]);
            quad[(ox[j] >= 0) + 2 * (oy[j] >= 0)]++;
        }
        for (int q = 0; q < 4; q++)
            CHECK(abs(quad[q] - m / 4) <= m / 8, "M %d: quadrant %d holds %d samples", m, q, quad[q]);
    }
    for (int c = 0; c < 20000; c++) {
        const int m = sample_counts[c % 5];
        uint32_t w[IZB_MASK_MAX_WORDS] = {0};
        const int kind = (int)(rnd() * 4);
        int hidden = 0;
        for (int j = 0; j < m; j++) {
            const bool h = kind == 0 ? false : kind == 1 ? true : rnd() < 0.5;
            if (h) w[j / 32] |= 1u << (j % 32), hidden++;
        }
        if (m == 16 && rnd() < 0.5) w[0] |= 0xffff0000u; /* bits past M are not samples */
        const double want = floor(255.0 * (m - hidden) / m + 0.5);
        CHECK(izb_mask_value(w, m) == want, "M %d, %d hidden: %d, want %g", m, hidden, izb_mask_value(w, m), want);
        CHECK(izb_mask_full(w, m) == (hidden == m), "M %d, %d hidden: full %d", m, hidden, izb_mask_full(w, m));
    }
}

static void check_bad_frames(izb_backend *b)
{
    static scene_gen g;
    gen_scene(&g);
    CHECK(izb_set_scene(b, g.xyz, g.nt), "set_scene");
    const camera cam = gen_camera();
    light l = gen_light();
    izb_recon good = izb_frame_make(&cam, &l, g.bmin, g.bmax, 16, 12);
    good.light_angle = 0.1f, good.light_samples = 64;
    static float depth[16 * 12];
    static uint32_t ids[16 * 12];
    static uint8_t m[16 * 12];
    ray_cast(&cam, &good, &g, depth, ids);
    CHECK(izb_shade_arrays(b, &good, NULL, depth, m, NULL), "a good soft frame");
    const float angles[4] = {-0.01f, NAN, 0.35f, INFINITY};
    for (int i = 0; i < 4; i++) {
        izb_recon f = good;
        f.light_angle = angles[i];
        CHECK(!izb_shade_arrays(b, &f, NULL, depth, m, NULL), "angle %g accepted", (double)angles[i]);
    }
    const int bad_m[4] = {0, 48, 512, -32};
    for (int i = 0; i < 4; i++) {
        izb_recon f = good;
        f.light_samples = bad_m[i];
        CHECK(!izb_shade_arrays(b, &f, NULL, depth, m, NULL), "M %d accepted", bad_m[i]);
    }
    izb_recon f = good;
    f.light_is_spot = 1;
    CHECK(!izb_shade_arrays(b, &f, NULL, depth, m, NULL), "a spot light with an angle accepted");
}

int main(void)
{
    const char *env = getenv("IZB_SOFT_SEEDS");
    const int seeds = env ? atoi(env) : DEFAULT_SEEDS;
    izb_backend *b1 = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1});
    izb_backend *b3 = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 3});
    if (!b1 || !b3) TEST_SKIP("no CPU backend");
    for (int s = 0; s < seeds; s++)
        run_seed(b1, b3, (uint64_t)s);
    CHECK(seeds < 20 || seeds_box_matters >= seeds / 10, "penumbrae wider than the hard shadow on only %d of %d seeds",
          seeds_box_matters, seeds);
    CHECK(seeds < 20 || seeds_partial >= seeds / 3, "partial shadow on only %d of %d seeds", seeds_partial, seeds);
    printf("%d seeds: penumbra wider than the hard shadow on %d, partial shadow on %d\n", seeds, seeds_box_matters,
           seeds_partial);
    check_predicate();
    check_pattern_and_mask();
    check_bad_frames(b1);
    izb_destroy(b1);
    izb_destroy(b3);
    return test_done();
}
