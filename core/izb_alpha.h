/* izb_alpha.h — the one alpha test of cut-out (alpha-tested) triangles: "is this point of this
 * triangle cut away?", shared like izb_math.h by the CPU backend, the CUDA kernels (IZB_HD), the
 * brute force of the tests and, mirrored in GLSL (shaders/alpha_test.glsl, tested equal), the
 * camera's depth pass and the shadow-map pass. Three steps, each defined here once:
 *
 * 1. The UV of a point on the light image plane inside a set-up triangle (izb_alpha_uv): the
 *    triangle's edge values at the point over their sum are the barycentrics of the point where the
 *    light ray through it meets the triangle. Why that is exact: with the vertices' light clip
 *    coordinates V_i = (X_i, Y_i, W_i) as the columns of M, the ray through image point p = (x, y, 1)
 *    is every lambda * p in clip space, and the triangle's point sum_i b_i V_i (sum b_i = 1: world
 *    barycentrics, because clip space is a linear map of homogeneous world space) lies on it iff
 *    b = lambda M^-1 p = lambda adj(M) p / det. Row i of adj(M) is V_j x V_k, the edge function
 *    e_i of izb_tri (izb_tri_edges), so b_i = e_i(p) / sum_j e_j(p), lambda dropping out in the
 *    normalisation. This holds for the spot light (W the distance along its axis) and for the
 *    orthographic light (W = 1, where it is the familiar affine barycentrics); the set-up's sign
 *    flip (izb_tri_finish) scales all three alike. No perspective division by interpolated 1/w is
 *    needed: the edge functions already are homogeneous. The UV is then sum_i b_i uv_i.
 * 2. The texel (izb_alpha_texel): nearest texel at mip 0 — exact, one read, and what GLSL's
 *    texelFetch mirrors. s = u * width (one float multiply), clamped to [-2^30, 2^30] with NaN
 *    going to -2^30 (izb_clampf), texel column floor(s), then the axis's wrap: repeat (floor mod
 *    width), clamp (to [0, width - 1]), mirror (period 2 * width, the second half reversed). The
 *    same for v, rows counted from v = 0 (row 0 of the array is v in [0, 1/height)). So a UV on a
 *    texel edge belongs to the texel above it, and NaN, Inf and 1e30 UVs name a defined texel.
 * 3. The cutoff (izb_alpha_threshold, izb_alpha_texel_keeps): a texel of 8-bit alpha a is cut away
 *    iff a < cutoff * 255. For an integer a that is a < ceil(cutoff * 255), so the cutoff becomes
 *    one integer threshold T in [0, 255] once, and the test is an integer compare everywhere
 *    (GLSL included: no float rounding of the compare to mirror). cutoff 0 cuts nothing, cutoff 1
 *    keeps only alpha 255. A cutoff given in decimal (glTF's 0.2) is not exact in float (0.2f *
 *    255 = 51.0000008), so a product within 1/1024 above an integer counts as that integer.
 */
#ifndef IZB_ALPHA_H
#define IZB_ALPHA_H

#include "izb_math.h"

/* Wrap mode of one texture axis. */
typedef enum izb_wrap {
    IZB_WRAP_REPEAT = 0, /* OBJ's only mode, glTF's default */
    IZB_WRAP_CLAMP,      /* clamp to the edge texel */
    IZB_WRAP_MIRROR,     /* mirrored repeat */
    IZB_WRAP_COUNT
} izb_wrap;

/* A triangle's texture index when it is opaque (no cut-out). */
#define IZB_OPAQUE 0xffffffffu
/* Largest texture side accepted (larger: a warning and the texture's triangles opaque). */
#define IZB_ALPHA_MAX_DIM 16384
/* Default cutoff (glTF's alphaCutoff default): threshold ceil(0.5 * 255) = 128. */
#define IZB_ALPHA_DEFAULT_CUTOFF 0.5f
/* The clamp of s = u * width before the floor: a multiple of every power-of-two side, and small
 * enough that floor(s) and the wrap's arithmetic fit an int. */
#define IZB_ALPHA_COORD_MAX 1073741824.0f /* 2^30 */

/* A cut-out texture as a backend keeps it: its alpha at alpha_pool[offset + row * width + col]
 * (row 0 at v = 0), a wrap per axis, the integer threshold (izb_alpha_threshold). */
