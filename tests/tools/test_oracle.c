/* test_oracle.c — the CPU backend's shadow mask against Embree ray casting (tools/oracle.h), the
 * definition of correct (DESIGN.md): built-in scenes x views x lights, depth rendered by the
 * oracle's primary rays, mismatches counted over the covered pixels. Lights: the scene's
 * directional light, its spot light, and a spot light down among the geometry, so that triangles
 * pass beside and behind it (vertices with w <= 0). One view per scene shows sky. Every kernel x
 * binning combination must give the identical mask.
 *
 * Culling (izb_closed.h): the default, auto, must be exact on any mesh. An open-mesh scene of
 * single-sided cards gives the identical mask with culling off, while culling every back face
 * (on) visibly drops shadows; on the built-in scenes (closed objects) auto still culls what on
 * culls; a spot light inside a closed box keeps the box's back faces, which are its shadow.
 *
 * IZB_ORACLE_SIZE=WxH and IZB_ORACLE_SCENES=NAME:N,... (built-in scenes; "cards" is the open-mesh
 * one) rerun the views at another size and scale, e.g. 1280x720 and spheres:1M,grass:1M for the
 * table in docs/exactness.md; IZB_ORACLE_SKIP_SELF=1 takes the truth where a point's own triangle never
 * occludes it (oracle_skip_self), which shows the IZB's acne where light grazes a surface;
 * IZB_ORACLE_BIAS=B runs the IZB and the truth's offset with bias B instead of the default;
 * IZB_ORACLE_DUMP=1 explains every mismatched pixel (dump_mismatches).
 *
 * Primitive ids (izb_shade_arrays_ids, ids from the oracle's primary rays): every render is also
 * shaded with ids and held to the same bound against the exact-plane truth (neither a point's own
 * triangle nor one in its plane occludes it: a plane cannot shadow a point on itself), with the plain
 * truth's count reported beside it; every kernel x binning gives the same mask with ids too.
 *
 * Bound: mismatches below 0.01% of the covered pixels per render (MAX_MISMATCH). The oracle's
 * occlusion rays start at the IZB's bias offset (tools/oracle.c), so both answer the same
 * question; what is left is float rounding where a sample lies within ~1e-6 of a silhouette edge
 * or exactly at a contact, which the oracle answers in double and Embree's watertight test.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "izb.h"
#include "izb_config.h"
#include "scene.h"
#include "test.h"
#include "test_cube.h"
#include "view.h"

#if IZB_HAVE_EMBREE
#include "oracle.h"
#endif

#define MAX_MISMATCH 1e-4 /* fraction of covered pixels */
#define CARDS 400         /* single-sided cards in the open-mesh scene */

static int W = 400, H = 300; /* IZB_ORACLE_SIZE */
static bool skip_self;       /* IZB_ORACLE_SKIP_SELF=1: own triangle never occludes (oracle_skip_self) */
static bool dump;            /* IZB_ORACLE_DUMP=1: explain every mismatched pixel (dump_mismatches) */
/* the primitive-id pass (izb_shade_arrays_ids), W*H each: the ids of the depth, the exact-plane
 * truth it is held to, its mask */
static uint32_t *ids;
static float bias; /* IZB_ORACLE_BIAS: the IZB's bias and the truth's offset (0: IZB_DEFAULT_BIAS) */
static uint8_t *truth_self, *mask_ids;

#if IZB_HAVE_EMBREE
static double now_s(void);
/* triangles of s with at least one vertex at w <= 0 and one at w > 0 in light clip space */
static long count_crossing(const scene *s, const float light_m[16]);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long count_crossing(const scene *s, const float light_m[16])
{
    long n = 0;
    for (int i = 0; i < s->tri_count; i++) {
        int front = 0;
        for (int k = 0; k < 3; k++) {
            float q[4];
            izb_transform(light_m, s->xyz + 9 * i + 3 * k, q);
            front += q[3] > 0.0f;
        }
        n += front > 0 && front < 3;
    }
    return n;
}

