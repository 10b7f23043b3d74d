/* test_cpu_simd.c — the CPU backend's SIMD stages (cpu/raster.c, cpu/binning.c and the
 * per-instruction-set hot loops of kernels.h) against plain scalar loops of izb_math.h
 * (suite cpu). For every copy this CPU runs (base, AVX2, AVX-512), both kernels and 1, 2 and 7
 * threads:
 * - the raster's mask equals a scalar traversal of each triangle's cell range calling
 *   izb_tri_occludes point by point, and it only ever zeroes hits (other bytes keep any value);
 * - with primitive ids (izb_own) the same, the scalar loop skipping what izb_hit_is_own ignores
 *   (the kernels queue the hits and test them later, in batches, reusing the last verdict: the
 *   big cases fill the batches and a triangle's record of hit blocks, so every way a hit leaves
 *   the queue is compared here; a planted drop or wrong memo key in any of them fails);
 * - the structure-of-arrays binning equals the array-of-structs reference, order included.
 * Points: random, duplicates, on cell corners (exact multiples of the cell size), NaN keys and
 * NaN positions, grids with mostly empty cells, 33 to 40,000 points; and every point count from 1
 * to 70 in one cell (rows of every length around the 16-point block, blocks reading past the last
 * point). Also the IZB_CPU_ISA override and its bad values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb_cpu_stages.h"
#include "test.h"

#define TEST_RNG_SEED 0x5DEECE66Dull
#include "test_rng.h"

static const int thread_counts[] = {1, 2, 7};
#define NTHREADS ((int)(sizeof thread_counts / sizeof thread_counts[0]))
static const izb_cpu_isa isas[] = {IZB_CPU_ISA_BASE, IZB_CPU_ISA_AVX2, IZB_CPU_ISA_AVX512};
#define NISAS ((int)(sizeof isas / sizeof isas[0]))

/* point kinds a case can mix in */
enum { PLAIN, CORNERS, NAN_KEYS, NAN_POS, CLUSTER };

/* n points in [-1, 1]^2 with pixel ids a permutation of 0..n-1; `kind` adds its adversaries:
 * points on cell corners of an nx x ny grid over [-1, 1]^2, NaN keys, NaN x or y, or all the
 * points in one small corner of the box (the rest of the grid empty). */
static void make_points(izb_point *p, int n, int kind, int nx, int ny)
{
    for (int i = 0; i < n; i++) {
        p[i] = (izb_point){(float)rnd_in(-1, 1), (float)rnd_in(-1, 1), (float)rnd_in(-1, 1), (uint32_t)i};
        if (i > 0 && rnd() < 0.05) /* exact duplicate position */
            p[i].x = p[i - 1].x, p[i].y = p[i - 1].y;
        if (kind == CORNERS && rnd() < 0.5) {
            p[i].x = -1.0f + 2.0f * (float)(int)(rnd() * (nx + 1)) / (float)nx;
            p[i].y = -1.0f + 2.0f * (float)(int)(rnd() * (ny + 1)) / (float)ny;
        }
        if (kind == NAN_KEYS && rnd() < 0.2) p[i].z = NAN;
        if (kind == NAN_POS && rnd() < 0.1) *(rnd() < 0.5 ? &p[i].x : &p[i].y) = NAN;
        if (kind == CLUSTER && i > 1) /* two points keep the box; the rest crowd one corner */
            p[i].x = -1.0f + 0.05f * (p[i].x + 1.0f), p[i].y = -1.0f + 0.05f * (p[i].y + 1.0f);
    }
    if (kind == CLUSTER && n > 1) p[0].x = p[0].y = -1.0f, p[1].x = p[1].y = 1.0f;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() * (i + 1));
        uint32_t t = p[i].pixel;
        p[i].pixel = p[j].pixel;
        p[j].pixel = t;
    }
}

/* ntri triangles in light clip space over [-1.2, 1.2]^2: small and large (up to max_size), both
 * windings, one in ten crossing the light's w = 0 plane (those cover half the plane) when max_size
 * is 1 or more; set up for g; returns how many survived */
static int make_tris(izb_tri *tris, int ntri, double max_size, const izb_grid *g, const izb_bbox *b)
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

