/* test_cpu_aa.c — anti-aliased shadow edges (izb_aa.h, the CPU backend's cpu/raster_aa.c): N
 * sub-samples of each pixel's footprint in one IZB pass.
 *  (a) N = 1 (and 0) is today's hard path: the same bytes as the hard brute force, and a frame with
 *      shadow_samples 1 gives the bytes of one with 0 on every mode;
 *  (b) the backend's byte EQUALS the brute force over every (sub-sample, triangle) pair
 *      (tests/izb_brute.h, no grid) on random scenes (tests/differential_gen.h; even seeds directional,
 *      odd ones spot: diff_aa_light), N in {4, 8, 16, 32}, kernel 1/2 x radix/atomic x ids on/off, 1 and 3 threads;
 *      and
 *      the brute force with its pair pre-test (izb_aa_near, the footprint's extent) equals the one
 *      without, so the dilation holds every hit; also on a fine grid (cells smaller than a
 *      footprint), and around a ground's edge where an occluder reaches only sub-samples past the
 *      points' bbox (the triangles' culling against the grown bbox);
 *  (c) a double-precision ray cast (tests/ray_cast.h) from each sub-sample's position toward the
 *      light: among pixels whose every sub-sample the truth is sure of (no edge within 1e-4 in
 *      barycentrics, no hit within the bias distance) the byte is the truth's lit fraction;
 *  (d) the pattern: inside [-1/2, 1/2]^2, a (0, m, 2)-net (every dyadic box of area 1/N holds one
 *      sample), smallest distance >= 0.7 / sqrt(N); the footprint: on a plane seen from random
 *      cameras, every sub-sample lies on the plane and projects into its own pixel; clamped axes
 *      never exceed IZB_AA_MAX_STRETCH pixel steps, whatever the neighbours' depths;
 *  (f) the pairs' pre-test izb_aa_may_hide, and the cells' izb_aa_rect_may_hide on a rectangle
 *      holding the footprint, never reject a pair with a hidden sample (the sample test on random
 *      triangles, footprints and points placed on edges at the rounding's scale);
 *  (e) bad frames (N = 2, 3, 64, -1; N > 1 with a light angle or a light size): refused; a spot
 *      light and a point light's faces: taken;
 *  (g) spot lights (each sub-sample divided by its own w): odd seeds of (b), (c) have one; the
 *      world -> view matrix the facet's plane needs comes out of a spot frame too; the
 *      extents (ex, ey, ez) hold every sub-sample and izb_aa_may_hide_box never rejects a pair with
 *      a hidden one (random projective footprints, samples on edges); footprints reaching toward
 *      the light's plane (a ground through the light, its edge in the cone) stay in front of it
 *      (w >= half the point's) and the backend equals the brute force there.
 * IZB_AA_SEEDS=N runs N seeds (default DEFAULT_SEEDS), IZB_AA_SEED=K the one seed K. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "differential_gen.h"
#include "izb.h"
#include "izb_aa.h"
#include "izb_brute.h"
#include "izb_closed.h"
#include "ray_cast.h"
#include "test.h"
#include "view.h"

#define DEFAULT_SEEDS 10

static const int counts[5] = {1, 4, 8, 16, 32};

/* ---- (d) the pattern and the footprint ----------------------------------------------------- */

static void check_pattern(void)
{
    for (int c = 0; c < 5; c++) {
        const int n = counts[c];
        izb_aa_samples S;
        izb_aa_samples_make(n, &S);
        int m = 0;
        while ((1 << m) < n)
            m++;
        double dmin = INFINITY;
        for (int k = 0; k < n; k++) {
            CHECK(S.u[k] > -0.5f && S.u[k] < 0.5f && S.v[k] > -0.5f && S.v[k] < 0.5f, "N %d sample %d (%g, %g) outside",
                  n, k, S.u[k], S.v[k]);
            for (int j = 0; j < k; j++)
                dmin = fmin(dmin, hypot(S.u[k] - S.u[j], S.v[k] - S.v[j]));
        }
        for (int k = n; k < IZB_AA_MAX_SAMPLES; k++)
            CHECK(S.u[k] == 0.0f && S.v[k] == 0.0f, "N %d: entry %d past N not zero", n, k);
        if (n == 1) CHECK(S.u[0] == 0.0f && S.v[0] == 0.0f, "N 1: not the pixel centre");
        else CHECK(dmin >= 0.7 / sqrt(n), "N %d: smallest distance %g < 0.7 / sqrt(N)", n, dmin);
        /* every split of N = 2^a x 2^(m-a) boxes holds one sample per box */
        for (int a = 0; a <= m; a++) {
            int box[IZB_AA_MAX_SAMPLES] = {0};
            for (int k = 0; k < n; k++) {
                const int bx = (int)floor((S.u[k] + 0.5) * (1 << a)), by = (int)floor((S.v[k] + 0.5) * (1 << (m - a)));
                box[by * (1 << a) + bx]++;
            }
            for (int b = 0; b < n; b++)
                CHECK(box[b] == 1, "N %d: split %d x %d, box %d holds %d samples", n, 1 << a, 1 << (m - a), b, box[b]);
        }
    }
}

/* world position of view-space v for camera c, in double */
static void view_to_world(const camera *c, const double v[3], double w[3])
{
    float m[16];
    camera_view(c, m);
    for (int k = 0; k < 3; k++)
        w[k] = m[4 * k] * (v[0] - m[12]) + m[4 * k + 1] * (v[1] - m[13]) + m[4 * k + 2] * (v[2] - m[14]);
}

