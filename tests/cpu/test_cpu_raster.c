/* test_cpu_raster.c — stage 4 of the CPU backend (cpu/raster.c and the per-instruction-set hot
 * loops of kernels_raster.h) against plain scalar loops of izb_math.h's izb_tri_occludes. The
 * mirror of tests/cuda/test_cuda_raster.c, the same contract: on the same binned points, cell
 * ranges and set-up triangles, kernel1 and kernel2 give the same mask as the reference (0
 * mismatches: the mask is an OR over (point, triangle) pairs, each pair evaluated by the same
 * function), they only ever zero an occluded point's pixel (other bytes keep any value), and the
 * order of points within a cell does not matter (the GPU's atomic binning reorders them).
 * References: a brute force over all points x all triangles (trusts no cell range), and a scalar
 * traversal of each triangle's cell range. Checked for izb_ref_raster, izb_cpu_raster at 1, 2, 3
 * and 7 threads, and the structure-of-arrays raster (izb_cpu_raster_soa) with every copy this CPU
 * runs (base, AVX2, AVX-512; the others must refuse) at 1, 2 and 7 threads:
 * - with primitive ids (izb_own) the same, the scalar loop skipping what izb_hit_is_own ignores
 *   (the kernels queue the hits and test them later, in batches, reusing the last verdict: the
 *   big cases fill the batches and a triangle's record of hit blocks, so every way a hit leaves
 *   the queue is compared here; a planted drop or wrong memo key in any of them fails).
 * Every case with 3 or more points has one point surely shadowed and one surely lit
 * (test_plant_verdicts), so no comparison passes on an all-lit mask. Points: random, duplicates,
 * on cell corners (exact multiples of the cell size), NaN keys and NaN positions, grids with
 * mostly empty cells, 33 to 40,000 points; and every point count from 1 to 70 in one cell (rows of
 * every length around the 16-point block, blocks reading past the last point). Triangles: small
 * and large, both windings, some crossing the light's w = 0 plane. The binned input comes from the
 * plain sort of tests/test_points.h, so a binning bug does not show here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb_cpu_stages.h"
#include "test.h"

#define TEST_RNG_SEED 0x5DEECE66Dull
#include "test_rng.h"
#include "test_points.h"

static const int thread_counts[] = {1, 2, 7};
#define NTHREADS ((int)(sizeof thread_counts / sizeof thread_counts[0]))
static const izb_cpu_isa isas[] = {IZB_CPU_ISA_BASE, IZB_CPU_ISA_AVX2, IZB_CPU_ISA_AVX512};
#define NISAS ((int)(sizeof isas / sizeof isas[0]))

/* ntri triangles in light clip space over [-1.2, 1.2]^2: small and large (up to max_size), both
 * windings, one in ten crossing the light's w = 0 plane (those cover half the plane) when max_size
 * is 1 or more; the first one `planted` (test_plant_verdicts') when it is not NULL; set up for g;
 * returns how many survived */
static int make_tris(izb_tri *tris, int ntri, double max_size, const izb_grid *g, const izb_bbox *b,
                     const float (*planted)[4])
{
    int nt = 0;
    for (int i = 0; i < ntri; i++) {
        float v[3][4];
        float cx = (float)rnd_in(-1.2, 1.2), cy = (float)rnd_in(-1.2, 1.2), s = (float)rnd_in(0.01, max_size);
        for (int k = 0; k < 3; k++) {
            float w = i % 10 == 0 && k == 0 && max_size >= 1.0 ? -0.5f : (float)rnd_in(0.5, 2.0);
            v[k][0] = (cx + s * (float)rnd_in(-1, 1)) * w;
            v[k][1] = (cy + s * (float)rnd_in(-1, 1)) * w;
            v[k][2] = (float)rnd_in(-1, 1) * w;
            v[k][3] = w;
        }
        if (i == 0 && planted) memcpy(v, planted, sizeof v);
        nt += izb_tri_setup(v, g, b, false, &tris[nt]);
    }
    return nt;
}

