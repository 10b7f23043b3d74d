/* izb_soft.h — soft shadows of a directional light with an angular size (issue 20, phase 1): the
 * per-element math, once, for the CPU backend, the brute force (tests/izb_brute.h) and, later, the
 * CUDA kernels. Explicit fmaf everywhere, no libm call on the device side.
 *
 * The light: a cone of full angle `light_angle` around the directional light's direction, seen as
 * M light samples (izb_soft_pattern), each a directional light of its own. Point p is hidden from
 * sample j when the ray p + t d_j, t > 0, passes through a triangle; the visibility mask
 * (izb_mask.h) has bit j set then, and the pixel's byte is the lit fraction.
 *
 * Where: the light's orthographic clip space (izb_math.h), which is affine to world space, so a
 * ray, a triangle and "passes through" map to themselves; clip z grows away from the light, so
 * every sample direction is d_j = (dx_j, dy_j, -1) with (dx_j, dy_j) the sample's offset on the
 * unit disk times tan(angle / 2), scaled by the clip space's x and y units per unit of z
 * (izb_soft_light_make). Only orthographic (directional) lights: clip w = 1, x, y, z are used.
 *
 * The test of one (point, triangle, sample): four signs, each linear in d_j —
 * - the three edge planes through p and an edge (V_a, V_b): e = ((V_a - p) x (V_b - V_a)) . d.
 *   The ray's line crosses the triangle when the three e agree in sign, zeros allowed (inclusive
 *   edges, as the hard test: no light leaks along a shared edge). Each edge is computed with its
 *   two vertices in a canonical order (the lexicographically smaller first, the result negated when
 *   swapped), so a neighbour's copy of a shared edge gives exactly the negated numbers and a ray
 *   through the edge is inside one of the two triangles, whatever the rounding;
 * - the triangle's plane, normal n = (V_1 - V_0) x (V_2 - V_0): the line meets it at
 *   t = n . (V_0 - p) / n . d, which must be > beta, the bias (strict: a triangle containing p, or
 *   parallel to d, hides nothing).
 * NaN anywhere makes every compare false: the triangle hides nothing. A degenerate triangle (n = 0
 * or not finite) is dropped by its setup.
 *
 * Against the hard test (izb_tri_occludes), as the angle goes to 0: d -> (0, 0, -1), the edge
 * signs become the 2D edge functions at p and the plane test becomes "the triangle's depth at p
 * is below p's key", so the two agree but for rounding: within a few ulps of an edge and where
 * the triangle's depth at p is within rounding of p's biased key. Angle 0 therefore never comes
 * here: backends take the hard path, bit for bit.
 *
 * The bias, per sample: the points are binned as for hard shadows, key - beta (izb_clip_point,
 * beta = the frame's bias), but the pair test puts p back at its own key and asks for t > beta
 * along each sample's own ray: the ground truth's rays (tools/oracle.c, tnear = beta in key units
 * along the centre direction; a sample's ray tilted by a starts at beta cos a, within 1.5e-2 beta
 * of it at 20 degrees, 1.5e-4 beta at 2). Moving p toward the light's CENTRE instead, as the hard
 * path does, puts it under its own surface wherever that faces slightly away from the centre (the
 * terminator of a curved mesh): then a neighbour facet hides samples above the point's horizon
 * that the truth's rays reach (issue 20: 0.02% of the answers on spheres:1M, docs/exactness.md).
 * A sample below the point's own horizon is hidden by its surface's other side, as in the truth
 * (with primitive ids the point's own triangle is still ignored, izb_hit_is_own).
 *
 * Penumbra region: a hit point lies on the triangle, so at z >= z_min (its nearest vertex), and
 * the ray from p reaches it after t = p.z - z_hit <= p.z - z_min; it moves at most t * (rx, ry)
 * across the image plane (rx, ry: the largest |dx|, |dy|). So the triangle's bbox grown by
 * (rx, ry) * (p.z - z_min) holds p if t hides any sample of p (izb_soft_box_at; p.z is the binned
 * key plus beta, so the set-up stores z_min - beta and the box runs from the binned key). The pair
 * test checks that box first (like the hard test's bbox: a point outside it is never hidden, whatever
 * the rounding), so it is part of the predicate and every traversal agrees with the brute force
 * exactly. The box grows with p.z, so the box for the farthest point of a cell bounds the cell:
 * the rasterisers visit a triangle's cells in the range of its box for the frame's farthest point,
 * and in it only the cells whose own farthest point's box reaches them (per-cell bounds: a
 * receiver just under an occluder costs tests only within its own short reach). */
