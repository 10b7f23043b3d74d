/* backend.cu — the CUDA backend behind izb.h: device buffers, the frame pipeline, CUDA-event
 * timing, and the array and GL entry points. The stages live in recon.cu, cull.cu, binning.cu and
 * raster.cu; GL interop in interop.cu.
 *
 * One frame on the backend's stream: reconstruct (+ bbox + grid) -> cull/compact -> one read-back
 * of the frame info (point count, grid, triangle count: CUB and the launch sizes need them on the
 * host) -> bin -> rasterise + resolve. Culling runs before binning so a single host round trip
 * serves both; it needs only the bbox and grid, which the device already has.
 *
 * Errors: create returns NULL (with a message) when no usable device answers, so izb_create()
 * falls back to the CPU. set_scene/shade_* return false after printing one line naming the call
 * and the reason (out of GPU memory included); the caller decides whether to carry on, retry or
 * switch to the CPU backend — after a kernel fault the CUDA context is unusable and every later
 * call fails too.
 *
 * Buffers are allocated at create (grid arrays, at IZB_GRID_MAX_DIM^2 cells), set_scene
 * (triangles) and on the first frame at a larger resolution (points); never shrunk, never per
 * frame. The frame matrices reach the stage kernels as __grid_constant__ launch parameters: no
 * process-global state, so backends may overlap.
 */
#include "izb_cuda.h"

#include <stdlib.h>
#include <string.h>

#include "binning.h"
#include "cuda_check.h"
#include "cuda_common.h"
#include "cuda_tune.h"
#include "cull.h"
#include "interop.h"

#include <cuda_gl_interop.h>
#include "raster.h"
#include "raster_aa.h"
#include "raster_soft.h"
#include "recon.h"

enum { EV_RECON, EV_CULL, EV_CULL_END, EV_BIN, EV_RASTER, EV_END, EV_COUNT };

typedef struct cuda_backend {
    izb_backend base;
    int sm_count;
    cudaStream_t stream;
    cudaEvent_t ev[EV_COUNT];
    cuda_frame_info *d_info, *h_info; /* h_info: pinned */

    /* grid: IZB_GRID_MAX_DIM^2 cells each */
    uint32_t *d_cell_start, *d_cell_end, *d_cell_count, *d_block_off;

    /* points: npix_cap each */
    size_t npix_cap;
    float4 *d_points, *d_binned, *d_block_bbox;
    uint32_t *d_keys[2], *d_vals[2];
    uint8_t *d_shadow;
    /* array path only: io_cap pixels */
    size_t io_cap;
    float *d_depth;
    uint8_t *d_mask;
    /* array path with primitive ids only: ids_cap pixels */
    size_t ids_cap;
    uint32_t *d_pixel_id;

    /* scene: tri_cap triangles */
    int tri_count;
    size_t tri_cap;
    float *d_xyz;
    uint32_t *d_flags, *d_offsets;
    float4 *d_tris;
    uint32_t *d_tri_id; /* the survivors' scene indices (frames with primitive ids) */
    /* the scene's closed meshes (core/izb_closed.h), for culling auto: comp_cap / box_cap entries */
    uint32_t *d_comp;
    float *d_boxes;
    size_t comp_cap, box_cap;
    size_t box_floats; /* in use: 6 per closed component */
    bool have_closed;
    /* the scene's cut-outs (izb_set_cutouts, core/izb_cutouts.h) uploaded as they are: cut_count 0:
     * none (the buffers are freed). Dropped by set_scene, kept by update_scene. */
    int cut_count;
    uint8_t *d_cut_pool;
    izb_alpha_tex *d_cut_textures;
    float *d_cut_uv;
    uint32_t *d_cut_tex;
    /* izb_update_scene: pinned staging (9 planes of tri_count floats, then the boxes), reused once
     * the upload recorded in ev_upload has finished */
    float *h_stage;
    size_t stage_cap; /* floats */
    cudaEvent_t ev_upload;

    cuda_scratch temp; /* CUB */
    soft_buffers soft; /* soft frames (raster_soft.h): allocated by the first one */
    interop_texture gl_depth, gl_mask, gl_ids; /* gl_ids: registered when shade_gl gets an ids_tex */
    /* Review fix: when the GL textures cannot be registered (the GL context is on a device CUDA
     * does not drive: another GPU, Mesa), shade_gl reads back instead of failing the run; host
     * buffers of readback_cap pixels. */
    bool gl_readback;
    size_t readback_cap;
    float *h_gl_depth;
    uint32_t *h_gl_ids;
    uint8_t *h_gl_mask;

    /* the last frame, for izb_get_debug */
    bool have_frame;
    int point_count;
    izb_grid grid;
    izb_point *h_points;
    uint32_t *h_cell_start, *h_cell_end;

    /* anti-aliased frames (raster_aa.h): allocated by the first one, aa_cap points */
    size_t aa_cap;
    aa_buffers aa;
} cuda_backend;