static void check_footprint(void)
{
    int checked = 0, edges = 0;
    double worst = 0;
    for (int c = 0; c < 200; c++) {
        /* a plane through a random point with a random normal facing the camera (2 big triangles) */
        const camera cam = {.pos = {0, 0, 0}, .yaw = (float)rnd_in(-180, 180), .pitch = (float)rnd_in(-60, 60),
                            .fovy = (float)rnd_in(30, 90)};
        float fw[3];
        camera_forward(&cam, fw);
        const double dist = rnd_in(1, 50);
        double nrm[3];
        rand_unit(nrm);
        if (nrm[0] * fw[0] + nrm[1] * fw[1] + nrm[2] * fw[2] > 0)
            for (int k = 0; k < 3; k++)
                nrm[k] = -nrm[k];
        double t1[3] = {-nrm[1], nrm[0], 0}, t2[3];
        if (fabs(nrm[2]) > 0.9) t1[0] = 0, t1[1] = -nrm[2], t1[2] = nrm[1];
        const double l1 = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
        for (int k = 0; k < 3; k++)
            t1[k] /= l1;
        t2[0] = nrm[1] * t1[2] - nrm[2] * t1[1], t2[1] = nrm[2] * t1[0] - nrm[0] * t1[2],
        t2[2] = nrm[0] * t1[1] - nrm[1] * t1[0];
        /* cases 2, 3 (mod 4): a small quad in front of a far wall facing the camera, so its
         * silhouette pixels have one neighbour across a discontinuity (the secant must take the
         * other) */
        const bool small = c % 4 >= 2;
        const double S = small ? 0.25 * dist : 100 * dist;
        float xyz[36];
        const double cs[4][2] = {{-S, -S}, {S, -S}, {S, S}, {-S, S}};
        const int order[6] = {0, 1, 2, 0, 2, 3};
        /* the wall: 10x farther, facing the camera (spanned by the camera's right and up) */
        float vm[16], right[3], up[3];
        camera_view(&cam, vm);
        for (int a = 0; a < 3; a++)
            right[a] = vm[4 * a], up[a] = vm[4 * a + 1];
        const double wall = 100 * dist, wc[4][2] = {{-wall, -wall}, {wall, -wall}, {wall, wall}, {-wall, wall}};
        for (int v = 0; v < 6; v++)
            for (int k = 0; k < 3; k++) {
                xyz[3 * v + k] = (float)(fw[k] * dist + cs[order[v]][0] * t1[k] + cs[order[v]][1] * t2[k]);
                xyz[18 + 3 * v + k] = (float)(fw[k] * 10 * dist + wc[order[v]][0] * right[k] + wc[order[v]][1] * up[k]);
            }
        const light l = {.type = LIGHT_DIRECTIONAL, .dir = {0.3f, -1.0f, 0.2f}};
        const float bmin[3] = {-1, -1, -1}, bmax[3] = {1, 1, 1};
        enum { W = 24, H = 16 };
        izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, W, H);
        float depth[W * H];
        uint32_t ids[W * H];
        ray_cast_depth(&cam, &f, xyz, small ? 4 : 2, depth, ids);
        izb_aa_view V;
        izb_aa_view_make(&f, &V);
        float m[16];
        camera_view(&cam, m);
        const double pt[3] = {fw[0] * dist, fw[1] * dist, fw[2] * dist};
        for (int py = 0; py < H; py++)
            for (int px = 0; px < W; px++) {
                const int i = py * W + px;
                if (!(depth[i] > 0) || ids[i] >= 2) continue; /* the plane's pixels only */
                /* and each axis with a neighbour on the plane: a one-pixel sliver has no plane */
                const bool lx = px > 0 && ids[i - 1] < 2, rx = px + 1 < W && ids[i + 1] < 2;
                const bool dy = py > 0 && ids[i - W] < 2, uy = py + 1 < H && ids[i + W] < 2;
                if (small && !((lx || rx) && (dy || uy))) continue;
                edges += small && !(lx && rx && dy && uy);
                const float nb[4] = {px > 0 ? depth[i - 1] : 0.0f, px + 1 < W ? depth[i + 1] : 0.0f,
                                     py > 0 ? depth[i - W] : 0.0f, py + 1 < H ? depth[i + W] : 0.0f};
                float A[3], B[3], P[3];
                /* odd cases: the facet's plane (primitive ids), izb_aa_facet_normal from the frame alone */
                float nv[3];
                if (c % 2) izb_aa_facet_normal(&V, xyz + 9 * ids[i], nv);
                izb_aa_axes(&f, px, py, depth[i], nb, c % 2 ? nv : NULL, A, B);
                izb_aa_view_pos(&f, px, py, depth[i], P);
                const double step = 2.0 * f.ray_sx * depth[i] / W, stepy = 2.0 * f.ray_sy * depth[i] / H;
                const double la = sqrt(A[0] * A[0] + A[1] * A[1] + A[2] * A[2]);
                const double lb = sqrt(B[0] * B[0] + B[1] * B[1] + B[2] * B[2]);
                CHECK(la <= IZB_AA_MAX_STRETCH * step * 1.0001 && lb <= IZB_AA_MAX_STRETCH * stepy * 1.0001,
                      "axes %g, %g longer than the bound", la / step, lb / stepy);
                /* the checks where the plane is within 60 degrees of facing the pixel's ray: beyond, the
                 * footprint quad's perspective is far from a parallelogram, and the clamp may cut in */
                double ro[3], rd[3];
                ray_of_pixel(&cam, &f, px, py, ro, rd);
                const double rl = sqrt(rd[0] * rd[0] + rd[1] * rd[1] + rd[2] * rd[2]);
                const bool moderate = fabs(nrm[0] * rd[0] + nrm[1] * rd[1] + nrm[2] * rd[2]) >= 0.5 * rl;
                for (int k = 0; k < 32; k++) {
                    izb_aa_samples Sm;
                    izb_aa_samples_make(32, &Sm);
                    double q[3], w[3];
                    for (int a = 0; a < 3; a++)
                        q[a] = (double)P[a] + Sm.u[k] * (double)A[a] + Sm.v[k] * (double)B[a];
                    view_to_world(&cam, q, w);
                    if (!moderate) continue;
                    /* on the plane, within float rounding of the depths (relative 1e-6 of dist) */
                    const double off = nrm[0] * (w[0] - pt[0]) + nrm[1] * (w[1] - pt[1]) + nrm[2] * (w[2] - pt[2]);
                    CHECK(fabs(off) <= 1e-5 * (dist + depth[i]), "case %d pixel (%d, %d) sample %d: %g off the plane", c,
                          px, py, k, off);
                    /* projects into its pixel, to first order: the parallelogram misses the quad by
                     * up to 0.1 pixel at 60 degrees in a 90-degree field of view */
                    const double sx = (q[0] / -q[2] / f.ray_sx + 1) * W / 2 - 0.5;
                    const double sy = (q[1] / -q[2] / f.ray_sy + 1) * H / 2 - 0.5;
                    worst = fmax(worst, fmax(fabs(sx - px), fabs(sy - py)));
                    CHECK(fabs(sx - px) <= 0.6 && fabs(sy - py) <= 0.6,
                          "case %d pixel (%d, %d) sample %d (%g, %g) projects to (%g, %g)", c, px, py, k, Sm.u[k], Sm.v[k],
                          sx, sy);
                    checked++;
                }
            }
    }
    CHECK(checked > 10000 && edges > 100, "footprint samples checked: %d (silhouette pixels %d)", checked, edges);
    fprintf(stderr, "footprint: %d samples, farthest %.4f pixels from the centre\n", checked, worst);
    /* clamp: garbage neighbours (discontinuities, sky, NaN) never give an axis past the bound */
    const camera cam = {.fovy = 60};
    const light l = {.type = LIGHT_DIRECTIONAL, .dir = {0.3f, -1.0f, 0.2f}};
    const float bmin[3] = {-1, -1, -1}, bmax[3] = {1, 1, 1};
    izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, 64, 48);
    const float odd[6] = {0.0f, NAN, INFINITY, -1.0f, 1e30f, 1e-30f};
    for (int c = 0; c < 20000; c++) {
        const float d = (float)pow(10, rnd_in(-3, 4));
        float nb[4];
        for (int k = 0; k < 4; k++)
            nb[k] = rnd() < 0.3 ? odd[(int)(rnd() * 6)] : (float)(d * rnd_in(0, 3));
        const int px = (int)(rnd() * 64), py = (int)(rnd() * 48);
        float A[3], B[3];
        izb_aa_axes(&f, px, py, d, nb, NULL, A, B);
        const double sx = 2.0 * f.ray_sx / 64 * d, sy = 2.0 * f.ray_sy / 48 * d;
        const double la = sqrt(A[0] * A[0] + A[1] * A[1] + A[2] * A[2]), lb = sqrt(B[0] * B[0] + B[1] * B[1] + B[2] * B[2]);
        CHECK(isfinite(la) && isfinite(lb) && la <= IZB_AA_MAX_STRETCH * sx * 1.0001 && lb <= IZB_AA_MAX_STRETCH * sy * 1.0001,
              "depth %g, neighbours %g %g %g %g: axes %g, %g steps", d, nb[0], nb[1], nb[2], nb[3], la / sx, lb / sy);
        if (izb_depth_is_sky(nb[0]) && izb_depth_is_sky(nb[1]) && izb_depth_is_sky(nb[2]) && izb_depth_is_sky(nb[3]))
            CHECK(fabs(la - sx) <= 1e-5 * sx && fabs(lb - sy) <= 1e-5 * sy, "no neighbour: not the flat steps (%g, %g)",
                  la / sx, lb / sy);
    }
}

