/* test_backend.c — cpu/backend.c through izb.h, on a scene whose shadows are known in closed
 * form (a square plate above a ground quad, looked at from above): the mask against the analytic
 * answer for a directional and a spot light; every kernel x binning x grid x thread count gives the
 * same mask; stats and izb_get_debug; odd and 1x1 sizes, no triangles, all-sky frames, resizing,
 * bad arguments; the instruction set the backend picks (IZB_CPU_ISA caps it, bad values are
 * ignored). The mirror of tests/cuda/test_cuda_backend.c. Needs no Embree. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_cpu_stages.h"
#include "test.h"
#include "view.h"

/* ground [-10, 10]^2 at y = 0 and a plate [-1, 1]^2 at y = 1, both facing up (counter-clockwise
 * seen from above); a downward-facing copy of the plate at y = 0.999 closes it into a slab. */
static const float tris[] = {
    -10, 0, -10, -10, 0, 10, 10, 0, 10, /* ground */
    -10, 0, -10, 10, 0, 10, 10, 0, -10,
    -1, 1, -1, -1, 1, 1, 1, 1, 1, /* plate top */
    -1, 1, -1, 1, 1, 1, 1, 1, -1,
    -1, 0.999f, -1, 1, 0.999f, 1, -1, 0.999f, 1, /* plate bottom, facing down */
    -1, 0.999f, -1, 1, 0.999f, -1, 1, 0.999f, 1,
};
#define TRI_COUNT 6
static const float bmin[3] = {-10, 0, -10}, bmax[3] = {10, 1, 10};

/* Linear view depth of the scene above for camera c at W x H, by ray casting in double. Writes
 * the world position of each pixel's hit into pos (NULL ok). */
static void analytic_depth(const camera *c, int W, int H, float *depth, double (*pos)[3]);
/* 255 lit, 0 shadow or outside the cone, 128 too close to a shadow or cone edge to call */
static uint8_t analytic_mask(const light *l, const float lm[16], const double p[3]);

static void analytic_depth(const camera *c, int W, int H, float *depth, double (*pos)[3])
{
    float view[16], proj[16];
    camera_view(c, view);
    camera_proj(c, (float)W / (float)H, proj);
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            double v[3] = {((2.0 * px + 1) / W - 1) / proj[0], ((2.0 * py + 1) / H - 1) / proj[5], -1.0}, d[3];
            for (int j = 0; j < 3; j++)
                d[j] = view[4 * j] * v[0] + view[4 * j + 1] * v[1] + view[4 * j + 2] * v[2];
            double best = 0.0;
            const double planes[2] = {1.0, 0.0}, half[2] = {1.0, 10.0};
            for (int k = 0; k < 2 && best == 0.0; k++) {
                double t = (planes[k] - c->pos[1]) / d[1];
                double x = c->pos[0] + t * d[0], z = c->pos[2] + t * d[2];
                if (t > 0 && fabs(x) <= half[k] && fabs(z) <= half[k]) {
                    best = t; /* |view z| of d is 1: t is the linear depth */
                    if (pos)
                        pos[py * W + px][0] = x, pos[py * W + px][1] = planes[k], pos[py * W + px][2] = z;
                }
            }
            depth[py * W + px] = (float)best;
        }
}

static uint8_t analytic_mask(const light *l, const float lm[16], const double p[3])
{
    const double m = 0.02; /* undecided band around the shadow's and the cone's edges */
    if (p[1] > 0.5)
        return 255; /* the plate's top: nothing above it */
    double sx, sz; /* where the ray toward the light crosses y = 1 */
    if (l->type == LIGHT_SPOT) {
        double q[4];
        for (int r = 0; r < 4; r++)
            q[r] = lm[r] * p[0] + lm[4 + r] * p[1] + lm[8 + r] * p[2] + lm[12 + r];
        double e = hypot(q[0] / q[3], q[1] / q[3]); /* the round cone: the unit circle */
        if (fabs(e - 1.0) < 1e-3)
            return 128;
        if (e > 1.0)
            return 0;
        double s = 1.0 / l->pos[1];
        sx = p[0] + s * (l->pos[0] - p[0]), sz = p[2] + s * (l->pos[2] - p[2]);
    } else {
        double s = 1.0 / -l->dir[1];
        sx = p[0] - s * l->dir[0], sz = p[2] - s * l->dir[2];
    }
    double e = fmax(fabs(sx), fabs(sz));
    return fabs(e - 1.0) < m ? 128 : e < 1.0 ? 0 : 255;
}

