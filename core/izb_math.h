/* izb_math.h — the per-element math of the irregular Z-buffer, shared by the CPU reference (C11)
 * and the CUDA backend (nvcc). One copy of every formula: reconstruction of a sample point, the
 * grid and its cell hash, triangle setup (homogeneous edge functions + depth plane) and the
 * point-in-triangle / nearer-the-light test.
 *
 * Conventions (see docs/how-it-works.md):
 * - Depth input: linear view depth (distance along the camera's -Z), 0 (or non-finite) = sky.
 * - Pixel (px, py) is GL's: py = 0 is the bottom row; pixel index = py * width + px.
 * - Light clip space comes from the light's IZB matrix (light.h). Its x/w, y/w are the light's
 *   image plane; its z/w is the depth key: it grows with distance from the light and is affine in
 *   light screen space (orthographic: NDC z; spot: -1/w), so a triangle's key at a point is an
 *   exact plane equation in (x, y) — no perspective error in the depth compare.
 * - Triangles are rasterised with homogeneous (2DH) edge functions, so vertices behind the light
 *   (w <= 0) need no clipping: the inside test itself rejects the part of the plane behind it.
 * - Every multiply-add is an explicit fmaf() so the CPU and the GPU round identically: the CUDA
 *   mask must equal the CPU mask bit for bit, not "nearly". Both compilers are told not to fuse
 *   on their own (-ffp-contract=off, nvcc -fmad=false); divisions and sqrtf are IEEE on both.
 */
#ifndef IZB_MATH_H
#define IZB_MATH_H

#include <math.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __CUDACC__
#define IZB_HD static inline __host__ __device__
/* for a rare path with arrays: out of line, so its registers do not weigh on the common path */
#define IZB_HD_COLD static __noinline__ __host__ __device__
#else
#define IZB_HD static inline
#define IZB_HD_COLD static inline
#endif

/* Grid tunables: adaptive size aims at 2^IZB_GRID_PPC_LOG2 points per cell, each side at most
 * IZB_GRID_MAX_DIM cells. */
#define IZB_GRID_PPC_LOG2 3
#define IZB_GRID_MAX_DIM 1024
/* Default depth bias (thesis §6.1.2), in units of the light's depth range for an orthographic
 * light and relative to the distance from the light for a spot light. */
#define IZB_DEFAULT_BIAS 2e-4f

/* A sample point: light image-plane position, biased depth key, original pixel index.
 * 16 bytes so CUDA loads it as one float4 (thesis §4.1.2). */
typedef struct izb_point {
    float x, y, z;
    uint32_t pixel;
} izb_point;

typedef struct izb_bbox {
    float min_x, min_y, max_x, max_y;
} izb_bbox;

/* Uniform 2D grid over the points' bbox (thesis §4.1.1). Cell (cx, cy) has index cy * w + cx. */
typedef struct izb_grid {
    float min_x, min_y;
    float inv_cell_w, inv_cell_h; /* cells per unit of x / y; 0 when the bbox is flat */
    int w, h;
} izb_grid;

/* Per-frame parameters: camera view space -> light clip space, and the light. Built by
 * izb_frame_make() (scene/view.h). */
/* izb_recon.light_is_spot: a spot light, or one face of a point light's cube (a square frustum of
 * 90 degrees: the six together cover every direction; izb_shade_arrays_faces gives each point to
 * one of them, izb_face_owner). All have the perspective depth key and the relative bias. */
#define IZB_LIGHT_SPOT 1
#define IZB_LIGHT_FACE 2
/* One face of a point light's cube shaded with only the points izb_face_owner gives it
 * (izb_shade_arrays_faces makes these from IZB_LIGHT_FACE frames): reconstruction rejects only
 * points behind the light (w <= 0), not those a rounding puts a hair outside the face's square —
 * the owner rule has already put every point in exactly one face, and a square test on top could
 * drop a point on a seam from all of them. */
#define IZB_LIGHT_CUBE 3
/* The most frames izb_face_owner chooses among: a cube's faces. */
#define IZB_CUBE_FACES 6

typedef struct izb_recon {
    float light[16];        /* column-major 4x4: world -> light clip (the light's IZB matrix) */
    float cam_to_light[16]; /* column-major 4x4: light IZB matrix * inverse camera view */
    float ray_sx, ray_sy;   /* view ray at NDC (1,1): (tan(fovy/2) * aspect, tan(fovy/2)) */
    int width, height;
    int light_is_spot; /* 0 directional; else a light at a point (IZB_LIGHT_SPOT, IZB_LIGHT_FACE,
                        * IZB_LIGHT_CUBE): points with w <= 0 or outside its frustum are unlit */
    float bias;        /* see IZB_DEFAULT_BIAS */
    /* Directional light only: the full angle (radians) of the cone the light comes from, 0 = a point
     * at infinity (hard shadows, the path without izb_soft.h); and light_samples, the M samples of
     * that cone (16, 32, 64, 128 or 256; read only when light_angle > 0). izb.c refuses other
     * values (izb_soft_frame_ok). */
    float light_angle;
    int light_samples;
    /* Sub-samples of each pixel's footprint for anti-aliased shadow edges (izb_aa.h): 1, 4, 8, 16
     * or 32; 0 means 1, the pixel's centre: the hard path, bit for bit. izb.c refuses other values
     * (izb_aa_frame_ok). */
    int shadow_samples;
    /* Area light (izb_area.h): a spot light (IZB_LIGHT_SPOT) with an emitter of light_size[0] x
     * light_size[1] world units along the light's image x and y axes, centred on its position and
     * facing its aim, seen as light_samples M samples (16 .. 256, as the directional's). 0, 0: a
     * point, the hard spot path bit for bit. light_disk: IZB_AREA_DISK for the ellipse inscribed in
     * that rectangle. izb.c refuses negative, NaN, Inf or huge sizes (izb_area_frame_ok). */
    float light_size[2];
    int light_disk;
} izb_recon;