/* ---- (b), (c), (a) on random scenes -------------------------------------------------------- */


static long truth_pixels, truth_partial, truth_wrong, truth_unsure, truth_spot_partial;

/* (c): the sub-samples' rays toward the light in double against every triangle; got: the backend's
 * bytes with ids (a point's own plane never shadows it, as the truth's ray leaving it never meets it) */
static void check_truth(uint64_t seed, const diff_case *c, const izb_closed *cl, const izb_recon *f, const light *l,
                        const uint8_t *got)
{
    const int W = f->width, H = f->height;
    izb_aa_samples S;
    izb_aa_samples_make(f->shadow_samples, &S);
    const bool spot = l->type == LIGHT_SPOT;
    double L[3] = {-l->dir[0], -l->dir[1], -l->dir[2]};
    const double ln = sqrt(L[0] * L[0] + L[1] * L[1] + L[2] * L[2]);
    double diag = 0;
    for (int k = 0; k < 3; k++)
        L[k] /= ln, diag += (c->g.bmax[k] - c->g.bmin[k]) * (c->g.bmax[k] - c->g.bmin[k]);
    diag = sqrt(diag);
    const double tol_t = 2e-3 * diag; /* the bias and the tangent plane's gap to a curved mesh */
    izb_aa_view V;
    izb_aa_view_make(f, &V);
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            const int i = py * W + px;
            if (izb_depth_is_sky(c->depth[i])) continue;
            const float d = c->depth[i];
            izb_point hp;
            if (izb_reconstruct(f, px, py, d, &hp) != IZB_SAMPLE) continue; /* outside the spot's cone */
            const float nb[4] = {px > 0 ? c->depth[i - 1] : 0.0f, px + 1 < W ? c->depth[i + 1] : 0.0f,
                                 py > 0 ? c->depth[i - W] : 0.0f, py + 1 < H ? c->depth[i + W] : 0.0f};
            float A[3], B[3], P[3];
            float nv[3]; /* the facet's plane: the compared run has ids */
            const bool facet = c->ids[i] < (uint32_t)c->g.nt;
            if (facet) izb_aa_facet_normal(&V, c->g.xyz + 9 * (size_t)c->ids[i], nv);
            izb_aa_axes(f, px, py, d, nb, facet ? nv : NULL, A, B);
            izb_aa_view_pos(f, px, py, d, P);
            uint32_t hid = 0;
            bool sure = true;
            double hit_t = 0;
            int hit_tri = -1;
            for (int k = 0; k < S.n && sure; k++) {
                double q[3], o[3];
                for (int a = 0; a < 3; a++)
                    q[a] = (double)P[a] + S.u[k] * (double)A[a] + S.v[k] * (double)B[a];
                view_to_world(&c->cam, q, o);
                /* a spot: the segment from the sub-sample's own position to the light (t in units
                 * of it, hits in (0, 1)); directional: the unit direction, hits at t > 0 */
                double seg = 1.0, t_end = INFINITY;
                if (spot) {
                    seg = 0.0;
                    for (int a = 0; a < 3; a++)
                        L[a] = l->pos[a] - o[a], seg += L[a] * L[a];
                    seg = sqrt(seg), t_end = 1.0;
                }
                const double tol = tol_t / seg;
                int crossings[64] = {0};
                for (int t = 0; t < c->g.nt && sure; t++) {
                    /* the point's own plane: the ray leaves it (the backend ignores it too, ids) */
                    if (izb_hit_is_own(c->g.xyz, 9, 1, (uint32_t)c->g.nt, c->ids[i], (uint32_t)t)) continue;
                    double tt, u, v;
                    if (!ray_plane_bary(o, L, c->g.xyz + 9 * t, &tt, &u, &v)) continue;
                    const double bm = fmin(fmin(u, v), 1 - u - v);
                    if (bm < -1e-4) continue;
                    if (tt >= t_end + tol) continue; /* past the spot light */
                    if (bm <= 1e-4 || fabs(tt) <= tol || fabs(tt - t_end) <= tol) {
                        if (tt > -tol) sure = false;
                        continue;
                    }
                    if (tt > 0) hid |= 1u << k, hit_t = tt * seg, hit_tri = t;
                    if (tt > 0 && cl->comp && cl->comp[t] != IZB_OPEN) crossings[cl->comp[t] % 64]++;
                }
                /* inside a closed mesh (odd crossings): the tangent plane entered a solid at a
                 * contact, where no surface is shaded and culling's exactness (points outside
                 * closed meshes) does not hold */
                for (int m = 0; m < 64; m++)
                    sure = sure && crossings[m] % 2 == 0;
            }
            if (!sure) {
                truth_unsure++;
                continue;
            }
            truth_pixels++;
            const uint8_t want = izb_mask_value(&hid, S.n);
            truth_partial += want > 0 && want < 255;
            truth_spot_partial += spot && want > 0 && want < 255;
            if (got[i] != want && truth_wrong++ < 5)
                fprintf(stderr, "truth: seed %d pixel (%d, %d) N %d: %d, the rays say %d (last hit t %g of %g, tri %d, own %u)\n",
                        (int)seed, px, py, S.n, got[i], want, hit_t, diag, hit_tri, c->ids[i]);
        }
}

