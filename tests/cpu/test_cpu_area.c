/* test_cpu_area.c — soft shadows of an area light (izb_area.h: a spot light with a rectangle or
 * ellipse of light) on the CPU backend, against the brute force of tests/izb_brute.h and against a
 * double-precision segment test in world space that shares nothing with izb_area.h.
 *
 * Seeded random scenes: a ground under random occluders — triangles, slivers, closed cubes, some
 * far over the ground — lit by a spot 2.5..5 units up, aimed near the ground's centre, with a
 * random emitter of 0.05..2.5 x 0.05..2.5 world units (a rectangle, a square or an ellipse) and M
 * 16 or 64; a camera looking down; depth and primitive ids from a double ray cast; small frames.
 * Checked:
 *  (a) the backend's 8-bit mask EQUALS the brute force (every point x triangle x sample, no grid)
 *      for kernel 1/2 x radix/atomic x cull auto/on/off, with and without ids, 1 and 3 threads, on
 *      some seeds every instruction set: a wrong cell range, set-up, early-out or ISA copy fails;
 *  (b) the brute force with penumbra boxes equals the one with unbounded boxes (every point against
 *      every triangle): fails if the penumbra bound is too small (seeds where the penumbra is wider
 *      than the hard shadow must occur); and culling auto (with the emitter's reach) equals off;
 *  (c) size 0 (any M, either shape) is the hard spot path, byte for byte (the hard brute force);
 *  (d) truth: for each lit point of a frame (no ids), each sample's segment to its world position
 *      on the emitter, in double against every triangle: the backend's lit count (from its byte) is
 *      at least the samples the truth is sure are lit and at most M minus those it is sure are
 *      hidden (sure: the crossing more than 1e-4 world units inside or outside the triangle's
 *      edges, and not within 1e-3 of either end, the start t = bias / (1 + bias): the receiver
 *      itself, izb_area.h; samples within 1e-2 of the point's own plane skipped);
 *  (e) the rectangle's pattern: the Hammersley set computed here in double, one sample in each of
 *      the M columns and M rows; the ellipse's the golden spiral (izb_soft.h's test) scaled;
 *  (f) tiny emitters differ from the hard shadow only near its edges (a smoke test of the limit);
 *  (g) the plane test is strict: a triangle through the receiver's own point hides no sample;
 *  (h) the cut-out UV of each hidden sample's own hit point (izb_soft_sample_uv on the area pair)
 *      equals the double barycentrics of the segment's hit.
 * Bad frames are test_soft_refusal.c's (core). IZB_AREA_SEEDS=N runs N seeds. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_area.h"
#include "izb_brute.h"
#include "izb_closed.h"
#include "ray_cast.h"
#include "mode_sweep.h"
#include "test.h"
#include "test_cube.h"
#include "test_rng.h"
#include "view.h"

#define DEFAULT_SEEDS 40
#define MAX_TRIS 160
#define MAX_W 36
#define MAX_H 28

/* ---- scenes ------------------------------------------------------------------------------------ */

typedef struct scene_gen {
    float xyz[9 * MAX_TRIS];
    int nt;
    float bmin[3], bmax[3];
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
    const int objects = 1 + (int)(rnd() * 8);
    for (int i = 0; i < objects; i++) {
        double c[3] = {rnd_in(-2.0, 2.0), rnd_in(0.05, 1.2), rnd_in(-2.0, 2.0)};
        const double kind = rnd();
        if (kind < 0.2) {
            c[1] = rnd_in(1.5, 2.2); /* high over the ground, small: a penumbra much wider than it */
            add_tri(g, c, rnd_in(0.05, 0.3), 1.0);
        } else if (kind < 0.55) {
            add_tri(g, c, rnd_in(0.1, 1.0), 1.0);
        } else if (kind < 0.7) {
            add_tri(g, c, rnd_in(0.2, 1.2), rnd_in(1e-4, 1e-2)); /* a sliver */
        } else if (g->nt + 12 <= MAX_TRIS) {
            const float cf[3] = {(float)c[0], (float)c[1] + 0.3f, (float)c[2]};
            g->nt = test_add_cube(g->xyz, g->nt, cf, (float)rnd_in(0.1, 0.4), false);
        }
    }
    for (int k = 0; k < 3; k++)
        g->bmin[k] = INFINITY, g->bmax[k] = -INFINITY;
    for (int i = 0; i < 3 * g->nt; i++)
        for (int k = 0; k < 3; k++)
            g->bmin[k] = fminf(g->bmin[k], g->xyz[3 * i + k]), g->bmax[k] = fmaxf(g->bmax[k], g->xyz[3 * i + k]);
}