#define CELLS_MAX ((size_t)IZB_GRID_MAX_DIM * IZB_GRID_MAX_DIM)

/* cudaMalloc with a message naming the buffer; *p = NULL on failure. */
static bool dev_alloc(void **p, size_t bytes, const char *what)
{
    cudaError_t err = cudaMalloc(p, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        *p = NULL;
        fprintf(stderr, "izb cuda: out of GPU memory: %.1f MB for %s (%s)\n", (double)bytes / 1048576.0, what,
                cudaGetErrorString(err));
        cudaGetLastError();
        return false;
    }
    return true;
}
#define DEV_ALLOC(ptr, count, what) dev_alloc((void **)&(ptr), (size_t)(count) * sizeof *(ptr), what)

static void dev_free(void *pp)
{
    void **p = (void **)pp;
    if (*p)
        cudaFree(*p);
    *p = NULL;
}

static void free_points(cuda_backend *b)
{
    dev_free(&b->d_points);
    dev_free(&b->d_binned);
    dev_free(&b->d_block_bbox);
    for (int i = 0; i < 2; i++) {
        dev_free(&b->d_keys[i]);
        dev_free(&b->d_vals[i]);
    }
    dev_free(&b->d_shadow);
    b->npix_cap = 0;
}

static void free_aa(cuda_backend *b)
{
    dev_free(&b->aa.frame);
    dev_free(&b->aa.foot);
    dev_free(&b->aa.masks);
    dev_free(&b->aa.cell_ext);
    b->aa_cap = 0;
}

/* Room for an anti-aliased frame of npix pixels (its cells: CELLS_MAX, as the grid arrays). */
static bool reserve_aa(cuda_backend *b, size_t npix)
{
    if (npix <= b->aa_cap)
        return true;
    free_aa(b);
    if (!DEV_ALLOC(b->aa.frame, 1, "anti-aliasing state") || !DEV_ALLOC(b->aa.foot, 3 * npix, "pixel footprints") ||
        !DEV_ALLOC(b->aa.masks, npix, "sub-sample masks") ||
        !DEV_ALLOC(b->aa.cell_ext, CELLS_MAX, "cells' footprint extents")) {
        free_aa(b);
        return false;
    }
    b->aa_cap = npix;
    return true;
}

static void free_scene(cuda_backend *b)
{
    dev_free(&b->d_xyz);
    dev_free(&b->d_flags);
    dev_free(&b->d_offsets);
    dev_free(&b->d_tris);
    dev_free(&b->d_tri_id);
    dev_free(&b->d_comp);
    dev_free(&b->d_boxes);
    b->tri_cap = b->comp_cap = b->box_cap = 0;
    b->have_closed = false;
}

static void free_cutouts(cuda_backend *b)
{
    dev_free(&b->d_cut_pool);
    dev_free(&b->d_cut_textures);
    dev_free(&b->d_cut_uv);
    dev_free(&b->d_cut_tex);
    b->cut_count = 0;
}