static void check_case(int n, int kind, int gw, int gh, int ntri, double max_size)
{
    izb_point *pts = test_xcalloc((size_t)n, sizeof *pts), *binned = test_xcalloc((size_t)n, sizeof *binned);
    make_points(pts, n, kind, gw > 0 ? gw : 16, gh > 0 ? gh : 16);
    const izb_bbox b = bbox_of(pts, n);
    const izb_grid g = izb_grid_make(b, n, gw, gh);
    const size_t cells = (size_t)g.w * (size_t)g.h;
    uint32_t *cs = test_xcalloc(cells, 4), *ce = test_xcalloc(cells, 4), *cs2 = test_xcalloc(cells, 4),
             *ce2 = test_xcalloc(cells, 4);
    uint32_t *bin_scratch = test_xcalloc(izb_cpu_bin_scratch(n, &g, 7), 4);
    izb_ref_bin(pts, n, &g, binned, cs, ce);

    izb_tri *tris = test_xcalloc((size_t)ntri, sizeof *tris);
    const int nt = make_tris(tris, ntri, max_size, &g, &b);
    uint8_t *want = test_xcalloc((size_t)n, 1), *got = test_xcalloc((size_t)n, 1);
    init_mask(want, n);
    const long hits = scalar_raster(tris, nt, binned, cs, ce, &g, want);
    if (n >= 500)
        CHECK(hits > 0 && hits < n, "n %d kind %d grid %dx%d: %ld of %d points newly shadowed", n, kind, g.w,
              g.h, hits, n);

    float *xyz = test_xcalloc((size_t)ntri * 9, sizeof *xyz);
    uint32_t *tri_id = test_xcalloc((size_t)ntri, 4), *pixel_id = test_xcalloc((size_t)n, 4);
    const izb_own own = make_ids(nt, ntri, n, xyz, tri_id, pixel_id);
    uint8_t *want_own = test_xcalloc((size_t)n, 1);
    init_mask(want_own, n);
    scalar_raster_own(tris, nt, binned, cs, ce, &g, &own, want_own);

    izb_cpu_points soa = {0};
    CHECK(izb_cpu_points_reserve(&soa, (size_t)n, "test points"), "reserve %d points", n);
    uint64_t *scratch = test_xcalloc(izb_cpu_raster_scratch(n, 7), sizeof *scratch);
    izb_point *back = test_xcalloc((size_t)n, sizeof *back);
    for (int ii = 0; ii < NISAS; ii++) {
        const izb_cpu_isa isa = isas[ii];
        if (!izb_cpu_isa_available(isa)) {
            CHECK(!izb_cpu_raster_soa(tris, nt, &soa, n, cs, ce, &g, IZB_KERNEL1, NULL, got, 1, scratch, isa),
                  "%s: refused where it does not run", izb_cpu_isa_name(isa));
            continue;
        }
        for (int ti = 0; ti < NTHREADS; ti++) {
            const int T = thread_counts[ti];
            /* binning: the structure of arrays holds the reference's points in its order */
            memset(soa.x, 0xff, (size_t)n * sizeof *soa.x); /* NaN: a stale point cannot pass */
            CHECK(izb_cpu_bin_soa(pts, n, &g, &soa, cs2, ce2, T, bin_scratch, isa), "bin %s runs",
                  izb_cpu_isa_name(isa));
            izb_cpu_points_to_aos(&soa, n, back);
            CHECK(memcmp(back, binned, (size_t)n * sizeof *back) == 0 && memcmp(cs, cs2, cells * 4) == 0 &&
                      memcmp(ce, ce2, cells * 4) == 0,
                  "n %d kind %d grid %dx%d %s threads %d: SoA binning == izb_ref_bin", n, kind, g.w, g.h,
                  izb_cpu_isa_name(isa), T);
            /* the same points in runs, as reconstruction leaves them: apart, with an empty one */
            const int64_t cut1 = n / 3, cut2 = n - n / 5;
            izb_point *apart = test_xcalloc((size_t)n + 64, sizeof *apart);
            memcpy(apart, pts, (size_t)cut1 * sizeof *pts);
            memcpy(apart + cut1 + 32, pts + cut1, (size_t)(cut2 - cut1) * sizeof *pts);
            memcpy(apart + cut2 + 64, pts + cut2, (size_t)(n - cut2) * sizeof *pts);
            const izb_cpu_runs runs = {4,
                                       {apart, apart + cut1 + 32, apart + 7, apart + cut2 + 64},
                                       {cut1, cut2 - cut1, 0, n - cut2}};
            memset(soa.x, 0xff, (size_t)n * sizeof *soa.x);
            CHECK(izb_cpu_bin_runs(&runs, &g, &soa, cs2, ce2, T, bin_scratch, isa), "bin runs %s runs",
                  izb_cpu_isa_name(isa));
            izb_cpu_points_to_aos(&soa, n, back);
            CHECK(memcmp(back, binned, (size_t)n * sizeof *back) == 0 && memcmp(cs, cs2, cells * 4) == 0 &&
                      memcmp(ce, ce2, cells * 4) == 0,
                  "n %d kind %d grid %dx%d %s threads %d: binning of 4 runs == izb_ref_bin", n, kind, g.w,
                  g.h, izb_cpu_isa_name(isa), T);
            free(apart);
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
    izb_cpu_raster(tris, nt, binned, cs, ce, &g, IZB_KERNEL2, got, 3);
    CHECK(memcmp(got, want, (size_t)n) == 0, "n %d kind %d: izb_cpu_raster kernel2 == scalar loop", n, kind);

    init_mask(got, n);
    izb_ref_raster_own(tris, nt, binned, cs, ce, &g, IZB_KERNEL1, &own, got);
    CHECK(memcmp(got, want_own, (size_t)n) == 0, "n %d kind %d: izb_ref_raster_own == scalar loop", n, kind);
    /* (few triangles reach the crowded corner, and few of the small ones meet a point of their
     * own plane: ids may change none there) */
    if (n >= 500 && kind != CLUSTER && max_size >= 1.0) {
        long differ = 0;
        for (int i = 0; i < n; i++)
            differ += want[i] != want_own[i];
        CHECK(differ > 0, "n %d kind %d grid %dx%d: ids change %ld pixels", n, kind, g.w, g.h, differ);
    }

    izb_cpu_points_free(&soa);
    free(xyz), free(tri_id), free(pixel_id), free(want_own);
    free(pts), free(binned), free(cs), free(ce), free(cs2), free(ce2), free(bin_scratch), free(tris),
        free(want);
    free(got), free(scratch), free(back);
}

/* Rows of every length around the block: all points in one cell, one triangle covering all. */
static void check_row_lengths(void)
{
    for (int n = 1; n <= 70; n++) {
        izb_point *pts = test_xcalloc((size_t)n, sizeof *pts);
        make_points(pts, n, PLAIN, 1, 1);
        const izb_bbox b = bbox_of(pts, n);
        const izb_grid g = izb_grid_make(b, n, 1, 1);
        uint32_t cs = 0, ce = 0;
        izb_cpu_points soa = {0};
        uint32_t *bin_scratch = test_xcalloc(izb_cpu_bin_scratch(n, &g, 2), 4);
        uint64_t *scratch = test_xcalloc(izb_cpu_raster_scratch(n, 2), sizeof *scratch);
        if (!izb_cpu_points_reserve(&soa, (size_t)n, "row points")) exit(1);
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
            izb_cpu_bin_soa(pts, n, &g, &soa, &cs, &ce, 2, bin_scratch, isas[ii]);
            for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2; kernel++) {
                memset(got, 255, (size_t)n);
                izb_cpu_raster_soa(&t, 1, &soa, n, &cs, &ce, &g, (izb_kernel)kernel, NULL, got, 2, scratch,
                                   isas[ii]);
                CHECK(memcmp(got, want, (size_t)n) == 0, "row of %d points, %s kernel%d", n,
                      izb_cpu_isa_name(isas[ii]), kernel);
            }
        }
        izb_cpu_points_free(&soa);
        free(pts), free(bin_scratch), free(scratch), free(want), free(got);
    }
}