static light gen_light(void)
{
    light l = {.type = LIGHT_SPOT, .cone_deg = (float)rnd_in(70, 110)};
    l.pos[0] = (float)rnd_in(-2, 2), l.pos[1] = (float)rnd_in(2.5, 5), l.pos[2] = (float)rnd_in(-2, 2);
    const double t[3] = {rnd_in(-1, 1), 0, rnd_in(-1, 1)};
    for (int k = 0; k < 3; k++)
        l.dir[k] = (float)(t[k] - l.pos[k]);
    return l;
}

static camera gen_camera(void)
{
    camera c = {.fovy = (float)rnd_in(40, 70), .yaw = (float)rnd_in(-180, 180), .pitch = (float)rnd_in(-80, -45)};
    const double back = rnd_in(5, 8);
    float fw[3];
    camera_forward(&c, fw);
    for (int k = 0; k < 3; k++)
        c.pos[k] = (float)(-fw[k] * back);
    c.pos[1] += 0.5f;
    return c;
}


/* the cull view the backend builds for an area frame (cpu/backend.c soft_frame) */
static izb_cull_view area_cull(const izb_recon *f, izb_cull mode, const izb_closed *cl)
{
    izb_cull_view cv = {.mode = mode, .comp = cl ? cl->comp : NULL, .boxes = cl ? cl->boxes : NULL,
                        .light_is_spot = 1, .light_reach = izb_area_reach(f)};
    izb_light_origin(f->light, cv.light_origin);
    return cv;
}

/* ---- (d) the truth: segments in world space, in double ----------------------------------------- */

/* The pattern computed here, independently of izb_area.h: the Hammersley set by the radical
 * inverse (digit by digit), or the golden-angle spiral by cos / sin, in [-1, 1]^2. */
static void pattern_double(int m, bool disk, double *ox, double *oy)
{
    const double golden = M_PI * (3 - sqrt(5.0));
    for (int j = 0; j < m; j++) {
        if (disk) {
            const double r = sqrt((j + 0.5) / m);
            ox[j] = r * cos(j * golden), oy[j] = r * sin(j * golden);
            continue;
        }
        double inv = 0, f = 0.5;
        for (int k = j; k > 0; k /= 2, f *= 0.5)
            inv += f * (k % 2);
        ox[j] = 2 * (j + 0.5) / m - 1;
        oy[j] = 2 * (inv + 0.5 / m) - 1;
    }
}

/* The emitter's samples in world space: the light's position plus offsets along its right and up
 * axes (the light matrix's rows 0 and 1, normalised). */
static void samples_world(const izb_recon *f, const light *l, double s[][3])
{
    double ax[2][3];
    for (int r = 0; r < 2; r++) {
        double n = 0;
        for (int k = 0; k < 3; k++)
            ax[r][k] = f->light[4 * k + r], n += ax[r][k] * ax[r][k];
        for (int k = 0; k < 3; k++)
            ax[r][k] /= sqrt(n);
    }
    double ox[IZB_MASK_MAX_BITS], oy[IZB_MASK_MAX_BITS];
    pattern_double(f->light_samples, f->light_disk == IZB_AREA_DISK, ox, oy);
    for (int j = 0; j < f->light_samples; j++)
        for (int k = 0; k < 3; k++)
            s[j][k] = l->pos[k] + 0.5 * f->light_size[0] * ox[j] * ax[0][k] + 0.5 * f->light_size[1] * oy[j] * ax[1][k];
}

/* The segment from p to s against triangle q: +1 sure hidden, -1 sure missed, 0 too close to call.
 * The segment starts at t0 = bias / (1 + bias) of its way (the IZB's per-sample bias, izb_area.h:
 * the receiver itself, not moved toward the light's centre). Sure: the crossing at least 1e-4
 * world units (about 200 float ulps at the scene's size) inside or outside every edge, and at
 * least 1e-3 world units from either end of the segment. */
