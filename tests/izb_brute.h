/* izb_brute.h — the IZB's brute force from core/izb_math.h's predicates alone, the oracle that
 * tests/fuzz/fuzz_izb.c and tests/core/test_differential.c hold the CPU backend to: every pixel
 * reconstructed, every sample point tested against every triangle — no grid, no binning, no cell
 * ranges — with the backend's per-triangle culling decision (izb_may_cull) and, for cut-out
 * triangles, the alpha test (izb_alpha.h). Exact at the triangle's
 * bbox like the backends (izb_tri_occludes), so the backend must equal it, not merely bound it. */
#ifndef IZB_BRUTE_H
#define IZB_BRUTE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "izb_math.h"
#include "izb_alpha.h"
#include "izb_cutouts.h"
#include "izb_soft.h"
#include "izb_area.h"
#include "izb_aa.h"

/* Every pixel of f reconstructed (izb_reconstruct): mask[i] 0 where unlit, else 255; the sample
 * points into pts, their pixels into pix; their bbox into *bb and largest key into *zmax. Returns
 * how many points. */
static inline int izb_brute_points(const izb_recon *f, const float *depth, uint8_t *mask, izb_point *pts, int *pix,
                                   izb_bbox *bb, float *zmax)
{
    *bb = (izb_bbox){INFINITY, INFINITY, -INFINITY, -INFINITY};
    *zmax = -INFINITY;
    int n = 0;
    for (int py = 0; py < f->height; py++)
        for (int px = 0; px < f->width; px++) {
            const int i = py * f->width + px;
            izb_point p;
            const izb_sample_kind k = izb_reconstruct(f, px, py, depth[i], &p);
            mask[i] = k == IZB_UNLIT ? 0 : 255;
            if (k != IZB_SAMPLE) continue;
            bb->min_x = izb_minf(bb->min_x, p.x);
            bb->min_y = izb_minf(bb->min_y, p.y);
            bb->max_x = izb_maxf(bb->max_x, p.x);
            bb->max_y = izb_maxf(bb->max_y, p.y);
            *zmax = izb_maxf(*zmax, p.z);
            pts[n] = p;
            pix[n++] = i;
        }
    return n;
}

/* mask (out, width*height): 255 lit (and sky), 0 shadow or unlit. ids: per pixel the scene triangle
 * drawn there, or NULL; with ids a hit izb_hit_is_own says is the point's own is ignored. Triangle t
 * is culled when it faces away and izb_may_cull(cull, t). pts and pix: scratch of width*height. */
/* With cut-outs (cut NULL or empty: none): a hit of a triangle with a texture counts only where
 * izb_alpha_tri_keeps keeps the triangle at the point. */
static inline void izb_brute_force_cut(const izb_recon *f, const float *depth, const uint32_t *ids,
                                       const float *xyz, int nt, const izb_cull_view *cull,
                                       const izb_cutout_set *cut, uint8_t *mask, izb_point *pts, int *pix)
{
    izb_bbox bb;
    float zmax;
    const int n = izb_brute_points(f, depth, mask, pts, pix, &bb, &zmax);
    if (n == 0) return;
    /* the setup needs a grid (the brute force ignores cells) and the points' bbox, for its culling
     * outside the bbox */
    const izb_grid g = izb_grid_make(bb, n, 1, 1);
    for (int t = 0; t < nt; t++) {
        float v[3][4];
        for (int k = 0; k < 3; k++)
            izb_transform(f->light, xyz + 9 * t + 3 * k, v[k]);
        izb_tri tri;
        if (!izb_tri_setup(v, &g, &bb, izb_may_cull(cull, (uint32_t)t), &tri)) continue;
        const uint32_t tex = cut && cut->cut_count ? cut->tex[t] : IZB_OPAQUE;
        for (int i = 0; i < n; i++)
            if (mask[pix[i]] && izb_tri_occludes(&tri, pts[i].x, pts[i].y, pts[i].z) &&
                !(ids && izb_hit_is_own(xyz, 9, 1, (uint32_t)nt, ids[pix[i]], (uint32_t)t)) &&
                (tex == IZB_OPAQUE || izb_alpha_tri_keeps(&tri, pts[i].x, pts[i].y, cut->uv + 6 * (size_t)t,
                                                          cut->pool, &cut->textures[tex])))
                mask[pix[i]] = 0;
    }
}

