/* izb_pcss.h — percentage-closer soft shadows (PCSS, Fernando 2005) in the shadow-map mode, for
 * the soft directional light of izb_soft.h (a cone of full angle light_angle) and the area light
 * of izb_area.h (a spot with a W x H emitter; below): what games do, beside the IZB's exact soft
 * shadows. The per-element math, once: izb_pcss_lit is the C
 * reference; shaders/shadow_mask.frag mirrors it line for line (tests/render/test_shadow_pcss.c
 * holds the two equal on generated views). docs/pcss.md has the derivation and the figures.
 *
 * Coordinates: the shadow map's (u, v, z) in [0, 1] — u, v the map's texture coordinates, z its
 * stored depth (window depth of the light's orthographic clip space). All three are affine in
 * world space, so with world units per unit of u, of v and of z (from the light matrix's rows)
 * the cone maps exactly onto them.
 *
 * Penumbra, orthographic light: point p at depth z_r sees the light through the cone of
 * directions within angle/2 of the axis. A blocker plane at depth z_b (nearer the light) cuts
 * that cone in a disk of world radius (d_r - d_b) tan(angle/2), centred on p's projection; the
 * lit fraction of p is the share of the disk the blocker leaves open. Across a blocker's edge the
 * disk sweeps its diameter from all open to all covered, so the penumbra is
 *   w = 2 (d_r - d_b) tan(angle / 2)        (world units, along the light's image plane)
 * — no division by d_b as in the perspective formula (the light is at infinity), and in map units
 * the disk's radius is (z_r - z_b) k, k = tan(angle/2) * (|row x| / |row z|) per axis (the
 * light matrix's rows: world -> clip; u and z are both clip / 2 + 1/2, so the halves cancel).
 *
 * The filter, per receiver (s = its (u, v, z) after the mask pass's biases; g its receiver-plane
 * slope dz/du, dz/dv, below):
 *  1. blocker search: IZB_PCSS_SEARCH_TAPS taps on the disk of radius s.z * k (every depth from
 *     the map's near plane, z = 0, to z_r: the widest disk a blocker can touch); a tap is a
 *     blocker when its texel's depth is nearer than the receiver's own plane there;
 *  2. none: lit (1). Else z_b = the blockers' mean depth and the penumbra disk has radius
 *     (s.z - z_b) k;
 *  3. PCF: IZB_PCSS_FILTER_TAPS taps on that disk, each lit when the receiver's plane there is
 *     at most the texel's depth (LEQUAL, as the hard map's compare); the lit fraction.
 * A tap reads the nearest texel (no bilinear compare: its weights are the hardware's, which the
 * reference cannot match to 1/255); outside the map a tap reads depth 1 (the hard map's border).
 *
 * Receiver-plane depth bias (Isidoro 2006): a wide kernel on a surface tilted to the light reads
 * the surface itself nearer the light on one side — every tilted receiver would shadow itself.
 * Each tap compares against the receiver's plane extended to the tap, z = s.z + g . offset, with g
 * from the surface's plane (the shader computes it from the face normal in the map's coordinates
 * and hands it to the test with s: the filter, not the slope, is what the two must agree on), its
 * length clamped to IZB_PCSS_MAX_SLOPE (past about 83 degrees from the light the surface shadows itself
 * a little, near the terminator only).
 *
 * Taps: a Vogel (golden-angle) spiral on the unit disk, izb_soft_pattern's (the IZB's own soft
 * light samples), turned per pixel by one of IZB_PCSS_ROTATIONS angles picked by a 4x4 Bayer
 * matrix (izb_pcss_rotation): a fixed set at every pixel leaves structured bands where its sparse
 * search taps step over thin blockers; turned, they become a fine dither, as games do (before a
 * temporal filter). The table of cos, sin comes from the host, so the shader turns by the same
 * floats. Every multiply-add is an
 * explicit fmaf (GLSL: fma on precise variables).
 *
 * Penumbra, perspective light (an area light, izb_area.h: a spot whose emitter is W x H world
 * units in the plane through its position, facing its aim; izb_pcss_make_area). Let d be the
 * distance along the aim (the clip w of the light's matrix). The segment from a receiver p at d_r
 * to an emitter point at lateral offset l meets the depth d at a point whose image (x / w) is p's
 * plus |row x| l (1/d - 1/d_r) (izb_area.h's "penumbra region" with its z = -1/w): so the region
 * of the map through which p sees the emitter, at blocker depth d_b, is the emitter scaled by
 * (1/d_b - 1/d_r), a disk of radius |row x| (W/2) (1/d_b - 1/d_r) / 2 in u — across an edge that
 * is the textbook penumbra W (d_r - d_b) / d_b at the receiver, |row x| / (2 d_r) map units per
 * world unit. The map's depth is window depth, z = (a + b/d) / 2 + 1/2 (clip z = a w + b: the
 * projection's near/far terms), affine in 1/d: 1/d_b - 1/d_r = 2 (z_r - z_b) / -b. The perspective
 * radius is thus k (z_r - z_b), the orthographic formula word for word, with
 *   k = |row x| W / (-2 b)   (u; |row y| H for v)
 * so izb_pcss_lit serves both lights, and the mean of the blockers' map depths is the mean of
 * their 1/d — the radius averaged over the blockers, not a radius of an averaged distance.
 * W != H: ku from W, kv from H — the disk of taps becomes the ellipse W x H scaled, the emitter's
 * own shape for --light-shape disk (izb_area.h's ellipse in the rectangle). A rectangle is
 * filtered by its inscribed ellipse: the same penumbra width along each axis, and a lit fraction
 * that follows a circular segment's area across an edge instead of the rectangle's straight ramp
 * (at most 0.06 apart; docs/pcss.md).
 * Blocker search: a blocker can sit anywhere from the scene's nearest depth z0 to the receiver, so
 * the disk has radius k (z_r - z0) (the orthographic light: z0 = 0, the map's near plane, which
 * its box fits). A spot's map has a near plane at 1e-3 of its far one (scene/view.c), so z0 is
 * the window depth of the nearest point of the scene's bounds instead (izb_pcss_make_area's
 * d_min; the map's near plane where the light is inside them — then the search spans far more
 * than the map, and finds few blockers: PCSS's usual dependence on a tight near plane). */