static int segment_vs(const double p[3], const double s[3], const float *q)
{
    const double d[3] = {s[0] - p[0], s[1] - p[1], s[2] - p[2]};
    double t, u, v;
    if (!ray_plane_bary(p, d, q, &t, &u, &v)) return 0; /* (nearly) parallel: no call */
    double e[3][3], len[3];
    for (int k = 0; k < 3; k++) {
        const int a = (k + 1) % 3, b = (k + 2) % 3; /* the edge opposite vertex k */
        len[k] = 0;
        for (int c = 0; c < 3; c++)
            e[k][c] = (double)q[3 * b + c] - q[3 * a + c], len[k] += e[k][c] * e[k][c];
        len[k] = sqrt(len[k]);
    }
    const double cx = e[2][1] * e[1][2] - e[2][2] * e[1][1], cy = e[2][2] * e[1][0] - e[2][0] * e[1][2],
                 cz = e[2][0] * e[1][1] - e[2][1] * e[1][0];
    const double area2 = sqrt(cx * cx + cy * cy + cz * cz);
    const double w[3] = {1 - u - v, u, v};
    double in = INFINITY; /* the signed distance of the crossing to the nearest edge, > 0 inside */
    for (int k = 0; k < 3; k++)
        in = fmin(in, len[k] > 0 ? w[k] * area2 / len[k] : -INFINITY);
    const double dl = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), mt = 1e-3 / dl;
    const double t0 = (double)IZB_DEFAULT_BIAS / (1.0 + (double)IZB_DEFAULT_BIAS), m = 1e-4;
    if (t < t0 - mt || t > 1 + mt || in < -m) return -1;
    if (t > t0 + mt && t < 1 - mt && in > m) return 1;
    return 0;
}

static long truth_decided, truth_wrong;

static void check_truth(const scene_gen *g, const camera *cam, const light *l, const izb_recon *f, const float *depth,
                        const uint32_t *ids, const uint8_t *got, uint64_t seed)
{
    const int m = f->light_samples;
    double S[IZB_MASK_MAX_BITS][3];
    samples_world(f, l, S);
    int wrong = 0;
    for (int py = 0; py < f->height; py++)
        for (int px = 0; px < f->width; px++) {
            const int i = py * f->width + px;
            izb_point pt;
            if (izb_reconstruct(f, px, py, depth[i], &pt) != IZB_SAMPLE || ids[i] == IZB_NO_ID) continue;
            double o[3], dir[3], p[3];
            ray_of_pixel(cam, f, px, py, o, dir);
            for (int k = 0; k < 3; k++)
                p[k] = o[k] + depth[i] * dir[k];
            /* the own triangle's plane: samples within 1e-2 of it are skipped (below it is decided:
             * the IZB's receiver is not moved toward the light's centre, izb_area.h) */
            const float *q = g->xyz + 9 * (size_t)ids[i];
            double e1[3], e2[3], n[3];
            for (int k = 0; k < 3; k++)
                e1[k] = (double)q[3 + k] - q[k], e2[k] = (double)q[6 + k] - q[k];
            n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
            const double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            int sure_lit = 0, sure_hidden = 0;
            for (int j = 0; j < m; j++) {
                const double ls = (n[0] * (S[j][0] - p[0]) + n[1] * (S[j][1] - p[1]) + n[2] * (S[j][2] - p[2])) / nl;
                if (fabs(ls) < 1e-2) continue; /* at the point's horizon: along a coplanar neighbour */
                int verdict = -1;
                for (int t = 0; t < g->nt && verdict != 1; t++) {
                    if ((uint32_t)t == ids[i]) continue; /* a segment from a plane never meets it again */
                    const int v = segment_vs(p, S[j], g->xyz + 9 * t);
                    verdict = v == 1 ? 1 : v == 0 ? 0 : verdict;
                }
                sure_lit += verdict == -1, sure_hidden += verdict == 1;
            }
            /* the lit count from the byte: round(255 lit / M) is one to one for M <= 255 */
            const int lit = (int)floor(got[i] * (double)m / 255.0 + 0.5);
            truth_decided += sure_lit + sure_hidden;
            if (lit < sure_lit || lit > m - sure_hidden) {
                if (wrong++ < 3)
                    fprintf(stderr, "seed %llu pixel %d: %d of %d lit, truth: >= %d lit, >= %d hidden\n",
                            (unsigned long long)seed, i, lit, m, sure_lit, sure_hidden);
            }
        }
    truth_wrong += wrong;
}

/* ---- the seeds --------------------------------------------------------------------------------- */

