/* test_ref.c — core/izb_ref.c, the four reference stages, each against a plain serial version of
 * itself on the same input and at several thread counts (results must not depend on them):
 * reconstruction (pixel order, mask init, bbox), binning invariants (permutation, cells,
 * start/end, stability, empty cells, 1 point, degenerate bbox), culling + compaction (same
 * survivors in the same order as a serial filter), rasterisation (kernel1 and kernel2 equal to a
 * brute force over all points x all triangles). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb_cpu_stages.h"
#include "test.h"
#include "view.h"

static const int thread_counts[] = {1, 2, 3, 7};
#define NTHREADS ((int)(sizeof thread_counts / sizeof thread_counts[0]))

#define TEST_RNG_SEED 0x2545F4914F6CDD1Dull
#include "test_rng.h"
/* random points: n in [x0, x1] x [y0, y1], pixel ids a random permutation of 0..n-1; some exact
 * duplicates and points on cell boundaries */
static void random_points(izb_point *p, int n, float x0, float y0, float x1, float y1);

static void random_points(izb_point *p, int n, float x0, float y0, float x1, float y1)
{
    for (int i = 0; i < n; i++) {
        p[i].x = (float)rnd_in(x0, x1);
        p[i].y = (float)rnd_in(y0, y1);
        p[i].z = (float)rnd_in(-1, 1);
        p[i].pixel = (uint32_t)i;
        if (i > 0 && rnd() < 0.05) /* exact duplicate position */
            p[i].x = p[i - 1].x, p[i].y = p[i - 1].y;
        if (rnd() < 0.02) /* the bbox's own corners */
            p[i].x = rnd() < 0.5 ? x0 : x1;
    }
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() * (i + 1));
        uint32_t t = p[i].pixel;
        p[i].pixel = p[j].pixel;
        p[j].pixel = t;
    }
}


/* ---- reconstruction ------------------------------------------------------------------------- */