/* One line per mismatched pixel and one per triangle involved: the IZB's sample point, the
 * triangle the camera sees there (own), the truth's first hit beyond the bias offset, and every
 * triangle the IZB's test says occludes it (brute force over the scene), each with its distance
 * to its nearest edge on the light's image plane and its depth ahead of the unbiased point in
 * units of the bias. Slow (a pass over all triangles per pixel): a diagnostic, not a test. */
static void dump_mismatches(oracle *o, const scene *s, const camera *cam, const light *l, const izb_recon *f,
                            const float *depth, const uint8_t *mask, const uint8_t *truth, bool self);

/* how triangle t (set up by izb_tri_setup) sees the point: nearest edge distance (negative
 * outside) and (key - unbiased z) / bias */
static void tri_explain(const izb_tri *t, const izb_recon *f, float x, float y, float z0, double *edge,
                        double *ahead)
{
    *edge = INFINITY;
    for (int i = 0; i < 3; i++) {
        const double e = (double)t->e[i][0] * x + (double)t->e[i][1] * y + t->e[i][2];
        const double n = hypot(t->e[i][0], t->e[i][1]);
        *edge = fmin(*edge, n > 0.0 ? e / n : e);
    }
    const double key = (double)t->z[0] * x + (double)t->z[1] * y + t->z[2];
    const double b = f->light_is_spot ? (double)f->bias * fabs(z0) : (double)f->bias;
    *ahead = (z0 - key) / b;
}

static void dump_mismatches(oracle *o, const scene *s, const camera *cam, const light *l, const izb_recon *f,
                            const float *depth, const uint8_t *mask, const uint8_t *truth, bool self)
{
    const int n = s->tri_count;
    izb_tri *tris = malloc(sizeof *tris * (size_t)n);
    int8_t *ok = malloc((size_t)n);
    if (!tris || !ok) {
        free(tris), free(ok);
        return;
    }
    const izb_bbox pb = {-4.0f, -4.0f, 4.0f, 4.0f};
    const izb_grid g = izb_grid_make(pb, 1, 1, 1);
    for (int i = 0; i < n; i++) {
        float v[3][4];
        for (int k = 0; k < 3; k++)
            izb_transform(f->light, s->xyz + 9 * (size_t)i + 3 * k, v[k]);
        /* 1: front-facing (kept by every cull mode), -1: back-facing, 0: culled as degenerate */
        ok[i] = izb_tri_setup(v, &g, &pb, true, &tris[i])    ? 1
                : izb_tri_setup(v, &g, &pb, false, &tris[i]) ? -1
                                                             : 0;
    }
    const oracle_ray_setup rs = oracle_ray_setup_make(f, cam, l);
    for (int i = 0; i < W * H; i++) {
        if (!(depth[i] > 0.0f) || (mask[i] != 0) == (truth[i] != 0)) continue;
        const int px = i % W, py = i / W;
        izb_point p;
        izb_recon f0 = *f;
        f0.bias = 0.0f;
        izb_point p0;
        if (izb_reconstruct(f, px, py, depth[i], &p) != IZB_SAMPLE ||
            izb_reconstruct(&f0, px, py, depth[i], &p0) != IZB_SAMPLE) {
            printf("    px %d,%d: no sample point\n", px, py);
            continue;
        }
        const long own = oracle_pixel_prim(o, cam, W, H, px, py);
        oracle_ray r;
        float t = 0.0f;
        long hit = -1;
        if (oracle_pixel_ray(&rs, px, py, depth[i], &r) == ORACLE_PIXEL_RAY)
            hit = oracle_ray_first_hit(o, &r, self ? own : -1, &t);
        printf("    px %d,%d depth %.7g %s: point %.9g %.9g z0 %.9g own %ld; truth hit %ld at %.4g x tnear\n",
               px, py, depth[i], mask[i] ? "FALSE-LIGHT" : "FALSE-SHADOW", p.x, p.y, p0.z, own, hit,
               t / r.tnear);
        for (int k = 0; k < n; k++) {
            const bool occ = ok[k] && izb_tri_occludes(&tris[k], p.x, p.y, p.z);
            if (!occ && k != hit && k != own) continue;
            double edge = 0.0, ahead = 0.0;
            if (ok[k]) tri_explain(&tris[k], f, p.x, p.y, p0.z, &edge, &ahead);
            printf("      tri %d%s%s%s facing %d: edge %.3g ahead %.4g bias\n", k, occ ? " IZB-OCCLUDES" : "",
                   k == hit ? " TRUTH-HIT" : "", k == own ? " OWN" : "", ok[k], edge, ahead);
        }
    }
    free(tris), free(ok);
}

