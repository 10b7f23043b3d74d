/* quality_samples.c — see quality_samples.h. */
#include "quality_samples.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb_aa.h"
#include "izb_area.h"
#include "izb_mask.h"
#include "sample_rays.h"

/* How a pixel's sample k turns its centre shadow ray into its own. */
typedef struct sample_rays {
    const oracle_ray_setup *rs;
    const float *dirs;         /* soft: unit world directions toward the light, 3 per sample */
    const double *targets;     /* area: world points on the emitter, 3 per sample */
    const float *axes, *u, *v; /* anti-aliasing: footprint axes (6 per pixel) and offsets */
} sample_rays;

static void sample_ray(const sample_rays *s, size_t i, int k, const oracle_ray *centre, oracle_ray *r)
{
    *r = *centre;
    if (s->dirs) { /* unit, as the centre ray's direction: the same tnear */
        memcpy(r->dir, s->dirs + 3 * k, sizeof r->dir);
        return;
    }
    if (s->targets) { /* the segment to the sample, [tnear, tfar] as fractions of it like a spot's */
        for (int d = 0; d < 3; d++)
            r->dir[d] = (float)(s->targets[3 * k + d] - centre->org[d]);
        return;
    }
    const float *a = s->axes + 6 * i, *b = s->axes + 6 * i + 3;
    for (int d = 0; d < 3; d++)
        r->org[d] = centre->org[d] + s->u[k] * a[d] + s->v[k] * b[d];
    if (s->rs->spot) /* toward the light from the sub-sample's own position */
        for (int d = 0; d < 3; d++)
            r->dir[d] = (float)(s->rs->light_pos[d] - r->org[d]);
}

/* Every pixel's m sample rays, cast: bits (may be NULL) and vis as quality_truth_soft says. */
static void cast_all(oracle *o, const izb_recon *f, const float *depth, const sample_rays *s, int m,
                     uint32_t *bits, float *vis)
{
    const int words = izb_mask_words(m);
#pragma omp parallel for schedule(dynamic, 4)
    for (int py = 0; py < f->height; py++)
        for (int px = 0; px < f->width; px++) {
            const size_t i = (size_t)py * f->width + px;
            uint32_t *b = bits ? bits + i * words : NULL;
            if (b) memset(b, 0, sizeof *b * (size_t)words);
            oracle_ray centre, r;
            if (oracle_pixel_ray(s->rs, px, py, depth[i], &centre) != ORACLE_PIXEL_RAY) {
                vis[i] = -1.0f;
                continue;
            }
            int hidden = 0;
            for (int k = 0; k < m; k++) {
                sample_ray(s, i, k, &centre, &r);
                if (!oracle_occluded(o, &r, -1)) continue;
                hidden++;
                if (b) b[k / 32] |= 1u << (k % 32);
            }
            vis[i] = 1.0f - (float)hidden / (float)m;
        }
}

void quality_truth_soft(oracle *o, const izb_recon *f, const camera *c, const light *l, const float *depth,
                        uint32_t *bits, float *vis)
{
    const oracle_ray_setup rs = oracle_ray_setup_make(f, c, l);
    if (izb_area_on(f)) {
        double pts[3 * IZB_MASK_MAX_BITS];
        sample_rays_area_points(f, pts);
        cast_all(o, f, depth, &(sample_rays){.rs = &rs, .targets = pts}, f->light_samples, bits, vis);
        return;
    }
    float dirs[3 * IZB_MASK_MAX_BITS];
    sample_rays_soft_dirs(f, dirs);
    cast_all(o, f, depth, &(sample_rays){.rs = &rs, .dirs = dirs}, f->light_samples, bits, vis);
}

void quality_truth_aa(oracle *o, const izb_recon *f, const camera *c, const light *l, const float *depth,
                      const float *axes, const float *u, const float *v, int m, uint32_t *bits, float *vis)
{
    const oracle_ray_setup rs = oracle_ray_setup_make(f, c, l);
    cast_all(o, f, depth, &(sample_rays){.rs = &rs, .axes = axes, .u = u, .v = v}, m, bits, vis);
}

