/* differential_gen.h — the random cases of the differential runs (issue 23 item 2), one generator
 * for core_differential (tests/core/test_differential.c: the CPU backend against the brute force)
 * and cuda_differential (tests/cuda/test_cuda_differential.c: the CUDA backend against the CPU one).
 * A seed gives one case: a scene of random meshes — closed cubes, tetrahedra and icospheres
 * (outward), open cards, inside-out closed meshes, nested closed meshes, coplanar pairs, slivers —
 * in random triangle order with the ground plane first or last; a random light (directional,
 * grazing directional, spot outside every mesh, spot inside a closed mesh, spot on a surface); a
 * random camera looking at the scene (camera_fit_clip over the bounds) and a small frame
 * (24x16 .. 64x48), with depth and primitive ids from a ray cast (nearest hit per pixel, in double,
 * linear view depth); a bias and maybe a fixed grid; and a random rigid motion of the scene with a
 * spot light (on most seeds) where a closed mesh moves to, two cameras and the frames for
 * before and after, and per cull mode a kernel, binning and ids choice for the update check; and,
 * on some seeds whose light has a position (a spot outside, inside a closed mesh, on a surface's
 * centroid or at a vertex), a point light there: its six cube faces (izb_frame_make_faces) and a
 * kernel and binning per cull mode x ids (drawn after the rest, so a seed's case is as before); and
 * on some seeds with a spot, an area light there (izb_area.h; drawn last for the same reason).
 * Everything is drawn here, in one fixed order, before any check runs: the same seed gives the same
 * case in both tests (a seed failing on CUDA replays on the CPU), and a check added to one test
 * never shifts the other's cases. */
#ifndef DIFFERENTIAL_GEN_H
#define DIFFERENTIAL_GEN_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_area.h"
#include "izb_closed.h"
#include "ray_cast.h" /* ray_cast_depth: the camera's depth and ids */
#include "test_cube.h"
#include "test_rng.h"
#include "view.h"

#define MAX_TRIS 1200
#define MIN_W 24
#define MIN_H 16
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

