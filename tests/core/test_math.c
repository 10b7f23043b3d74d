/* test_math.c — core/izb_math.h: edge functions and culling, exact 1/w depth interpolation for a
 * spot light (triangles crossing the light's w = 0 plane included), the grid and its cell hash,
 * reconstruction against an independent double-precision computation, and the sign conventions
 * the rest of the IZB relies on (keys grow with distance, the bias moves points toward the light,
 * orthographic w = 1, spot z/w = -1/w). */
#include <math.h>
#include <string.h>

#include "izb_math.h"
#include "test.h"
#include "view.h"

/* deterministic xorshift in [0, 1) */
#define TEST_RNG_SEED 0x9E3779B97F4A7C15ull
#include "test_rng.h"
/* column-major 4x4 times (p, 1) in double */
static void xform_d(const float m[16], const double p[3], double out[4]);
/* izb_tri_setup over a wide bbox with a fine grid, from clip-space vertices */
static bool setup(const float v[3][4], bool cull_back, izb_tri *t);
static double rel_err(double a, double b);
/* exact key of the triangle (clip-space vertices vd) on the light ray through image point (x, y) */
static double plane_key(const double vd[3][4], double x, double y);


static void xform_d(const float m[16], const double p[3], double out[4])
{
    for (int r = 0; r < 4; r++)
        out[r] = (double)m[r] * p[0] + (double)m[4 + r] * p[1] + (double)m[8 + r] * p[2] + (double)m[12 + r];
}

static const izb_bbox wide = {-4.0f, -4.0f, 4.0f, 4.0f};

static bool setup(const float v[3][4], bool cull_back, izb_tri *t)
{
    izb_grid g = izb_grid_make(wide, 0, 64, 64);
    return izb_tri_setup(v, &g, &wide, cull_back, t);
}

static double rel_err(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-30); }

static double plane_key(const double vd[3][4], double x, double y)
{
    /* b = M^-1 (x, y, 1) with the columns of M the vertices' (X, Y, W); key = sum b Z / sum b W */
    double b[3];
    for (int i = 0; i < 3; i++) {
        const double *a = vd[(i + 1) % 3], *c = vd[(i + 2) % 3];
        double e0 = a[1] * c[3] - a[3] * c[1], e1 = a[3] * c[0] - a[0] * c[3], e2 = a[0] * c[1] - a[1] * c[0];
        b[i] = e0 * x + e1 * y + e2;
    }
    return (b[0] * vd[0][2] + b[1] * vd[1][2] + b[2] * vd[2][2]) / (b[0] * vd[0][3] + b[1] * vd[1][3] + b[2] * vd[2][3]);
}

/* Edge functions with w = 1 (orthographic light): inside, outside, on edges and vertices, both
 * windings, back-face culling, degenerate and out-of-bbox triangles, the strict depth compare. */