/* Upload the closed-mesh index and boxes (culling auto); without them every triangle is open. */
static bool upload_closed(cuda_backend *b, const izb_closed *c, size_t n)
{
    b->have_closed = false;
    if (!c || !c->comp)
        return true;
    const size_t nb = 6 * (size_t)c->comp_count;
    if (n > b->comp_cap) {
        dev_free(&b->d_comp);
        b->comp_cap = 0;
        if (!DEV_ALLOC(b->d_comp, n, "closed-mesh index"))
            return false;
        b->comp_cap = n;
    }
    if (nb > b->box_cap || !b->d_boxes) {
        dev_free(&b->d_boxes);
        b->box_cap = 0;
        if (!DEV_ALLOC(b->d_boxes, nb, "closed-mesh bounds"))
            return false;
        b->box_cap = nb;
    }
    CUDA_TRY(cudaMemcpy(b->d_comp, c->comp, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    if (nb)
        CUDA_TRY(cudaMemcpy(b->d_boxes, c->boxes, nb * sizeof(float), cudaMemcpyHostToDevice));
    b->box_floats = nb;
    b->have_closed = true;
    return true;
}

/* Room for npix sample points (every pixel may be one). */
static bool reserve_points(cuda_backend *b, size_t npix)
{
    if (npix <= b->npix_cap)
        return true;
    free_points(b);
    bool ok = DEV_ALLOC(b->d_points, npix, "sample points") && DEV_ALLOC(b->d_binned, npix, "binned points") &&
              DEV_ALLOC(b->d_block_bbox, recon_block_count(npix), "block boxes") &&
              DEV_ALLOC(b->d_keys[0], npix, "cell hashes") && DEV_ALLOC(b->d_keys[1], npix, "cell hashes") &&
              DEV_ALLOC(b->d_vals[0], npix, "point indices") && DEV_ALLOC(b->d_vals[1], npix, "point indices") &&
              DEV_ALLOC(b->d_shadow, npix, "shadow flags") &&
              cuda_scratch_reserve(&b->temp, bin_temp_bytes((int)npix, (int)CELLS_MAX), "binning scratch");
    if (!ok) {
        free_points(b);
        return false;
    }
    b->npix_cap = npix;
    return true;
}

static bool reserve_io(cuda_backend *b, size_t npix)
{
    if (npix <= b->io_cap)
        return true;
    dev_free(&b->d_depth);
    dev_free(&b->d_mask);
    b->io_cap = 0;
    if (!DEV_ALLOC(b->d_depth, npix, "depth image") || !DEV_ALLOC(b->d_mask, npix, "shadow mask")) {
        dev_free(&b->d_depth);
        dev_free(&b->d_mask);
        return false;
    }
    b->io_cap = npix;
    return true;
}

static void cuda_destroy(izb_backend *base)
{
    cuda_backend *b = (cuda_backend *)base;
    if (b->stream)
        cudaStreamSynchronize(b->stream);
    interop_release(&b->gl_depth);
    interop_release(&b->gl_mask);
    interop_release(&b->gl_ids);
    free_points(b);
    free_scene(b);
    free_cutouts(b);
    free_aa(b);
    soft_free(&b->soft);
    dev_free(&b->d_depth);
    dev_free(&b->d_mask);
    dev_free(&b->d_pixel_id);
    dev_free(&b->d_cell_start);
    dev_free(&b->d_cell_end);
    dev_free(&b->d_cell_count);
    dev_free(&b->d_block_off);
    dev_free(&b->d_info);
    if (b->h_info)
        cudaFreeHost(b->h_info);
    cuda_scratch_free(&b->temp);
    for (int i = 0; i < EV_COUNT; i++)
        if (b->ev[i])
            cudaEventDestroy(b->ev[i]);
    if (b->stream)
        cudaStreamDestroy(b->stream);
    if (b->h_stage)
        cudaFreeHost(b->h_stage);
    if (b->ev_upload)
        cudaEventDestroy(b->ev_upload);
    free(b->h_points);
    free(b->h_cell_start);
    free(b->h_cell_end);
    free(b->h_gl_depth);
    free(b->h_gl_ids);
    free(b->h_gl_mask);
    free(b);
}

static bool cuda_set_scene(izb_backend *base, const float *xyz, int tri_count, const izb_closed *closed)
{
    cuda_backend *b = (cuda_backend *)base;
    b->tri_count = 0;
    b->have_frame = false;
    b->have_closed = false;
    free_cutouts(b); /* they were the old scene's */
    if (tri_count < 0 || tri_count >= (1 << 28) || (tri_count > 0 && !xyz)) {
        fprintf(stderr, "izb cuda: set_scene: bad triangle count %d\n", tri_count);
        return false;
    }
    if (tri_count == 0)
        return true;
    const size_t n = (size_t)tri_count;
    if (n > b->tri_cap) {
        free_scene(b);
        if (!DEV_ALLOC(b->d_xyz, 9 * n, "scene triangles") || !DEV_ALLOC(b->d_flags, n + 1, "cull flags") ||
            !DEV_ALLOC(b->d_offsets, n + 1, "cull offsets") ||
            !DEV_ALLOC(b->d_tris, 4 * n, "set-up triangles") || !DEV_ALLOC(b->d_tri_id, n, "triangle ids") ||
            !cuda_scratch_reserve(&b->temp, cull_temp_bytes(tri_count), "culling scratch")) {
            free_scene(b);
            return false;
        }
        b->tri_cap = n;
    }
    /* 9 planes of n floats (cull.h): each of the cull kernels' 9 loads is coalesced. */
    float *soa = (float *)malloc(9 * n * sizeof(float));
    if (!soa) {
        fprintf(stderr, "izb cuda: set_scene: out of host memory for %d triangles\n", tri_count);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 9; k++)
            soa[(size_t)k * n + i] = xyz[9 * i + (size_t)k];
    cudaError_t err = cudaMemcpyAsync(b->d_xyz, soa, 9 * n * sizeof(float), cudaMemcpyHostToDevice, b->stream);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(b->stream);
    free(soa);
    if (err != cudaSuccess)
        return cuda_report(err, "set_scene upload", __FILE__, __LINE__);
    if (!upload_closed(b, closed, n))
        return false;
    b->tri_count = tri_count;
    return true;
}

/* izb.c checked the count and values: transpose into pinned memory and upload asynchronously on
 * the frame stream, so the next frame's kernels are ordered after it and the host goes on. */
static bool cuda_update_scene(izb_backend *base, const float *xyz, int tri_count, const float *boxes)
{
    cuda_backend *b = (cuda_backend *)base;
    b->have_frame = false;
    if (tri_count != b->tri_count)
        return false;
    const size_t n = (size_t)tri_count, nb = boxes && b->have_closed ? b->box_floats : 0;
    if (n == 0)
        return true;
    if (!b->ev_upload)
        CUDA_TRY(cudaEventCreateWithFlags(&b->ev_upload, cudaEventDisableTiming));
    else
        CUDA_TRY(cudaEventSynchronize(b->ev_upload)); /* the last upload is done with h_stage */
    if (9 * n + nb > b->stage_cap) {
        if (b->h_stage)
            cudaFreeHost(b->h_stage);
        b->h_stage = NULL;
        b->stage_cap = 0;
        CUDA_TRY(cudaMallocHost((void **)&b->h_stage, (9 * n + nb) * sizeof(float)));
        b->stage_cap = 9 * n + nb;
    }
    for (size_t i = 0; i < n; i++) /* the 9 planes of cull.h, as set_scene lays them out */
        for (int k = 0; k < 9; k++)
            b->h_stage[(size_t)k * n + i] = xyz[9 * i + (size_t)k];
    CUDA_TRY(cudaMemcpyAsync(b->d_xyz, b->h_stage, 9 * n * sizeof(float), cudaMemcpyHostToDevice, b->stream));
    if (nb) {
        memcpy(b->h_stage + 9 * n, boxes, nb * sizeof(float));
        CUDA_TRY(cudaMemcpyAsync(b->d_boxes, b->h_stage + 9 * n, nb * sizeof(float), cudaMemcpyHostToDevice,
                                 b->stream));
    }
    CUDA_TRY(cudaEventRecord(b->ev_upload, b->stream));
    return true;
}

static float elapsed(const cuda_backend *b, int from, int to)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, b->ev[from], b->ev[to]) == cudaSuccess)
        return ms;
    cudaGetLastError(); /* a timing failure is not the next frame's launch error */
    return 0.0f;
}

