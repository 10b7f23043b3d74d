/* test_cpu_cull.c — stage 3 of the CPU backend (cpu/cull.c: izb_cpu_cull_isa, bundles of 16
 * through the vectorised pre-test of kernels_cull.h, then the scalar setup of its survivors)
 * against a plain scalar loop of izb_transform + izb_may_cull + izb_tri_setup (suite cpu). The
 * mirror of tests/cuda/test_cuda_cull.c, the same contract: the same survivors in the same (input)
 * order with the same edge functions, depth plane and cell range (byte-equal izb_tri), back-face
 * culling on and off; the survivors' scene indices (tri_id) too.
 * izb_ref_cull, izb_ref_cull_ids (the CUDA test's reference), izb_cpu_cull and izb_cpu_cull_ids at
 * 1, 2, 3 and 7 threads on frames from izb_frame_make. For every copy
 * this CPU runs (base, AVX2, AVX-512), 1, 2 and 3 threads, cull modes on / off / auto (closed
 * components, directional and spot light): survivors, their order and tri_id byte-equal.
 * Triangles: random, crossing the light's w = 0 plane, wholly behind it, degenerate (collinear,
 * repeated vertex), NaN and Inf vertices, back faces, off the points' bbox, tiny and huge; counts
 * around the 16-triangle bundle (tails of 0..15). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb_cpu_stages.h"
#include "test.h"
#include "view.h"

#define TEST_RNG_SEED 0x2545F4914F6CDD1Dull
#include "test_rng.h"

static const int thread_counts[] = {1, 2, 3};
static const izb_cpu_isa isas[] = {IZB_CPU_ISA_BASE, IZB_CPU_ISA_AVX2, IZB_CPU_ISA_AVX512};

/* triangle kinds a scene mixes */
enum { RANDOM, CROSSING, BEHIND, DEGENERATE, NONFINITE, TINY, HUGE_TRI, OFF_BOX, KINDS };

/* 9 floats of one triangle of kind k; the light below looks down -z with w = 2 - z, so z > 2 is
 * behind it */
static void make_tri(float *t, int k)
{
    const float cx = (float)rnd_in(-1, 1), cy = (float)rnd_in(-1, 1), cz = (float)rnd_in(-1, 1);
    const float s = k == TINY ? 1e-6f : k == HUGE_TRI ? 1e6f : 0.2f;
    for (int q = 0; q < 3; q++) {
        t[3 * q + 0] = cx + s * (float)rnd_in(-1, 1);
        t[3 * q + 1] = cy + s * (float)rnd_in(-1, 1);
        t[3 * q + 2] = cz + s * (float)rnd_in(-1, 1);
    }
    if (k == CROSSING) t[2] = 2.0f + (float)rnd_in(0, 3), t[5] = 2.0f - (float)rnd_in(0, 3);
    if (k == BEHIND) t[2] += 5.0f, t[5] += 5.0f, t[8] += 5.0f;
    if (k == DEGENERATE) {
        if (rnd() < 0.5) /* repeated vertex */
            memcpy(t + 3, t, 3 * sizeof *t);
        else /* collinear */
            for (int c = 0; c < 3; c++)
                t[6 + c] = 2.0f * t[3 + c] - t[c];
    }
    if (k == NONFINITE) {
        const float bad[] = {NAN, INFINITY, -INFINITY, 1e38f};
        t[(int)(rnd() * 9)] = bad[(int)(rnd() * 4)];
    }
    if (k == OFF_BOX) t[0] += 50.0f, t[3] += 50.0f, t[6] += 50.0f;
}

/* the scalar reference: every triangle in order through izb_tri_setup */
static int scalar_cull(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *b,
                       const izb_cull_view *cv, izb_tri *out, uint32_t *id)
{
    int c = 0;
    for (int i = 0; i < n; i++) {
        float v[3][4];
        for (int q = 0; q < 3; q++)
            izb_transform(f->light, xyz + 9 * i + 3 * q, v[q]);
        if (izb_tri_setup(v, g, b, izb_may_cull(cv, (uint32_t)i), &out[c])) id[c++] = (uint32_t)i;
    }
    return c;
}

/* Make triangle t face the light (looking down -z: the sign of its x, y winding) or away. */
static void orient(float *t, bool front)
{
    const float det = (t[3] - t[0]) * (t[7] - t[1]) - (t[4] - t[1]) * (t[6] - t[0]);
    if ((det > 0.0f) != front)
        for (int c = 0; c < 3; c++) {
            const float x = t[3 + c];
            t[3 + c] = t[6 + c], t[6 + c] = x;
        }
}

/* n triangles; run > 1: kind, facing and component chosen once per run of that many neighbours,
 * as on a mesh, so that whole bundles face away, lie behind the light or miss the bbox (the
 * bundle's early exit) */