static void test_edges(void)
{
    /* counter-clockwise seen from the light (x right, y up), key 0.5 everywhere */
    const float ccw[3][4] = {{0, 0, 0.5f, 1}, {1, 0, 0.5f, 1}, {0, 1, 0.5f, 1}};
    const float cw[3][4] = {{0, 0, 0.5f, 1}, {0, 1, 0.5f, 1}, {1, 0, 0.5f, 1}};
    const float inside[][2] = {{0.25f, 0.25f}, {0.1f, 0.8f}, {0.5f, 0.0f}, {0.0f, 0.5f}, {0.5f, 0.5f},
                               {0.0f, 0.0f},   {1.0f, 0.0f}, {0.0f, 1.0f}};
    const float outside[][2] = {{0.75f, 0.75f}, {-0.01f, 0.5f}, {0.5f, -0.01f}, {0.51f, 0.5f},
                                {2.0f, 2.0f},   {-1.0f, -1.0f}};
    izb_tri t;
    for (int winding = 0; winding < 2; winding++) {
        const float(*v)[4] = winding ? cw : ccw;
        CHECK(setup(v, false, &t), "winding %d without culling must survive", winding);
        for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++)
            CHECK(izb_tri_occludes(&t, inside[i][0], inside[i][1], 0.75f), "winding %d: (%g, %g) inside",
                  winding, inside[i][0], inside[i][1]);
        for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
            CHECK(!izb_tri_occludes(&t, outside[i][0], outside[i][1], 0.75f), "winding %d: (%g, %g) outside",
                  winding, outside[i][0], outside[i][1]);
        /* nearer the light only: key 0.5 < z */
        CHECK(!izb_tri_occludes(&t, 0.25f, 0.25f, 0.5f), "equal key is not occluded");
        CHECK(!izb_tri_occludes(&t, 0.25f, 0.25f, 0.25f), "point nearer the light than the triangle");
        CHECK(fabsf(t.z[0]) < 1e-7f && fabsf(t.z[1]) < 1e-7f && fabsf(t.z[2] - 0.5f) < 1e-7f,
              "constant depth plane: %g %g %g", t.z[0], t.z[1], t.z[2]);
        /* 32..40, and the cell before: vertices on a cell boundary get the rounding margin's cell */
        const izb_grid g = izb_grid_make(wide, 0, 64, 64);
        int cx0, cy0, cx1, cy1;
        izb_tri_cells(&t, &g, &cx0, &cy0, &cx1, &cy1);
        CHECK((cx0 == 32 || cx0 == 31) && (cy0 == 32 || cy0 == 31) && cx1 == 40 && cy1 == 40,
              "cell range %d..%d x %d..%d", cx0, cx1, cy0, cy1);
        /* the bbox is part of the inside test: grown by rounding only, never past a cell */
        CHECK(t.x0 <= 0.0f && t.x0 > -1e-4f && t.y0 <= 0.0f && t.y0 > -1e-4f && t.x1 >= 1.0f && t.x1 < 1.0001f &&
                  t.y1 >= 1.0f && t.y1 < 1.0001f,
              "bbox %g..%g x %g..%g", (double)t.x0, (double)t.x1, (double)t.y0, (double)t.y1);
    }
    CHECK(setup(ccw, true, &t), "counter-clockwise is front-facing");
    CHECK(!setup(cw, true, &t), "clockwise is culled as back-facing");

    /* a sloped depth plane: key = 0.1 + 0.2 x + 0.3 y */
    const float slope[3][4] = {{0, 0, 0.1f, 1}, {1, 0, 0.3f, 1}, {0, 1, 0.4f, 1}};
    CHECK(setup(slope, true, &t), "sloped triangle survives");
    float k = 0.1f + 0.2f * 0.3f + 0.3f * 0.4f;
    CHECK(izb_tri_occludes(&t, 0.3f, 0.4f, k + 1e-6f) && !izb_tri_occludes(&t, 0.3f, 0.4f, k - 1e-6f),
          "sloped plane key at (0.3, 0.4) = %g", k);

    const float line[3][4] = {{0, 0, 0, 1}, {1, 1, 0, 1}, {2, 2, 0, 1}};
    CHECK(!setup(line, false, &t), "collinear triangle is culled");
    const float far_away[3][4] = {{10, 10, 0, 1}, {11, 10, 0, 1}, {10, 11, 0, 1}};
    CHECK(!setup(far_away, false, &t), "triangle outside the points' bbox is culled");
    const float behind[3][4] = {{0, 0, -1, -1}, {1, 0, -1, -2}, {0, 1, -1, -0.5f}};
    CHECK(!setup(behind, false, &t), "triangle wholly behind the light is culled");
    const float nan_tri[3][4] = {{NAN, 0, 0, 1}, {1, 0, 0, 1}, {0, 1, 0, 1}};
    CHECK(!setup(nan_tri, false, &t), "NaN triangle is culled");
}

/* The light matrices' conventions, measured: orthographic w = 1 and keys in [-1, 1] growing with
 * distance; spot z = -1 so key = -1/w, growing with distance; bias toward the light. */
