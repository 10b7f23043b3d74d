/* test_cuda_raster.c — stage 4 on the GPU (kernel1 and kernel2 at every unit size, plus the
 * resolve into the mask) against izb_ref_raster on the same binned points, cell ranges and set-up
 * triangles. Allowed mismatches: 0. Both sides evaluate izb_tri_occludes (core/izb_math.h) on the
 * same floats with the same rounding (explicit fmaf, no contraction: -ffp-contract=off and
 * nvcc -fmad=false), the mask is an OR over (point, triangle) pairs so the order of evaluation
 * cannot matter, and a triangle's cell range always contains the cells of the points inside it.
 * Also runs the GPU's own binning (radix and atomic) ahead of the GPU rasteriser. */
#include <stdlib.h>
#include <string.h>

#include "cuda_tune.h"
#include "gpu_fixture.h"
#include "izb_cuda_stages.h"
#include "izb_ref.h"
#include "test.h"

static const int units[] = {32, 64, 128, 256, 0};
#define NUNITS ((int)(sizeof units / sizeof units[0]))

static size_t mask_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += a[i] != b[i];
    return d;
}

typedef struct frame_data {
    int w, h, n, nt;
    izb_grid g;
    izb_point *points, *binned;
    uint32_t *cs, *ce;
    izb_tri *tris;
    uint8_t *mask0, *ref; /* after reconstruction; after the reference rasteriser */
} frame_data;

static void frame_free(frame_data *d)
{
    free(d->points);
    free(d->binned);
    free(d->cs);
    free(d->ce);
    free(d->tris);
    free(d->mask0);
    free(d->ref);
}

/* The CPU reference chain on one frame, limited to the first max_tris triangles. */
static void reference(const fixture *fx, bool spot, int w, int h, int req_w, int req_h, int max_tris, frame_data *d)
{
    memset(d, 0, sizeof *d);
    const size_t npix = (size_t)w * (size_t)h;
    d->w = w;
    d->h = h;
    float *depth = fixture_depth(fx, 10.0f, w, h);
    const izb_recon f = fixture_frame(fx, spot, 10.0f, w, h);
    d->points = xmalloc(npix * sizeof *d->points);
    d->binned = xmalloc(npix * sizeof *d->binned);
    d->mask0 = xmalloc(npix);
    d->ref = xmalloc(npix);
    izb_bbox b;
    d->n = izb_ref_reconstruct(&f, depth, d->points, d->mask0, &b);
    free(depth);
    if (d->n == 0)
        return;
    d->g = izb_grid_make(b, d->n, req_w, req_h);
    const size_t cells = (size_t)d->g.w * (size_t)d->g.h;
    d->cs = xmalloc(cells * sizeof *d->cs);
    d->ce = xmalloc(cells * sizeof *d->ce);
    izb_ref_bin(d->points, d->n, &d->g, d->binned, d->cs, d->ce);
    const int nt = fx->tri_count < max_tris ? fx->tri_count : max_tris;
    d->tris = xmalloc((size_t)nt * sizeof *d->tris);
    d->nt = izb_ref_cull(fx->xyz, nt, &f, &d->g, &b, true, d->tris);
    memcpy(d->ref, d->mask0, npix);
    izb_ref_raster(d->tris, d->nt, d->binned, d->cs, d->ce, &d->g, IZB_KERNEL1, d->ref);
}

/* sweep: every unit size and kernel1's split forms; without it the backend's own choice only (unit 0,
 * its split), which is what a larger frame adds: more points per cell and more blocks, not new
 * code paths (those the sweep covers at the small size, where the emulator is quick). */
