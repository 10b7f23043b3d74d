/* fuzz_izb.c — libFuzzer target: the IZB seam (izb.h) with the CPU backend. The input decodes to a
 * small frame (1..17 pixels a side), up to 8 triangles, a camera, a light (directional or spot,
 * anywhere, inside the scene too), settings and a depth image, every number drawn from a palette
 * that favours the awkward ones: NaN, +-Inf, +-0, denormals, +-FLT_MAX, 1e+-30, raw bit patterns;
 * triangles may repeat the previous one or a vertex.
 *
 * Invariant: the backend's mask lies between two brute forces written here from izb_math.h's
 * predicates alone — every pixel reconstructed, every sample point tested against every triangle,
 * no grid, no binning, no cell ranges:
 *  - at least the shadow of the brute force that also asks the point to lie in the triangle's
 *    bbox on the light's image plane (the bbox izb_tri_setup computes, grown for rounding): no
 *    point inside a triangle may be missed, whatever the grid, binning and cell ranges do;
 *  - at most the shadow of the brute force without that bbox.
 * The two differ only where the float edge test is inside for a point outside the triangle's bbox:
 * within rounding of two nearly collinear edge lines, beyond a vertex of a sliver (a triangle with
 * an angle within a few degrees of 180°). There the backend, which tests only the cells covering
 * the bbox, may answer either way depending on the grid (fuzzing found it: a point 0.6 beyond a
 * sliver's far vertex, 3e-8 from its long edge's line, shadowed by the brute force, lit by the
 * backend; tests/fuzz/regressions/izb). With back-face culling on, culling only removes occluders:
 * the lower bound culls every back face and the upper bound none (true where culling is limited
 * to closed meshes too). And nothing may crash or read out of bounds (ASan, UBSan). */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "izb.h"
