/* test_pcss.c — the PCSS reference (core/izb_pcss.h) against geometry worked out here,
 * independently of its formulas:
 *  - the penumbra scale: for random directional lights and scene bounds, a world ray at angle/2
 *    from the light's axis moves on the map by k per unit of map depth (the light's matrix applied
 *    to two points, not the rows' norms);
 *  - a straight blocker edge: over a flat receiver the lit fraction across the edge follows the
 *    share of the penumbra disk (radius k (z_r - z_b)) the half-plane leaves open, the exact
 *    circular-segment area, within the 64-tap pattern's error; both axes, random depths and
 *    angles;
 *  - receiver-plane bias: a tilted receiver over its own map (the plane at texel centres plus a
 *    slope-scaled offset, as glPolygonOffset) is fully lit with its slope passed, and shadows
 *    itself without it (the bias is what keeps it lit);
 *  - a blocker outside the search disk, or none: lit; a receiver nearer than every texel: lit;
 *  - area lights (izb_pcss_make_area, a spot with a W x H emitter): for random spots, the map
 *    displacement of the segment from a receiver to the emitter's edge, where it crosses a blocker's
 *    depth, is k (z_r - z_b) (world points through the matrix, not its rows' norms), and z0 is the
 *    map depth of d_min; a straight blocker edge at depth d_b over a receiver at d_r, across either
 *    axis: the lit fraction follows the share of the emitter the receiver sees past the edge, worked
 *    out in world space (similar triangles) — a disk emitter's exact circular segment within the
 *    taps' error, a rectangle's straight ramp within that plus the inscribed ellipse's profile gap;
 *    bad inputs (a matrix that is not perspective, d_min at or before the near plane, NaN, inf).
 * Suite cpu; well under a second. */
#undef NDEBUG
#include <math.h>
#include <string.h>

#include "izb_pcss.h"
#include "test.h"
#include "test_rng.h"
#include "view.h"

enum { N = 512 };
static float map[N * N];

/* an identity-like orthographic light: u, v, z each clip/2 + 1/2 of world x, y, z in [-1, 1] */
static izb_pcss ortho_params(double angle)
{
    const float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    izb_pcss p;
    izb_pcss_make(m, (float)angle, N, &p);
    return p;
}

static void check_scale(void)
{
    double worst = 0.0;
    for (int k = 0; k < 200; k++) {
        const double el = rnd_in(0.2, 1.5), az = rnd_in(0.0, 6.283), angle = rnd_in(0.002, 0.35);
        light l = {.type = LIGHT_DIRECTIONAL,
                   .dir = {(float)(cos(el) * cos(az)), (float)-sin(el), (float)(cos(el) * sin(az))}};
        float bmin[3], bmax[3];
        for (int a = 0; a < 3; a++) {
            bmin[a] = (float)rnd_in(-20.0, 0.0);
            bmax[a] = bmin[a] + (float)rnd_in(0.5, 30.0);
        }
        float m[16];
        light_matrices(&l, bmin, bmax, m, NULL);
        izb_pcss p;
        izb_pcss_make(m, (float)angle, 2048, &p);
        /* axis, and a unit vector across it */
        double a[3] = {l.dir[0], l.dir[1], l.dir[2]}, e[3] = {-a[2], 0.0, a[0]}, na = 0.0, ne = 0.0;
        for (int i = 0; i < 3; i++)
            na += a[i] * a[i], ne += e[i] * e[i];
        const double rot = rnd_in(0.0, 6.283),
                     f[3] = {a[1] * e[2] - a[2] * e[1], a[2] * e[0] - a[0] * e[2], a[0] * e[1] - a[1] * e[0]};
        double q0[3], q1[3];
        for (int i = 0; i < 3; i++) {
            a[i] /= sqrt(na), e[i] /= sqrt(ne);
            q0[i] = 0.5 * (bmin[i] + bmax[i]);
        }
        double nf = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
        const double t = 0.3 * (bmax[0] - bmin[0]);
        for (int i = 0; i < 3; i++) {
            const double across = cos(rot) * e[i] + sin(rot) * f[i] / nf;
            q1[i] = q0[i] + t * (cos(0.5 * angle) * a[i] + sin(0.5 * angle) * across);
        }
        double map0[3], map1[3];
        for (int r = 0; r < 3; r++) {
            map0[r] = map1[r] = 0.5 + 0.5 * m[12 + r];
            for (int c = 0; c < 3; c++)
                map0[r] += 0.5 * m[4 * c + r] * q0[c], map1[r] += 0.5 * m[4 * c + r] * q1[c];
        }
        const double du = map1[0] - map0[0], dv = map1[1] - map0[1], dz = map1[2] - map0[2];
        const double got = sqrt(du * du + dv * dv) / dz; /* ku == kv for the square box */
        const double err = fabs(got - p.ku) / p.ku + fabs(p.ku - p.kv) / p.ku;
        if (err > worst) worst = err;
    }
    CHECK(worst < 1e-4, "map displacement per depth of a ray at angle/2 == k: worst relative error %.2e",
          worst);
}

