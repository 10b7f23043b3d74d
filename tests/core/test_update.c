/* test_update.c — dynamic scenes: scene_animate is deterministic from the frame number and moves
 * every triangle but the ground; izb_update_scene (the cheap path: one pass over the triangles)
 * gives the bit-identical mask and cull counts of a fresh izb_set_scene of the same positions,
 * for both motions (wave, turntable) and both lights; it refuses a changed triangle count or a
 * NULL array, and the backend goes on working after refusing. Depth from the oracle's primary
 * rays (exit 77 without Embree). */
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_config.h"
#include "scene.h"
#include "scene_animate.h"
#include "test.h"
#include "view.h"

#if IZB_HAVE_EMBREE
#include "oracle.h"

enum { W = 320, H = 240 };

/* share of non-ground triangles with at least one coordinate changed between a and b */
static double moved_share(const float *a, const float *b, long first, long last)
{
    long moved = 0;
    for (long i = first; i < last; i++)
        moved += memcmp(a + 9 * i, b + 9 * i, 9 * sizeof(float)) != 0;
    return last > first ? (double)moved / (double)(last - first) : 0.0;
}

static void check_scene(const char *spec, scene_motion want)
{
    scene s;
    char err[512];
    if (!scene_load(spec, &s, err, sizeof err)) {
        CHECK(false, "%s", err);
        return;
    }
    const size_t fl = 9 * (size_t)s.tri_count;
    float *a = malloc(fl * sizeof(float)), *b = malloc(fl * sizeof(float)), *nrm = malloc(fl * sizeof(float));
    float *depth = malloc(sizeof(float) * W * H);
    uint8_t *m1 = malloc(W * H), *m2 = malloc(W * H);
    oracle *o = oracle_create(s.xyz, s.tri_count);
    izb_backend *upd = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU});
    izb_backend *fresh = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU});
    if (!a || !b || !nrm || !depth || !m1 || !m2 || !o || !upd || !fresh) {
        CHECK(false, "%s: setup failed", spec);
        return;
    }
    const scene_motion m = scene_motion_of(&s);
    CHECK(m == want, "%s: motion %d, expected %d", spec, (int)m, (int)want);

    /* determinism, rest at frame 0, the ground fixed, the rest moving */
    scene_animate(&s, m, 0, a, nrm);
    CHECK(memcmp(a, s.xyz, fl * sizeof(float)) == 0 && memcmp(nrm, s.normals, fl * sizeof(float)) == 0,
          "%s: frame 0 is not the rest pose", spec);
    scene_animate(&s, m, 7, a, NULL);
    scene_animate(&s, m, 7, b, nrm);
    CHECK(memcmp(a, b, fl * sizeof(float)) == 0, "%s: frame 7 differs between two calls", spec);
    CHECK(memcmp(a, s.xyz, 18 * sizeof(float)) == 0, "%s: the ground moved", spec);
    const double share = moved_share(s.xyz, a, 2, s.tri_count);
    CHECK(share > 0.99, "%s: only %.3f of the triangles moved at frame 7", spec, share);
    bool unit = true;
    for (size_t i = 0; i < fl; i += 3) {
        const float l2 = nrm[i] * nrm[i] + nrm[i + 1] * nrm[i + 1] + nrm[i + 2] * nrm[i + 2];
        unit = unit && l2 > 0.99f && l2 < 1.01f;
    }
    CHECK(unit, "%s: animated normals are not unit length", spec);

    /* update_scene == a fresh set_scene, bit for bit, over frames and both lights */
    CHECK(izb_set_scene(upd, s.xyz, s.tri_count), "%s: set_scene", spec);
    camera cam = {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
    oracle_depth(o, &cam, W, H, depth);
    static const long frames[] = {1, 13, 90};
    for (int fi = 0; fi < 3; fi++) {
        scene_animate(&s, m, frames[fi], a, NULL);
        CHECK(izb_update_scene(upd, a, s.tri_count), "%s: update_scene frame %ld", spec, frames[fi]);
        CHECK(izb_set_scene(fresh, a, s.tri_count), "%s: set_scene frame %ld", spec, frames[fi]);
        for (int spot = 0; spot < 2; spot++) {
            float c[3];
            for (int k = 0; k < 3; k++)
                c[k] = 0.5f * (s.bounds_min[k] + s.bounds_max[k]);
            light l =
                spot ? (light){.type = LIGHT_SPOT,
                               .pos = {s.light_pos[0], s.light_pos[1], s.light_pos[2]},
                               .dir = {c[0] - s.light_pos[0], c[1] - s.light_pos[1], c[2] - s.light_pos[2]},
                               .cone_deg = 60}
                     : (light){.type = LIGHT_DIRECTIONAL,
                               .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}};
            izb_recon f = izb_frame_make(&cam, &l, s.bounds_min, s.bounds_max, W, H);
            izb_stats s1, s2;
            const bool ok = izb_shade_arrays(upd, &f, NULL, depth, m1, &s1) &&
                            izb_shade_arrays(fresh, &f, NULL, depth, m2, &s2);
            long shadowed = 0;
            for (int i = 0; i < W * H; i++)
                shadowed += m2[i] == 0;
            CHECK(ok && memcmp(m1, m2, W * H) == 0,
                  "%s frame %ld %s: update_scene's mask differs from set_scene's", spec, frames[fi],
                  spot ? "spot" : "dir");
            CHECK(ok && s1.tris_after_cull == s2.tris_after_cull && s1.tris_cullable == s2.tris_cullable,
                  "%s frame %ld: cull counts %d/%d vs %d/%d", spec, frames[fi], s1.tris_after_cull,
                  s1.tris_cullable, s2.tris_after_cull, s2.tris_cullable);
            CHECK(shadowed > 0, "%s frame %ld: no shadow at all (a vacuous comparison)", spec, frames[fi]);
        }
    }

    /* bad input: refused, and the backend still works */
    CHECK(!izb_update_scene(upd, a, s.tri_count - 1), "%s: update_scene took a changed count", spec);
    CHECK(!izb_update_scene(upd, NULL, s.tri_count), "%s: update_scene took NULL", spec);
    CHECK(izb_update_scene(upd, a, s.tri_count), "%s: update_scene after a refusal", spec);

    izb_destroy(upd), izb_destroy(fresh);
    oracle_destroy(o);
    free(a), free(b), free(nrm), free(depth), free(m1), free(m2);
    scene_free(&s);
}
#endif

int main(void)
{
#if IZB_HAVE_EMBREE
    check_scene("builtin:wave:20K", SCENE_MOTION_WAVE);
    check_scene("builtin:spheres:20K", SCENE_MOTION_TURNTABLE);
    return test_done();
#else
    TEST_SKIP("built without Embree: no depth images");
#endif
}
