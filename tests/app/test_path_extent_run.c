/* test_path_extent_run.c — a camera path's light extent reaches the frames, end to end: the built
 * binary replays a path headless (--path-fps 4: frame k is t = k / 4) with --log, and each FPS-log
 * row's light (cone_deg, light_angle_deg, light_samples, light_type's "area") is the path's value
 * at that time, computed here from the poses written (linear for cone, angle and size; samples and
 * the emitter switch halfway):
 *  - version 2: the path's cone, angle, samples and size, not the command line's;
 *  - version 1: the command line's (--cone, --light-angle, --light-samples, --light-size) on every
 *    row, the poses' position still followed.
 * 64x36, 5 frames a run, 3 runs (about 4 s under load). Suite gl (exits 77 without a headless GL).
 * usage: test_path_extent_run PATH-TO-izb-shadows */
#undef NDEBUG
#include <math.h>
#include <unistd.h>

#include "csv_util.h"
#include "run_util.h"
#include "test.h"

enum { FRAMES = 5 };
static char dir[] = "/tmp/izb-path-extent-XXXXXX";
static const char *exe;

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fputs(text, f);
    CHECK(fclose(f) == 0, "write %s", path);
}

/* Replay path with the extra options; the log read into t. false (test skipped) without GL. */
static bool replay(const char *path, const char *const extra[], csv_table *t)
{
    char log[300];
    snprintf(log, sizeof log, "%s/log.csv", dir);
    unlink(log);
    char *argv[40] = {(char *)exe, "--headless", "--frames", "5",  "--path-fps", "4",
                      "--width",   "64",         "--height", "36", "--backend",  "cpu",
                      "--path",    (char *)path, "--log",    log};
    int n = 16;
    for (int i = 0; extra[i] && n < 38; i++)
        argv[n++] = (char *)extra[i];
    argv[n] = NULL;
    run_result r;
    run_program(argv, true, &r);
    if (r.code == 1 && strstr(r.err, "EGL")) TEST_SKIP("no headless GL here: %s", r.err);
    CHECK(r.code == 0, "%s: exit %d", path, r.code);
    const bool ok = csv_read(log, t);
    CHECK(ok && t->rows == FRAMES, "%s: a log of %d rows (%ld)", log, FRAMES, ok ? t->rows : 0L);
    return ok && t->rows == FRAMES;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_path_extent_run PATH-TO-izb-shadows\n");
        return 1;
    }
    exe = argv[1];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char v2[300], v2spot[300], v1[300];
    snprintf(v2, sizeof v2, "%s/v2.path", dir);
    snprintf(v2spot, sizeof v2spot, "%s/v2spot.path", dir);
    snprintf(v1, sizeof v1, "%s/v1.path", dir);
    /* directional: cone 40 -> 80, angle 0 -> 2, samples 16 -> 64 over t 0 -> 1 */
    write_text(v2, "izb-path 2\n"
                   "0 0 2 8 0 -20 0 0.3 -1 0.2 0 5 0 40 0 16 0 0 0\n"
                   "1 0 2 8 0 -20 0 0.3 -1 0.2 0 5 0 80 2 64 0 0 0\n");
    /* spot: size 0,0 -> 2,1 (a hard spot, then an area light), samples 64 -> 16 */
    write_text(v2spot, "izb-path 2\n"
                       "0 0 2 8 0 -20 1 0 -1 0 0 6 0 70 0 64 0 0 0\n"
                       "1 0 2 8 0 -20 1 0 -1 0 0 6 0 70 0 16 2 1 1\n");
    /* version 1, the camera moving x 0 -> 1 */
    write_text(v1, "izb-path 1\n"
                   "0 0 2 8 0 -20 0 0.3 -1 0.2 0 5 0\n"
                   "1 1 2 8 0 -20 0 0.3 -1 0.2 0 5 0\n");
    const char *const cli[] = {"--cone", "90", "--light-angle", "1", "--light-samples", "128", NULL};
    csv_table t;

    if (replay(v2, cli, &t)) {
        for (long k = 0; k < FRAMES; k++) {
            const double s = fmin(k / 4.0, 1.0); /* the path's time, clamped at its end */
            const double cone = 40.0 + 40.0 * s, angle = 2.0 * s;
            const int samples = s < 0.5 ? 16 : 64;
            CHECK(fabs(csv_num(&t, k, "cone_deg") - cone) < 0.01 &&
                      fabs(csv_num(&t, k, "light_angle_deg") - angle) < 0.001,
                  "v2 row %ld: cone %s angle %s, the path's %g %g", k, csv_str(&t, k, "cone_deg"),
                  csv_str(&t, k, "light_angle_deg"), cone, angle);
            if (angle > 0.0) /* the log gives samples for a soft light only */
                CHECK(csv_num(&t, k, "light_samples") == samples, "v2 row %ld: samples %s, the path's %d", k,
                      csv_str(&t, k, "light_samples"), samples);
        }
        csv_free(&t);
    }
    if (replay(v2spot, (const char *const[]){"--light", "spot", "--light-size", "3", NULL}, &t)) {
        for (long k = 0; k < FRAMES; k++) {
            const char *want = k == 0 ? "spot" : "area"; /* size 0 at t = 0 only */
            CHECK(strcmp(csv_str(&t, k, "light_type"), want) == 0 &&
                      fabs(csv_num(&t, k, "cone_deg") - 70.0) < 0.01,
                  "v2 spot row %ld: %s, cone %s; the path's %s, 70", k, csv_str(&t, k, "light_type"),
                  csv_str(&t, k, "cone_deg"), want);
        }
        csv_free(&t);
    }
    if (replay(v1, cli, &t)) {
        for (long k = 0; k < FRAMES; k++) {
            const double s = fmin(k / 4.0, 1.0);
            CHECK(fabs(csv_num(&t, k, "cone_deg") - 90.0) < 0.01 &&
                      fabs(csv_num(&t, k, "light_angle_deg") - 1.0) < 0.001 &&
                      csv_num(&t, k, "light_samples") == 128,
                  "v1 row %ld: cone %s angle %s samples %s, the command line's 90 1 128", k,
                  csv_str(&t, k, "cone_deg"), csv_str(&t, k, "light_angle_deg"),
                  csv_str(&t, k, "light_samples"));
            CHECK(fabs(csv_num(&t, k, "cam_x") - s) < 1e-4, "v1 row %ld: cam_x %s, the path's %g", k,
                  csv_str(&t, k, "cam_x"), s);
        }
        csv_free(&t);
    }
    char logf[300];
    snprintf(logf, sizeof logf, "%s/log.csv", dir);
    unlink(logf), unlink(v2), unlink(v2spot), unlink(v1), rmdir(dir);
    return test_done();
}