/* the open share of a disk of radius R whose centre is t from a half-plane's edge (t > 0: on the open side)
 */
static double open_share(double t, double R)
{
    if (t >= R) return 1.0;
    if (t <= -R) return 0.0;
    const double covered = R * R * acos(t / R) - t * sqrt(R * R - t * t); /* the segment past the edge */
    return 1.0 - covered / (M_PI * R * R);
}

static void check_edge(void)
{
    double worst = 0.0, sum = 0.0;
    long n = 0;
    for (int k = 0; k < 24; k++) {
        const int axis = k & 1;
        const double angle = rnd_in(0.1, 0.35);
        const float zb = (float)rnd_in(0.1, 0.5), zr = (float)rnd_in(0.6, 0.95);
        /* texels with their axis coordinate below N/2 hold the blocker; the rest nothing (depth 1) */
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++)
                map[y * N + x] = (axis ? y : x) < N / 2 ? zb : 1.0f;
        const izb_pcss p = ortho_params(angle);
        const double R = tan(0.5 * angle) * (zr - zb); /* independent of izb_pcss_filter_radius */
        CHECK(R * N > 4.0, "a penumbra of %.1f texels", R * N);
        for (int i = 0; i <= 60; i++) {
            const double t = (i / 30.0 - 1.0) * 1.4 * R;
            float s[3] = {0.5f + (float)t, 0.5f + (float)rnd_in(-0.1, 0.1), zr}, g[2] = {0.0f, 0.0f};
            if (axis) {
                const float sw = s[0];
                s[0] = s[1], s[1] = sw;
            }
            const double e = fabs(izb_pcss_lit(&p, map, s, g, (int)rnd_in(0.0, 16.0)) - open_share(t, R));
            worst = fmax(worst, e);
            sum += e, n++;
        }
    }
    printf("edge: lit fraction against the disk's open share: mean |error| %.4f, worst %.4f\n", sum / n,
           worst);
    /* 64 Vogel taps estimate a half-disk's area to about 1.5/64 at worst; 4/64 leaves room for a
     * tap on the edge, and a wrong scale (say 2x) is off by 0.2 and more */
    CHECK(worst < 4.0 / 64.0 && sum / n < 1.0 / 64.0, "edge: mean %.4f, worst %.4f", sum / n, worst);
}

static void check_tilted(void)
{
    long lit_with = 0, lit_without = 0, trials = 0;
    for (int k = 0; k < 40; k++) {
        const float gx = (float)rnd_in(-3.0, 3.0), gy = (float)rnd_in(-3.0, 3.0);
        const float z0 = (float)rnd_in(0.3, 0.7);
        /* the plane at each texel's centre, plus glPolygonOffset's slope term: the depth change
         * across one texel */
        const float off = (fabsf(gx) + fabsf(gy)) / (float)N;
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++)
                map[y * N + x] =
                    z0 + gx * (((float)x + 0.5f) / N - 0.5f) + gy * (((float)y + 0.5f) / N - 0.5f) + off;
        const izb_pcss p = ortho_params(rnd_in(0.05, 0.35));
        for (int i = 0; i < 20; i++) {
            const float u = (float)rnd_in(0.45, 0.55), v = (float)rnd_in(0.45, 0.55);
            const float s[3] = {u, v, z0 + gx * (u - 0.5f) + gy * (v - 0.5f)}, g[2] = {gx, gy},
                        g0[2] = {0.0f, 0.0f};
            lit_with += izb_pcss_lit(&p, map, s, g, i) == 1.0f;
            lit_without += izb_pcss_lit(&p, map, s, g0, i) == 1.0f;
            trials++;
        }
    }
    CHECK(lit_with == trials, "a tilted receiver over its own plane: %ld of %ld fully lit", lit_with, trials);
    CHECK(lit_without < trials / 2, "without its slope it shadows itself (%ld of %ld lit)", lit_without,
          trials);
}