/* A triangle ready for the rasteriser (thesis §4.3–4.4): edge functions e_i = a*x + b*y + c
 * (inside when all three >= 0), depth plane key = z[0]*x + z[1]*y + z[2], and its bbox on the light
 * image plane [x0, x1] x [y0, y1] (grown for rounding). The bbox is part of the inside test (a
 * point outside it is never inside, however two nearly collinear edge functions round) and gives
 * the cells the rasterisers visit (izb_tri_cells). 16 words: 64 bytes. */
typedef struct izb_tri {
    float e[3][3];
    float z[3];
    float x0, y0, x1, y1;
} izb_tri;

typedef enum izb_sample_kind {
    IZB_SKY = 0,   /* no geometry: no point, mask value irrelevant */
    IZB_UNLIT = 1, /* outside the spot light's cone or behind it: no point, mask = shadow */
    IZB_SAMPLE = 2 /* a sample point for the rasteriser */
} izb_sample_kind;

/* min / max that ignore a NaN `v` like fminf/fmaxf, but as plain compares: x86-64 has no
 * instruction for fminf's NaN rule, so GCC calls libm for every one (measured 3% of a CPU frame
 * at 1M triangles), while a compare-select inlines. They differ from fminf only in the sign of a
 * zero result, which no cell index or bbox test can see. */
IZB_HD float izb_minf(float acc, float v) { return v < acc ? v : acc; }
IZB_HD float izb_maxf(float acc, float v) { return v > acc ? v : acc; }

/* v clamped to [lo, hi]; NaN gives lo. */
IZB_HD float izb_clampf(float v, float lo, float hi) { return v >= lo ? (v <= hi ? v : hi) : lo; }

/* Depth of a pixel that shows no geometry: sky (0 or less), NaN, Inf. `|`, not `||`: no branch in a
 * vectorised loop. */
IZB_HD bool izb_depth_is_sky(float depth)
{
    return !(depth > 0.0f) | !(depth <= 3.0e38f);
}

/* Whether a point at (x, y) = (clip x / w, clip y / w) in a spot light's clip space (in front of
 * it, w > 0) lies outside the spot's cone. The spot's projection is square (aspect 1) with fovy the
 * cone's full angle (light_matrices, scene/view.c), so x and y are the tangents of the point's
 * angle to the axis in two perpendicular planes over tan(half cone): x^2 + y^2 = tan^2(angle) /
 * tan^2(half cone), and the cone is the unit circle, not the square |x|, |y| <= 1 whose corners
 * reach past it. NaN (w = 0) is outside. The one definition of the cone: shadow_mask.frag and the
 * oracle (tools/oracle.c, in double) spell the same test; shade.frag's falloff ends at the same
 * angle (docs/how-it-works.md). */
IZB_HD bool izb_spot_outside(float x, float y)
{
    return !(fmaf(x, x, y * y) <= 1.0f);
}

/* Is light clip (x, y) outside a cube face's square frustum (IZB_LIGHT_FACE)? NaN is outside. */
IZB_HD bool izb_face_outside(float x, float y)
{
    return !((fabsf(x) <= 1.0f) & (fabsf(y) <= 1.0f));
}

/* The camera view-space position of pixel (px, py) at linear view depth `depth` (thesis §3.2): the
 * first half of izb_reconstruct_lit, shared with the cube-face partition (izb_face_owner) so that
 * the owner and the point come from one vector. */
IZB_HD void izb_view_point(const izb_recon *r, int px, int py, float depth, float *vx, float *vy, float *vz)
{
    float ndc_x = (float)(2 * px + 1) / (float)r->width - 1.0f;
    float ndc_y = (float)(2 * py + 1) / (float)r->height - 1.0f;
    *vx = ndc_x * r->ray_sx * depth;
    *vy = ndc_y * r->ray_sy * depth;
    *vz = -depth;
}

/* Row `row` (0 x, 1 y, 2 z, 3 w) of the column-major matrix m applied to (vx, vy, vz, 1). */
IZB_HD float izb_clip_row(const float *m, int row, float vx, float vy, float vz)
{
    return fmaf(m[row], vx, fmaf(m[4 + row], vy, fmaf(m[8 + row], vz, m[12 + row])));
}

/* The second half of izb_reconstruct_lit: a point given in light clip space (cx, cy, cz, cw) under
 * r's light kind and bias, at pixel index `pixel`. */
IZB_HD izb_sample_kind izb_clip_point(const izb_recon *r, float cx, float cy, float cz, float cw, uint32_t pixel,
                                      izb_point *out)
{
    float x = cx / cw, y = cy / cw, key = cz / cw;
    /* spot: behind the light or outside its (round) cone; a point light's cube face: outside its
     * square (the six squares tile every direction, izb_shade_arrays_faces); a face whose points
     * izb_face_owner chose (IZB_LIGHT_CUBE): behind the light only */
    const int kind = r->light_is_spot;
    const bool outside = ((kind == IZB_LIGHT_FACE) & izb_face_outside(x, y)) |
                         ((kind == IZB_LIGHT_SPOT) & izb_spot_outside(x, y));
    const bool unlit = (kind != 0) & (!(cw > 0.0f) | outside);
    /* Bias moves the point toward the light: by bias * depth range (ortho, key in [-1, 1]) or by
     * bias * distance (spot, key = -1/distance). */
    const float z_spot = fmaf(-r->bias, fabsf(key), key), z_dir = key - r->bias;
    out->x = x;
    out->y = y;
    out->z = kind ? z_spot : z_dir;
    out->pixel = pixel;
    return unlit ? IZB_UNLIT : IZB_SAMPLE;
}