/* The frame pipeline on img (device buffers or mapped GL objects). pixel_id: the device copy of
 * izb_shade_arrays_ids' ids, NULL without. */
static bool run_frame(cuda_backend *b, const izb_recon *f, const izb_settings *s, const cuda_image *img,
                      const uint32_t *pixel_id, izb_stats *stats)
{
    cudaStream_t st = b->stream;
    const size_t npix = (size_t)f->width * (size_t)f->height;
    /* izb.c checked the angle, or the area light's size and M: stages 3-4 in raster_soft.cu */
    const bool soft = f->light_angle > 0.0f || izb_area_on(f);
    b->have_frame = false;
    const bool aa = f->shadow_samples > 1; /* izb.c checked N; 0 and 1 keep the hard path, bit for bit */
    if (aa && !reserve_aa(b, npix))
        return false;

    CUDA_TRY(cudaEventRecord(b->ev[EV_RECON], st));
    const recon_buffers rb = {b->d_points, (uint32_t)npix, b->d_block_bbox, b->d_info};
    if (!recon_run(f, img, s->grid_w, s->grid_h, &rb, st))
        return false;

    CUDA_TRY(cudaEventRecord(b->ev[EV_CULL], st));
    /* an anti-aliased frame culls against the points' bbox grown by the largest footprint */
    if (aa && !aa_extent_run(f, img, pixel_id, b->d_xyz, (uint32_t)b->tri_count, b->d_points, (uint32_t)npix,
                             b->d_info, &b->aa, st))
        return false;
    if (b->tri_count > 0 && !soft) {
        const cull_buffers cb = {b->d_xyz,
                                 b->d_flags,
                                 b->d_offsets,
                                 b->d_tris,
                                 (uint32_t)b->tri_cap,
                                 b->d_info,
                                 &b->temp,
                                 pixel_id || b->cut_count ? b->d_tri_id : NULL};
        izb_cull_view cv = {s->cull, b->have_closed ? b->d_comp : NULL, b->d_boxes, {0.0f, 0.0f, 0.0f},
                            f->light_is_spot, 0.0f};
        if (f->light_is_spot)
            izb_light_origin(f->light, cv.light_origin);
        if (!cull_run(f->light, b->tri_count, &cv, &cb, st))
            return false;
    }
    if (aa && !aa_bbox_restore_run(b->d_info, &b->aa, st))
        return false;
    CUDA_TRY(cudaEventRecord(b->ev[EV_CULL_END], st));

    /* The frame's only host round trip. */
    CUDA_TRY(cudaMemcpyAsync(b->h_info, b->d_info, sizeof *b->h_info, cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaStreamSynchronize(st));
    const cuda_frame_info info = *b->h_info;
    const int n = (int)(info.points < npix ? info.points : npix);
    const int ntri = (int)info.tris;
    const izb_grid g = info.grid;
    const int cells = g.w * g.h;

    CUDA_TRY(cudaEventRecord(b->ev[EV_BIN], st));
    if (n > 0) {
        const bin_buffers bb = {b->d_points, b->d_binned, b->d_cell_start, b->d_cell_end, b->d_cell_count,
                                {b->d_keys[0], b->d_keys[1]}, {b->d_vals[0], b->d_vals[1]}, b->d_block_off, &b->temp};
        if (!bin_run(s->binning, &g, n, &bb, st))
            return false;
    }

    CUDA_TRY(cudaEventRecord(b->ev[EV_RASTER], st));
    const int unit = raster_unit_size(s->unit_size, soft ? b->tri_count : ntri, n, cells);
    if (soft && n > 0) {
        /* culling auto as the CPU's: an area light is a spot whose emitter reaches izb_area_reach */
        izb_cull_view cv = {s->cull, b->have_closed ? b->d_comp : NULL, b->d_boxes, {0.0f, 0.0f, 0.0f},
                            izb_area_on(f), izb_area_reach(f)};
        if (cv.light_is_spot)
            izb_light_origin(f->light, cv.light_origin);
        const soft_args sa = {b->d_xyz, b->tri_count, cv,
                              b->d_binned, n, b->d_cell_start, b->d_cell_end, g, info.bbox, b->d_tri_id, pixel_id,
                              {b->cut_count ? b->d_cut_tex : NULL, b->d_cut_uv, b->d_cut_textures, b->d_cut_pool},
                              b->sm_count};
        if (!soft_reserve(&b->soft, n, b->tri_count, cells, f->light_samples) ||
            !soft_run(f, s->kernel, unit, &sa, &b->soft, img, st))
            return false;
    } else if (n > 0 && ntri > 0) {
        const raster_args ra = {
            b->d_tris,         (uint32_t)b->tri_cap, ntri,     b->d_binned, n,
            b->d_cell_start,   b->d_cell_end,        g,        b->d_shadow, b->sm_count,
            IZB_CUDA_K1_SPLIT, b->d_tri_id,          pixel_id, b->d_xyz,    (uint32_t)b->tri_count,
            {b->cut_count ? b->d_cut_tex : NULL, b->d_cut_uv, b->d_cut_textures, b->d_cut_pool}};
        if (!(aa ? aa_raster_run(s->kernel, unit, f, &ra, img, &b->aa, st) : raster_run(s->kernel, unit, &ra, img, st)))
            return false;
    }
    CUDA_TRY(cudaEventRecord(b->ev[EV_END], st));
    CUDA_TRY(cudaStreamSynchronize(st));

    const uint32_t overflows = b->h_info->overflows; /* recon/cull are done: final */
    if (overflows)
        fprintf(stderr, "izb cuda: %u writes past a buffer's capacity were refused (a bug: capacities are exact)\n",
                overflows);
    b->have_frame = true;
    b->point_count = n;
    b->grid = g;
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->stage_ms[IZB_STAGE_RECONSTRUCT] = elapsed(b, EV_RECON, EV_CULL);
        stats->stage_ms[IZB_STAGE_CULLING] = elapsed(b, EV_CULL, EV_CULL_END);
        stats->stage_ms[IZB_STAGE_BINNING] = elapsed(b, EV_BIN, EV_RASTER);
        stats->stage_ms[IZB_STAGE_RASTER] = elapsed(b, EV_RASTER, EV_END);
        stats->total_ms = elapsed(b, EV_RECON, EV_END); /* includes the read-back round trip */
        stats->points = n;
        stats->tris_in = b->tri_count;
        stats->tris_after_cull = ntri;
        stats->grid_w = g.w;
        stats->grid_h = g.h;
        stats->unit_size = unit;
        stats->kernel = s->kernel == IZB_KERNEL2 ? IZB_KERNEL2 : IZB_KERNEL1;
        stats->binning = s->binning == IZB_BINNING_ATOMIC ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX;
        stats->bbox = info.bbox;
        stats->overflows = (int)overflows;
        if (soft && n > 0) { /* the device's counts (raster_soft.h), read back before the sync */
            const soft_counters *c = b->soft.h_counters;
            stats->tris_after_cull = (int)c->ntri;
            stats->soft_tests_global = (double)c->global;
            stats->soft_tests = (double)c->visited;
            stats->soft_pairs = (double)c->pairs;
        }
    }
    return true;
}