static void test_reconstruct(void)
{
    const float bmin[3] = {-5, -1, -5}, bmax[3] = {5, 4, 5};
    camera cam = {.pos = {0.5f, 2.0f, 9.0f}, .yaw = 10.0f, .pitch = -15.0f, .fovy = 55.0f};
    camera_fit_clip(&cam, bmin, bmax);
    const int sizes[][2] = {{1, 1}, {7, 3}, {160, 97}, {333, 211}};
    const light lights[2] = {{.type = LIGHT_DIRECTIONAL, .dir = {0.4f, -1.0f, -0.3f}},
                             {.type = LIGHT_SPOT, .pos = {2, 5, 2}, .dir = {-0.3f, -1, -0.3f}, .cone_deg = 70}};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const int W = sizes[si][0], H = sizes[si][1], N = W * H;
        float *depth = test_xcalloc((size_t)N, sizeof *depth);
        for (int i = 0; i < N; i++) {
            double r = rnd();
            depth[i] = r < 0.1 ? 0.0f : r < 0.12 ? NAN : r < 0.13 ? INFINITY : (float)rnd_in(0.5, 15);
        }
        /* and runs of sky and of geometry as long as a row, as a real frame has them (whole blocks
         * of samples or of sky for the vectorised copies) */
        for (int i = 0; i < N; i++)
            if (i / 40 % 6 == 1 || i / 40 % 6 == 4)
                depth[i] = i / 40 % 6 == 1 ? 0.0f : 8.0f + (float)(i % 17) * 0.25f;
        if (N == 1)
            depth[0] = 5.0f;
        izb_point *want = test_xcalloc((size_t)N, sizeof *want), *got = test_xcalloc((size_t)N, sizeof *got);
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
            for (int ti = 0; ti < NTHREADS; ti++) {
                memset(got_mask, 0x55, (size_t)N);
                izb_bbox gb;
                int gn = izb_cpu_reconstruct(&f, depth, got, got_mask, &gb, thread_counts[ti]);
                CHECK(gn == n, "%dx%d light %d threads %d: %d points, want %d", W, H, li, thread_counts[ti], gn, n);
                CHECK(gn == n && memcmp(got, want, (size_t)n * sizeof *got) == 0,
                      "%dx%d: points in pixel order, equal to izb_reconstruct's", W, H);
                CHECK(memcmp(got_mask, want_mask, (size_t)N) == 0, "%dx%d: mask init (0 unlit, 255 else)", W, H);
                CHECK(memcmp(&gb, &wb, sizeof gb) == 0, "%dx%d: bbox [%g %g]x[%g %g], want [%g %g]x[%g %g]", W, H,
                      gb.min_x, gb.max_x, gb.min_y, gb.max_y, wb.min_x, wb.max_x, wb.min_y, wb.max_y);
                if (n == 0)
                    CHECK(gb.min_x > gb.max_x && gb.min_y > gb.max_y, "empty bbox when no points");
                /* every instruction set's copy, its runs read in place */
                for (int isa = IZB_CPU_ISA_BASE; isa < IZB_CPU_ISA_COUNT; isa++) {
                    izb_cpu_runs runs;
                    memset(got_mask, 0x55, (size_t)N);
                    memset(got, 0xff, (size_t)N * sizeof *got);
                    gn = izb_cpu_reconstruct_runs(&f, depth, got, got_mask, &gb, &runs, thread_counts[ti],
                                                  (izb_cpu_isa)isa);
                    if (!izb_cpu_isa_available((izb_cpu_isa)isa)) {
                        CHECK(gn == -1, "%s: refused where it does not run",
                              izb_cpu_isa_name((izb_cpu_isa)isa));
                        continue;
                    }
                    int64_t at = 0;
                    bool same =
                        gn == n && runs.count >= 1 && runs.count <= IZB_CPU_MAX_THREADS && runs.count <= H;
                    for (int r = 0; r < runs.count && same; r++) {
                        same = runs.len[r] >= 0 && at + runs.len[r] <= n &&
                               memcmp(runs.at[r], want + at, (size_t)runs.len[r] * sizeof *got) == 0;
                        at += runs.len[r];
                    }
                    CHECK(same && at == n,
                          "%dx%d light %d %s threads %d: runs hold izb_reconstruct's points in order", W, H,
                          li, izb_cpu_isa_name((izb_cpu_isa)isa), thread_counts[ti]);
                    CHECK(memcmp(got_mask, want_mask, (size_t)N) == 0 && memcmp(&gb, &wb, sizeof gb) == 0,
                          "%dx%d light %d %s threads %d: mask and bbox", W, H, li,
                          izb_cpu_isa_name((izb_cpu_isa)isa), thread_counts[ti]);
                }
            }
            if (N > 1000)
                CHECK(n > N / 4 && (li == 0 || unlit > 0), "%dx%d light %d: %d points, %d unlit", W, H, li, n, unlit);
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
        free(depth), free(want), free(got), free(want_mask), free(got_mask);
    }
}

/* ---- binning -------------------------------------------------------------------------------- */