/* The light clip w of pixel (px, py) at `depth`: izb_reconstruct_lit's divisor. */
IZB_HD float izb_clip_w(const izb_recon *r, int px, int py, float depth)
{
    float vx, vy, vz;
    izb_view_point(r, px, py, depth, &vx, &vy, &vz);
    return izb_clip_row(r->cam_to_light, 3, vx, vy, vz);
}

/* izb_reconstruct_lit, told whether the clip w is known to be exactly 1 (unit_w: the caller has
 * checked izb_clip_w == 1, as a directional light's orthographic matrix gives for finite input).
 * x / 1 is x bit for bit, so with a constant unit_w the compiler drops the three divisions: the CPU
 * backend's reconstruction takes that copy for its blocks whose every lane passed the check. */
IZB_HD izb_sample_kind izb_reconstruct_w(const izb_recon *r, int px, int py, float depth, bool unit_w,
                                         izb_point *out)
{
    float vx, vy, vz;
    izb_view_point(r, px, py, depth, &vx, &vy, &vz);
    const float *m = r->cam_to_light;
    return izb_clip_point(r, izb_clip_row(m, 0, vx, vy, vz), izb_clip_row(m, 1, vx, vy, vz),
                          izb_clip_row(m, 2, vx, vy, vz), unit_w ? 1.0f : izb_clip_row(m, 3, vx, vy, vz),
                          (uint32_t)(py * r->width + px), out);
}

/* izb_reconstruct of a pixel that is not sky: IZB_UNLIT or IZB_SAMPLE, with *out written either
 * way (meaningful for IZB_SAMPLE only). Without a branch, so that a `#pragma omp simd` loop over
 * pixels vectorises it (the CPU backend's reconstruction, kernels.h). */
IZB_HD izb_sample_kind izb_reconstruct_lit(const izb_recon *r, int px, int py, float depth, izb_point *out)
{
    return izb_reconstruct_w(r, px, py, depth, false, out);
}

/* The seam rule of a point light: the owner of a point among a cube's faces is the face whose clip
 * w — the point's distance along the face's axis, a perspective matrix's w row — is largest, i.e.
 * the major axis of the direction from the light. A tie (a point on a seam) keeps the lower
 * index, and a NaN w never takes a point (all NaN: face 0, whose reconstruction calls it unlit).
 * izb_face_take is one step of that choice: face i with clip w `w` against the best so far; true
 * (and *best_w, *best updated) when it takes the point. Every path chooses through it
 * (izb_face_owner, the CPU backend's partition), so a point is shaded by exactly one face. */
IZB_HD bool izb_face_take(float w, int i, float *best_w, int *best)
{
    const bool take = w > *best_w;
    *best_w = take ? w : *best_w;
    *best = take ? i : *best;
    return take;
}

/* The face of faces[0 .. count) (a point light's cube, count <= IZB_CUBE_FACES) that owns the
 * view-space point v (izb_view_point): izb_face_take over the faces in index order. */
IZB_HD int izb_face_owner(const izb_recon *faces, int count, float vx, float vy, float vz)
{
    int best = 0;
    float best_w = izb_clip_row(faces[0].cam_to_light, 3, vx, vy, vz);
    for (int i = 1; i < count; i++)
        izb_face_take(izb_clip_row(faces[i].cam_to_light, 3, vx, vy, vz), i, &best_w, &best);
    return best;
}

/* Reconstruct the world position of pixel (px, py) with linear view depth `depth` and project it
 * into light space (thesis §3.2). Writes *out only for IZB_SAMPLE. */
IZB_HD izb_sample_kind izb_reconstruct(const izb_recon *r, int px, int py, float depth, izb_point *out)
{
    if (izb_depth_is_sky(depth)) return IZB_SKY;
    izb_point p;
    const izb_sample_kind k = izb_reconstruct_lit(r, px, py, depth, &p);
    if (k == IZB_SAMPLE) *out = p;
    return k;
}

/* One face's turn in izb_face_vertex: face f's w row at (x, y, z) against the best and second best
 * so far. */
IZB_HD void izb_face_rank(const float *wf, int f, float x, float y, float z, float *best, float *second, int *b)
{
    const float w = fmaf(wf[0], x, fmaf(wf[1], y, fmaf(wf[2], z, wf[3])));
    *second = w > *best ? *best : (w > *second ? w : *second);
    *b = w > *best ? f : *b;
    *best = w > *best ? w : *best;
}

/* izb_face_reach's face of one vertex: of the six (IZB_CUBE_FACES), the one whose w is largest (the
 * lower index on a tie), and whether it beats every other face's by more than `margin` and by a
 * finite amount (an infinite coordinate makes some w infinite: such a vertex is no face's surely).
 * The faces are written out, with no loop: GCC vectorises the loop over triangles around it only
 * then (the face_reach kernels). */
