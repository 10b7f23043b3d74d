/* test_raycast.h — the tests' double-precision ray casting: one ray against one triangle
 * (Moller-Trumbore), and a camera's depth and primitive ids by the nearest hit per pixel (what
 * the GL depth pass draws, without rasterisation rules). Shared by core_differential and
 * core_cutout_differential. */
#ifndef TEST_RAYCAST_H
#define TEST_RAYCAST_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "izb_math.h"
#include "view.h"

/* Does the ray o + d * dir meet triangle q (9 floats) at d > 0? Then *dist = d and the hit's
 * barycentrics are (1 - *bu - *bw, *bu, *bw) of vertices 0, 1, 2. */
static inline bool test_ray_triangle(const double o[3], const double dir[3], const float *q, double *dist,
                                     double *bu, double *bw)
{
    double e1[3], e2[3], s[3], pv[3], qv[3];
    for (int k = 0; k < 3; k++)
        e1[k] = (double)q[3 + k] - q[k], e2[k] = (double)q[6 + k] - q[k], s[k] = o[k] - q[k];
    pv[0] = dir[1] * e2[2] - dir[2] * e2[1], pv[1] = dir[2] * e2[0] - dir[0] * e2[2],
    pv[2] = dir[0] * e2[1] - dir[1] * e2[0];
    const double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
    if (fabs(det) < 1e-14) return false;
    const double u = (s[0] * pv[0] + s[1] * pv[1] + s[2] * pv[2]) / det;
    if (u < 0 || u > 1) return false;
    qv[0] = s[1] * e1[2] - s[2] * e1[1], qv[1] = s[2] * e1[0] - s[0] * e1[2], qv[2] = s[0] * e1[1] - s[1] * e1[0];
    const double w = (dir[0] * qv[0] + dir[1] * qv[1] + dir[2] * qv[2]) / det;
    if (w < 0 || u + w > 1) return false;
    *dist = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
    *bu = u, *bw = w;
    return *dist > 0;
}

/* nearest hit of each camera ray: linear view depth (0 = sky) and the triangle's index */
static inline void test_ray_cast(const camera *cam, const izb_recon *f, const float *xyz, int nt, float *depth,
                                 uint32_t *ids)
{
    float m[16];
    camera_view(cam, m);
    const int W = f->width, H = f->height;
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            /* view-space direction at depth 1, then to world: p = R^T (v - t) */
            const double v1[3] = {((2.0 * px + 1.0) / W - 1.0) * f->ray_sx, ((2.0 * py + 1.0) / H - 1.0) * f->ray_sy,
                                  -1.0};
            const double t[3] = {-m[12], -m[13], -m[14]};
            double o[3], dir[3];
            for (int j = 0; j < 3; j++) {
                o[j] = m[4 * j] * t[0] + m[4 * j + 1] * t[1] + m[4 * j + 2] * t[2];
                dir[j] = m[4 * j] * v1[0] + m[4 * j + 1] * v1[1] + m[4 * j + 2] * v1[2];
            }
            double best = INFINITY, d, bu, bw;
            uint32_t bid = IZB_NO_ID;
            for (int i = 0; i < nt; i++)
                if (test_ray_triangle(o, dir, xyz + 9 * i, &d, &bu, &bw) && d > 1e-4 && d < best)
                    best = d, bid = (uint32_t)i;
            const int i = py * W + px;
            depth[i] = isfinite(best) ? (float)best : 0.0f;
            ids[i] = bid;
        }
}

#endif