/* Frame size and settings checks shared by both paths (the CPU backend's limits). */
static bool check_frame(const izb_recon *f, const izb_settings *s, const char *who)
{
    if (f->width <= 0 || f->height <= 0 || (size_t)f->width * (size_t)f->height > ((size_t)1 << 30)) {
        fprintf(stderr, "izb cuda: %s: bad frame size %dx%d\n", who, f->width, f->height);
        return false;
    }
    if (s->grid_w > IZB_GRID_MAX_DIM || s->grid_h > IZB_GRID_MAX_DIM) {
        fprintf(stderr, "izb cuda: grid %dx%d: each side must be at most %d cells\n", s->grid_w, s->grid_h,
                IZB_GRID_MAX_DIM);
        return false;
    }
    return true;
}

/* the device id buffer (array path with ids, GL path with an ids texture): npix pixels */
static bool reserve_ids(cuda_backend *b, size_t npix)
{
    if (npix <= b->ids_cap) return true;
    dev_free(&b->d_pixel_id);
    b->ids_cap = 0;
    if (!DEV_ALLOC(b->d_pixel_id, npix, "primitive ids")) return false;
    b->ids_cap = npix;
    return true;
}

static bool cuda_shade_arrays(izb_backend *base, const izb_recon *f, const izb_settings *s,
                              const float *depth, const uint32_t *ids, uint8_t *mask, izb_stats *stats)
{
    cuda_backend *b = (cuda_backend *)base;
    b->have_frame = false;
    if (!depth || !mask) { /* as the CPU backend; a NULL would fail inside a CUDA copy */
        fprintf(stderr, "izb cuda: shade_arrays: NULL depth or mask\n");
        return false;
    }
    if (!check_frame(f, s, "shade_arrays"))
        return false;
    const size_t npix = (size_t)f->width * (size_t)f->height;
    if (!reserve_points(b, npix) || !reserve_io(b, npix))
        return false;
    if (ids && !reserve_ids(b, npix)) return false;
    CUDA_TRY(cudaMemcpyAsync(b->d_depth, depth, npix * sizeof(float), cudaMemcpyHostToDevice, b->stream));
    if (ids)
        CUDA_TRY(
            cudaMemcpyAsync(b->d_pixel_id, ids, npix * sizeof(uint32_t), cudaMemcpyHostToDevice, b->stream));
    const cuda_image img = {b->d_depth, 0, b->d_mask, 0, f->width, f->height};
    if (!run_frame(b, f, s, &img, ids ? b->d_pixel_id : NULL, stats)) return false;
    CUDA_TRY(cudaMemcpyAsync(mask, b->d_mask, npix, cudaMemcpyDeviceToHost, b->stream));
    CUDA_TRY(cudaStreamSynchronize(b->stream));
    return true;
}

