/* izb_aa.h — anti-aliased shadow edges (issue 19, phase 1: the CPU backend): N sub-samples of each
 * pixel's footprint on its receiver, tested in one IZB pass. The per-element math, once, for the
 * CPU backend (cpu/raster_aa.c), the brute force (tests/izb_brute.h) and the CUDA kernels
 * (cuda/raster_aa.cu);
 * explicit fmaf, no libm call but sqrtf (correctly rounded on both sides).
 *
 * N in {1, 4, 8, 16, 32} (izb_recon.shadow_samples; 0 means 1). N = 1 is the hard path, bit for
 * bit: backends never come here for it. Directional and spot lights: a directional light's clip
 * space is affine to view space, so a footprint maps to a parallelogram; a spot light's is
 * projective, so each sub-sample divides by its own w (izb_aa_sample_pos) and the footprint's
 * extents bound the projected quad (izb_aa_footprint_sel). Point lights: see "Point lights" below.
 *
 * Point lights (IZB_LIGHT_FACE, six cube faces; izb_faces.c): every point belongs to the one face
 * izb_face_owner gives it, and its footprint and all its sub-samples are answered in that face's
 * frame, a 90-degree perspective frustum: geometrically a spot light's frame, so the spot's
 * projective footprint serves unchanged (each sub-sample divided by its own w; its axes shrunk so
 * that w stays >= half the point's, izb_aa_persp_bound, against that face's w row). Each face is
 * one ordinary pass over the depth image with the other faces' pixels made sky, so the footprint's
 * secants never cross a face seam: a neighbour owned by another face counts as sky, as one across
 * a depth discontinuity does (izb_aa_face_depth, the one rule; the truth and the brute force ask
 * it). Exact at the seams: a sub-sample of a seam point may lie a little outside its face's square
 * (clip |x| or |y| > 1), but it stays in front of the face (w > 0) and its test is the hard test
 * at that projective position, against every triangle set up in the face's frame: the face's
 * culling and cell ranges are its points' bbox grown by their largest extent, as a spot's, with no
 * square or cone test, so a triangle lying in the neighbouring face's frustum that hides the
 * sub-sample is set up and visited there too.
 *
 * The footprint (izb_aa_footprint): the receiver's plane at the pixel comes from DEPTH
 * DERIVATIVES, not a normal target: every backend already has the depth image (the CPU array path
 * and the CUDA texture path both read it), a normal target would be a second render target in
 * the depth pass and its normals are the shading normals (smoothed), not the facet the depth pass
 * drew. The plane: through the pixel's view-space point and spanned by two secants, each the step
 * to its right (upper) neighbour's point or from its left (lower) one, whichever depth differs less
 * (the neighbour across a depth discontinuity is the farther one); with primitive ids the drawn
 * facet's own plane instead (izb_aa_facet_normal: the secants' chord plane cuts under a curved
 * mesh, whose facets then hide sub-samples). The axes a, b are the
 * derivatives of the camera rays' crossing with that plane per pixel step in x, y at the pixel's
 * centre (izb_aa_axes), and sub-sample k lies at p + u_k a + v_k b with (u_k, v_k) in [-1/2, 1/2]^2
 * (the pattern): on the plane, inside the quad the pixel corners' rays cut from it to first order in
 * the pixel's angular size (the parallelogram tangent to it). Ill-defined planes are bounded: with
 * no usable neighbour on either side (sky, the image border) the secant is the fronto-parallel
 * pixel step at the pixel's depth; and an axis longer than IZB_AA_MAX_STRETCH fronto-parallel
 * pixel steps (a grazing view, or both neighbours across discontinuities: a one-pixel-wide sliver)
 * is scaled down to that length (direction kept). So a footprint never reaches more than IZB_AA_MAX_STRETCH / 2
 * pixel widths from its pixel's point, however the depth image looks.
 *
 * The sub-sample's test is the hard test at its own position: light clip (x, y, z) of the point plus
 * u a + v b in light clip units (z too: the sub-sample's own depth on the tangent plane, with the
 * point's bias), for a spot light divided by 1 + u aw + v bw (its w over the point's: the view
 * position p + u A + v B through the light's projection, as a ray from there sees it), then izb_tri_occludes — the same edge functions and depth plane, evaluated at the
 * N positions, vectorised over the samples (izb_aa_sample_hidden). The point's N-bit mask
 * (izb_mask.h) is the OR over triangles; the shading byte is izb_mask_value. A cut-out triangle
 * (izb_alpha.h) hides a sub-sample only where the alpha test keeps it at that sub-sample's own
 * position (izb_aa_sample_keeps: its UV from t's edge values there), as the hard frame tests each
 * point; opaque triangles never run it.
 *
 * Conservative ranges: a sub-sample lies within (ex, ey) of its point (izb_aa_foot: half the
 * footprint's extent, grown for rounding), and it can only be hidden inside the triangle's bbox, so
 * the point is within the bbox grown by (ex, ey). The pair test checks that first (izb_aa_near, part
 * of the predicate like the hard test's bbox: every traversal agrees with the brute force exactly);
 * the rasterisers visit the cells of the bbox grown by the frame's largest extent and skip a cell
 * whose own largest extent does not reach it; the triangles' culling against the points' bbox uses
 * the bbox grown by the frame's largest extent (izb_aa_grow_bbox). */
