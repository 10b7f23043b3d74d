/* test_camera_path.c — camera paths (suite cpu):
 *  - save / load round trip keeps every pose (to the file's 9 significant digits);
 *  - sampling at a pose's time gives that pose; between poses it interpolates (shortest-arc yaw);
 *    loop wraps, no-loop clamps;
 *  - R records poses (session_record) and saves a timestamped file; --path replay on the fixed
 *    headless step reproduces the recorded poses frame by frame, the light's extent (cone, angle,
 *    samples, size, shape) with them, and ends after the last one;
 *  - the extent between poses: cone, angle and size interpolate, samples and shape switch halfway;
 *  - a version-1 file loads its 13 fields as before, and its replay keeps the app's extent;
 *  - a moving scene's time: the wall clock in a window, frame / path_fps headless;
 *  - malformed files are rejected with one line naming the file (and line);
 *  - every shipped assets/paths/ file loads. */
#undef NDEBUG
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "camera_path.h"
#include "controls.h"
#include "izb_config.h"
#include "izb_soft.h"
#include "session.h"
#include "test.h"

static char dir[] = "/tmp/izb-path-XXXXXX";

/* the light's extent, the fields a version-2 path adds */
static bool same_extent(const light *a, const light *b, float tol)
{
    return fabsf(a->cone_deg - b->cone_deg) <= tol && fabsf(a->angle_deg - b->angle_deg) <= tol &&
           a->samples == b->samples && fabsf(a->size[0] - b->size[0]) <= tol &&
           fabsf(a->size[1] - b->size[1]) <= tol && a->shape == b->shape;
}

