/* test_cpu_aa_foot.c — the anti-aliased frames' footprints kernel (cpu/kernels_aa_foot.h, every
 * instruction set) against a plain scalar loop of izb_aa_footprint (core/izb_aa.h), bit for bit.
 * The kernel gathers each binned point's depth, neighbours and facet corners 16 lanes at a time
 * (vector gathers, clamped neighbour indices, prefetches): a wrong lane, a neighbour read across
 * the image's border instead of sky, an id not dropped, a tail block, a chunk not starting on a
 * block, or an extent max-ed over the wrong lanes shows here as a differing float. Random frames:
 * directional and spot lights, random cameras and sizes; depth images of tilted planes with
 * discontinuities, sky (0, NaN, Inf, negative) and tiny or huge depths; ids valid, IZB_NO_ID and
 * out of range, with and without the ids image; triangles degenerate or not; the binned points a
 * random subset of pixels in random order, run over random chunks [j0, j1): the floats outside the
 * chunk stay untouched. Also the cells' reach boxes (izb_cpu_aa_cell_boxes_range, each ISA in turn
 * by IZB_CPU_ISA) against a plain loop of izb_cpu_aa_reach: random points, extents (NaN, 0, wide
 * ones past the thresholds), empty cells, sub-ranges of cells. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb_cpu_isa.h"
#include "test.h"
#include "view.h"

#define TEST_RNG_SEED 0x9E3779B97F4A7C15ull
#include "test_rng.h"

#define FRAMES 48
static const izb_cpu_isa isas[] = {IZB_CPU_ISA_BASE, IZB_CPU_ISA_AVX2, IZB_CPU_ISA_AVX512};

/* a depth image: a tilted plane, with jumps, sky and odd magnitudes sprinkled in */
static void make_depth(float *depth, int W, int H)
{
    const double d0 = pow(10, rnd_in(-2, 2)), gx = rnd_in(-0.02, 0.02), gy = rnd_in(-0.02, 0.02);
    const float sky[4] = {0.0f, NAN, INFINITY, -1.0f};
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double d = d0 * (1 + gx * x + gy * y);
            if (d <= 0) d = d0;
            const double r = rnd();
            if (r < 0.08)
                depth[y * W + x] = sky[(int)(rnd() * 4)];
            else if (r < 0.2)
                depth[y * W + x] = (float)(d * rnd_in(0.3, 3)); /* a discontinuity */
            else if (r < 0.21)
                depth[y * W + x] = (float)(d * (rnd() < 0.5 ? 1e-5 : 1e5));
            else
                depth[y * W + x] = (float)d;
        }
}

/* izb_cpu_aa_cell_boxes_range == the loop of its contract, bit for bit, under each IZB_CPU_ISA cap */
static void check_cell_boxes(void)
{
    static const char *names[] = {"base", "avx2", "avx512"};
    long cells_checked = 0;
    for (int round = 0; round < 30; round++) {
        const int64_t cells = 1 + (int64_t)(rnd() * 700);
        uint32_t *start = malloc(sizeof(uint32_t) * (size_t)cells), *end = malloc(sizeof(uint32_t) * (size_t)cells);
        uint32_t n = 0;
        for (int64_t c = 0; c < cells; c++) {
            start[c] = n;
            n += rnd() < 0.3 ? 0u : (uint32_t)(rnd() * 9);
            end[c] = n;
        }
        float *x = malloc(sizeof(float) * (n + 1)), *y = malloc(sizeof(float) * (n + 1));
        float *buf = malloc(sizeof(float) * IZB_CPU_AA_FEET_FLOATS(n));
        const izb_cpu_aa_feet F = izb_cpu_aa_feet_in(buf, (int)n);
        const double scale = pow(10, rnd_in(-3, 3));
        for (uint32_t j = 0; j < n; j++) {
            x[j] = (float)(scale * rnd_in(-1, 1)), y[j] = (float)(scale * rnd_in(-1, 1));
            const double r = rnd();
            F.ex[j] = r < 0.05 ? NAN : r < 0.1 ? 0.0f : (float)(scale * 1e-3 * rnd_in(0, 3));
            F.ey[j] = r > 0.95 ? NAN : r > 0.9 ? 0.0f : (float)(scale * 1e-3 * rnd_in(0, 3));
        }
        const izb_cpu_points p = {.x = x, .y = y};
        const float tx = round % 2 ? INFINITY : (float)(scale * 2e-3), ty = round % 2 ? INFINITY : (float)(scale * 2e-3);
        float *want = malloc(sizeof(float) * 4 * (size_t)cells), *got = malloc(sizeof(float) * 4 * (size_t)cells);
        for (int64_t c = 0; c < cells; c++) {
            float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
            for (uint32_t j = start[c]; j < end[c]; j++) {
                if (!(F.ex[j] <= tx && F.ey[j] <= ty)) continue;
                const float rx = izb_cpu_aa_reach(x[j], F.ex[j]), ry = izb_cpu_aa_reach(y[j], F.ey[j]);
                x0 = izb_minf(x0, x[j] - rx), x1 = izb_maxf(x1, x[j] + rx);
                y0 = izb_minf(y0, y[j] - ry), y1 = izb_maxf(y1, y[j] + ry);
            }
            want[4 * c] = x0, want[4 * c + 1] = y0, want[4 * c + 2] = x1, want[4 * c + 3] = y1;
        }
        for (int a = 0; a < 3; a++) {
            if (!izb_cpu_kernels_get(isas[a])) continue;
            setenv("IZB_CPU_ISA", names[a], 1);
            const int64_t c0 = (int64_t)(rnd() * (double)cells * 0.5), c1 = c0 + (int64_t)(rnd() * (double)(cells - c0 + 1));
            memset(got, 0x7b, sizeof(float) * 4 * (size_t)cells);
            izb_cpu_aa_cell_boxes_range(&p, &F, start, end, c0, c1 > cells ? cells : c1, tx, ty, got);
            long wrong = 0, touched = 0;
            for (int64_t c = 0; c < cells; c++) {
                if (c >= c0 && c < c1)
                    wrong += memcmp(got + 4 * c, want + 4 * c, 4 * sizeof(float)) != 0, cells_checked++;
                else
                    for (int i = 0; i < 4; i++) {
                        uint32_t u;
                        memcpy(&u, got + 4 * c + i, sizeof u);
                        touched += u != 0x7b7b7b7bu;
                    }
            }
            CHECK(wrong == 0 && touched == 0, "cell boxes round %d (%s) [%lld, %lld) of %lld: %ld differ, %ld outside written",
                  round, names[a], (long long)c0, (long long)c1, (long long)cells, wrong, touched);
        }
        unsetenv("IZB_CPU_ISA");
        free(want), free(got), free(buf), free(x), free(y), free(start), free(end);
    }
    CHECK(cells_checked > 5000, "cell boxes: only %ld cells checked", cells_checked);
}