typedef struct izb_alpha_tex {
    uint32_t offset;
    int32_t width, height;
    uint8_t wrap_u, wrap_v; /* izb_wrap */
    uint8_t threshold;      /* alpha < threshold: cut away */
    uint8_t pad;
} izb_alpha_tex;

/* The integer threshold of a cutoff: ceil(cutoff * 255), a product within 1/1024 above an integer
 * counting as that integer. cutoff clamped to [0, 1]; NaN: IZB_ALPHA_DEFAULT_CUTOFF (callers
 * warn about both). */
IZB_HD uint8_t izb_alpha_threshold(float cutoff)
{
    if (!(cutoff == cutoff)) cutoff = IZB_ALPHA_DEFAULT_CUTOFF;
    const double c = (double)izb_clampf(cutoff, 0.0f, 1.0f) * 255.0;
    return (uint8_t)ceil(c - 1.0 / 1024.0);
}

/* The texel index along one axis of `size` texels for coordinate c (u or v) under wrap mode. */
IZB_HD int izb_alpha_wrap(float c, int size, int wrap)
{
    const float s = izb_clampf(c * (float)size, -IZB_ALPHA_COORD_MAX, IZB_ALPHA_COORD_MAX);
    const int i = (int)floorf(s);
    if (wrap == IZB_WRAP_CLAMP) return i < 0 ? 0 : (i >= size ? size - 1 : i);
    /* a power-of-two side: the floor modulo is a mask (two's complement), no integer division */
    if ((size & (size - 1)) == 0) {
        if (wrap != IZB_WRAP_MIRROR) return i & (size - 1);
        const int m = i & (2 * size - 1);
        return m < size ? m : 2 * size - 1 - m;
    }
    if (wrap == IZB_WRAP_MIRROR) {
        int m = i % (2 * size);
        m = m < 0 ? m + 2 * size : m;
        return m < size ? m : 2 * size - 1 - m;
    }
    const int m = i % size; /* repeat (and any unknown mode) */
    return m < 0 ? m + size : m;
}

/* The alpha of the texel (u, v) names in texture t (nearest, mip 0). */
IZB_HD uint8_t izb_alpha_texel(const uint8_t *alpha_pool, const izb_alpha_tex *t, float u, float v)
{
    const int col = izb_alpha_wrap(u, t->width, t->wrap_u);
    const int row = izb_alpha_wrap(v, t->height, t->wrap_v);
    return alpha_pool[t->offset + (size_t)row * (size_t)t->width + (size_t)col];
}

/* Does texture t keep (not cut away) the point at (u, v)? */
IZB_HD bool izb_alpha_keeps(const uint8_t *alpha_pool, const izb_alpha_tex *t, float u, float v)
{
    return izb_alpha_texel(alpha_pool, t, u, v) >= t->threshold;
}

/* The UV at light image-plane point (x, y) of set-up triangle t whose vertices carry uv (u0, v0,
 * u1, v1, u2, v2): see 1. above. The edge values are izb_tri_occludes' to the bit. Where their sum
 * is not positive (never for a point the inside test accepted, but for a caller's stray point)
 * the UV is vertex 0's. */
IZB_HD void izb_alpha_uv(const izb_tri *t, float x, float y, const float uv[6], float *u, float *v)
{
    const float e0 = fmaf(t->e[0][0], x, fmaf(t->e[0][1], y, t->e[0][2]));
    const float e1 = fmaf(t->e[1][0], x, fmaf(t->e[1][1], y, t->e[1][2]));
    const float e2 = fmaf(t->e[2][0], x, fmaf(t->e[2][1], y, t->e[2][2]));
    const float sum = e0 + e1 + e2;
    if (!(sum > 0.0f) || !(sum < INFINITY)) {
        *u = uv[0];
        *v = uv[1];
        return;
    }
    *u = fmaf(e0, uv[0], fmaf(e1, uv[2], e2 * uv[4])) / sum;
    *v = fmaf(e0, uv[1], fmaf(e1, uv[3], e2 * uv[5])) / sum;
}

/* The alpha test of the IZB: does cut-out triangle t (uv, texture tex) keep the point where the
 * light ray through (x, y) meets it? Called only for a point t already occludes. */
IZB_HD bool izb_alpha_tri_keeps(const izb_tri *t, float x, float y, const float uv[6], const uint8_t *alpha_pool,
                                const izb_alpha_tex *tex)
{
    float u, v;
    izb_alpha_uv(t, x, y, uv, &u, &v);
    return izb_alpha_keeps(alpha_pool, tex, u, v);
}

#endif