void quality_aa_ref_grid(float *u, float *v)
{
    const int s = QUALITY_AA_REF_SIDE;
    for (int y = 0; y < s; y++)
        for (int x = 0; x < s; x++) {
            u[y * s + x] = ((float)x + 0.5f) / (float)s - 0.5f;
            v[y * s + x] = ((float)y + 0.5f) / (float)s - 0.5f;
        }
}

void quality_soft_horizon(const izb_recon *f, const camera *c, const light *l, const float *depth, const uint32_t *ids,
                          const float *xyz, int tri_count, long npix, uint8_t *flag)
{
    const bool area = izb_area_on(f);
    float dirs[3 * IZB_MASK_MAX_BITS];
    double pts[3 * IZB_MASK_MAX_BITS];
    if (area)
        sample_rays_area_points(f, pts);
    else
        sample_rays_soft_dirs(f, dirs);
    const oracle_ray_setup rs = oracle_ray_setup_make(f, c, l);
    for (long i = 0; i < npix; i++) {
        flag[i] = 0;
        if (ids[i] >= (uint32_t)tri_count) continue;
        oracle_ray centre;
        if (area && oracle_pixel_ray(&rs, (int)(i % f->width), (int)(i / f->width), depth[i], &centre) !=
                        ORACLE_PIXEL_RAY)
            continue;
        const float *q = xyz + 9 * (size_t)ids[i];
        const double e1[3] = {q[3] - q[0], q[4] - q[1], q[5] - q[2]},
                     e2[3] = {q[6] - q[0], q[7] - q[1], q[8] - q[2]};
        const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                             e1[0] * e2[1] - e1[1] * e2[0]};
        bool above = false, below = false;
        for (int j = 0; j < f->light_samples; j++) {
            double v[3]; /* toward sample j */
            for (int k = 0; k < 3; k++)
                v[k] = area ? pts[3 * j + k] - centre.org[k] : dirs[3 * j + k];
            const double d = n[0] * v[0] + n[1] * v[1] + n[2] * v[2];
            above |= d > 0.0, below |= d < 0.0;
        }
        flag[i] = above && below;
    }
}

bool quality_izb_bits(const izb_debug *d, long npix, uint32_t *bits)
{
    if (!d->sample_masks || d->sample_bits <= 0) return false;
    const int words = d->sample_words;
    memset(bits, 0, sizeof *bits * (size_t)npix * (size_t)words);
    for (int j = 0; j < d->point_count; j++) {
        const uint32_t px = d->points[j].pixel;
        if ((long)px >= npix) return false;
        for (int w = 0; w < words; w++)
            bits[(size_t)px * words + w] =
                d->sample_masks[(size_t)j * words + w] & izb_mask_word_bits(d->sample_bits, w);
    }
    return true;
}

bool quality_izb_face_bits(izb_backend *b, const izb_recon *faces, int count, int n, const float *depth,
                           const uint32_t *ids, const uint8_t *mask, long npix, uint32_t *bits, long *differ)
{
    const int W = faces[0].width, H = faces[0].height, words = izb_mask_words(n);
    float *fd = malloc((size_t)npix * sizeof *fd);
    uint8_t *fm = malloc((size_t)npix);
    uint32_t *fb = malloc((size_t)npix * (size_t)words * sizeof *fb);
    bool ok = fd && fm && fb && (long)W * H == npix;
    memset(bits, 0, (size_t)npix * (size_t)words * sizeof *bits);
    *differ = 0;
    for (int f = 0; f < count && ok; f++) {
        izb_recon c = faces[f];
        c.light_is_spot = IZB_LIGHT_CUBE, c.shadow_samples = n;
        bool any = false;
        for (int py = 0; py < H; py++)
            for (int px = 0; px < W; px++) {
                const long i = (long)py * W + px;
                fd[i] = izb_aa_face_depth(faces, count, f, px, py, depth[i]);
                any |= fd[i] != 0.0f;
            }
        if (!any) continue;
        izb_debug d;
        ok = izb_shade_arrays_ids(b, &c, NULL, fd, ids, fm, NULL) && izb_get_debug(b, &d) && d.sample_bits == n &&
             quality_izb_bits(&d, npix, fb);
        for (long i = 0; ok && i < npix; i++) {
            if (fd[i] == 0.0f) continue;
            memcpy(bits + i * words, fb + i * words, (size_t)words * sizeof *fb);
            *differ += fm[i] != mask[i];
        }
    }
    free(fd), free(fm), free(fb);
    return ok;
}