static inline void izb_brute_force(const izb_recon *f, const float *depth, const uint32_t *ids, const float *xyz,
                                   int nt, const izb_cull_view *cull, uint8_t *mask, izb_point *pts, int *pix)
{
    izb_brute_force_cut(f, depth, ids, xyz, nt, cull, NULL, mask, pts, pix);
}

/* The soft-shadow brute force (izb_soft.h; frames with light_angle > 0): every pixel reconstructed,
 * every point against every triangle and every light sample, the OR of the hidden samples turned
 * into the byte (izb_mask_value). No grid, no cell ranges; triangle t culled when it faces away from
 * every sample and izb_may_cull(cull, t) (izb_soft_tri_setup).
 * box: the triangles' penumbra boxes as the backend computes them from the points' bbox, which the
 * backend must equal exactly; false: boxes unbounded (an infinite points' bbox), so a point is
 * tested however far it is from the triangle — the backend must equal that too wherever rounding
 * adds no stray hit, which it can only do if its boxes are large enough (the dilation's test).
 * cut (NULL or empty: none): a sample hidden by a triangle with a texture counts only where
 * izb_soft_sample_keeps keeps that sample's own hit point.
 * An area light's frame (izb_area_on, izb_area.h) takes the same loops with the area set-ups
 * (izb_area_light_make, izb_area_tri_setup, izb_area_pair_setup); its cull view needs the light's
 * origin and reach (izb_light_origin, izb_area_reach) as the backend's. */
static inline void izb_brute_force_soft_cut(const izb_recon *f, const float *depth, const uint32_t *ids,
                                            const float *xyz, int nt, const izb_cull_view *cull, bool box,
                                            const izb_cutout_set *cut, uint8_t *mask, izb_point *pts, int *pix)
{
    izb_bbox bb;
    float zmax;
    const int n = izb_brute_points(f, depth, mask, pts, pix, &bb, &zmax);
    if (n == 0) return;
    if (!box) bb = (izb_bbox){-INFINITY, -INFINITY, INFINITY, INFINITY};
    const bool area = izb_area_on(f);
    izb_soft_light L;
    if (area)
        izb_area_light_make(f, &L);
    else
        izb_soft_light_make(f, &L);
    const int words = izb_mask_words(L.m);
    uint32_t *acc = (uint32_t *)calloc((size_t)n * (size_t)words, sizeof *acc);
    if (!acc) {
        fprintf(stderr, "izb_brute_force_soft: out of memory\n");
        exit(1);
    }
    for (int t = 0; t < nt; t++) {
        float v[3][4];
        for (int k = 0; k < 3; k++)
            izb_transform(f->light, xyz + 9 * t + 3 * k, v[k]);
        izb_soft_tri tri;
        const bool cb = izb_may_cull(cull, (uint32_t)t);
        if (!(area ? izb_area_tri_setup(v, zmax, &L, &bb, cb, &tri) : izb_soft_tri_setup(v, zmax, &L, &bb, cb, &tri)))
            continue;
        const uint32_t tex = cut && cut->cut_count ? cut->tex[t] : IZB_OPAQUE;
        for (int i = 0; i < n; i++) {
            izb_soft_pair pr;
            if (!(area ? izb_area_pair_setup(&tri, pts[i].x, pts[i].y, pts[i].z, &pr)
                       : izb_soft_pair_setup(&tri, pts[i].x, pts[i].y, pts[i].z, &pr)))
                continue;
            uint32_t hid[IZB_MASK_MAX_WORDS] = {0}, any = 0;
            for (int j = 0; j < L.m; j++)
                if (izb_soft_sample_hidden(&pr, tri.n, L.dx[j], L.dy[j]) &&
                    (tex == IZB_OPAQUE || izb_soft_sample_keeps(&pr, L.dx[j], L.dy[j], cut->uv + 6 * (size_t)t,
                                                                cut->pool, &cut->textures[tex])))
                    hid[j / 32] |= 1u << (j % 32), any = 1;
            if (any && !(ids && izb_hit_is_own(xyz, 9, 1, (uint32_t)nt, ids[pix[i]], (uint32_t)t)))
                izb_mask_or(acc + (size_t)i * words, hid, L.m);
        }
    }
    for (int i = 0; i < n; i++)
        mask[pix[i]] = izb_mask_value(acc + (size_t)i * words, L.m);
    free(acc);
}

static inline void izb_brute_force_soft(const izb_recon *f, const float *depth, const uint32_t *ids,
                                        const float *xyz, int nt, const izb_cull_view *cull, bool box, uint8_t *mask,
                                        izb_point *pts, int *pix)
{
    izb_brute_force_soft_cut(f, depth, ids, xyz, nt, cull, box, NULL, mask, pts, pix);
}