#ifndef IZB_SOFT_H
#define IZB_SOFT_H

#include <string.h>

#include "izb_alpha.h"
#include "izb_mask.h"
#include "izb_math.h"

/* The largest angular size accepted (degrees, full cone): about 38 times the sun's 0.53. Beyond it the
 * disk-of-tangents pattern stops being close to uniform in angle and the penumbrae cover so much
 * of the grid that the IZB loses its point. */
#define IZB_SOFT_MAX_ANGLE_DEG 20.0f
#define IZB_SOFT_DEFAULT_SAMPLES 32

/* M must be one of 16, 32, 64, 128, 256. */
IZB_HD bool izb_soft_samples_ok(int m)
{
    return m == 16 || m == 32 || m == 64 || m == 128 || m == 256;
}

/* The sample pattern: m points on the unit disk, a Vogel (golden-angle) spiral — sample j at radius
 * sqrt((j + 0.5) / m), angle j * 137.5 degrees. Every ring of the disk of equal area holds the same
 * number of samples and the angles never line up, so a penumbra edge in any direction sweeps them
 * one by one (stratified, no grid aliasing). The angle is advanced by a rotation with constant
 * cosine and sine (fmaf), not by cosf/sinf, so the pattern is bitwise the same on every device. */
IZB_HD_COLD void izb_soft_pattern(int m, float *ox, float *oy)
{
    const float cg = -0.73736887807831963f, sg = 0.67549029426152364f; /* cos, sin of pi (3 - sqrt 5) */
    float c = 1.0f, s = 0.0f;
    for (int j = 0; j < m; j++) {
        const float r = sqrtf(((float)j + 0.5f) / (float)m);
        ox[j] = r * c;
        oy[j] = r * s;
        const float c2 = fmaf(c, cg, -s * sg), s2 = fmaf(s, cg, c * sg);
        c = c2, s = s2;
    }
}

/* A frame's light samples in light clip space: direction j is (dx[j], dy[j], -1), j < m (entries
 * past m are 0); rx, ry bound |dx|, |dy| (the penumbra's growth per unit of depth). */
typedef struct izb_soft_light {
    int m;
    float rx, ry;
    float beta; /* receiver offset: hidden only past t > beta along a sample's ray (izb_soft_pair_range) */
    float dx[IZB_MASK_MAX_BITS], dy[IZB_MASK_MAX_BITS];
} izb_soft_light;

/* The samples of frame f (light_angle > 0, light_samples valid, orthographic light). The light's
 * world -> clip matrix has orthogonal rows (scale * rotation + translation), so a world direction
 * at angle a from the light's axis has a clip offset of tan(a) times (row x's norm, row y's norm) /
 * row z's norm per unit of clip z. Host only (tan and the norms in double, then one rounding), so
 * every backend gets the same floats from the host. */
static inline void izb_soft_light_make(const izb_recon *f, izb_soft_light *out)
{
    memset(out, 0, sizeof *out);
    const float *l = f->light;
    double norm[3];
    for (int r = 0; r < 3; r++)
        norm[r] = sqrt((double)l[r] * l[r] + (double)l[4 + r] * l[4 + r] + (double)l[8 + r] * l[8 + r]);
    const double tan_half = tan(0.5 * (double)f->light_angle);
    out->m = f->light_samples;
    out->beta = f->bias; /* the key moves by `bias` per unit of t along d = (dx, dy, -1) */
    out->rx = (float)(tan_half * norm[0] / norm[2]);
    out->ry = (float)(tan_half * norm[1] / norm[2]);
    izb_soft_pattern(out->m, out->dx, out->dy);
    for (int j = 0; j < out->m; j++) {
        out->dx[j] *= out->rx;
        out->dy[j] *= out->ry;
    }
}

/* d . v for a sample direction d = (dx, dy, -1) */
IZB_HD float izb_soft_dot(const float v[3], float dx, float dy)
{
    return fmaf(v[0], dx, fmaf(v[1], dy, -v[2]));
}

/* A triangle set up for soft shadows: its vertices (clip x, y, z), its plane's normal, the range
 * of n . d over the frame's samples (a pair whose plane side no sample can cross is done at once),
 * its bbox on the image plane [x0, x1] x [y0, y1] (grown for rounding), its nearest depth zmin and
 * the penumbra's growth per unit of depth past zmin, gx and gy (izb_soft_box_at). */
