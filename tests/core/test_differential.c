/* test_differential.c — seeded differential runs of the CPU backend against a brute force, over
 * random cases (issue 23 item 2): scene, light, camera, frame, motion from tests/differential_gen.h
 * (shared with cuda_differential, which holds the CUDA backend to this one on the same seeds).
 * Checked per seed:
 *  (a) the backend's mask equals the brute force of fuzz_izb.c (every pixel reconstructed, every
 *      point against every triangle, izb_may_cull over izb_closed_find) for kernel 1/2 x radix /
 *      atomic x cull auto / on / off (grid adaptive, or a random one on some seeds);
 *  (b) with ids (izb_shade_arrays_ids) it equals the brute force that skips the hits
 *      izb_hit_is_own calls the point's own;
 *  (c) cull auto vs cull off: where the two brute forces agree, the two backend masks agree;
 *  (d) izb_update_scene after a random rigid motion equals a fresh izb_set_scene of the moved
 *      triangles, bit for bit (and the brute force), with a spot light placed at the moved
 *      position of a closed mesh, so that it is outside that mesh before and inside after (auto
 *      culling's decision changes; counted and required);
 *  (e) on the seeds with a point light (the spot's position: outside, inside a closed mesh, on a
 *      surface or at a vertex), the six faces combined equal the brute force of the faces as a
 *      partition (izb_brute_force_faces), cull auto / off x ids off / on, and auto equals off where their brute forces agree;
 *  (f) on the seeds with an area light (the spot with an emitter, izb_area.h), the byte equals the
 *      area brute force's (izb_brute_force_soft) for the seed's kernel, binning, cull mode and ids.
 * Nothing is printed for a seed unless it fails: then the seed and what differed (replay with
 * IZB_DIFF_SEED=K). IZB_DIFF_SEEDS=N runs N seeds (default DEFAULT_SEEDS: about 10 s on one core)
 * from IZB_DIFF_SEED_BASE (default 0). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "differential_gen.h"
#include "izb.h"
#include "izb_brute.h"
#include "izb_closed.h"
#include "test.h"

#define DEFAULT_SEEDS 1500

/* ---- the brute force (tests/izb_brute.h, shared with fuzz_izb.c) ------------------------------ */

static void brute_force(const izb_recon *f, const float *depth, const uint32_t *ids, const float *xyz, int nt,
                        const izb_cull_view *cull, uint8_t *mask)
{
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    izb_brute_force(f, depth, ids, xyz, nt, cull, mask, pts, pix);
}

/* the brute force for cull mode `mode` (resolved settings' bias, as the backend) */
static void brute_mode(const izb_recon *f, const float *depth, const uint32_t *ids, const float *xyz, int nt,
                       const izb_closed *cl, izb_cull mode, float bias, uint8_t *mask)
{
    const izb_settings rs = izb_settings_resolve((izb_settings){.cull = mode, .bias = bias});
    izb_recon fb = *f;
    fb.bias = rs.bias;
    izb_cull_view cv = {.mode = rs.cull, .comp = cl->comp, .boxes = cl->boxes, .light_is_spot = fb.light_is_spot};
    if (fb.light_is_spot) izb_light_origin(fb.light, cv.light_origin);
    brute_force(&fb, depth, ids, xyz, nt, &cv, mask);
}

/* ---- the checks ------------------------------------------------------------------------------- */

static long comparisons; /* pixel comparisons made, over all seeds */

/* mismatching pixels of a vs b (0 = shadow, else lit); the first one reported */
static int diff_masks(const uint8_t *a, const uint8_t *b, int W, int H, uint64_t seed, const char *what)
{
    int bad = 0;
    for (int i = 0; i < W * H; i++) {
        comparisons++;
        if ((a[i] == 0) != (b[i] == 0)) {
            if (bad == 0)
                fprintf(stderr, "seed %llu: %s: pixel %d (%d, %d) of %dx%d: %d vs %d\n", (unsigned long long)seed,
                        what, i, i % W, i / W, W, H, a[i], b[i]);
            bad++;
        }
    }
    return bad;
}