#ifndef IZB_PCSS_H
#define IZB_PCSS_H

#include <math.h>
#include <string.h>

#include "izb_soft.h"

#define IZB_PCSS_SEARCH_TAPS 32
#define IZB_PCSS_FILTER_TAPS 64
/* the tap sets turn by one of this many angles, by the pixel's place in a 4x4 block */
#define IZB_PCSS_ROTATIONS 16
/* the receiver plane's slope is clamped to this many units of z per unit of u (or v) */
#define IZB_PCSS_MAX_SLOPE 8.0f

/* One light's PCSS parameters: the map's size, k (map units of disk radius per unit of depth
 * behind the blocker, per axis) and the tap sets on the unit disk. */
typedef struct izb_pcss {
    int size;
    float ku, kv;
    float z0; /* the search's nearest blocker depth: 0 (orthographic), the scene's nearest (area) */
    float search[IZB_PCSS_SEARCH_TAPS][2];
    float filter[IZB_PCSS_FILTER_TAPS][2];
    float rot[IZB_PCSS_ROTATIONS][2]; /* cos, sin of 2 pi i / IZB_PCSS_ROTATIONS */
} izb_pcss;

/* Which rotation pixel (px, py) uses: a 4x4 Bayer matrix, so each 4x4 block holds every angle
 * once and neighbours differ by about half a turn. */
static inline int izb_pcss_rotation(int px, int py)
{
    static const int bayer[16] = {0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5};
    return bayer[(py & 3) * 4 + (px & 3)];
}

/* The parameters for an orthographic light with world -> clip matrix m (column-major, rows
 * orthogonal: light_matrices' for a directional light), full cone angle `angle` (radians, > 0) and
 * a map of `size` texels a side. Host only: tan and the norms in double, one rounding each, as
 * izb_soft_light_make. */
static inline void izb_pcss_make(const float m[16], float angle, int size, izb_pcss *out)
{
    memset(out, 0, sizeof *out);
    double norm[3];
    for (int r = 0; r < 3; r++)
        norm[r] = sqrt((double)m[r] * m[r] + (double)m[4 + r] * m[4 + r] + (double)m[8 + r] * m[8 + r]);
    const double tan_half = tan(0.5 * (double)angle);
    out->size = size;
    out->ku = (float)(tan_half * norm[0] / norm[2]);
    out->kv = (float)(tan_half * norm[1] / norm[2]);
    float x[IZB_PCSS_FILTER_TAPS], y[IZB_PCSS_FILTER_TAPS];
    izb_soft_pattern(IZB_PCSS_SEARCH_TAPS, x, y);
    for (int i = 0; i < IZB_PCSS_SEARCH_TAPS; i++)
        out->search[i][0] = x[i], out->search[i][1] = y[i];
    izb_soft_pattern(IZB_PCSS_FILTER_TAPS, x, y);
    for (int i = 0; i < IZB_PCSS_FILTER_TAPS; i++)
        out->filter[i][0] = x[i], out->filter[i][1] = y[i];
    for (int i = 0; i < IZB_PCSS_ROTATIONS; i++) {
        const double a = 6.283185307179586 * i / IZB_PCSS_ROTATIONS;
        out->rot[i][0] = (float)cos(a), out->rot[i][1] = (float)sin(a);
    }
}

/* The parameters for an area light: world -> clip matrix m of the spot (perspective, column-major:
 * light_matrices' `gl` matrix, whose clip z is a w + b), an emitter of w_size x h_size world units
 * (> 0 each, along the rows x and y), a map of `size` texels a side, and d_min the nearest clip w
 * a blocker can have (the scene's bounds; at or below the map's near plane, z0 = 0). Host only,
 * in double as izb_pcss_make. */