typedef struct izb_soft_tri {
    float v[3][3];
    float n[3];
    float nd_lo, nd_hi;
    float x0, y0, x1, y1;
    float zmin, gx, gy;
    float beta; /* izb_soft_light.beta */
} izb_soft_tri;

/* The penumbra box of t for receivers at depth key z: every point at depth <= z whose samples t can
 * hide lies in it (the top of the file). Monotonic in z, so the box for a cell's farthest point
 * holds the boxes of all its points; NaN z gives the bare bbox. */
IZB_HD void izb_soft_box_at(const izb_soft_tri *t, float z, float *x0, float *y0, float *x1, float *y1)
{
    const float d = izb_maxf(0.0f, z - t->zmin);
    const float gx = t->gx * d, gy = t->gy * d;
    *x0 = t->x0 - gx, *x1 = t->x1 + gx, *y0 = t->y0 - gy, *y1 = t->y1 + gy;
}

/* Set up a triangle (vertices in light clip space, w = 1) for a frame whose points' keys are at most
 * zmax and lie in the bbox pb, with the samples L. False when it can hide no sample of any point:
 * degenerate, not finite, no point farther from the light than its nearest vertex, or its
 * penumbra box for the farthest receiver misses pb; or, when cull_back (izb_may_cull: on a closed
 * mesh), it faces away from every sample (n . d_j > 0 for all j: for d = (0, 0, -1) that is the
 * hard test's det < 0). Culling stays exact per sample as for hard shadows: a ray toward sample j
 * that crosses a closed mesh enters it through a face facing away from d_j and leaves it through
 * one facing d_j, which is kept because it does not face away from every sample. A face that is a
 * back face for the light's centre only is kept: it is the face a tilted sample's ray leaves by. */
IZB_HD bool izb_soft_tri_setup(const float v[3][4], float zmax, const izb_soft_light *L, const izb_bbox *pb,
                               bool cull_back, izb_soft_tri *out)
{
    for (int k = 0; k < 3; k++)
        for (int a = 0; a < 3; a++)
            out->v[k][a] = v[k][a];
    const float ax = v[1][0] - v[0][0], ay = v[1][1] - v[0][1], az = v[1][2] - v[0][2];
    const float bx = v[2][0] - v[0][0], by = v[2][1] - v[0][1], bz = v[2][2] - v[0][2];
    out->n[0] = fmaf(ay, bz, -az * by);
    out->n[1] = fmaf(az, bx, -ax * bz);
    out->n[2] = fmaf(ax, by, -ay * bx);
    const float nn = fabsf(out->n[0]) + fabsf(out->n[1]) + fabsf(out->n[2]);
    if (!(nn > 0.0f) || !(nn < INFINITY))
        return false;
    const float zmin = izb_minf(izb_minf(v[0][2], v[1][2]), v[2][2]);
    const float reach = zmax - zmin; /* keys are binned at key - beta: a hit lies at z < that */
    if (!(reach > 0.0f) || !(reach < INFINITY))
        return false;
    float lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < L->m; j++) {
        const float nd = izb_soft_dot(out->n, L->dx[j], L->dy[j]);
        lo = izb_minf(lo, nd);
        hi = izb_maxf(hi, nd);
    }
    out->nd_lo = lo, out->nd_hi = hi;
    if (cull_back && lo > 0.0f)
        return false; /* back-facing for every sample (see izb_soft_tri_setup's comment) */
    const float x0 = izb_minf(izb_minf(v[0][0], v[1][0]), v[2][0]), x1 = izb_maxf(izb_maxf(v[0][0], v[1][0]), v[2][0]);
    const float y0 = izb_minf(izb_minf(v[0][1], v[1][1]), v[2][1]), y1 = izb_maxf(izb_maxf(v[0][1], v[1][1]), v[2][1]);
    /* rounding: the float test accepts points a few ulps outside the exact region (as
     * izb_tri_front_bbox's margin); the growth is 1e-5 larger than the samples' reach for the
     * rounding of t * d */
    const float margin = 1e-6f * (fabsf(x0) + fabsf(x1) + fabsf(y0) + fabsf(y1) + (pb->max_x - pb->min_x) +
                                  (pb->max_y - pb->min_y));
    out->x0 = x0 - margin, out->x1 = x1 + margin, out->y0 = y0 - margin, out->y1 = y1 + margin;
    /* the box's growth runs from the receiver's own key, beta past its binned one (the top of the file) */
    out->zmin = zmin - L->beta;
    out->beta = L->beta;
    out->gx = L->rx * 1.00001f, out->gy = L->ry * 1.00001f;
    float bx0, by0, bx1, by1;
    izb_soft_box_at(out, zmax, &bx0, &by0, &bx1, &by1);
    return !(bx1 < pb->min_x) & !(bx0 > pb->max_x) & !(by1 < pb->min_y) & !(by0 > pb->max_y) & (bx0 == bx0) &
           (by0 == by0) & (bx1 == bx1) & (by1 == by1);
}