/* shade_gl through host memory: GL read-back (depth, and the ids when ids_tex), the array path, upload. */
static bool shade_gl_readback(cuda_backend *b, const izb_recon *f, const izb_settings *s, unsigned depth_tex,
                              unsigned ids_tex, unsigned mask_tex, izb_stats *stats)
{
    const size_t npix = (size_t)f->width * (size_t)f->height;
    if (npix > b->readback_cap) {
        free(b->h_gl_depth);
        free(b->h_gl_ids);
        free(b->h_gl_mask);
        b->h_gl_depth = (float *)malloc(npix * sizeof(float));
        b->h_gl_ids = (uint32_t *)malloc(npix * sizeof(uint32_t));
        b->h_gl_mask = (uint8_t *)malloc(npix);
        b->readback_cap = b->h_gl_depth && b->h_gl_ids && b->h_gl_mask ? npix : 0;
        if (!b->readback_cap) {
            fprintf(stderr, "izb cuda: read-back path: out of host memory\n");
            return false;
        }
    }
    return interop_read_depth(depth_tex, f->width, f->height, b->h_gl_depth) &&
           (!ids_tex || interop_read_ids(ids_tex, f->width, f->height, b->h_gl_ids)) &&
           cuda_shade_arrays(&b->base, f, s, b->h_gl_depth, ids_tex ? b->h_gl_ids : NULL, b->h_gl_mask,
                             stats) &&
           interop_write_mask(mask_tex, f->width, f->height, b->h_gl_mask);
}