static void test_conventions(void)
{
    const float bmin[3] = {-5, -1, -5}, bmax[3] = {5, 4, 5};
    float m[16];
    double q[4], q2[4];

    light dl = {.type = LIGHT_DIRECTIONAL, .dir = {0.3f, -1.0f, 0.2f}};
    light_matrices(&dl, bmin, bmax, m, NULL);
    for (int i = 0; i < 50; i++) {
        double p[3] = {rnd_in(-5, 5), rnd_in(-1, 4), rnd_in(-5, 5)}, p2[3];
        double s = rnd_in(0.1, 2.0), n = sqrt(0.3 * 0.3 + 1.0 + 0.2 * 0.2);
        p2[0] = p[0] + s * 0.3 / n, p2[1] = p[1] - s / n, p2[2] = p[2] + s * 0.2 / n;
        xform_d(m, p, q);
        xform_d(m, p2, q2);
        CHECK(q[3] == 1.0, "orthographic w = %g", q[3]);
        CHECK(q[2] >= -1.0 && q[2] <= 1.0, "orthographic key in [-1, 1]: %g", q[2]);
        CHECK(q2[2] > q[2], "orthographic key grows along the light direction: %g -> %g", q[2], q2[2]);
        CHECK(fabs(q2[0] - q[0]) < 1e-5 && fabs(q2[1] - q[1]) < 1e-5, "same image position along a light ray");
    }

    light sl = {.type = LIGHT_SPOT, .pos = {1, 6, 0.5f}, .dir = {-0.1f, -1, 0.05f}, .cone_deg = 80};
    light_matrices(&sl, bmin, bmax, m, NULL);
    for (int i = 0; i < 50; i++) {
        double p[3] = {rnd_in(-5, 5), rnd_in(-1, 4), rnd_in(-5, 5)}, p2[3];
        double s = rnd_in(1.05, 2.0);
        for (int k = 0; k < 3; k++)
            p2[k] = sl.pos[k] + s * (p[k] - sl.pos[k]);
        xform_d(m, p, q);
        xform_d(m, p2, q2);
        CHECK(q[2] == -1.0, "spot clip z = %g, want -1", q[2]);
        double dist = sqrt(pow(p[0] - sl.pos[0], 2) + pow(p[1] - sl.pos[1], 2) + pow(p[2] - sl.pos[2], 2));
        if (q[3] > 0.0) {
            CHECK(q[3] <= dist * (1 + 1e-6), "spot w (%g) is the depth along the axis, <= distance %g", q[3], dist);
            CHECK(q2[2] / q2[3] > q[2] / q[3], "spot key grows with distance");
            CHECK(fabs(q2[0] / q2[3] - q[0] / q[3]) < 1e-5, "same image position along a light ray");
        }
    }
}

/* |cos| of the angle between the triangle's normal and the ray from the light at l to q. */
static double grazing_cos(const double P[3][3], const float l[3], const double q[3])
{
    double a[3], b[3], n[3], r[3];
    for (int c = 0; c < 3; c++) {
        a[c] = P[1][c] - P[0][c];
        b[c] = P[2][c] - P[0][c];
        r[c] = q[c] - l[c];
    }
    n[0] = a[1] * b[2] - a[2] * b[1];
    n[1] = a[2] * b[0] - a[0] * b[2];
    n[2] = a[0] * b[1] - a[1] * b[0];
    const double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    const double rr = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    return fabs(n[0] * r[0] + n[1] * r[1] + n[2] * r[2]) / (nn * rr);
}

/* Spot light: the triangle's key at a point of the image plane equals the key of the world point
 * of the triangle seen there, to float precision, also when a vertex is behind the light (w < 0),
 * and the inside test rejects what projects from the part behind the light. */