static void check_scene(int n, double kind_mix, bool spot, int run)
{
    float *xyz = malloc(9 * (size_t)(n ? n : 1) * sizeof *xyz);
    uint32_t *comp = malloc((size_t)(n ? n : 1) * sizeof *comp);
    /* got: 64-byte aligned (the non-temporal stores) or 16 bytes off (the unaligned ones); one
     * more than n after it, a canary nothing may write */
    izb_tri *want = calloc((size_t)n + 1, sizeof *want), *got_mem = aligned_alloc(64, ((size_t)n + 2) * sizeof *want);
    uint32_t *want_id = calloc((size_t)n + 1, 4), *got_id = calloc((size_t)n + 1, 4);
    if (!xyz || !comp || !want || !got_mem || !want_id || !got_id) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    int kind = RANDOM;
    bool front = true;
    uint32_t run_comp = 0;
    for (int i = 0; i < n; i++) {
        if (run <= 1 || i % run == 0) {
            kind = rnd() < kind_mix ? (int)(rnd() * KINDS) : RANDOM;
            front = rnd() < 0.5;
            run_comp = rnd() < 0.3 ? IZB_OPEN : (uint32_t)(rnd() * 2);
        }
        make_tri(xyz + 9 * i, kind);
        if (run > 1) orient(xyz + 9 * i, front);
        comp[i] = run > 1 ? run_comp : rnd() < 0.3 ? IZB_OPEN : (uint32_t)(rnd() * 2);
    }
    izb_recon f = {0};
    /* column-major: x' = x, y' = y, z' = z, w = 2 - z (spot: a perspective light at z = 2);
     * directional: w = 1 */
    const float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, spot ? -1.0f : 0.0f, 0, 0, 0, spot ? 2.0f : 1.0f};
    memcpy(f.light, m, sizeof m);
    const izb_bbox box = {-1.5f, -1.5f, 1.5f, 1.5f};
    const izb_grid g = {-1.5f, -1.5f, 64 / 3.0f, 32 / 3.0f, 64, 32};
    const float boxes[12] = {-1, -1, -1, 1, 1, 1, 5, 5, 5, 6, 6, 6};
    const izb_cull_view views[] = {
        {.mode = IZB_CULL_ON},
        {.mode = IZB_CULL_OFF},
        {.mode = IZB_CULL_AUTO,
         .comp = comp,
         .boxes = boxes,
         .light_origin = {0, 0, 2},
         .light_is_spot = spot},
    };
    for (int v = 0; v < 3; v++) {
        const int nw = scalar_cull(xyz, n, &f, &g, &box, &views[v], want, want_id);
        for (int a = 0; a < 3; a++) {
            if (!izb_cpu_isa_available(isas[a])) continue;
            for (int r = 0; r < 3 * 2; r++) {
                const int t = r % 3, misaligned = r / 3;
                izb_tri *got = (izb_tri *)((char *)got_mem + 16 * misaligned);
                memset(got, 0xAB, ((size_t)n + 1) * sizeof *got);
                memset(got_id, 0xAB, ((size_t)n + 1) * 4);
                const int ng =
                    izb_cpu_cull_isa(xyz, n, &f, &g, &box, &views[v], got, got_id, thread_counts[t], isas[a]);
                CHECK(ng == nw, "n %d view %d isa %s threads %d: %d survivors, want %d", n, v,
                      izb_cpu_isa_name(isas[a]), thread_counts[t], ng, nw);
                const unsigned char *canary = (const unsigned char *)&got[n];
                bool intact = true;
                for (size_t k = 0; k < sizeof *got; k++)
                    intact &= canary[k] == 0xAB;
                CHECK(intact, "n %d view %d isa %s threads %d: written past out[n - 1]", n, v,
                      izb_cpu_isa_name(isas[a]), thread_counts[t]);
                if (ng != nw) continue;
                CHECK(memcmp(got, want, (size_t)nw * sizeof *got) == 0,
                        "n %d view %d isa %s threads %d misaligned %d: tris differ", n, v,
                      izb_cpu_isa_name(isas[a]), thread_counts[t], misaligned);
                CHECK(memcmp(got_id, want_id, (size_t)nw * 4) == 0,
                      "n %d view %d isa %s threads %d: ids differ", n, v, izb_cpu_isa_name(isas[a]),
                      thread_counts[t]);
                /* without ids: the same triangles */
                memset(got, 0xCD, ((size_t)n + 1) * sizeof *got);
                const int nn =
                    izb_cpu_cull_isa(xyz, n, &f, &g, &box, &views[v], got, NULL, thread_counts[t], isas[a]);
                CHECK(nn == nw && memcmp(got, want, (size_t)nw * sizeof *got) == 0,
                      "n %d view %d isa %s threads %d: no-id run differs", n, v, izb_cpu_isa_name(isas[a]),
                      thread_counts[t]);
            }
        }
        if (n > 100) /* the scene really has what it is meant to test */
            CHECK(nw > 0 && nw < n, "n %d view %d: %d survivors: nothing culled or nothing kept", n, v, nw);
    }
    free(xyz), free(comp), free(want), free(got_mem), free(want_id), free(got_id);
}

/* izb_cpu_cull (every thread count) and izb_ref_cull against a plain loop of izb_transform +
 * izb_tri_setup on a scene through izb_frame_make's light (directional and spot), two bboxes (one
 * small: few survive), back-face culling on and off */