IZB_HD int izb_face_vertex(const float (*w)[4], float x, float y, float z, float margin, bool *sure)
{
    float best = -INFINITY, second = -INFINITY;
    int b = 0;
    izb_face_rank(w[0], 0, x, y, z, &best, &second, &b);
    izb_face_rank(w[1], 1, x, y, z, &best, &second, &b);
    izb_face_rank(w[2], 2, x, y, z, &best, &second, &b);
    izb_face_rank(w[3], 3, x, y, z, &best, &second, &b);
    izb_face_rank(w[4], 4, x, y, z, &best, &second, &b);
    izb_face_rank(w[5], 5, x, y, z, &best, &second, &b);
    const float lead = best - second;
    *sure = (lead > margin) & (lead < INFINITY);
    return b;
}

/* Which of a point light's cube faces a triangle can shadow a point of (a culling pre-test; the
 * exact answer is still each face's izb_tri_setup). w[f]: face f's world -> clip w row (the light
 * matrix's row 3: the distance along the face's axis), IZB_CUBE_FACES of them (a missing face's row
 * (0, 0, 0, -inf)); v: the triangle's 9 floats. A vertex is surely a face's when that face's w
 * beats every other's by more than `margin`; a triangle whose three vertices are surely one face's
 * lies wholly in that face's cone, shrunk by the margin (the faces' w differences are linear), and
 * the segment from any other face's point to the light stays outside it as long as `margin` bounds
 * the rounding of izb_face_owner's choice. Bit f set: face f may need it; every bit when not sure
 * (a seam, a NaN, an infinite coordinate). */
/* izb_face_reach9: the triangle (x0, y0, z0), (x1, y1, z1), (x2, y2, z2) as nine scalars (what the
 * kernels vectorise); izb_face_reach: its 9 floats v. */
IZB_HD uint32_t izb_face_reach9(const float (*w)[4], float x0, float y0, float z0, float x1, float y1, float z1,
                                float x2, float y2, float z2, float margin)
{
    bool s0, s1, s2;
    const int f0 = izb_face_vertex(w, x0, y0, z0, margin, &s0);
    const int f1 = izb_face_vertex(w, x1, y1, z1, margin, &s1);
    const int f2 = izb_face_vertex(w, x2, y2, z2, margin, &s2);
    const bool sure = s0 & s1 & s2 & (f0 == f1) & (f1 == f2);
    return sure ? 1u << f0 : (1u << IZB_CUBE_FACES) - 1u;
}

IZB_HD uint32_t izb_face_reach(const float (*w)[4], const float *v, float margin)
{
    return izb_face_reach9(w, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], margin);
}

/* Grid dimensions for n points in `b`: the requested size where given (> 0), else about
 * 2^IZB_GRID_PPC_LOG2 points per cell with square-ish cells. */
IZB_HD izb_grid izb_grid_make(izb_bbox b, int n, int req_w, int req_h)
{
    float ex = fmaxf(b.max_x - b.min_x, 0.0f), ey = fmaxf(b.max_y - b.min_y, 0.0f);
    int w = req_w, h = req_h;
    if (w <= 0 || h <= 0) {
        float cells = fmaxf((float)(n >> IZB_GRID_PPC_LOG2), 1.0f);
        float aspect = (ex > 0.0f && ey > 0.0f) ? ex / ey : 1.0f;
        aspect = izb_clampf(aspect, 1.0f / IZB_GRID_MAX_DIM, (float)IZB_GRID_MAX_DIM);
        w = (int)izb_clampf(floorf(sqrtf(cells * aspect) + 0.5f), 1.0f, (float)IZB_GRID_MAX_DIM);
        h = (int)izb_clampf(floorf(cells / (float)w + 0.5f), 1.0f, (float)IZB_GRID_MAX_DIM);
    }
    izb_grid g;
    g.min_x = b.min_x;
    g.min_y = b.min_y;
    g.inv_cell_w = ex > 0.0f ? (float)w / ex : 0.0f;
    g.inv_cell_h = ey > 0.0f ? (float)h / ey : 0.0f;
    g.w = w;
    g.h = h;
    return g;
}

/* Cell column / row of a coordinate, clamped into the grid (thesis §4.2.1 "overflow is avoided by
 * clamping"). Monotonic in x, so a triangle's cell range computed from its bbox always contains
 * the cells of the points inside it. NaN maps to 0. */
IZB_HD int izb_cell_x(const izb_grid *g, float x)
{
    return (int)izb_clampf(floorf((x - g->min_x) * g->inv_cell_w), 0.0f, (float)(g->w - 1));
}
IZB_HD int izb_cell_y(const izb_grid *g, float y)
{
    return (int)izb_clampf(floorf((y - g->min_y) * g->inv_cell_h), 0.0f, (float)(g->h - 1));
}
IZB_HD uint32_t izb_cell_hash(const izb_grid *g, float x, float y)
{
    return (uint32_t)(izb_cell_y(g, y) * g->w + izb_cell_x(g, x));
}

/* Edge function e(p) = (a x b) . p of the edge from a to b (light clip x, y, w; z unused), so that
 * (x, y, 1) with e >= 0 lies to its left seen from the light. Computed as first x (second - first)
 * with the two vertices in a canonical order, the smaller one first, for three reasons:
 * - accuracy: a and b are nearly parallel when the edge is small and far from the light, and
 *   a x b cancels catastrophically (relative error ~ distance / edge length); the difference
 *   does not cancel;
 * - accuracy again: when one vertex is far smaller than the other (a vertex at or next to a spot
 *   light), big - small keeps the big one whole while small - big would round the small one away
 *   and leave big x big = rounding noise (fuzz_izb found edges of the wrong sign that way: a
 *   triangle with a vertex 1e-8 from the light accepted points far outside it);
 * - watertightness: the order depends on the pair only, so a neighbour's edge b -> a gets exactly
 *   the negated coefficients and no point on a shared edge falls outside both triangles. */