static int seeds_box_matters, seeds_partial;

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
    f.light_size[0] = (float)rnd_in(0.05, 2.5);
    const double shape = rnd();
    f.light_size[1] = shape < 0.3 ? f.light_size[0] : (float)rnd_in(0.05, 2.5);
    f.light_disk = rnd() < 0.3 ? IZB_AREA_DISK : IZB_AREA_RECT;
    f.light_samples = rnd() < 0.5 ? 16 : 64;
    static float depth[MAX_W * MAX_H];
    static uint32_t ids[MAX_W * MAX_H];
    ray_cast_depth(&cam, &f, g.xyz, g.nt, depth, ids);

    CHECK(izb_set_scene(b1, g.xyz, g.nt) && izb_set_scene(b3, g.xyz, g.nt), "seed %llu: set_scene",
          (unsigned long long)seed);
    izb_recon fb = f;
    fb.bias = izb_settings_resolve((izb_settings){0}).bias;
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    static uint8_t want[3][2][MAX_W * MAX_H], unbounded[MAX_W * MAX_H], got[MAX_W * MAX_H];
    izb_closed cl;
    CHECK(izb_closed_find(g.xyz, g.nt, &cl), "seed %llu: closed analysis", (unsigned long long)seed);
    for (int c = 0; c < 3; c++) {
        const izb_cull_view cv = area_cull(&fb, (izb_cull)(IZB_CULL_AUTO + c), &cl);
        izb_brute_force_soft(&fb, depth, NULL, g.xyz, g.nt, &cv, true, want[c][0], pts, pix);
        izb_brute_force_soft(&fb, depth, ids, g.xyz, g.nt, &cv, true, want[c][1], pts, pix);
    }
    const izb_cull_view off = area_cull(&fb, IZB_CULL_OFF, NULL);
    izb_brute_force_soft(&fb, depth, NULL, g.xyz, g.nt, &off, false, unbounded, pts, pix);
    for (int i = 0; i < W * H; i++)
        if (want[0][0][i] > 0 && want[0][0][i] < 255) {
            seeds_partial++;
            break;
        }

    /* (b) the penumbra boxes hold every hit; culling auto is exact */
    int first, bad = mismatching(want[2][0], unbounded, W * H, &first);
    CHECK(bad == 0, "seed %llu: brute force with penumbra boxes vs unbounded: %d pixels differ (first %d: %d vs %d)",
          (unsigned long long)seed, bad, first, first >= 0 ? want[2][0][first] : 0, first >= 0 ? unbounded[first] : 0);
    bad = mismatching(want[0][0], want[2][0], W * H, &first);
    CHECK(bad == 0, "seed %llu: culling auto vs off: %d pixels differ", (unsigned long long)seed, bad);
    {
        /* (b'') a large bias: the boxes must grow from the receiver's own key, (1 + bias) times
         * nearer than its binned one (izb_area_tri_setup lowers z_min by bias |z_min|) */
        izb_recon fz = fb;
        fz.bias = 0.05f;
        static uint8_t zb[MAX_W * MAX_H], zu[MAX_W * MAX_H];
        izb_brute_force_soft(&fz, depth, NULL, g.xyz, g.nt, &off, true, zb, pts, pix);
        izb_brute_force_soft(&fz, depth, NULL, g.xyz, g.nt, &off, false, zu, pts, pix);
        bad = mismatching(zb, zu, W * H, &first);
        CHECK(bad == 0, "seed %llu: bias 0.05, penumbra boxes vs unbounded: %d pixels differ",
              (unsigned long long)seed, bad);
    }

    /* (c) size 0 is the hard spot, byte for byte, whatever M and the shape say */
    izb_recon f0 = f;
    f0.light_size[0] = f0.light_size[1] = 0.0f;
    f0.light_samples = seed % 2 ? 0 : 64;
    izb_recon f0b = f0;
    f0b.bias = fb.bias;
    static uint8_t hard[MAX_W * MAX_H];
    {
        const izb_cull_view cv = area_cull(&f0b, IZB_CULL_AUTO, &cl);
        izb_brute_force(&f0b, depth, NULL, g.xyz, g.nt, &cv, hard, pts, pix);
    }
    memset(got, 7, sizeof got);
    CHECK(izb_shade_arrays(b1, &f0, NULL, depth, got, NULL), "seed %llu: size 0", (unsigned long long)seed);
    bad = mismatching(got, hard, W * H, &first);
    CHECK(bad == 0, "seed %llu: size 0 vs the hard brute force: %d pixels differ", (unsigned long long)seed, bad);
    {
        int shadow_soft = 0, shadow_hard = 0;
        for (int i = 0; i < W * H; i++)
            shadow_soft += want[2][0][i] < 255, shadow_hard += hard[i] < 255;
        seeds_box_matters += shadow_soft > shadow_hard + 8;
    }

    /* (a) every mode, both thread counts, with and without ids */
    {
        char light_desc[96];
        snprintf(light_desc, sizeof light_desc, "M %d, %gx%g %s", f.light_samples, f.light_size[0],
                 f.light_size[1], f.light_disk ? "disk" : "rect");
        check_every_mode(b1, b3, &f, depth, ids, &want[0][0][0], sizeof want[0][0], seed, light_desc, g.nt);
    }

    /* (d) the truth, on every other seed (the double loops cost more than the rest) */
    if (seed % 2 == 0) {
        memset(got, 7, sizeof got);
        CHECK(izb_shade_arrays(b1, &f, NULL, depth, got, NULL), "seed %llu: truth frame", (unsigned long long)seed);
        check_truth(&g, &cam, &l, &f, depth, ids, got, seed);
    }
    izb_closed_free(&cl);
}

