/* test_differential.c — seeded differential runs of the CPU backend against a brute force, over
 * random scenes (issue 23 item 2). Each seed builds a scene of random meshes — closed cubes,
 * tetrahedra and icospheres (outward), open cards, inside-out closed meshes, nested closed meshes,
 * coplanar pairs, slivers — in random triangle order with the ground plane first or last; a random
 * light (directional, grazing directional, spot outside every mesh, spot inside a closed mesh, spot
 * on a surface); a random camera looking at the scene (camera_fit_clip over the bounds) and a small
 * frame (24x16 .. 64x48). Depth and primitive ids come from a brute-force ray cast (nearest hit per
 * pixel, in double, linear view depth). Checked per seed:
 *  (a) the backend's mask equals the brute force of fuzz_izb.c (every pixel reconstructed, every
 *      point against every triangle, izb_may_cull over izb_closed_find) for kernel 1/2 x radix /
 *      atomic x cull auto / on / off (grid adaptive, or a random one on some seeds);
 *  (b) with ids (izb_shade_arrays_ids) it equals the brute force that skips the hits
 *      izb_hit_is_own calls the point's own;
 *  (c) cull auto vs cull off: where the two brute forces agree, the two backend masks agree;
 *  (d) izb_update_scene after a random rigid motion equals a fresh izb_set_scene of the moved
 *      triangles, bit for bit (and the brute force), with a spot light placed at the moved
 *      position of a closed mesh, so that it is outside that mesh before and inside after (auto
 *      culling's decision changes; counted and required).
 * Nothing is printed for a seed unless it fails: then the seed and what differed (replay with
 * IZB_DIFF_SEED=K). IZB_DIFF_SEEDS=N runs seeds 0..N-1 (default DEFAULT_SEEDS: about 10 s on one core). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_closed.h"
#include "izb_brute.h"
#include "test.h"
#include "test_cube.h"
#include "test_raycast.h"
#include "test_rng.h"
#include "view.h"

#define DEFAULT_SEEDS 1500
#define MAX_TRIS 1200
#define MAX_W 64
#define MAX_H 48
#define MAX_CLOSED 16

typedef struct scene_gen {
    float xyz[9 * MAX_TRIS];
    int nt;
    float closed_center[MAX_CLOSED][3]; /* centers of closed meshes (a spot there is inside) */
    int n_closed;
    float bmin[3], bmax[3];
} scene_gen;

/* ---- random meshes --------------------------------------------------------------------------- */

typedef struct xform {
    double r[3][3];
    double c[3];
    double s;
} xform;

static void rand_rotation(double r[3][3])
{
    /* a random unit quaternion */
    double q[4], n = 0;
    for (int k = 0; k < 4; k++)
        q[k] = rnd_in(-1, 1), n += q[k] * q[k];
    n = sqrt(n);
    if (n < 1e-6) q[0] = 1, n = 1;
    const double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - z * w), r[0][2] = 2 * (x * z + y * w);
    r[1][0] = 2 * (x * y + z * w), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - x * w);
    r[2][0] = 2 * (x * z - y * w), r[2][1] = 2 * (y * z + x * w), r[2][2] = 1 - 2 * (x * x + y * y);
}

/* the same input vertex always gives the same output bits: shared vertices stay shared */
static void apply(const xform *t, const double p[3], float out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = (float)(t->c[i] + t->s * (t->r[i][0] * p[0] + t->r[i][1] * p[1] + t->r[i][2] * p[2]));
}

static void add_tri(scene_gen *g, const xform *t, const double a[3], const double b[3], const double c[3], bool flip)
{
    if (g->nt >= MAX_TRIS) return;
    float *o = g->xyz + 9 * g->nt++;
    apply(t, a, o);
    apply(t, flip ? c : b, o + 3);
    apply(t, flip ? b : c, o + 6);
}

/* a closed mesh around the origin (unit size), outward, or inside out when flip: kind 0 cube,
 * 1 tetrahedron, 2 icosphere (one subdivision) */