static void add_tri(scene_gen *g, const xform *t, const double a[3], const double b[3], const double c[3],
                    bool flip)
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
    const double v[12][3] = {{-1, p, 0},  {1, p, 0},  {-1, -p, 0}, {1, -p, 0}, {0, -1, p},  {0, 1, p},
                             {0, -1, -p}, {0, 1, -p}, {p, 0, -1},  {p, 0, 1},  {-p, 0, -1}, {-p, 0, 1}};
    static const int f[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                 {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                 {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                 {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
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
        n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2],
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        const bool in =
            n[0] * (a[0] + b[0] + c[0]) + n[1] * (a[1] + b[1] + c[1]) + n[2] * (a[2] + b[2] + c[2]) < 0;
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
        case 0:
        case 1:
        case 2: /* closed, outward */
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
        l.dir[0] = (float)(cos(a) * cos(up)), l.dir[1] = (float)-sin(up),
        l.dir[2] = (float)(sin(a) * cos(up));
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

/* ---- one seed's case ------------------------------------------------------------------------- */

typedef struct diff_case {
    scene_gen g; /* the scene (its bounds in g.bmin, g.bmax) */
    int light_kind;
    light l;
    camera cam;
    int W, H;
    izb_recon f;
    float depth[MAX_W * MAX_H];
    uint32_t ids[MAX_W * MAX_H];
    float bias;     /* 0 (the default) or a tiny one: acne that ids must remove */
    bool rand_grid; /* a fixed grid of gw x gh cells instead of the adaptive one */
    int gw, gh;
    /* the rigid motion: moved triangles, the light after it (a spot at a moved closed mesh's center
     * on most seeds: outside that mesh before, inside after), one box for both poses */
    float moved[9 * MAX_TRIS];
    light lm;
    float mmin[3], mmax[3], umin[3], umax[3];
    camera cam0, cam1;
    izb_recon f0, f1; /* before (scene g, cam0) and after (moved, cam1), both with lm */
    float depth0[MAX_W * MAX_H], depth1[MAX_W * MAX_H];
    uint32_t ids0[MAX_W * MAX_H], ids1[MAX_W * MAX_H];
    /* the update check's settings per cull mode */
    izb_kernel upd_kernel[IZB_CULL_COUNT];
    izb_binning upd_binning[IZB_CULL_COUNT];
    bool upd_ids[IZB_CULL_COUNT];
    /* a point light at the spot's position (point: this seed has one), as nfaces frames with the
     * camera of f; settings per (cull auto, off) x (no ids, ids) */
    bool point;
    int nfaces;
    izb_recon faces[LIGHT_CUBE_FACES];
    izb_kernel pt_kernel[4];
    izb_binning pt_binning[4];
    /* an area light (izb_area.h) on some spot seeds: the frame fa is f with an emitter of random size
     * (up to 0.3 of the scene's size) and shape, M 16 or 64; a kernel, binning, cull mode and ids
     * choice (drawn after everything above: a seed's other cases are as before) */
    bool area;
    izb_recon fa;
    izb_kernel area_kernel;
    izb_binning area_binning;
    izb_cull area_cull;
    bool area_ids;
} diff_case;

static void diff_gen_case(diff_case *c, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!rng_state) rng_state = 1;
    for (int k = 0; k < 4; k++)
        (void)rnd();
    scene_gen *g = &c->g;
    gen_scene(g);
    bounds_of(g->xyz, g->nt, g->bmin, g->bmax);
    c->light_kind = (int)(rnd() * L_KINDS);
    c->l = gen_light(g, c->light_kind);
    c->cam = gen_camera(g->bmin, g->bmax);
    c->W = MIN_W + (int)(rnd() * (MAX_W - MIN_W + 1));
    c->H = MIN_H + (int)(rnd() * (MAX_H - MIN_H + 1));
    c->f = izb_frame_make(&c->cam, &c->l, g->bmin, g->bmax, c->W, c->H);
    ray_cast_depth(&c->cam, &c->f, g->xyz, g->nt, c->depth, c->ids);
    c->bias = rnd() < 0.5 ? 0.0f : (float)pow(10.0, rnd_in(-8, -5));
    c->rand_grid = rnd() < 0.25;
    c->gw = 1 + (int)(rnd() * 20);
    c->gh = 1 + (int)(rnd() * 20);

    double R[3][3], T[3];
    rand_rotation(R);
    {
        double d[3];
        rand_unit(d);
        const double len = rnd_in(3.0, 5.0);
        for (int k = 0; k < 3; k++)
            T[k] = d[k] * len;
    }
    for (int i = 0; i < 3 * g->nt; i++) {
        const float *p = g->xyz + 3 * i;
        for (int r = 0; r < 3; r++)
            c->moved[3 * i + r] = (float)(T[r] + R[r][0] * p[0] + R[r][1] * p[1] + R[r][2] * p[2]);
    }
    c->lm = c->l;
    if (g->n_closed > 0 && rnd() < 0.7) {
        const float *cc = g->closed_center[(int)(rnd() * g->n_closed)];
        c->lm.type = LIGHT_SPOT;
        for (int r = 0; r < 3; r++)
            c->lm.pos[r] = (float)(T[r] + R[r][0] * cc[0] + R[r][1] * cc[1] + R[r][2] * cc[2]);
        double d[3];
        rand_unit(d);
        for (int r = 0; r < 3; r++)
            c->lm.dir[r] = (float)d[r];
    }
    bounds_of(c->moved, g->nt, c->mmin, c->mmax);
    for (int k = 0; k < 3; k++) /* one box for both poses, as an animated scene's */
        c->umin[k] = fminf(c->mmin[k], g->bmin[k]), c->umax[k] = fmaxf(c->mmax[k], g->bmax[k]);
    c->cam0 = gen_camera(c->umin, c->umax);
    c->cam1 = rnd() < 0.5 ? c->cam0 : gen_camera(c->mmin, c->mmax);
    c->f0 = izb_frame_make(&c->cam0, &c->lm, c->umin, c->umax, c->W, c->H);
    c->f1 = izb_frame_make(&c->cam1, &c->lm, c->umin, c->umax, c->W, c->H);
    ray_cast_depth(&c->cam0, &c->f0, g->xyz, g->nt, c->depth0, c->ids0);
    ray_cast_depth(&c->cam1, &c->f1, c->moved, g->nt, c->depth1, c->ids1);
    for (int m = IZB_CULL_AUTO; m <= IZB_CULL_OFF; m++) {
        c->upd_kernel[m] = rnd() < 0.5 ? IZB_KERNEL1 : IZB_KERNEL2;
        c->upd_binning[m] = rnd() < 0.5 ? IZB_BINNING_RADIX : IZB_BINNING_ATOMIC;
        c->upd_ids[m] = rnd() < 0.5;
    }
    c->point = c->l.type == LIGHT_SPOT && rnd() < 0.4;
    c->nfaces = 0;
    if (c->point) {
        light pl = c->l;
        pl.type = LIGHT_POINT;
        c->nfaces = izb_frame_make_faces(&c->cam, &pl, g->bmin, g->bmax, c->W, c->H, c->faces);
        for (int q = 0; q < 4; q++) {
            c->pt_kernel[q] = rnd() < 0.5 ? IZB_KERNEL1 : IZB_KERNEL2;
            c->pt_binning[q] = rnd() < 0.5 ? IZB_BINNING_RADIX : IZB_BINNING_ATOMIC;
        }
    }
    c->area = c->l.type == LIGHT_SPOT && rnd() < 0.25;
    if (c->area) {
        float ext = 0.0f;
        for (int k = 0; k < 3; k++)
            ext = fmaxf(ext, g->bmax[k] - g->bmin[k]);
        c->fa = c->f;
        c->fa.light_size[0] = (float)(ext * rnd_in(0.005, 0.3));
        c->fa.light_size[1] = rnd() < 0.3 ? c->fa.light_size[0] : (float)(ext * rnd_in(0.005, 0.3));
        c->fa.light_disk = rnd() < 0.3 ? IZB_AREA_DISK : IZB_AREA_RECT;
        c->fa.light_samples = rnd() < 0.7 ? 16 : 64;
        c->area_kernel = rnd() < 0.5 ? IZB_KERNEL1 : IZB_KERNEL2;
        c->area_binning = rnd() < 0.5 ? IZB_BINNING_RADIX : IZB_BINNING_ATOMIC;
        c->area_cull = (izb_cull)(IZB_CULL_AUTO + (int)(rnd() * 3));
        c->area_ids = rnd() < 0.5;
    }
}

/* Does auto culling decide otherwise for some triangle after the motion (the spot light moved into
 * a closed mesh)? On such seeds an update that kept the old pose's closed-mesh analysis shows. */
static bool diff_auto_cull_changes(const diff_case *dc)
{
    if (!dc->f0.light_is_spot) return false;
    izb_closed c0, c1;
    if (!izb_closed_find(dc->g.xyz, dc->g.nt, &c0)) return false;
    bool changed = false;
    if (izb_closed_find(dc->moved, dc->g.nt, &c1)) {
        izb_cull_view v0 = {.mode = IZB_CULL_AUTO, .comp = c0.comp, .boxes = c0.boxes, .light_is_spot = 1};
        izb_cull_view v1 = {.mode = IZB_CULL_AUTO, .comp = c1.comp, .boxes = c1.boxes, .light_is_spot = 1};
        izb_light_origin(dc->f0.light, v0.light_origin);
        izb_light_origin(dc->f1.light, v1.light_origin);
        for (int t = 0; t < dc->g.nt && !changed; t++)
            changed = izb_may_cull(&v0, (uint32_t)t) != izb_may_cull(&v1, (uint32_t)t);
        izb_closed_free(&c1);
    }
    izb_closed_free(&c0);
    return changed;
}

#include "seed_range.h" /* diff_seed_range_named: PREFIX_SEEDS, PREFIX_SEED_BASE, PREFIX_SEED */

/* The anti-aliased tests' light for case c (cpu_aa, cuda_aa): a spot light where spot (the case's
 * own, or one above the scene aimed at its centre, a random cone), else a directional one (the
 * case's, or one from the case's light's direction, from above); *f its frame with the case's
 * camera and size, so the depth and ids stay the case's. Draws from the rng only for a new spot. */
static inline void diff_aa_light(const diff_case *c, bool spot, light *l, izb_recon *f)
{
    *l = c->l, *f = c->f;
    if (spot && c->l.type != LIGHT_SPOT) {
        const float r = 1.5f * fmaxf(c->g.bmax[0] - c->g.bmin[0], c->g.bmax[2] - c->g.bmin[2]);
        double d[3] = {rnd_in(-1, 1), rnd_in(0.5, 1.5), rnd_in(-1, 1)}, dn = 0;
        for (int k = 0; k < 3; k++)
            dn += d[k] * d[k];
        *l = (light){.type = LIGHT_SPOT, .cone_deg = (float)rnd_in(50, 130)};
        for (int k = 0; k < 3; k++)
            l->pos[k] = 0.5f * (c->g.bmin[k] + c->g.bmax[k]) + r * (float)(d[k] / sqrt(dn)),
            l->dir[k] = -(float)(d[k] / sqrt(dn));
        *f = izb_frame_make(&c->cam, l, c->g.bmin, c->g.bmax, c->W, c->H);
    } else if (!spot && c->l.type != LIGHT_DIRECTIONAL) {
        *l = (light){.type = LIGHT_DIRECTIONAL, .dir = {c->l.dir[0], -fabsf(c->l.dir[1]) - 0.2f, c->l.dir[2]}};
        *f = izb_frame_make(&c->cam, l, c->g.bmin, c->g.bmax, c->W, c->H);
    }
}

/* IZB_DIFF_SEEDS, IZB_DIFF_SEED_BASE, IZB_DIFF_SEED */
static void diff_seed_range(long default_n, long *first, long *n)
{
    diff_seed_range_named("IZB_DIFF", default_n, first, n);
}

#endif