IZB_HD void izb_edge(const float a[4], const float b[4], float e[3])
{
    const float ma = fabsf(a[0]) + fabsf(a[1]) + fabsf(a[3]), mb = fabsf(b[0]) + fabsf(b[1]) + fabsf(b[3]);
    /* value selects, no pointers or short-circuits: the CPU computes it 16 triangles at a time */
    const bool swap = (ma > mb) | ((ma == mb) & ((a[0] > b[0]) | ((a[0] == b[0]) & ((a[1] > b[1]) |
                                                                                   ((a[1] == b[1]) & (a[3] > b[3]))))));
    const float p0 = swap ? b[0] : a[0], p1 = swap ? b[1] : a[1], p3 = swap ? b[3] : a[3];
    const float q0 = swap ? a[0] : b[0], q1 = swap ? a[1] : b[1], q3 = swap ? a[3] : b[3];
    float dx = q0 - p0, dy = q1 - p1, dw = q3 - p3;
    float s = swap ? -1.0f : 1.0f;
    e[0] = s * fmaf(p1, dw, -p3 * dy);
    e[1] = s * fmaf(p3, dx, -p0 * dw);
    e[2] = s * fmaf(p0, dy, -p1 * dx);
}

/* The bbox of the part of rectangle r where every edge function e_i(p) * s is >= 0: r clipped by
 * three half-planes (Sutherland-Hodgman; a convex polygon gains at most one vertex per plane, so
 * 4 + 3 fit in 8). False when nothing is left. For a triangle that crosses the light's w = 0 plane
 * this is where its front part can cover points: without it such a triangle spans the whole grid
 * and every point is tested against it (measured: 4.8 s instead of ~0.2 s for a spot light
 * among 1M grass triangles, 7,509 of them crossing). The box grows by 1e-4 of r's size (a tenth
 * of the finest grid's cell) plus 1e-5 of its coordinates, far above the rounding of the clip, so
 * that a point the float inside test accepts is never outside it. */
IZB_HD_COLD bool izb_clip_rect(const float e[3][3], float s, const izb_bbox *r, izb_bbox *out)
{
    float px[8] = {r->min_x, r->max_x, r->max_x, r->min_x}, py[8] = {r->min_y, r->min_y, r->max_y, r->max_y};
    int n = 4;
    for (int i = 0; i < 3 && n > 0; i++) {
        const float a = s * e[i][0], b = s * e[i][1], c = s * e[i][2];
        float qx[8], qy[8], d[8];
        for (int j = 0; j < n; j++)
            d[j] = fmaf(a, px[j], fmaf(b, py[j], c));
        int m = 0;
        for (int j = 0; j < n; j++) {
            const int k = j + 1 < n ? j + 1 : 0;
            if (d[j] >= 0.0f) {
                qx[m] = px[j];
                qy[m++] = py[j];
            }
            if ((d[j] >= 0.0f) != (d[k] >= 0.0f)) { /* the edge j -> k crosses the line */
                const float t = d[j] / (d[j] - d[k]);
                qx[m] = fmaf(t, px[k] - px[j], px[j]);
                qy[m++] = fmaf(t, py[k] - py[j], py[j]);
            }
        }
        for (int j = 0; j < m; j++) {
            px[j] = qx[j];
            py[j] = qy[j];
        }
        n = m;
    }
    if (n == 0)
        return false;
    izb_bbox b = {px[0], py[0], px[0], py[0]};
    for (int j = 1; j < n; j++) {
        b.min_x = izb_minf(b.min_x, px[j]);
        b.min_y = izb_minf(b.min_y, py[j]);
        b.max_x = izb_maxf(b.max_x, px[j]);
        b.max_y = izb_maxf(b.max_y, py[j]);
    }
    const float margin = 1e-4f * ((r->max_x - r->min_x) + (r->max_y - r->min_y)) +
                         1e-5f * (fabsf(r->min_x) + fabsf(r->max_x) + fabsf(r->min_y) + fabsf(r->max_y));
    out->min_x = b.min_x - margin;
    out->min_y = b.min_y - margin;
    out->max_x = b.max_x + margin;
    out->max_y = b.max_y + margin;
    return true;
}

/* Set up a triangle given its vertices in light clip space (x, y, z, w each) for the grid `g`
 * over the points' bbox `pb`. Returns false when the triangle is culled: degenerate (its plane
 * contains the light), back-facing when cull_back (clockwise from the light), behind a spot light,
 * or outside the points' bbox. Homogeneous edge functions (Olano & Greer 1997): with the vertices
 * as columns of M = [X; Y; W], row i of adj(M) is V_j x V_k, and a point p = (x, y, 1) lies in the
 * triangle, on the part in front of the light, iff every e_i(p) has the sign of det(M).
 * The depth key at p is sum_i e_i(p) Z_i / det = (Z_0 E(p) + sum_{i>0} e_i(p) (Z_i - Z_0)) / det
 * with E = sum_i e_i = (V_1 - V_0) x (V_2 - V_0) and det = V_0 . E, all from vertex differences:
 * summing the e_i instead loses ~ distance / size digits for small triangles far from a spot
 * light (measured: 1e-3 relative key error, 5x the bias, on a 60K-triangle scene). */
/* The pieces of izb_tri_setup that decide most rejections, shared with the CPU backend's bundled
 * pre-test (kernels.h), which computes them for 16 triangles at once from these very
 * functions, so both decide with the same bits. E = (V_1 - V_0) x (V_2 - V_0); returns det. */