static bool cuda_shade_gl(izb_backend *base, const izb_recon *f, const izb_settings *s, unsigned depth_tex,
                          unsigned ids_tex, unsigned mask_tex, unsigned generation, izb_stats *stats)
{
    cuda_backend *b = (cuda_backend *)base;
    b->have_frame = false;
    if (!check_frame(f, s, "shade_gl"))
        return false;
    if (b->gl_readback) return shade_gl_readback(b, f, s, depth_tex, ids_tex, mask_tex, stats);
    const size_t npix = (size_t)f->width * (size_t)f->height;
    if (!reserve_points(b, npix) || (ids_tex && !reserve_ids(b, npix))) return false;
    if (!ids_tex) interop_release(&b->gl_ids); /* a frame without ids keeps no stale registration */
    if (!interop_bind(&b->gl_depth, depth_tex, f->width, f->height, generation, false) ||
        !interop_bind(&b->gl_mask, mask_tex, f->width, f->height, generation, true) ||
        (ids_tex && !interop_bind(&b->gl_ids, ids_tex, f->width, f->height, generation, false))) {
        if (cudaStreamSynchronize(b->stream) != cudaSuccess)
            return false; /* a sticky error: the context is gone, not just the registration */
        interop_release(&b->gl_depth);
        interop_release(&b->gl_mask);
        interop_release(&b->gl_ids);
        b->gl_readback = true;
        fprintf(stderr, "izb cuda: the GL textures cannot be registered with CUDA; shading them through "
                        "host memory (read-back) from now on\n");
        return shade_gl_readback(b, f, s, depth_tex, ids_tex, mask_tex, stats);
    }
    interop_texture *ids = ids_tex ? &b->gl_ids : NULL;
    cuda_image img;
    if (!interop_map(&b->gl_depth, &b->gl_mask, ids, b->d_pixel_id, b->stream, &img)) return false;
    bool ok = run_frame(b, f, s, &img, ids ? b->d_pixel_id : NULL, stats);
    ok = interop_unmap(&b->gl_depth, &b->gl_mask, ids, b->stream, &img) && ok;
    return ok;
}