static void add_closed(scene_gen *g, const xform *t, int kind, bool flip)
{
    if (kind == 0) {
        float tmp[12 * 9];
        const float c0[3] = {0, 0, 0};
        test_add_cube(tmp, 0, c0, 1.0f, flip);
        for (int i = 0; i < 12; i++) {
            double p[3][3];
            for (int k = 0; k < 9; k++)
                p[k / 3][k % 3] = tmp[9 * i + k];
            add_tri(g, t, p[0], p[1], p[2], false);
        }
        return;
    }
    if (kind == 1) {
        static const double v[4][3] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
        static const int f[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
        for (int i = 0; i < 4; i++) {
            const double *a = v[f[i][0]], *b = v[f[i][1]], *c = v[f[i][2]];
            double e1[3], e2[3], n[3], cen[3];
            for (int k = 0; k < 3; k++)
                e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], cen[k] = a[k] + b[k] + c[k];
            n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2],
            n[2] = e1[0] * e2[1] - e1[1] * e2[0];
            const bool in = n[0] * cen[0] + n[1] * cen[1] + n[2] * cen[2] < 0;
            add_tri(g, t, a, b, c, in != flip);
        }
        return;
    }
    const double p = (1 + sqrt(5.0)) / 2;
    const double v[12][3] = {{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0}, {0, -1, p}, {0, 1, p},
                             {0, -1, -p}, {0, 1, -p}, {p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1}};
    static const int f[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                                 {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                                 {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    for (int i = 0; i < 20; i++) {
        double a[3], b[3], c[3], ab[3], bc[3], ca[3];
        for (int k = 0; k < 3; k++)
            a[k] = v[f[i][0]][k], b[k] = v[f[i][1]][k], c[k] = v[f[i][2]][k];
        /* midpoints from the unordered pair (min first): the neighbour gets the same bits */
        const double *pairs[3][2] = {{a, b}, {b, c}, {c, a}};
        double *mids[3] = {ab, bc, ca};
        for (int m = 0; m < 3; m++) {
            const double *x = pairs[m][0], *y = pairs[m][1];
            if (memcmp(x, y, sizeof a) > 0) {
                const double *s = x;
                x = y, y = s;
            }
            double n = 0;
            for (int k = 0; k < 3; k++)
                mids[m][k] = x[k] + y[k], n += mids[m][k] * mids[m][k];
            n = sqrt(n);
            for (int k = 0; k < 3; k++)
                mids[m][k] = mids[m][k] / n * sqrt(1 + p * p);
        }
        /* orientation: outward when the normal points away from the origin */
        double e1[3], e2[3], n[3];
        for (int k = 0; k < 3; k++)
            e1[k] = b[k] - a[k], e2[k] = c[k] - a[k];
        n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        const bool in = n[0] * (a[0] + b[0] + c[0]) + n[1] * (a[1] + b[1] + c[1]) + n[2] * (a[2] + b[2] + c[2]) < 0;
        const bool fl = in != flip;
        add_tri(g, t, a, ab, ca, fl);
        add_tri(g, t, ab, b, bc, fl);
        add_tri(g, t, ca, bc, c, fl);
        add_tri(g, t, ab, bc, ca, fl);
    }
}

static void rand_xform(xform *t, double s_lo, double s_hi)
{
    rand_rotation(t->r);
    t->s = rnd_in(s_lo, s_hi);
    t->c[0] = rnd_in(-3, 3), t->c[1] = rnd_in(0.3, 2.5), t->c[2] = rnd_in(-3, 3);
}

static void push_center(scene_gen *g, const xform *t)
{
    if (g->n_closed >= MAX_CLOSED) return;
    for (int k = 0; k < 3; k++)
        g->closed_center[g->n_closed][k] = (float)t->c[k];
    g->n_closed++;
}

static void gen_scene(scene_gen *g)
{
    g->nt = 0;
    g->n_closed = 0;
    const bool ground_first = rnd() < 0.5;
    const bool has_ground = rnd() < 0.85;
    const double G = 5.0;
    const double gq[4][3] = {{-G, 0, -G}, {-G, 0, G}, {G, 0, G}, {G, 0, -G}};
    xform id = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {0, 0, 0}, 1};
    const int n_obj = 2 + (int)(rnd() * 6);
    for (int o = 0; o < n_obj; o++) {
        xform t;
        const int what = (int)(rnd() * 8);
        switch (what) {
        case 0: case 1: case 2: /* closed, outward */
            rand_xform(&t, 0.2, 0.8);
            add_closed(g, &t, what, false);
            push_center(g, &t);
            break;
        case 3: /* open card: a quad */
        {
            rand_xform(&t, 0.3, 1.2);
            const double q[4][3] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
            add_tri(g, &t, q[0], q[1], q[2], false);
            add_tri(g, &t, q[0], q[2], q[3], false);
            break;
        }
        case 4: /* inside-out closed */
            rand_xform(&t, 0.2, 0.8);
            add_closed(g, &t, (int)(rnd() * 3), true);
            push_center(g, &t);
            break;
        case 5: /* nested closed: an outer and an inner one, same center */
        {
            rand_xform(&t, 0.5, 0.9);
            add_closed(g, &t, (int)(rnd() * 3), false);
            xform u = t;
            u.s = t.s * rnd_in(0.2, 0.5);
            rand_rotation(u.r);
            add_closed(g, &u, (int)(rnd() * 3), rnd() < 0.3);
            push_center(g, &t);
            break;
        }
        case 6: /* coplanar pair: two overlapping triangles in one plane */
        {
            rand_xform(&t, 0.3, 1.2);
            const double a[3][3] = {{-1, -1, 0}, {1, -1, 0}, {0, 1, 0}};
            const double b[3][3] = {{-0.5, -0.8, 0}, {1.2, 0.3, 0}, {-0.7, 0.9, 0}};
            add_tri(g, &t, a[0], a[1], a[2], rnd() < 0.5);
            add_tri(g, &t, b[0], b[1], b[2], rnd() < 0.5);
            break;
        }
        default: /* sliver: nearly collinear */
        {
            rand_xform(&t, 0.5, 2.0);
            const double e = pow(10.0, rnd_in(-6, -2));
            const double a[3] = {-1, 0, 0}, b[3] = {1, 0, 0}, c[3] = {rnd_in(-1.5, 1.5), e, 0};
            add_tri(g, &t, a, b, c, rnd() < 0.5);
            break;
        }
        }
    }
    /* random triangle order (each triangle's vertex order kept) */
    for (int i = g->nt - 1; i > 0; i--) {
        const int j = (int)(rnd() * (i + 1));
        float tmp[9];
        memcpy(tmp, g->xyz + 9 * i, sizeof tmp);
        memcpy(g->xyz + 9 * i, g->xyz + 9 * j, sizeof tmp);
        memcpy(g->xyz + 9 * j, tmp, sizeof tmp);
    }
    if (has_ground) {
        if (ground_first) {
            memmove(g->xyz + 18, g->xyz, (size_t)g->nt * 9 * sizeof(float));
            g->nt += 2;
            const int n0 = g->nt;
            g->nt = 0;
            add_tri(g, &id, gq[0], gq[1], gq[2], false);
            add_tri(g, &id, gq[0], gq[2], gq[3], false);
            g->nt = n0;
        } else {
            add_tri(g, &id, gq[0], gq[1], gq[2], false);
            add_tri(g, &id, gq[0], gq[2], gq[3], false);
        }
    }
}

static void bounds_of(const float *xyz, int nt, float bmin[3], float bmax[3])
{
    for (int k = 0; k < 3; k++)
        bmin[k] = INFINITY, bmax[k] = -INFINITY;
    for (int i = 0; i < 3 * nt; i++)
        for (int k = 0; k < 3; k++) {
            bmin[k] = fminf(bmin[k], xyz[3 * i + k]);
            bmax[k] = fmaxf(bmax[k], xyz[3 * i + k]);
        }
}

/* ---- light, camera, depth ------------------------------------------------------------------- */

enum { L_DIR, L_GRAZE, L_SPOT_OUT, L_SPOT_IN, L_SPOT_SURF, L_KINDS };
static const char *const light_kind_names[L_KINDS] = {"directional", "grazing", "spot-outside", "spot-inside",
                                                      "spot-surface"};

static void rand_unit(double d[3])
{
    double n;
    do {
        n = 0;
        for (int k = 0; k < 3; k++)
            d[k] = rnd_in(-1, 1), n += d[k] * d[k];
    } while (n > 1 || n < 1e-4);
    n = sqrt(n);
    for (int k = 0; k < 3; k++)
        d[k] /= n;
}

static light gen_light(const scene_gen *g, int kind)
{
    light l = {.type = LIGHT_DIRECTIONAL, .cone_deg = (float)rnd_in(50, 130)};
    float c[3];
    for (int k = 0; k < 3; k++)
        c[k] = 0.5f * (g->bmin[k] + g->bmax[k]);
    double d[3];
    switch (kind) {
    case L_DIR:
        rand_unit(d);
        l.dir[0] = (float)d[0], l.dir[1] = -(float)fabs(d[1]) - 0.2f, l.dir[2] = (float)d[2];
        break;
    case L_GRAZE: {
        const double a = rnd_in(0, 2 * M_PI), up = rnd_in(0.01, 1.0) * M_PI / 180;
        l.dir[0] = (float)(cos(a) * cos(up)), l.dir[1] = (float)-sin(up), l.dir[2] = (float)(sin(a) * cos(up));
        break;
    }
    case L_SPOT_OUT: {
        rand_unit(d);
        d[1] = fabs(d[1]) + 0.3;
        const float r = 1.5f * fmaxf(g->bmax[0] - g->bmin[0], g->bmax[2] - g->bmin[2]);
        l.type = LIGHT_SPOT;
        for (int k = 0; k < 3; k++)
            l.pos[k] = c[k] + r * (float)d[k], l.dir[k] = -(float)d[k];
        break;
    }
    case L_SPOT_IN:
    case L_SPOT_SURF:
        l.type = LIGHT_SPOT;
        rand_unit(d);
        for (int k = 0; k < 3; k++)
            l.dir[k] = (float)d[k];
        if (kind == L_SPOT_IN && g->n_closed > 0) {
            memcpy(l.pos, g->closed_center[(int)(rnd() * g->n_closed)], sizeof l.pos);
        } else { /* the centroid or a vertex of a random triangle */
            const float *t = g->xyz + 9 * (int)(rnd() * g->nt);
            if (rnd() < 0.7)
                for (int k = 0; k < 3; k++)
                    l.pos[k] = (t[k] + t[3 + k] + t[6 + k]) / 3.0f;
            else
                memcpy(l.pos, t + 3 * (int)(rnd() * 3), sizeof l.pos);
        }
        break;
    }
    return l;
}

static camera gen_camera(const float bmin[3], const float bmax[3])
{
    double d[3];
    rand_unit(d);
    d[1] = fabs(d[1]) + 0.15;
    const double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    float c[3], ext = 0;
    for (int k = 0; k < 3; k++)
        c[k] = 0.5f * (bmin[k] + bmax[k]), ext = fmaxf(ext, bmax[k] - bmin[k]);
    const double r = ext * rnd_in(0.7, 1.4);
    camera cam = {.fovy = (float)rnd_in(40, 80)};
    for (int k = 0; k < 3; k++)
        cam.pos[k] = c[k] + (float)(r * d[k] / n);
    /* look at the center (plus a little jitter): forward = -d */
    const double fx = -d[0] / n + rnd_in(-0.1, 0.1), fy = -d[1] / n + rnd_in(-0.1, 0.1), fz = -d[2] / n;
    const double fl = sqrt(fx * fx + fy * fy + fz * fz);
    cam.pitch = (float)(asin(fy / fl) * 180 / M_PI);
    cam.yaw = (float)(atan2(fx, -fz) * 180 / M_PI);
    camera_fit_clip(&cam, bmin, bmax);
    return cam;
}

/* ---- the brute force (tests/izb_brute.h, shared with fuzz_izb.c) ------------------------------ */

static void brute_force(const izb_recon *f, const float *depth, const uint32_t *ids, const float *xyz, int nt,
                        const izb_cull_view *cull, uint8_t *mask)
{
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    izb_brute_force(f, depth, ids, xyz, nt, cull, mask, pts, pix);
}

/* the brute force for cull mode `mode` (resolved settings' bias, as the backend) */
static void brute_mode(const izb_recon *f, const float *depth, const uint32_t *ids, const float *xyz, int nt,
                       const izb_closed *cl, izb_cull mode, float bias, uint8_t *mask)
{
    const izb_settings rs = izb_settings_resolve((izb_settings){.cull = mode, .bias = bias});
    izb_recon fb = *f;
    fb.bias = rs.bias;
    izb_cull_view cv = {.mode = rs.cull, .comp = cl->comp, .boxes = cl->boxes, .light_is_spot = fb.light_is_spot};
    if (fb.light_is_spot) izb_light_origin(fb.light, cv.light_origin);
    brute_force(&fb, depth, ids, xyz, nt, &cv, mask);
}

/* ---- the checks ------------------------------------------------------------------------------- */

static long comparisons; /* pixel comparisons made, over all seeds */

/* mismatching pixels of a vs b (0 = shadow, else lit); the first one reported */
static int diff_masks(const uint8_t *a, const uint8_t *b, int W, int H, uint64_t seed, const char *what)
{
    int bad = 0;
    for (int i = 0; i < W * H; i++) {
        comparisons++;
        if ((a[i] == 0) != (b[i] == 0)) {
            if (bad == 0)
                fprintf(stderr, "seed %llu: %s: pixel %d (%d, %d) of %dx%d: %d vs %d\n", (unsigned long long)seed,
                        what, i, i % W, i / W, W, H, a[i], b[i]);
            bad++;
        }
    }
    return bad;
}

static int seeds_mixed, seeds_cull_changed, seeds_own_differs;

static void run_seed(izb_backend *b, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!rng_state) rng_state = 1;
    for (int k = 0; k < 4; k++)
        (void)rnd();
    static scene_gen g;
    gen_scene(&g);
    bounds_of(g.xyz, g.nt, g.bmin, g.bmax);
    const int lk = (int)(rnd() * L_KINDS);
    const light l = gen_light(&g, lk);
    const camera cam = gen_camera(g.bmin, g.bmax);
    const int W = 24 + (int)(rnd() * (MAX_W - 24 + 1)), H = 16 + (int)(rnd() * (MAX_H - 16 + 1));
    const izb_recon f = izb_frame_make(&cam, &l, g.bmin, g.bmax, W, H);
    static float depth[MAX_W * MAX_H];
    static uint32_t ids[MAX_W * MAX_H];
    test_ray_cast(&cam, &f, g.xyz, g.nt, depth, ids);

    char what[256];
    const char *lname = light_kind_names[lk];
    CHECK(izb_set_scene(b, g.xyz, g.nt), "seed %llu: set_scene %d triangles", (unsigned long long)seed, g.nt);
    izb_closed cl;
    CHECK(izb_closed_find(g.xyz, g.nt, &cl), "seed %llu: closed analysis", (unsigned long long)seed);

    static uint8_t want[4][MAX_W * MAX_H], want_ids[4][MAX_W * MAX_H], got[4][MAX_W * MAX_H], m[MAX_W * MAX_H];
    /* the default bias, or a tiny one on some seeds (acne that ids must remove: (b) bites) */
    const float bias = rnd() < 0.5 ? 0.0f : (float)pow(10.0, rnd_in(-8, -5));
    for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c++) {
        brute_mode(&f, depth, NULL, g.xyz, g.nt, &cl, (izb_cull)c, bias, want[c]);
        brute_mode(&f, depth, ids, g.xyz, g.nt, &cl, (izb_cull)c, bias, want_ids[c]);
    }
    const bool rand_grid = rnd() < 0.25;
    const int gw = 1 + (int)(rnd() * 20), gh = 1 + (int)(rnd() * 20);
    /* (a) every kernel x binning x cull without ids; (b) a random pair with ids */
    for (int k = IZB_KERNEL1; k <= IZB_KERNEL2; k++)
        for (int bn = IZB_BINNING_RADIX; bn <= IZB_BINNING_ATOMIC; bn++)
            for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c++) {
                izb_settings s = {.kernel = (izb_kernel)k, .binning = (izb_binning)bn, .cull = (izb_cull)c, .bias = bias};
                if (rand_grid) s.grid_w = gw, s.grid_h = gh;
                snprintf(what, sizeof what, "(a) kernel%d %s cull %s%s bias %g, %s light, %d tris", k,
                         izb_binning_names[bn], izb_cull_names[c], rand_grid ? " random grid" : "", bias, lname, g.nt);
                CHECK(izb_shade_arrays(b, &f, &s, depth, m, NULL), "seed %llu: %s: shade failed",
                      (unsigned long long)seed, what);
                CHECK(diff_masks(m, want[c], W, H, seed, what) == 0, "seed %llu: %s: backend != brute force",
                      (unsigned long long)seed, what);
                if (k == IZB_KERNEL1 && bn == IZB_BINNING_RADIX) memcpy(got[c], m, (size_t)W * H);

                snprintf(what, sizeof what, "(b) ids kernel%d %s cull %s%s bias %g, %s light, %d tris", k,
                         izb_binning_names[bn], izb_cull_names[c], rand_grid ? " random grid" : "", bias, lname, g.nt);
                CHECK(izb_shade_arrays_ids(b, &f, &s, depth, ids, m, NULL), "seed %llu: %s: shade failed",
                      (unsigned long long)seed, what);
                CHECK(diff_masks(m, want_ids[c], W, H, seed, what) == 0,
                      "seed %llu: %s: backend != brute force skipping own hits", (unsigned long long)seed, what);
            }
    if (memcmp(want[IZB_CULL_AUTO], want_ids[IZB_CULL_AUTO], (size_t)W * H) != 0) seeds_own_differs++;

    /* (c) auto vs off where the brute forces agree */
    {
        int bad = 0;
        for (int i = 0; i < W * H; i++) {
            if ((want[IZB_CULL_AUTO][i] == 0) != (want[IZB_CULL_OFF][i] == 0)) continue;
            comparisons++;
            if ((got[IZB_CULL_AUTO][i] == 0) != (got[IZB_CULL_OFF][i] == 0)) {
                if (!bad)
                    fprintf(stderr, "seed %llu: (c) pixel %d: auto %d, off %d, both brute forces %d\n",
                            (unsigned long long)seed, i, got[IZB_CULL_AUTO][i], got[IZB_CULL_OFF][i],
                            want[IZB_CULL_AUTO][i]);
                bad++;
            }
        }
        CHECK(bad == 0, "seed %llu: (c) cull auto and off differ on %d pixels where they must agree (%s light)",
              (unsigned long long)seed, bad, lname);
    }
    /* both shadow and lit sample points? */
    {
        int sh = 0, lit = 0;
        for (int i = 0; i < W * H; i++) {
            izb_point p;
            if (izb_reconstruct(&f, i % W, i / W, depth[i], &p) != IZB_SAMPLE) continue;
            if (want[IZB_CULL_AUTO][i]) lit++;
            else sh++;
        }
        if (sh > 0 && lit > 0) seeds_mixed++;
    }
    izb_closed_free(&cl);

    /* (d) a rigid motion: update vs fresh set_scene; a spot light where a closed mesh moves to */
    static float moved[9 * MAX_TRIS];
    double R[3][3], T[3];
    rand_rotation(R);
    {
        double d[3];
        rand_unit(d);
        const double len = rnd_in(3.0, 5.0);
        for (int k = 0; k < 3; k++)
            T[k] = d[k] * len;
    }
    for (int i = 0; i < 3 * g.nt; i++) {
        const float *p = g.xyz + 3 * i;
        for (int r = 0; r < 3; r++)
            moved[3 * i + r] = (float)(T[r] + R[r][0] * p[0] + R[r][1] * p[1] + R[r][2] * p[2]);
    }
    light lm = l;
    if (g.n_closed > 0 && rnd() < 0.7) {
        const float *c = g.closed_center[(int)(rnd() * g.n_closed)];
        lm.type = LIGHT_SPOT;
        for (int r = 0; r < 3; r++)
            lm.pos[r] = (float)(T[r] + R[r][0] * c[0] + R[r][1] * c[1] + R[r][2] * c[2]);
        double d[3];
        rand_unit(d);
        for (int r = 0; r < 3; r++)
            lm.dir[r] = (float)d[r];
    }
    float mmin[3], mmax[3], umin[3], umax[3];
    bounds_of(moved, g.nt, mmin, mmax);
    for (int k = 0; k < 3; k++) /* one box for both poses, as an animated scene's */
        umin[k] = fminf(mmin[k], g.bmin[k]), umax[k] = fmaxf(mmax[k], g.bmax[k]);
    const camera cam0 = gen_camera(umin, umax);
    const camera cam1 = rnd() < 0.5 ? cam0 : gen_camera(mmin, mmax);
    const izb_recon f0 = izb_frame_make(&cam0, &lm, umin, umax, W, H);
    const izb_recon f1 = izb_frame_make(&cam1, &lm, umin, umax, W, H);
    static float depth0[MAX_W * MAX_H], depth1[MAX_W * MAX_H];
    static uint32_t ids0[MAX_W * MAX_H], ids1[MAX_W * MAX_H];
    test_ray_cast(&cam0, &f0, g.xyz, g.nt, depth0, ids0);
    test_ray_cast(&cam1, &f1, moved, g.nt, depth1, ids1);
    izb_closed cl1;
    CHECK(izb_closed_find(moved, g.nt, &cl1), "seed %llu: closed analysis (moved)", (unsigned long long)seed);
    /* did auto's decision change for some triangle between the poses? */
    if (f0.light_is_spot) {
        izb_closed cl0;
        if (izb_closed_find(g.xyz, g.nt, &cl0)) {
            izb_cull_view v0 = {.mode = IZB_CULL_AUTO, .comp = cl0.comp, .boxes = cl0.boxes, .light_is_spot = 1};
            izb_cull_view v1 = {.mode = IZB_CULL_AUTO, .comp = cl1.comp, .boxes = cl1.boxes, .light_is_spot = 1};
            izb_light_origin(f0.light, v0.light_origin);
            izb_light_origin(f1.light, v1.light_origin);
            bool changed = false;
            for (int t = 0; t < g.nt; t++)
                changed |= izb_may_cull(&v0, (uint32_t)t) != izb_may_cull(&v1, (uint32_t)t);
            seeds_cull_changed += changed;
            izb_closed_free(&cl0);
        }
    }
    static uint8_t mu[MAX_W * MAX_H], mf[MAX_W * MAX_H], wb[MAX_W * MAX_H];
    for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c++) {
        izb_settings s = {.kernel = rnd() < 0.5 ? IZB_KERNEL1 : IZB_KERNEL2,
                          .binning = rnd() < 0.5 ? IZB_BINNING_RADIX : IZB_BINNING_ATOMIC, .cull = (izb_cull)c, .bias = bias};
        const bool use_ids = rnd() < 0.5;
        snprintf(what, sizeof what, "(d) update kernel%d %s cull %s%s, %s light moved to %s", s.kernel,
                 izb_binning_names[s.binning], izb_cull_names[c], use_ids ? " ids" : "", lname,
                 lm.type == LIGHT_SPOT ? "spot" : "directional");
        CHECK(izb_set_scene(b, g.xyz, g.nt), "seed %llu: %s: set_scene", (unsigned long long)seed, what);
        CHECK(izb_shade_arrays_ids(b, &f0, &s, depth0, use_ids ? ids0 : NULL, mu, NULL), "seed %llu: %s: frame 0",
              (unsigned long long)seed, what);
        CHECK(izb_update_scene(b, moved, g.nt), "seed %llu: %s: update_scene", (unsigned long long)seed, what);
        CHECK(izb_shade_arrays_ids(b, &f1, &s, depth1, use_ids ? ids1 : NULL, mu, NULL), "seed %llu: %s: frame 1",
              (unsigned long long)seed, what);
        CHECK(izb_set_scene(b, moved, g.nt), "seed %llu: %s: fresh set_scene", (unsigned long long)seed, what);
        CHECK(izb_shade_arrays_ids(b, &f1, &s, depth1, use_ids ? ids1 : NULL, mf, NULL), "seed %llu: %s: fresh",
              (unsigned long long)seed, what);
        comparisons += W * H;
        int bad = 0, first = -1;
        for (int i = 0; i < W * H; i++)
            if (mu[i] != mf[i]) bad++, first = first < 0 ? i : first;
        CHECK(bad == 0, "seed %llu: %s: update != fresh set_scene on %d pixels (first %d: %d vs %d)",
              (unsigned long long)seed, what, bad, first, first >= 0 ? mu[first] : 0, first >= 0 ? mf[first] : 0);
        brute_mode(&f1, depth1, use_ids ? ids1 : NULL, moved, g.nt, &cl1, (izb_cull)c, bias, wb);
        CHECK(diff_masks(mu, wb, W, H, seed, what) == 0, "seed %llu: %s: updated backend != brute force",
              (unsigned long long)seed, what);
    }
    izb_closed_free(&cl1);
}

