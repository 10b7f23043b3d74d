/* cutout_gen.h — random cut-out scenes for the tests (core_cutout_differential holds the CPU
 * backend to the brute force on them, cuda_cutout the CUDA backend to the CPU backend): a ground
 * and random alpha-tested cards (quads with random UV ranges that cross texel edges and wrap), some
 * opaque cards and loose triangles, 1 to CUT_MAX_TEX random procedural alpha textures (random sides,
 * power of two or not, 1x1 included; noise, disc, stripes, checker; random wrap per axis; random
 * cutoff), sometimes a card with NaN / Inf / 1e30 UVs; a random light (directional, grazing, spot
 * outside, spot among the cards) and camera. Draws from test_rng.h's rnd(): the includer seeds it. */
#ifndef CUTOUT_GEN_H
#define CUTOUT_GEN_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "izb.h"
#include "test_rng.h"
#include "view.h"

#define CUT_MAX_TRIS 200
#define CUT_MAX_TEX 4
#define CUT_MAX_SIDE 64

typedef struct cut_scene {
    float xyz[9 * CUT_MAX_TRIS];
    float uv[6 * CUT_MAX_TRIS];
    uint32_t image_of[CUT_MAX_TRIS];
    int nt;
    uint8_t alpha[CUT_MAX_TEX][CUT_MAX_SIDE * CUT_MAX_SIDE];
    izb_alpha_image images[CUT_MAX_TEX];
    int n_images;
    float bmin[3], bmax[3];
} cut_scene;

static void cut_add_tri(cut_scene *s, const double p[3][3], const double uv[3][2], uint32_t image)
{
    if (s->nt >= CUT_MAX_TRIS) return;
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < 3; j++) s->xyz[9 * s->nt + 3 * k + j] = (float)p[k][j];
        s->uv[6 * s->nt + 2 * k] = (float)uv[k][0], s->uv[6 * s->nt + 2 * k + 1] = (float)uv[k][1];
    }
    s->image_of[s->nt++] = image;
}

/* a quad c + a * e1 + b * e2, a, b in [-1, 1], as two triangles, with UV (u0 + su * (a+1)/2, ...) */
static void cut_add_card(cut_scene *s, const double c[3], const double e1[3], const double e2[3],
                         const double uv0[2], const double suv[2], uint32_t image)
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
        cut_add_tri(s, q, w, image);
    }
}

static void cut_rand_unit(double d[3])
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
static void cut_gen_image(cut_scene *s, int i)
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

static void cut_gen_scene(cut_scene *s)
{
    s->nt = 0;
    s->n_images = 1 + (int)(rnd() * CUT_MAX_TEX);
    for (int i = 0; i < s->n_images; i++) cut_gen_image(s, i);
    /* the ground: opaque, or on some seeds cut (a fence lying flat) */
    const double g = 4.0, c0[3] = {0, 0, 0}, gx[3] = {g, 0, 0}, gz[3] = {0, 0, -g}, uv0[2] = {0, 0}, suv[2] = {4, 4};
    cut_add_card(s, c0, gx, gz, uv0, suv, rnd() < 0.2 ? 0u : IZB_OPAQUE);
    const int cards = 4 + (int)(rnd() * 30);
    const bool bad_uv = rnd() < 0.2;
    for (int i = 0; i < cards; i++) {
        double c[3] = {rnd_in(-3, 3), rnd_in(0.2, 3), rnd_in(-3, 3)}, e1[3], e2[3], d[3];
        cut_rand_unit(e1);
        do cut_rand_unit(d); while (fabs(d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2]) > 0.9);
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
        cut_add_card(s, c, e1, e2, u0, su, image);
    }
    for (int i = 0; i < 4; i++) { /* loose opaque triangles */
        double p[3][3], uv[3][2] = {{0}};
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++) p[k][j] = rnd_in(-3, 3) * (j == 1 ? 0.5 : 1) + (j == 1 ? 1.5 : 0);
        cut_add_tri(s, p, uv, IZB_OPAQUE);
    }
    for (int k = 0; k < 3; k++) s->bmin[k] = INFINITY, s->bmax[k] = -INFINITY;
    for (int i = 0; i < 3 * s->nt; i++)
        for (int k = 0; k < 3; k++)
            s->bmin[k] = fminf(s->bmin[k], s->xyz[3 * i + k]), s->bmax[k] = fmaxf(s->bmax[k], s->xyz[3 * i + k]);
}

enum { CUT_L_DIR, CUT_L_GRAZE, CUT_L_SPOT_OUT, CUT_L_SPOT_AMONG, CUT_L_KINDS };

static light cut_gen_light(const cut_scene *s, int kind)
{
    light l = {.type = LIGHT_DIRECTIONAL, .cone_deg = (float)rnd_in(60, 130)};
    double d[3];
    cut_rand_unit(d);
    switch (kind) {
    case CUT_L_DIR: l.dir[0] = (float)d[0], l.dir[1] = -(float)fabs(d[1]) - 0.2f, l.dir[2] = (float)d[2]; break;
    case CUT_L_GRAZE: l.dir[0] = (float)d[0], l.dir[1] = -0.05f, l.dir[2] = (float)d[2]; break;
    case CUT_L_SPOT_OUT:
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

static camera cut_gen_camera(const float bmin[3], const float bmax[3])
{
    double d[3];
    cut_rand_unit(d);
    d[1] = fabs(d[1]) + 0.3;
    const double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    camera cam = {.fovy = (float)rnd_in(45, 75)};
    for (int k = 0; k < 3; k++) cam.pos[k] = (float)(rnd_in(6, 10) * d[k] / n);
    cam.pitch = (float)(asin(-d[1] / n) * 180 / M_PI);
    cam.yaw = (float)(atan2(-d[0], d[2]) * 180 / M_PI);
    camera_fit_clip(&cam, bmin, bmax);
    return cam;
}

static izb_cutouts cut_cutouts_of(const cut_scene *s)
{
    return (izb_cutouts){.images = s->images, .image_count = s->n_images, .uv = s->uv, .image_of = s->image_of,
                         .tri_count = s->nt};
}

#endif
