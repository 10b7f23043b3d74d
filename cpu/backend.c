/* backend.c — the CPU backend behind izb.h (the mirror of cuda/backend.cu): the stages of cpu/
 * (recon.c, binning.c, cull.c, raster.c) run on OpenMP
 * threads over buffers this backend owns, timed with the monotonic wall clock. Buffers grow when
 * the resolution, grid or scene needs more and are never reallocated otherwise. The CUDA
 * backend's tests compare against it, and machines without an NVIDIA GPU render with it.
 *
 * Settings: kernel1/kernel2 are the two traversals of raster.c. Radix and atomic binning share
 * the stable counting sort (on a CPU, per-thread histograms + scan + scatter is what both GPU
 * schemes amount to); the mode is only recorded in the stats. Threads: izb_desc.threads (0 = all
 * OpenMP threads), passed to every parallel region, never set globally.
 */
#include "izb_cpu.h"
#include "izb_cpu_stages.h"
#include "cpu_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool izb_cpu_reserve(buffer *buf, size_t need, size_t size, const char *what)
{
    if (need <= buf->cap && buf->data)
        return true;
    free(buf->data);
    /* 64-byte aligned: an izb_tri (64 bytes) is then one cache line, and the vector loops start
     * on a line; the large ones on huge pages (izb_cpu_alloc) */
    buf->data = need > SIZE_MAX / (size ? size : 1) ? NULL : izb_cpu_alloc((need ? need : 1) * size);
    buf->cap = buf->data ? need : 0;
    buf->bytes = buf->data ? (need ? need : 1) * size : 0;
    if (!buf->data)
        fprintf(stderr, "izb cpu: out of memory for %s (%zu x %zu bytes)\n", what, need, size);
    return buf->data != NULL;
}

double izb_cpu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void cpu_destroy(izb_backend *base)
{
    cpu_backend *b = (cpu_backend *)base;
    buffer *all[] = {&b->xyz,  &b->points, &b->debug_points, &b->cell_start, &b->cell_end, &b->scratch,
                     &b->hits, &b->tris,   &b->comp,         &b->boxes,      &b->tri_id,
                     &b->soft_tris, &b->soft_masks, &b->cell_zmax, &b->aa_foot, &b->aa_masks, &b->cell_ext,
                     &b->face_points, &b->face_blocks, &b->reach};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]->data);
    izb_cpu_points_free(&b->binned);
    izb_cutout_set_free(&b->cut);
    free(b);
}

/* keep the backend's copy of the closed meshes; without them (NULL comp) every triangle is open */
static bool keep_closed(cpu_backend *b, const izb_closed *c, size_t n)
{
    const bool have = c && c->comp;
    const size_t nb = have ? 6 * (size_t)c->comp_count : 0;
    if (!izb_cpu_reserve(&b->comp, have ? n : 0, sizeof(uint32_t), "closed-mesh index") ||
        !izb_cpu_reserve(&b->boxes, nb, sizeof(float), "closed-mesh bounds"))
        return false;
    if (have) {
        memcpy(b->comp.data, c->comp, n * sizeof(uint32_t));
        memcpy(b->boxes.data, c->boxes, nb * sizeof(float));
    }
    b->have_closed = have;
    b->box_floats = nb;
    return true;
}

static bool cpu_set_scene(izb_backend *base, const float *xyz, int tri_count, const izb_closed *closed)
{
    cpu_backend *b = (cpu_backend *)base;
    b->have_frame = false;
    izb_cutout_set_free(&b->cut); /* they were the old scene's */
    if (tri_count < 0 || (tri_count > 0 && !xyz)) {
        fprintf(stderr, "izb cpu: set_scene: bad triangle array (%d triangles)\n", tri_count);
        return false;
    }
    const size_t n = (size_t)tri_count;
    b->tri_count = 0;
    b->reach_ok = false; /* faces.c's marks are of the old triangles */
    if (!izb_cpu_reserve(&b->xyz, 9 * n, sizeof(float), "scene vertices") ||
        !izb_cpu_reserve(&b->tris, n, sizeof(izb_tri), "triangle setup") || !keep_closed(b, closed, n))
        return false;
    if (n)
        memcpy(b->xyz.data, xyz, 9 * n * sizeof(float));
    b->xyz_maxabs = -1.0f; /* not known: faces.c measures it when a point light needs it */
    b->tri_count = tri_count;
    return true;
}

