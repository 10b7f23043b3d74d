/* test_oracle.c — the CPU backend's shadow mask against Embree ray casting (tests/oracle.h), the
 * definition of correct (DESIGN.md): built-in scenes x views x lights, depth rendered by the
 * oracle's primary rays, mismatches counted over the covered pixels. Lights: the scene's
 * directional light, its spot light, and a spot light down among the geometry, so that triangles
 * pass beside and behind it (vertices with w <= 0). One view per scene shows sky. Every kernel x
 * binning combination must give the identical mask.
 *
 * Bound: mismatches below 0.01% of the covered pixels per render (MAX_MISMATCH). The oracle's
 * occlusion rays start at the IZB's bias offset (tests/oracle.c), so both answer the same
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
#include "view.h"

#if IZB_HAVE_EMBREE
#include "oracle.h"
#endif

#define W 400
#define H 300
#define MAX_MISMATCH 1e-4 /* fraction of covered pixels */

typedef struct scene_case {
    const char *name;
    long tris;
} scene_case;

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

static void run_scene(const scene_case *sc, izb_backend *b, float *depth, uint8_t *mask, uint8_t *mask2,
                      uint8_t *truth, double *worst)
{
    scene s;
    char err[256];
    if (!scene_builtin(sc->name, sc->tris, &s, err, sizeof err)) {
        CHECK(false, "scene %s: %s", sc->name, err);
        return;
    }
    double t0 = now_s();
    oracle *o = oracle_create(s.xyz, s.tri_count);
    CHECK(o != NULL, "oracle for %s", sc->name);
    CHECK(izb_set_scene(b, s.xyz, s.tri_count), "set_scene %s", sc->name);
    if (!o) {
        scene_free(&s);
        return;
    }
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
        oracle_depth(o, &cam, W, H, depth);
        long sky = 0;
        for (int i = 0; i < W * H; i++)
            sky += !(depth[i] > 0.0f);
        sky_views += sky > 0;
        for (int li = 0; li < 3; li++) {
            izb_recon f = izb_frame_make(&cam, &lights[li], s.bounds_min, s.bounds_max, W, H);
            double ta = now_s();
            oracle_shadow(o, &f, &cam, &lights[li], depth, truth);
            double tb = now_s();
            izb_stats st;
            CHECK(izb_shade_arrays(b, &f, NULL, depth, mask, &st), "shade");
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
            CHECK(d.covered > W * H / 10, "%s view %d: the view shows the scene (%ld covered)", s.name, vi, d.covered);
            CHECK(shadowed > d.covered / 100, "%s view %d %s: a real shadow to compare (%ld pixels)", s.name, vi,
                  light_names[li], shadowed);
            CHECK(frac < MAX_MISMATCH, "%s view %d %s: mismatch %.4f%% of covered pixels (bound %.4f%%)", s.name, vi,
                  light_names[li], 100.0 * frac, 100.0 * MAX_MISMATCH);
            if (li == 2)
                CHECK(crossing > 0, "%s: the near spot has triangles beside/behind it", s.name);

            /* every kernel x binning gives the identical mask */
            for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2; kernel++)
                for (int binning = IZB_BINNING_RADIX; binning <= IZB_BINNING_ATOMIC; binning++) {
                    if (kernel == IZB_KERNEL1 && binning == IZB_BINNING_RADIX)
                        continue; /* the default, above */
                    izb_settings set = {.kernel = (izb_kernel)kernel, .binning = (izb_binning)binning};
                    CHECK(izb_shade_arrays(b, &f, &set, depth, mask2, NULL), "shade");
                    CHECK(memcmp(mask, mask2, (size_t)W * H) == 0, "%s view %d %s: kernel%d binning %d same mask",
                          s.name, vi, light_names[li], kernel, binning);
                }
        }
    }
    CHECK(sky_views > 0, "%s: some view shows sky", s.name);
    oracle_destroy(o);
    scene_free(&s);
}
#endif

int main(void)
{
#if !IZB_HAVE_EMBREE
    TEST_SKIP("built without Embree: no ray-cast oracle");
#else
    const scene_case cases[] = {{"default", 0}, {"tesseract", 50000}, {"spheres", 60000}};
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU});
    float *depth = malloc(sizeof(float) * W * H);
    uint8_t *mask = malloc(W * H), *mask2 = malloc(W * H), *truth = malloc(W * H);
    if (!b || !depth || !mask || !mask2 || !truth)
        return 1;
    double worst = 0.0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_scene(&cases[i], b, depth, mask, mask2, truth, &worst);
    printf("worst mismatch %.4f%% of covered pixels (bound %.4f%%)\n", 100.0 * worst, 100.0 * MAX_MISMATCH);
    izb_destroy(b);
    free(depth), free(mask), free(mask2), free(truth);
    return test_done();
#endif
}