/* IZB_CPU_ISA caps what AUTO picks; a bad value is ignored */
static void check_isa_choice(void)
{
    const izb_cpu_isa best = izb_cpu_isa_best();
    CHECK(best >= IZB_CPU_ISA_BASE && best < IZB_CPU_ISA_COUNT && izb_cpu_isa_available(best),
          "best instruction set %s runs", izb_cpu_isa_name(best));
    CHECK(izb_cpu_isa_available(IZB_CPU_ISA_AUTO) && izb_cpu_isa_available(IZB_CPU_ISA_BASE),
          "auto and base run");
    CHECK(!izb_cpu_isa_available(IZB_CPU_ISA_COUNT) && !izb_cpu_isa_available((izb_cpu_isa)-1),
          "no instruction set outside the list");
#if defined(__x86_64__) && !defined(IZB_NO_CLONES)
    /* every x86-64 CPU that runs this project's CI has AVX2; say what ran */
    printf("instruction sets: avx2 %s, avx512 %s\n", izb_cpu_isa_available(IZB_CPU_ISA_AVX2) ? "yes" : "no",
           izb_cpu_isa_available(IZB_CPU_ISA_AVX512) ? "yes" : "no");
#endif
    setenv("IZB_CPU_ISA", "base", 1);
    CHECK(izb_cpu_isa_best() == IZB_CPU_ISA_BASE, "IZB_CPU_ISA=base picks base");
    setenv("IZB_CPU_ISA", "avx2", 1);
    CHECK(izb_cpu_isa_best() == (best >= IZB_CPU_ISA_AVX2 ? IZB_CPU_ISA_AVX2 : best),
          "IZB_CPU_ISA=avx2 caps");
    setenv("IZB_CPU_ISA", "sse9", 1);
    CHECK(izb_cpu_isa_best() == best, "IZB_CPU_ISA=sse9 ignored");
    setenv("IZB_CPU_ISA", "", 1);
    CHECK(izb_cpu_isa_best() == best, "IZB_CPU_ISA empty: the best");
    unsetenv("IZB_CPU_ISA");
}

int main(void)
{
    check_isa_choice();
    check_row_lengths();
    /* (rows and point counts of every length up to 70 are check_row_lengths') */
    const int counts[] = {33, 500, 40000};
    const int grids[][2] = {{0, 0}, {1, 1}, {16, 16}, {64, 3}, {1024, 1}};
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
        for (int kind = PLAIN; kind <= CLUSTER; kind++)
            for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++)
                if (counts[ci] < 40000 || gi % 2 == 0) /* the big case on three grids: time */
                    check_case(counts[ci], kind, grids[gi][0], grids[gi][1], counts[ci] >= 40000 ? 200 : 120,
                               1.0);
    /* enough triangles that kernel1's batches grow past their minimum of 16 (about 64 a thread:
     * 1 and 2 threads take batches of 34 and 17, 7 threads the minimum), small ones so that most
     * points are under one or none and a triangle left out of a batch shows */
    check_case(4000, PLAIN, 0, 0, 3000, 0.05);
    return test_done();
}