/* The cells t's penumbra box for receivers at depth <= z covers (as izb_tri_cells): the global
 * range with the frame's zmax, a cell's own with its farthest point's key. */
IZB_HD void izb_soft_tri_cells(const izb_soft_tri *t, float z, const izb_grid *g, int *cx0, int *cy0, int *cx1,
                               int *cy1)
{
    float x0, y0, x1, y1;
    izb_soft_box_at(t, z, &x0, &y0, &x1, &y1);
    *cx0 = izb_cell_x(g, x0);
    *cy0 = izb_cell_y(g, y0);
    *cx1 = izb_cell_x(g, x1);
    *cy1 = izb_cell_y(g, y1);
}

/* One (point, triangle) pair set up: the three edge planes through the point, and the open range
 * (lo, hi) of n . d for which the sample's ray meets the plane past beta (izb_soft_pair_range). */
typedef struct izb_soft_pair {
    float c[3][3];
    float lo, hi;
} izb_soft_pair;

/* The plane test of a pair whose point is on side s = n . (V_0 - p) of the triangle's plane: a
 * sample's ray meets the plane at t = s / nd, nd = n . d, and t > beta <=> nd in (0, s / beta) for
 * s > 0, in (s / beta, 0) for s < 0 (nd = 0: parallel, never). Two compares per sample, as the
 * bare t > 0 test (beta = 0: s / 0 = +-inf; s = 0: the range (0 or NaN, 0) is empty). The
 * quotient is rounded once, so t within an ulp of beta may go either way; the same on every
 * device. For an area light (izb_area.h) nd is n . (l - V_0) and the same range is t > beta /
 * (1 + beta) along the segment. A receiver on (or within rounding of) the triangle's plane has
 * s ~ 0 and an empty range: its own triangle, a coplanar neighbour, hides nothing. True when some
 * nd in [nd_lo, nd_hi] (the frame's samples, izb_soft_tri) falls in the range: false means false
 * for every sample, exactly. */
IZB_HD bool izb_soft_pair_range(float s, float beta, float nd_lo, float nd_hi, izb_soft_pair *out)
{
    const float q = s / beta;
    out->lo = s > 0.0f ? 0.0f : q;
    out->hi = s > 0.0f ? q : 0.0f;
    return (nd_hi > out->lo) & (nd_lo < out->hi);
}

/* c = (a - p) x (b - a), with a and b in canonical order (see the top of the file) */
IZB_HD void izb_soft_edge(const float a[3], const float b[3], float px, float py, float pz, float c[3])
{
    const bool swap = (a[0] > b[0]) | ((a[0] == b[0]) & ((a[1] > b[1]) | ((a[1] == b[1]) & (a[2] > b[2]))));
    const float *p = swap ? b : a, *q = swap ? a : b;
    const float ux = p[0] - px, uy = p[1] - py, uz = p[2] - pz;
    const float ex = q[0] - p[0], ey = q[1] - p[1], ez = q[2] - p[2];
    const float sg = swap ? -1.0f : 1.0f;
    c[0] = sg * fmaf(uy, ez, -uz * ey);
    c[1] = sg * fmaf(uz, ex, -ux * ez);
    c[2] = sg * fmaf(ux, ey, -uy * ex);
}

/* Set up the pair (t, the point binned at (x, y) with key z); false when no sample of the point can
 * be hidden by t: the point is outside t's penumbra box for its key (izb_soft_box_at), on t's
 * plane, or on the side of it that no sample's ray crosses toward past beta (the nd range,
 * izb_soft_pair_range). The point itself is the receiver's own, unbiased: its key z + beta (the
 * top of the file). Then izb_soft_sample_hidden answers per sample. */