/* the open-mesh scene: a ground and CARDS single-sided cards (2 triangles each) at random heights
 * and orientations, about half of them facing away from any light */
static bool build_cards(scene *s);
/* shade with settings `set`, compare with truth; the mismatch fraction of covered pixels */
static double shade_compare(izb_backend *b, const izb_recon *f, izb_settings set, const float *depth,
                            uint8_t *mask, const uint8_t *truth, izb_stats *st, mask_diff *d);
/* a spot light inside a closed box above a ground: the box's back faces are its whole shadow */
static void run_lamp_in_box(izb_backend *b, float *depth, uint8_t *mask, uint8_t *truth);

static bool build_cards(scene *s)
{
    memset(s, 0, sizeof *s);
    const int n = 2 + 2 * CARDS;
    s->xyz = malloc(9 * sizeof(float) * (size_t)n);
    s->normals = malloc(9 * sizeof(float) * (size_t)n);
    if (!s->xyz || !s->normals) return false;
    const float ground[18] = {-8, 0, -8, -8, 0, 8, 8, 0, 8, -8, 0, -8, 8, 0, 8, 8, 0, -8};
    memcpy(s->xyz, ground, sizeof ground);
    uint32_t seed = 12345u;
#define RND() ((seed = seed * 1664525u + 1013904223u) >> 8) * (1.0f / 16777216.0f)
    for (int i = 0; i < CARDS; i++) {
        const float c[3] = {12.0f * RND() - 6.0f, 0.3f + 2.5f * RND(), 12.0f * RND() - 6.0f};
        /* two random edge vectors of length ~0.5 */
        float u[3], v[3];
        for (int k = 0; k < 3; k++)
            u[k] = RND() - 0.5f, v[k] = RND() - 0.5f;
        const float q[4][3] = {{c[0] - u[0] - v[0], c[1] - u[1] - v[1], c[2] - u[2] - v[2]},
                               {c[0] + u[0] - v[0], c[1] + u[1] - v[1], c[2] + u[2] - v[2]},
                               {c[0] + u[0] + v[0], c[1] + u[1] + v[1], c[2] + u[2] + v[2]},
                               {c[0] - u[0] + v[0], c[1] - u[1] + v[1], c[2] - u[2] + v[2]}};
        const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
        for (int t = 0; t < 2; t++)
            for (int k = 0; k < 3; k++)
                memcpy(s->xyz + 9 * (2 + 2 * i + t) + 3 * k, q[tri[t][k]], sizeof q[0]);
    }
#undef RND
    for (int i = 0; i < 3 * n; i++) /* normals are not used by the IZB */
        s->normals[3 * i] = 0.0f, s->normals[3 * i + 1] = 1.0f, s->normals[3 * i + 2] = 0.0f;
    s->tri_count = n;
    snprintf(s->name, sizeof s->name, "cards (open meshes)");
    scene_frame_view(s);
    return true;
}

static double shade_compare(izb_backend *b, const izb_recon *f, izb_settings set, const float *depth,
                            uint8_t *mask, const uint8_t *truth, izb_stats *st, mask_diff *d)
{
    CHECK(izb_shade_arrays(b, f, &set, depth, mask, st), "shade");
    *d = mask_compare(depth, mask, truth, (long)W * H);
    return d->covered ? (double)d->mismatched / (double)d->covered : 0.0;
}

