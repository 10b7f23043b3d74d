/* test_cpu_binning.c — stage 2 of the CPU backend (cpu/binning.c, the per-instruction-set cell
 * hash of kernels_binning.h) against a plain serial stable counting sort (test_plain_bin in
 * tests/test_points.h: izb_cell_hash in a loop, nothing of cpu/). The mirror of
 * tests/cuda/test_cuda_binning.c, the same contract: points grouped by cell in cell order and
 * stable within a cell (so equal to the plain sort byte for byte), cell_start/cell_end equal to
 * the plain sort's (consistent, monotonic, covering [0, n), empty cells start == end), every point
 * in its own cell's range, a permutation of the input. Checked for izb_ref_bin and izb_cpu_bin at
 * 1, 2, 3 and 7 threads; for the structure-of-arrays binning (izb_cpu_bin_soa) and its form that
 * reads reconstruction's runs in place (izb_cpu_bin_runs) with every copy this CPU runs (base,
 * AVX2, AVX-512) at 1, 2 and 7 threads, every point count from 1 to 70 included.
 * Points: random in an off-centre box, duplicates, on the box's edges and on cell corners, NaN
 * keys and positions, clustered in a corner (mostly empty cells), all at one position (flat bbox),
 * one point, none. Grids: adaptive, 1x1, 3x5, 1024x1, 64x64, 16x16, 64x3, 1024x1024 (mostly
 * empty). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb_cpu_stages.h"
#include "test.h"

#define TEST_RNG_SEED 0x2545F4914F6CDD1Dull
#include "test_rng.h"
#include "test_points.h"

static const int thread_counts[] = {1, 2, 3, 7};
#define NTHREADS ((int)(sizeof thread_counts / sizeof thread_counts[0]))
static const izb_cpu_isa isas[] = {IZB_CPU_ISA_BASE, IZB_CPU_ISA_AVX2, IZB_CPU_ISA_AVX512};
#define NISAS ((int)(sizeof isas / sizeof isas[0]))

/* Check the invariants of a binned result; returns false (after reporting) on the first failure. */
static bool check_binned(const char *what, const izb_point *in, int n, const izb_grid *g,
                         const izb_point *out, const uint32_t *cs, const uint32_t *ce)
{
    const int cells = g->w * g->h;
    bool ok = true;
    /* start/end consistent and monotonic, covering [0, n) */
    ok &= cs[0] == 0 && ce[cells - 1] == (uint32_t)n;
    for (int c = 0; c < cells && ok; c++) {
        ok &= cs[c] <= ce[c];
        if (c + 1 < cells) ok &= ce[c] == cs[c + 1];
    }
    CHECK(ok, "%s: cell_start/cell_end consistent, monotonic, covering [0, %d)", what, n);
    if (!ok) return false;
    /* every point in its cell; stable: within a cell, input order (input position by pixel id) */
    int *pos = test_xcalloc((size_t)(n > 0 ? n : 1), sizeof *pos);
    uint8_t *seen = test_xcalloc((size_t)(n > 0 ? n : 1), 1);
    for (int i = 0; i < n; i++)
        pos[in[i].pixel] = i;
    for (int c = 0; c < cells && ok; c++) {
        for (uint32_t j = cs[c]; j < ce[c] && ok; j++) {
            ok &= izb_cell_hash(g, out[j].x, out[j].y) == (uint32_t)c;
            ok &= out[j].pixel < (uint32_t)n && !seen[out[j].pixel];
            if (!ok) break;
            seen[out[j].pixel] = 1;
            const izb_point *src = &in[pos[out[j].pixel]];
            ok &= memcmp(src, &out[j], sizeof *src) == 0;
            if (j > cs[c]) ok &= pos[out[j].pixel] > pos[out[j - 1].pixel];
        }
    }
    CHECK(ok, "%s: a permutation of the input, every point in its cell, stable within cells", what);
    free(pos), free(seen);
    return ok;
}