static void test_spot_depth(void)
{
    const float bmin[3] = {-5, -1, -5}, bmax[3] = {5, 4, 5};
    light sl = {.type = LIGHT_SPOT, .pos = {0, 4, 0}, .dir = {0, -1, 0}, .cone_deg = 90};
    float m[16];
    light_matrices(&sl, bmin, bmax, m, NULL);
    const izb_bbox pb = {-1.0f, -1.0f, 1.0f, 1.0f};
    const izb_grid g = izb_grid_make(pb, 0, 32, 32);

    double worst = 0.0, worst_world = 0.0;
    int front = 0, behind_tested = 0, crossing = 0, partial = 0;
    for (int it = 0; it < 1000; it++) {
        /* vertices around the light; every 4th triangle forced to straddle the light's w = 0 plane */
        double P[3][3];
        for (int k = 0; k < 3; k++) {
            P[k][0] = rnd_in(-4, 4);
            P[k][1] = rnd_in(-1, 3.5);
            P[k][2] = rnd_in(-4, 4);
        }
        if (it % 4 == 0)
            P[0][1] = rnd_in(4.5, 6.0); /* above the light, which looks down: w < 0 */
        float v[3][4];
        double vd[3][4];
        for (int k = 0; k < 3; k++) {
            const float pf[3] = {(float)P[k][0], (float)P[k][1], (float)P[k][2]};
            for (int c = 0; c < 3; c++)
                P[k][c] = pf[c]; /* the triangle is what the float vertices say */
            izb_transform(m, pf, v[k]);
            xform_d(m, P[k], vd[k]);
        }
        izb_tri t;
        if (!izb_tri_setup(v, &g, &pb, false, &t))
            continue;
        bool crosses = !(vd[0][3] > 0 && vd[1][3] > 0 && vd[2][3] > 0);
        crossing += crosses;
        if (crosses) {
            /* Its cell range (the points' bbox clipped by its edges) holds every image position
             * the inside test accepts; most such triangles cover only part of the grid. */
            long outside = 0;
            int cx0, cy0, cx1, cy1;
            izb_tri_cells(&t, &g, &cx0, &cy0, &cx1, &cy1);
            for (int sy = 0; sy <= 128; sy++)
                for (int sx = 0; sx <= 128; sx++) {
                    const float x = -1.0f + sx / 64.0f, y = -1.0f + sy / 64.0f;
                    if (!izb_tri_occludes(&t, x, y, 1e30f))
                        continue;
                    const int cx = izb_cell_x(&g, x), cy = izb_cell_y(&g, y);
                    outside += cx < cx0 || cx > cx1 || cy < cy0 || cy > cy1;
                }
            CHECK(outside == 0, "crossing triangle: %ld covered positions outside its cells", outside);
            partial += (cx1 - cx0 + 1) * (cy1 - cy0 + 1) < g.w * g.h;
        }
        for (int s = 0; s < 40; s++) {
            double b0 = rnd_in(0.02, 0.96), b1 = rnd_in(0.02, 0.98 - b0), b2 = 1.0 - b0 - b1;
            double Q[3], q[4];
            for (int c = 0; c < 3; c++)
                Q[c] = b0 * P[0][c] + b1 * P[1][c] + b2 * P[2][c];
            xform_d(m, Q, q);
            if (fabs(q[3]) < 0.05)
                continue; /* too close to the light's plane for float image coordinates */
            float x = (float)(q[0] / q[3]), y = (float)(q[1] / q[3]);
            if (!(fabsf(x) <= 1.0f && fabsf(y) <= 1.0f))
                continue;
            double key = q[2] / q[3];
            if (q[3] > 0.0) {
                /* The key the float plane gives at the float (x, y), against the exact key of the
                 * triangle on the light ray through that (x, y) computed from the float clip-space
                 * vertices. Where the light grazes the plane its coefficients are large and cancel,
                 * so float precision means: error within a few ulps of the terms summed, i.e.
                 * relative to |z0 x| + |z1 y| + |z2|. In absolute terms, and from the world-space
                 * vertices (adding the float transform's error), it must stay far below the bias,
                 * or a lit surface would shadow itself. */
                double tri_key = (double)fmaf(t.z[0], x, fmaf(t.z[1], y, t.z[2]));
                double scale = fabs((double)t.z[0] * x) + fabs((double)t.z[1] * y) + fabs((double)t.z[2]);
                double vf[3][4];
                for (int k = 0; k < 3; k++)
                    for (int c = 0; c < 4; c++)
                        vf[k][c] = v[k][c];
                key = plane_key(vf, x, y);
                double e = fabs(tri_key - key) / scale, e_world = rel_err(tri_key, plane_key(vd, x, y));
                if (e > worst)
                    worst = e;
                /* Where the light ray nearly lies in the triangle's plane, the float transform's
                 * rounding of the vertices moves the plane by more than the bias along the ray:
                 * such a surface may shadow itself, as in any shadow method, and is unlit anyway
                 * (diffuse ~ cos). The bound holds where the surface faces the light at all. */
                if (grazing_cos(P, sl.pos, Q) >= 0.01 && e_world > worst_world)
                    worst_world = e_world;
                /* stay away from the edges, where float (x, y) may round outside */
                if (fmin(b0, fmin(b1, b2)) > 0.05) {
                    front++;
                    CHECK(izb_tri_occludes(&t, x, y, (float)(key + 2e-6 * scale)),
                          "point behind the triangle (key %g, w %g) is occluded", key, q[3]);
                    CHECK(!izb_tri_occludes(&t, x, y, (float)(key - 2e-6 * scale)),
                          "point in front of the triangle (key %g) is not occluded", key);
                }
            } else {
                /* this image position shows the part of the plane behind the light: not the triangle */
                behind_tested++;
                CHECK(!izb_tri_occludes(&t, x, y, 1e30f), "point projected from behind the light (w %g) rejected",
                      q[3]);
            }
        }
    }
    printf("spot depth: %d front samples, %d behind-light samples, %d crossing triangles, worst key error %.3g "
           "of the plane's terms, %.3g relative from the world vertices\n",
           front, behind_tested, crossing, worst, worst_world);
    CHECK(front > 2000 && behind_tested > 50 && crossing > 100, "enough samples of each kind");
    CHECK(partial > crossing / 4, "%d of %d crossing triangles get less than the whole grid", partial, crossing);
    CHECK(worst < 1.5e-6, "1/w key interpolation exact to float precision: worst error %g of the terms", worst);
    CHECK(worst_world < 0.25 * IZB_DEFAULT_BIAS, "key error from world vertices %g: well below the bias",
          worst_world);
}