static int seeds_mixed, seeds_cull_changed, seeds_own_differs, seeds_point, seeds_point_mixed;

/* Is pixel k's point surely hidden from a point light at lpos, by a double-precision segment test
 * that shares nothing with izb_math.h (tests/ray_cast.h)? Sure: the segment meets a triangle other
 * than the pixel's own (own) well inside it (barycentric margin 1e-4) and well between its ends
 * (2e-3 .. 1 - 1e-4 of the way: past any bias, short of a light on a surface), with both ends
 * clearly off the triangle's plane (1e-4 of the segment's length): a segment that grazes the
 * plane, as from a light on a surface to a point on a coplanar one, crosses it anywhere within
 * rounding, and the own-plane rule (izb_hit_is_own) rightly ignores such a triangle. */
static bool truth_sure_shadow(const diff_case *dc, int k, const float lpos[3], uint32_t own)
{
    double o[3], dir[3], p[3], seg[3];
    ray_of_pixel(&dc->cam, &dc->faces[0], k % dc->W, k / dc->W, o, dir);
    for (int a = 0; a < 3; a++) p[a] = o[a] + dc->depth[k] * dir[a], seg[a] = lpos[a] - p[a];
    for (int i = 0; i < dc->g.nt; i++) {
        double t, u, v;
        const float *q = dc->g.xyz + 9 * i;
        if ((uint32_t)i == own || !ray_plane_bary(p, seg, q, &t, &u, &v)) continue;
        if (!(t > 2e-3 && t < 1 - 1e-4 && fmin(fmin(u, v), 1 - u - v) > 1e-4)) continue;
        double e1[3], e2[3], n[3], nl = 0, sl = 0, dp = 0, dl = 0;
        for (int a = 0; a < 3; a++) e1[a] = q[3 + a] - q[a], e2[a] = q[6 + a] - q[a];
        n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        for (int a = 0; a < 3; a++)
            nl += n[a] * n[a], sl += seg[a] * seg[a], dp += n[a] * (p[a] - q[a]), dl += n[a] * (lpos[a] - q[a]);
        const double off = 1e-4 * sqrt(sl) * sqrt(nl);
        if (fabs(dp) > off && fabs(dl) > off) return true;
    }
    return false;
}

/* (e) a point light: the six faces combined (izb_shade_arrays_faces) against the brute force of
 * the faces as a partition (izb_brute_force_faces: each pixel shaded by the face that owns it), for cull auto / off x ids off / on; and cull auto against off wherever
 * the two brute forces agree (the light on a surface, at a vertex, inside a closed mesh: auto must
 * stay exact), and cull auto lit nowhere the ray-traced truth is sure of shadow (a third of the
 * pixels: time) — the brute forces share izb_may_cull, so only this catches a wrong decision that
 * culls the faces a light inside a closed mesh sees */
