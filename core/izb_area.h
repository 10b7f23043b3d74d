/* izb_area.h — soft shadows of an AREA light (issue 20, item 1): a spot light with a size, a
 * rectangle (or an ellipse) of light_size[0] x light_size[1] world units centred on the spot's
 * position and facing its aim, its axes the spot's image x and y. The per-element math, once, for
 * the CPU backend and the brute force (tests/izb_brute.h); explicit fmaf, no libm on the device
 * side. It reuses izb_soft.h's structures and its per-sample test unchanged: only the set-ups
 * differ, so the kernels and the traversal of the directional soft path serve both.
 *
 * Where: "A-space", the spot's clip rows x, y and w: (cx, cy, cw) = rows 0, 1, 3 of the light's
 * IZB matrix applied to a world point. Rows 0 and 1 are the light's right and up axes scaled by
 * the projection, row 3 is the distance along the aim (light_matrices, scene/view.c): an affine map
 * of world space, so segments, triangles and "crosses" map to themselves and the sign tests below
 * are exact-sign tests of the world configuration. The light's centre is the origin, the emitter
 * lies in the plane w = 0, and sample j is l_j = (lx_j, ly_j, 0). The spot's image plane is
 * (cx / cw, cy / cw) and its depth key is z = -1 / cw (clip z = -1), so a receiver binned by the
 * hard spot path — x, y, biased key z = (1 + beta) times its own key (izb_clip_point) — is the
 * A-space point p = (x w, y w, w), w = -(1 + beta) / z: the receiver itself, unbiased. The bias
 * acts per sample instead (below), as the ground truth's rays do (tools/oracle.c: each starts at
 * tnear = beta / (1 + beta) of its way to the light): moving p toward the light's centre would put
 * it under its own surface where that faces slightly away from the centre (a curved mesh's
 * terminator) and let a neighbour facet hide samples the point sees.
 *
 * The test of one (point p, triangle T, sample l): the segment p -> l crosses T —
 * - the three edge planes through p and an edge (a, b): e = ((a - p) x (b - a)) . (l - p), linear
 *   in l: c0 lx + c1 ly - c . p with c = (a - p) x (b - a). The line crosses T when the three agree
 *   in sign, zeros allowed; each edge in izb_soft_edge's canonical vertex order, so a neighbour's
 *   copy of a shared edge gives exactly the negated numbers (c . p too) and no light leaks along it;
 * - T's plane crossed at t in (beta / (1 + beta), 1) along the segment, t = s / (s + g) with
 *   s = n . (V_0 - p), g = n . (l - V_0): g and s - beta g of one strict sign, i.e. g in (0, s /
 *   beta) or (s / beta, 0) (izb_soft_pair_range; for beta = 0: s and g of one sign, T's plane
 *   strictly between p and l; a triangle through p, or one whose plane holds l, hides nothing).
 * Stored as izb_soft_pair (c[i] = (c0, c1, c . p)) and izb_soft_tri (n = (n0, n1, n . V_0)), so
 * that izb_soft_dot(v, lx, ly) = v0 lx + v1 ly - v2 is each of the four and izb_soft_sample_hidden
 * is the per-sample test as it stands. The cut-out UV (izb_soft_sample_uv) holds as well: with
 * d = l - p its derivation is the directional one word for word.
 *
 * Penumbra region: a sample's segment meets T at X = (1 - t) p + t l, t in (0, 1), so X.w = (1 - t)
 * p.w and X's projection is p's plus t lx / X.w = lx (1 / X.w - 1 / p.w) = lx (z_p - z_X). X lies
 * on T, whose keys are >= z_min (its nearest vertex's, every vertex in front: w > 0), so p's
 * projection is within (rx, ry) (z_p - z_min) of T's projected bbox (z_p p's own key, at most
 * beta |z_min| past its binned key where T can hide it: izb_area_tri_setup lowers z_min by that):
 * the directional box (izb_soft_box_at) with key growth (rx, ry) = the light's half-extent in
 * A-space. The pair test checks it first, so traversal == brute force exactly (izb_soft.h's
 * argument); a triangle with a vertex at w <= 0 (beside or behind the light's plane) has an
 * unbounded projection and gets an unbounded box (rare: it costs a visit of every cell, never a
 * wrong answer). */
#ifndef IZB_AREA_H
#define IZB_AREA_H

#include <float.h>
#include <string.h>

#include "izb_soft.h"

/* The largest side accepted, in world units: past it a light is a typo, and the A-space extents
 * approach the range where the set-ups' products overflow. */
#define IZB_AREA_MAX_SIZE 1.0e6f
/* izb_recon.light_disk: the emitter's shape */
#define IZB_AREA_RECT 0
#define IZB_AREA_DISK 1

/* Is f an area light's frame (a spot with a size)? Size 0, 0 is the hard spot path, bit for bit;
 * NaN never gets here (izb_area_frame_ok refuses it first). */
IZB_HD bool izb_area_on(const izb_recon *f)
{
    return (f->light_is_spot == IZB_LIGHT_SPOT) & ((f->light_size[0] > 0.0f) | (f->light_size[1] > 0.0f));
}