#ifndef IZB_AA_H
#define IZB_AA_H

#include "izb_alpha.h"
#include "izb_mask.h"
#include "izb_math.h"

/* The footprint's functions are large for GCC's inliner, and an out-of-line copy is compiled for
 * the baseline (no FMA: every fmaf a libm call, measured 5x the hard frame's set-up in the CPU
 * backend's per-ISA loop); forced inline they take the caller's instruction set. So are the pair
 * tests the kernels call (with the spot copies GCC left izb_aa_may_hide and its siblings out of
 * line: the raster ran ~300x slower, cpu_aa_kernels_inlined fails on it). */
#if defined(__CUDACC__)
#define IZB_AA_HD static __forceinline__ __host__ __device__
#else
#define IZB_AA_HD static inline __attribute__((always_inline))
#endif

#define IZB_AA_MAX_SAMPLES 32
/* The longest footprint axis, in fronto-parallel pixel steps at the pixel's depth: a surface seen
 * at 75.5 degrees from its normal (1 / cos) still gets its true footprint; beyond, and across
 * discontinuities, the footprint is clamped to it. */
#define IZB_AA_MAX_STRETCH 4.0f

/* N must be one of 1, 4, 8, 16, 32. */
IZB_HD bool izb_aa_samples_ok(int n)
{
    return n == 1 || n == 4 || n == 8 || n == 16 || n == 32;
}

/* The sample pattern: N = 2^m offsets (u, v) in [-1/2, 1/2]^2 of the pixel, a scrambled Hammersley
 * set — u_k = (k + 1/2) / N, v_k = (bit-reverse_m(k) XOR s_N + 1/2) / N, minus 1/2. It is a
 * (0, m, 2)-net in base 2: every dyadic box of area 1/N (N x 1, N/2 x 2, ..., 1 x N strata) holds
 * exactly one sample, so an edge of any direction sweeps the samples one by one (N levels), and no
 * two share a row or column (horizontal and vertical edges too). The XOR s_N (1, 0, 3, 0 for N = 4,
 * 8, 16, 32) keeps the net and is the one of the 2^m that maximises the smallest distance between
 * samples (an exhaustive search): 1.118, 0.79, 0.90, 0.75 times 1 / sqrt(N) (a square grid: 1). N =
 * 4 is then the rotated grid. N = 1: the pixel centre (0, 0). Every value is a multiple of 1 / (2N):
 * exact in float on every device. */
IZB_HD_COLD void izb_aa_pattern(int n, float *ou, float *ov)
{
    int m = 0;
    while ((1 << m) < n)
        m++;
    const unsigned scramble = n == 4 ? 1u : n == 16 ? 3u : 0u;
    for (int k = 0; k < n; k++) {
        unsigned r = 0;
        for (int i = 0; i < m; i++)
            r = r << 1 | ((unsigned)k >> i & 1u);
        r ^= scramble;
        ou[k] = ((float)k + 0.5f) / (float)n - 0.5f;
        ov[k] = ((float)r + 0.5f) / (float)n - 0.5f;
    }
}

/* A frame's pattern: offsets k < n, zero past n (the kernels read whole vectors). persp: the
 * frame's light is at a point (a spot: its footprints divide, izb_aa_sample_pos); 0 (what
 * izb_aa_samples_make sets; the backends set it from the frame) lets a backend take the copies
 * without the division (izb_aa_sample_hidden_affine, izb_aa_may_hide). */
typedef struct izb_aa_samples {
    int n, persp;
    float u[IZB_AA_MAX_SAMPLES], v[IZB_AA_MAX_SAMPLES];
} izb_aa_samples;

IZB_HD_COLD void izb_aa_samples_make(int n, izb_aa_samples *out)
{
    out->n = n;
    out->persp = 0;
    for (int k = 0; k < IZB_AA_MAX_SAMPLES; k++)
        out->u[k] = out->v[k] = 0.0f;
    izb_aa_pattern(n, out->u, out->v);
}

/* A point's footprint in light clip space: a (b) the displacement per pixel step in x (y), so
 * sub-sample (u, v) is at p + u a + v b; ex, ey bound |u a + v b| in x, y over the pattern's square
 * (half the parallelogram's extent), grown by 1e-5 for the rounding of the sub-sample's position.
 * A light at a point (spot): a, b, aw, bw are the clip-space derivatives over the point's clip w
 * (x, y and the biased key scaled alike), so sub-sample (u, v) is at (p + u a + v b) / (1 + u aw +
 * v bw) (izb_aa_sample_pos); ex, ey (and ez, the key's) bound its distance from p, the bbox of the
 * projected square from its four corners, grown for rounding. Directional: aw = bw = 0, ez unused
 * (0). The first 8 floats are the directional's whole record (CUDA loads them as two float4). */
typedef struct izb_aa_foot {
    float a[3], b[3];
    float ex, ey;
    float aw, bw, ez, pad;
} izb_aa_foot;