static void run_scene(scene *sp, izb_backend *b, float *depth, uint8_t *mask, uint8_t *mask2, uint8_t *truth,
                      double *worst, double *worst_ids)
{
    const scene s = *sp;
    const bool open_scene = strncmp(s.name, "cards", 5) == 0;
    double t0 = now_s();
    oracle *o = oracle_create(s.xyz, s.tri_count);
    CHECK(o != NULL, "oracle for %s", s.name);
    CHECK(izb_set_scene(b, s.xyz, s.tri_count), "set_scene %s", s.name);
    if (!o) return;
    oracle_skip_self(o, skip_self);
    printf("%s: %d triangles, oracle built in %.2f s\n", s.name, s.tri_count, now_s() - t0);

    float c[3], ext[3];
    for (int k = 0; k < 3; k++)
        c[k] = 0.5f * (s.bounds_min[k] + s.bounds_max[k]), ext[k] = s.bounds_max[k] - s.bounds_min[k];
    const float r = 0.5f * sqrtf(ext[0] * ext[0] + ext[1] * ext[1] + ext[2] * ext[2]);

    /* views: the scene's own; from the other side, low, looking up past the geometry at the sky;
     * close up, looking down steeply */
    camera views[3];
    views[0] = (camera){.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    {
        float yaw = s.cam_yaw + 150.0f, pitch = 5.0f, d = 1.3f * r;
        float f[3] = {cosf(pitch * 0.0174533f) * sinf(yaw * 0.0174533f), sinf(pitch * 0.0174533f),
                      -cosf(pitch * 0.0174533f) * cosf(yaw * 0.0174533f)};
        views[1] = (camera){.pos = {c[0] - d * f[0], s.bounds_min[1] + 0.15f * ext[1] + 0.05f * r, c[2] - d * f[2]},
                            .yaw = yaw, .pitch = pitch};
    }
    {
        float yaw = s.cam_yaw - 60.0f, pitch = -55.0f, d = 0.45f * r;
        float f[3] = {cosf(pitch * 0.0174533f) * sinf(yaw * 0.0174533f), sinf(pitch * 0.0174533f),
                      -cosf(pitch * 0.0174533f) * cosf(yaw * 0.0174533f)};
        views[2] = (camera){.pos = {c[0] - d * f[0], c[1] - d * f[1], c[2] - d * f[2]}, .yaw = yaw, .pitch = pitch};
    }
    /* lights: directional; the scene's spot; a wide spot low among the geometry, aimed sideways
     * and down, so geometry lies beside and behind it */
    light lights[3] = {
        {.type = LIGHT_DIRECTIONAL, .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}},
        {.type = LIGHT_SPOT, .pos = {s.light_pos[0], s.light_pos[1], s.light_pos[2]},
         .dir = {c[0] - s.light_pos[0], c[1] - s.light_pos[1], c[2] - s.light_pos[2]}, .cone_deg = 60},
        {.type = LIGHT_SPOT, .pos = {c[0] + 0.13f * ext[0], s.bounds_min[1] + 0.45f * ext[1], c[2] + 0.11f * ext[2]},
         .dir = {-0.6f, -0.5f, -0.4f}, .cone_deg = 120},
    };
    static const char *const light_names[3] = {"directional", "spot", "spot-near"};

    long sky_views = 0;
    for (int vi = 0; vi < 3; vi++) {
        camera cam = views[vi];
        cam.fovy = 60.0f;
        camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
        oracle_depth_ids(o, &cam, W, H, depth, ids);
        long sky = 0;
        for (int i = 0; i < W * H; i++)
            sky += !(depth[i] > 0.0f);
        sky_views += sky > 0;
        for (int li = 0; li < 3; li++) {
            izb_recon f = izb_frame_make(&cam, &lights[li], s.bounds_min, s.bounds_max, W, H);
            const izb_settings base = {.bias = bias};
            if (bias > 0.0f) f.bias = bias;
            double ta = now_s();
            oracle_shadow(o, &f, &cam, &lights[li], depth, truth);
            double tb = now_s();
            izb_stats st;
            CHECK(izb_shade_arrays(b, &f, &base, depth, mask, &st), "shade");
            mask_diff d = mask_compare(depth, mask, truth, (long)W * H);
            long shadowed = 0;
            for (int i = 0; i < W * H; i++)
                shadowed += depth[i] > 0.0f && truth[i] == 0;
            double frac = d.covered ? (double)d.mismatched / (double)d.covered : 0.0;
            *worst = fmax(*worst, frac);
            long crossing = li == 2 ? count_crossing(&s, f.light) : 0;
            printf("  view %d %-11s covered %6ld sky %6ld shadow/unlit %6ld  mismatched %3ld (%.4f%%: %ld false "
                   "shadow, %ld false light)  tris %d->%d  oracle %.2f s, izb %.1f ms\n",
                   vi, light_names[li], d.covered, sky, shadowed, d.mismatched, 100.0 * frac, d.false_shadow,
                   d.false_light, st.tris_in, st.tris_after_cull, tb - ta, st.total_ms);
            if (li == 2)
                printf("  view %d spot-near: %ld triangles cross the light's w = 0 plane\n", vi, crossing);
            if (dump && d.mismatched)
                dump_mismatches(o, &s, &cam, &lights[li], &f, depth, mask, truth, skip_self);

            /* Primitive ids: neither the point's own triangle nor one in its plane shadows it
             * (izb_hit_is_own), held to the truth with the same rule (oracle_skip_self: a plane
             * cannot shadow a point on itself, the segment to the light meets it only at the
             * point; the plain truth's hits on the own plane are the float depth putting the point
             * a hair under its surface, past which a grazing ray leaves the plane beyond the bias
             * offset). Reported against both truths. */
            oracle_skip_self(o, true);
            oracle_shadow(o, &f, &cam, &lights[li], depth, truth_self);
            oracle_skip_self(o, skip_self);
            izb_stats st_ids;
            CHECK(izb_shade_arrays_ids(b, &f, &base, depth, ids, mask_ids, &st_ids), "shade with ids");
            const mask_diff di = mask_compare(depth, mask_ids, truth_self, (long)W * H);
            const mask_diff dip = mask_compare(depth, mask_ids, truth, (long)W * H);
            const mask_diff dn = mask_compare(depth, mask, truth_self, (long)W * H);
            const double fi = di.covered ? (double)di.mismatched / (double)di.covered : 0.0;
            *worst_ids = fmax(*worst_ids, fi);
            printf("  view %d %-11s ids: exact-plane truth %3ld (%.4f%%: %ld false shadow, %ld false light); "
                   "%s truth %ld (%ld / %ld); without ids vs exact-plane truth %ld (%ld / %ld)\n",
                   vi, light_names[li], di.mismatched, 100.0 * fi, di.false_shadow, di.false_light,
                   skip_self ? "exact-plane" : "plain", dip.mismatched, dip.false_shadow, dip.false_light,
                   dn.mismatched, dn.false_shadow, dn.false_light);
            CHECK(fi < MAX_MISMATCH,
                  "%s view %d %s, ids: mismatch %.4f%% of covered pixels against the exact-plane "
                  "truth (bound %.4f%%)",
                  s.name, vi, light_names[li], 100.0 * fi, 100.0 * MAX_MISMATCH);
            if (dump && di.mismatched) {
                printf("  (ids vs exact-plane truth)\n");
                dump_mismatches(o, &s, &cam, &lights[li], &f, depth, mask_ids, truth_self, true);
            }
            CHECK(d.covered > W * H / 10, "%s view %d: the view shows the scene (%ld covered)", s.name, vi, d.covered);
            CHECK(shadowed > d.covered / 100, "%s view %d %s: a real shadow to compare (%ld pixels)", s.name, vi,
                  light_names[li], shadowed);
            CHECK(frac < MAX_MISMATCH, "%s view %d %s: mismatch %.4f%% of covered pixels (bound %.4f%%)", s.name, vi,
                  light_names[li], 100.0 * frac, 100.0 * MAX_MISMATCH);
            if (li == 2)
                CHECK(crossing > 0, "%s: the near spot has triangles beside/behind it", s.name);

            /* culling: auto against on and off */
            izb_stats st_on, st_off;
            mask_diff d_on, d_off;
            const double f_on = shade_compare(b, &f, (izb_settings){.cull = IZB_CULL_ON, .bias = bias}, depth,
                                              mask2, truth, &st_on, &d_on);
            printf("  view %d %-11s cull on: %ld mismatched (%.4f%%: %ld false shadow, %ld false light)  "
                   "tris %d -> %d\n",
                   vi, light_names[li], d_on.mismatched, 100.0 * f_on, d_on.false_shadow, d_on.false_light,
                   st_on.tris_in, st_on.tris_after_cull);
            if (open_scene) {
                CHECK(st.tris_cullable == 0 && st.tris_after_cull > st_on.tris_after_cull,
                      "%s: auto culls nothing (%d cullable, %d kept, on keeps %d)", s.name, st.tris_cullable,
                      st.tris_after_cull, st_on.tris_after_cull);
                shade_compare(b, &f, (izb_settings){.cull = IZB_CULL_OFF, .bias = bias}, depth, mask2, truth,
                              &st_off, &d_off);
                CHECK(memcmp(mask, mask2, (size_t)W * H) == 0, "%s view %d %s: auto gives culling off's mask",
                      s.name, vi, light_names[li]);
                if (li == 0)
                    CHECK(f_on > 10.0 * MAX_MISMATCH, "%s view %d: culling on drops real shadows (%.4f%%)",
                          s.name, vi, 100.0 * f_on);
            } else {
                CHECK(st.tris_cullable == s.tri_count - 2, "%s: all but the ground cullable (%d)", s.name,
                      st.tris_cullable);
                if (li < 2) /* lights outside every object: auto culls all that on culls */
                    CHECK(st.tris_after_cull == st_on.tris_after_cull, "%s view %d %s: auto keeps %d, on %d",
                          s.name, vi, light_names[li], st.tris_after_cull, st_on.tris_after_cull);
            }

            /* every kernel x binning gives the identical mask */
            for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2; kernel++)
                for (int binning = IZB_BINNING_RADIX; binning <= IZB_BINNING_ATOMIC; binning++) {
                    if (kernel == IZB_KERNEL1 && binning == IZB_BINNING_RADIX)
                        continue; /* the default, above */
                    izb_settings set = {
                        .kernel = (izb_kernel)kernel, .binning = (izb_binning)binning, .bias = bias};
                    CHECK(izb_shade_arrays(b, &f, &set, depth, mask2, NULL), "shade");
                    CHECK(memcmp(mask, mask2, (size_t)W * H) == 0, "%s view %d %s: kernel%d binning %d same mask",
                          s.name, vi, light_names[li], kernel, binning);
                    CHECK(izb_shade_arrays_ids(b, &f, &set, depth, ids, mask2, NULL), "shade with ids");
                    CHECK(memcmp(mask_ids, mask2, (size_t)W * H) == 0,
                          "%s view %d %s: kernel%d binning %d same mask with ids", s.name, vi,
                          light_names[li], kernel, binning);
                }
        }
    }
    CHECK(sky_views > 0, "%s: some view shows sky", s.name);
    oracle_destroy(o);
}