/* Check the invariants of a binned result; returns false (after reporting) on the first failure. */
static bool check_binned(const char *what, const izb_point *in, int n, const izb_grid *g, const izb_point *out,
                         const uint32_t *cs, const uint32_t *ce)
{
    const int cells = g->w * g->h;
    bool ok = true;
    /* start/end consistent and monotonic, covering [0, n) */
    ok &= cs[0] == 0 && ce[cells - 1] == (uint32_t)n;
    for (int c = 0; c < cells && ok; c++) {
        ok &= cs[c] <= ce[c];
        if (c + 1 < cells)
            ok &= ce[c] == cs[c + 1];
    }
    CHECK(ok, "%s: cell_start/cell_end consistent, monotonic, covering [0, %d)", what, n);
    if (!ok)
        return false;
    /* every point in its cell; stable: within a cell, input order (input position by pixel id) */
    int *pos = test_xcalloc((size_t)(n > 0 ? n : 1), sizeof *pos);
    uint8_t *seen = test_xcalloc((size_t)(n > 0 ? n : 1), 1);
    for (int i = 0; i < n; i++)
        pos[in[i].pixel] = i;
    for (int c = 0; c < cells && ok; c++) {
        for (uint32_t j = cs[c]; j < ce[c] && ok; j++) {
            ok &= izb_cell_hash(g, out[j].x, out[j].y) == (uint32_t)c;
            ok &= out[j].pixel < (uint32_t)n && !seen[out[j].pixel];
            if (!ok)
                break;
            seen[out[j].pixel] = 1;
            const izb_point *src = &in[pos[out[j].pixel]];
            ok &= memcmp(src, &out[j], sizeof *src) == 0;
            if (j > cs[c])
                ok &= pos[out[j].pixel] > pos[out[j - 1].pixel];
        }
    }
    CHECK(ok, "%s: a permutation of the input, every point in its cell, stable within cells", what);
    free(pos), free(seen);
    return ok;
}

static void test_binning(void)
{
    const int sizes[] = {1, 2, 7, 1000, 100003};
    const int grids[][2] = {{0, 0}, {1, 1}, {3, 5}, {1024, 1}, {64, 64}};
    char what[128];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const int n = sizes[si];
        izb_point *in = test_xcalloc((size_t)n, sizeof *in), *out = test_xcalloc((size_t)n, sizeof *out),
                  *out2 = test_xcalloc((size_t)n, sizeof *out2);
        for (int variant = 0; variant < 2; variant++) {
            if (variant == 0)
                random_points(in, n, -0.7f, -1.0f, 0.9f, 0.3f);
            else /* degenerate bbox: all points at one position */
                for (int i = 0; i < n; i++)
                    in[i] = (izb_point){0.25f, -0.5f, (float)i, (uint32_t)(n - 1 - i)};
            izb_bbox b = bbox_of(in, n);
            for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++) {
                izb_grid g = izb_grid_make(b, n, grids[gi][0], grids[gi][1]);
                const size_t cells = (size_t)g.w * g.h;
                uint32_t *cs = test_xcalloc(cells, 4), *ce = test_xcalloc(cells, 4),
                         *cs2 = test_xcalloc(cells, 4), *ce2 = test_xcalloc(cells, 4);
                snprintf(what, sizeof what, "n %d %s grid %dx%d", n, variant ? "one position" : "random", g.w, g.h);
                izb_ref_bin(in, n, &g, out, cs, ce);
                if (check_binned(what, in, n, &g, out, cs, ce)) {
                    int empty = 0;
                    for (size_t c = 0; c < cells; c++)
                        empty += cs[c] == ce[c];
                    if (variant == 1 || n < (int)cells)
                        CHECK(empty > 0 || cells == 1, "%s: has empty cells", what);
                    for (int ti = 0; ti < NTHREADS; ti++) {
                        uint32_t *scratch = test_xcalloc(izb_cpu_bin_scratch(n, &g, thread_counts[ti]), 4);
                        izb_cpu_bin(in, n, &g, out2, cs2, ce2, thread_counts[ti], scratch);
                        CHECK(memcmp(out, out2, (size_t)n * sizeof *out) == 0 && memcmp(cs, cs2, cells * 4) == 0 &&
                                  memcmp(ce, ce2, cells * 4) == 0,
                              "%s: same result on %d threads", what, thread_counts[ti]);
                        free(scratch);
                    }
                }
                free(cs), free(ce), free(cs2), free(ce2);
            }
        }
        free(in), free(out), free(out2);
    }
    /* n = 0: every cell empty */
    izb_grid g = izb_grid_make((izb_bbox){0, 0, 1, 1}, 0, 4, 4);
    uint32_t cs[16], ce[16];
    memset(cs, 0xff, sizeof cs), memset(ce, 0xff, sizeof ce);
    izb_ref_bin(NULL, 0, &g, NULL, cs, ce);
    int zero = 1;
    for (int c = 0; c < 16; c++)
        zero &= cs[c] == 0 && ce[c] == 0;
    CHECK(zero, "no points: all cells start == end == 0");
}