static void run_seed(izb_backend *b1, izb_backend *b3, uint64_t seed, int n)
{
    static diff_case c;
    diff_gen_case(&c, seed);
    const int W = c.W, H = c.H;
    /* odd seeds a spot light, even ones a directional light (diff_aa_light) */
    light l;
    izb_recon f;
    diff_aa_light(&c, seed % 2 == 1, &l, &f);
    f.shadow_samples = n;
    CHECK(izb_set_scene(b1, c.g.xyz, c.g.nt) && izb_set_scene(b3, c.g.xyz, c.g.nt), "seed %llu: set_scene",
          (unsigned long long)seed);
    izb_recon fb = f;
    fb.bias = izb_settings_resolve((izb_settings){.bias = c.bias}).bias;
    static izb_point pts[MAX_W * MAX_H];
    static int pix[MAX_W * MAX_H];
    static uint8_t want[2][MAX_W * MAX_H], unbounded[MAX_W * MAX_H], got[MAX_W * MAX_H], ref[MAX_W * MAX_H];
    izb_closed cl;
    CHECK(izb_closed_find(c.g.xyz, c.g.nt, &cl), "seed %llu: closed analysis", (unsigned long long)seed);
    izb_cull_view cv = {.mode = IZB_CULL_AUTO, .comp = cl.comp, .boxes = cl.boxes, .light_is_spot = f.light_is_spot};
    if (f.light_is_spot) izb_light_origin(f.light, cv.light_origin);
    izb_brute_force_aa(&fb, c.depth, NULL, c.g.xyz, c.g.nt, &cv, true, want[0], pts, pix);
    izb_brute_force_aa(&fb, c.depth, c.ids, c.g.xyz, c.g.nt, &cv, true, want[1], pts, pix);
    /* (b') the pair pre-test's extent holds every hit */
    izb_brute_force_aa(&fb, c.depth, NULL, c.g.xyz, c.g.nt, &cv, false, unbounded, pts, pix);
    int first, bad = mismatching(want[0], unbounded, W * H, &first);
    CHECK(bad == 0, "seed %llu N %d: brute force with the footprint pre-test vs without: %d pixels differ",
          (unsigned long long)seed, n, bad);

    /* (b) every mode, with and without ids, 1 and 3 threads; modes 4..7 on a fine grid (2 cells a
     * pixel: a footprint spans several cells, so a range grown too little misses points), and on
     * some seeds every instruction set */
    const bool all_isas = seed % 5 == 0;
    const char *isas[3] = {"base", "avx2", "avx512"};
    for (int isa = 0; isa < (all_isas ? 3 : 1); isa++) {
    if (all_isas) setenv("IZB_CPU_ISA", isas[isa], 1);
    for (int mode = 0; mode < 8; mode++) {
        const bool fine = mode >= 4;
        const izb_settings s = {.kernel = mode % 2 ? IZB_KERNEL2 : IZB_KERNEL1,
                                .binning = mode / 2 % 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                                .grid_w = fine ? 2 * W : c.rand_grid ? c.gw : 0,
                                .grid_h = fine ? 2 * H : c.rand_grid ? c.gh : 0, .bias = c.bias};
        for (int with_ids = 0; with_ids < 2; with_ids++) {
            izb_backend *b = (mode + with_ids) % 2 ? b3 : b1;
            memset(got, 7, sizeof got);
            izb_stats st;
            const bool ok = izb_shade_arrays_ids(b, &f, &s, c.depth, with_ids ? c.ids : NULL, got, &st);
            bad = mismatching(got, want[with_ids], W * H, &first);
            CHECK(ok && bad == 0,
                  "seed %llu (isa %s, N %d, kernel %s, %s, grid %dx%d, %s, %d tris, %dx%d): %d pixels "
                  "differ (first %d: %d, want %d)",
                  (unsigned long long)seed, all_isas ? isas[isa] : "auto", n, izb_kernel_name(s.kernel),
                  izb_binning_name(s.binning), s.grid_w, s.grid_h,
                  with_ids ? "ids" : "no ids", c.g.nt, W, H, bad, first,
                  first >= 0 ? got[first] : 0,
                  first >= 0 ? want[with_ids][first] : 0);
            CHECK(st.aa_pairs > 0 && st.aa_tests <= st.aa_tests_global, "seed %llu: counts %g pairs, %g of %g tests",
                  (unsigned long long)seed, st.aa_pairs, st.aa_tests, st.aa_tests_global);
            if (mode == 0 && with_ids && isa == 0) check_truth(seed, &c, &cl, &fb, &l, got);
        }
    }
    }
    if (all_isas) unsetenv("IZB_CPU_ISA");

    /* (a) N = 1 is the hard path: 0 and 1 give the same bytes, and they are the hard brute force's */
    izb_recon f0 = f, f1 = f, f0b = fb;
    f0.shadow_samples = 0, f1.shadow_samples = 1, f0b.shadow_samples = 0;
    izb_brute_force(&f0b, c.depth, c.ids, c.g.xyz, c.g.nt, &cv, ref, pts, pix);
    for (int mode = 0; mode < 4; mode++) {
        const izb_settings s = {.kernel = mode % 2 ? IZB_KERNEL2 : IZB_KERNEL1,
                                .binning = mode / 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX, .bias = c.bias};
        CHECK(izb_shade_arrays_ids(b1, &f0, &s, c.depth, c.ids, got, NULL), "seed %llu: N 0", (unsigned long long)seed);
        static uint8_t got1[MAX_W * MAX_H];
        CHECK(izb_shade_arrays_ids(b3, &f1, &s, c.depth, c.ids, got1, NULL), "seed %llu: N 1", (unsigned long long)seed);
        CHECK(mismatching(got, got1, W * H, &first) == 0 && mismatching(got, ref, W * H, &first) == 0,
              "seed %llu mode %d: N 1, N 0 and the hard brute force differ", (unsigned long long)seed, mode);
    }
    izb_closed_free(&cl);
}

/* ---- (b'') the triangles' culling against the points' bbox grown by the footprints ------------ */

/* A ground square seen from above with sky around it, lit straight down, and a small occluder just
 * past its edge in the light's view: only the edge pixels' sub-samples (their footprints reach past
 * the square's edge, on its plane) can be hidden by it, and the occluder lies outside the points'
 * bbox, so a set-up that culled against the bare bbox would drop it. Jittered over 40 views. */
static void check_border(izb_backend *b)
{
    int partial = 0;
    for (int c = 0; c < 40; c++) {
        const float e = 1.0f;
        const float off = (float)rnd_in(0.0, 0.03); /* past the edge: less than a pixel's footprint */
        const float xyz[27] = {-e, 0, -e, -e, 0, e, e, 0, e, -e, 0, -e, e, 0, e, e, 0, -e,
                               e + off, 0.5f, -0.5f, e + 0.5f, 0.5f, 0.5f, e + off, 0.5f, 0.5f};
        const camera cam = {.pos = {(float)rnd_in(-0.05, 0.05), 3.0f, (float)rnd_in(-0.05, 0.05)}, .pitch = -89.9f,
                            .fovy = 60};
        const light l = {.type = LIGHT_DIRECTIONAL, .dir = {0.0f, -1.0f, 0.0f}};
        const float bmin[3] = {-1.5f, -0.1f, -1.5f}, bmax[3] = {1.5f, 0.6f, 1.5f};
        enum { W = 48, H = 40 };
        izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, W, H);
        f.shadow_samples = c % 2 ? 32 : 8;
        float depth[W * H];
        uint32_t ids[W * H];
        /* the camera sees the ground only: the occluder is above it, but keep it out of the depth */
        ray_cast_depth(&cam, &f, xyz, 2, depth, ids);
        izb_recon fb = f;
        fb.bias = izb_settings_resolve((izb_settings){0}).bias;
        static izb_point pts[W * H];
        static int pix[W * H];
        uint8_t want[W * H], got[W * H];
        const izb_cull_view off_cull = {.mode = IZB_CULL_OFF};
        izb_brute_force_aa(&fb, depth, NULL, xyz, 3, &off_cull, true, want, pts, pix);
        CHECK(izb_set_scene(b, xyz, 3), "border: set_scene");
        CHECK(izb_shade_arrays(b, &f, &(izb_settings){.cull = IZB_CULL_OFF}, depth, got, NULL), "border: shade");
        int first;
        const int bad = mismatching(got, want, W * H, &first);
        CHECK(bad == 0, "border view %d (offset %g, N %d): %d pixels differ from the brute force (first %d: %d, want %d)",
              c, off, f.shadow_samples, bad, first, first >= 0 ? got[first] : 0, first >= 0 ? want[first] : 0);
        for (int i = 0; i < W * H; i++)
            partial += want[i] > 0 && want[i] < 255;
    }
    CHECK(partial > 10, "border: only %d partly hidden pixels: the case does not test the grown bbox", partial);
}