static void run_lamp_in_box(izb_backend *b, float *depth, uint8_t *mask, uint8_t *truth)
{
    /* ground [-6, 6]^2 at y = 0; a closed cube [-1, 1] x [1, 3] x [-1, 1], outward */
    float xyz[9 * 14];
    const float ground[18] = {-6, 0, -6, -6, 0, 6, 6, 0, 6, -6, 0, -6, 6, 0, 6, 6, 0, -6};
    memcpy(xyz, ground, sizeof ground);
    const int n = test_add_cube(xyz, 2, (const float[3]){0.0f, 2.0f, 0.0f}, 1.0f, false);
    oracle *o = oracle_create(xyz, n);
    CHECK(o && izb_set_scene(b, xyz, n), "lamp in a box: scene");
    if (!o) return;
    const float lo[3] = {-6, 0, -6}, hi[3] = {6, 3, 6};
    camera cam = {.pos = {0.0f, 6.0f, 9.0f}, .yaw = 0.0f, .pitch = -30.0f, .fovy = 60.0f};
    camera_fit_clip(&cam, lo, hi);
    const light l = {
        .type = LIGHT_SPOT, .pos = {0.1f, 2.2f, -0.1f}, .dir = {0.0f, -1.0f, 0.0f}, .cone_deg = 120};
    oracle_depth(o, &cam, W, H, depth);
    izb_recon f = izb_frame_make(&cam, &l, lo, hi, W, H);
    oracle_shadow(o, &f, &cam, &l, depth, truth);
    izb_stats st, st_on;
    mask_diff d, d_on;
    const double fa = shade_compare(b, &f, (izb_settings){0}, depth, mask, truth, &st, &d);
    const double fo =
        shade_compare(b, &f, (izb_settings){.cull = IZB_CULL_ON}, depth, mask, truth, &st_on, &d_on);
    printf("lamp in a box: auto %ld mismatched (%.4f%%), tris %d -> %d; on %ld mismatched (%.4f%%), tris -> "
           "%d\n",
           d.mismatched, 100.0 * fa, st.tris_in, st.tris_after_cull, d_on.mismatched, 100.0 * fo,
           st_on.tris_after_cull);
    CHECK(st.tris_cullable == 12, "the box is closed (%d cullable)", st.tris_cullable);
    CHECK(fa < MAX_MISMATCH, "lamp in a box, auto: %.4f%% mismatched", 100.0 * fa);
    CHECK(fo > 0.1, "lamp in a box, on: the box's shadow is lost (%.4f%% mismatched)", 100.0 * fo);
    oracle_destroy(o);
}
#endif