/* ---- culling + compaction ------------------------------------------------------------------- */

static void test_cull(void)
{
    const float bmin[3] = {-5, -1, -5}, bmax[3] = {5, 4, 5};
    const light lights[2] = {{.type = LIGHT_DIRECTIONAL, .dir = {0.4f, -1.0f, -0.3f}},
                             {.type = LIGHT_SPOT, .pos = {0, 3, 0}, .dir = {0.1f, -1, -0.1f}, .cone_deg = 100}};
    camera cam = {.pos = {0, 2, 9}, .fovy = 60};
    const int counts[] = {0, 1, 5, 20000};
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        const int n = counts[ci];
        float *xyz = test_xcalloc((size_t)n * 9, sizeof *xyz);
        for (int i = 0; i < n; i++) {
            float c[3] = {(float)rnd_in(-6, 6), (float)rnd_in(-1, 5), (float)rnd_in(-6, 6)};
            float s = (float)rnd_in(0.01, 1.5);
            for (int k = 0; k < 9; k++)
                xyz[9 * i + k] = c[k % 3] + s * (float)rnd_in(-1, 1);
            if (i % 37 == 0) /* degenerate: a repeated vertex */
                memcpy(xyz + 9 * i + 3, xyz + 9 * i, 3 * sizeof(float));
        }
        izb_tri *want = test_xcalloc((size_t)n, sizeof *want), *got = test_xcalloc((size_t)n, sizeof *got);
        for (int li = 0; li < 2; li++) {
            izb_recon f = izb_frame_make(&cam, &lights[li], bmin, bmax, 64, 64);
            const izb_bbox boxes[2] = {{-0.5f, -0.6f, 0.4f, 0.7f}, {-1, -1, 1, 1}};
            for (int bi = 0; bi < 2; bi++) {
                izb_grid g = izb_grid_make(boxes[bi], 5000, 0, 0);
                for (int cull_back = 0; cull_back < 2; cull_back++) {
                    int m = 0;
                    for (int i = 0; i < n; i++) {
                        float v[3][4];
                        for (int k = 0; k < 3; k++)
                            izb_transform(f.light, xyz + 9 * i + 3 * k, v[k]);
                        if (izb_tri_setup(v, &g, &boxes[bi], cull_back, &want[m]))
                            m++;
                    }
                    if (n == 20000)
                        /* enough survivors to compare, and some culled (box 0 is small: few survive) */
                        CHECK(m > n / 50 && m < n, "light %d box %d cull %d: %d of %d survive", li, bi, cull_back, m, n);
                    for (int ti = 0; ti < NTHREADS; ti++) {
                        memset(got, 0xab, (size_t)n * sizeof *got);
                        const izb_cull_view cv = {.mode = cull_back ? IZB_CULL_ON : IZB_CULL_OFF};
                        int gm = izb_cpu_cull(xyz, n, &f, &g, &boxes[bi], &cv, got, thread_counts[ti]);
                        CHECK(gm == m && memcmp(got, want, (size_t)m * sizeof *got) == 0,
                              "n %d light %d box %d cull %d threads %d: %d survivors (want %d), same order", n, li, bi,
                              cull_back, thread_counts[ti], gm, m);
                    }
                    int gm = izb_ref_cull(xyz, n, &f, &g, &boxes[bi], cull_back, got);
                    CHECK(gm == m && memcmp(got, want, (size_t)m * sizeof *got) == 0, "izb_ref_cull");
                }
            }
        }
        free(xyz), free(want), free(got);
    }
}

/* ---- rasterisation -------------------------------------------------------------------------- */