int main(void)
{
    /* one worker thread by default: on a loaded machine OpenMP's spinning waits cost more than the
     * tiny frames' work (IZB_DIFF_THREADS=N for more) */
    const char *th = getenv("IZB_DIFF_THREADS");
    const int threads = th && atoi(th) > 0 ? atoi(th) : 1;
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = threads, .quiet = true});
    CHECK(b != NULL, "no CPU backend");
    if (!b) return test_done();
    long n = DEFAULT_SEEDS, first = 0;
    const char *e = getenv("IZB_DIFF_SEEDS");
    if (e && atol(e) > 0) n = atol(e);
    e = getenv("IZB_DIFF_SEED");
    if (e) first = atol(e), n = 1;
    const int failed0 = test_failed_;
    for (long s = first; s < first + n; s++) {
        const int before = test_failed_;
        run_seed(b, (uint64_t)s);
        if (test_failed_ != before) fprintf(stderr, "seed %ld FAILED (replay: IZB_DIFF_SEED=%ld)\n", s, s);
    }
    izb_destroy(b);
    if (n >= 20) {
        CHECK(comparisons > 100000L * n / 20, "only %ld pixel comparisons over %ld seeds", comparisons, n);
        CHECK(seeds_mixed * 2 >= n, "only %d of %ld seeds have both shadowed and lit points", seeds_mixed, n);
        CHECK(seeds_cull_changed * 10 >= n, "auto culling's decision changed between poses in only %d of %ld seeds",
              seeds_cull_changed, n);
        CHECK(seeds_own_differs * 20 >= n, "ids changed the brute force's mask in only %d of %ld seeds",
              seeds_own_differs, n);
    }
    if (getenv("IZB_DIFF_VERBOSE"))
        printf("%ld seeds, %ld comparisons, %d mixed, %d cull changed, %d own differs, %d failed checks\n", n,
               comparisons, seeds_mixed, seeds_cull_changed, seeds_own_differs, test_failed_ - failed0);
    return test_done();
}
