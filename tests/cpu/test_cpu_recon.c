/* test_cpu_recon.c — stage 1 of the CPU backend (cpu/recon.c, the per-instruction-set copies of
 * kernels_recon.h): reconstruction + bbox reduction against a plain serial loop of izb_reconstruct
 * (core/izb_math.h) on the same depth image, at 1, 2, 3 and 7 threads and for every copy this CPU
 * runs (base, AVX2, AVX-512; the others must refuse). The mirror of tests/cuda/test_cuda_recon.c,
 * the same contract: the points bit for bit in pixel order (here; the GPU's come in block order;
 * izb_cpu_reconstruct_tiles's in screen tiles, against the plain loop run tile by tile),
 * the mask (0 unlit, 255 the rest), the bbox (exact min/max; empty when there are no points), and
 * the grid the next stage derives from bbox and count (izb_grid_make over the plain loop's bbox
 * and count; every point inside it). Depths: sky (0), NaN, +-Inf, negative, 3e38 (overflows to
 * Inf or NaN points), rows of sky and of geometry, all sky; sizes 1x1 to 333x211; a directional
 * and a spot light (whose cone leaves pixels unlit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb_cpu_stages.h"
#include "test.h"
#include "view.h"

#define TEST_RNG_SEED 0x2545F4914F6CDD1Dull
#include "test_rng.h"

static const int thread_counts[] = {1, 2, 3, 7};
#define NTHREADS ((int)(sizeof thread_counts / sizeof thread_counts[0]))

/* requested grids: adaptive, tiny, odd, the maximum (test_cuda_recon.c's) */
static const int grids[][2] = {{0, 0}, {1, 1}, {7, 13}, {IZB_GRID_MAX_DIM, IZB_GRID_MAX_DIM}};
#define NGRIDS ((int)(sizeof grids / sizeof grids[0]))

/* The grid of the next stage over the stage's bbox gb and count n equals the one over the plain
 * loop's (want, wb), and every point lies in it: its unclamped cell in [0, w] x [0, h] (w, h: on
 * the far edge). */
static void check_grid(const char *what, const izb_point *want, int n, izb_bbox wb, izb_bbox gb)
{
    for (int r = 0; r < NGRIDS && n > 0; r++) {
        const izb_grid g = izb_grid_make(gb, n, grids[r][0], grids[r][1]),
                       w = izb_grid_make(wb, n, grids[r][0], grids[r][1]);
        CHECK(memcmp(&g, &w, sizeof g) == 0 && g.w >= 1 && g.h >= 1 && g.w <= IZB_GRID_MAX_DIM &&
                  g.h <= IZB_GRID_MAX_DIM && (grids[r][0] == 0 || (g.w == grids[r][0] && g.h == grids[r][1])),
              "%s: grid %dx%d asked, %dx%d (%g %g %g %g) made, want %dx%d", what, grids[r][0], grids[r][1],
              g.w, g.h, g.min_x, g.min_y, g.inv_cell_w, g.inv_cell_h, w.w, w.h);
        int outside = 0;
        for (int i = 0; i < n; i++) {
            const float cx = floorf((want[i].x - g.min_x) * g.inv_cell_w),
                        cy = floorf((want[i].y - g.min_y) * g.inv_cell_h);
            outside += !(cx >= 0.0f && cx <= (float)g.w && cy >= 0.0f && cy <= (float)g.h) &&
                       isfinite(want[i].x) && isfinite(want[i].y);
        }
        CHECK(outside == 0, "%s: grid %dx%d: %d finite points outside it", what, g.w, g.h, outside);
    }
}