/* A finely tessellated, gently sloped patch far from a spot light (triangles 0.05 wide at
 * distance 30), the case where the light-space vertices of a triangle are nearly parallel: keys
 * inside must stay accurate (they once were off by 1e-3 relative, five times the bias, and lit
 * surfaces shadowed themselves), and the triangles must close up: a point on a shared edge lies in
 * at least one of the two (no light leaks through a mesh). */
static void test_small_far(void)
{
    const float bmin[3] = {-2, -1, -2}, bmax[3] = {2, 1, 2};
    light sl = {.type = LIGHT_SPOT, .pos = {3, 30, -2}, .dir = {-0.1f, -1, 0.07f}, .cone_deg = 30};
    float m[16];
    light_matrices(&sl, bmin, bmax, m, NULL);
    enum { N = 20 };
    const double x0 = -0.6, z0 = -0.4, step = 0.05;
    float P[N + 1][N + 1][3];
    for (int i = 0; i <= N; i++)
        for (int j = 0; j <= N; j++) {
            double x = x0 + step * i, z = z0 + step * j;
            P[i][j][0] = (float)x, P[i][j][1] = (float)(0.1 * x + 0.05 * z + 0.01 * sin(40.0 * x * z)),
            P[i][j][2] = (float)z;
        }
    /* two counter-clockwise (seen from above) triangles per quad, sharing exact float vertices */
    static izb_tri tris[2 * N * N];
    static double vd_all[2 * N * N][3][4];
    static float world[2 * N * N][3][3];
    izb_bbox pb = {-1, -1, 1, 1};
    izb_grid g = izb_grid_make(pb, 0, 16, 16);
    int nt = 0, culled = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            const float *q[2][3] = {{P[i][j], P[i][j + 1], P[i + 1][j + 1]}, {P[i][j], P[i + 1][j + 1], P[i + 1][j]}};
            for (int h = 0; h < 2; h++) {
                float v[3][4];
                for (int k = 0; k < 3; k++) {
                    izb_transform(m, q[h][k], v[k]);
                    for (int c = 0; c < 4; c++)
                        vd_all[nt][k][c] = v[k][c];
                    memcpy(world[nt][k], q[h][k], sizeof world[nt][k]);
                }
                if (izb_tri_setup(v, &g, &pb, true, &tris[nt]))
                    nt++;
                else
                    culled++;
            }
        }
    CHECK(culled == 0, "the patch faces the light: %d triangles culled", culled);

    /* random points of the patch (world, double) -> light image plane: inside some triangle, and
     * that triangle's key equals the point's to well below the bias */
    double worst = 0.0;
    int missed = 0, samples = 0;
    for (int it = 0; it < 20000; it++) {
        int t = (int)(rnd() * nt);
        double b0 = rnd(), b1 = rnd() * (1.0 - b0), b2 = 1.0 - b0 - b1, Q[3], q[4];
        for (int c = 0; c < 3; c++)
            Q[c] = b0 * world[t][0][c] + b1 * world[t][1][c] + b2 * world[t][2][c];
        xform_d(m, Q, q);
        float x = (float)(q[0] / q[3]), y = (float)(q[1] / q[3]);
        int hit = -1;
        for (int k = 0; k < nt && hit < 0; k++)
            if (izb_tri_occludes(&tris[k], x, y, 1e30f))
                hit = k;
        samples++;
        if (hit < 0) {
            missed++;
            continue;
        }
        double key = plane_key(vd_all[hit], x, y), tri_key = fmaf(tris[hit].z[0], x, fmaf(tris[hit].z[1], y, tris[hit].z[2]));
        worst = fmax(worst, rel_err(tri_key, key));
    }
    /* points on shared edges (the diagonals and the quad sides between triangles) */
    int edge_missed = 0, edge_samples = 0;
    for (int it = 0; it < 20000; it++) {
        int i = 1 + (int)(rnd() * (N - 2)), j = 1 + (int)(rnd() * (N - 2)), kind = (int)(rnd() * 3);
        const float *a = P[i][j], *b = kind == 0 ? P[i + 1][j + 1] : kind == 1 ? P[i + 1][j] : P[i][j + 1];
        double qa[4], qb[4], da[3] = {a[0], a[1], a[2]}, db[3] = {b[0], b[1], b[2]}, u = rnd();
        xform_d(m, da, qa);
        xform_d(m, db, qb);
        float x = (float)((1 - u) * qa[0] / qa[3] + u * qb[0] / qb[3]);
        float y = (float)((1 - u) * qa[1] / qa[3] + u * qb[1] / qb[3]);
        int in = 0;
        for (int k = 0; k < nt && !in; k++)
            in = izb_tri_occludes(&tris[k], x, y, 1e30f);
        edge_samples++;
        edge_missed += !in;
    }
    printf("small far triangles: %d/%d interior and %d/%d shared-edge points missed, worst key error %.3g\n",
           missed, samples, edge_missed, edge_samples, worst);
    CHECK(missed == 0, "%d interior points of the patch in no triangle", missed);
    CHECK(edge_missed == 0, "%d points on shared edges in neither triangle: light leaks", edge_missed);
    CHECK(worst < 1e-5, "key error %g relative, must stay well below the bias %g", worst, IZB_DEFAULT_BIAS);
}