/* izb.c checked the count and the values: a copy of the triangles and of the boxes */
static bool cpu_update_scene(izb_backend *base, const float *xyz, int tri_count, const float *boxes)
{
    cpu_backend *b = (cpu_backend *)base;
    b->have_frame = false;
    if (tri_count != b->tri_count)
        return false;
    if (tri_count > 0)
        memcpy(b->xyz.data, xyz, 9 * (size_t)tri_count * sizeof(float));
    b->xyz_maxabs = -1.0f;
    b->reach_ok = false;
    if (boxes && b->have_closed && b->box_floats)
        memcpy(b->boxes.data, boxes, b->box_floats * sizeof(float));
    return true;
}

/* the checked cut-outs, taken over */
static bool cpu_set_cutouts(izb_backend *base, izb_cutout_set *s)
{
    cpu_backend *b = (cpu_backend *)base;
    b->have_frame = false;
    izb_cutout_set_free(&b->cut);
    b->cut = *s;
    return true;
}

void izb_cpu_finish_frame(cpu_backend *b, const izb_settings *s, izb_stats *stats, int n, int nt, const izb_grid *gp,
                         const izb_bbox *bbox, const double *t)
{
    const izb_grid g = *gp;
    b->have_frame = true;
    b->sample_bits = 0; /* a soft or anti-aliased frame sets it after this */
    b->point_count = n;
    b->tris_after_cull = nt;
    b->grid = g;
    if (stats) {
        memset(stats, 0, sizeof *stats);
        for (int i = 0; i < IZB_STAGE_COUNT; i++)
            stats->stage_ms[i] = (float)(t[i + 1] - t[i]);
        stats->total_ms = (float)(t[IZB_STAGE_COUNT] - t[0]);
        stats->points = n;
        stats->tris_in = b->tri_count;
        stats->tris_after_cull = nt;
        stats->grid_w = g.w;
        stats->grid_h = g.h;
        stats->unit_size = 0;
        stats->kernel = s->kernel == IZB_KERNEL2 ? IZB_KERNEL2 : IZB_KERNEL1;
        stats->binning = s->binning == IZB_BINNING_ATOMIC ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX;
        stats->bbox = *bbox;
        stats->overflows = 0;
        const buffer *frame[] = {&b->points,      &b->debug_points, &b->cell_start, &b->cell_end,
                                 &b->scratch,     &b->hits,         &b->soft_masks, &b->cell_zmax,
                                 &b->aa_foot,     &b->aa_masks,     &b->cell_ext,   &b->face_points,
                                 &b->face_blocks};
        const buffer *scene[] = {&b->xyz, &b->tris, &b->tri_id, &b->comp, &b->boxes, &b->soft_tris};
        stats->scene_bytes = b->cut.pool_bytes + (size_t)b->cut.texture_count * sizeof(izb_alpha_tex) +
                             (size_t)(b->cut.uv ? b->cut.tri_count : 0) * (6 * sizeof(float) + sizeof(uint32_t));
        stats->frame_bytes = b->binned.cap * (sizeof(float) * 3 + sizeof(uint32_t));
        for (size_t i = 0; i < sizeof frame / sizeof frame[0]; i++)
            stats->frame_bytes += frame[i]->bytes;
        for (size_t i = 0; i < sizeof scene / sizeof scene[0]; i++)
            stats->scene_bytes += scene[i]->bytes;
    }
}

/* Stages 3 and 4 of a soft frame (light_angle > 0, izb_soft.h; or an area light's, izb_area_on,
 * izb_area.h) after the hard path's stages 1 and 2: the same points and grid, the triangles set up
 * with penumbra boxes (culling: faces that face away from every light sample), visibility masks. */