static void check_point(izb_backend *b, const diff_case *dc, const izb_closed *cl, uint64_t seed)
{
    const int W = dc->W, H = dc->H, N = W * H;
    static uint8_t want[4][MAX_W * MAX_H], got[4][MAX_W * MAX_H], face[MAX_W * MAX_H], scratch[MAX_W * MAX_H];
    static float face_depth[MAX_W * MAX_H];
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    char what[256];
    CHECK(dc->nfaces == LIGHT_CUBE_FACES, "seed %llu: a point light has %d faces", (unsigned long long)seed,
          dc->nfaces);
    for (int q = 0; q < 4; q++) {
        const izb_cull c = q & 1 ? IZB_CULL_OFF : IZB_CULL_AUTO;
        const uint32_t *ids = q & 2 ? dc->ids : NULL;
        const izb_settings rs = izb_settings_resolve((izb_settings){.cull = c, .bias = dc->bias});
        izb_recon fb[LIGHT_CUBE_FACES];
        for (int i = 0; i < dc->nfaces; i++) fb[i] = dc->faces[i], fb[i].bias = rs.bias;
        izb_cull_view cv = {.mode = rs.cull, .comp = cl->comp, .boxes = cl->boxes, .light_is_spot = fb[0].light_is_spot};
        izb_light_origin(fb[0].light, cv.light_origin);
        izb_brute_force_faces(fb, dc->nfaces, dc->depth, ids, dc->g.xyz, dc->g.nt, &cv, want[q], pts, pix, face_depth,
                              face);
        const izb_settings s = {.kernel = dc->pt_kernel[q], .binning = dc->pt_binning[q], .cull = c, .bias = dc->bias};
        snprintf(what, sizeof what, "(e) point light (%s position) kernel%d %s cull %s%s", light_kind_names[dc->light_kind],
                 s.kernel, izb_binning_names[s.binning], izb_cull_names[c], ids ? " ids" : "");
        CHECK(izb_shade_arrays_faces(b, dc->faces, dc->nfaces, &s, dc->depth, ids, got[q], scratch, NULL),
              "seed %llu: %s: shade failed", (unsigned long long)seed, what);
        CHECK(diff_masks(got[q], want[q], W, H, seed, what) == 0, "seed %llu: %s: backend != brute force",
              (unsigned long long)seed, what);
    }
    int bad = 0, sh = 0, lit = 0;
    for (int q = 0; q < 4; q += 2)
        for (int k = 0; k < N; k++) {
            if ((want[q][k] == 0) != (want[q + 1][k] == 0)) continue;
            comparisons++;
            bad += (got[q][k] == 0) != (got[q + 1][k] == 0);
        }
    CHECK(bad == 0, "seed %llu: (e) point light: cull auto and off differ on %d pixels where they must agree",
          (unsigned long long)seed, bad);
    int truth_wrong = 0;
    for (int k = 0; k < N; k++) {
        izb_point p;
        if (izb_reconstruct(&dc->faces[0], k % W, k / W, dc->depth[k], &p) == IZB_SKY) continue;
        sh += want[0][k] == 0, lit += want[0][k] != 0;
        if (got[2][k] && (uint64_t)k % 3 == seed % 3 && truth_sure_shadow(dc, k, dc->l.pos, dc->ids[k])) {
            if (!truth_wrong++)
                fprintf(stderr, "seed %llu: (e) pixel %d (%d, %d): lit (cull auto, ids), the ray-traced truth is sure of "
                        "shadow\n", (unsigned long long)seed, k, k % W, k / W);
        }
    }
    CHECK(truth_wrong == 0, "seed %llu: (e) point light (%s position): %d pixels lit where the truth is sure of shadow",
          (unsigned long long)seed, light_kind_names[dc->light_kind], truth_wrong);
    seeds_point++;
    seeds_point_mixed += sh > 0 && lit > 0;
}

static int seeds_area, seeds_area_partial;

/* (f) an area light (the spot with an emitter, izb_area.h): the backend's byte equals the area
 * brute force's (every point x triangle x sample, the cull view with the emitter's reach) for the
 * seed's kernel, binning, cull mode and ids — a spot outside, inside a closed mesh or on a surface,
 * so triangles that cross the light's plane (unbounded penumbra boxes) come up */