/* ---- (e) bad frames ------------------------------------------------------------------------ */

static void check_bad(izb_backend *b)
{
    const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 0, 1};
    CHECK(izb_set_scene(b, tri, 1), "set_scene");
    const camera cam = {.pos = {0, 2, 2}, .pitch = -45};
    const light dir = {.type = LIGHT_DIRECTIONAL, .dir = {0, -1, 0}}, spot = {.type = LIGHT_SPOT, .pos = {0, 3, 0},
                                                                                .dir = {0, -1, 0}};
    const float bmin[3] = {-1, -1, -1}, bmax[3] = {1, 1, 1};
    float depth[16];
    uint8_t mask[16];
    for (int i = 0; i < 16; i++)
        depth[i] = 2.0f;
    const int bad_n[5] = {2, 3, 64, -1, 33};
    for (int k = 0; k < 5; k++) {
        izb_recon f = izb_frame_make(&cam, &dir, bmin, bmax, 4, 4);
        f.shadow_samples = bad_n[k];
        CHECK(!izb_aa_frame_ok(&f) && !izb_shade_arrays(b, &f, NULL, depth, mask, NULL), "N %d accepted", bad_n[k]);
    }
    izb_recon f = izb_frame_make(&cam, &spot, bmin, bmax, 4, 4);
    f.shadow_samples = 8;
    CHECK(izb_shade_arrays(b, &f, NULL, depth, mask, NULL), "N 8 with a spot light refused");
    /* a point light's cube faces: taken (cpu_aa_point tests them); an area light (a spot with a
     * size): not yet */
    izb_recon fc = f;
    fc.light_is_spot = IZB_LIGHT_FACE;
    CHECK(izb_aa_frame_ok(&fc), "N 8 with a point light's face refused");
    fc.light_is_spot = IZB_LIGHT_CUBE;
    CHECK(izb_aa_frame_ok(&fc), "N 8 with a point light's cube frame refused");
    fc = f;
    fc.light_size[0] = fc.light_size[1] = 0.1f;
    fc.light_samples = 16;
    CHECK(!izb_shade_arrays(b, &fc, NULL, depth, mask, NULL), "N 8 with an area light accepted");
    f = izb_frame_make(&cam, &dir, bmin, bmax, 4, 4);
    f.shadow_samples = 8;
    f.light_angle = 0.01f;
    f.light_samples = 32;
    CHECK(!izb_shade_arrays(b, &f, NULL, depth, mask, NULL), "N 8 with a light angle accepted");
    f.light_angle = 0.0f;
    CHECK(izb_shade_arrays(b, &f, NULL, depth, mask, NULL), "N 8 refused");
}

/* ---- (f) the pairs' conservative pre-test (izb_aa_may_hide) --------------------------------- */

/* izb_aa_may_hide may say false only where no sub-sample can be hidden: against the sample test
 * itself (izb_aa_sample_hidden) at the 32-sample pattern, the square's corners and random (u, v), on random
 * set-up triangles and footprints at several scales, with points placed so that a sample lies on
 * (a few ulps off) an edge and at (a few ulps off) the triangle's depth, where the rounding decides.
 * It must also reject: most points outside the footprint-grown triangle or in front of it. */