/* Grid size and cell hash: clamping, NaN, flat bboxes, monotonic ranges that contain the cells of
 * the points inside a triangle. */
static void test_grid(void)
{
    izb_bbox b = {0.0f, 0.0f, 1.0f, 2.0f};
    izb_grid g = izb_grid_make(b, 12345, 4, 8);
    CHECK(g.w == 4 && g.h == 8, "requested grid size kept: %dx%d", g.w, g.h);
    CHECK(izb_cell_x(&g, -5.0f) == 0 && izb_cell_x(&g, 5.0f) == 3, "x clamps into [0, w-1]");
    CHECK(izb_cell_y(&g, -INFINITY) == 0 && izb_cell_y(&g, INFINITY) == 7, "y clamps infinities");
    CHECK(izb_cell_x(&g, NAN) == 0 && izb_cell_y(&g, NAN) == 0 && izb_cell_hash(&g, NAN, NAN) == 0, "NaN -> 0");
    CHECK(izb_cell_x(&g, 0.3f) == 1 && izb_cell_x(&g, 1.0f) == 3 && izb_cell_x(&g, 0.0f) == 0, "x cells");
    CHECK(izb_cell_y(&g, 0.3f) == 1 && izb_cell_y(&g, 2.0f) == 7 && izb_cell_y(&g, 1.99f) == 7, "y cells");
    CHECK(izb_cell_hash(&g, 0.8f, 1.1f) == 4u * 4u + 3u, "hash = cy * w + cx: %u", izb_cell_hash(&g, 0.8f, 1.1f));

    /* adaptive: ~8 points per cell, square-ish cells, bounded sides */
    izb_grid a = izb_grid_make((izb_bbox){-1, -1, 1, 1}, 80000, 0, 0);
    CHECK(a.w * a.h >= 9000 && a.w * a.h <= 11000 && abs(a.w - a.h) <= 1, "adaptive grid %dx%d", a.w, a.h);
    a = izb_grid_make((izb_bbox){0, 0, 4, 1}, 80000, 0, 0);
    CHECK(a.w >= 3 * a.h && a.w <= 5 * a.h, "adaptive grid follows the aspect: %dx%d", a.w, a.h);
    a = izb_grid_make((izb_bbox){0, 0, 1, 1}, 1, 0, 0);
    CHECK(a.w == 1 && a.h == 1, "one point: 1x1 grid, got %dx%d", a.w, a.h);
    a = izb_grid_make((izb_bbox){0, 0, 1, 1}, 2000000000, 0, 0);
    CHECK(a.w <= IZB_GRID_MAX_DIM && a.h <= IZB_GRID_MAX_DIM, "sides bounded: %dx%d", a.w, a.h);
    a = izb_grid_make((izb_bbox){0.5f, 0.5f, 0.5f, 0.5f}, 1000, 0, 0);
    CHECK(a.inv_cell_w == 0.0f && a.inv_cell_h == 0.0f && izb_cell_hash(&a, 0.5f, 0.5f) == 0,
          "flat bbox: every point in cell 0");

    /* monotonic: sorted x give non-decreasing cells */
    int prev = 0, mono = 1;
    for (int i = 0; i <= 10000; i++) {
        int c = izb_cell_x(&g, -0.5f + 2.0f * (float)i / 10000.0f);
        mono &= c >= prev;
        prev = c;
    }
    CHECK(mono, "cell_x is monotonic");

    /* random triangles (w = 1): every point inside lies in the triangle's cell range */
    izb_bbox pb = {-1.0f, -1.0f, 1.0f, 1.0f};
    izb_grid gg = izb_grid_make(pb, 0, 97, 61);
    int inside = 0, bad = 0;
    for (int it = 0; it < 300; it++) {
        float v[3][4];
        for (int k = 0; k < 3; k++) {
            v[k][0] = (float)rnd_in(-1.2, 1.2);
            v[k][1] = (float)rnd_in(-1.2, 1.2);
            v[k][2] = 0.0f;
            v[k][3] = 1.0f;
        }
        izb_tri t;
        if (!izb_tri_setup(v, &gg, &pb, false, &t))
            continue;
        for (int s = 0; s < 300; s++) {
            float x = (float)rnd_in(-1, 1), y = (float)rnd_in(-1, 1);
            if (!izb_tri_occludes(&t, x, y, 1.0f))
                continue;
            inside++;
            int cx = izb_cell_x(&gg, x), cy = izb_cell_y(&gg, y), cx0, cy0, cx1, cy1;
            izb_tri_cells(&t, &gg, &cx0, &cy0, &cx1, &cy1);
            bad += cx < cx0 || cx > cx1 || cy < cy0 || cy > cy1;
        }
    }
    CHECK(inside > 1000 && bad == 0, "%d of %d inside points outside their triangle's cell range", bad, inside);
}