static void test_cull_frames(void)
{
    const float bmin[3] = {-5, -1, -5}, bmax[3] = {5, 4, 5};
    const light lights[2] = {
        {.type = LIGHT_DIRECTIONAL, .dir = {0.4f, -1.0f, -0.3f}},
        {.type = LIGHT_SPOT, .pos = {0, 3, 0}, .dir = {0.1f, -1, -0.1f}, .cone_deg = 100}};
    camera cam = {.pos = {0, 2, 9}, .fovy = 60};
    static const int ref_threads[] = {1, 2, 3, 7};
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
        uint32_t *want_id = test_xcalloc((size_t)n, sizeof *want_id), *got_id = test_xcalloc((size_t)n, sizeof *got_id);
        for (int li = 0; li < 2; li++) {
            izb_recon f = izb_frame_make(&cam, &lights[li], bmin, bmax, 64, 64);
            const izb_bbox boxes[2] = {{-0.5f, -0.6f, 0.4f, 0.7f}, {-1, -1, 1, 1}};
            for (int bi = 0; bi < 2; bi++) {
                izb_grid g = izb_grid_make(boxes[bi], 5000, 0, 0);
                for (int cull_back = 0; cull_back < 2; cull_back++) {
                    const izb_cull_view cv = {.mode = cull_back ? IZB_CULL_ON : IZB_CULL_OFF};
                    const int m = scalar_cull(xyz, n, &f, &g, &boxes[bi], &cv, want, want_id);
                    if (n == 20000)
                        /* enough survivors to compare, and some culled (box 0 is small: few survive) */
                        CHECK(m > n / 50 && m < n, "light %d box %d cull %d: %d of %d survive", li, bi,
                              cull_back, m, n);
                    for (int ti = 0; ti < 4; ti++) {
                        memset(got, 0xab, (size_t)n * sizeof *got);
                        int gm = izb_cpu_cull(xyz, n, &f, &g, &boxes[bi], &cv, got, ref_threads[ti]);
                        CHECK(gm == m && memcmp(got, want, (size_t)m * sizeof *got) == 0,
                              "n %d light %d box %d cull %d threads %d: %d survivors (want %d), same order",
                              n, li, bi, cull_back, ref_threads[ti], gm, m);
                        memset(got, 0xab, (size_t)n * sizeof *got);
                        memset(got_id, 0xab, (size_t)n * sizeof *got_id);
                        gm = izb_cpu_cull_ids(xyz, n, &f, &g, &boxes[bi], &cv, got, got_id, ref_threads[ti]);
                        CHECK(gm == m && memcmp(got, want, (size_t)m * sizeof *got) == 0 &&
                                  memcmp(got_id, want_id, (size_t)m * sizeof *got_id) == 0,
                              "n %d light %d box %d cull %d threads %d: izb_cpu_cull_ids' survivors and ids", n,
                              li, bi, cull_back, ref_threads[ti]);
                    }
                    int gm = izb_ref_cull(xyz, n, &f, &g, &boxes[bi], cull_back, got);
                    CHECK(gm == m && memcmp(got, want, (size_t)m * sizeof *got) == 0, "izb_ref_cull");
                    /* the reference the CUDA stage's tri_id is compared with */
                    memset(got, 0xab, (size_t)n * sizeof *got);
                    memset(got_id, 0xab, (size_t)n * sizeof *got_id);
                    gm = izb_ref_cull_ids(xyz, n, &f, &g, &boxes[bi], cull_back, got, got_id);
                    CHECK(gm == m && memcmp(got, want, (size_t)m * sizeof *got) == 0 &&
                              memcmp(got_id, want_id, (size_t)m * sizeof *got_id) == 0,
                          "n %d light %d box %d cull %d: izb_ref_cull_ids' survivors and ids", n, li, bi, cull_back);
                }
            }
        }
        free(xyz), free(want), free(got), free(want_id), free(got_id);
    }
}

int main(void)
{
    test_cull_frames();
    for (int spot = 0; spot < 2; spot++) {
        for (int n = 0; n <= 50; n++) /* every tail length, one to three bundles */
            check_scene(n, 0.5, spot, 1);
        check_scene(5003, 0.5, spot, 1);
        check_scene(4096, 0.05, spot, 1);
        check_scene(2000, 1.0, spot, 1);
        check_scene(5003, 0.3, spot, 40); /* mesh-like runs */
        check_scene(1537, 0.3, spot, 17);
    }
    /* an unavailable copy is refused, not run */
    for (int a = 0; a < 3; a++)
        if (!izb_cpu_isa_available(isas[a])) {
            izb_tri t;
            izb_recon f = {0};
            const izb_cull_view cv = {.mode = IZB_CULL_OFF};
            const float xyz[9] = {0};
            const izb_grid g = {0, 0, 1, 1, 1, 1};
            const izb_bbox b = {0, 0, 1, 1};
            CHECK(izb_cpu_cull_isa(xyz, 1, &f, &g, &b, &cv, &t, NULL, 1, isas[a]) == -1, "isa %d not refused",
                  a);
        }
    return test_done();
}