/* the plain scalar raster: every triangle, every cell of its range, every point, izb_tri_occludes */
static long scalar_raster(const izb_tri *tris, int nt, const izb_point *pts, const uint32_t *cs,
                          const uint32_t *ce, const izb_grid *g, uint8_t *mask)
{
    long hits = 0;
    for (int i = 0; i < nt; i++)
        for (int cy = izb_cell_y(g, tris[i].y0); cy <= izb_cell_y(g, tris[i].y1); cy++)
            for (int cx = izb_cell_x(g, tris[i].x0); cx <= izb_cell_x(g, tris[i].x1); cx++)
                for (uint32_t j = cs[cy * g->w + cx]; j < ce[cy * g->w + cx]; j++)
                    if (izb_tri_occludes(&tris[i], pts[j].x, pts[j].y, pts[j].z)) {
                        hits += mask[pts[j].pixel] != 0;
                        mask[pts[j].pixel] = 0;
                    }
    return hits;
}

/* the scalar raster with primitive ids: a hit counts unless izb_hit_is_own says it is the point's own */
static void scalar_raster_own(const izb_tri *tris, int nt, const izb_point *pts, const uint32_t *cs,
                              const uint32_t *ce, const izb_grid *g, const izb_own *o, uint8_t *mask)
{
    for (int i = 0; i < nt; i++)
        for (int cy = izb_cell_y(g, tris[i].y0); cy <= izb_cell_y(g, tris[i].y1); cy++)
            for (int cx = izb_cell_x(g, tris[i].x0); cx <= izb_cell_x(g, tris[i].x1); cx++)
                for (uint32_t j = cs[cy * g->w + cx]; j < ce[cy * g->w + cx]; j++)
                    if (izb_tri_occludes(&tris[i], pts[j].x, pts[j].y, pts[j].z) &&
                        !izb_hit_is_own(o->xyz, 9, 1, o->tri_count, o->pixel_id[pts[j].pixel], o->tri_id[i]))
                        mask[pts[j].pixel] = 0;
}

/* ids for nt compacted triangles of a scene of ntri, n pixels: a scene (xyz) whose first half lies
 * in one plane (so in-plane hits exist), survivors' ids a random increasing pick, and pixel ids
 * that name a survivor (often), another scene triangle, an id past the scene or IZB_NO_ID */
static izb_own make_ids(int nt, int ntri, int n, float *xyz, uint32_t *tri_id, uint32_t *pixel_id)
{
    for (int i = 0; i < ntri; i++)
        for (int k = 0; k < 9; k++)
            xyz[9 * i + k] = k % 3 == 2 && i < ntri / 2 ? 0.5f : (float)rnd_in(-1, 1);
    uint32_t next = 0;
    for (int i = 0; i < nt; i++) {
        next += (uint32_t)(rnd() * (double)(ntri - nt) / (nt + 1) * 2.0) % 3;
        tri_id[i] = next < (uint32_t)ntri ? next : (uint32_t)ntri - 1;
        next++;
    }
    for (int p = 0; p < n; p++) {
        const double r = rnd();
        pixel_id[p] = r < 0.5 && nt > 0 ? tri_id[(int)(rnd() * nt)]
                      : r < 0.8         ? (uint32_t)(rnd() * ntri)
                      : r < 0.9         ? (uint32_t)ntri + 5
                                        : IZB_NO_ID;
    }
    return (izb_own){tri_id, pixel_id, xyz, (uint32_t)ntri};
}

/* a mask before the raster: 255 mostly, some 0 and some other value, which must survive */
static void init_mask(uint8_t *m, int n)
{
    for (int i = 0; i < n; i++)
        m[i] = i % 13 == 5 ? 0 : i % 7 == 3 ? 77 : 255; /* pixel 0 (the pad's) starts lit */
}