static inline void izb_pcss_make_area(const float m[16], float w_size, float h_size, float d_min, int size,
                                      izb_pcss *out)
{
    izb_pcss_make(m, 0.0f, size, out);
    /* clip z = a w + b: the z row is a times the w row plus b (glm_perspective) */
    double w2 = 0.0, zw = 0.0, norm[2] = {0.0, 0.0};
    for (int c = 0; c < 3; c++) {
        w2 += (double)m[4 * c + 3] * m[4 * c + 3];
        zw += (double)m[4 * c + 2] * m[4 * c + 3];
        for (int r = 0; r < 2; r++)
            norm[r] += (double)m[4 * c + r] * m[4 * c + r];
    }
    const double a = w2 > 0.0 ? zw / w2 : 0.0, b = (double)m[14] - a * m[15];
    if (!(b < 0.0)) return; /* not a perspective light: k = 0, as angle 0 */
    out->ku = (float)(sqrt(norm[0]) * w_size / (-2.0 * b));
    out->kv = (float)(sqrt(norm[1]) * h_size / (-2.0 * b));
    /* d_min at or before the near plane, or NaN: from the near plane (0); past the far plane
     * (nothing there to shadow): at most 1 */
    const double z0 = d_min > 0.0f ? 0.5 * (a + b / d_min) + 0.5 : 0.0;
    out->z0 = (float)(z0 > 0.0 ? fmin(z0, 1.0) : 0.0);
}

/* tap t turned by (c, s) */
static inline void izb_pcss_turn_(const float t[2], const float cs[2], float *u, float *v)
{
    *u = fmaf(cs[0], t[0], -(cs[1] * t[1]));
    *v = fmaf(cs[1], t[0], cs[0] * t[1]);
}

/* The blocker search's disk radius (map units) for a receiver at depth z: blockers from z0 (0 for
 * the orthographic light: z - 0 is z exactly, its radius as before bit for bit). */
static inline float izb_pcss_search_radius(float k, float z, float z0)
{
    return k * (z - z0);
}

/* The penumbra disk's radius for a receiver at depth z behind blockers at mean depth zb. */
static inline float izb_pcss_filter_radius(float k, float z, float zb)
{
    return k * (z - zb);
}

/* the map's depth at (u, v), nearest texel; 1 outside (the hard map's border) */
static inline float izb_pcss_fetch_(const izb_pcss *p, const float *map, float u, float v)
{
    const float fu = floorf(u * (float)p->size), fv = floorf(v * (float)p->size);
    if (!(fu >= 0.0f && fv >= 0.0f && fu < (float)p->size && fv < (float)p->size)) return 1.0f;
    return map[(size_t)fv * (size_t)p->size + (size_t)fu];
}

/* The lit fraction (0 .. 1) of a receiver at s (u, v, z) with plane slope g, over the map (size^2
 * floats, row 0 at v = 0), the taps turned by rotation rot (izb_pcss_rotation). */
static inline float izb_pcss_lit(const izb_pcss *p, const float *map, const float s[3], const float g[2],
                                 int rot)
{
    const float *cs = p->rot[rot & (IZB_PCSS_ROTATIONS - 1)];
    float tu, tv;
    const float ru = izb_pcss_search_radius(p->ku, s[2], p->z0),
                rv = izb_pcss_search_radius(p->kv, s[2], p->z0);
    float sum = 0.0f;
    int blockers = 0;
    for (int i = 0; i < IZB_PCSS_SEARCH_TAPS; i++) {
        izb_pcss_turn_(p->search[i], cs, &tu, &tv);
        const float ou = tu * ru, ov = tv * rv;
        const float d = izb_pcss_fetch_(p, map, s[0] + ou, s[1] + ov);
        const float zr = fmaf(g[0], ou, fmaf(g[1], ov, s[2]));
        if (d < zr) {
            sum += d;
            blockers++;
        }
    }
    float lit = 1.0f;
    if (blockers > 0) {
        const float zb = sum / (float)blockers;
        const float fu = fmaxf(izb_pcss_filter_radius(p->ku, s[2], zb), 0.0f);
        const float fv = fmaxf(izb_pcss_filter_radius(p->kv, s[2], zb), 0.0f);
        int n = 0;
        for (int j = 0; j < IZB_PCSS_FILTER_TAPS; j++) {
            izb_pcss_turn_(p->filter[j], cs, &tu, &tv);
            const float ou = tu * fu, ov = tv * fv;
            const float d = izb_pcss_fetch_(p, map, s[0] + ou, s[1] + ov);
            const float zr = fmaf(g[0], ou, fmaf(g[1], ov, s[2]));
            n += zr <= d;
        }
        lit = (float)n / (float)IZB_PCSS_FILTER_TAPS;
    }
    return lit;
}

#endif