static void check_no_blocker(void)
{
    const izb_pcss p = ortho_params(0.2);
    const float zr = 0.8f, g[2] = {0.0f, 0.0f};
    /* a blocker only beyond the search disk's reach (radius k z_r) */
    const double reach = tan(0.1) * zr;
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
            map[y * N + x] = ((double)x + 0.5) / N > 0.5 + reach + 2.0 / N ? 0.2f : 1.0f;
    const float s[3] = {0.5f, 0.5f, zr};
    for (int rot = 0; rot < IZB_PCSS_ROTATIONS; rot++)
        CHECK(izb_pcss_lit(&p, map, s, g, rot) == 1.0f, "a blocker out of reach hides nothing (rotation %d)",
              rot);
    const float near[3] = {0.5f, 0.5f, 0.1f}, edge[3] = {0.999f, 0.5f, 0.9f}, out[3] = {1.5f, 0.5f, 0.9f};
    CHECK(izb_pcss_lit(&p, map, near, g, 3) == 1.0f, "a receiver nearer than every blocker is lit");
    for (int i = 0; i < N * N; i++)
        map[i] = 1.0f;
    CHECK(izb_pcss_lit(&p, map, edge, g, 5) == 1.0f && izb_pcss_lit(&p, map, out, g, 7) == 1.0f,
          "no blocker, and taps off the map: lit");
}

/* a random spot light over a random box, its GL matrix m, and its frame: the aim a (unit), the
 * image axes x and y (unit), the position */
typedef struct spot_frame {
    float m[16];
    double a[3], x[3], y[3], pos[3], reach; /* reach: distance from the light to the box's centre */
} spot_frame;

static spot_frame random_spot(void)
{
    spot_frame f;
    const double el = rnd_in(0.5, 1.5), az = rnd_in(0.0, 6.283), reach = rnd_in(2.0, 40.0);
    light l = {.type = LIGHT_SPOT,
               .pos = {(float)rnd_in(-10.0, 10.0), (float)rnd_in(2.0, 20.0), (float)rnd_in(-10.0, 10.0)},
               .dir = {(float)(cos(el) * cos(az)), (float)-sin(el), (float)(cos(el) * sin(az))},
               .cone_deg = (float)rnd_in(30.0, 100.0)};
    float bmin[3], bmax[3];
    for (int i = 0; i < 3; i++) {
        const double c = l.pos[i] + reach * l.dir[i], half = reach * rnd_in(0.3, 0.9);
        bmin[i] = (float)(c - half), bmax[i] = (float)(c + half);
    }
    light_matrices(&l, bmin, bmax, NULL, f.m);
    double na = 0.0, nx = 0.0, ny = 0.0;
    for (int c = 0; c < 3; c++) {
        f.a[c] = f.m[4 * c + 3], f.x[c] = f.m[4 * c], f.y[c] = f.m[4 * c + 1], f.pos[c] = l.pos[c];
        na += f.a[c] * f.a[c], nx += f.x[c] * f.x[c], ny += f.y[c] * f.y[c];
    }
    for (int c = 0; c < 3; c++)
        f.a[c] /= sqrt(na), f.x[c] /= sqrt(nx), f.y[c] /= sqrt(ny);
    f.reach = reach;
    return f;
}

/* the world point at distance d along the aim, lateral (x, y) in the light's image axes */
static void spot_point(const spot_frame *f, double d, double x, double y, double out[3])
{
    for (int c = 0; c < 3; c++)
        out[c] = f->pos[c] + d * f->a[c] + x * f->x[c] + y * f->y[c];
}

/* map (u, v, z) of a world point: the matrix applied, window coordinates */
static void spot_project(const spot_frame *f, const double q[3], double out[3])
{
    double c[4];
    for (int r = 0; r < 4; r++)
        c[r] = f->m[12 + r] + f->m[r] * q[0] + f->m[4 + r] * q[1] + f->m[8 + r] * q[2];
    for (int r = 0; r < 3; r++)
        out[r] = 0.5 * c[r] / c[3] + 0.5;
}