/* brute force: every point against every triangle, no cell ranges; returns the points shadowed */
static long brute_raster(const izb_tri *tris, int nt, const izb_point *pts, int n, uint8_t *mask)
{
    long shadowed = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < nt; i++)
            if (izb_tri_occludes(&tris[i], pts[j].x, pts[j].y, pts[j].z)) {
                mask[pts[j].pixel] = 0;
                shadowed++;
                break;
            }
    return shadowed;
}

/* The points of each cell in reverse (the order within a cell is free: the GPU's atomic binning) */
static void reverse_cells(izb_point *p, const uint32_t *cs, const uint32_t *ce, size_t cells)
{
    for (size_t c = 0; c < cells; c++)
        for (uint32_t i = cs[c], j = ce[c]; i + 1 < j; i++, j--) {
            const izb_point t = p[i];
            p[i] = p[j - 1], p[j - 1] = t;
        }
}

static void check_case(int n, int kind, int gw, int gh, int ntri, double max_size)
{
    izb_point *pts = test_xcalloc((size_t)n, sizeof *pts), *binned = test_xcalloc((size_t)n, sizeof *binned);
    test_points(pts, n, (izb_bbox){-1, -1, 1, 1}, kind, gw > 0 ? gw : 16, gh > 0 ? gh : 16);
    float planted[3][4];
    if (n >= 3) test_plant_verdicts(pts, n, (izb_bbox){-1, -1, 1, 1}, planted);
    const izb_bbox b = bbox_of(pts, n);
    const izb_grid g = izb_grid_make(b, n, gw, gh);
    const size_t cells = (size_t)g.w * (size_t)g.h;
    uint32_t *cs = test_xcalloc(cells, 4), *ce = test_xcalloc(cells, 4);
    test_plain_bin(pts, n, &g, binned, cs, ce);

    izb_tri *tris = test_xcalloc((size_t)ntri, sizeof *tris);
    const int nt = make_tris(tris, ntri, max_size, &g, &b, n >= 3 ? (const float(*)[4])planted : NULL);
    uint8_t *want = test_xcalloc((size_t)n, 1), *got = test_xcalloc((size_t)n, 1);
    init_mask(want, n);
    const long hits = scalar_raster(tris, nt, binned, cs, ce, &g, want);
    /* (pixel 2 is shadowed, pixel 1 lit: test_plant_verdicts) */
    if (n >= 3)
        CHECK(hits > 0 && hits < n && want[2] == 0 && want[1] == 255,
              "n %d kind %d grid %dx%d: %ld of %d points newly shadowed", n, kind, g.w, g.h, hits, n);
    /* the brute force agrees with the traversal of the cell ranges */
    uint8_t *brute = test_xcalloc((size_t)n, 1);
    init_mask(brute, n);
    brute_raster(tris, nt, pts, n, brute);
    CHECK(memcmp(brute, want, (size_t)n) == 0, "n %d kind %d grid %dx%d: brute force == cell-range traversal",
          n, kind, g.w, g.h);
    free(brute);

    float *xyz = test_xcalloc((size_t)ntri * 9, sizeof *xyz);
    uint32_t *tri_id = test_xcalloc((size_t)ntri, 4), *pixel_id = test_xcalloc((size_t)n, 4);
    const izb_own own = make_ids(nt, ntri, n, xyz, tri_id, pixel_id);
    uint8_t *want_own = test_xcalloc((size_t)n, 1);
    init_mask(want_own, n);
    scalar_raster_own(tris, nt, binned, cs, ce, &g, &own, want_own);

    izb_cpu_points soa = {0};
    CHECK(izb_cpu_points_reserve(&soa, (size_t)n, "test points"), "reserve %d points", n);
    izb_cpu_points_from_aos(binned, n, &soa);
    uint64_t *scratch = test_xcalloc(izb_cpu_raster_scratch(n, 7), sizeof *scratch);
    for (int ii = 0; ii < NISAS; ii++) {
        const izb_cpu_isa isa = isas[ii];
        if (!izb_cpu_isa_available(isa)) {
            CHECK(!izb_cpu_raster_soa(tris, nt, &soa, n, cs, ce, &g, IZB_KERNEL1, NULL, got, 1, scratch, isa),
                  "%s: refused where it does not run", izb_cpu_isa_name(isa));
            continue;
        }
        for (int ti = 0; ti < NTHREADS; ti++) {
            const int T = thread_counts[ti];
            for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2; kernel++) {
                init_mask(got, n);
                CHECK(izb_cpu_raster_soa(tris, nt, &soa, n, cs, ce, &g, (izb_kernel)kernel, NULL, got, T,
                                         scratch, isa),
                      "raster %s runs", izb_cpu_isa_name(isa));
                CHECK(memcmp(got, want, (size_t)n) == 0,
                      "n %d kind %d grid %dx%d %s kernel%d threads %d: mask == scalar loop", n, kind, g.w,
                      g.h, izb_cpu_isa_name(isa), kernel, T);
                init_mask(got, n);
                izb_cpu_raster_soa(tris, nt, &soa, n, cs, ce, &g, (izb_kernel)kernel, &own, got, T, scratch,
                                   isa);
                CHECK(memcmp(got, want_own, (size_t)n) == 0,
                      "n %d kind %d grid %dx%d %s kernel%d threads %d ids: mask == scalar loop", n, kind, g.w,
                      g.h, izb_cpu_isa_name(isa), kernel, T);
            }
        }
    }
    /* the array-of-structs entry points (the CUDA tests' reference) give the same */
    init_mask(got, n);
    izb_ref_raster(tris, nt, binned, cs, ce, &g, IZB_KERNEL1, got);
    CHECK(memcmp(got, want, (size_t)n) == 0, "n %d kind %d: izb_ref_raster == scalar loop", n, kind);
    init_mask(got, n);
    izb_ref_raster(tris, nt, binned, cs, ce, &g, IZB_KERNEL2, got);
    CHECK(memcmp(got, want, (size_t)n) == 0, "n %d kind %d: izb_ref_raster kernel2 == scalar loop", n, kind);
    static const int aos_threads[] = {1, 2, 3, 7};
    for (int ti = 0; ti < 4; ti++)
        for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2; kernel++) {
            init_mask(got, n);
            izb_cpu_raster(tris, nt, binned, cs, ce, &g, (izb_kernel)kernel, got, aos_threads[ti]);
            CHECK(memcmp(got, want, (size_t)n) == 0,
                  "n %d kind %d: izb_cpu_raster kernel%d threads %d == scalar loop", n, kind, kernel,
                  aos_threads[ti]);
        }
    /* the order of points within a cell changes nothing */
    reverse_cells(binned, cs, ce, cells);
    init_mask(got, n);
    izb_cpu_raster(tris, nt, binned, cs, ce, &g, IZB_KERNEL2, got, 3);
    CHECK(memcmp(got, want, (size_t)n) == 0, "n %d kind %d: cells in reverse order, same mask", n, kind);
    reverse_cells(binned, cs, ce, cells);
    memset(got, 255, (size_t)n);
    izb_ref_raster(tris, 0, binned, cs, ce, &g, IZB_KERNEL1, got);
    CHECK(memchr(got, 0, (size_t)n) == NULL, "no triangles: nothing shadowed");

    init_mask(got, n);
    izb_ref_raster_own(tris, nt, binned, cs, ce, &g, IZB_KERNEL1, &own, got);
    CHECK(memcmp(got, want_own, (size_t)n) == 0, "n %d kind %d: izb_ref_raster_own == scalar loop", n, kind);
    /* (few triangles reach the crowded corner, and few of the small ones meet a point of their
     * own plane: ids may change none there) */
    if (n >= 500 && kind != PTS_CLUSTER && max_size >= 1.0) {
        long differ = 0;
        for (int i = 0; i < n; i++)
            differ += want[i] != want_own[i];
        CHECK(differ > 0, "n %d kind %d grid %dx%d: ids change %ld pixels", n, kind, g.w, g.h, differ);
    }

    izb_cpu_points_free(&soa);
    free(xyz), free(tri_id), free(pixel_id), free(want_own);
    free(pts), free(binned), free(cs), free(ce), free(tris), free(want);
    free(got), free(scratch);
}