static void check_area(izb_backend *b, const diff_case *dc, const izb_closed *cl, uint64_t seed)
{
    const int W = dc->W, H = dc->H;
    static uint8_t want[MAX_W * MAX_H], got[MAX_W * MAX_H];
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    const izb_settings s = {.kernel = dc->area_kernel, .binning = dc->area_binning, .cull = dc->area_cull,
                            .bias = dc->bias};
    const izb_settings rs = izb_settings_resolve(s);
    izb_recon fb = dc->fa;
    fb.bias = rs.bias;
    izb_cull_view cv = {.mode = rs.cull, .comp = cl->comp, .boxes = cl->boxes, .light_is_spot = 1,
                        .light_reach = izb_area_reach(&fb)};
    izb_light_origin(fb.light, cv.light_origin);
    const uint32_t *ids = dc->area_ids ? dc->ids : NULL;
    izb_brute_force_soft(&fb, dc->depth, ids, dc->g.xyz, dc->g.nt, &cv, true, want, pts, pix);
    memset(got, 7, sizeof got);
    CHECK(izb_shade_arrays_ids(b, &dc->fa, &s, dc->depth, ids, got, NULL), "seed %llu: (f) area light: shade failed",
          (unsigned long long)seed);
    int bad = 0, first = -1, partial = 0;
    for (int i = 0; i < W * H; i++) {
        comparisons++;
        partial += want[i] > 0 && want[i] < 255;
        if (got[i] != want[i]) bad++, first = first < 0 ? i : first;
    }
    CHECK(bad == 0,
          "seed %llu: (f) area light %gx%g %s M %d (%s position) kernel%d %s cull %s%s: %d pixels differ (first %d: %d, "
          "want %d)",
          (unsigned long long)seed, (double)fb.light_size[0], (double)fb.light_size[1], fb.light_disk ? "disk" : "rect",
          fb.light_samples, light_kind_names[dc->light_kind], s.kernel, izb_binning_names[s.binning],
          izb_cull_names[rs.cull], ids ? " ids" : "", bad, first, first >= 0 ? got[first] : 0,
          first >= 0 ? want[first] : 0);
    seeds_area++;
    seeds_area_partial += partial > 0;
}

