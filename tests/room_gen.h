/* room_gen.h — the random rooms of the point-light tests (test_cpu_point.c, test_cpu_aa_point.c): a
 * scene of triangles with its light, camera and bounds, boxes facing inward or outward, random
 * rotations. The includer defines MAX_TRIS and includes test_rng.h (rnd_in) and view.h first. */
#ifndef IZB_TESTS_ROOM_GEN_H
#define IZB_TESTS_ROOM_GEN_H

#include <math.h>
#include <stdbool.h>

typedef struct room {
    float xyz[9 * MAX_TRIS];
    int nt;
    light light;
    camera cam;
    float bmin[3], bmax[3];
} room;

static inline void add_tri(room *r, const double a[3], const double b[3], const double c[3])
{
    if (r->nt >= MAX_TRIS) return;
    float *q = r->xyz + 9 * r->nt++;
    for (int k = 0; k < 3; k++)
        q[k] = (float)a[k], q[3 + k] = (float)b[k], q[6 + k] = (float)c[k];
}

/* a box's 12 triangles: centre c, half sizes h, rotated by the orthonormal rows of rot; facing
 * inward (a room seen from inside) or outward (a solid) */
static inline void add_box(room *r, const double c[3], const double h[3], const double rot[3][3], bool inward)
{
    static const int quads[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4},
                                     {1, 5, 7, 3}};
    double v[8][3];
    for (int i = 0; i < 8; i++) {
        const double l[3] = {(i & 1 ? 1 : -1) * h[0], (i & 2 ? 1 : -1) * h[1], (i & 4 ? 1 : -1) * h[2]};
        for (int k = 0; k < 3; k++)
            v[i][k] = c[k] + rot[0][k] * l[0] + rot[1][k] * l[1] + rot[2][k] * l[2];
    }
    for (int f = 0; f < 6; f++) {
        const int *q = quads[f];
        if (inward) { /* the quads' order winds inward */
            add_tri(r, v[q[0]], v[q[1]], v[q[2]]);
            add_tri(r, v[q[0]], v[q[2]], v[q[3]]);
        } else {
            add_tri(r, v[q[0]], v[q[2]], v[q[1]]);
            add_tri(r, v[q[0]], v[q[3]], v[q[2]]);
        }
    }
}

static inline void rand_rotation(double m[3][3])
{
    double a = rnd_in(0, 2 * M_PI), b = rnd_in(-1, 1), c = rnd_in(0, 2 * M_PI);
    const double s = sqrt(1 - b * b);
    const double z[3] = {s * cos(a), s * sin(a), b};
    double x[3] = {cos(c), sin(c), 0};
    /* Gram-Schmidt x against z, then y = z x x */
    double d = x[0] * z[0] + x[1] * z[1] + x[2] * z[2];
    for (int k = 0; k < 3; k++)
        x[k] -= d * z[k];
    d = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    if (d < 1e-6) x[0] = z[1], x[1] = -z[0], x[2] = 0, d = sqrt(x[0] * x[0] + x[1] * x[1]);
    if (d < 1e-6) x[0] = 1, x[1] = x[2] = 0, d = 1;
    for (int k = 0; k < 3; k++)
        m[0][k] = x[k] / d, m[2][k] = z[k];
    m[1][0] = z[1] * m[0][2] - z[2] * m[0][1];
    m[1][1] = z[2] * m[0][0] - z[0] * m[0][2];
    m[1][2] = z[0] * m[0][1] - z[1] * m[0][0];
}

/* an open quad of half sizes a, b at c, in the plane of rot's first two rows (two triangles) */
static inline void add_quad(room *r, const double c[3], double a, double b, const double rot[3][3])
{
    double v[4][3];
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++)
            v[j][k] = c[k] + rot[0][k] * (j & 1 ? a : -a) + rot[1][k] * (j & 2 ? b : -b);
    add_tri(r, v[0], v[1], v[3]);
    add_tri(r, v[0], v[3], v[2]);
}

#endif