static void check_area_scale(void)
{
    double worst = 0.0, worst_z0 = 0.0;
    for (int k = 0; k < 200; k++) {
        const spot_frame f = random_spot();
        const double w = rnd_in(0.01, 3.0), h = rnd_in(0.01, 3.0), dr = f.reach * rnd_in(0.3, 1.2),
                     db = dr * rnd_in(0.1, 0.95), dmin = db * rnd_in(0.2, 1.0);
        izb_pcss p;
        izb_pcss_make_area(f.m, (float)w, (float)h, (float)dmin, 2048, &p);
        for (int axis = 0; axis < 2; axis++) {
            /* receiver q; emitter edge e (half a side along the axis); where the segment q -> e, and
             * q's own ray to the light's centre, cross depth db: t = (dr - db) / dr of the way */
            double q[3], e[3], cross[3], centre[3], mq[3], mx[3], mc[3];
            const double qx = rnd_in(-0.3, 0.3) * dr, qy = rnd_in(-0.3, 0.3) * dr, t = (dr - db) / dr;
            spot_point(&f, dr, qx, qy, q);
            spot_point(&f, 0.0, axis ? 0.0 : 0.5 * w, axis ? 0.5 * h : 0.0, e);
            for (int c = 0; c < 3; c++)
                cross[c] = q[c] + t * (e[c] - q[c]), centre[c] = q[c] + t * (f.pos[c] - q[c]);
            spot_project(&f, q, mq);
            spot_project(&f, cross, mx);
            spot_project(&f, centre, mc);
            const double got = fabs(mx[axis] - mc[axis]) / (mq[2] - mc[2]), want = axis ? p.kv : p.ku;
            worst = fmax(worst, fabs(got - want) / want);
        }
        double qn[3], mn[3];
        spot_point(&f, dmin, 0.0, 0.0, qn);
        spot_project(&f, qn, mn);
        worst_z0 = fmax(worst_z0, fabs(fmax(mn[2], 0.0) - p.z0)); /* before the near plane: 0 */
    }
    printf("area: map displacement per map depth of a segment to the emitter's edge vs k: worst relative "
           "error %.2e; z0 vs the map depth of d_min: worst %.2e\n",
           worst, worst_z0);
    /* float depths near 1 (z = 1 - O(near / d)) carry about 1e-7 / (z_r - z_b) of relative error */
    CHECK(worst < 2e-3, "area: k is the emitter's map displacement per depth (worst relative error %.2e)",
          worst);
    /* z0 comes from the float matrix, whose rows carry the light's position in world units (tens):
     * their rounding (6e-8 of themselves) leaves a few 1e-6 in a depth near 1, and -O2 against -O3
     * moves it (1.9e-6 under the ASan build, 8e-7 in release); a wrong z0 is off by far more */
    CHECK(worst_z0 < 1e-5, "area: z0 is d_min's map depth (worst %.2e)", worst_z0);
}

/* the gap between a disk's open share and the straight ramp of a segment of the same width, the
 * largest and the mean over the edge test's receivers: how far the inscribed ellipse's profile is
 * from a rectangle's */
static void ellipse_rect_gap(double *largest, double *mean)
{
    *largest = *mean = 0.0;
    for (int i = 0; i <= 40; i++) {
        const double t = (i / 20.0 - 1.0) * 1.4,
                     g = fabs(open_share(t, 1.0) - fmin(1.0, fmax(0.0, 0.5 * (1.0 + t))));
        *largest = fmax(*largest, g);
        *mean += g / 41.0;
    }
}

