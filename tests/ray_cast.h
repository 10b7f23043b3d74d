/* ray_cast.h — rays against triangles in double precision (Moller-Trumbore), independent of
 * core/izb_math.h: the camera's depth image for tests without GL (what the depth pass would give,
 * plus its primitive ids), and the segment tests a ray-traced truth is made of. */
#ifndef TEST_RAY_CAST_H
#define TEST_RAY_CAST_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "izb_math.h"
#include "view.h"

/* The line o + t dir against the plane of triangle q (9 floats): false when the line lies in (or is
 * parallel to) it; else *t at the crossing and *u, *v the barycentrics there of vertices 1 and 2
 * (inside when u, v >= 0 and u + v <= 1), whatever they are: a caller can ask how far inside. */
static inline bool ray_plane_bary(const double o[3], const double dir[3], const float *q, double *t, double *u,
                                  double *v)
{
    double e1[3], e2[3], s[3], pv[3], qv[3];
    for (int k = 0; k < 3; k++)
        e1[k] = (double)q[3 + k] - q[k], e2[k] = (double)q[6 + k] - q[k], s[k] = o[k] - q[k];
    pv[0] = dir[1] * e2[2] - dir[2] * e2[1], pv[1] = dir[2] * e2[0] - dir[0] * e2[2],
    pv[2] = dir[0] * e2[1] - dir[1] * e2[0];
    const double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
    if (fabs(det) < 1e-14) return false;
    qv[0] = s[1] * e1[2] - s[2] * e1[1], qv[1] = s[2] * e1[0] - s[0] * e1[2], qv[2] = s[0] * e1[1] - s[1] * e1[0];
    *u = (s[0] * pv[0] + s[1] * pv[1] + s[2] * pv[2]) / det;
    *v = (dir[0] * qv[0] + dir[1] * qv[1] + dir[2] * qv[2]) / det;
    *t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
    return isfinite(*t) && isfinite(*u) && isfinite(*v);
}

/* Does the line o + t dir meet triangle q (edges inclusive)? Then *t, and the barycentrics *u, *v of
 * vertices 1 and 2 at the hit (ray_plane_bary's). */
static inline bool ray_tri_hit(const double o[3], const double dir[3], const float *q, double *t, double *u,
                               double *v)
{
    return ray_plane_bary(o, dir, q, t, u, v) && *u >= 0 && *v >= 0 && *u + *v <= 1;
}

/* The ray o + t dir against triangle q: t, or INFINITY when it misses. Edges inclusive. */
static inline double ray_tri(const double o[3], const double dir[3], const float *q)
{
    double t, u, v;
    if (!ray_plane_bary(o, dir, q, &t, &u, &v) || u < 0 || v < 0 || u + v > 1) return INFINITY;
    return t;
}

/* The world-space origin and direction (at view depth 1) of pixel (px, py)'s camera ray for frame f. */
static inline void ray_of_pixel(const camera *cam, const izb_recon *f, int px, int py, double o[3], double dir[3])
{
    float m[16];
    camera_view(cam, m);
    /* view-space direction at depth 1, then to world: p = R^T (v - t) */
    const double v1[3] = {((2.0 * px + 1.0) / f->width - 1.0) * f->ray_sx,
                          ((2.0 * py + 1.0) / f->height - 1.0) * f->ray_sy, -1.0};
    const double t[3] = {-m[12], -m[13], -m[14]};
    for (int j = 0; j < 3; j++) {
        o[j] = m[4 * j] * t[0] + m[4 * j + 1] * t[1] + m[4 * j + 2] * t[2];
        dir[j] = m[4 * j] * v1[0] + m[4 * j + 1] * v1[1] + m[4 * j + 2] * v1[2];
    }
}

/* The nearest hit of each camera ray: linear view depth (0 = sky) and the triangle's index
 * (IZB_NO_ID for sky). Hits nearer than 1e-4 are ignored (the camera's near plane). */
static inline void ray_cast_depth(const camera *cam, const izb_recon *f, const float *xyz, int nt, float *depth,
                                  uint32_t *ids)
{
    for (int py = 0; py < f->height; py++)
        for (int px = 0; px < f->width; px++) {
            double o[3], dir[3];
            ray_of_pixel(cam, f, px, py, o, dir);
            double best = INFINITY;
            uint32_t bid = IZB_NO_ID;
            for (int i = 0; i < nt; i++) {
                const double d = ray_tri(o, dir, xyz + 9 * i);
                if (d > 1e-4 && d < best) best = d, bid = (uint32_t)i;
            }
            const int i = py * f->width + px;
            depth[i] = isfinite(best) ? (float)best : 0.0f;
            if (ids) ids[i] = bid;
        }
}

#endif