static void run_seed(izb_backend *b, uint64_t seed)
{
    static diff_case dc;
    diff_gen_case(&dc, seed);
    const scene_gen *const g = &dc.g;
    const izb_recon f = dc.f;
    const int W = dc.W, H = dc.H;
    const float *depth = dc.depth;
    const uint32_t *ids = dc.ids;

    char what[256];
    const char *lname = light_kind_names[dc.light_kind];
    CHECK(izb_set_scene(b, g->xyz, g->nt), "seed %llu: set_scene %d triangles", (unsigned long long)seed, g->nt);
    izb_closed cl;
    CHECK(izb_closed_find(g->xyz, g->nt, &cl), "seed %llu: closed analysis", (unsigned long long)seed);

    static uint8_t want[4][MAX_W * MAX_H], want_ids[4][MAX_W * MAX_H], got[4][MAX_W * MAX_H], m[MAX_W * MAX_H];
    /* the default bias, or a tiny one on some seeds (acne that ids must remove: (b) bites) */
    const float bias = dc.bias;
    for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c++) {
        brute_mode(&f, depth, NULL, g->xyz, g->nt, &cl, (izb_cull)c, bias, want[c]);
        brute_mode(&f, depth, ids, g->xyz, g->nt, &cl, (izb_cull)c, bias, want_ids[c]);
    }
    const bool rand_grid = dc.rand_grid;
    const int gw = dc.gw, gh = dc.gh;
    /* (a) every kernel x binning x cull without ids; (b) a random pair with ids */
    for (int k = IZB_KERNEL1; k <= IZB_KERNEL2; k++)
        for (int bn = IZB_BINNING_RADIX; bn <= IZB_BINNING_ATOMIC; bn++)
            for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c++) {
                izb_settings s = {.kernel = (izb_kernel)k, .binning = (izb_binning)bn, .cull = (izb_cull)c, .bias = bias};
                if (rand_grid) s.grid_w = gw, s.grid_h = gh;
                snprintf(what, sizeof what, "(a) kernel%d %s cull %s%s bias %g, %s light, %d tris", k,
                         izb_binning_names[bn], izb_cull_names[c], rand_grid ? " random grid" : "", bias, lname, g->nt);
                CHECK(izb_shade_arrays(b, &f, &s, depth, m, NULL), "seed %llu: %s: shade failed",
                      (unsigned long long)seed, what);
                CHECK(diff_masks(m, want[c], W, H, seed, what) == 0, "seed %llu: %s: backend != brute force",
                      (unsigned long long)seed, what);
                if (k == IZB_KERNEL1 && bn == IZB_BINNING_RADIX) memcpy(got[c], m, (size_t)W * H);

                snprintf(what, sizeof what, "(b) ids kernel%d %s cull %s%s bias %g, %s light, %d tris", k,
                         izb_binning_names[bn], izb_cull_names[c], rand_grid ? " random grid" : "", bias, lname, g->nt);
                CHECK(izb_shade_arrays_ids(b, &f, &s, depth, ids, m, NULL), "seed %llu: %s: shade failed",
                      (unsigned long long)seed, what);
                CHECK(diff_masks(m, want_ids[c], W, H, seed, what) == 0,
                      "seed %llu: %s: backend != brute force skipping own hits", (unsigned long long)seed, what);
            }
    if (memcmp(want[IZB_CULL_AUTO], want_ids[IZB_CULL_AUTO], (size_t)W * H) != 0) seeds_own_differs++;

    /* (c) auto vs off where the brute forces agree */
    {
        int bad = 0;
        for (int i = 0; i < W * H; i++) {
            if ((want[IZB_CULL_AUTO][i] == 0) != (want[IZB_CULL_OFF][i] == 0)) continue;
            comparisons++;
            if ((got[IZB_CULL_AUTO][i] == 0) != (got[IZB_CULL_OFF][i] == 0)) {
                if (!bad)
                    fprintf(stderr, "seed %llu: (c) pixel %d: auto %d, off %d, both brute forces %d\n",
                            (unsigned long long)seed, i, got[IZB_CULL_AUTO][i], got[IZB_CULL_OFF][i],
                            want[IZB_CULL_AUTO][i]);
                bad++;
            }
        }
        CHECK(bad == 0, "seed %llu: (c) cull auto and off differ on %d pixels where they must agree (%s light)",
              (unsigned long long)seed, bad, lname);
    }
    /* both shadow and lit sample points? */
    {
        int sh = 0, lit = 0;
        for (int i = 0; i < W * H; i++) {
            izb_point p;
            if (izb_reconstruct(&f, i % W, i / W, depth[i], &p) != IZB_SAMPLE) continue;
            if (want[IZB_CULL_AUTO][i]) lit++;
            else sh++;
        }
        if (sh > 0 && lit > 0) seeds_mixed++;
    }
    if (dc.point) check_point(b, &dc, &cl, seed);
    if (dc.area) check_area(b, &dc, &cl, seed);
    izb_closed_free(&cl);

    /* (d) a rigid motion: update vs fresh set_scene; a spot light where a closed mesh moves to */
    const float *moved = dc.moved;
    const izb_recon f0 = dc.f0, f1 = dc.f1;
    const float *depth0 = dc.depth0, *depth1 = dc.depth1;
    const uint32_t *ids0 = dc.ids0, *ids1 = dc.ids1;
    izb_closed cl1;
    CHECK(izb_closed_find(moved, g->nt, &cl1), "seed %llu: closed analysis (moved)", (unsigned long long)seed);
    seeds_cull_changed += diff_auto_cull_changes(&dc);
    static uint8_t mu[MAX_W * MAX_H], mf[MAX_W * MAX_H], wb[MAX_W * MAX_H];
    for (int c = IZB_CULL_AUTO; c <= IZB_CULL_OFF; c++) {
        izb_settings s = {
            .kernel = dc.upd_kernel[c], .binning = dc.upd_binning[c], .cull = (izb_cull)c, .bias = bias};
        const bool use_ids = dc.upd_ids[c];
        snprintf(what, sizeof what, "(d) update kernel%d %s cull %s%s, %s light moved to %s", s.kernel,
                 izb_binning_names[s.binning], izb_cull_names[c], use_ids ? " ids" : "", lname,
                 dc.lm.type == LIGHT_SPOT ? "spot" : "directional");
        CHECK(izb_set_scene(b, g->xyz, g->nt), "seed %llu: %s: set_scene", (unsigned long long)seed, what);
        CHECK(izb_shade_arrays_ids(b, &f0, &s, depth0, use_ids ? ids0 : NULL, mu, NULL), "seed %llu: %s: frame 0",
              (unsigned long long)seed, what);
        CHECK(izb_update_scene(b, moved, g->nt), "seed %llu: %s: update_scene", (unsigned long long)seed, what);
        CHECK(izb_shade_arrays_ids(b, &f1, &s, depth1, use_ids ? ids1 : NULL, mu, NULL), "seed %llu: %s: frame 1",
              (unsigned long long)seed, what);
        CHECK(izb_set_scene(b, moved, g->nt), "seed %llu: %s: fresh set_scene", (unsigned long long)seed, what);
        CHECK(izb_shade_arrays_ids(b, &f1, &s, depth1, use_ids ? ids1 : NULL, mf, NULL), "seed %llu: %s: fresh",
              (unsigned long long)seed, what);
        comparisons += W * H;
        int bad = 0, first = -1;
        for (int i = 0; i < W * H; i++)
            if (mu[i] != mf[i]) bad++, first = first < 0 ? i : first;
        CHECK(bad == 0, "seed %llu: %s: update != fresh set_scene on %d pixels (first %d: %d vs %d)",
              (unsigned long long)seed, what, bad, first, first >= 0 ? mu[first] : 0, first >= 0 ? mf[first] : 0);
        brute_mode(&f1, depth1, use_ids ? ids1 : NULL, moved, g->nt, &cl1, (izb_cull)c, bias, wb);
        CHECK(diff_masks(mu, wb, W, H, seed, what) == 0, "seed %llu: %s: updated backend != brute force",
              (unsigned long long)seed, what);
    }
    izb_closed_free(&cl1);
}