IZB_HD bool izb_soft_pair_setup(const izb_soft_tri *t, float x, float y, float z, izb_soft_pair *out)
{
    float x0, y0, x1, y1;
    izb_soft_box_at(t, z, &x0, &y0, &x1, &y1);
    if (!((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)))
        return false;
    const float pz = z + t->beta;
    const float s = fmaf(t->n[0], t->v[0][0] - x, fmaf(t->n[1], t->v[0][1] - y, t->n[2] * (t->v[0][2] - pz)));
    if (!izb_soft_pair_range(s, t->beta, t->nd_lo, t->nd_hi, out))
        return false;
    izb_soft_edge(t->v[0], t->v[1], x, y, pz, out->c[0]);
    izb_soft_edge(t->v[1], t->v[2], x, y, pz, out->c[1]);
    izb_soft_edge(t->v[2], t->v[0], x, y, pz, out->c[2]);
    return true;
}

/* Is sample direction (dx, dy, -1) of the pair's point hidden by its triangle (normal n)? The line
 * crosses the triangle (three edge signs) past the offset beta (nd in the pair's range,
 * izb_soft_pair_range). Branch free: the CPU runs it over the samples in vector lanes. */
IZB_HD bool izb_soft_sample_hidden(const izb_soft_pair *p, const float n[3], float dx, float dy)
{
    const float e0 = izb_soft_dot(p->c[0], dx, dy), e1 = izb_soft_dot(p->c[1], dx, dy);
    const float e2 = izb_soft_dot(p->c[2], dx, dy), nd = izb_soft_dot(n, dx, dy);
    const bool pos = (e0 >= 0.0f) & (e1 >= 0.0f) & (e2 >= 0.0f);
    const bool neg = (e0 <= 0.0f) & (e1 <= 0.0f) & (e2 <= 0.0f);
    return (pos | neg) & (nd > p->lo) & (nd < p->hi);
}

/* Cut-outs (izb_alpha.h) in a soft frame: the UV where sample direction (dx, dy, -1)'s ray from the
 * pair's point meets its triangle (vertex UVs uv = u0 v0 u1 v1 u2 v2). Each sample's ray meets the
 * triangle at its own point, so the alpha test is per (point, sample), not per pair. The pair's
 * edge values are the barycentrics: the ray meets the plane at X = p + t d, and the tetrahedron
 * (p, a, b, X) has volume t/6 [a - p, b - p, d] = t/6 e_ab (b - a = (b - p) - (a - p)); it is also
 * the area of (a, b, X) times p's height over the plane, over 3, and the height is the same for
 * the three edges. So the area of (a, b, X), which is vertex c's weight times the triangle's area,
 * is proportional to e_ab, sign included (the canonical order's negation restores the edge's
 * orientation). c[0] is edge (V0, V1): vertex 2's weight; c[1] (V1, V2): vertex 0's; c[2]
 * (V2, V0): vertex 1's. A hidden sample has three values of one sign, so the sum is not 0 but for
 * a ray in the triangle's plane; there (and for a sum not finite) the UV is vertex 0's, as
 * izb_alpha_uv does. */
IZB_HD void izb_soft_sample_uv(const izb_soft_pair *p, float dx, float dy, const float uv[6], float *u, float *v)
{
    const float w2 = izb_soft_dot(p->c[0], dx, dy), w0 = izb_soft_dot(p->c[1], dx, dy);
    const float w1 = izb_soft_dot(p->c[2], dx, dy);
    const float sum = w0 + w1 + w2;
    if (!(sum != 0.0f) || !(fabsf(sum) < INFINITY)) {
        *u = uv[0];
        *v = uv[1];
        return;
    }
    *u = fmaf(w0, uv[0], fmaf(w1, uv[2], w2 * uv[4])) / sum;
    *v = fmaf(w0, uv[1], fmaf(w1, uv[3], w2 * uv[5])) / sum;
}

/* Does cut-out triangle (uv, texture tex) keep the point where sample (dx, dy)'s ray from the pair's
 * point meets it? Asked only for a sample izb_soft_sample_hidden says it hides. */
IZB_HD bool izb_soft_sample_keeps(const izb_soft_pair *p, float dx, float dy, const float uv[6],
                                  const uint8_t *alpha_pool, const izb_alpha_tex *tex)
{
    float u, v;
    izb_soft_sample_uv(p, dx, dy, uv, &u, &v);
    return izb_alpha_keeps(alpha_pool, tex, u, v);
}

#endif