IZB_HD float izb_tri_det(const float v[3][4], float E[3])
{
    float ax = v[1][0] - v[0][0], ay = v[1][1] - v[0][1], aw = v[1][3] - v[0][3];
    float bx = v[2][0] - v[0][0], by = v[2][1] - v[0][1], bw = v[2][3] - v[0][3];
    E[0] = fmaf(ay, bw, -aw * by);
    E[1] = fmaf(aw, bx, -ax * bw);
    E[2] = fmaf(ax, by, -ay * bx);
    return fmaf(v[0][0], E[0], fmaf(v[0][1], E[1], v[0][3] * E[2]));
}
/* det of a triangle that can be set up: finite and not zero (NaN fails too: NaN != 0 is true) */
IZB_HD bool izb_tri_det_ok(float det)
{
    return (fabsf(det) > 0.0f) & (fabsf(det) < INFINITY);
}
/* Every vertex in front of the light (w > 0); *none: no vertex is (wholly behind it). */
IZB_HD bool izb_tri_all_front(const float v[3][4], bool *none)
{
    *none = !(v[0][3] > 0.0f) & !(v[1][3] > 0.0f) & !(v[2][3] > 0.0f);
    return (v[0][3] > 0.0f) & (v[1][3] > 0.0f) & (v[2][3] > 0.0f);
}
/* The bbox on the light image plane of a triangle with every vertex in front of the light, grown
 * for the rounding of the inside test; returns whether it meets the points' bbox pb. */
IZB_HD bool izb_tri_front_bbox(const float v[3][4], const izb_bbox *pb, float *bx0, float *by0, float *bx1,
                               float *by1)
{
    /* written out, not a loop: GCC vectorises the CPU's bundle loop only with no inner loop left */
    const float px[3] = {v[0][0] / v[0][3], v[1][0] / v[1][3], v[2][0] / v[2][3]};
    const float py[3] = {v[0][1] / v[0][3], v[1][1] / v[1][3], v[2][1] / v[2][3]};
    float x0 = izb_minf(izb_minf(px[0], px[1]), px[2]);
    float x1 = izb_maxf(izb_maxf(px[0], px[1]), px[2]);
    float y0 = izb_minf(izb_minf(py[0], py[1]), py[2]);
    float y1 = izb_maxf(izb_maxf(py[0], py[1]), py[2]);
    /* The float inside test accepts points a few ulps outside the exact triangle (its edge
     * functions round), so the box grows by 1e-6 of the coordinates' size (~8 ulps): without it
     * a point on a vertex that sits on a cell boundary falls into the cell before the range and
     * is never tested (tests/core/test_cell_range.c found 1,081 such points in 5,000 triangles). */
    const float m = 1e-6f * (fabsf(x0) + fabsf(x1) + fabsf(y0) + fabsf(y1) + (pb->max_x - pb->min_x) +
                             (pb->max_y - pb->min_y));
    x0 -= m, y0 -= m, x1 += m, y1 += m;
    *bx0 = x0, *by0 = y0, *bx1 = x1, *by1 = y1;
    return !(x1 < pb->min_x) & !(x0 > pb->max_x) & !(y1 < pb->min_y) & !(y0 > pb->max_y);
}

/* The three edge functions, e[i] of the edge opposite vertex i. */
IZB_HD void izb_tri_edges(const float v[3][4], float e[3][3])
{
    izb_edge(v[1], v[2], e[0]);
    izb_edge(v[2], v[0], e[1]);
    izb_edge(v[0], v[1], e[2]);
}
/* The set-up triangle from its vertices, E and det (izb_tri_det), edges e and bbox x0..y1 (written
 * out, no loops: the CPU vectorises it over 16 triangles). */
IZB_HD void izb_tri_finish(const float v[3][4], const float E[3], float det, const float e[3][3], float x0,
                           float y0, float x1, float y1, izb_tri *out)
{
    const float s = det < 0.0f ? -1.0f : 1.0f;
    const float inv_det = 1.0f / det;
    const float dz1 = v[1][2] - v[0][2], dz2 = v[2][2] - v[0][2];
    out->e[0][0] = s * e[0][0], out->e[1][0] = s * e[1][0], out->e[2][0] = s * e[2][0];
    out->e[0][1] = s * e[0][1], out->e[1][1] = s * e[1][1], out->e[2][1] = s * e[2][1];
    out->e[0][2] = s * e[0][2], out->e[1][2] = s * e[1][2], out->e[2][2] = s * e[2][2];
    out->z[0] = fmaf(E[0], v[0][2], fmaf(e[1][0], dz1, e[2][0] * dz2)) * inv_det;
    out->z[1] = fmaf(E[1], v[0][2], fmaf(e[1][1], dz1, e[2][1] * dz2)) * inv_det;
    out->z[2] = fmaf(E[2], v[0][2], fmaf(e[1][2], dz1, e[2][2] * dz2)) * inv_det;
    out->x0 = x0, out->y0 = y0, out->x1 = x1, out->y1 = y1;
}

/* The cells a set-up triangle's bbox covers in grid g: [*cx0, *cx1] x [*cy0, *cy1]. Every point the
 * inside test can accept lies in its bbox, so in these cells (the cell hash is monotonic). */