/* ---- (e) the pattern, (f) the limit ------------------------------------------------------------ */

static void check_pattern(void)
{
    for (int s = 0; s < 5; s++) {
        const int m = 16 << s;
        float ox[IZB_MASK_MAX_BITS], oy[IZB_MASK_MAX_BITS];
        double wx[IZB_MASK_MAX_BITS], wy[IZB_MASK_MAX_BITS];
        izb_area_pattern_rect(m, ox, oy);
        pattern_double(m, false, wx, wy);
        int col[IZB_MASK_MAX_BITS] = {0}, row[IZB_MASK_MAX_BITS] = {0};
        for (int j = 0; j < m; j++) {
            CHECK(ox[j] == wx[j] && oy[j] == wy[j], "M %d sample %d: (%g, %g), Hammersley (%g, %g)", m, j, ox[j], oy[j],
                  wx[j], wy[j]);
            const int cx = (int)floor((ox[j] + 1) * 0.5 * m), cy = (int)floor((oy[j] + 1) * 0.5 * m);
            if (cx >= 0 && cx < m && cy >= 0 && cy < m) col[cx]++, row[cy]++;
        }
        for (int k = 0; k < m; k++)
            CHECK(col[k] == 1 && row[k] == 1, "M %d: column %d holds %d samples, row %d holds %d", m, k, col[k], k,
                  row[k]);
    }
    /* izb_area_light_make: the samples' A-space positions are the world offsets times the rows' norms */
    const light l = {.type = LIGHT_SPOT, .pos = {0.3f, 3, -0.2f}, .dir = {0.1f, -1, 0.2f}, .cone_deg = 80};
    const camera cam = {.pos = {0, 5, 5}, .pitch = -45};
    const float bmin[3] = {-3, 0, -3}, bmax[3] = {3, 2, 3};
    for (int disk = 0; disk < 2; disk++) {
        izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, 8, 8);
        f.light_size[0] = 1.5f, f.light_size[1] = 0.5f, f.light_samples = 64, f.light_disk = disk;
        izb_soft_light L;
        izb_area_light_make(&f, &L);
        double S[IZB_MASK_MAX_BITS][3];
        samples_world(&f, &l, S);
        for (int j = 0; j < L.m; j++) {
            float c[4];
            const float sw[3] = {(float)S[j][0], (float)S[j][1], (float)S[j][2]};
            izb_transform(f.light, sw, c);
            CHECK(fabs(c[0] - L.dx[j]) < 1e-5 && fabs(c[1] - L.dy[j]) < 1e-5 && fabs(c[3]) < 1e-5,
                  "%s sample %d: A-space (%g, %g, %g), izb_area_light_make (%g, %g, 0)", disk ? "disk" : "rect", j,
                  c[0], c[1], c[3], L.dx[j], L.dy[j]);
        }
    }
}