static void check_may_hide(void)
{
    izb_aa_samples S;
    izb_aa_samples_make(32, &S);
    const izb_bbox all = {-1e30f, -1e30f, 1e30f, 1e30f};
    const izb_grid g = izb_grid_make((izb_bbox){-1.0f, -1.0f, 1.0f, 1.0f}, 1, 4, 4);
    long pairs = 0, hidden = 0, rejected = 0, missed = 0, rect_rejected = 0, rect_missed = 0;
    for (int it = 0; it < 4000; it++) {
        const double scale = pow(10.0, rnd_in(-3.0, 3.0)); /* the scene's size in light clip units */
        const double off = rnd_in(-2.0, 2.0) * scale;      /* its distance from the origin */
        float v[3][4];
        for (int k = 0; k < 3; k++)
            v[k][0] = (float)(off + rnd_in(-1.0, 1.0) * scale), v[k][1] = (float)(off + rnd_in(-1.0, 1.0) * scale),
            v[k][2] = (float)rnd_in(0.0, 1.0), v[k][3] = 1.0f;
        izb_tri t;
        if (!izb_tri_setup(v, &g, &all, false, &t)) continue;
        /* a footprint of 1e-4 .. 1e-1 of the scene, any direction, with a depth slope */
        const double fs = scale * pow(10.0, rnd_in(-4.0, -1.0));
        izb_aa_foot f = {0}; /* (a directional light's: aw = bw = 0) */
        for (int i = 0; i < 3; i++)
            f.a[i] = (float)(rnd_in(-1.0, 1.0) * fs), f.b[i] = (float)(rnd_in(-1.0, 1.0) * fs);
        /* the extent bound izb_aa_footprint gives (an input here, any bound will do) */
        f.ex = (fabsf(f.a[0]) + fabsf(f.b[0])) * 0.50001f, f.ey = (fabsf(f.a[1]) + fabsf(f.b[1])) * 0.50001f;
        for (int q = 0; q < 16; q++) {
            float x, y, z;
            if (q < 12) { /* sample (su, sv) on edge e (a few ulps either side), at the plane's depth:
                           * a pattern sample, or a corner of the square (where the range is tight) */
                const int k = (int)(rnd() * 32), e = q % 3;
                const bool corner = rnd() < 0.5;
                const float su = corner ? (rnd() < 0.5 ? -0.5f : 0.5f) : S.u[k];
                const float sv = corner ? (rnd() < 0.5 ? -0.5f : 0.5f) : S.v[k];
                const double l = rnd();
                const double ex = v[e][0] + l * (v[(e + 1) % 3][0] - v[e][0]);
                const double ey = v[e][1] + l * (v[(e + 1) % 3][1] - v[e][1]);
                const double ez = v[e][2] + l * (v[(e + 1) % 3][2] - v[e][2]);
                const double j = (double)(q % 4) * 1e-7;
                x = (float)(ex - su * f.a[0] - sv * f.b[0] + rnd_in(-j, j) * scale);
                y = (float)(ey - su * f.a[1] - sv * f.b[1] + rnd_in(-j, j) * scale);
                z = (float)(ez - su * f.a[2] - sv * f.b[2] + rnd_in(-j, j));
            } else { /* anywhere near the triangle, any depth */
                x = (float)(off + rnd_in(-1.5, 1.5) * scale), y = (float)(off + rnd_in(-1.5, 1.5) * scale);
                z = (float)rnd_in(-0.2, 1.2);
            }
            bool any = false;
            for (int k = 0; k < 32; k++)
                any = any | izb_aa_sample_hidden(&t, x, y, z, &f, S.u[k], S.v[k]);
            for (int r = 0; r < 36; r++) /* the corners, then random (u, v) */
                any = any | izb_aa_sample_hidden(&t, x, y, z, &f, r < 4 ? (r & 1 ? 0.5f : -0.5f) : (float)rnd_in(-0.5, 0.5),
                                                 r < 4 ? (r & 2 ? 0.5f : -0.5f) : (float)rnd_in(-0.5, 0.5));
            const bool may = izb_aa_may_hide(&t, x, y, z, &f);
            pairs++, hidden += any, rejected += !may;
            /* a rectangle holding the samples (the footprint's extent, exactly or grown) */
            const float gx = (float)((q & 1) * rnd() * fs), gy = (float)((q & 1) * rnd() * fs);
            const bool rect = izb_aa_rect_may_hide(&t, x - f.ex - gx, y - f.ey - gy, x + f.ex + gx, y + f.ey + gy);
            rect_rejected += !rect;
            if (any && !rect && rect_missed++ < 5)
                fprintf(stderr, "rect_may_hide: false, but a sample is hidden (x %.9g y %.9g, scale %g)\n", x, y, scale);
            if (any && !may && missed++ < 5)
                fprintf(stderr, "may_hide: false, but a sample is hidden (x %.9g y %.9g z %.9g, scale %g)\n", x, y, z,
                        scale);
        }
    }
    CHECK(missed == 0, "izb_aa_may_hide: %ld of %ld pairs with a hidden sample rejected", missed, hidden);
    CHECK(pairs > 30000 && hidden > pairs / 10 && rejected > pairs / 8,
          "izb_aa_may_hide: %ld pairs, %ld with a hidden sample, %ld rejected: the cases miss their mark", pairs, hidden,
          rejected);
    CHECK(rect_missed == 0, "izb_aa_rect_may_hide: %ld of %ld pairs with a hidden sample rejected", rect_missed, hidden);
    CHECK(rect_rejected > pairs / 16, "izb_aa_rect_may_hide: %ld of %ld rejected", rect_rejected, pairs);
    fprintf(stderr, "may_hide: %ld pairs, %ld with a hidden sample, %ld rejected (rectangles: %ld)\n", pairs, hidden,
            rejected, rect_rejected);
}

/* ---- (g) spot lights' projective footprints ------------------------------------------------ */

/* izb_aa_foot_bounds' extents hold every sub-sample (pattern, corners, random (u, v)) of random
 * projective footprints (|aw| + |bw| <= 1, as izb_aa_persp_bound leaves them), and
 * izb_aa_may_hide_box rejects no pair with a hidden sub-sample (points placed so a sample lies a few
 * ulps off an edge at the triangle's depth) */
static void check_spot_bounds(void)
{
    izb_aa_samples S;
    izb_aa_samples_make(32, &S);
    const izb_bbox all = {-1e30f, -1e30f, 1e30f, 1e30f};
    const izb_grid g = izb_grid_make((izb_bbox){-1.0f, -1.0f, 1.0f, 1.0f}, 1, 4, 4);
    long pairs = 0, hidden = 0, rejected = 0, missed = 0, outside = 0, samples = 0;
    for (int it = 0; it < 3000; it++) {
        const double scale = pow(10.0, rnd_in(-2.0, 1.0)), off = rnd_in(-1.0, 1.0) * scale;
        float v[3][4];
        for (int k = 0; k < 3; k++) /* a spot's keys: -1 / distance, negative */
            v[k][0] = (float)(off + rnd_in(-1.0, 1.0) * scale), v[k][1] = (float)(off + rnd_in(-1.0, 1.0) * scale),
            v[k][2] = (float)-rnd_in(0.01, 1.0), v[k][3] = 1.0f;
        izb_tri t;
        if (!izb_tri_setup(v, &g, &all, false, &t)) continue;
        const double fs = scale * pow(10.0, rnd_in(-4.0, -1.0));
        izb_aa_foot f = {0};
        for (int i = 0; i < 3; i++)
            f.a[i] = (float)(rnd_in(-1.0, 1.0) * (i == 2 ? fs * 0.1 : fs)), f.b[i] = (float)(rnd_in(-1.0, 1.0) * (i == 2 ? fs * 0.1 : fs));
        const double wmax = rnd() < 0.3 ? 1.0 : rnd_in(0.0, 0.2); /* up to the bound's limit */
        f.aw = (float)(rnd_in(-0.5, 0.5) * wmax), f.bw = (float)(rnd_in(-0.5, 0.5) * wmax);
        for (int q = 0; q < 16; q++) {
            float x, y, z;
            if (q < 12) { /* sample (su, sv) projected onto edge e, a few ulps either side */
                const int k = (int)(rnd() * 32), e = q % 3;
                const bool corner = rnd() < 0.5;
                const float su = corner ? (rnd() < 0.5 ? -0.5f : 0.5f) : S.u[k];
                const float sv = corner ? (rnd() < 0.5 ? -0.5f : 0.5f) : S.v[k];
                const double l = rnd(), D = 1.0 + su * (double)f.aw + sv * (double)f.bw;
                const double ex = v[e][0] + l * (v[(e + 1) % 3][0] - v[e][0]);
                const double ey = v[e][1] + l * (v[(e + 1) % 3][1] - v[e][1]);
                const double ez = v[e][2] + l * (v[(e + 1) % 3][2] - v[e][2]);
                const double j = (double)(q % 4) * 1e-7;
                x = (float)(ex * D - su * f.a[0] - sv * f.b[0] + rnd_in(-j, j) * scale);
                y = (float)(ey * D - su * f.a[1] - sv * f.b[1] + rnd_in(-j, j) * scale);
                z = (float)(ez * D - su * f.a[2] - sv * f.b[2] + rnd_in(-j, j));
            } else {
                x = (float)(off + rnd_in(-1.5, 1.5) * scale), y = (float)(off + rnd_in(-1.5, 1.5) * scale);
                z = (float)-rnd_in(0.0, 1.2);
            }
            izb_aa_foot_bounds(&f, x, y, z);
            bool any = false;
            for (int r = 0; r < 72; r++) { /* the pattern, the corners, random (u, v) */
                const float su = r < 32 ? S.u[r] : r < 36 ? (r & 1 ? 0.5f : -0.5f) : (float)rnd_in(-0.5, 0.5);
                const float sv = r < 32 ? S.v[r] : r < 36 ? (r & 2 ? 0.5f : -0.5f) : (float)rnd_in(-0.5, 0.5);
                float xs, ys, zs;
                izb_aa_sample_pos(&f, x, y, z, su, sv, &xs, &ys, &zs);
                const bool out = !(fabsf(xs - x) <= f.ex && fabsf(ys - y) <= f.ey && fabsf(zs - z) <= f.ez);
                if (out && outside++ < 5)
                    fprintf(stderr, "foot_bounds: sample (%g, %g) at %g %g %g outside %g %g %g of %g %g %g\n", su, sv, xs,
                            ys, zs, f.ex, f.ey, f.ez, x, y, z);
                samples++;
                any = any | izb_aa_sample_hidden(&t, x, y, z, &f, su, sv);
            }
            const bool may = izb_aa_may_hide_box(&t, x, y, z, &f);
            pairs++, hidden += any, rejected += !may;
            if (any && !may && missed++ < 5)
                fprintf(stderr, "may_hide_box: false, but a sample is hidden (x %.9g y %.9g z %.9g)\n", x, y, z);
        }
    }
    CHECK(outside == 0, "izb_aa_foot_bounds: %ld of %ld sub-samples outside the extents", outside, samples);
    CHECK(missed == 0, "izb_aa_may_hide_box: %ld of %ld pairs with a hidden sample rejected", missed, hidden);
    CHECK(pairs > 20000 && hidden > pairs / 10 && rejected > pairs / 8,
          "izb_aa_may_hide_box: %ld pairs, %ld with a hidden sample, %ld rejected: the cases miss their mark", pairs,
          hidden, rejected);
    fprintf(stderr, "spot bounds: %ld pairs, %ld with a hidden sample, %ld rejected\n", pairs, hidden, rejected);
}