/* Rows of every length around the block: all points in one cell, one triangle covering all. */
static void check_row_lengths(void)
{
    for (int n = 1; n <= 70; n++) {
        izb_point *pts = test_xcalloc((size_t)n, sizeof *pts);
        test_points(pts, n, (izb_bbox){-1, -1, 1, 1}, PTS_PLAIN, 1, 1);
        const izb_bbox b = bbox_of(pts, n);
        const izb_grid g = izb_grid_make(b, n, 1, 1);
        uint32_t cs = 0, ce = 0;
        izb_cpu_points soa = {0};
        uint64_t *scratch = test_xcalloc(izb_cpu_raster_scratch(n, 2), sizeof *scratch);
        if (!izb_cpu_points_reserve(&soa, (size_t)n, "row points")) exit(1);
        izb_cpu_points_from_aos(pts, n, &soa); /* one cell: binning keeps the order */
        ce = (uint32_t)n;
        /* a big front triangle over a z plane through the middle: about half the points hit */
        const float v[3][4] = {{-9, -9, 0, 1}, {9, -9, 0, 1}, {0, 9, 0, 1}};
        izb_tri t;
        CHECK(izb_tri_setup(v, &g, &b, false, &t), "row triangle set up");
        uint8_t *want = test_xcalloc((size_t)n, 1), *got = test_xcalloc((size_t)n, 1);
        memset(want, 255, (size_t)n);
        for (int i = 0; i < n; i++)
            if (izb_tri_occludes(&t, pts[i].x, pts[i].y, pts[i].z)) want[pts[i].pixel] = 0;
        for (int ii = 0; ii < NISAS; ii++) {
            if (!izb_cpu_isa_available(isas[ii])) continue;
            for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2; kernel++) {
                memset(got, 255, (size_t)n);
                izb_cpu_raster_soa(&t, 1, &soa, n, &cs, &ce, &g, (izb_kernel)kernel, NULL, got, 2, scratch,
                                   isas[ii]);
                CHECK(memcmp(got, want, (size_t)n) == 0, "row of %d points, %s kernel%d", n,
                      izb_cpu_isa_name(isas[ii]), kernel);
            }
        }
        izb_cpu_points_free(&soa);
        free(pts), free(scratch), free(want), free(got);
    }
}