IZB_HD void izb_tri_cells(const izb_tri *t, const izb_grid *g, int *cx0, int *cy0, int *cx1, int *cy1)
{
    *cx0 = izb_cell_x(g, t->x0);
    *cy0 = izb_cell_y(g, t->y0);
    *cx1 = izb_cell_x(g, t->x1);
    *cy1 = izb_cell_y(g, t->y1);
}

IZB_HD bool izb_tri_setup(const float v[3][4], const izb_grid *g, const izb_bbox *pb, bool cull_back,
                          izb_tri *out)
{
    /* Rejections first, from the cheap quantities (det, w, the projected bbox): about half the
     * triangles of a closed scene face away and many miss the points' bbox, and neither needs the
     * edge functions. Every value is a pure function of v, so the order changes no result. */
    float E[3];
    float det = izb_tri_det(v, E);
    if (!izb_tri_det_ok(det) || (cull_back && det < 0.0f))
        return false;
    bool none_front;
    bool all_front = izb_tri_all_front(v, &none_front);
    if (none_front)
        return false; /* wholly behind the light */

    /* The triangle's bbox on the light image plane; where it crosses w = 0 the projection of its
     * front part is unbounded, so the points' bbox clipped by its edges stands in. */
    float s = det < 0.0f ? -1.0f : 1.0f;
    float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f; /* set by either branch below */
    float e[3][3];
    if (all_front && !izb_tri_front_bbox(v, pb, &x0, &y0, &x1, &y1))
        return false;
    izb_tri_edges(v, e);
    if (!all_front) {
        izb_bbox c;
        if (!izb_clip_rect(e, s, pb, &c))
            return false;
        x0 = c.min_x, y0 = c.min_y, x1 = c.max_x, y1 = c.max_y;
    }
    (void)g; /* the cells come from the bbox, in the raster (izb_tri_cells) */
    izb_tri_finish(v, E, det, e, x0, y0, x1, y1, out);
    return true;
}

/* Does triangle t put point p in shadow? Inside (edges inclusive, so shared edges leak no light)
 * and nearer the light than the point's biased depth key (thesis §5.4). Inside means in the bbox
 * too: the float edge functions of a sliver (two edges nearly collinear) can both round to >= 0
 * far beyond a vertex (seen: 0.6 past it, 3e-8 off the long edge's line), and the bbox rejects
 * such a point whichever cell it falls in, so every backend and the brute force agree. */
IZB_HD bool izb_tri_occludes(const izb_tri *t, float x, float y, float z)
{
    float e0 = fmaf(t->e[0][0], x, fmaf(t->e[0][1], y, t->e[0][2]));
    float e1 = fmaf(t->e[1][0], x, fmaf(t->e[1][1], y, t->e[1][2]));
    float e2 = fmaf(t->e[2][0], x, fmaf(t->e[2][1], y, t->e[2][2]));
    float key = fmaf(t->z[0], x, fmaf(t->z[1], y, t->z[2]));
    /* No early exit: the four compares are combined without branches. Which of a triangle's
     * edges rejects a point is unpredictable, and on the CPU the mispredicted branches cost more
     * than the three multiply-adds they skip. */
    return (e0 >= 0.0f) & (e1 >= 0.0f) & (e2 >= 0.0f) & (key < z) & (x >= t->x0) & (x <= t->x1) &
           (y >= t->y0) & (y <= t->y1);
}

/* ---- the point's own plane (primitive ids) ------------------------------------------------- */

/* A point lies on the triangle the depth pass drew at its pixel, and a plane cannot shadow a
 * point on itself: the segment to the light meets the plane only at the point (or lies in it).
 * The depth bias stands in for that fact where the triangle is unknown, and fails where light
 * grazes the surface: its depth plane is so steep in light space that the rounding of the point's
 * position moves the key by several biases (grass:1M at 1280x720: 13 of 19 wrong pixels of a
 * view; a ground lit 0.02 degrees above the horizon: 94% of it). When the caller gives each
 * pixel's triangle (izb_shade_arrays_ids), a hit by the point's own triangle is ignored, and so
 * is a hit by any triangle lying in the own triangle's plane (the other half of a quad, the rest of
 * a flat ground, the flat side of a grass blade): they are the same plane, and at grazing light
 * the point's rounding carries it across their shared edges. The bias still covers every other
 * triangle. Both tests run only once a triangle occludes a point, so the common path pays nothing.
 *
 * Ids are indices in izb_set_scene's order; IZB_NO_ID: unknown (sky, or no id pass). */
#define IZB_NO_ID 0xffffffffu

/* Does triangle b (9 floats: 3 vertices) lie in the plane of triangle a? Every vertex of b within
 * 1e-6 of the largest coordinate magnitude of the two (about 8 float ulps: where vertices given
 * in float cannot tell planes apart) of a's plane; false when a is degenerate. In double, so the
 * test itself adds no rounding that matters; double is IEEE on the GPU too. */
IZB_HD bool izb_same_plane(const float a[9], const float b[9])
{
    double e1[3], e2[3], m = 0.0;
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)a[3 + k] - (double)a[k];
        e2[k] = (double)a[6 + k] - (double)a[k];
    }
    for (int k = 0; k < 9; k++) {
        m = fabs((double)a[k]) > m ? fabs((double)a[k]) : m;
        m = fabs((double)b[k]) > m ? fabs((double)b[k]) : m;
    }
    const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                         e1[0] * e2[1] - e1[1] * e2[0]};
    const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0.0) || !(len < INFINITY)) return false;
    const double tol = 1e-6 * m * len; /* distance tolerance times |n| */
    for (int v = 0; v < 3; v++) {
        const double d = n[0] * ((double)b[3 * v] - a[0]) + n[1] * ((double)b[3 * v + 1] - a[1]) +
                         n[2] * ((double)b[3 * v + 2] - a[2]);
        if (!(fabs(d) <= tol)) return false;
    }
    return true;
}