static bool near_pose(const camera *a, const light *la, const camera *b, const light *lb, float tol)
{
    bool ok = fabsf(a->yaw - b->yaw) <= tol && fabsf(a->pitch - b->pitch) <= tol && la->type == lb->type &&
              same_extent(la, lb, tol);
    for (int k = 0; k < 3; k++)
        ok = ok && fabsf(a->pos[k] - b->pos[k]) <= tol && fabsf(la->dir[k] - lb->dir[k]) <= tol &&
             fabsf(la->pos[k] - lb->pos[k]) <= tol;
    return ok;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void pose_at(int i, camera *c, light *l)
{
    *c = (camera){.pos = {0.1f * (float)i, 2.0f + 0.01f * (float)i, -0.3f * (float)i},
                  .yaw = 170.0f + 7.5f * (float)i,
                  .pitch = -30.0f + (float)i};
    *l = (light){.type = i >= 5 ? LIGHT_SPOT : LIGHT_DIRECTIONAL,
                 .dir = {0.5f, -0.8f, 0.1f * (float)i},
                 .pos = {3.0f, 8.0f + (float)i, 1.0f},
                 .cone_deg = 30.0f + 5.0f * (float)i,
                 .angle_deg = 0.25f * (float)i,
                 .samples = 16 << (i % 5),
                 .size = {0.5f * (float)i, 0.25f * (float)i},
                 .shape = i % 2};
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char file[300], err[600];
    snprintf(file, sizeof file, "%s/a.path", dir);

    /* round trip */
    enum { N = 8 };
    camera_path p = {0};
    camera c[N];
    light l[N];
    for (int i = 0; i < N; i++) {
        pose_at(i, &c[i], &l[i]);
        CHECK(camera_path_add(&p, 0.5 * i, &c[i], &l[i]), "add %d", i);
    }
    CHECK(!camera_path_add(&p, 1.0, &c[0], &l[0]), "a time that does not increase is refused");
    CHECK(camera_path_save(&p, file, err, sizeof err), "save: %s", err);
    camera_path q;
    CHECK(camera_path_load(&q, file, err, sizeof err), "load: %s", err);
    CHECK(q.count == N && fabs(camera_path_duration(&q) - 0.5 * (N - 1)) < 1e-9, "%d poses, %g s", q.count,
          camera_path_duration(&q));
    for (int i = 0; i < q.count && i < N; i++) {
        CHECK(fabs(q.poses[i].t - 0.5 * i) < 1e-9, "t %d", i);
        CHECK(near_pose(&q.poses[i].cam, &q.poses[i].light, &c[i], &l[i], 1e-6f), "pose %d survives", i);
        camera sc;
        light sl;
        camera_path_sample(&q, 0.5 * i, false, &sc, &sl);
        CHECK(near_pose(&sc, &sl, &c[i], &l[i], 1e-5f), "sample at pose %d's time gives it", i);
    }
    camera sc;
    light sl;
    camera_path_sample(&q, 0.25, false, &sc, &sl); /* halfway 0 -> 1 */
    CHECK(fabsf(sc.pos[0] - 0.05f) < 1e-5f && fabsf(sc.pitch + 29.5f) < 1e-4f, "interpolates: x %g pitch %g",
          (double)sc.pos[0], (double)sc.pitch);
    /* the extent between poses 0 and 1: cone 30 -> 35, angle 0 -> 0.25, size 0,0 -> 0.5,0.25
     * interpolate; samples 16 -> 32 and shape rect -> disk switch halfway */
    CHECK(fabsf(sl.cone_deg - 32.5f) < 1e-4f && fabsf(sl.angle_deg - 0.125f) < 1e-6f &&
              fabsf(sl.size[0] - 0.25f) < 1e-6f && fabsf(sl.size[1] - 0.125f) < 1e-6f,
          "the extent interpolates: cone %g angle %g size %g,%g", (double)sl.cone_deg, (double)sl.angle_deg,
          (double)sl.size[0], (double)sl.size[1]);
    camera_path_sample(&q, 0.2, false, &sc, &sl);
    CHECK(sl.samples == 16 && sl.shape == 0, "before halfway: pose 0's samples and shape (%d, %d)",
          sl.samples, sl.shape);
    camera_path_sample(&q, 0.3, false, &sc, &sl);
    CHECK(sl.samples == 32 && sl.shape == 1, "after halfway: pose 1's samples and shape (%d, %d)", sl.samples,
          sl.shape);
    camera_path_sample(&q, 1.75, false, &sc, &sl); /* yaw 192.5 -> 200 */
    CHECK(fabsf(sc.yaw - 196.25f) < 1e-3f, "yaw %g", (double)sc.yaw);
    camera_path_sample(&q, 100.0, false, &sc, &sl);
    CHECK(near_pose(&sc, &sl, &c[N - 1], &l[N - 1], 1e-5f), "clamps at the end");
    camera_path_sample(&q, 3.5 + 1.0, true, &sc, &sl);
    CHECK(near_pose(&sc, &sl, &c[2], &l[2], 1e-4f), "loop wraps (t = duration + 1 s -> pose 2)");
    /* the shortest arc across 360 */
    camera_path w = {0};
    camera ya = {.yaw = 350.0f}, yb = {.yaw = 10.0f};
    light dl = {.dir = {0, -1, 0}};
    camera_path_add(&w, 0.0, &ya, &dl);
    camera_path_add(&w, 1.0, &yb, &dl);
    camera_path_sample(&w, 0.5, false, &sc, &sl);
    CHECK(fabsf(fmodf(sc.yaw + 360.0f, 360.0f)) < 1e-3f || fabsf(sc.yaw - 360.0f) < 1e-3f,
          "350 -> 10 passes through 0 (%g)", (double)sc.yaw);
    camera_path_free(&w);
    camera_path_free(&q);
    camera_path_free(&p);

    /* R records, --path replays the same poses on the fixed step */
    session s;
    CHECK(session_init(&s, &(session_desc){.out_dir = dir, .headless = true}, err, sizeof err), "init");
    const double t0 = 1000.0, step = 0.25;
    session_keys(&s, CONTROL_RECORD, t0, NULL, &c[0], &l[0]);
    CHECK(s.recording && strstr(s.rec_path, "/izb-path-") != NULL, "R starts recording to '%s'", s.rec_path);
    for (int i = 1; i < N; i++)
        session_record(&s, t0 + step * i, &c[i], &l[i]);
    session_keys(&s, CONTROL_RECORD, t0 + step * N, NULL, &c[N - 1], &l[N - 1]);
    CHECK(!s.recording && strstr(s.notice, s.rec_path) != NULL, "R again saves it: '%s'", s.notice);
    char rec[512];
    snprintf(rec, sizeof rec, "%s", s.rec_path);
    session_shutdown(&s, 0.0);

    session r;
    CHECK(session_init(&r, &(session_desc){.path_file = rec, .path_fps = 1.0 / step, .headless = true}, err,
                       sizeof err),
          "replay init: %s", err);
    int frames = 0;
    CHECK(r.play.version == CAMERA_PATH_VERSION, "R writes version %d (%d)", CAMERA_PATH_VERSION,
          r.play.version);
    for (; frames < 100 && !r.path_done; frames++) {
        camera pc = {.fovy = 50.0f, .near = 0.5f, .far = 99.0f};
        light pl = {.cone_deg = 33.0f, .angle_deg = 7.0f, .samples = 128, .size = {9.0f, 8.0f}, .shape = 1};
        session_replay(&r, 123.0 /* ignored headless */, &pc, &pl);
        if (frames < N)
            CHECK(near_pose(&pc, &pl, &c[frames], &l[frames], 1e-4f),
                  "replayed frame %d is recorded pose %d, its light's extent too", frames, frames);
        CHECK(pc.fovy == 50.0f && pc.near == 0.5f, "the lens stays the app's");
    }
    CHECK(frames == N, "the replay ends after its %d poses (%d frames)", N, frames);
    session_shutdown(&r, 0.0);

    /* version 1: the 13 fields load as before, the extent 0; the replay keeps the app's extent */
    {
        char v1[320];
        snprintf(v1, sizeof v1, "%s/v1.path", dir);
        write_file(
            v1, "izb-path 1\n# t cam_x cam_y cam_z yaw pitch light_type dir_x dir_y dir_z pos_x pos_y pos_z\n"
                "0 1 2 3 10 -20 1 0.5 -1 0.25 4 5 6\n"
                "2 3 4 5 30 -10 1 0.5 -1 0.75 6 7 8\n");
        camera_path v;
        const bool ok = camera_path_load(&v, v1, err, sizeof err);
        CHECK(ok && v.version == 1 && v.count == 2, "a version-1 file loads: %s", ok ? "" : err);
        if (ok) {
            const path_pose *q0 = &v.poses[0], *q1 = &v.poses[1];
            CHECK(q0->t == 0.0 && q0->cam.pos[0] == 1.0f && q0->cam.pos[2] == 3.0f && q0->cam.yaw == 10.0f &&
                      q0->cam.pitch == -20.0f && q0->light.type == LIGHT_SPOT && q0->light.dir[2] == 0.25f &&
                      q0->light.pos[0] == 4.0f && q0->light.pos[2] == 6.0f && q1->t == 2.0 &&
                      q1->light.dir[2] == 0.75f && q1->light.pos[2] == 8.0f,
                  "version 1's columns read as version 1's fields");
            const light zero = {0};
            CHECK(same_extent(&q0->light, &zero, 0.0f) && same_extent(&q1->light, &zero, 0.0f),
                  "a version-1 pose carries no extent");
            camera_path_free(&v);
        }
        session r1;
        CHECK(session_init(&r1, &(session_desc){.path_file = v1, .path_fps = 2.0, .headless = true}, err,
                           sizeof err),
              "v1 replay init: %s", err);
        const light app = {
            .cone_deg = 33.0f, .angle_deg = 7.0f, .samples = 128, .size = {9.0f, 8.0f}, .shape = 1};
        for (int i = 0; i < 6 && !r1.path_done; i++) {
            camera pc = {0};
            light pl = app;
            session_replay(&r1, 0.0, &pc, &pl);
            CHECK(same_extent(&pl, &app, 0.0f), "frame %d of a version-1 replay keeps the app's extent", i);
            CHECK(fabsf(pc.pos[0] - (1.0f + 0.5f * (float)i)) < 1e-5f &&
                      fabsf(pl.dir[2] - (0.25f + 0.125f * (float)i)) < 1e-5f,
                  "frame %d of a version-1 replay follows its poses (x %g, dir_z %g)", i, (double)pc.pos[0],
                  (double)pl.dir[2]);
        }
        session_shutdown(&r1, 0.0);
    }

    /* a moving scene's time (issue 22): in a window the wall clock — at 4 fps, 24 frames in 6 s pose
     * the turntable at 6 s (half a turn), not 24 / 60 = 0.4 s (12 degrees); headless frame /
     * path_fps, whatever the clock did */
    session aw, ah, ah30;
    CHECK(session_init(&aw, &(session_desc){.headless = false}, err, sizeof err) &&
              session_init(&ah, &(session_desc){.headless = true}, err, sizeof err) &&
              session_init(&ah30, &(session_desc){.headless = true, .path_fps = 30.0}, err, sizeof err),
          "init: %s", err);
    CHECK(session_anim_time(&aw, 24, 6.0) == 6.0, "window, 4 fps: %g s after 6 s",
          session_anim_time(&aw, 24, 6.0));
    CHECK(session_anim_time(&aw, 360, 6.0) == 6.0, "window, 60 fps: the same pose at the same time (%g)",
          session_anim_time(&aw, 360, 6.0));
    CHECK(session_anim_time(&aw, 0, 0.0) == 0.0, "window, first frame: 0 s");
    CHECK(fabs(session_anim_time(&ah, 24, 6.0) - 0.4) < 1e-12 &&
              session_anim_time(&ah, 24, 99.0) == session_anim_time(&ah, 24, 6.0),
          "headless: frame 24 is 0.4 s on any clock (%g)", session_anim_time(&ah, 24, 6.0));
    CHECK(fabs(session_anim_time(&ah30, 24, 6.0) - 0.8) < 1e-12,
          "headless at --path-fps 30: frame 24 is 0.8 s (%g)", session_anim_time(&ah30, 24, 6.0));
    session_shutdown(&aw, 0.0);
    session_shutdown(&ah, 0.0);
    session_shutdown(&ah30, 0.0);

    /* malformed files */
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"", "no poses"},
        {"# only a comment\n", "no poses"},
        {"izb-path 1\n", "no poses"},
        {"izb-path 3\n0 0 0 0 0 0 0 0 -1 0 0 0 0\n", ":1: not an izb-path 1 or 2 file"},
        {"izb-path 0\n0 0 0 0 0 0 0 0 -1 0 0 0 0\n", ":1: not an izb-path 1 or 2 file"},
        {"camera path\n", ":1: not an izb-path 1 or 2 file"},
        {"izb-path 1\n0 0 0 0 0 0 0 0 -1 0 0 0\n", ":2: malformed pose"},
        {"izb-path 1\n0 0 0 0 0 0 0 0 -1 0 0 0 0 7\n", ":2: malformed pose"},
        {"izb-path 1\n0 0 nan 0 0 0 0 0 -1 0 0 0 0\n", ":2: cam_y 'nan'"},
        {"izb-path 1\n0 0 0 0 0 0 3 0 -1 0 0 0 0\n", ":2: light_type '3'"}, /* light types 0..2 */
        {"izb-path 1\n0 0 0 0 0 0 -1 0 -1 0 0 0 0\n", ":2: light_type '-1'"},
        {"izb-path 1\n0 0 0 0 0 0 0 0 -1 0 0 0 x\n", ":2: pos_z 'x'"},
        {"izb-path 1\n1 0 0 0 0 0 0 0 -1 0 0 0 0\n1 0 0 0 0 0 0 0 -1 0 0 0 0\n", ":3: time"},
        /* a zero light direction, refused like --light-dir 0,0,0 (directional and spot alike) */
        {"izb-path 1\n0 0 0 0 0 0 0 0 -1 0 0 0 0\n1 0 0 0 0 0 0 0 0 0 0 0 0\n", ":3: light direction 0,0,0"},
        {"izb-path 1\n# spot\n0 0 0 0 0 0 1 0 0 0 5 5 5\n", ":3: light direction 0,0,0"},
        /* the camera's angles keep the options' ranges: a step past each end is refused */
        {"izb-path 1\n0 0 0 0 0 89.001 0 0 -1 0 0 0 0\n", ":2: pitch '89.001'"},
        {"izb-path 1\n0 0 0 0 0 -90 0 0 -1 0 0 0 0\n", ":2: pitch '-90'"},
        {"izb-path 1\n0 0 0 0 3600.5 0 0 0 -1 0 0 0 0\n", ":2: yaw '3600.5'"},
        {"izb-path 1\n0 0 0 0 -1e30 0 0 0 -1 0 0 0 0\n", ":2: yaw '-1e30'"},
        /* version 2's extent: each field past its option's range (test_camera_path_fields: every end) */
        {"izb-path 2\n0 0 0 0 0 0 1 0 -1 0 0 0 0 0.5 0 32 0 0 0\n", ":2: cone '0.5'"},
        {"izb-path 2\n0 0 0 0 0 0 1 0 -1 0 0 0 0 60 21 32 0 0 0\n", ":2: angle '21'"},
        {"izb-path 2\n0 0 0 0 0 0 1 0 -1 0 0 0 0 60 0 48 0 0 0\n", ":2: samples '48'"},
        {"izb-path 2\n0 0 0 0 0 0 1 0 -1 0 0 0 0 60 0 32 -1 0 0\n", ":2: size_w '-1'"},
        {"izb-path 2\n0 0 0 0 0 0 1 0 -1 0 0 0 0 60 0 32 0 2e6 0\n", ":2: size_h '2e6'"},
        {"izb-path 2\n0 0 0 0 0 0 1 0 -1 0 0 0 0 60 0 32 0 0 2\n", ":2: shape '2'"},
        {"izb-path 2\n0 0 0 0 0 0 1 0 -1 0 0 0 0 60 0 32 0 0\n",
         ":2: malformed pose: 18 fields, want 19 (shape"},
        {"izb-path 2\n0 0 0 0 0 0 1 0 -1 0 0 0 0\n", ":2: malformed pose: 13 fields, want 19 (cone"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char bf[320];
        snprintf(bf, sizeof bf, "%s/bad%zu.path", dir, i);
        write_file(bf, bad[i].text);
        camera_path b = {0};
        err[0] = '\0';
        bool ok = camera_path_load(&b, bf, err, sizeof err);
        CHECK(!ok, "bad file %zu accepted", i);
        CHECK(strstr(err, bf) && strstr(err, bad[i].want) && !strchr(err, '\n'),
              "bad file %zu: one line naming the file and '%s': '%s'", i, bad[i].want, err);
        CHECK(b.poses == NULL && b.count == 0, "nothing kept");
    }
    /* ... and each end itself is accepted */
    {
        char gf[320];
        snprintf(gf, sizeof gf, "%s/edges.path", dir);
        write_file(gf, "izb-path 1\n0 0 0 0 3600 89 0 0 -1 0 0 0 0\n1 0 0 0 -3600 -89 1 0 -1 0 0 0 0\n");
        camera_path g = {0};
        const bool ok = camera_path_load(&g, gf, err, sizeof err);
        CHECK(ok && g.count == 2 && g.poses[0].cam.pitch == 89.0f && g.poses[1].cam.yaw == -3600.0f,
              "pitch +-89 and yaw +-3600 load: %s", ok ? "" : err);
        if (ok) camera_path_free(&g);
    }
    camera_path m;
    CHECK(!camera_path_load(&m, "/nonexistent/x.path", err, sizeof err) && strstr(err, "/nonexistent/x.path"),
          "missing file: '%s'", err);
    session bs;
    snprintf(file, sizeof file, "%s/bad5.path", dir);
    CHECK(!session_init(&bs, &(session_desc){.path_file = file}, err, sizeof err) && strstr(err, file),
          "--path with a bad file fails naming it: '%s'", err);

    /* the shipped paths */
    char adir[512];
    snprintf(adir, sizeof adir, "%s/assets/paths", IZB_SOURCE_DIR);
    DIR *d = opendir(adir);
    CHECK(d != NULL, "%s exists", adir);
    int shipped = 0;
    bool even = false, crowded = false;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".path") != 0) continue;
        char pf[1024];
        snprintf(pf, sizeof pf, "%s/%s", adir, e->d_name);
        camera_path sp;
        bool ok = camera_path_load(&sp, pf, err, sizeof err);
        CHECK(ok && sp.count >= 2 && camera_path_duration(&sp) > 1.0, "%s loads: %s", e->d_name,
              ok ? "" : err);
        if (ok) camera_path_free(&sp);
        shipped++;
        even |= strstr(e->d_name, "even") != NULL;
        crowded |= strstr(e->d_name, "crowded") != NULL;
    }
    if (d) closedir(d);
    CHECK(shipped >= 5 && even && crowded, "%d shipped paths, an even and a crowded one among them", shipped);

    /* a light's "0 = default" cone and samples (view.h) are saved as the defaults, 60 and
     * IZB_SOFT_DEFAULT_SAMPLES, which load (0 is outside the options' ranges); the rest as they are */
    {
        camera_path z = {0};
        light zl = l[3];
        zl.cone_deg = 0.0f, zl.samples = 0;
        camera_path_add(&z, 0.0, &c[3], &zl);
        CHECK(camera_path_save(&z, file, err, sizeof err), "save: %s", err);
        camera_path_free(&z);
        const bool ok = camera_path_load(&z, file, err, sizeof err);
        light want = zl;
        want.cone_deg = 60.0f, want.samples = IZB_SOFT_DEFAULT_SAMPLES;
        CHECK(ok && z.count == 1 && near_pose(&z.poses[0].cam, &z.poses[0].light, &c[3], &want, 0.0f),
              "cone 0 and samples 0 saved as 60 and %d: %s", IZB_SOFT_DEFAULT_SAMPLES, ok ? "" : err);
        if (ok) camera_path_free(&z);
    }

    /* a path that starts later than 0: its duration is last minus first */
    {
        camera_path late = {0};
        camera_path_add(&late, 5.0, &c[0], &l[0]);
        camera_path_add(&late, 7.5, &c[1], &l[1]);
        CHECK(fabs(camera_path_duration(&late) - 2.5) < 1e-12, "duration from t = 5: %g",
              camera_path_duration(&late));
        camera_path_free(&late);
    }

    /* a path that cannot be saved is reported, and an old file under that name survives. Root can
     * write into a chmod'ed read-only directory, so the unwritable places are /dev/full (ENOSPC at
     * the flush) and /proc (no new files) */
    {
        camera_path one = {0};
        camera_path_add(&one, 0.0, &c[0], &l[0]);
        CHECK(!camera_path_save(&one, "/dev/full", err, sizeof err) && strstr(err, "/dev/full") &&
                  strstr(err, "No space"),
              "/dev/full: '%s'", err);
        CHECK(!camera_path_save(&one, "/proc/izb.path", err, sizeof err) && strstr(err, "/proc/izb.path"),
              "/proc: '%s'", err);
        /* R into a place that cannot take it: said and counted, so the run ends with exit 1 */
        session rs;
        CHECK(session_init(&rs, &(session_desc){.out_dir = "/proc", .headless = true}, err, sizeof err),
              "init");
        session_keys(&rs, CONTROL_RECORD, 0.0, NULL, &c[0], &l[0]);
        session_record(&rs, 0.5, &c[1], &l[1]);
        session_keys(&rs, CONTROL_RECORD, 1.0, NULL, &c[1], &l[1]);
        CHECK(rs.write_failures == 1 && strstr(rs.notice, "/proc/izb-path-"),
              "R into /proc: %d failures, '%s'", rs.write_failures, rs.notice);
        session_shutdown(&rs, 2.0);
        camera_path_free(&one);
    }

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "clean up");
    return test_done();
}