/* View-space position of pixel (px, py) at linear depth d (izb_reconstruct_lit's). */
IZB_AA_HD void izb_aa_view_pos(const izb_recon *r, int px, int py, float d, float v[3])
{
    const float ndc_x = (float)(2 * px + 1) / (float)r->width - 1.0f;
    const float ndc_y = (float)(2 * py + 1) / (float)r->height - 1.0f;
    v[0] = ndc_x * r->ray_sx * d;
    v[1] = ndc_y * r->ray_sy * d;
    v[2] = -d;
}

/* One secant in view space (the top of the file): the step (dx, dy) = (1, 0) or (0, 1) from pixel
 * (px, py) at depth d, with the neighbours' depths behind (d_lo, at -step) and ahead (d_hi, at
 * +step); a depth that is sky (izb_depth_is_sky: 0, NaN, Inf; the caller's choice for a neighbour
 * outside the image) is not usable, and with neither the secant is the flat step. *step: the
 * fronto-parallel pixel step at depth d (the clamp's unit). */
IZB_AA_HD void izb_aa_secant(const izb_recon *r, int px, int py, int dx, int dy, float d, float d_lo, float d_hi,
                          float out[3], float *step)
{
    float c[3], lo[3], hi[3];
    izb_aa_view_pos(r, px, py, d, c);
    izb_aa_view_pos(r, px - dx, py - dy, d_lo, lo);
    izb_aa_view_pos(r, px + dx, py + dy, d_hi, hi);
    const bool ok_lo = !izb_depth_is_sky(d_lo), ok_hi = !izb_depth_is_sky(d_hi);
    const bool use_hi = ok_hi & (!ok_lo | (fabsf(d_hi - d) <= fabsf(d - d_lo)));
    *step = dx ? 2.0f * r->ray_sx * d / (float)r->width : 2.0f * r->ray_sy * d / (float)r->height;
    const float flat[3] = {dx ? *step : 0.0f, dy ? *step : 0.0f, 0.0f};
    for (int k = 0; k < 3; k++)
        out[k] = use_hi ? hi[k] - c[k] : ok_lo ? c[k] - lo[k] : flat[k];
}

/* An axis longer than IZB_AA_MAX_STRETCH steps (or not finite) scaled down to that (the flat step
 * (fx, fy, 0) when not finite). */
IZB_AA_HD void izb_aa_clamp(float a[3], float step, float fx, float fy)
{
    const float len2 = fmaf(a[0], a[0], fmaf(a[1], a[1], a[2] * a[2]));
    const float lim = IZB_AA_MAX_STRETCH * step, lim2 = lim * lim;
    if (!(len2 <= lim2)) {
        const bool fin = len2 < INFINITY;
        const float s = fin ? sqrtf(lim2 / len2) * 0.99999f : 0.0f;
        a[0] = fin ? a[0] * s : fx;
        a[1] = fin ? a[1] * s : fy;
        a[2] = fin ? a[2] * s : 0.0f;
    }
}

/* A light at a point (r->light_is_spot): the footprint must stay in front of the light, where its
 * projection is defined and convex (every sub-sample's w > 0). The sub-samples' clip w is W0 (1 + u
 * aw + v bw), aw = (w-row . A) / W0 (bw likewise), so over the square |u|, |v| <= 1/2 it is at least
 * W0 (1 - (|aw| + |bw|) / 2); where |aw| + |bw| > 1 (a footprint reaching half-way to the light's
 * plane: grazing, next to the light, or a garbage plane) both axes are scaled down to make it 1 (so
 * w >= W0 / 2 on the square: the sub-samples stay in front, the division safe). Directional (w
 * constant): nothing. NaN: nothing (the point is not lit, or its sub-samples are NaN either way). */
IZB_AA_HD void izb_aa_persp_bound(const izb_recon *r, int px, int py, float d, float A[3], float B[3])
{
    const float *m = r->cam_to_light;
    float P[3];
    izb_aa_view_pos(r, px, py, d, P);
    const float w0 = izb_clip_row(m, 3, P[0], P[1], P[2]);
    const float wa = fmaf(m[3], A[0], fmaf(m[7], A[1], m[11] * A[2]));
    const float wb = fmaf(m[3], B[0], fmaf(m[7], B[1], m[11] * B[2]));
    const float s = (fabsf(wa) + fabsf(wb)) / w0;
    const bool shrink = (r->light_is_spot != 0) & (s > 1.0f);
    const float k = shrink ? 0.99999f / s : 1.0f;
    for (int i = 0; i < 3; i++)
        A[i] = shrink ? A[i] * k : A[i], B[i] = shrink ? B[i] * k : B[i];
}

/* The footprint's axes in view space: the derivatives, at the pixel's centre, of the point where
 * the camera ray through (px + u, py + v) meets the plane spanned by the two secants (normal n =
 * sa x sb, or nv where given: the facet's, izb_aa_facet_normal). For ray direction D(u, v) (view z = -1) and P = d D(0, 0), dP/du = d (D_u - D (n . D_u)
 * / (n . D)): symmetric about the centre, where a one-sided secant is off by half a pixel's
 * perspective change (measured on random planes: sub-samples up to 0.88 pixels from the centre
 * with secants, 0.5x with derivatives; test_cpu_aa). Where n . D is 0 or not finite (a plane seen
 * edge-on, garbage neighbours) the secants stay. Then each axis is clamped (izb_aa_clamp). */