/* out/cs/ce byte-equal to the plain sort's (want/ws/we) */
static bool same_bins(const izb_point *out, const uint32_t *cs, const uint32_t *ce, const izb_point *want,
                      const uint32_t *ws, const uint32_t *we, int n, size_t cells)
{
    return memcmp(out, want, (size_t)n * sizeof *out) == 0 && memcmp(cs, ws, cells * 4) == 0 &&
           memcmp(ce, we, cells * 4) == 0;
}

/* izb_ref_bin and izb_cpu_bin (array of structs) at every thread count */
static void test_binning(void)
{
    const int sizes[] = {1, 2, 7, 1000, 100003};
    const int grids[][2] = {{0, 0},    {1, 1},   {3, 5},
                            {1024, 1}, {64, 64}, {IZB_GRID_MAX_DIM, IZB_GRID_MAX_DIM}};
    const izb_bbox box = {-0.7f, -1.0f, 0.9f, 0.3f};
    char what[128];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const int n = sizes[si];
        izb_point *in = test_xcalloc((size_t)n, sizeof *in), *out = test_xcalloc((size_t)n, sizeof *out),
                  *want = test_xcalloc((size_t)n, sizeof *want);
        for (int variant = 0; variant < 2; variant++) {
            if (variant == 0)
                test_points(in, n, box, PTS_PLAIN, 16, 16);
            else /* degenerate bbox: all points at one position */
                for (int i = 0; i < n; i++)
                    in[i] = (izb_point){0.25f, -0.5f, (float)i, (uint32_t)(n - 1 - i)};
            izb_bbox b = bbox_of(in, n);
            for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++) {
                if (grids[gi][0] == IZB_GRID_MAX_DIM && n > 1000)
                    continue; /* a million cells for a few points: the mostly-empty case; time */
                izb_grid g = izb_grid_make(b, n, grids[gi][0], grids[gi][1]);
                const size_t cells = (size_t)g.w * g.h;
                uint32_t *cs = test_xcalloc(cells, 4), *ce = test_xcalloc(cells, 4),
                         *ws = test_xcalloc(cells, 4), *we = test_xcalloc(cells, 4);
                snprintf(what, sizeof what, "n %d %s grid %dx%d", n, variant ? "one position" : "random", g.w,
                         g.h);
                test_plain_bin(in, n, &g, want, ws, we);
                if (check_binned(what, in, n, &g, want, ws, we)) { /* the reference keeps the contract */
                    int empty = 0;
                    for (size_t c = 0; c < cells; c++)
                        empty += ws[c] == we[c];
                    if (variant == 1 || n < (int)cells)
                        CHECK(empty > 0 || cells == 1, "%s: has empty cells", what);
                }
                memset(out, 0xff, (size_t)n * sizeof *out);
                izb_ref_bin(in, n, &g, out, cs, ce);
                CHECK(same_bins(out, cs, ce, want, ws, we, n, cells),
                      "%s: izb_ref_bin == the plain stable sort", what);
                for (int ti = 0; ti < NTHREADS; ti++) {
                    uint32_t *scratch = test_xcalloc(izb_cpu_bin_scratch(n, &g, thread_counts[ti]), 4);
                    memset(out, 0xff, (size_t)n * sizeof *out);
                    memset(cs, 0xff, cells * 4), memset(ce, 0xff, cells * 4);
                    izb_cpu_bin(in, n, &g, out, cs, ce, thread_counts[ti], scratch);
                    CHECK(same_bins(out, cs, ce, want, ws, we, n, cells),
                          "%s: izb_cpu_bin on %d threads == the plain stable sort", what, thread_counts[ti]);
                    free(scratch);
                }
                free(cs), free(ce), free(ws), free(we);
            }
        }
        free(in), free(out), free(want);
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