int main(void)
{
    check_cell_boxes();
    long compared = 0, facets = 0, edges = 0;
    for (int fr = 0; fr < FRAMES; fr++) {
        const int W = 1 + (int)(rnd() * 70), H = 1 + (int)(rnd() * 50), npix = W * H;
        const bool spot = fr % 2;
        const light l = spot ? (light){.type = LIGHT_SPOT, .pos = {(float)rnd_in(-3, 3), 6, (float)rnd_in(-3, 3)},
                                       .dir = {(float)rnd_in(-0.5, 0.5), -1, (float)rnd_in(-0.5, 0.5)},
                                       .cone_deg = (float)rnd_in(40, 120)}
                             : (light){.type = LIGHT_DIRECTIONAL,
                                       .dir = {(float)rnd_in(-1, 1), -1, (float)rnd_in(-1, 1)}};
        const camera cam = {.pos = {(float)rnd_in(-4, 4), (float)rnd_in(1, 4), (float)rnd_in(4, 8)},
                            .yaw = (float)rnd_in(-30, 30), .pitch = (float)rnd_in(-40, 0),
                            .fovy = (float)rnd_in(30, 90)};
        const float bmin[3] = {-5, -1, -5}, bmax[3] = {5, 4, 5};
        izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, W, H);
        f.shadow_samples = 8;
        const uint32_t tris = (uint32_t)(1 + rnd() * 40);
        float *depth = malloc(sizeof(float) * (size_t)npix), *xyz = malloc(sizeof(float) * 9 * tris);
        uint32_t *ids = malloc(sizeof(uint32_t) * (size_t)npix);
        /* the binned points: a random subset of the pixels in random order (cell order is not pixel order) */
        uint32_t *pixel = malloc(sizeof(uint32_t) * ((size_t)npix + IZB_CPU_POINTS_PAD));
        make_depth(depth, W, H);
        for (uint32_t t = 0; t < 9 * tris; t++)
            xyz[t] = (float)rnd_in(-5, 5);
        if (tris > 1) memcpy(xyz + 3, xyz, 3 * sizeof(float)); /* triangle 0 degenerate: a zero normal */
        for (int i = 0; i < npix; i++) {
            const double r = rnd();
            ids[i] = r < 0.7 ? (uint32_t)(rnd() * tris) : r < 0.85 ? IZB_NO_ID : tris + (uint32_t)(rnd() * 5);
        }
        int n = 0;
        const double keep = rnd_in(0.3, 1.0);
        for (int i = 0; i < npix; i++)
            if (rnd() < keep) pixel[n++] = (uint32_t)i;
        for (int i = n - 1; i > 0; i--) {
            const int j = (int)(rnd() * (i + 1));
            const uint32_t t = pixel[i];
            pixel[i] = pixel[j], pixel[j] = t;
        }
        for (int j = n; j < n + IZB_CPU_POINTS_PAD; j++)
            pixel[j] = 0;
        const izb_cpu_points p = {.pixel = pixel};
        izb_aa_view V;
        izb_aa_view_make(&f, &V);
        const bool with_ids = fr % 4 < 3;
        /* the reference: a scalar loop of izb_aa_footprint, the facet's normal where the id is valid */
        izb_aa_foot *want = malloc(sizeof(izb_aa_foot) * ((size_t)n + 1));
        for (int j = 0; j < n; j++) {
            const int pix = (int)pixel[j], px = pix % W, py = pix / W;
            const float nb[4] = {px > 0 ? depth[pix - 1] : 0.0f, px + 1 < W ? depth[pix + 1] : 0.0f,
                                 py > 0 ? depth[pix - W] : 0.0f, py + 1 < H ? depth[pix + W] : 0.0f};
            const bool has = with_ids && ids[pix] < tris;
            float nv[3];
            if (has) izb_aa_facet_normal(&V, xyz + 9 * (size_t)ids[pix], nv);
            izb_aa_footprint(&f, px, py, depth[pix], nb, has ? nv : NULL, &want[j]);
            facets += has;
            edges += px == 0 || py == 0 || px + 1 == W || py + 1 == H;
        }
        float *buf = malloc(sizeof(float) * IZB_CPU_AA_FEET_FLOATS(n));
        const izb_cpu_aa_feet F = izb_cpu_aa_feet_in(buf, n);
        for (size_t a = 0; a < sizeof isas / sizeof *isas; a++) {
            const izb_cpu_kernels *kern = izb_cpu_kernels_get(isas[a]);
            if (!kern) continue; /* a copy this CPU does not run */
            for (int c = 0; c < 3; c++) {
                /* the whole range, then chunks not starting or ending on a block of 16 */
                int64_t j0 = 0, j1 = n;
                if (c > 0 && n > 0) {
                    j0 = (int64_t)(rnd() * n), j1 = j0 + (int64_t)(rnd() * (double)(n - j0 + 1));
                    if (j1 > n) j1 = n;
                }
                memset(buf, 0x7b, sizeof(float) * IZB_CPU_AA_FEET_FLOATS(n));
                const float ex0 = c == 2 ? (float)rnd_in(0, 1e-3) : 0.0f, ey0 = c == 2 ? (float)rnd_in(0, 1e-3) : 0.0f;
                float ex = ex0, ey = ey0, wx = ex0, wy = ey0;
                kern->aa_footprints(&f, &V, depth, with_ids ? ids : NULL, xyz, tris, &p, j0, j1, &F, &ex, &ey);
                long wrong = 0, touched = 0;
                for (int j = 0; j < n; j++) {
                    const izb_aa_foot got = izb_cpu_aa_foot_at(&F, (size_t)j);
                    const float gv[11] = {got.a[0], got.a[1], got.a[2], got.b[0], got.b[1], got.b[2],
                                          got.ex,   got.ey,   got.aw,   got.bw,   got.ez};
                    const izb_aa_foot *w = &want[j];
                    const float wv[11] = {w->a[0], w->a[1], w->a[2], w->b[0], w->b[1], w->b[2],
                                          w->ex,   w->ey,   w->aw,   w->bw,   w->ez};
                    if (j >= j0 && j < j1) {
                        wrong += memcmp(gv, wv, sizeof gv) != 0;
                        wx = izb_maxf(wx, w->ex), wy = izb_maxf(wy, w->ey);
                        compared++;
                    } else {
                        uint32_t u[11];
                        memcpy(u, gv, sizeof u);
                        for (int i = 0; i < 11; i++)
                            touched += u[i] != 0x7b7b7b7bu;
                    }
                }
                CHECK(wrong == 0, "frame %d (%dx%d, %s, ids %d) isa %d [%lld, %lld): %ld footprints differ from izb_aa_footprint",
                      fr, W, H, spot ? "spot" : "directional", with_ids, (int)isas[a], (long long)j0, (long long)j1, wrong);
                CHECK(touched == 0, "frame %d isa %d: %ld floats written outside [%lld, %lld)", fr, (int)isas[a], touched,
                      (long long)j0, (long long)j1);
                CHECK(!memcmp(&ex, &wx, sizeof ex) && !memcmp(&ey, &wy, sizeof ey),
                      "frame %d isa %d: largest extents %g %g, want %g %g", fr, (int)isas[a], (double)ex, (double)ey,
                      (double)wx, (double)wy);
            }
        }
        free(buf), free(want), free(pixel), free(ids), free(xyz), free(depth);
    }
    CHECK(compared > 100000 && facets > 10000 && edges > 1000,
          "the case misses its mark: %ld footprints compared, %ld with a facet, %ld at the image's border", compared,
          facets, edges);
    fprintf(stderr, "aa footprints: %ld compared (%ld facets, %ld border pixels)\n", compared, facets, edges);
    return test_done();
}