static void test_reconstruct(void)
{
    const float bmin[3] = {-5, -1, -5}, bmax[3] = {5, 4, 5};
    camera cam = {.pos = {0.5f, 2.0f, 9.0f}, .yaw = 10.0f, .pitch = -15.0f, .fovy = 55.0f};
    camera_fit_clip(&cam, bmin, bmax);
    const int sizes[][2] = {{1, 1}, {7, 3}, {160, 97}, {333, 211}};
    const light lights[2] = {
        {.type = LIGHT_DIRECTIONAL, .dir = {0.4f, -1.0f, -0.3f}},
        {.type = LIGHT_SPOT, .pos = {2, 5, 2}, .dir = {-0.3f, -1, -0.3f}, .cone_deg = 70}};
    char what[160];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const int W = sizes[si][0], H = sizes[si][1], N = W * H;
        float *depth = test_xcalloc((size_t)N, sizeof *depth);
        /* 10% sky, a few NaN / +-Inf / negative, some 3e38 (the largest non-sky depth: its points
         * overflow to Inf or NaN), the rest in (0.5, 15) */
        for (int i = 0; i < N; i++) {
            double r = rnd();
            depth[i] = r < 0.1     ? 0.0f
                       : r < 0.12  ? NAN
                       : r < 0.13  ? INFINITY
                       : r < 0.14  ? -INFINITY
                       : r < 0.15  ? -1.0f
                       : r < 0.155 ? 3.0e38f
                                   : (float)rnd_in(0.5, 15);
        }
        /* and runs of sky and of geometry as long as a row, as a real frame has them (whole blocks
         * of samples or of sky for the vectorised copies) */
        for (int i = 0; i < N; i++)
            if (i / 40 % 6 == 1 || i / 40 % 6 == 4)
                depth[i] = i / 40 % 6 == 1 ? 0.0f : 8.0f + (float)(i % 17) * 0.25f;
        if (N == 1) depth[0] = 5.0f;
        izb_point *want = test_xcalloc((size_t)N, sizeof *want), *got = test_xcalloc((size_t)N, sizeof *got),
                  *want_tiles = test_xcalloc((size_t)N, sizeof *want_tiles);
        uint8_t *want_mask = test_xcalloc((size_t)N, 1), *got_mask = test_xcalloc((size_t)N, 1);
        for (int li = 0; li < 2; li++) {
            izb_recon f = izb_frame_make(&cam, &lights[li], bmin, bmax, W, H);
            int n = 0, unlit = 0;
            for (int py = 0; py < H; py++)
                for (int px = 0; px < W; px++) {
                    izb_sample_kind k = izb_reconstruct(&f, px, py, depth[py * W + px], &want[n]);
                    want_mask[py * W + px] = k == IZB_UNLIT ? 0 : 255;
                    n += k == IZB_SAMPLE;
                    unlit += k == IZB_UNLIT;
                }
            izb_bbox wb = bbox_of(want, n);
            /* the same points in the backend's screen tiles (izb_cpu_reconstruct_tiles): bands of
             * IZB_CPU_TILE_H rows, their tiles left to right, each tile row by row */
            int tn = 0;
            for (int y0 = 0; y0 < H; y0 += IZB_CPU_TILE_H)
                for (int x0 = 0; x0 < W; x0 += IZB_CPU_TILE_W)
                    for (int py = y0; py < y0 + IZB_CPU_TILE_H && py < H; py++)
                        for (int px = x0; px < x0 + IZB_CPU_TILE_W && px < W; px++)
                            tn += izb_reconstruct(&f, px, py, depth[py * W + px], &want_tiles[tn]) ==
                                  IZB_SAMPLE;
            CHECK(tn == n, "%dx%d light %d: %d points in tile order, %d in pixel order", W, H, li, tn, n);
            for (int ti = 0; ti < NTHREADS; ti++) {
                memset(got_mask, 0x55, (size_t)N);
                izb_bbox gb;
                int gn = izb_cpu_reconstruct(&f, depth, got, got_mask, &gb, thread_counts[ti]);
                CHECK(gn == n, "%dx%d light %d threads %d: %d points, want %d", W, H, li, thread_counts[ti],
                      gn, n);
                CHECK(gn == n && memcmp(got, want, (size_t)n * sizeof *got) == 0,
                      "%dx%d: points in pixel order, equal to izb_reconstruct's", W, H);
                CHECK(memcmp(got_mask, want_mask, (size_t)N) == 0, "%dx%d: mask init (0 unlit, 255 else)", W,
                      H);
                CHECK(memcmp(&gb, &wb, sizeof gb) == 0, "%dx%d: bbox [%g %g]x[%g %g], want [%g %g]x[%g %g]",
                      W, H, gb.min_x, gb.max_x, gb.min_y, gb.max_y, wb.min_x, wb.max_x, wb.min_y, wb.max_y);
                if (n == 0) CHECK(gb.min_x > gb.max_x && gb.min_y > gb.max_y, "empty bbox when no points");
                snprintf(what, sizeof what, "%dx%d light %d threads %d", W, H, li, thread_counts[ti]);
                if (ti == 0 || ti == NTHREADS - 1) check_grid(what, want, n, wb, gb);
                /* every instruction set's copy, its runs read in place, in pixel order and in tiles */
                for (int isa = IZB_CPU_ISA_BASE; isa < IZB_CPU_ISA_COUNT; isa++)
                    for (int tiles = 0; tiles < 2; tiles++) {
                        izb_cpu_runs runs;
                        memset(got_mask, 0x55, (size_t)N);
                        memset(got, 0xff, (size_t)N * sizeof *got);
                        gn = (tiles ? izb_cpu_reconstruct_tiles : izb_cpu_reconstruct_runs)(
                            &f, depth, got, got_mask, &gb, &runs, thread_counts[ti], (izb_cpu_isa)isa);
                        const izb_point *order = tiles ? want_tiles : want;
                        if (!izb_cpu_isa_available((izb_cpu_isa)isa)) {
                            CHECK(gn == -1, "%s: refused where it does not run",
                                  izb_cpu_isa_name((izb_cpu_isa)isa));
                            continue;
                        }
                        int64_t at = 0;
                        bool same = gn == n && runs.count >= 1 && runs.count <= IZB_CPU_MAX_THREADS &&
                                    runs.count <= H;
                        for (int r = 0; r < runs.count && same; r++) {
                            same = runs.len[r] >= 0 && at + runs.len[r] <= n &&
                                   memcmp(runs.at[r], order + at, (size_t)runs.len[r] * sizeof *got) == 0;
                            at += runs.len[r];
                        }
                        CHECK(same && at == n,
                              "%dx%d light %d %s threads %d: runs hold izb_reconstruct's points in %s order",
                              W, H, li, izb_cpu_isa_name((izb_cpu_isa)isa), thread_counts[ti],
                              tiles ? "tile" : "pixel");
                        CHECK(memcmp(got_mask, want_mask, (size_t)N) == 0 && memcmp(&gb, &wb, sizeof gb) == 0,
                              "%dx%d light %d %s threads %d %s: mask and bbox", W, H, li,
                              izb_cpu_isa_name((izb_cpu_isa)isa), thread_counts[ti],
                              tiles ? "tiles" : "rows");
                    }
            }
            if (N > 1000) /* the spot's round cone keeps about a quarter of this view */
                CHECK(n > (li == 0 ? N / 4 : N / 8) && (li == 0 || unlit > 0),
                      "%dx%d light %d: %d points, %d unlit", W, H, li, n, unlit);
        }
        /* all sky */
        for (int i = 0; i < N; i++)
            depth[i] = 0.0f;
        izb_recon f = izb_frame_make(&cam, &lights[1], bmin, bmax, W, H);
        izb_bbox gb;
        int gn = izb_ref_reconstruct(&f, depth, got, got_mask, &gb);
        int all255 = 1;
        for (int i = 0; i < N; i++)
            all255 &= got_mask[i] == 255;
        CHECK(gn == 0 && all255 && gb.min_x > gb.max_x, "all sky: no points, mask 255, empty bbox");
        free(depth), free(want), free(got), free(want_mask), free(got_mask), free(want_tiles);
    }
}