static bool soft_frame(cpu_backend *b, const izb_recon *f, const izb_settings *s, const uint32_t *ids,
                       uint8_t *mask, izb_stats *stats, int n, const izb_grid *g, const izb_bbox *bbox, double *t)
{
    const int T = b->threads;
    const bool area = izb_area_on(f);
    izb_soft_light L;
    if (area)
        izb_area_light_make(f, &L);
    else
        izb_soft_light_make(f, &L);
    if (!izb_cpu_reserve(&b->soft_tris, (size_t)b->tri_count, sizeof(izb_soft_tri), "soft triangle setup") ||
        !izb_cpu_reserve(&b->tri_id, (size_t)b->tri_count, sizeof(uint32_t), "triangle ids") ||
        !izb_cpu_reserve(&b->soft_masks, (size_t)n * (size_t)izb_mask_words(L.m), sizeof(uint32_t), "visibility masks") ||
        !izb_cpu_reserve(&b->cell_zmax, (size_t)g->w * (size_t)g->h, sizeof(float), "cells' farthest receivers"))
        return false;
    int nt = 0;
    const float zmax = n > 0 ? izb_cpu_points_zmax(&b->binned, n, T) : 0.0f;
    if (n > 0) {
        izb_cull_view cv = {.mode = s->cull, .comp = b->have_closed ? b->comp.data : NULL,
                            .boxes = b->boxes.data, .light_is_spot = area, .light_reach = izb_area_reach(f)};
        if (area)
            izb_light_origin(f->light, cv.light_origin);
        nt = (area ? izb_cpu_area_setup : izb_cpu_soft_setup)(b->xyz.data, b->tri_count, f, &L, zmax, bbox, &cv,
                                                              b->soft_tris.data, b->tri_id.data, T);
    }
    t[3] = izb_cpu_now_ms();
    izb_cpu_soft_counts counts = {0};
    if (nt > 0)
        (area ? izb_cpu_area_raster : izb_cpu_soft_raster)(b->soft_tris.data, b->tri_id.data, nt, &L, &b->binned, n,
                            b->cell_start.data,
                            b->cell_end.data, g, zmax, b->cell_zmax.data, s->kernel,
                            ids ? &(izb_own){b->tri_id.data, ids, b->xyz.data, (uint32_t)b->tri_count} : NULL,
                            b->cut.cut_count ? &(izb_cut){NULL, b->cut.tex, b->cut.uv, b->cut.textures, b->cut.pool}
                                             : NULL,
                            b->soft_masks.data, mask, T, IZB_CPU_ISA_AUTO, &counts);
    t[4] = izb_cpu_now_ms();
    izb_cpu_finish_frame(b, s, stats, n, nt, g, bbox, t);
    /* the debug view draws izb_tri set-ups, which a soft frame has none of */
    b->tris_after_cull = 0;
    b->sample_bits = L.m, b->soft_samples = true;
    if (stats) {
        stats->tris_after_cull = nt;
        stats->soft_tests_global = (double)counts.global;
        stats->soft_tests = (double)counts.visited;
        stats->soft_pairs = (double)counts.pairs;
    }
    return true;
}

/* Stages 3 and 4 of an anti-aliased frame (shadow_samples > 1, izb_aa.h) after the hard path's
 * stages 1 and 2: the points' footprints from the depth image, the triangles set up as for a hard
 * frame but against the points' bbox grown by the largest footprint (so a triangle that reaches
 * only sub-samples is kept), sub-sample masks, each cut-out alpha-tested per sub-sample. */