/* Reconstruction: pixel + linear view depth -> world (in double, from the camera alone) -> light
 * clip space must equal izb_reconstruct's point; sky, cone and behind-light classification. */
static void test_reconstruct(void)
{
    const float bmin[3] = {-5, -1, -5}, bmax[3] = {5, 4, 5};
    camera cam = {.pos = {0.5f, 2.0f, 9.0f}, .yaw = 10.0f, .pitch = -15.0f, .fovy = 55.0f};
    camera_fit_clip(&cam, bmin, bmax);
    const int W = 301, H = 203;
    light lights[2] = {{.type = LIGHT_DIRECTIONAL, .dir = {0.4f, -1.0f, -0.3f}},
                       {.type = LIGHT_SPOT, .pos = {2, 5, 2}, .dir = {-0.3f, -1, -0.3f}, .cone_deg = 70}};
    float view[16], proj[16];
    camera_view(&cam, view);
    camera_proj(&cam, (float)W / (float)H, proj);
    for (int li = 0; li < 2; li++) {
        izb_recon r = izb_frame_make(&cam, &lights[li], bmin, bmax, W, H);
        CHECK(r.width == W && r.height == H && r.light_is_spot == li && r.bias == IZB_DEFAULT_BIAS,
              "frame fields");
        CHECK(fabs(r.ray_sx - tan(27.5 * M_PI / 180.0) * W / H) < 1e-5 && fabs(r.ray_sy - tan(27.5 * M_PI / 180.0)) < 1e-6,
              "view ray scale %g %g", r.ray_sx, r.ray_sy);
        double worst_xy = 0, worst_key = 0;
        int samples = 0, unlit = 0, unlit_bad = 0;
        for (int it = 0; it < 3000; it++) {
            int px = (int)(rnd() * W), py = (int)(rnd() * H);
            float d = (float)rnd_in(0.5, 15.0);
            /* independent: view-space point from the projection matrix, world by inverting the
             * rigid view matrix in double, light clip by the light matrix in double */
            double ndc_x = (2.0 * px + 1.0) / W - 1.0, ndc_y = (2.0 * py + 1.0) / H - 1.0;
            double v[3] = {ndc_x * d / proj[0], ndc_y * d / proj[5], -(double)d}, p[3], q[4];
            for (int j = 0; j < 3; j++)
                p[j] = view[4 * j] * (v[0] - view[12]) + view[4 * j + 1] * (v[1] - view[13]) +
                       view[4 * j + 2] * (v[2] - view[14]);
            xform_d(r.light, p, q);
            izb_point pt;
            r.bias = 0.0f;
            izb_sample_kind k = izb_reconstruct(&r, px, py, d, &pt);
            /* the round cone: the unit circle of the light's clip x/w, y/w */
            const double rad = hypot(q[0] / q[3], q[1] / q[3]);
            bool out_of_cone = li == 1 && (!(q[3] > 1e-3) || rad > 1.0);
            bool near_cone = li == 1 && q[3] > 0 && fabs(rad - 1.0) < 1e-4;
            if (near_cone)
                continue;
            if (out_of_cone) {
                unlit++;
                unlit_bad += k != IZB_UNLIT;
                continue;
            }
            CHECK(k == IZB_SAMPLE, "sample expected at (%d, %d)", px, py);
            if (k != IZB_SAMPLE)
                continue;
            samples++;
            CHECK(pt.pixel == (uint32_t)(py * W + px), "pixel index");
            double ex = fmax(fabs(pt.x - q[0] / q[3]), fabs(pt.y - q[1] / q[3]));
            double ek = rel_err(pt.z, q[2] / q[3]);
            worst_xy = fmax(worst_xy, ex);
            worst_key = fmax(worst_key, li == 0 ? fabs(pt.z - q[2] / q[3]) : ek);
            /* the bias moves the key toward the light */
            izb_point pb = {0};
            r.bias = IZB_DEFAULT_BIAS;
            CHECK(izb_reconstruct(&r, px, py, d, &pb) == IZB_SAMPLE, "biased reconstruction is a sample");
            CHECK(pb.z < pt.z && pb.x == pt.x && pb.y == pt.y, "bias lowers the key only");
            if (li == 1)
                CHECK(fabs(pb.z / pt.z - (1.0 + IZB_DEFAULT_BIAS)) < 1e-5, "spot bias is relative: %g",
                      pb.z / pt.z);
            else
                CHECK(fabs((pt.z - pb.z) - IZB_DEFAULT_BIAS) < 1e-6, "ortho bias is absolute");
        }
        printf("reconstruct %s: %d samples, %d unlit, worst |dxy| %.3g, worst key error %.3g\n",
               li ? "spot" : "directional", samples, unlit, worst_xy, worst_key);
        CHECK(samples > 500, "enough samples");
        CHECK(unlit_bad == 0, "%d points outside the cone or behind the light not UNLIT", unlit_bad);
        CHECK(worst_xy < 2e-5, "light image position error %g", worst_xy);
        CHECK(worst_key < 2e-5, "key error %g", worst_key);
        if (li == 1)
            CHECK(unlit > 100, "the spot cone leaves points unlit: %d", unlit);
    }
    izb_recon r = izb_frame_make(&cam, &lights[0], bmin, bmax, W, H);
    izb_point pt;
    CHECK(izb_reconstruct(&r, 0, 0, 0.0f, &pt) == IZB_SKY && izb_reconstruct(&r, 0, 0, NAN, &pt) == IZB_SKY &&
              izb_reconstruct(&r, 0, 0, INFINITY, &pt) == IZB_SKY && izb_reconstruct(&r, 0, 0, -1.0f, &pt) == IZB_SKY,
          "0, NaN, Inf and negative depth are sky");
    /* a point behind the spot light */
    light behind = {.type = LIGHT_SPOT, .pos = {0, 0, 0}, .dir = {0, 0, 1}, .cone_deg = 60};
    camera c2 = {.pos = {0, 0, 5}, .fovy = 60, .near = 0.1f, .far = 100};
    izb_recon rb = izb_frame_make(&c2, &behind, bmin, bmax, 11, 11);
    CHECK(izb_reconstruct(&rb, 5, 5, 10.0f, &pt) == IZB_UNLIT, "point at z = -5 behind a light looking at +z");
    CHECK(izb_reconstruct(&rb, 5, 5, 2.0f, &pt) == IZB_SAMPLE, "point at z = 3 in front of it");
}