/* The anti-aliased brute force (izb_aa.h; frames with shadow_samples > 1): every pixel
 * reconstructed with its footprint (izb_aa_footprint, the neighbours' depths from the image, sky
 * outside it; with ids the facet's plane, izb_aa_facet_normal), every triangle set up against the points' bbox grown by the largest extent
 * (izb_aa_grow_bbox), every point against every triangle and every sub-sample, the OR of the
 * hidden sub-samples turned into the byte (izb_mask_value). No grid, no cell ranges.
 * near: the pair's first test (izb_aa_near) as the backend runs it; false: skipped, every point
 * tested against every triangle, so the backend can only equal it if the extent it grows its
 * ranges and pair tests by holds every hit (the dilation's test).
 * cut (NULL or empty: none): a sub-sample hidden by a triangle with a texture counts only where
 * izb_aa_sample_keeps keeps the triangle at that sub-sample's own position (tested sample by
 * sample here; the backends filter a word with izb_aa_keep_bits). */
static inline void izb_brute_force_aa_cut(const izb_recon *f, const float *depth, const uint32_t *ids,
                                          const float *xyz, int nt, const izb_cull_view *cull, bool near,
                                          const izb_cutout_set *cut, uint8_t *mask, izb_point *pts, int *pix)
{
    const int W = f->width, H = f->height;
    izb_bbox bb = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    izb_aa_foot *foot = (izb_aa_foot *)malloc((size_t)W * (size_t)H * sizeof *foot);
    uint32_t *acc = (uint32_t *)calloc((size_t)W * (size_t)H, sizeof *acc);
    if (!foot || !acc) {
        fprintf(stderr, "izb_brute_force_aa: out of memory\n");
        exit(1);
    }
    float ex = 0.0f, ey = 0.0f;
    izb_aa_view V;
    izb_aa_view_make(f, &V);
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
            const float nb[4] = {px > 0 ? depth[i - 1] : 0.0f, px + 1 < W ? depth[i + 1] : 0.0f,
                                 py > 0 ? depth[i - W] : 0.0f, py + 1 < H ? depth[i + W] : 0.0f};
            float nv[3];
            const bool facet = ids && ids[i] < (uint32_t)nt;
            if (facet) izb_aa_facet_normal(&V, xyz + 9 * (size_t)ids[i], nv);
            izb_aa_footprint(f, px, py, depth[i], nb, facet ? nv : NULL, &foot[n]);
            ex = izb_maxf(ex, foot[n].ex), ey = izb_maxf(ey, foot[n].ey);
            pts[n] = p;
            pix[n++] = i;
        }
    izb_aa_samples S;
    izb_aa_samples_make(f->shadow_samples, &S);
    const izb_bbox grown = izb_aa_grow_bbox(bb, ex, ey);
    const izb_grid g = izb_grid_make(bb, n > 0 ? n : 1, 1, 1);
    for (int t = 0; t < nt && n > 0; t++) {
        float v[3][4];
        for (int k = 0; k < 3; k++)
            izb_transform(f->light, xyz + 9 * t + 3 * k, v[k]);
        izb_tri tri;
        if (!izb_tri_setup(v, &g, &grown, izb_may_cull(cull, (uint32_t)t), &tri)) continue;
        const uint32_t tex = cut && cut->cut_count ? cut->tex[t] : IZB_OPAQUE;
        for (int i = 0; i < n; i++) {
            if (near && !izb_aa_near(&tri, pts[i].x, pts[i].y, foot[i].ex, foot[i].ey)) continue;
            uint32_t hid = 0;
            for (int k = 0; k < S.n; k++)
                hid |= (uint32_t)(izb_aa_sample_hidden(&tri, pts[i].x, pts[i].y, pts[i].z, &foot[i], S.u[k], S.v[k]) &&
                                  (tex == IZB_OPAQUE ||
                                   izb_aa_sample_keeps(&tri, pts[i].x, pts[i].y, &foot[i], S.u[k], S.v[k],
                                                       cut->uv + 6 * (size_t)t, cut->pool, &cut->textures[tex])))
                       << k;
            if (hid && !(ids && izb_hit_is_own(xyz, 9, 1, (uint32_t)nt, ids[pix[i]], (uint32_t)t))) acc[i] |= hid;
        }
    }
    for (int i = 0; i < n; i++)
        mask[pix[i]] = izb_mask_value(&acc[i], S.n);
    free(foot);
    free(acc);
}