int main(void)
{
#if !IZB_HAVE_EMBREE
    TEST_SKIP("built without Embree: no ray-cast oracle");
#else
    const char *size = getenv("IZB_ORACLE_SIZE"), *list = getenv("IZB_ORACLE_SCENES");
    if (size && (sscanf(size, "%dx%d", &W, &H) != 2 || W < 64 || H < 64 || W > 8192 || H > 8192)) {
        fprintf(stderr, "IZB_ORACLE_SIZE '%s': expected WxH, 64..8192\n", size);
        return 2;
    }
    char specs[512] = "default,tesseract:50000,spheres:60000,cards";
    skip_self = getenv("IZB_ORACLE_SKIP_SELF") && strcmp(getenv("IZB_ORACLE_SKIP_SELF"), "1") == 0;
    if (getenv("IZB_ORACLE_BIAS") &&
        (sscanf(getenv("IZB_ORACLE_BIAS"), "%f", &bias) != 1 || !(bias > 0.0f) || !(bias < 0.1f))) {
        fprintf(stderr, "IZB_ORACLE_BIAS '%s': expected a number in (0, 0.1)\n", getenv("IZB_ORACLE_BIAS"));
        return 2;
    }
    dump = getenv("IZB_ORACLE_DUMP") && strcmp(getenv("IZB_ORACLE_DUMP"), "1") == 0;
    if (list) snprintf(specs, sizeof specs, "%s", list);
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU});
    float *depth = malloc(sizeof(float) * W * H);
    uint8_t *mask = malloc(W * H), *mask2 = malloc(W * H), *truth = malloc(W * H);
    ids = malloc(sizeof *ids * W * H);
    truth_self = malloc(W * H);
    mask_ids = malloc(W * H);
    if (!b || !depth || !mask || !mask2 || !truth || !ids || !truth_self || !mask_ids) return 1;
    double worst = 0.0, worst_ids = 0.0;
    for (char *save = NULL, *item = strtok_r(specs, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        scene s;
        char err[256], spec[300];
        snprintf(spec, sizeof spec, "builtin:%s", item);
        const bool ok = strcmp(item, "cards") == 0 ? build_cards(&s) : scene_load(spec, &s, err, sizeof err);
        CHECK(ok, "scene %s: %s", item, ok ? "" : err);
        if (ok) run_scene(&s, b, depth, mask, mask2, truth, &worst, &worst_ids);
        scene_free(&s);
    }
    if (!list) run_lamp_in_box(b, depth, mask, truth);
    printf("worst mismatch %.4f%% of covered pixels (bound %.4f%%); with ids against the exact-plane truth "
           "%.4f%%\n",
           100.0 * worst, 100.0 * MAX_MISMATCH, 100.0 * worst_ids);
    izb_destroy(b);
    free(depth), free(mask), free(mask2), free(truth), free(ids), free(truth_self), free(mask_ids);
    return test_done();
#endif
}