static void check_area_edge(void)
{
    double worst[2] = {0.0, 0.0}, sum[2] = {0.0, 0.0};
    long n[2] = {0, 0};
    for (int k = 0; k < 32; k++) {
        const int axis = k & 1, rect = (k >> 1) & 1;
        const spot_frame f = random_spot();
        const double dr = f.reach * rnd_in(0.5, 1.0), db = dr * rnd_in(0.2, 0.8);
        /* an emitter whose penumbra spans 8 .. 40 texels in radius along the tested axis (|row|: the
         * test picks a size, the expectation below does not use it) */
        const double row = sqrt(axis ? f.m[1] * f.m[1] + f.m[5] * f.m[5] + f.m[9] * f.m[9]
                                     : f.m[0] * f.m[0] + f.m[4] * f.m[4] + f.m[8] * f.m[8]);
        const double side = 4.0 * rnd_in(8.0, 40.0) / N / (row * (1.0 / db - 1.0 / dr)),
                     other = side * rnd_in(0.3, 3.0), w = axis ? other : side, h = axis ? side : other;
        izb_pcss p;
        izb_pcss_make_area(f.m, (float)w, (float)h, (float)(db * rnd_in(0.5, 1.0)), N, &p);
        /* the blocker: the half-plane of lateral coordinate < 0 along the axis at depth db, whose map
         * edge is where the axis's image crosses 0 */
        double b[3], mb[3];
        spot_point(&f, db, 0.0, 0.0, b);
        spot_project(&f, b, mb);
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++)
                map[y * N + x] = ((axis ? y : x) + 0.5) / N < mb[axis] ? (float)mb[2] : 1.0f;
        const double half = 0.5 * side; /* the emitter's half-extent across the edge */
        for (int i = 0; i <= 40; i++) {
            /* the edge seen from the receiver: emitter points of lateral coordinate below ls are
             * hidden (the segment to them crosses depth db at lateral < 0); place the receiver so */
            const double ls = (i / 20.0 - 1.0) * 1.4 * half, lq = -ls * (dr - db) / db;
            const double lo = rnd_in(-0.05, 0.05) * dr;
            double q[3], mq[3];
            spot_point(&f, dr, axis ? lo : lq, axis ? lq : lo, q);
            spot_project(&f, q, mq);
            const float s[3] = {(float)mq[0], (float)mq[1], (float)mq[2]}, g[2] = {0.0f, 0.0f};
            const double seen = rect ? fmin(1.0, fmax(0.0, 0.5 * (1.0 - ls / half))) : open_share(-ls, half);
            const double e = fabs(izb_pcss_lit(&p, map, s, g, (int)rnd_in(0.0, 16.0)) - seen);
            worst[rect] = fmax(worst[rect], e);
            sum[rect] += e, n[rect]++;
        }
    }
    double gap, mean_gap;
    ellipse_rect_gap(&gap, &mean_gap);
    printf(
        "area edge: lit fraction against the emitter's visible share: disk mean %.4f worst %.4f; rectangle "
        "mean %.4f worst %.4f (the ellipse's profile gap: mean %.4f, largest %.4f)\n",
        sum[0] / n[0], worst[0], sum[1] / n[1], worst[1], mean_gap, gap);
    CHECK(worst[0] < 4.0 / 64.0 && sum[0] / n[0] < 1.0 / 64.0, "area edge, disk: mean %.4f, worst %.4f",
          sum[0] / n[0], worst[0]);
    /* a rectangle: the taps' error on top of the inscribed ellipse's profile (the filter's shape, by
     * design); a wrong scale moves the ramp's ends and is off by 0.2 and more */
    CHECK(worst[1] < gap + 4.0 / 64.0 && sum[1] / n[1] < mean_gap + 1.0 / 64.0,
          "area edge, rectangle: mean %.4f, worst %.4f", sum[1] / n[1], worst[1]);
}

/* bad inputs to izb_pcss_make_area: a matrix that is not perspective gets k = 0 (a hard compare,
 * as angle 0); a d_min at or before the near plane, negative, NaN or infinite gets z0 in [0, 1]
 * (0 where it says nothing); the filter then answers a finite fraction */
static void check_area_bad(void)
{
    const spot_frame f = random_spot();
    const float ortho[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    izb_pcss p;
    izb_pcss_make_area(ortho, 1.0f, 1.0f, 1.0f, N, &p);
    CHECK(p.ku == 0.0f && p.kv == 0.0f && p.z0 == 0.0f, "an orthographic matrix: k = 0 (%g, %g)",
          (double)p.ku, (double)p.kv);
    const float dmin[5] = {0.0f, -1.0f, NAN, 1e-9f, INFINITY};
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
            map[y * N + x] = x < N / 2 ? 0.5f : 1.0f;
    for (int i = 0; i < 5; i++) {
        izb_pcss_make_area(f.m, 1.0f, 0.5f, dmin[i], N, &p);
        const float s[3] = {0.5f, 0.5f, 0.9f}, g[2] = {0.0f, 0.0f}, lit = izb_pcss_lit(&p, map, s, g, i);
        CHECK(p.ku > 0.0f && p.kv > 0.0f && p.z0 >= 0.0f && p.z0 <= 1.0f && (i == 4 || p.z0 == 0.0f) &&
                  lit >= 0.0f && lit <= 1.0f,
              "d_min %g: z0 %g, lit %g", (double)dmin[i], (double)p.z0, (double)lit);
    }
}

int main(void)
{
    check_scale();
    check_edge();
    check_tilted();
    check_no_blocker();
    check_area_scale();
    check_area_edge();
    check_area_bad();
    return test_done();
}