IZB_AA_HD void izb_aa_axes_sel(const izb_recon *r, int px, int py, float d, const float nb[4], bool facet,
                               const float nv[3], float A[3], float B[3])
{
    float sa[3], sb[3], stx, sty;
    izb_aa_secant(r, px, py, 1, 0, d, nb[0], nb[1], sa, &stx);
    izb_aa_secant(r, px, py, 0, 1, d, nb[2], nb[3], sb, &sty);
    const float ns[3] = {fmaf(sa[1], sb[2], -sa[2] * sb[1]), fmaf(sa[2], sb[0], -sa[0] * sb[2]),
                         fmaf(sa[0], sb[1], -sa[1] * sb[0])};
    const float n[3] = {facet ? nv[0] : ns[0], facet ? nv[1] : ns[1], facet ? nv[2] : ns[2]};
    const float D[3] = {((float)(2 * px + 1) / (float)r->width - 1.0f) * r->ray_sx,
                        ((float)(2 * py + 1) / (float)r->height - 1.0f) * r->ray_sy, -1.0f};
    const float du = 2.0f * r->ray_sx / (float)r->width, dv = 2.0f * r->ray_sy / (float)r->height;
    const float nD = fmaf(n[0], D[0], fmaf(n[1], D[1], n[2] * D[2]));
    const float ka = n[0] * du / nD, kb = n[1] * dv / nD;
    const bool ok = (fabsf(nD) > 0.0f) & (fabsf(ka) < INFINITY) & (fabsf(kb) < INFINITY);
    for (int k = 0; k < 3; k++) {
        const float ea = (k == 0 ? du : 0.0f) - D[k] * ka, eb = (k == 1 ? dv : 0.0f) - D[k] * kb;
        A[k] = ok ? d * ea : sa[k];
        B[k] = ok ? d * eb : sb[k];
    }
    izb_aa_clamp(A, stx, stx, 0.0f);
    izb_aa_clamp(B, sty, 0.0f, sty);
    izb_aa_persp_bound(r, px, py, d, A, B);
}

/* izb_aa_axes_sel with the facet's normal nv where not NULL (the secants' plane where NULL) */
IZB_AA_HD void izb_aa_axes(const izb_recon *r, int px, int py, float d, const float nb[4], const float *nv, float A[3],
                        float B[3])
{
    const float none[3] = {0.0f, 0.0f, 0.0f};
    izb_aa_axes_sel(r, px, py, d, nb, nv != NULL, nv ? nv : none, A, B);
}

/* World -> view space of a frame, for the facet's plane (izb_aa_facet_normal): row-major 3 x 4,
 * view = m (world, 1). From the frame alone: cam_to_light = light * view^-1, so three rows of it
 * (affine in view space) inverted, times the same rows of the light's matrix, give the view
 * matrix: rows x, y, z of an orthographic light, x, y, w of a light at a point (its z row is the
 * constant -1: singular). Host only (double, one rounding per entry): every backend gets the same. */
typedef struct izb_aa_view {
    float m[12];
} izb_aa_view;

static inline void izb_aa_view_make(const izb_recon *r, izb_aa_view *out)
{
    const float *C = r->cam_to_light, *L = r->light;
    const int rows[3] = {0, 1, r->light_is_spot ? 3 : 2};
    double c[3][3], inv[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            c[i][j] = C[4 * j + rows[i]];
    const double det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) - c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0]) +
                       c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
            inv[i][j] = (c[i1][j1] * c[i2][j2] - c[i1][j2] * c[i2][j1]) / det;
        }
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double v = 0.0;
            for (int k = 0; k < 3; k++)
                v += inv[i][k] * L[4 * j + rows[k]];
            out->m[4 * i + j] = (float)v;
        }
        double t = 0.0;
        for (int k = 0; k < 3; k++)
            t += inv[i][k] * ((double)L[12 + rows[k]] - C[12 + rows[k]]);
        out->m[4 * i + 3] = (float)t;
    }
}

/* The view-space normal of the facet the depth pass drew at a pixel (tri: its 9 world coordinates),
 * for izb_aa_axes: with primitive ids the footprint lies on that facet's own plane, where the
 * secants' plane would cut under a curved mesh (a chord between two facets lies inside a convex
 * mesh; sub-samples there are hidden by the mesh itself wherever the gap exceeds the bias, seen
 * as speckle on lit spheres). */