/* camera_fit_clip: from anywhere, inside the bounds or far outside, every corner of the bounds
 * lies before the far plane (a far plane that cuts the scene drops its far side from the image) */
static void test_fit_clip(void)
{
    const float bmin[3] = {-10.0f, -1.0f, -4.0f}, bmax[3] = {6.0f, 3.0f, 12.0f};
    const float eyes[][3] = {{0, 0, 0}, {30, 5, -20}, {-10, -1, -4}, {100, 50, 100}};
    for (size_t e = 0; e < sizeof eyes / sizeof eyes[0]; e++) {
        camera c = {.pos = {eyes[e][0], eyes[e][1], eyes[e][2]}};
        camera_fit_clip(&c, bmin, bmax);
        double worst = 0.0;
        for (int k = 0; k < 8; k++) {
            const double p[3] = {k & 1 ? bmax[0] : bmin[0], k & 2 ? bmax[1] : bmin[1], k & 4 ? bmax[2] : bmin[2]};
            double d2 = 0.0;
            for (int i = 0; i < 3; i++)
                d2 += (p[i] - c.pos[i]) * (p[i] - c.pos[i]);
            worst = fmax(worst, sqrt(d2));
        }
        CHECK(c.near > 0.0f && c.far >= worst, "eye %zu: far %g reaches the farthest corner at %g", e, (double)c.far,
              worst);
    }
}

int main(void)
{
    test_fit_clip();
    test_edges();
    test_conventions();
    test_spot_depth();
    test_small_far();
    test_grid();
    test_reconstruct();
    return test_done();
}