int main(void)
{
    /* one worker thread by default: on a loaded machine OpenMP's spinning waits cost more than the
     * tiny frames' work (IZB_DIFF_THREADS=N for more) */
    const char *th = getenv("IZB_DIFF_THREADS");
    const int threads = th && atoi(th) > 0 ? atoi(th) : 1;
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = threads, .quiet = true});
    CHECK(b != NULL, "no CPU backend");
    if (!b) return test_done();
    long first, n;
    diff_seed_range(DEFAULT_SEEDS, &first, &n);
    const int failed0 = test_failed_;
    for (long s = first; s < first + n; s++) {
        const int before = test_failed_;
        run_seed(b, (uint64_t)s);
        if (test_failed_ != before) fprintf(stderr, "seed %ld FAILED (replay: IZB_DIFF_SEED=%ld)\n", s, s);
    }
    izb_destroy(b);
    if (n >= 20) {
        CHECK(comparisons > 100000L * n / 20, "only %ld pixel comparisons over %ld seeds", comparisons, n);
        CHECK(seeds_mixed * 2 >= n, "only %d of %ld seeds have both shadowed and lit points", seeds_mixed, n);
        CHECK(seeds_cull_changed * 10 >= n, "auto culling's decision changed between poses in only %d of %ld seeds",
              seeds_cull_changed, n);
        CHECK(seeds_own_differs * 20 >= n, "ids changed the brute force's mask in only %d of %ld seeds",
              seeds_own_differs, n);
        CHECK(seeds_point * 10 >= n && seeds_point_mixed * 2 >= seeds_point,
              "(e) point lights on %d of %ld seeds, %d with both shadow and light", seeds_point, n, seeds_point_mixed);
        CHECK(seeds_area * 20 >= n && seeds_area_partial * 3 >= seeds_area,
              "(f) area lights on %d of %ld seeds, %d with partial shadow", seeds_area, n, seeds_area_partial);
    }
    if (getenv("IZB_DIFF_VERBOSE"))
        printf("%ld seeds, %ld comparisons, %d mixed, %d cull changed, %d own differs, %d point (%d mixed), %d failed "
               "checks; %d area (%d partial)\n", n, comparisons, seeds_mixed, seeds_cull_changed, seeds_own_differs,
               seeds_point, seeds_point_mixed, test_failed_ - failed0, seeds_area, seeds_area_partial);
    return test_done();
}