static void run_case(const fixture *fx, bool spot, int w, int h, int req_w, int req_h, int max_tris, bool sweep)
{
    frame_data d;
    reference(fx, spot, w, h, req_w, req_h, max_tris, &d);
    const size_t npix = (size_t)w * (size_t)h;
    char what[512];
    snprintf(what, sizeof what, "%s %s %dx%d grid %dx%d, %d points, %d triangles", fx->name, spot ? "spot" : "sun",
             w, h, d.g.w, d.g.h, d.n, d.nt);
    if (d.n == 0 || d.nt == 0) {
        CHECK(max_tris < 1000, "%s: nothing to rasterise", what); /* a few triangles may all be culled */
        frame_free(&d);
        return;
    }
    if (max_tris > 1000) { /* a real scene: the test means something only with shadow and light */
        const size_t shadowed = mask_diff(d.mask0, d.ref, npix);
        CHECK(shadowed > 0 && shadowed < (size_t)d.n, "%s: %zu of %d points shadowed", what, shadowed, d.n);
    }
    uint8_t *m = xmalloc(npix);
    /* kernel1 in the thesis form (split 1), with the backend's splitting and with a small split
     * of 3 (uneven pieces); kernel2 ignores the split */
    const int splits[] = {1, IZB_CUDA_K1_SPLIT, 3};
    for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2; kernel++)
        for (int sp = 0; sp < (kernel == IZB_KERNEL1 ? 3 : 1); sp++)
            for (int u = 0; u < NUNITS; u++) {
                if (sp > 0 && units[u] != 32 && units[u] != 256)
                    continue; /* the split forms at the smallest and largest unit: time */
                if (!sweep && (units[u] != 0 || (kernel == IZB_KERNEL1 && splits[sp] != IZB_CUDA_K1_SPLIT)))
                    continue;
                memcpy(m, d.mask0, npix);
                const bool ok = izb_cuda_stage_raster(d.tris, d.nt, d.binned, d.n, d.cs, d.ce, &d.g,
                                                      (izb_kernel)kernel, units[u], splits[sp], m, w, h);
                CHECK(ok, "%s: kernel%d split %d unit %d failed", what, kernel, splits[sp], units[u]);
                const size_t diff = ok ? mask_diff(m, d.ref, npix) : 0;
                CHECK(diff == 0, "%s: kernel%d split %d unit %d: %zu pixels differ from the CPU", what, kernel,
                      splits[sp], units[u], diff);
            }
    /* GPU binning (atomic reorders points within cells) feeding the GPU rasteriser */
    const size_t cells = (size_t)d.g.w * (size_t)d.g.h;
    izb_point *gb = xmalloc((size_t)d.n * sizeof *gb);
    uint32_t *gs = xmalloc(cells * sizeof *gs), *ge = xmalloc(cells * sizeof *ge);
    for (int mode = IZB_BINNING_RADIX; mode <= IZB_BINNING_ATOMIC; mode++) {
        bool ok = izb_cuda_stage_bin(d.points, d.n, &d.g, (izb_binning)mode, gb, gs, ge);
        CHECK(ok, "%s: binning %d failed", what, mode);
        for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2 && ok; kernel++) {
            memcpy(m, d.mask0, npix);
            ok = izb_cuda_stage_raster(d.tris, d.nt, gb, d.n, gs, ge, &d.g, (izb_kernel)kernel, 0, IZB_CUDA_K1_SPLIT, m,
                                       w, h);
            const size_t diff = ok ? mask_diff(m, d.ref, npix) : 0;
            CHECK(ok && diff == 0, "%s: %s binning + kernel%d: %zu pixels differ", what,
                  mode == IZB_BINNING_ATOMIC ? "atomic" : "radix", kernel, diff);
        }
    }
    free(gb);
    free(gs);
    free(ge);
    free(m);
    frame_free(&d);
}

int main(void)
{
    fixture_require_device("cuda_raster");
    fixture fx[2];
    fixture_synthetic(&fx[0]);
    const int nfx = fixture_builtin(&fx[1], "default", 0) ? 2 : 1;
    CHECK(nfx == 2, "builtin:default unavailable: testing the synthetic scene only");
    /* adaptive, dense (many points per cell), one cell, the finest, thin */
    static const int grids[][2] = {{0, 0}, {8, 8}, {1, 1}, {IZB_GRID_MAX_DIM, IZB_GRID_MAX_DIM}, {37, 5}};
    /* the second, larger frame (auto unit only, see run_case) was 640x480: 2.8x this one's pixels
     * on the emulator for the same paths */
    static const int sizes[][2] = {{257, 255}, {384, 288}};
    for (int k = 0; k < nfx; k++)
        for (int spot = 0; spot < 2; spot++) {
            for (int s = 0; s < 2; s++)
                for (int g = 0; g < 5; g++) {
                    /* One cell makes every triangle meet every point: on the emulator that is most of
                     * this test's time (minutes at the larger size), and a small frame proves the same.
                     * The finest grid costs by its million cells, not by pixels (7 of a synthetic
                     * frame's 22 CPU seconds at the small size, 4 at the larger): the small frame's
                     * sweep covers it too. */
                    const bool one_cell = grids[g][0] == 1 && grids[g][1] == 1;
                    const bool finest = grids[g][0] == IZB_GRID_MAX_DIM;
                    if ((one_cell || finest) && s > 0) continue;
                    run_case(&fx[k], spot, one_cell ? 97 : sizes[s][0], one_cell ? 61 : sizes[s][1], grids[g][0],
                             grids[g][1], 1 << 30, s == 0);
                }
            /* few triangles: kernel2's tile and ballot tails */
            static const int few[] = {1, 3, 33, 257};
            for (int t = 0; t < 4; t++)
                run_case(&fx[k], spot, 199, 101, 0, 0, few[t], true);
        }
    for (int k = 0; k < nfx; k++)
        fixture_free(&fx[k]);
    return test_done();
}