/* The rectangle's pattern: m points in [-1, 1]^2, the Hammersley set — x_j = (j + 1/2) / m, y_j
 * the bit reversal of j over log2 m bits, (y + 1/2) / m, both mapped to [-1, 1]. For m a power of
 * two it is a (0, log2 m, 2)-net: every dyadic box of area 1/m (m columns, m rows, and every
 * 2^a x 2^b split between) holds exactly one sample, so a penumbra edge in any direction sweeps
 * them one by one. Dyadic rationals: exact in float on every device. */
IZB_HD_COLD void izb_area_pattern_rect(int m, float *ox, float *oy)
{
    int bits = 0;
    while ((1 << bits) < m)
        bits++;
    for (int j = 0; j < m; j++) {
        int r = 0;
        for (int b = 0; b < bits; b++)
            r |= ((j >> b) & 1) << (bits - 1 - b);
        ox[j] = (float)(2 * j + 1) / (float)m - 1.0f;
        oy[j] = (float)(2 * r + 1) / (float)m - 1.0f;
    }
}

/* The samples of area frame f (izb_area_on, light_samples valid) in A-space: sample j is
 * (dx[j], dy[j], 0) (izb_soft_light's dx, dy hold positions here, not directions); rx, ry bound
 * their |x|, |y|: the half-extents. Rows 0 and 1 of the light matrix are the light's right and up
 * axes times the projection's scale, so a world offset a along the right axis is a times row 0's
 * norm in A-space. Host only (the norms in double, one rounding), like izb_soft_light_make. The
 * rectangle's samples: izb_area_pattern_rect; the ellipse's: the golden-angle spiral of
 * izb_soft_pattern. */
static inline void izb_area_light_make(const izb_recon *f, izb_soft_light *out)
{
    memset(out, 0, sizeof *out);
    const float *l = f->light;
    double norm[2];
    for (int r = 0; r < 2; r++)
        norm[r] = sqrt((double)l[r] * l[r] + (double)l[4 + r] * l[4 + r] + (double)l[8 + r] * l[8 + r]);
    out->m = f->light_samples;
    out->beta = f->bias; /* the relative bias: the segment's t > beta / (1 + beta) (izb_soft_pair_range) */
    out->rx = (float)(0.5 * (double)f->light_size[0] * norm[0]);
    out->ry = (float)(0.5 * (double)f->light_size[1] * norm[1]);
    if (f->light_disk == IZB_AREA_DISK)
        izb_soft_pattern(out->m, out->dx, out->dy);
    else
        izb_area_pattern_rect(out->m, out->dx, out->dy);
    for (int j = 0; j < out->m; j++) {
        out->dx[j] *= out->rx;
        out->dy[j] *= out->ry;
    }
}

/* How far (world units) the emitter reaches from the light's position: culling auto must treat a
 * closed mesh whose box the emitter may touch as holding the light (izb_cull_view.light_reach). */
static inline float izb_area_reach(const izb_recon *f)
{
    const double w = f->light_size[0], h = f->light_size[1];
    return izb_area_on(f) ? (float)(0.5 * sqrt(w * w + h * h) * 1.001) : 0.0f;
}

/* Set up a triangle (vertices in light clip space, v[k] = clip x, y, z, w) for an area frame whose
 * points' keys are at most zmax and lie in the bbox pb, with the samples L: out->v the A-space
 * vertices, out->n = (n0, n1, n . V_0), nd_lo / nd_hi the range of n . (l_j - V_0), the projected
 * bbox (grown for rounding) and zmin, the nearest vertex's key (lowered by 1e-6 of itself for its
 * rounding), gx, gy the growth (izb_soft_box_at). False when it can hide no sample of any point:
 * degenerate or not finite, every vertex at w <= 0, no point farther than its nearest vertex, or
 * its penumbra box for zmax misses pb; or, with cull_back (izb_may_cull), every sample lies
 * strictly behind it (n . (l_j - V_0) > 0 for all j: at the centre alone that is the hard spot
 * test's det < 0, as n . (0 - V_0) = -det). Culling stays exact per sample as for the directional
 * light (izb_soft_tri_setup): a segment from a sample outside a closed mesh enters it through a face
 * that sample sees the front of, and that face is kept. */
