/* test_cuda_recon.c — stage 1 on the GPU (reconstruction + bbox reduction + grid) against
 * izb_ref_reconstruct on the same depth images: the same point set bit for bit (the GPU's block
 * order differs, so both are sorted by pixel), the same mask, the same bbox (min/max are exact),
 * and the grid the device derived equals izb_grid_make on the CPU's bbox and count. Depth images:
 * rasterised scenes (sun and spot light, the spot leaves some pixels unlit), random depths with
 * sky, NaN, Inf and negative values, all sky; sizes 1x1 up to 1023x513, most not multiples of the
 * 1024-pixel block. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_fixture.h"
#include "izb_cuda_stages.h"
#include "izb_ref.h"
#include "test.h"

static const int sizes[][2] = {{1, 1}, {7, 3}, {256, 1}, {1, 300}, {33, 31}, {255, 257}, {640, 480}, {1023, 513}};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* requested grids: adaptive, tiny, odd, the maximum */
static const int grids[][2] = {{0, 0}, {1, 1}, {7, 13}, {IZB_GRID_MAX_DIM, IZB_GRID_MAX_DIM}};
#define NGRIDS ((int)(sizeof grids / sizeof grids[0]))

static void compare(const char *what, const izb_recon *f, const float *depth, int req_w, int req_h)
{
    const size_t npix = (size_t)f->width * (size_t)f->height;
    izb_point *cpu = xmalloc(npix * sizeof *cpu), *gpu = xmalloc(npix * sizeof *gpu);
    uint8_t *cmask = xmalloc(npix), *gmask = xmalloc(npix);
    izb_bbox cb, gb;
    izb_grid gg;
    int gn = -1;
    const int cn = izb_ref_reconstruct(f, depth, cpu, cmask, &cb);
    const bool ok = izb_cuda_stage_reconstruct(f, depth, req_w, req_h, gpu, gmask, &gn, &gb, &gg);
    CHECK(ok, "%s: GPU reconstruction failed", what);
    if (ok) {
        CHECK(gn == cn, "%s: %d points on the GPU, %d on the CPU", what, gn, cn);
        qsort(gpu, (size_t)(gn > 0 ? gn : 0), sizeof *gpu, point_by_pixel);
        int bad = 0;
        for (int i = 0; i < cn && i < gn; i++)
            bad += !point_eq(&cpu[i], &gpu[i]);
        CHECK(bad == 0, "%s: %d of %d points differ", what, bad, cn);
        size_t mbad = 0;
        for (size_t i = 0; i < npix; i++)
            mbad += cmask[i] != gmask[i];
        CHECK(mbad == 0, "%s: %zu mask pixels differ", what, mbad);
        if (cn > 0) {
            CHECK(bbox_eq(&cb, &gb), "%s: bbox GPU (%g %g %g %g) CPU (%g %g %g %g)", what, gb.min_x, gb.min_y,
                  gb.max_x, gb.max_y, cb.min_x, cb.min_y, cb.max_x, cb.max_y);
            const izb_grid cg = izb_grid_make(cb, cn, req_w, req_h);
            CHECK(grid_eq(&cg, &gg), "%s: grid GPU %dx%d (%g %g %g %g) CPU %dx%d (%g %g %g %g)", what, gg.w, gg.h,
                  gg.min_x, gg.min_y, gg.inv_cell_w, gg.inv_cell_h, cg.w, cg.h, cg.min_x, cg.min_y, cg.inv_cell_w,
                  cg.inv_cell_h);
        } else {
            CHECK(gb.min_x > gb.max_x && gb.min_y > gb.max_y, "%s: no points but a non-empty bbox", what);
            CHECK(gg.w == 0 && gg.h == 0, "%s: no points but a %dx%d grid", what, gg.w, gg.h);
        }
    }
    free(cpu);
    free(gpu);
    free(cmask);
    free(gmask);
}

/* random depths: 20% sky, a few NaN / +-Inf / negative, some 3e38 (the largest non-sky depth: its
 * points overflow to Inf or NaN), the rest in (0.1, 50) */
static float *random_depth(int w, int h)
{
    const size_t npix = (size_t)w * (size_t)h;
    float *d = xmalloc(npix * sizeof *d);
    for (size_t i = 0; i < npix; i++) {
        const double r = frand(0, 1);
        d[i] = r < 0.2 ? 0.0f : r < 0.21 ? NAN : r < 0.22 ? INFINITY : r < 0.23 ? -INFINITY : r < 0.24 ? -1.0f
             : r < 0.245 ? 3.0e38f : (float)frand(0.1, 50.0);
    }
    return d;
}

int main(void)
{
    fixture_require_device("cuda_recon");
    fixture fx[2];
    fixture_synthetic(&fx[0]);
    const int nfx = fixture_builtin(&fx[1], "default", 0) ? 2 : 1;
    CHECK(nfx == 2, "builtin:default unavailable: testing the synthetic scene only");

    char what[512];
    for (int s = 0; s < NSIZES; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        for (int k = 0; k < nfx; k++)
            for (int spot = 0; spot < 2; spot++) {
                const float yaw = 20.0f * (float)(s % 3);
                float *d = fixture_depth(&fx[k], yaw, w, h);
                const izb_recon f = fixture_frame(&fx[k], spot, yaw, w, h);
                for (int g = 0; g < NGRIDS; g++) {
                    snprintf(what, sizeof what, "%s %dx%d %s grid %dx%d", fx[k].name, w, h, spot ? "spot" : "sun",
                             grids[g][0], grids[g][1]);
                    compare(what, &f, d, grids[g][0], grids[g][1]);
                }
                free(d);
            }
        float *d = random_depth(w, h);
        const izb_recon f = fixture_frame(&fx[0], s & 1, 0.0f, w, h);
        snprintf(what, sizeof what, "random depth %dx%d", w, h);
        compare(what, &f, d, 0, 0);
        memset(d, 0, (size_t)w * (size_t)h * sizeof *d);
        snprintf(what, sizeof what, "all sky %dx%d", w, h);
        compare(what, &f, d, 0, 0);
        free(d);
    }
    for (int k = 0; k < nfx; k++)
        fixture_free(&fx[k]);
    return test_done();
}