/* izb_aa_view_make recovers the camera's view matrix (camera_view) from the frame alone, for
 * directional and spot lights (a spot's z row is constant: the rows x, y, w), random cameras and
 * lights; a garbage matrix (NaN: the facet's normal dropped for the secants' plane) would pass every
 * backend-against-brute-force test, since both take the same footprint */
static void check_view_make(void)
{
    double worst = 0.0;
    for (int c = 0; c < 400; c++) {
        const camera cam = {.pos = {(float)rnd_in(-5, 5), (float)rnd_in(-5, 5), (float)rnd_in(-5, 5)},
                            .yaw = (float)rnd_in(-180, 180), .pitch = (float)rnd_in(-80, 80), .fovy = 60};
        double d[3];
        rand_unit(d);
        light l = {.type = c % 2 ? LIGHT_SPOT : LIGHT_DIRECTIONAL, .dir = {(float)d[0], (float)d[1], (float)d[2]},
                   .pos = {(float)rnd_in(-5, 5), (float)rnd_in(-5, 5), (float)rnd_in(-5, 5)}, .cone_deg = 60};
        const float bmin[3] = {-3, -3, -3}, bmax[3] = {3, 3, 3};
        const izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, 64, 48);
        izb_aa_view V;
        izb_aa_view_make(&f, &V);
        float m[16];
        camera_view(&cam, m);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) {
                const double e = fabs((double)V.m[4 * i + j] - m[4 * j + i]) / (j == 3 ? 10.0 : 1.0);
                worst = isnan(e) ? INFINITY : fmax(worst, e);
            }
    }
    CHECK(worst < 1e-4, "izb_aa_view_make: off the camera's view matrix by %g", worst);
}

/* A spot light just above a ground plane, aimed along it (grazing), the camera looking down at the
 * ground around the light and the cone's edge, a few blockers: footprints next to the light reach
 * toward its plane (izb_aa_persp_bound must shrink them: every sub-sample's w stays >= half its
 * point's, its position finite), sub-samples cross the cone's edge; the backend equals the brute
 * force on both kernels, N 8 and 32. */