void quality_hard_bits(const uint8_t *mask, long npix, uint32_t *bits)
{
    for (long i = 0; i < npix; i++)
        bits[i] = mask[i] == 0;
}

quality_sample_counts quality_sample_compare(const uint32_t *bits, const uint8_t *mask,
                                             const uint32_t *truth_bits, const float *truth_vis,
                                             const float *ref_vis, const uint8_t *flag, int m, long npix)
{
    quality_sample_counts c = {
        .samples = bits ? m : 0, .abs_err_ref = ref_vis ? 0.0 : -1.0, .wrong_flagged = flag ? 0 : -1};
    const int words = izb_mask_words(m);
    double err = 0.0, err_ref = 0.0;
    for (long i = 0; i < npix; i++) {
        if (!(truth_vis[i] >= 0.0f)) continue;
        c.covered++;
        double vis;
        if (bits) {
            int hidden = 0;
            for (int w = 0; w < words; w++) {
                const uint32_t keep = izb_mask_word_bits(m, w);
                const uint32_t t = bits[(size_t)i * words + w] & keep,
                               g = truth_bits[(size_t)i * words + w] & keep;
                hidden += izb_popcount32(t);
                c.wrong += izb_popcount32(t ^ g);
                if (flag && flag[i]) c.wrong_flagged += izb_popcount32(t ^ g);
                c.false_hidden += izb_popcount32(t & ~g);
            }
            vis = 1.0 - (double)hidden / m;
        } else {
            vis = mask[i] / 255.0;
        }
        err += fabs(vis - truth_vis[i]);
        if (ref_vis) err_ref += fabs(vis - ref_vis[i]);
    }
    c.answers = c.covered * (long)c.samples;
    if (c.covered) {
        c.abs_err = err / (double)c.covered;
        if (ref_vis) c.abs_err_ref = err_ref / (double)c.covered;
    }
    return c;
}

void quality_vis_image(const float *vis, long n, uint8_t *rgb)
{
    for (long i = 0; i < n; i++) {
        uint8_t *p = rgb + 3 * i;
        if (!(vis[i] >= 0.0f)) {
            p[0] = 60, p[1] = 90, p[2] = 160;
            continue;
        }
        p[0] = p[1] = p[2] = (uint8_t)lrintf(255.0f * vis[i]);
    }
}

void quality_mask_vis_image(const uint8_t *mask, const float *vis_truth, long n, uint8_t *rgb)
{
    quality_vis_image(vis_truth, n, rgb); /* the sky's colour */
    for (long i = 0; i < n; i++)
        if (vis_truth[i] >= 0.0f) rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = mask[i];
}

void quality_vis_diff_image(const uint8_t *mask, const float *vis_truth, long n, uint8_t *rgb)
{
    for (long i = 0; i < n; i++) {
        uint8_t *p = rgb + 3 * i;
        if (!(vis_truth[i] >= 0.0f)) {
            p[0] = 90, p[1] = 100, p[2] = 120;
            continue;
        }
        const float e = mask[i] / 255.0f - vis_truth[i]; /* < 0: too dark */
        const float t = fminf(1.0f, fabsf(e) / 0.25f);
        const uint8_t grey = (uint8_t)lrintf(80.0f + 120.0f * vis_truth[i]);
        const uint8_t hot = (uint8_t)lrintf(grey + t * (255.0f - grey)),
                      cold = (uint8_t)lrintf(grey * (1.0f - t));
        p[0] = e < 0.0f ? hot : cold;
        p[1] = cold;
        p[2] = e < 0.0f ? cold : hot;
    }
}