/* Is a hit of scene triangle t on a point whose pixel shows scene triangle own to be ignored?
 * The scene's n triangles: coordinate k (0..8) of triangle i at xyz[i * tri_stride + k *
 * coord_stride] (the CPU's 9 floats per triangle: 9, 1; CUDA's 9 planes of n: 1, n). An own
 * id >= n (IZB_NO_ID, or a bad one) is unknown. */
IZB_HD bool izb_hit_is_own(const float *xyz, size_t tri_stride, size_t coord_stride, uint32_t n, uint32_t own,
                           uint32_t t)
{
    if (own == t) return true;
    if (own >= n) return false;
    float a[9], b[9];
    for (int k = 0; k < 9; k++) {
        a[k] = xyz[(size_t)own * tri_stride + (size_t)k * coord_stride];
        b[k] = xyz[(size_t)t * tri_stride + (size_t)k * coord_stride];
    }
    return izb_same_plane(a, b);
}

/* ---- which back faces may be culled (core/izb_closed.h) ------------------------------------ */

/* Back-face culling modes. Auto culls only the triangles of closed, outward-oriented components
 * the light is outside of: exact on any mesh. On culls every back face (exact only on closed
 * meshes), off none. */
typedef enum izb_cull {
    IZB_CULL_DEFAULT = 0, /* auto */
    IZB_CULL_AUTO,
    IZB_CULL_ON,
    IZB_CULL_OFF,
    IZB_CULL_COUNT
} izb_cull;

#define IZB_OPEN 0xffffffffu /* component index of a triangle that is not on a closed surface */

/* What the cull stage needs to decide per triangle; built once per frame by the host. comp and
 * boxes are the backend's copy of izb_closed (device pointers on CUDA), NULL when unknown. */
typedef struct izb_cull_view {
    izb_cull mode;          /* resolved: never IZB_CULL_DEFAULT */
    const uint32_t *comp;   /* per triangle: closed component or IZB_OPEN */
    const float *boxes;     /* 6 per closed component: min xyz, max xyz */
    float light_origin[3];  /* spot light position (izb_light_origin) */
    int light_is_spot;      /* 0: directional, at infinity, outside every component */
    float light_reach;      /* an area light's emitter: how far it reaches from light_origin (0: a point) */
} izb_cull_view;

/* The spot light's position from its world -> clip matrix: the point with clip x = y = w = 0
 * (rows 0, 1, 3), solved by Cramer's rule in double. Used only for the conservative inside test
 * of izb_may_cull, which allows for its rounding. */
IZB_HD void izb_light_origin(const float m[16], float out[3])
{
    const int rows[3] = {0, 1, 3};
    double a[3][3], d[3];
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            a[r][c] = m[4 * c + rows[r]];
        d[r] = -(double)m[12 + rows[r]];
    }
    const double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                       a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                       a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    for (int c = 0; c < 3; c++) {
        double t[3][3];
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++)
                t[r][k] = k == c ? d[r] : a[r][k];
        const double dc = t[0][0] * (t[1][1] * t[2][2] - t[1][2] * t[2][1]) -
                          t[0][1] * (t[1][0] * t[2][2] - t[1][2] * t[2][0]) +
                          t[0][2] * (t[1][0] * t[2][1] - t[1][1] * t[2][0]);
        out[c] = det != 0.0 ? (float)(dc / det) : 0.0f;
    }
}

/* May triangle i be dropped when it faces away from the light? On: always; off: never; auto:
 * when it lies on a closed component and the light is outside that component. "Outside" is
 * tested against the component's box grown by 1e-3 of its size plus 1e-5 of its coordinates
 * (far above the rounding of izb_light_origin) plus the area light's reach (light_reach, 0 for a
 * point): a light inside a closed mesh sees only its back faces, and a light near the box is
 * treated as inside, which only costs speed. */
IZB_HD bool izb_may_cull(const izb_cull_view *c, uint32_t i)
{
    if (c->mode != IZB_CULL_AUTO)
        return c->mode == IZB_CULL_ON;
    const uint32_t k = c->comp ? c->comp[i] : IZB_OPEN;
    if (k == IZB_OPEN)
        return false;
    if (!c->light_is_spot)
        return true;
    const float *b = c->boxes + 6 * (size_t)k;
    bool inside = true;
    for (int a = 0; a < 3; a++) {
        const float m = 1e-3f * (b[3 + a] - b[a]) + 1e-5f * (fabsf(b[a]) + fabsf(b[3 + a])) + c->light_reach;
        const float o = c->light_origin[a];
        inside = inside && !(o < b[a] - m) && !(o > b[3 + a] + m); /* NaN: inside */
    }
    return !inside;
}

/* Transform a world-space vertex by a column-major 4x4 matrix. */
IZB_HD void izb_transform(const float m[16], const float p[3], float out[4])
{
    out[0] = fmaf(m[0], p[0], fmaf(m[4], p[1], fmaf(m[8], p[2], m[12])));
    out[1] = fmaf(m[1], p[0], fmaf(m[5], p[1], fmaf(m[9], p[2], m[13])));
    out[2] = fmaf(m[2], p[0], fmaf(m[6], p[1], fmaf(m[10], p[2], m[14])));
    out[3] = fmaf(m[3], p[0], fmaf(m[7], p[1], fmaf(m[11], p[2], m[15])));
}

#endif