IZB_AA_HD void izb_aa_facet_normal(const izb_aa_view *V, const float *tri, float n[3])
{
    float p[3][3];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++)
            p[k][i] = fmaf(V->m[4 * i], tri[3 * k], fmaf(V->m[4 * i + 1], tri[3 * k + 1],
                                                         fmaf(V->m[4 * i + 2], tri[3 * k + 2], V->m[4 * i + 3])));
    const float a[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
    const float b[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
    n[0] = fmaf(a[1], b[2], -a[2] * b[1]);
    n[1] = fmaf(a[2], b[0], -a[0] * b[2]);
    n[2] = fmaf(a[0], b[1], -a[1] * b[0]);
}

/* Coordinate i (0: x, 1: y, 2: z) of sub-sample (u, v) of a point whose coordinate i is c, with
 * footprint f, before the division: c + u a_i + v b_i (a directional light's position itself). */
IZB_AA_HD float izb_aa_sample_coord(const izb_aa_foot *f, int i, float c, float u, float v)
{
    return fmaf(u, f->a[i], fmaf(v, f->b[i], c));
}

/* Sub-sample (u, v) of point (x, y, z) with footprint f in light clip space: the one formula of a
 * sub-sample's position (its occlusion test, its alpha test and its footprint's bounds take it from
 * here). Each coordinate izb_aa_sample_coord times 1 / (1 + u aw + v bw): a light at a point
 * divides every sub-sample by its own w (relative to the point's), as the ray from that position
 * sees it; a directional light's aw = bw = 0 make the divisor exactly 1 and the product exact, so
 * izb_aa_sample_pos_affine (no division) gives the same bits there. Branch free. */
IZB_AA_HD void izb_aa_sample_pos(const izb_aa_foot *f, float x, float y, float z, float u, float v, float *xs,
                              float *ys, float *zs)
{
    const float rw = 1.0f / fmaf(u, f->aw, fmaf(v, f->bw, 1.0f));
    *xs = izb_aa_sample_coord(f, 0, x, u, v) * rw;
    *ys = izb_aa_sample_coord(f, 1, y, u, v) * rw;
    *zs = izb_aa_sample_coord(f, 2, z, u, v) * rw;
}

/* izb_aa_sample_pos for a footprint with aw = bw = 0 (a directional light's), bit for bit */
IZB_AA_HD void izb_aa_sample_pos_affine(const izb_aa_foot *f, float x, float y, float z, float u, float v, float *xs,
                                     float *ys, float *zs)
{
    *xs = izb_aa_sample_coord(f, 0, x, u, v);
    *ys = izb_aa_sample_coord(f, 1, y, u, v);
    *zs = izb_aa_sample_coord(f, 2, z, u, v);
}

/* A projective footprint's extents (f->ex, ey, ez) around its point (x0, y0, z0), from its other
 * fields: the bbox of the projected square. A projective map with w > 0 on the square
 * (izb_aa_persp_bound: 1 + u aw + v bw >= 1/2) keeps it a convex quad, the hull of its corners'
 * images, so the corners bound every sub-sample; grown by 1e-5 of itself and 4e-6 of the magnitudes
 * each coordinate rounds (a sample's position and a corner's are each within ~6e-7 of those, the
 * divisor at least 1/2). */
IZB_AA_HD void izb_aa_foot_bounds(izb_aa_foot *f, float x0, float y0, float z0)
{
    float dx = 0.0f, dy = 0.0f, dz = 0.0f;
    /* (unrolled: left a loop, it kept the CPU's 16-lane loop over points from vectorising, and the
     * spot light's footprints ran scalar; the same operations in the same order either way) */
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__clang__)
#pragma GCC unroll 4
#endif
    for (int c = 0; c < 4; c++) {
        const float cu = c & 1 ? 0.5f : -0.5f, cv = c & 2 ? 0.5f : -0.5f;
        float xs, ys, zs;
        izb_aa_sample_pos(f, x0, y0, z0, cu, cv, &xs, &ys, &zs);
        dx = izb_maxf(dx, fabsf(xs - x0)), dy = izb_maxf(dy, fabsf(ys - y0)), dz = izb_maxf(dz, fabsf(zs - z0));
    }
    f->ex = fmaf(dx, 1e-5f, dx) + 4e-6f * (fabsf(x0) + fabsf(f->a[0]) + fabsf(f->b[0]));
    f->ey = fmaf(dy, 1e-5f, dy) + 4e-6f * (fabsf(y0) + fabsf(f->a[1]) + fabsf(f->b[1]));
    f->ez = fmaf(dz, 1e-5f, dz) + 4e-6f * (fabsf(z0) + fabsf(f->a[2]) + fabsf(f->b[2]));
}

/* The footprint of pixel (px, py) at depth d (not sky) for a directional light's frame r; nb: the
 * depths of its left, right, lower and upper neighbours (sky where outside the image); nv: the
 * facet's view-space normal (izb_aa_facet_normal) where the pixel's primitive id is known, else
 * NULL (the secants' plane). The view axes go to light clip space by cam_to_light's linear part (an
 * orthographic light: w = 1). */