static void test_analytic(void)
{
    const int W = 161, H = 121;
    camera cam = {.pos = {0.7f, 5.0f, 7.0f}, .pitch = -35.0f, .yaw = 5.0f, .fovy = 60.0f};
    camera_fit_clip(&cam, bmin, bmax);
    float *depth = malloc(sizeof(float) * W * H);
    double(*pos)[3] = malloc(sizeof *pos * W * H);
    uint8_t *mask = malloc((size_t)W * H), *ref = malloc((size_t)W * H), *first = malloc((size_t)W * H);
    analytic_depth(&cam, W, H, depth, pos);
    long sky = 0;
    for (int i = 0; i < W * H; i++)
        sky += depth[i] == 0.0f;
    CHECK(sky > 100 && sky < W * H / 2, "the view has sky (%ld pixels) and ground", sky);

    const light lights[2] = {{.type = LIGHT_DIRECTIONAL, .dir = {1.5f, -1.0f, 0.3f}},
                             {.type = LIGHT_SPOT, .pos = {0.3f, 6.0f, -0.2f}, .dir = {0, -1, 0}, .cone_deg = 90}};
    const int thread_counts[] = {1, 2, 3, 0};
    for (int li = 0; li < 2; li++) {
        izb_recon f = izb_frame_make(&cam, &lights[li], bmin, bmax, W, H);
        long decided = 0, wrong = 0, shadow = 0, outside = 0;
        for (int i = 0; i < W * H; i++)
            ref[i] = depth[i] > 0.0f ? analytic_mask(&lights[li], f.light, pos[i]) : 255;
        bool have_first = false;
        for (size_t ti = 0; ti < sizeof thread_counts / sizeof thread_counts[0]; ti++) {
            izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = thread_counts[ti]});
            CHECK(b && strcmp(izb_name(b), "cpu") == 0, "CPU backend created");
            if (!b)
                continue;
            CHECK(!izb_supports_gl(b), "the CPU backend has no GL path");
            izb_debug dbg;
            CHECK(!izb_get_debug(b, &dbg), "no debug data before the first frame");
            CHECK(izb_set_scene(b, tris, TRI_COUNT), "set_scene");
            for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2; kernel++)
                for (int binning = IZB_BINNING_RADIX; binning <= IZB_BINNING_ATOMIC; binning++)
                    for (int grid = 0; grid < 3; grid++) {
                        izb_settings s = {.kernel = (izb_kernel)kernel, .binning = (izb_binning)binning};
                        if (grid == 1)
                            s.grid_w = s.grid_h = 1;
                        if (grid == 2)
                            s.grid_w = 37, s.grid_h = 5;
                        izb_stats st;
                        memset(mask, 0x55, (size_t)W * H);
                        CHECK(izb_shade_arrays(b, &f, &s, depth, mask, &st), "shade_arrays");
                        if (!have_first) {
                            memcpy(first, mask, (size_t)W * H);
                            have_first = true;
                            for (int i = 0; i < W * H; i++) {
                                if (depth[i] == 0.0f) {
                                    wrong += mask[i] != 255;
                                    continue;
                                }
                                if (ref[i] == 128)
                                    continue;
                                decided++;
                                wrong += mask[i] != ref[i];
                                shadow += ref[i] == 0;
                                outside += li == 1 && pos[i][1] < 0.5 && ref[i] == 0 &&
                                           fabs(pos[i][0]) > 5.0; /* well outside the shadow: the cone */
                            }
                            printf("%s light: %ld decided pixels, %ld in shadow or unlit, %ld wrong\n",
                                   li ? "spot" : "directional", decided, shadow, wrong);
                            CHECK(wrong == 0, "analytic shadows: %ld of %ld pixels wrong", wrong, decided);
                            CHECK(shadow > 300, "the view shows a shadow (%ld pixels)", shadow);
                            if (li == 1)
                                CHECK(outside > 100, "the spot cone leaves ground unlit (%ld pixels)", outside);
                        } else {
                            CHECK(memcmp(mask, first, (size_t)W * H) == 0,
                                  "light %d kernel%d binning %d grid %d threads %d: same mask", li, kernel, binning,
                                  grid, thread_counts[ti]);
                        }
                        /* stats */
                        long expect_points = 0;
                        for (int i = 0; i < W * H; i++)
                            expect_points += depth[i] > 0.0f && (li == 0 || mask[i] != 0 || ref[i] != 0);
                        if (li == 0)
                            CHECK(st.points == W * H - sky, "points %d = covered pixels %ld", st.points, W * H - sky);
                        CHECK(st.tris_in == TRI_COUNT, "tris_in %d", st.tris_in);
                        /* memory held: at least the points twice (pixel order, binned) and the
                         * vertices with a set-up triangle each; bounded by a small multiple */
                        CHECK(st.frame_bytes >= (size_t)st.points * 2 * sizeof(izb_point) &&
                                  st.frame_bytes <= (size_t)W * H * 128 + (1u << 20) &&
                                  st.scene_bytes >= (size_t)TRI_COUNT * (9 * sizeof(float) + sizeof(izb_tri)),
                              "memory held: %zu B frame, %zu B scene", st.frame_bytes, st.scene_bytes);
                        /* culling auto: the ground and the plate's two faces are open quads, none is culled
                         */
                        CHECK(st.tris_after_cull == 6 && st.tris_cullable == 0,
                              "auto culls nothing on open quads: %d survive, %d cullable", st.tris_after_cull,
                              st.tris_cullable);
                        CHECK((int)st.kernel == kernel && (int)st.binning == binning && st.unit_size == 0, "mode recorded");
                        if (grid == 1)
                            CHECK(st.grid_w == 1 && st.grid_h == 1, "grid 1x1");
                        if (grid == 2)
                            CHECK(st.grid_w == 37 && st.grid_h == 5, "grid 37x5");
                        if (grid == 0)
                            CHECK(st.grid_w * st.grid_h >= st.points / 16 && st.grid_w * st.grid_h <= st.points / 4,
                                  "adaptive grid %dx%d for %d points", st.grid_w, st.grid_h, st.points);
                        float sum = 0.0f;
                        int nonneg = 1;
                        for (int k = 0; k < IZB_STAGE_COUNT; k++)
                            sum += st.stage_ms[k], nonneg &= st.stage_ms[k] >= 0.0f;
                        CHECK(nonneg && fabsf(sum - st.total_ms) <= 1e-3f * st.total_ms + 1e-3f,
                              "stage times %g sum to the total %g", sum, st.total_ms);
                        CHECK(st.overflows == 0, "%d overflows", st.overflows);
                        CHECK(st.bbox.min_x <= st.bbox.max_x && st.bbox.min_x >= -1.0f && st.bbox.max_y <= 1.0f,
                              "bbox [%g %g] x [%g %g]", st.bbox.min_x, st.bbox.max_x, st.bbox.min_y, st.bbox.max_y);
                        /* debug: binned points and cells of this frame */
                        CHECK(izb_get_debug(b, &dbg), "debug data after a frame");
                        CHECK(dbg.point_count == st.points && dbg.grid.w == st.grid_w && dbg.grid.h == st.grid_h,
                              "debug matches stats");
                        int cells = dbg.grid.w * dbg.grid.h, ok = dbg.cell_start[0] == 0 &&
                                                                 dbg.cell_end[cells - 1] == (uint32_t)dbg.point_count;
                        for (int c = 0; c < cells && ok; c++)
                            for (uint32_t j = dbg.cell_start[c]; j < dbg.cell_end[c] && ok; j++)
                                ok = izb_cell_hash(&dbg.grid, dbg.points[j].x, dbg.points[j].y) == (uint32_t)c &&
                                     dbg.points[j].pixel < (uint32_t)(W * H) && depth[dbg.points[j].pixel] > 0.0f;
                        CHECK(ok, "debug points are binned by cell");
                    }
            /* culling on drops the plate's downward-facing bottom (its top covers it); same mask */
            izb_stats st;
            CHECK(izb_shade_arrays(b, &f, &(izb_settings){.cull = IZB_CULL_ON}, depth, mask, &st), "cull on");
            CHECK(st.tris_after_cull == 4, "ground and plate top survive, the bottom is culled: %d",
                  st.tris_after_cull);
            CHECK(memcmp(mask, first, (size_t)W * H) == 0, "cull on: same mask");
            /* culling off keeps it too; same mask */
            CHECK(izb_shade_arrays(b, &f, &(izb_settings){.cull = IZB_CULL_OFF}, depth, mask, &st),
                  "no_cull");
            CHECK(st.tris_after_cull == 6, "no_cull keeps all 6 triangles: %d", st.tris_after_cull);
            CHECK(memcmp(mask, first, (size_t)W * H) == 0, "no_cull: same mask");
            izb_destroy(b);
        }
    }
    free(depth), free(pos), free(mask), free(ref), free(first);
}