/* Copies the last frame's binned points and cell ranges to the host on request. */
static bool cuda_get_debug(izb_backend *base, izb_debug *out)
{
    cuda_backend *b = (cuda_backend *)base;
    if (!b->have_frame)
        return false;
    memset(out, 0, sizeof *out);
    out->grid = b->grid;
    out->point_count = b->point_count;
    if (b->point_count == 0)
        return true;
    const size_t n = (size_t)b->point_count, cells = (size_t)b->grid.w * (size_t)b->grid.h;
    if (b->h_stage)
        cudaFreeHost(b->h_stage);
    if (b->ev_upload)
        cudaEventDestroy(b->ev_upload);
    free(b->h_points);
    free(b->h_cell_start);
    free(b->h_cell_end);
    b->h_points = (izb_point *)malloc(n * sizeof(izb_point));
    b->h_cell_start = (uint32_t *)malloc(cells * sizeof(uint32_t));
    b->h_cell_end = (uint32_t *)malloc(cells * sizeof(uint32_t));
    if (!b->h_points || !b->h_cell_start || !b->h_cell_end) {
        fprintf(stderr, "izb cuda: get_debug: out of host memory\n");
        return false;
    }
    CUDA_TRY(cudaMemcpy(b->h_points, b->d_binned, n * sizeof(izb_point), cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(b->h_cell_start, b->d_cell_start, cells * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(b->h_cell_end, b->d_cell_end, cells * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    out->points = b->h_points;
    out->cell_start = b->h_cell_start;
    out->cell_end = b->h_cell_end;
    return true;
}

/* host -> device on the backend's stream, finished before it returns (as set_scene's upload) */
static bool upload(void *dst, const void *src, size_t bytes, cudaStream_t st)
{
    CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaStreamSynchronize(st));
    return true;
}

/* izb.c checked and copied the cut-outs (izb_cutout_set_build): the device gets the same arrays,
 * so the kernels' alpha test (izb_alpha.h) reads what the CPU backend's reads. The old ones go
 * first: on a failure the scene is opaque for the IZB, as izb_set_cutouts documents. */
static bool cuda_set_cutouts(izb_backend *base, izb_cutout_set *s)
{
    cuda_backend *b = (cuda_backend *)base;
    b->have_frame = false;
    free_cutouts(b); /* (cudaFree waits for the kernels that may still read them) */
    if (s->cut_count == 0) {
        izb_cutout_set_free(s);
        return true;
    }
    if (s->tri_count != b->tri_count) {
        fprintf(stderr, "izb cuda: set_cutouts: %d triangles, the scene has %d\n", s->tri_count, b->tri_count);
        return false;
    }
    const size_t n = (size_t)s->tri_count, nt = (size_t)s->texture_count;
    const bool ok = DEV_ALLOC(b->d_cut_pool, s->pool_bytes, "cut-out alpha") &&
                    DEV_ALLOC(b->d_cut_textures, nt, "cut-out textures") &&
                    DEV_ALLOC(b->d_cut_uv, 6 * n, "cut-out UVs") && DEV_ALLOC(b->d_cut_tex, n, "cut-out indices") &&
                    upload(b->d_cut_pool, s->pool, s->pool_bytes, b->stream) &&
                    upload(b->d_cut_textures, s->textures, nt * sizeof *s->textures, b->stream) &&
                    upload(b->d_cut_uv, s->uv, 6 * n * sizeof *s->uv, b->stream) &&
                    upload(b->d_cut_tex, s->tex, n * sizeof *s->tex, b->stream);
    if (!ok) {
        free_cutouts(b);
        return false;
    }
    b->cut_count = s->cut_count;
    izb_cutout_set_free(s); /* taken over: the device holds all the frames need */
    return true;
}

static const izb_backend_vtbl cuda_vtbl = {
    "cuda", cuda_destroy, cuda_set_scene, cuda_shade_arrays, cuda_shade_gl, cuda_get_debug, cuda_update_scene,
    cuda_set_cutouts,
    NULL,  /* shade_faces: a point light's faces take core/izb_faces.c's one pass per face */
    true,  /* soft: light_angle > 0 (raster_soft.cu) */
    true,  /* aa: sub-samples per pixel (raster_aa.cu) */
    true,  /* area: a spot with an emitter (raster_soft.cu's AREA kernels) */
};

/* Device, stream, events and the fixed-size buffers; false with a message. */
static bool init(cuda_backend *b)
{
    /* Review fix: the device that owns the current GL context (if any, and if CUDA drives it), so
     * the interop registers on the device the buffers live on; else the current device. */
    unsigned gl_count = 0;
    int gl_devs[8];
    if (cudaGLGetDevices(&gl_count, gl_devs, 8, cudaGLDeviceListAll) == cudaSuccess && gl_count > 0)
        CUDA_TRY(cudaSetDevice(gl_devs[0]));
    cudaGetLastError(); /* no GL context, or one CUDA does not drive: not an error here */
    int dev = 0;
    cudaDeviceProp prop;
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
    if (prop.major < 8) {
        fprintf(stderr, "izb cuda: %s has compute capability %d.%d; this build needs 8.0 or newer\n", prop.name,
                prop.major, prop.minor);
        return false;
    }
    b->sm_count = prop.multiProcessorCount;
    CUDA_TRY(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
    for (int i = 0; i < EV_COUNT; i++)
        CUDA_TRY(cudaEventCreate(&b->ev[i]));
    CUDA_TRY(cudaMallocHost((void **)&b->h_info, sizeof *b->h_info));
    return DEV_ALLOC(b->d_info, 1, "frame info") && DEV_ALLOC(b->d_cell_start, CELLS_MAX, "cell starts") &&
           DEV_ALLOC(b->d_cell_end, CELLS_MAX, "cell ends") && DEV_ALLOC(b->d_cell_count, CELLS_MAX, "cell counts") &&
           DEV_ALLOC(b->d_block_off, bin_block_off_capacity(), "binning block offsets");
}

extern "C" izb_backend *izb_cuda_create(const izb_desc *desc)
{
    /* auto without a device is the normal case on most machines: izb_create says one short line */
    const bool quiet = !desc || desc->backend != IZB_BACKEND_CUDA;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        if (!quiet)
            fprintf(stderr, "izb cuda: no CUDA device (%s)\n",
                    err != cudaSuccess ? cudaGetErrorString(err) : "none found");
        cudaGetLastError();
        return NULL;
    }
    cuda_backend *b = (cuda_backend *)calloc(1, sizeof *b);
    if (!b) {
        fprintf(stderr, "izb cuda: out of host memory\n");
        return NULL;
    }
    b->base.vt = &cuda_vtbl;
    if (!init(b)) {
        cuda_destroy(&b->base);
        return NULL;
    }
    return &b->base;
}

extern "C" const izb_backend_entry izb_cuda_backend_entry = {
    IZB_BACKEND_CUDA, // kind
    true,             // needs_device
    izb_cuda_create,  // create
};