static bool aa_frame(cpu_backend *b, const izb_recon *f, const izb_settings *s, const float *depth,
                     const uint32_t *ids, uint8_t *mask, izb_stats *stats, int n, const izb_grid *g,
                     const izb_bbox *bbox, double *t)
{
    const int T = b->threads;
    izb_aa_samples S;
    izb_aa_samples_make(f->shadow_samples, &S);
    S.persp = f->light_is_spot != 0;
    if (!izb_cpu_reserve(&b->aa_foot, IZB_CPU_AA_FEET_FLOATS(n), sizeof(float), "pixel footprints") ||
        !izb_cpu_reserve(&b->aa_masks, (size_t)n, sizeof(uint32_t), "sub-sample masks") ||
        !izb_cpu_reserve(&b->cell_ext, 4 * (size_t)g->w * (size_t)g->h, sizeof(float), "cells' footprint boxes") ||
        !izb_cpu_reserve(&b->tri_id, (size_t)b->tri_count, sizeof(uint32_t), "triangle ids"))
        return false;
    int nt = 0;
    float ex = 0.0f, ey = 0.0f;
    const izb_cpu_aa_feet F = izb_cpu_aa_feet_in(b->aa_foot.data, n);
    if (n > 0) {
        izb_cpu_aa_footprints(f, depth, ids, b->xyz.data, (uint32_t)b->tri_count, &b->binned, n, &F, &ex,
                              &ey, T);
        const izb_bbox grown = izb_aa_grow_bbox(*bbox, ex, ey);
        izb_cull_view cv = {.mode = s->cull, .comp = b->have_closed ? b->comp.data : NULL,
                            .boxes = b->boxes.data, .light_is_spot = f->light_is_spot};
        if (f->light_is_spot)
            izb_light_origin(f->light, cv.light_origin);
        nt = izb_cpu_cull_ids(b->xyz.data, b->tri_count, f, g, &grown, &cv, b->tris.data, b->tri_id.data, T);
    }
    t[3] = izb_cpu_now_ms();
    izb_cpu_aa_counts counts = {0};
    if (n > 0)
        izb_cpu_aa_raster(b->tris.data, b->tri_id.data, nt, &S, &b->binned, &F, n, b->cell_start.data,
                          b->cell_end.data, g, ex, ey, b->cell_ext.data, s->kernel,
                          ids ? &(izb_own){b->tri_id.data, ids, b->xyz.data, (uint32_t)b->tri_count} : NULL,
                          b->cut.cut_count ? &(izb_cut){NULL, b->cut.tex, b->cut.uv, b->cut.textures, b->cut.pool}
                                           : NULL,
                          b->aa_masks.data, mask, T, IZB_CPU_ISA_AUTO, &counts);
    t[4] = izb_cpu_now_ms();
    izb_cpu_finish_frame(b, s, stats, n, nt, g, bbox, t);
    b->sample_bits = S.n, b->soft_samples = false;
    if (stats) {
        stats->aa_tests_global = (double)counts.global;
        stats->aa_tests = (double)counts.visited;
        stats->aa_pairs = (double)counts.pairs;
    }
    return true;
}

static bool cpu_shade_arrays(izb_backend *base, const izb_recon *f, const izb_settings *s, const float *depth,
                             const uint32_t *ids, uint8_t *mask, izb_stats *stats)
{
    cpu_backend *b = (cpu_backend *)base;
    b->have_frame = false;
    if (!f || !s || !depth || !mask) {
        fprintf(stderr, "izb cpu: shade_arrays: NULL argument\n");
        return false;
    }
    if (f->width <= 0 || f->height <= 0 || (int64_t)f->width * f->height > INT32_MAX) {
        fprintf(stderr, "izb cpu: shade_arrays: bad frame size %dx%d\n", f->width, f->height);
        return false;
    }
    if (s->grid_w > IZB_GRID_MAX_DIM || s->grid_h > IZB_GRID_MAX_DIM) {
        fprintf(stderr, "izb cpu: grid %dx%d: each side must be at most %d cells\n", s->grid_w, s->grid_h,
                IZB_GRID_MAX_DIM);
        return false;
    }
    const size_t npix = (size_t)f->width * (size_t)f->height;
    if (!izb_cpu_reserve(&b->points, npix, sizeof(izb_point), "sample points") ||
        !izb_cpu_points_reserve(&b->binned, npix, "binned points") ||
        ((ids || b->cut.cut_count) && !izb_cpu_reserve(&b->tri_id, (size_t)b->tri_count, sizeof(uint32_t), "triangle ids")))
        return false;
    const int T = b->threads;
    double t[IZB_STAGE_COUNT + 1];

    t[0] = izb_cpu_now_ms();
    izb_bbox bbox;
    izb_cpu_runs runs; /* the points stay where each thread wrote them: binning reads them there */
    const int n = izb_cpu_reconstruct_tiles(f, depth, b->points.data, mask, &bbox, &runs, T, IZB_CPU_ISA_AUTO);
    izb_grid g = {0};
    if (n > 0)
        g = izb_grid_make(bbox, n, s->grid_w, s->grid_h);
    t[1] = izb_cpu_now_ms();

    const size_t cells = (size_t)g.w * (size_t)g.h;
    if (!izb_cpu_reserve(&b->cell_start, cells, sizeof(uint32_t), "cell starts") ||
        !izb_cpu_reserve(&b->cell_end, cells, sizeof(uint32_t), "cell ends") ||
        !izb_cpu_reserve(&b->scratch, izb_cpu_bin_scratch(n, &g, T), sizeof(uint32_t), "binning scratch"))
        return false;
    if (n > 0)
        izb_cpu_bin_runs(&runs, &g, &b->binned, b->cell_start.data, b->cell_end.data, T, b->scratch.data,
                         IZB_CPU_ISA_AUTO);
    t[2] = izb_cpu_now_ms();

    if (f->light_angle > 0.0f || izb_area_on(f)) /* izb.c checked the angle, size and M; 0 keeps the hard path */
        return soft_frame(b, f, s, ids, mask, stats, n, &g, &bbox, t);
    if (f->shadow_samples > 1) /* izb.c checked N; 0 and 1 keep the hard path below, bit for bit */
        return aa_frame(b, f, s, depth, ids, mask, stats, n, &g, &bbox, t);

    int nt = 0;
    if (n > 0) {
        izb_cull_view cv = {.mode = s->cull, .comp = b->have_closed ? b->comp.data : NULL,
                            .boxes = b->boxes.data, .light_is_spot = f->light_is_spot};
        if (f->light_is_spot)
            izb_light_origin(f->light, cv.light_origin);
        nt = izb_cpu_cull_ids(b->xyz.data, b->tri_count, f, &g, &bbox, &cv, b->tris.data,
                              ids || b->cut.cut_count ? b->tri_id.data : NULL, T);
    }
    t[3] = izb_cpu_now_ms();

    if (!izb_cpu_reserve(&b->hits, izb_cpu_raster_scratch(n, T), sizeof(uint64_t), "raster hit bitmaps"))
        return false;
    if (nt > 0)
        izb_cpu_raster_cut(b->tris.data, nt, &b->binned, n, b->cell_start.data, b->cell_end.data, &g,
                           s->kernel,
                           ids ? &(izb_own){b->tri_id.data, ids, b->xyz.data, (uint32_t)b->tri_count} : NULL,
                           b->cut.cut_count ? &(izb_cut){b->tri_id.data, b->cut.tex, b->cut.uv, b->cut.textures,
                                                         b->cut.pool}
                                            : NULL,
                           mask, T, b->hits.data, IZB_CPU_ISA_AUTO);
    t[4] = izb_cpu_now_ms();

    izb_cpu_finish_frame(b, s, stats, n, nt, &g, &bbox, t);
    return true;
}