static inline void izb_brute_force_aa(const izb_recon *f, const float *depth, const uint32_t *ids, const float *xyz,
                                      int nt, const izb_cull_view *cull, bool near, uint8_t *mask, izb_point *pts,
                                      int *pix)
{
    izb_brute_force_aa_cut(f, depth, ids, xyz, nt, cull, near, NULL, mask, pts, pix);
}

/* A point light's cube faces (IZB_LIGHT_FACE frames, count <= IZB_CUBE_FACES) as
 * izb_shade_arrays_faces promises them: every pixel belongs to the face izb_face_owner gives it,
 * and each face, an IZB_LIGHT_CUBE frame (only w <= 0 unlit), is the brute force over its own
 * pixels alone (the others made sky, so its points' bbox is its own). cull: one view for every face
 * (they share the light's origin). cut: as izb_brute_force_cut's. face_depth, face_mask: scratch of
 * width*height. */
static inline void izb_brute_force_faces_cut(const izb_recon *faces, int count, const float *depth,
                                             const uint32_t *ids, const float *xyz, int nt,
                                             const izb_cull_view *cull, const izb_cutout_set *cut, uint8_t *mask,
                                             izb_point *pts, int *pix, float *face_depth, uint8_t *face_mask)
{
    const int W = faces[0].width, H = faces[0].height;
    for (int i = 0; i < W * H; i++)
        mask[i] = 255;
    for (int f = 0; f < count; f++) {
        izb_recon fr = faces[f];
        fr.light_is_spot = IZB_LIGHT_CUBE;
        for (int py = 0; py < H; py++)
            for (int px = 0; px < W; px++)
                face_depth[py * W + px] = izb_aa_face_depth(faces, count, f, px, py, depth[py * W + px]);
        izb_brute_force_cut(&fr, face_depth, ids, xyz, nt, cull, cut, face_mask, pts, pix);
        for (int i = 0; i < W * H; i++)
            if (face_depth[i] != 0.0f) mask[i] = face_mask[i];
    }
}

/* izb_brute_force_faces for anti-aliased faces (shadow_samples > 1): each face the anti-aliased
 * brute force (izb_brute_force_aa_cut, near and cut as there) over a depth image of its own pixels,
 * the others sky (izb_aa_face_depth, the rule the footprints' neighbours follow), as izb_faces.c's
 * per-face passes promise. */
static inline void izb_brute_force_faces_aa_cut(const izb_recon *faces, int count, const float *depth,
                                                const uint32_t *ids, const float *xyz, int nt,
                                                const izb_cull_view *cull, bool near, const izb_cutout_set *cut,
                                                uint8_t *mask, izb_point *pts, int *pix, float *face_depth,
                                                uint8_t *face_mask)
{
    const int W = faces[0].width, H = faces[0].height;
    for (int i = 0; i < W * H; i++)
        mask[i] = 255;
    for (int f = 0; f < count; f++) {
        izb_recon fr = faces[f];
        fr.light_is_spot = IZB_LIGHT_CUBE;
        for (int py = 0; py < H; py++)
            for (int px = 0; px < W; px++)
                face_depth[py * W + px] = izb_aa_face_depth(faces, count, f, px, py, depth[py * W + px]);
        izb_brute_force_aa_cut(&fr, face_depth, ids, xyz, nt, cull, near, cut, face_mask, pts, pix);
        for (int i = 0; i < W * H; i++)
            if (face_depth[i] != 0.0f) mask[i] = face_mask[i];
    }
}

static inline void izb_brute_force_faces_aa(const izb_recon *faces, int count, const float *depth,
                                            const uint32_t *ids, const float *xyz, int nt,
                                            const izb_cull_view *cull, bool near, uint8_t *mask, izb_point *pts,
                                            int *pix, float *face_depth, uint8_t *face_mask)
{
    izb_brute_force_faces_aa_cut(faces, count, depth, ids, xyz, nt, cull, near, NULL, mask, pts, pix, face_depth,
                                 face_mask);
}

static inline void izb_brute_force_faces(const izb_recon *faces, int count, const float *depth, const uint32_t *ids,
                                         const float *xyz, int nt, const izb_cull_view *cull, uint8_t *mask,
                                         izb_point *pts, int *pix, float *face_depth, uint8_t *face_mask)
{
    izb_brute_force_faces_cut(faces, count, depth, ids, xyz, nt, cull, NULL, mask, pts, pix, face_depth, face_mask);
}

#endif