IZB_AA_HD void izb_aa_footprint_sel(const izb_recon *r, int px, int py, float d, const float nb[4], bool facet,
                                    const float nv[3], izb_aa_foot *out)
{
    float A[3], B[3];
    izb_aa_axes_sel(r, px, py, d, nb, facet, nv, A, B);
    const float *m = r->cam_to_light;
    float ma[4], mb[4];
    for (int i = 0; i < 4; i++) {
        ma[i] = fmaf(m[i], A[0], fmaf(m[4 + i], A[1], m[8 + i] * A[2]));
        mb[i] = fmaf(m[i], B[0], fmaf(m[4 + i], B[1], m[8 + i] * B[2]));
    }
    if (!r->light_is_spot) { /* orthographic: w = 1, the parallelogram itself */
        for (int i = 0; i < 3; i++)
            out->a[i] = ma[i], out->b[i] = mb[i];
        out->aw = out->bw = out->ez = out->pad = 0.0f;
        out->ex = (fabsf(out->a[0]) + fabsf(out->b[0])) * 0.50001f;
        out->ey = (fabsf(out->a[1]) + fabsf(out->b[1])) * 0.50001f;
        return;
    }
    /* a light at a point: the derivatives over the point's w; the point as izb_reconstruct_lit has
     * it (the same view position and rows, so x0, y0, z0 are the binned point's bit for bit); the
     * key's derivatives scaled by the relative bias's factor (izb_clip_point: z = key (1 + bias) for
     * key < 0, (1 - bias) above), so the sub-sample's z is its own key biased alike */
    float P[3];
    izb_aa_view_pos(r, px, py, d, P);
    const float cw = izb_clip_row(m, 3, P[0], P[1], P[2]);
    const float x0 = izb_clip_row(m, 0, P[0], P[1], P[2]) / cw, y0 = izb_clip_row(m, 1, P[0], P[1], P[2]) / cw;
    const float key = izb_clip_row(m, 2, P[0], P[1], P[2]) / cw;
    const float z0 = fmaf(-r->bias, fabsf(key), key);
    const float kf = key < 0.0f ? 1.0f + r->bias : 1.0f - r->bias;
    out->a[0] = ma[0] / cw, out->a[1] = ma[1] / cw, out->a[2] = ma[2] / cw * kf, out->aw = ma[3] / cw;
    out->b[0] = mb[0] / cw, out->b[1] = mb[1] / cw, out->b[2] = mb[2] / cw * kf, out->bw = mb[3] / cw;
    out->pad = 0.0f;
    izb_aa_foot_bounds(out, x0, y0, z0);
}

/* izb_aa_footprint_sel with the facet's normal nv where not NULL (the secants' plane where NULL).
 * The _sel form takes a flag and a readable nv instead of a pointer that may be NULL: the CPU runs
 * it in vector lanes, where GCC vectorises a select but not a load through a per-lane pointer. */
IZB_AA_HD void izb_aa_footprint(const izb_recon *r, int px, int py, float d, const float nb[4], const float *nv,
                             izb_aa_foot *out)
{
    const float none[3] = {0.0f, 0.0f, 0.0f};
    izb_aa_footprint_sel(r, px, py, d, nb, nv != NULL, nv ? nv : none, out);
}

/* A point light's depth image as the face `face` of faces[0 .. count) sees it (izb_faces.c's
 * per-face pass): pixel (px, py)'s depth d where izb_face_owner gives the point that face, sky (0)
 * elsewhere. The footprint of a point light's pixel takes its neighbours' depths through it, so a
 * neighbour owned by another face is no neighbour (izb_aa_secant: as across a discontinuity). */
IZB_AA_HD float izb_aa_face_depth(const izb_recon *faces, int count, int face, int px, int py, float d)
{
    if (izb_depth_is_sky(d)) return 0.0f;
    float vx, vy, vz;
    izb_view_point(&faces[0], px, py, d, &vx, &vy, &vz);
    return izb_face_owner(faces, count, vx, vy, vz) == face ? d : 0.0f;
}

/* The four neighbours' depths (left, right, up, down: izb_aa_secant's nb) of pixel (px, py) of a
 * width x height depth image as face `face` sees it (izb_aa_face_depth); outside the image: sky. */
IZB_AA_HD void izb_aa_face_neighbours(const izb_recon *faces, int count, int face, const float *depth, int px, int py,
                                      float nb[4])
{
    const int W = faces[0].width, H = faces[0].height, i = py * W + px;
    nb[0] = px > 0 ? izb_aa_face_depth(faces, count, face, px - 1, py, depth[i - 1]) : 0.0f;
    nb[1] = px + 1 < W ? izb_aa_face_depth(faces, count, face, px + 1, py, depth[i + 1]) : 0.0f;
    nb[2] = py > 0 ? izb_aa_face_depth(faces, count, face, px, py - 1, depth[i - W]) : 0.0f;
    nb[3] = py + 1 < H ? izb_aa_face_depth(faces, count, face, px, py + 1, depth[i + W]) : 0.0f;
}

/* Can triangle t hide a sub-sample of the point at (x, y) with footprint extent (ex, ey)? Its bbox
 * grown by the extent holds the point (NaN: no). The first test of every pair. */
IZB_AA_HD bool izb_aa_near(const izb_tri *t, float x, float y, float ex, float ey)
{
    return (x >= t->x0 - ex) & (x <= t->x1 + ex) & (y >= t->y0 - ey) & (y <= t->y1 + ey);
}

/* The pre-test's slack (izb_aa_may_hide): relative to the magnitudes summed in each linear form,
 * ~80x the rounding of the sample test plus the pre-test's own (each under 4 float ulps of that
 * sum), and an absolute floor for underflow. */
