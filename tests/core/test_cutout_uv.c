/* test_cutout_uv.c — izb_alpha.h's UV step checked without izb_alpha.h's formula: for random
 * world triangles with random UVs under random directional and spot lights, a random point inside
 * the triangle is projected to the light image plane (in float, as reconstruction gives points),
 * the light ray through that image point is cast in double against the world triangle
 * (Moller-Trumbore, tests/ray_cast.h; the ray from the light's inverse matrix), and the hit's
 * UV must equal izb_alpha_uv's within float rounding and name the same texel of a 64x64 texture
 * wherever the reference lies at least 1/20 texel from a texel edge. */
#include <math.h>
#include <string.h>

#include "izb_alpha.h"
#include "test.h"
#include "ray_cast.h"
#include "test_rng.h"
#include "view.h"

/* inverse of a column-major 4x4 in double (Gauss-Jordan, partial pivoting); false if singular */
static bool invert(const float m[16], double inv[16])
{
    double a[4][8];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 8; c++) a[r][c] = c < 4 ? m[4 * c + r] : (c - 4 == r);
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(a[r][c]) > fabs(a[p][c])) p = r;
        if (fabs(a[p][c]) < 1e-300) return false;
        for (int k = 0; k < 8; k++) {
            const double t = a[c][k];
            a[c][k] = a[p][k], a[p][k] = t;
        }
        const double d = a[c][c];
        for (int k = 0; k < 8; k++) a[c][k] /= d;
        for (int r = 0; r < 4; r++)
            if (r != c) {
                const double e = a[r][c];
                for (int k = 0; k < 8; k++) a[r][k] -= e * a[c][k];
            }
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) inv[4 * c + r] = a[r][4 + c];
    return true;
}

/* world point of light clip (x, y, z, 1) */
static void unproject(const double inv[16], double x, double y, double z, double out[3])
{
    double h[4];
    for (int r = 0; r < 4; r++) h[r] = inv[r] * x + inv[4 + r] * y + inv[8 + r] * z + inv[12 + r];
    for (int k = 0; k < 3; k++) out[k] = h[k] / h[3];
}

int main(void)
{
    int tried = 0, texel_checked = 0, uv_bad = 0, texel_bad = 0;
    double worst = 0;
    for (int it = 0; it < 20000; it++) {
        const bool spot = it & 1;
        light l = {.type = spot ? LIGHT_SPOT : LIGHT_DIRECTIONAL, .cone_deg = 90};
        l.dir[0] = (float)rnd_in(-0.5, 0.5), l.dir[1] = -1, l.dir[2] = (float)rnd_in(-0.5, 0.5);
        l.pos[0] = (float)rnd_in(-1, 1), l.pos[1] = (float)rnd_in(5, 9), l.pos[2] = (float)rnd_in(-1, 1);
        const float bmin[3] = {-3, 0, -3}, bmax[3] = {3, 3, 3};
        const camera cam = {.pos = {0, 4, 8}, .pitch = -20, .fovy = 60};
        const izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, 64, 64);
        float tri[9], uv[6], v[3][4];
        for (int k = 0; k < 9; k++) tri[k] = (float)rnd_in(k % 3 == 1 ? 0 : -3, 3);
        for (int k = 0; k < 6; k++) uv[k] = (float)rnd_in(-4, 4);
        for (int k = 0; k < 3; k++) izb_transform(f.light, tri + 3 * k, v[k]);
        if (!(v[0][3] > 0.1f && v[1][3] > 0.1f && v[2][3] > 0.1f)) continue;
        const izb_bbox pb = {-4, -4, 4, 4};
        const izb_grid g = izb_grid_make(pb, 1, 1, 1);
        izb_tri t;
        if (!izb_tri_setup(v, &g, &pb, false, &t)) continue;
        /* well-conditioned: the triangle not edge-on to the light (its image at least 1e-3 of the plane) */
        float E[3];
        const double area = fabs((double)izb_tri_det(v, E)) / (v[0][3] * v[1][3] * v[2][3]);
        if (area < 1e-3) continue;
        /* a random inside point, projected in float */
        double b0 = rnd_in(0.05, 1), b1 = rnd_in(0.05, 1), b2 = rnd_in(0.05, 1);
        const double bs = b0 + b1 + b2;
        b0 /= bs, b1 /= bs, b2 /= bs;
        float q[3], c[4];
        for (int k = 0; k < 3; k++) q[k] = (float)(b0 * tri[k] + b1 * tri[3 + k] + b2 * tri[6 + k]);
        izb_transform(f.light, q, c);
        const float x = c[0] / c[3], y = c[1] / c[3];
        if (!izb_tri_occludes(&t, x, y, INFINITY)) continue; /* rounding put it outside: not this test's case */
        /* the light ray through (x, y), in double */
        double inv[16], o[3], p1[3], dir[3];
        if (!invert(f.light, inv)) continue;
        if (spot) {
            for (int k = 0; k < 3; k++) o[k] = l.pos[k];
            unproject(inv, x, y, 0.5, p1);
        } else {
            unproject(inv, x, y, -1.0, o);
            unproject(inv, x, y, 1.0, p1);
        }
        for (int k = 0; k < 3; k++) dir[k] = p1[k] - o[k];
        if (!spot) /* start well before the scene: the line, not a half of it */
            for (int k = 0; k < 3; k++) o[k] -= 10.0 * dir[k];
        double dist, bu, bw;
        if (!ray_tri_hit(o, dir, tri, &dist, &bu, &bw) || !(dist > 0)) continue;
        tried++;
        const double ru = (1 - bu - bw) * uv[0] + bu * uv[2] + bw * uv[4];
        const double rv = (1 - bu - bw) * uv[1] + bu * uv[3] + bw * uv[5];
        float u, vv;
        izb_alpha_uv(&t, x, y, uv, &u, &vv);
        const double err = fmax(fabs(u - ru), fabs(vv - rv));
        worst = fmax(worst, err);
        uv_bad += err > 1e-3;
        /* the texel, away from texel edges */
        const double su = ru * 64, sv = rv * 64;
        if (fabs(su - floor(su + 0.5)) < 0.05 || fabs(sv - floor(sv + 0.5)) < 0.05) continue;
        texel_checked++;
        const int want_u = (int)(((long)floor(su) % 64 + 64) % 64), want_v = (int)(((long)floor(sv) % 64 + 64) % 64);
        texel_bad += izb_alpha_wrap(u, 64, IZB_WRAP_REPEAT) != want_u || izb_alpha_wrap(vv, 64, IZB_WRAP_REPEAT) != want_v;
    }
    CHECK(tried > 5000, "only %d cases tried", tried);
    CHECK(texel_checked > 3000, "only %d texels checked", texel_checked);
    CHECK(uv_bad == 0, "%d of %d UVs off by more than 1e-3 (worst %g)", uv_bad, tried, worst);
    CHECK(texel_bad == 0, "%d of %d texels differ away from texel edges", texel_bad, texel_checked);
    printf("%d cases, %d texels, worst UV error %.3g\n", tried, texel_checked, worst);
    return test_done();
}