/* izb_cpu_bin_soa and izb_cpu_bin_runs, every copy and thread count, against the plain sort */
static void check_soa(int n, int kind, int gw, int gh, const int *threads, int nthreads)
{
    izb_point *pts = test_xcalloc((size_t)n, sizeof *pts), *want = test_xcalloc((size_t)n, sizeof *want),
              *back = test_xcalloc((size_t)n, sizeof *back);
    test_points(pts, n, (izb_bbox){-1, -1, 1, 1}, kind, gw > 0 ? gw : 16, gh > 0 ? gh : 16);
    const izb_bbox b = bbox_of(pts, n);
    const izb_grid g = izb_grid_make(b, n, gw, gh);
    const size_t cells = (size_t)g.w * (size_t)g.h;
    uint32_t *ws = test_xcalloc(cells, 4), *we = test_xcalloc(cells, 4), *cs = test_xcalloc(cells, 4),
             *ce = test_xcalloc(cells, 4);
    uint32_t *scratch = test_xcalloc(izb_cpu_bin_scratch(n, &g, 7), 4);
    test_plain_bin(pts, n, &g, want, ws, we);
    /* the same points in runs, as reconstruction leaves them: apart, with an empty one */
    const int64_t cut1 = n / 3, cut2 = n - n / 5;
    izb_point *apart = test_xcalloc((size_t)n + 64, sizeof *apart);
    memcpy(apart, pts, (size_t)cut1 * sizeof *pts);
    memcpy(apart + cut1 + 32, pts + cut1, (size_t)(cut2 - cut1) * sizeof *pts);
    memcpy(apart + cut2 + 64, pts + cut2, (size_t)(n - cut2) * sizeof *pts);
    const izb_cpu_runs runs = {
        4, {apart, apart + cut1 + 32, apart + 7, apart + cut2 + 64}, {cut1, cut2 - cut1, 0, n - cut2}};
    izb_cpu_points soa = {0};
    CHECK(izb_cpu_points_reserve(&soa, (size_t)n, "test points"), "reserve %d points", n);
    for (int ii = 0; ii < NISAS; ii++) {
        const izb_cpu_isa isa = isas[ii];
        if (!izb_cpu_isa_available(isa)) {
            CHECK(!izb_cpu_bin_soa(pts, n, &g, &soa, cs, ce, 1, scratch, isa),
                  "%s: binning refused where it does not run", izb_cpu_isa_name(isa));
            continue;
        }
        for (int ti = 0; ti < nthreads; ti++) {
            const int T = threads[ti];
            memset(soa.x, 0xff, (size_t)n * sizeof *soa.x); /* NaN: a stale point cannot pass */
            CHECK(izb_cpu_bin_soa(pts, n, &g, &soa, cs, ce, T, scratch, isa), "bin %s runs",
                  izb_cpu_isa_name(isa));
            izb_cpu_points_to_aos(&soa, n, back);
            CHECK(same_bins(back, cs, ce, want, ws, we, n, cells),
                  "n %d kind %d grid %dx%d %s threads %d: SoA binning == the plain stable sort", n, kind, g.w,
                  g.h, izb_cpu_isa_name(isa), T);
            memset(soa.x, 0xff, (size_t)n * sizeof *soa.x);
            CHECK(izb_cpu_bin_runs(&runs, &g, &soa, cs, ce, T, scratch, isa), "bin runs %s runs",
                  izb_cpu_isa_name(isa));
            izb_cpu_points_to_aos(&soa, n, back);
            CHECK(same_bins(back, cs, ce, want, ws, we, n, cells),
                  "n %d kind %d grid %dx%d %s threads %d: binning of 4 runs == the plain stable sort", n,
                  kind, g.w, g.h, izb_cpu_isa_name(isa), T);
        }
    }
    izb_cpu_points_free(&soa);
    free(pts), free(want), free(back), free(ws), free(we), free(cs), free(ce), free(scratch), free(apart);
}

int main(void)
{
    test_binning();
    static const int all_threads[] = {1, 2, 7}, two[] = {2};
    const int counts[] = {33, 500, 40000};
    const int grids[][2] = {{0, 0}, {1, 1}, {16, 16}, {64, 3}, {1024, 1}};
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
        for (int kind = PTS_PLAIN; kind < PTS_KINDS; kind++)
            for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++)
                if (counts[ci] < 40000 || gi % 2 == 0) /* the big case on three grids: time */
                    check_soa(counts[ci], kind, grids[gi][0], grids[gi][1], all_threads, 3);
    /* every point count from 1 to 70 in one cell: rows of every length around the 16-point block */
    for (int n = 1; n <= 70; n++)
        check_soa(n, PTS_PLAIN, 1, 1, two, 1);
    return test_done();
}