#define IZB_AA_MAY_HIDE_SLACK 1e-5f
#define IZB_AA_MAY_HIDE_FLOOR 1e-30f

/* Can t hide any sub-sample of point (x, y, z) with footprint f (a directional light's: aw = bw = 0;
 * any footprint: izb_aa_may_hide_box)? false only when no (u, v) in
 * [-1/2, 1/2]^2 can pass izb_aa_sample_hidden: some edge function, or the key minus the sample's
 * depth, is linear in (u, v), so its range over the square is its centre value +- (|grad . a| +
 * |grad . b|) / 2; the footprint is out when an edge's largest value is below 0, or the depth's
 * smallest is at least 0, by more than the slack (IZB_AA_MAY_HIDE_SLACK times the magnitudes the
 * sample test rounds). Not part of the predicate: a conservative skip (a NaN or Inf anywhere keeps the
 * pair), so the masks are the sample tests' whatever it answers; the CPU runs it over 16 points in
 * vector lanes before the N-sample test of each (most points near a triangle's bbox are outside its
 * footprint-grown edges or in front of it). */
IZB_AA_HD bool izb_aa_may_hide(const izb_tri *t, float x, float y, float z, const izb_aa_foot *f)
{
    const float ax = fabsf(x) + f->ex, ay = fabsf(y) + f->ey; /* bounds on the samples' |x|, |y| */
    bool out = false;
    for (int i = 0; i < 3; i++) {
        const float c = fmaf(t->e[i][0], x, fmaf(t->e[i][1], y, t->e[i][2]));
        const float r = 0.5f * (fabsf(fmaf(t->e[i][0], f->a[0], t->e[i][1] * f->a[1])) +
                                fabsf(fmaf(t->e[i][0], f->b[0], t->e[i][1] * f->b[1])));
        const float m = fmaf(IZB_AA_MAY_HIDE_SLACK,
                             fmaf(fabsf(t->e[i][0]), ax, fmaf(fabsf(t->e[i][1]), ay, fabsf(t->e[i][2]))),
                             IZB_AA_MAY_HIDE_FLOOR);
        out = out | (c + r + m < 0.0f);
    }
    /* hidden needs key < the sample's z; key - z is linear too (the sample's z moves with a[2], b[2]) */
    const float kc = fmaf(t->z[0], x, fmaf(t->z[1], y, t->z[2])) - z;
    const float rz = 0.5f * (fabsf(fmaf(t->z[0], f->a[0], fmaf(t->z[1], f->a[1], -f->a[2]))) +
                             fabsf(fmaf(t->z[0], f->b[0], fmaf(t->z[1], f->b[1], -f->b[2]))));
    const float mz = fmaf(IZB_AA_MAY_HIDE_SLACK,
                          fmaf(fabsf(t->z[0]), ax,
                               fmaf(fabsf(t->z[1]), ay,
                                    fabsf(t->z[2]) + fabsf(z) + 0.5f * (fabsf(f->a[2]) + fabsf(f->b[2])))),
                          IZB_AA_MAY_HIDE_FLOOR);
    out = out | (kc - rz - mz >= 0.0f);
    return !out;
}

/* Can t hide a sub-sample lying in the rectangle [x0, x1] x [y0, y1] (bounds may be infinite)? false
 * only when the rectangle is wholly outside one of t's edges by more than the slack (as
 * izb_aa_may_hide's: each edge function's range over it is its centre value +- |E_x| hw + |E_y| hh).
 * The CPU skips a grid cell with it: the cell's rectangle grown by its points' largest extent holds
 * every sub-sample of its points. Conservative like izb_aa_may_hide (NaN or Inf: true). */
IZB_AA_HD bool izb_aa_rect_may_hide(const izb_tri *t, float x0, float y0, float x1, float y1)
{
    const float xc = 0.5f * (x0 + x1), yc = 0.5f * (y0 + y1), hw = 0.5f * (x1 - x0), hh = 0.5f * (y1 - y0);
    const float ax = fabsf(xc) + hw, ay = fabsf(yc) + hh;
    bool out = false;
    for (int i = 0; i < 3; i++) {
        const float c = fmaf(t->e[i][0], xc, fmaf(t->e[i][1], yc, t->e[i][2]));
        const float r = fmaf(fabsf(t->e[i][0]), hw, fabsf(t->e[i][1]) * hh);
        const float m = fmaf(IZB_AA_MAY_HIDE_SLACK,
                             fmaf(fabsf(t->e[i][0]), ax, fmaf(fabsf(t->e[i][1]), ay, fabsf(t->e[i][2]))),
                             IZB_AA_MAY_HIDE_FLOOR);
        out = out | (c + r + m < 0.0f);
    }
    return !out;
}

/* izb_aa_may_hide for any footprint (a light at a point: the sub-samples are a projected quad, not
 * a parallelogram): false only when every sub-sample fails izb_aa_sample_hidden. They lie in the
 * rectangle (x, y) +- (ex, ey) with keys within z +- ez (izb_aa_foot), so t hides none when that
 * rectangle is wholly outside one of its edges (izb_aa_rect_may_hide) or t's depth plane over it is
 * nowhere below the largest key, by the same slack as izb_aa_may_hide's. Conservative (NaN: true). */