/* Sizes, empty inputs, resizing and bad arguments. */
static void test_edge_cases(void)
{
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU});
    CHECK(b != NULL, "create");
    if (!b)
        return;
    const light dl = {.type = LIGHT_DIRECTIONAL, .dir = {1.5f, -1.0f, 0.3f}};
    const light sl = {.type = LIGHT_SPOT, .pos = {0.3f, 6.0f, -0.2f}, .dir = {0, -1, 0}, .cone_deg = 90};
    camera cam = {.pos = {0.7f, 5.0f, 7.0f}, .pitch = -35.0f, .yaw = 5.0f, .fovy = 60.0f};
    camera_fit_clip(&cam, bmin, bmax);
    izb_stats st;

    /* odd sizes and 1x1, fresh and after a larger frame, equal to a fresh backend's result */
    const int sizes[][2] = {{1, 1}, {33, 17}, {200, 150}, {33, 17}, {1, 1}, {2, 1}};
    CHECK(izb_set_scene(b, tris, TRI_COUNT), "set_scene");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const int W = sizes[si][0], H = sizes[si][1];
        float *depth = malloc(sizeof(float) * W * H);
        uint8_t *m1 = malloc((size_t)W * H), *m2 = malloc((size_t)W * H);
        analytic_depth(&cam, W, H, depth, NULL);
        izb_recon f = izb_frame_make(&cam, &sl, bmin, bmax, W, H);
        CHECK(izb_shade_arrays(b, &f, NULL, depth, m1, &st), "%dx%d", W, H);
        izb_backend *fresh = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1});
        izb_set_scene(fresh, tris, TRI_COUNT);
        CHECK(izb_shade_arrays(fresh, &f, NULL, depth, m2, NULL), "%dx%d fresh", W, H);
        CHECK(memcmp(m1, m2, (size_t)W * H) == 0, "%dx%d: reused buffers give the fresh result", W, H);
        izb_destroy(fresh);
        free(depth), free(m1), free(m2);
    }

    const int W = 64, H = 48;
    float *depth = malloc(sizeof(float) * W * H);
    uint8_t *mask = malloc((size_t)W * H);
    analytic_depth(&cam, W, H, depth, NULL);
    izb_recon f = izb_frame_make(&cam, &dl, bmin, bmax, W, H);

    /* no triangles: everything lit (directional) */
    CHECK(izb_set_scene(b, NULL, 0), "empty scene accepted");
    CHECK(izb_shade_arrays(b, &f, NULL, depth, mask, &st), "0 triangles");
    CHECK(memchr(mask, 0, (size_t)W * H) == NULL && st.tris_after_cull == 0 && st.points > 0,
          "0 triangles: all lit, %d points", st.points);
    CHECK(izb_set_scene(b, tris, TRI_COUNT), "set_scene again");

    /* all sky */
    float *sky = calloc((size_t)W * H, sizeof(float));
    memset(mask, 0, (size_t)W * H);
    izb_recon fs = izb_frame_make(&cam, &sl, bmin, bmax, W, H);
    CHECK(izb_shade_arrays(b, &fs, NULL, sky, mask, &st), "all sky");
    int all255 = 1;
    for (int i = 0; i < W * H; i++)
        all255 &= mask[i] == 255;
    CHECK(all255 && st.points == 0 && st.tris_after_cull == 0, "all sky: mask 255, no points");
    izb_debug dbg;
    CHECK(izb_get_debug(b, &dbg) && dbg.point_count == 0, "debug after an all-sky frame: 0 points");
    /* (test_cuda_recon.c asks the same of the GPU's stage 1: no points, no grid) */
    CHECK(dbg.grid.w == 0 && dbg.grid.h == 0 && st.grid_w == 0 && st.grid_h == 0,
          "all sky: grid %dx%d (stats %dx%d), want 0x0", dbg.grid.w, dbg.grid.h, st.grid_w, st.grid_h);

    /* bad arguments: message and false, never a crash */
    izb_recon bad = f;
    bad.width = 0;
    CHECK(!izb_shade_arrays(b, &bad, NULL, depth, mask, &st), "width 0 rejected");
    CHECK(!izb_shade_arrays(b, &f, &(izb_settings){.grid_w = 100000, .grid_h = 4}, depth, mask, &st),
          "absurd grid rejected");
    CHECK(!izb_get_debug(b, &dbg), "no debug data after a failed frame");
    CHECK(!izb_set_scene(b, NULL, 5), "NULL triangles rejected");
    CHECK(!izb_set_scene(b, tris, -1), "negative count rejected");
    CHECK(izb_set_scene(b, tris, TRI_COUNT) &&
              izb_shade_arrays(b, &f, &(izb_settings){.cull = IZB_CULL_ON}, depth, mask, &st) &&
              st.tris_after_cull == 4,
          "usable after bad calls");
    izb_destroy(b);
    izb_destroy(NULL);
    free(depth), free(mask), free(sky);
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
    test_analytic();
    test_edge_cases();
    return test_done();
}