IZB_HD bool izb_area_tri_setup(const float v[3][4], float zmax, const izb_soft_light *L, const izb_bbox *pb,
                               bool cull_back, izb_soft_tri *out)
{
    for (int k = 0; k < 3; k++) {
        out->v[k][0] = v[k][0];
        out->v[k][1] = v[k][1];
        out->v[k][2] = v[k][3];
    }
    const float *V0 = out->v[0];
    const float ax = out->v[1][0] - V0[0], ay = out->v[1][1] - V0[1], aw = out->v[1][2] - V0[2];
    const float bx = out->v[2][0] - V0[0], by = out->v[2][1] - V0[1], bw = out->v[2][2] - V0[2];
    const float n0 = fmaf(ay, bw, -aw * by), n1 = fmaf(aw, bx, -ax * bw), n2 = fmaf(ax, by, -ay * bx);
    const float nn = fabsf(n0) + fabsf(n1) + fabsf(n2);
    if (!(nn > 0.0f) || !(nn < INFINITY))
        return false;
    bool none_front;
    const bool all_front = izb_tri_all_front(v, &none_front);
    if (none_front)
        return false; /* every point of T at w <= 0: no segment from a receiver (w > 0) to the light's plane reaches it */
    out->n[0] = n0, out->n[1] = n1;
    out->n[2] = fmaf(n0, V0[0], fmaf(n1, V0[1], n2 * V0[2]));
    if (!(fabsf(out->n[2]) < INFINITY))
        return false;
    float lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < L->m; j++) {
        const float g = izb_soft_dot(out->n, L->dx[j], L->dy[j]);
        lo = izb_minf(lo, g);
        hi = izb_maxf(hi, g);
    }
    out->nd_lo = lo, out->nd_hi = hi;
    if (cull_back && lo > 0.0f)
        return false; /* every sample behind its plane (see the comment above) */
    if (all_front) {
        float x0, y0, x1, y1;
        (void)izb_tri_front_bbox(v, pb, &x0, &y0, &x1, &y1); /* the bare bbox with its rounding margin */
        out->x0 = x0, out->y0 = y0, out->x1 = x1, out->y1 = y1;
        const float zmin = izb_minf(izb_minf(v[0][2] / v[0][3], v[1][2] / v[1][3]), v[2][2] / v[2][3]);
        /* lowered for its rounding (1e-6) and for the bias: a receiver is binned at (1 + beta) times
         * its own key z, the growth must run from z, and |z| < |zmin| where T can hide it */
        out->zmin = zmin - (1e-6f + L->beta) * fabsf(zmin);
        const float reach = zmax - out->zmin;
        if (!(reach > 0.0f) || !(reach < INFINITY))
            return false;
    } else { /* crosses the light's plane: its front part projects without bound */
        out->x0 = out->y0 = -INFINITY;
        out->x1 = out->y1 = INFINITY;
        out->zmin = -FLT_MAX; /* finite: a zero growth (a line light) times the depth stays 0, not NaN */
    }
    out->beta = L->beta;
    out->gx = L->rx * 1.00001f, out->gy = L->ry * 1.00001f;
    float bx0, by0, bx1, by1;
    izb_soft_box_at(out, zmax, &bx0, &by0, &bx1, &by1);
    return !(bx1 < pb->min_x) & !(bx0 > pb->max_x) & !(by1 < pb->min_y) & !(by0 > pb->max_y) & (bx0 == bx0) &
           (by0 == by0) & (bx1 == bx1) & (by1 == by1);
}

/* Set up the pair (t, the point binned at (x, y) with key z); false when no sample of it can be
 * hidden by t: outside t's penumbra box for its own key, a key that is not a spot's (z < 0), on
 * t's plane, or on the side of it no sample lies beyond (the nd range). The A-space point is the
 * receiver's own, unbiased: the binned key is its key times 1 + beta (izb_clip_point), so w =
 * -(1 + beta) / z. Then
 * izb_soft_sample_hidden(out, t->n, dx[j], dy[j]) answers per sample, izb_soft_sample_uv gives a
 * cut-out's UV. */
IZB_HD bool izb_area_pair_setup(const izb_soft_tri *t, float x, float y, float z, izb_soft_pair *out)
{
    float x0, y0, x1, y1;
    izb_soft_box_at(t, z, &x0, &y0, &x1, &y1);
    if (!((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1) & (z < 0.0f)))
        return false;
    const float w = -(1.0f + t->beta) / z, px = x * w, py = y * w;
    if (!(fabsf(px) < INFINITY) || !(fabsf(py) < INFINITY) || !(w < INFINITY))
        return false;
    const float *V0 = t->v[0];
    /* n's third component, which t->n holds as n . V_0: recomputed as izb_area_tri_setup did */
    const float ax = t->v[1][0] - V0[0], ay = t->v[1][1] - V0[1];
    const float bx = t->v[2][0] - V0[0], by = t->v[2][1] - V0[1];
    const float n2 = fmaf(ax, by, -ay * bx);
    const float s = fmaf(t->n[0], V0[0] - px, fmaf(t->n[1], V0[1] - py, n2 * (V0[2] - w)));
    if (!izb_soft_pair_range(s, t->beta, t->nd_lo, t->nd_hi, out))
        return false;
    /* edges (v0, v1), (v1, v2), (v2, v0) by index, not through an array of pointers into t: nvcc
     * keeps such an array, and t with it, in local memory (the CUDA kernels spilled) */
    for (int i = 0; i < 3; i++) {
        float c[3];
        izb_soft_edge(t->v[i], t->v[i == 2 ? 0 : i + 1], px, py, w, c);
        out->c[i][0] = c[0];
        out->c[i][1] = c[1];
        out->c[i][2] = fmaf(c[0], px, fmaf(c[1], py, c[2] * w)); /* c . p: exactly negated for the neighbour */
    }
    return true;
}

#endif