#include "view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_SIDE = 17, MAX_TRIS = 8 };

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint8_t next_u8(reader *r)
{
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

/* a float from the palette, or a small multiple of 1/16, or raw bits */
static float next_float(reader *r)
{
    const uint8_t b = next_u8(r);
    switch (b) {
    case 0:
        return 0.0f;
    case 1:
        return -0.0f;
    case 2:
        return NAN;
    case 3:
        return INFINITY;
    case 4:
        return -INFINITY;
    case 5:
        return FLT_MIN / 4.0f; /* denormal */
    case 6:
        return -FLT_MIN / 4.0f;
    case 7:
        return FLT_MAX;
    case 8:
        return -FLT_MAX;
    case 9:
        return 1e30f;
    case 10:
        return 1e-30f;
    case 11:
        return -1e30f;
    case 12: {
        uint32_t u = 0;
        for (int i = 0; i < 4; i++)
            u = u << 8 | next_u8(r);
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    default:
        return (float)((int)b - 134) / 16.0f; /* -7.6 .. 7.6 */
    }
}

/* a depth: mostly in front of the camera, sometimes the palette's worst */
static float next_depth(reader *r)
{
    const uint8_t b = next_u8(r);
    if (b < 64) return next_float(r);
    return (float)b / 16.0f; /* 4 .. 16 */
}

/* The triangle's bbox on the light image plane as izb_tri_setup takes it (izb_math.h's own pieces:
 * the vertices' grown bbox, or the points' bbox clipped by the edges where the triangle crosses the
 * light's w = 0 plane); false when it has none (the setup rejects the triangle then too). */
static bool tri_bbox(const float v[3][4], const izb_bbox *pb, izb_bbox *out)
{
    float E[3];
    const float det = izb_tri_det(v, E);
    bool none_front;
    if (izb_tri_all_front(v, &none_front))
        return izb_tri_front_bbox(v, pb, &out->min_x, &out->min_y, &out->max_x, &out->max_y);
    float e[3][3];
    izb_tri_edges(v, e);
    return !none_front && izb_clip_rect(e, det < 0.0f ? -1.0f : 1.0f, pb, out);
}

/* the brute force: 255 lit (and sky), 0 shadow or unlit; `cull` as izb_tri_setup's cull_back;
 * `in_bbox`: a point counts only inside the triangle's bbox (tri_bbox) */
static void brute_force(const izb_recon *f, const float *depth, const float *xyz, int nt, bool cull, bool in_bbox,
                        uint8_t *mask, izb_point *pts, int *pix)
{
    const int W = f->width, H = f->height;
    izb_bbox bb = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    int n = 0;
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            const int i = py * W + px;
            izb_point p;
            const izb_sample_kind k = izb_reconstruct(f, px, py, depth[i], &p);
            mask[i] = k == IZB_UNLIT ? 0 : 255;
            if (k != IZB_SAMPLE) continue;
            bb.min_x = izb_minf(bb.min_x, p.x);
            bb.min_y = izb_minf(bb.min_y, p.y);
            bb.max_x = izb_maxf(bb.max_x, p.x);
            bb.max_y = izb_maxf(bb.max_y, p.y);
            pts[n] = p;
            pix[n++] = i;
        }
    if (n == 0) return;
    /* the grid only decides the triangles' cell ranges, which the brute force ignores; the setup
     * needs one, and the points' bbox, for its culling outside the bbox */
    const izb_grid g = izb_grid_make(bb, n, 1, 1);
    for (int t = 0; t < nt; t++) {
        float v[3][4];
        for (int k = 0; k < 3; k++)
            izb_transform(f->light, xyz + 9 * t + 3 * k, v[k]);
        izb_tri tri;
        izb_bbox tb = {-INFINITY, -INFINITY, INFINITY, INFINITY};
        if (!izb_tri_setup(v, &g, &bb, cull, &tri) || (in_bbox && !tri_bbox(v, &bb, &tb))) continue;
        for (int i = 0; i < n; i++)
            if (izb_tri_occludes(&tri, pts[i].x, pts[i].y, pts[i].z) && pts[i].x >= tb.min_x &&
                pts[i].x <= tb.max_x && pts[i].y >= tb.min_y && pts[i].y <= tb.max_y)
                mask[pix[i]] = 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static izb_backend *b;
    if (!b) b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1, .quiet = true});
    FUZZ_ASSERT(b != NULL, "no CPU backend");
    reader r = {data, size};

    const int W = 1 + next_u8(&r) % MAX_SIDE, H = 1 + next_u8(&r) % MAX_SIDE;
    const int nt = next_u8(&r) % (MAX_TRIS + 1);
    float xyz[9 * MAX_TRIS];
    for (int t = 0; t < nt; t++) {
        const uint8_t how = next_u8(&r);
        if (t > 0 && how % 8 == 0) { /* a duplicate of the previous triangle */
            memcpy(xyz + 9 * t, xyz + 9 * (t - 1), 9 * sizeof(float));
            continue;
        }
        for (int k = 0; k < 9; k++)
            xyz[9 * t + k] = next_float(&r);
        if (how % 8 == 1) memcpy(xyz + 9 * t + 3, xyz + 9 * t, 3 * sizeof(float)); /* degenerate */
    }
    /* bounds: of the finite vertices, or straight from the input */
    float bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (next_u8(&r) % 4 == 0) {
        for (int k = 0; k < 3; k++)
            bmin[k] = next_float(&r), bmax[k] = next_float(&r);
    } else {
        for (int i = 0; i < 3 * nt; i++)
            for (int k = 0; k < 3; k++)
                if (isfinite(xyz[3 * i + k])) {
                    bmin[k] = fminf(bmin[k], xyz[3 * i + k]);
                    bmax[k] = fmaxf(bmax[k], xyz[3 * i + k]);
                }
        for (int k = 0; k < 3; k++)
            if (!(bmin[k] <= bmax[k])) bmin[k] = -1.0f, bmax[k] = 1.0f;
    }
    light l = {.type = next_u8(&r) % 2 ? LIGHT_SPOT : LIGHT_DIRECTIONAL};
    for (int k = 0; k < 3; k++)
        l.dir[k] = next_float(&r), l.pos[k] = next_float(&r);
    l.cone_deg = next_u8(&r) % 2 ? next_float(&r) : 60.0f;
    camera c = {.yaw = next_float(&r), .pitch = next_float(&r)};
    for (int k = 0; k < 3; k++)
        c.pos[k] = next_float(&r);
    if (next_u8(&r) % 2)
        camera_fit_clip(&c, bmin, bmax);
    else
        c.fovy = next_float(&r), c.near = next_float(&r), c.far = next_float(&r);
    const uint8_t flags = next_u8(&r);
    izb_settings s = {.kernel = flags & 1 ? IZB_KERNEL2 : IZB_KERNEL1,
                      .binning = flags & 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                      .cull = flags & 4 ? IZB_CULL_OFF : flags & 32 ? IZB_CULL_ON : IZB_CULL_AUTO,
                      .bias = flags & 8 ? next_float(&r) : 0.0f};
    if (flags & 16) s.grid_w = 1 + next_u8(&r) % 40, s.grid_h = 1 + next_u8(&r) % 40;
    float depth[MAX_SIDE * MAX_SIDE];
    for (int i = 0; i < W * H; i++)
        depth[i] = next_depth(&r);

    FUZZ_ASSERT(izb_set_scene(b, xyz, nt), "set_scene with %d triangles", nt);
    const izb_recon f = izb_frame_make(&c, &l, bmin, bmax, W, H);
    uint8_t mask[MAX_SIDE * MAX_SIDE], low[MAX_SIDE * MAX_SIDE], high[MAX_SIDE * MAX_SIDE];
    izb_stats st;
    FUZZ_ASSERT(izb_shade_arrays(b, &f, &s, depth, mask, &st), "shade_arrays %dx%d", W, H);

    /* the brute force sees what the backend sees: the resolved settings' bias in the frame */
    const izb_settings rs = izb_settings_resolve(s);
    izb_recon fb = f;
    fb.bias = rs.bias;
    izb_point pts[MAX_SIDE * MAX_SIDE];
    int pix[MAX_SIDE * MAX_SIDE];
    /* lower bound: culling every back face (where culling is on), points in the triangles' bboxes;
     * upper bound: culling none, no bbox */
    brute_force(&fb, depth, xyz, nt, s.cull != IZB_CULL_OFF, true, low, pts, pix);
    brute_force(&fb, depth, xyz, nt, false, false, high, pts, pix);
    for (int i = 0; i < W * H; i++)
        FUZZ_ASSERT((mask[i] == 0) <= (high[i] == 0) && (low[i] == 0) <= (mask[i] == 0),
                    "pixel %d (%d, %d) of %dx%d: backend %d, brute force lower bound %d, upper bound %d", i,
                    i % W, i / W, W, H, mask[i], low[i], high[i]);
    FUZZ_ASSERT(st.points >= 0 && st.points <= W * H && st.tris_after_cull <= nt, "stats: %d points, %d tris",
                st.points, st.tris_after_cull);
    return 0;
}