static void check_spot_near(izb_backend *b)
{
    /* first the footprint alone: a camera next to the light, random pixels, depths (some tiny: points
     * next to the light) and neighbours (garbage among them) */
    long shrunk_rand = 0, lit_rand = 0;
    for (int c = 0; c < 10000; c++) {
        const light l = {.type = LIGHT_SPOT, .pos = {0, 0, 0}, .dir = {(float)rnd_in(-1, 1), (float)rnd_in(-1, 1), -1.0f},
                         .cone_deg = (float)rnd_in(30, 150)};
        const camera cam = {.pos = {(float)rnd_in(-0.1, 0.1), (float)rnd_in(-0.1, 0.1), (float)rnd_in(-0.1, 0.1)},
                            .yaw = (float)rnd_in(-20, 20), .pitch = (float)rnd_in(-20, 20), .fovy = 70};
        const float bmin[3] = {-1, -1, -3}, bmax[3] = {1, 1, 0};
        izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, 16, 12), flat = f;
        flat.light_is_spot = 0;
        const float d = (float)pow(10, rnd_in(-3, 0.5));
        const float odd[4] = {0.0f, NAN, 1e30f, 1e-6f};
        float nb[4];
        for (int k = 0; k < 4; k++)
            nb[k] = rnd() < 0.3 ? odd[(int)(rnd() * 4)] : (float)(d * rnd_in(0.2, 3));
        const int px = (int)(rnd() * 16), py = (int)(rnd() * 12);
        izb_point p;
        if (izb_reconstruct(&f, px, py, d, &p) != IZB_SAMPLE) continue;
        lit_rand++;
        float A[3], B[3], A0[3], B0[3];
        izb_aa_axes(&f, px, py, d, nb, NULL, A, B);
        izb_aa_axes(&flat, px, py, d, nb, NULL, A0, B0);
        shrunk_rand += A[0] != A0[0] || A[1] != A0[1] || A[2] != A0[2];
        izb_aa_foot ft;
        izb_aa_footprint(&f, px, py, d, nb, NULL, &ft);
        for (int k = 0; k < 4; k++) {
            const float u = k & 1 ? 0.5f : -0.5f, v = k & 2 ? 0.5f : -0.5f;
            const float D = fmaf(u, ft.aw, fmaf(v, ft.bw, 1.0f));
            float xs, ys, zs;
            izb_aa_sample_pos(&ft, p.x, p.y, p.z, u, v, &xs, &ys, &zs);
            CHECK(D >= 0.49f && isfinite(xs) && isfinite(ys) && isfinite(zs) && isfinite(ft.ex) && isfinite(ft.ey) &&
                      isfinite(ft.ez),
                  "spot footprint %d (depth %g): corner %d at w %g of the point's, (%g, %g, %g)", c, d, k, D, xs, ys, zs);
        }
    }
    CHECK(shrunk_rand > lit_rand / 100, "spot footprints: %ld of %ld shrunk: the case misses its mark", shrunk_rand,
          lit_rand);
    long shrunk = 0, partial = 0;
    for (int c = 0; c < 12; c++) {
        const float e = 2.0f, h = (float)rnd_in(0.002, 0.05);
        float xyz[9 * 6] = {-e, 0, -e, -e, 0, e, e, 0, e, -e, 0, -e, e, 0, e, e, 0, -e};
        for (int k = 2; k < 6; k++) { /* small upright blockers in front of the light */
            const float bx = (float)rnd_in(0.1, 1.5), bz = (float)rnd_in(-0.8, 0.8), s = (float)rnd_in(0.05, 0.2);
            const float t[9] = {bx, 0.0f, bz - s, bx, 2 * s, bz, bx + 0.01f, 0.0f, bz + s};
            memcpy(xyz + 9 * k, t, sizeof t);
        }
        const light l = {.type = LIGHT_SPOT, .pos = {0.0f, h, 0.0f}, .dir = {1.0f, -(float)rnd_in(0.0, 0.3), 0.0f},
                         .cone_deg = (float)rnd_in(40, 120)};
        const camera cam = {.pos = {(float)rnd_in(-0.3, 0.6), (float)rnd_in(0.5, 2.0), (float)rnd_in(-0.3, 0.3)},
                            .pitch = -89.0f + (float)rnd_in(0, 30), .yaw = (float)rnd_in(-180, 180), .fovy = 70};
        const float bmin[3] = {-e, -0.1f, -e}, bmax[3] = {e, 0.5f, e};
        enum { W = 40, H = 32 };
        izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, W, H);
        f.shadow_samples = c % 2 ? 32 : 8;
        float depth[W * H];
        uint32_t ids[W * H];
        ray_cast_depth(&cam, &f, xyz, 6, depth, ids);
        izb_recon fb = f, flat = f;
        fb.bias = izb_settings_resolve((izb_settings){0}).bias;
        flat.light_is_spot = 0; /* the axes before izb_aa_persp_bound */
        for (int py = 0; py < H; py++)
            for (int px = 0; px < W; px++) {
                const int i = py * W + px;
                izb_point p;
                if (izb_depth_is_sky(depth[i]) || izb_reconstruct(&fb, px, py, depth[i], &p) != IZB_SAMPLE) continue;
                const float nb[4] = {px > 0 ? depth[i - 1] : 0.0f, px + 1 < W ? depth[i + 1] : 0.0f,
                                     py > 0 ? depth[i - W] : 0.0f, py + 1 < H ? depth[i + W] : 0.0f};
                float A[3], B[3], A0[3], B0[3];
                izb_aa_axes(&fb, px, py, depth[i], nb, NULL, A, B);
                izb_aa_axes(&flat, px, py, depth[i], nb, NULL, A0, B0);
                shrunk += A[0] != A0[0] || A[1] != A0[1] || A[2] != A0[2];
                izb_aa_foot ft;
                izb_aa_footprint(&fb, px, py, depth[i], nb, NULL, &ft);
                for (int k = 0; k < 4; k++) {
                    const float u = k & 1 ? 0.5f : -0.5f, v = k & 2 ? 0.5f : -0.5f;
                    const float D = fmaf(u, ft.aw, fmaf(v, ft.bw, 1.0f));
                    float xs, ys, zs;
                    izb_aa_sample_pos(&ft, p.x, p.y, p.z, u, v, &xs, &ys, &zs);
                    CHECK(D >= 0.49f && isfinite(xs) && isfinite(ys) && isfinite(zs) && isfinite(ft.ex) &&
                              isfinite(ft.ey),
                          "spot near %d pixel (%d, %d): corner %d at w %g of the point's, (%g, %g, %g)", c, px, py, k, D,
                          xs, ys, zs);
                }
            }
        static izb_point pts[W * H];
        static int pix[W * H];
        uint8_t want[W * H], unb[W * H], got[W * H];
        const izb_cull_view off_cull = {.mode = IZB_CULL_OFF};
        izb_brute_force_aa(&fb, depth, NULL, xyz, 6, &off_cull, true, want, pts, pix);
        izb_brute_force_aa(&fb, depth, NULL, xyz, 6, &off_cull, false, unb, pts, pix);
        int first, bad = mismatching(want, unb, W * H, &first);
        CHECK(bad == 0, "spot near %d: the brute force with the pre-test differs from without in %d pixels", c, bad);
        CHECK(izb_set_scene(b, xyz, 6), "spot near: set_scene");
        for (int k = 0; k < 2; k++) {
            CHECK(izb_shade_arrays(b, &f, &(izb_settings){.cull = IZB_CULL_OFF, .kernel = k ? IZB_KERNEL2 : IZB_KERNEL1},
                                   depth, got, NULL),
                  "spot near: shade");
            bad = mismatching(got, want, W * H, &first);
            CHECK(bad == 0, "spot near %d (kernel %d, N %d): %d pixels differ from the brute force (first %d: %d, want %d)",
                  c, k + 1, f.shadow_samples, bad, first, first >= 0 ? got[first] : 0, first >= 0 ? want[first] : 0);
        }
        for (int i = 0; i < W * H; i++)
            partial += want[i] > 0 && want[i] < 255;
    }
    CHECK(shrunk > 0 && partial > 20, "spot near: %ld footprints shrunk, %ld partly hidden pixels: the case misses its mark",
          shrunk, partial);
    fprintf(stderr, "spot near: %ld of %ld random footprints shrunk toward the light; frames: %ld shrunk, %ld partly hidden pixels\n",
            shrunk_rand, lit_rand, shrunk, partial);
}

int main(void)
{
    rng_state = 12345;
    check_pattern();
    check_footprint();
    check_may_hide();
    check_spot_bounds();
    check_view_make();
    izb_backend *b1 = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1});
    izb_backend *b3 = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 3});
    CHECK(b1 && b3, "create");
    if (!b1 || !b3) return test_done();
    long first, seeds;
    diff_seed_range_named("IZB_AA", DEFAULT_SEEDS, &first, &seeds);
    (void)diff_seed_range;
    (void)diff_auto_cull_changes; /* (differential_gen.h's, for the update tests) */
    for (long s = first; s < first + seeds; s++)
        run_seed(b1, b3, (uint64_t)s, counts[1 + s % 4]);
    CHECK(truth_wrong == 0, "truth: %ld of %ld sure pixels wrong (%ld unsure)", truth_wrong, truth_pixels,
          truth_unsure);
    CHECK(truth_partial > 20 && truth_spot_partial > 10 && truth_pixels > 10 * truth_unsure / 10,
          "truth: %ld sure pixels, %ld partial (%ld spot), %ld unsure", truth_pixels, truth_partial, truth_spot_partial,
          truth_unsure);
    fprintf(stderr, "truth: %ld sure pixels (%ld partly lit, %ld of them under a spot light), %ld unsure, %ld wrong\n",
            truth_pixels, truth_partial, truth_spot_partial, truth_unsure, truth_wrong);
    check_border(b3);
    check_spot_near(b3);
    check_bad(b1);
    izb_destroy(b1);
    izb_destroy(b3);
    return test_done();
}