static void test_raster(void)
{
    const int npts[] = {1, 500, 40000};
    const int grids[][2] = {{0, 0}, {1, 1}, {1024, 1}, {37, 3}};
    for (size_t pi = 0; pi < sizeof npts / sizeof npts[0]; pi++) {
        const int n = npts[pi], ntri = 300;
        izb_point *pts = test_xcalloc((size_t)n, sizeof *pts),
                  *binned = test_xcalloc((size_t)n, sizeof *binned);
        random_points(pts, n, -1, -1, 1, 1);
        izb_bbox b = bbox_of(pts, n);
        /* triangles in light clip space: small and large, both windings, some crossing w = 0 */
        float(*tv)[3][4] = test_xcalloc(ntri, sizeof *tv);
        for (int i = 0; i < ntri; i++) {
            float cx = (float)rnd_in(-1.2, 1.2), cy = (float)rnd_in(-1.2, 1.2), s = (float)rnd_in(0.01, 1.0);
            for (int k = 0; k < 3; k++) {
                float w = i % 10 == 0 && k == 0 ? -0.5f : (float)rnd_in(0.5, 2.0);
                tv[i][k][0] = (cx + s * (float)rnd_in(-1, 1)) * w;
                tv[i][k][1] = (cy + s * (float)rnd_in(-1, 1)) * w;
                tv[i][k][2] = (float)rnd_in(-1, 1) * w;
                tv[i][k][3] = w;
            }
        }
        uint8_t *want = test_xcalloc((size_t)n, 1), *got = test_xcalloc((size_t)n, 1);
        izb_tri *tris = test_xcalloc(ntri, sizeof *tris);
        for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++) {
            izb_grid g = izb_grid_make(b, n, grids[gi][0], grids[gi][1]);
            const size_t cells = (size_t)g.w * g.h;
            uint32_t *cs = test_xcalloc(cells, 4), *ce = test_xcalloc(cells, 4);
            izb_ref_bin(pts, n, &g, binned, cs, ce);
            int nt = 0;
            for (int i = 0; i < ntri; i++)
                nt += izb_tri_setup(tv[i], &g, &b, false, &tris[nt]);
            /* brute force: every point against every triangle; pixel ids are 0..n-1 */
            long shadowed = 0;
            memset(want, 255, (size_t)n);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < nt; i++)
                    if (izb_tri_occludes(&tris[i], pts[j].x, pts[j].y, pts[j].z)) {
                        want[pts[j].pixel] = 0;
                        shadowed++;
                        break;
                    }
            if (n > 1)
                CHECK(shadowed > 0 && shadowed < n, "n %d grid %dx%d: %ld of %d points shadowed", n, g.w, g.h,
                      shadowed, n);
            for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2; kernel++)
                for (int ti = 0; ti < NTHREADS; ti++) {
                    memset(got, 255, (size_t)n);
                    izb_cpu_raster(tris, nt, binned, cs, ce, &g, (izb_kernel)kernel, got, thread_counts[ti]);
                    CHECK(memcmp(got, want, (size_t)n) == 0, "n %d grid %dx%d kernel%d threads %d: mask == brute force",
                          n, g.w, g.h, kernel, thread_counts[ti]);
                }
            memset(got, 255, (size_t)n);
            izb_ref_raster(tris, nt, binned, cs, ce, &g, IZB_KERNEL2, got);
            CHECK(memcmp(got, want, (size_t)n) == 0, "izb_ref_raster kernel2");
            memset(got, 255, (size_t)n);
            izb_ref_raster(tris, 0, binned, cs, ce, &g, IZB_KERNEL1, got);
            CHECK(memchr(got, 0, (size_t)n) == NULL, "no triangles: nothing shadowed");
            free(cs), free(ce);
        }
        free(pts), free(binned), free(tv), free(want), free(got), free(tris);
    }
}

int main(void)
{
    test_reconstruct();
    test_binning();
    test_cull();
    test_raster();
    return test_done();
}