int main(void)
{
    check_row_lengths();
    /* (rows and point counts of every length up to 70 are check_row_lengths') */
    const int counts[] = {33, 500, 40000};
    const int grids[][2] = {{0, 0}, {1, 1}, {16, 16}, {64, 3}, {1024, 1}};
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
        for (int kind = PTS_PLAIN; kind < PTS_KINDS; kind++)
            for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++)
                if (counts[ci] < 40000 || gi % 2 == 0) /* the big case on three grids: time */
                    check_case(counts[ci], kind, grids[gi][0], grids[gi][1], counts[ci] >= 40000 ? 200 : 120,
                               1.0);
    /* enough triangles that kernel1's batches grow past their minimum of 16 (about 64 a thread:
     * 1 and 2 threads take batches of 34 and 17, 7 threads the minimum), small ones so that most
     * points are under one or none and a triangle left out of a batch shows */
    check_case(4000, PTS_PLAIN, 0, 0, 3000, 0.05);
    /* one and two points, and a thin odd grid, with 300 triangles */
    check_case(1, PTS_PLAIN, 0, 0, 300, 1.0);
    check_case(2, PTS_PLAIN, 1, 1, 300, 1.0);
    check_case(500, PTS_PLAIN, 37, 3, 300, 1.0);
    return test_done();
}