/* A triangle through the receiver hides nothing (the plane test is strict, and the bias asks for
 * t > beta / (1 + beta)): V_0 put exactly at the A-space point izb_area_pair_setup makes of the
 * binned (x, y, z), so n . (V_0 - p) is exactly 0, whatever the other vertices and the samples; a
 * non-strict side test (with bias 0) or a bias of the wrong sign would hide every sample in front. */
static void check_strict(void)
{
    const light l = {.type = LIGHT_SPOT, .pos = {0.3f, 3, -0.2f}, .dir = {0.1f, -1, 0.2f}, .cone_deg = 80};
    const camera cam = {.pos = {0, 5, 5}, .pitch = -45};
    const float bmin[3] = {-3, 0, -3}, bmax[3] = {3, 2, 3};
    izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, 8, 8);
    f.light_size[0] = 2.0f, f.light_size[1] = 1.0f, f.light_samples = 64;
    const izb_bbox all = {-INFINITY, -INFINITY, INFINITY, INFINITY};
    int hidden = 0, set = 0;
    for (int c = 0; c < 2000; c++) {
        f.bias = c % 2 ? IZB_DEFAULT_BIAS : 0.0f;
        izb_soft_light L;
        izb_area_light_make(&f, &L);
        const float x = (float)rnd_in(-0.8, 0.8), y = (float)rnd_in(-0.8, 0.8), z = (float)rnd_in(-1.0, -0.2);
        const float w = -(1.0f + L.beta) / z;
        float v[3][4] = {{x * w, y * w, -1.0f, w}};
        for (int k = 1; k < 3; k++) {
            const float wk = (float)rnd_in(0.5, 4.0);
            v[k][0] = (float)rnd_in(-1, 1) * wk, v[k][1] = (float)rnd_in(-1, 1) * wk, v[k][2] = -1.0f, v[k][3] = wk;
        }
        izb_soft_tri t;
        if (!izb_area_tri_setup(v, 0.0f, &L, &all, false, &t)) continue;
        set++;
        izb_soft_pair pr;
        if (!izb_area_pair_setup(&t, x, y, z, &pr)) continue;
        for (int j = 0; j < L.m; j++)
            hidden += izb_soft_sample_hidden(&pr, t.n, L.dx[j], L.dy[j]);
    }
    CHECK(hidden == 0 && set > 1000, "triangles through the receiver hide %d samples (%d set up)", hidden, set);
}

/* The area pair's cut-out UV (izb_soft_sample_uv) against the barycentrics of the segment's hit in
 * double (ray_plane_bary in A-space: an affine map keeps barycentrics), for samples the predicate
 * hides and the double test puts well inside the triangle: a vertex's weight swapped or a sign
 * wrong fails. */
static void check_uv(void)
{
    const light l = {.type = LIGHT_SPOT, .pos = {0.3f, 3, -0.2f}, .dir = {0.1f, -1, 0.2f}, .cone_deg = 80};
    const camera cam = {.pos = {0, 5, 5}, .pitch = -45};
    const float bmin[3] = {-3, 0, -3}, bmax[3] = {3, 2, 3};
    izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, 8, 8);
    f.light_size[0] = 2.0f, f.light_size[1] = 1.5f, f.light_samples = 64;
    izb_soft_light L;
    izb_area_light_make(&f, &L);
    const izb_bbox all = {-INFINITY, -INFINITY, INFINITY, INFINITY};
    int checked = 0, wrong = 0;
    for (int c = 0; c < 3000; c++) {
        float v[3][4], q[9];
        for (int k = 0; k < 3; k++) {
            const float w = (float)rnd_in(1.0, 2.5);
            v[k][0] = (float)rnd_in(-0.6, 0.6) * w, v[k][1] = (float)rnd_in(-0.6, 0.6) * w, v[k][2] = -1.0f, v[k][3] = w;
            q[3 * k] = v[k][0], q[3 * k + 1] = v[k][1], q[3 * k + 2] = v[k][3];
        }
        const float x = (float)rnd_in(-0.5, 0.5), y = (float)rnd_in(-0.5, 0.5), z = (float)rnd_in(-0.4, -0.25);
        izb_soft_tri t;
        izb_soft_pair pr;
        if (!izb_area_tri_setup(v, 0.0f, &L, &all, false, &t) || !izb_area_pair_setup(&t, x, y, z, &pr)) continue;
        /* the receiver: z is its key times 1 + bias */
        const double w = -(1.0 + L.beta) / z, p[3] = {x * w, y * w, w};
        for (int j = 0; j < L.m; j++) {
            if (!izb_soft_sample_hidden(&pr, t.n, L.dx[j], L.dy[j])) continue;
            const double d[3] = {L.dx[j] - p[0], L.dy[j] - p[1], -p[2]};
            double tt, u, bv;
            if (!ray_plane_bary(p, d, q, &tt, &u, &bv) || fmin(fmin(u, bv), 1 - u - bv) < 1e-3) continue;
            float uv[6], gu, gv;
            for (int a = 0; a < 6; a++) uv[a] = (float)rnd_in(-2.0, 3.0);
            izb_soft_sample_uv(&pr, L.dx[j], L.dy[j], uv, &gu, &gv);
            const double b0 = 1.0 - u - bv, wu = b0 * uv[0] + u * uv[2] + bv * uv[4], wv = b0 * uv[1] + u * uv[3] + bv * uv[5];
            checked++;
            if (!(fabs(gu - wu) < 1e-3 && fabs(gv - wv) < 1e-3) && wrong++ < 5)
                fprintf(stderr, "case %d sample %d: uv (%g, %g), double (%g, %g)\n", c, j, gu, gv, wu, wv);
        }
    }
    CHECK(wrong == 0 && checked > 1000, "area cut-out UV vs double barycentrics: %d of %d wrong", wrong, checked);
}