IZB_AA_HD bool izb_aa_may_hide_box(const izb_tri *t, float x, float y, float z, const izb_aa_foot *f)
{
    const float ax = fabsf(x) + f->ex, ay = fabsf(y) + f->ey;
    const float kc = fmaf(t->z[0], x, fmaf(t->z[1], y, t->z[2])) - z;
    const float rz = fmaf(fabsf(t->z[0]), f->ex, fabsf(t->z[1]) * f->ey) + f->ez;
    const float mz = fmaf(IZB_AA_MAY_HIDE_SLACK,
                          fmaf(fabsf(t->z[0]), ax, fmaf(fabsf(t->z[1]), ay, fabsf(t->z[2]) + fabsf(z) + f->ez)),
                          IZB_AA_MAY_HIDE_FLOOR);
    return !(kc - rz - mz >= 0.0f) & izb_aa_rect_may_hide(t, x - f->ex, y - f->ey, x + f->ex, y + f->ey);
}

/* Is sub-sample (u, v) of point (x, y, z) with footprint f hidden by t? The hard test at the
 * sub-sample's position (izb_aa_sample_pos). Branch free: the CPU runs it over the samples in
 * vector lanes. */
IZB_AA_HD bool izb_aa_sample_hidden(const izb_tri *t, float x, float y, float z, const izb_aa_foot *f, float u,
                                 float v)
{
    float xs, ys, zs;
    izb_aa_sample_pos(f, x, y, z, u, v, &xs, &ys, &zs);
    return izb_tri_occludes(t, xs, ys, zs);
}

/* izb_aa_sample_hidden for a directional light's footprint (aw = bw = 0), bit for bit, without the
 * division: the backends' directional frames take it (their hot loop stays today's) */
IZB_AA_HD bool izb_aa_sample_hidden_affine(const izb_tri *t, float x, float y, float z, const izb_aa_foot *f, float u,
                                        float v)
{
    float xs, ys, zs;
    izb_aa_sample_pos_affine(f, x, y, z, u, v, &xs, &ys, &zs);
    return izb_tri_occludes(t, xs, ys, zs);
}

/* Does cut-out triangle t (uv, texture tex) keep sub-sample (u, v) of point (x, y) with footprint f?
 * The hard path's alpha test (izb_alpha_tri_keeps) at the sub-sample's own light image-plane
 * position: its UV from t's edge values there (its barycentrics on t along the light), not the
 * pixel centre's, so a card's holes cut through single sub-samples. Asked only for a sub-sample
 * izb_aa_sample_hidden says t hides. */
IZB_AA_HD bool izb_aa_sample_keeps(const izb_tri *t, float x, float y, const izb_aa_foot *f, float u, float v,
                                const float uv[6], const uint8_t *alpha_pool, const izb_alpha_tex *tex)
{
    float xs, ys, zs;
    izb_aa_sample_pos(f, x, y, 0.0f, u, v, &xs, &ys, &zs);
    return izb_alpha_tri_keeps(t, xs, ys, uv, alpha_pool, tex);
}

/* The hidden sub-samples `bits` (bit k: sample k of S) of point (x, y) that cut-out triangle t
 * keeps (izb_aa_sample_keeps): the word a cut-out ORs into the point's mask. Every backend filters
 * its hits with it, per hidden sample only (a texel read each). */
IZB_AA_HD uint32_t izb_aa_keep_bits(const izb_tri *t, float x, float y, const izb_aa_foot *f, const izb_aa_samples *S,
                                 uint32_t bits, const float uv[6], const uint8_t *alpha_pool,
                                 const izb_alpha_tex *tex)
{
    uint32_t keep = 0;
    for (int k = 0; k < S->n; k++)
        if (bits >> k & 1u)
            keep |= (uint32_t)izb_aa_sample_keeps(t, x, y, f, S->u[k], S->v[k], uv, alpha_pool, tex) << k;
    return keep;
}

/* The points' bbox grown by the largest footprint extent (ex, ey): the bbox the triangles' set-up
 * culls against in an anti-aliased frame, so a triangle that only reaches sub-samples is kept. */
IZB_AA_HD izb_bbox izb_aa_grow_bbox(izb_bbox b, float ex, float ey)
{
    b.min_x -= ex, b.max_x += ex, b.min_y -= ey, b.max_y += ey;
    return b;
}

/* The cells a triangle's bbox grown by (ex, ey) covers (as izb_tri_cells): the range with the
 * frame's largest extent, a cell's own with its points' largest. */
IZB_AA_HD void izb_aa_tri_cells(const izb_tri *t, float ex, float ey, const izb_grid *g, int *cx0, int *cy0, int *cx1,
                             int *cy1)
{
    *cx0 = izb_cell_x(g, t->x0 - ex);
    *cy0 = izb_cell_y(g, t->y0 - ey);
    *cx1 = izb_cell_x(g, t->x1 + ex);
    *cy1 = izb_cell_y(g, t->y1 + ey);
}

#endif