static bool cpu_get_debug(izb_backend *base, izb_debug *out)
{
    cpu_backend *b = (cpu_backend *)base;
    if (!b->have_frame)
        return false;
    /* the raster reads the points as a structure of arrays; the debug view wants izb_point */
    if (!izb_cpu_reserve(&b->debug_points, (size_t)b->point_count, sizeof(izb_point), "debug points")) return false;
    izb_cpu_points_to_aos(&b->binned, b->point_count, b->debug_points.data);
    out->points = b->debug_points.data;
    out->point_count = b->point_count;
    out->cell_start = b->cell_start.data;
    out->cell_end = b->cell_end.data;
    out->grid = b->grid;
    out->tris = b->tris.data;
    out->tri_count = b->tris_after_cull;
    out->sample_bits = b->sample_bits;
    out->sample_words = b->sample_bits ? izb_mask_words(b->sample_bits) : 0;
    out->sample_masks = !b->sample_bits ? NULL : b->soft_samples ? b->soft_masks.data : b->aa_masks.data;
    return true;
}

static const izb_backend_vtbl cpu_vtbl = {
    .name = "cpu",
    .destroy = cpu_destroy,
    .set_scene = cpu_set_scene,
    .shade_arrays = cpu_shade_arrays,
    .shade_gl = NULL,
    .get_debug = cpu_get_debug,
    .update_scene = cpu_update_scene,
    .set_cutouts = cpu_set_cutouts,
    .shade_faces = izb_cpu_shade_faces,
    .soft = true,
    .aa = true,
    .area = true,
};

izb_backend *izb_cpu_create(const izb_desc *desc)
{
    cpu_backend *b = calloc(1, sizeof *b);
    if (!b) {
        fprintf(stderr, "izb cpu: out of memory\n");
        return NULL;
    }
    b->base.vt = &cpu_vtbl;
    b->threads = izb_cpu_threads(desc ? desc->threads : 0);
    return &b->base;
}

const izb_backend_entry izb_cpu_backend_entry = {
    .kind = IZB_BACKEND_CPU,
    .needs_device = false,
    .create = izb_cpu_create,
};