/* tiny emitters: the hard spot's mask but for pixels whose neighbours differ in it (its edges) */
static void check_limit(izb_backend *b)
{
    int differ = 0, total = 0;
    for (int c = 0; c < 6; c++) {
        static scene_gen g;
        gen_scene(&g);
        const light l = gen_light();
        const camera cam = gen_camera();
        izb_recon f = izb_frame_make(&cam, &l, g.bmin, g.bmax, 32, 24);
        static float depth[32 * 24];
        static uint32_t ids[32 * 24];
        static uint8_t hard[32 * 24], soft[32 * 24];
        ray_cast_depth(&cam, &f, g.xyz, g.nt, depth, ids);
        CHECK(izb_set_scene(b, g.xyz, g.nt), "limit %d: set_scene", c);
        CHECK(izb_shade_arrays_ids(b, &f, NULL, depth, ids, hard, NULL), "limit %d: hard", c);
        f.light_size[0] = f.light_size[1] = 1e-4f, f.light_samples = 16;
        CHECK(izb_shade_arrays_ids(b, &f, NULL, depth, ids, soft, NULL), "limit %d: tiny area", c);
        for (int y = 1; y < 23; y++)
            for (int x = 1; x < 31; x++) {
                const int i = y * 32 + x;
                const bool edge = hard[i] != hard[i - 1] || hard[i] != hard[i + 1] || hard[i] != hard[i - 32] ||
                                  hard[i] != hard[i + 32];
                if (edge) continue;
                total++;
                differ += (hard[i] == 0) != (soft[i] < 128);
            }
    }
    CHECK(differ <= total / 500, "tiny emitter vs the hard spot: %d of %d pixels away from edges differ", differ, total);
}

int main(void)
{
    const char *env = getenv("IZB_AREA_SEEDS");
    const int seeds = env ? atoi(env) : DEFAULT_SEEDS;
    izb_backend *b1 = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1});
    izb_backend *b3 = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 3});
    if (!b1 || !b3) TEST_SKIP("no CPU backend");
    for (int s = 0; s < seeds; s++)
        run_seed(b1, b3, (uint64_t)s);
    CHECK(seeds < 20 || seeds_box_matters >= seeds / 10, "penumbrae wider than the hard shadow on only %d of %d seeds",
          seeds_box_matters, seeds);
    CHECK(seeds < 20 || seeds_partial >= seeds / 3, "partial shadow on only %d of %d seeds", seeds_partial, seeds);
    CHECK(truth_wrong == 0, "truth: %ld pixels outside the sure bounds", truth_wrong);
    CHECK(seeds < 20 || truth_decided > 1000, "truth: only %ld samples decided", truth_decided);
    printf("%d seeds: penumbra wider than the hard shadow on %d, partial shadow on %d; truth decided %ld samples\n",
           seeds, seeds_box_matters, seeds_partial, truth_decided);
    check_pattern();
    check_strict();
    check_uv();
    check_limit(b1);
    izb_destroy(b1);
    izb_destroy(b3);
    return test_done();
}