/* The blocks' copy without the divisions by w (kernels_recon.h, izb_reconstruct_w) is taken only
 * where every lane's w is exactly 1: under a directional light whose w row is (0, 0, 0, 1), a wide
 * view (fovy 150: the view ray's x and y reach 3.7 times the depth) turns a 3e38 depth at the
 * frame's edges into an infinite view coordinate, w = 0 * Inf = NaN, and such a block must be
 * computed again with the divisions. Random depths, every copy, against izb_reconstruct. */
static void test_unit_w(void)
{
    const float bmin[3] = {-5, -1, -5}, bmax[3] = {5, 4, 5};
    camera cam = {.pos = {0.5f, 2.0f, 9.0f}, .yaw = 10.0f, .pitch = -15.0f, .fovy = 150.0f};
    camera_fit_clip(&cam, bmin, bmax);
    const light sun = {.type = LIGHT_DIRECTIONAL, .dir = {0.4f, -1.0f, -0.3f}};
    const int W = 96, H = 40, N = W * H;
    const izb_recon f = izb_frame_make(&cam, &sun, bmin, bmax, W, H);
    const float *m = f.cam_to_light;
    CHECK(m[3] == 0.0f && m[7] == 0.0f && m[11] == 0.0f && m[15] == 1.0f, "the sun's w row is (0, 0, 0, 1)");
    float *depth = test_xcalloc((size_t)N, sizeof *depth);
    izb_point *want = test_xcalloc((size_t)N, sizeof *want), *got = test_xcalloc((size_t)N, sizeof *got);
    uint8_t *want_mask = test_xcalloc((size_t)N, 1), *got_mask = test_xcalloc((size_t)N, 1);
    int n = 0, off = 0;
    for (int i = 0; i < N; i++) /* 1 in 20 at 3e38, a few sky, the rest in (0.5, 15) */
        depth[i] = rnd() < 0.05 ? 3.0e38f : rnd() < 0.02 ? 0.0f : (float)rnd_in(0.5, 15);
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            const float d = depth[py * W + px];
            const izb_sample_kind k = izb_reconstruct(&f, px, py, d, &want[n]);
            want_mask[py * W + px] = k == IZB_UNLIT ? 0 : 255;
            n += k == IZB_SAMPLE;
            off += !izb_depth_is_sky(d) && !(izb_clip_w(&f, px, py, d) == 1.0f);
        }
    CHECK(off > 10 && n > N / 2, "%d points, %d of them with w not 1 (the case under test)", n, off);
    const izb_bbox wb = bbox_of(want, n);
    for (int isa = IZB_CPU_ISA_BASE; isa < IZB_CPU_ISA_COUNT; isa++) {
        if (!izb_cpu_isa_available((izb_cpu_isa)isa)) continue;
        izb_cpu_runs runs;
        izb_bbox gb;
        memset(got_mask, 0x55, (size_t)N);
        const int gn = izb_cpu_reconstruct_runs(&f, depth, got, got_mask, &gb, &runs, 1, (izb_cpu_isa)isa);
        int64_t at = 0; /* the runs (chunks of rows) hold the points in pixel order */
        bool same = gn == n;
        for (int r = 0; r < runs.count && same; r++) {
            same = at + runs.len[r] <= n &&
                   memcmp(runs.at[r], want + at, (size_t)runs.len[r] * sizeof *want) == 0;
            at += runs.len[r];
        }
        same &= at == n;
        CHECK(same && memcmp(got_mask, want_mask, (size_t)N) == 0 && memcmp(&gb, &wb, sizeof gb) == 0,
              "%s: a wide view's overflowing points, mask and bbox equal izb_reconstruct's",
              izb_cpu_isa_name((izb_cpu_isa)isa));
    }
    free(depth), free(want), free(got), free(want_mask), free(got_mask);
}

int main(void)
{
    test_reconstruct();
    test_unit_w();
    return test_done();
}
