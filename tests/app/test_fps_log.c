/* test_fps_log.c — the FPS log (suite cpu):
 *  - the header names every column, each with its unit where it has one (_ms, _s, _px, _deg);
 *  - rows parse back to the numbers written (stage times, counts, modes, pose, light), one row
 *    per frame, each complete on disk as soon as it is written (flushed: nothing lost on Ctrl-C);
 *  - an existing file is never overwritten without force, and the message names it;
 *  - F (session_keys with CONTROL_LOG) starts a new timestamped log and stops it; a second start
 *    picks a new name and leaves the first file alone. */
#undef NDEBUG
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "controls.h"
#include "csv_util.h"
#include "fps_log.h"
#include "session.h"
#include "test.h"

static char dir[] = "/tmp/izb-fpslog-XXXXXX";

static fps_log_row make_row(long frame, const camera *c, const light *l)
{
    izb_stats z;
    memset(&z, 0, sizeof z);
    for (int s = 0; s < IZB_STAGE_COUNT; s++)
        z.stage_ms[s] = 1.25f * (float)(s + 1) + (float)frame;
    z.total_ms = 12.5f;
    z.points = 1000 + (int)frame;
    z.tris_in = 5000;
    z.tris_after_cull = 2500 - (int)frame;
    z.grid_w = 31;
    z.grid_h = 17;
    z.kernel = IZB_KERNEL2;
    z.binning = IZB_BINNING_ATOMIC;
    z.unit_size = 64;
    return (fps_log_row){.frame = frame,
                         .wall_s = 0.5 * (double)frame,
                         .frame_ms = 16.5 + (double)frame,
                         .gl = {.depth_ms = 0.75f, .shade_ms = 1.5f, .transfer_ms = 0.25f},
                         .izb = z,
                         .backend = "cpu",
                         .unit_setting = 0,
                         .width = 320,
                         .height = 180,
                         .cam = c,
                         .light = l};
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/a.csv", dir);
    camera cam = {.pos = {1.5f, 2.25f, -3.0f}, .yaw = 30.0f, .pitch = -20.0f};
    light li = {.type = LIGHT_SPOT, .dir = {0.0f, -1.0f, 0.0f}, .pos = {4.0f, 9.0f, -2.0f}, .cone_deg = 45.0f};

    fps_log log;
    CHECK(fps_log_open(&log, path, false, err, sizeof err), "open: %s", err);
    enum { ROWS = 5 };
    for (long f = 0; f < ROWS; f++) {
        fps_log_row row = make_row(f, &cam, &li);
        fps_log_write(&log, &row);
        /* flushed per row: the file on disk already holds f+1 complete rows */
        csv_table t;
        CHECK(csv_read(path, &t) && t.rows == f + 1, "after row %ld the file holds %ld rows", f, t.rows);
        csv_free(&t);
    }
    fps_log_close(&log);

    csv_table t;
    CHECK(csv_read(path, &t), "parse %s", path);
    CHECK(t.rows == ROWS, "%ld rows", t.rows);
    /* every column named; timing and size columns carry their unit */
    static const char *const unitless[] = {"frame", "tris_in", "tris_after_cull", "points", "backend", "kernel",
                                           "binning", "unit_size", "grid_w", "grid_h", "cam_x", "cam_y",
                                           "cam_z", "cam_dir_x", "cam_dir_y", "cam_dir_z", "light_type",
                                           "light_dir_x", "light_dir_y", "light_dir_z", "light_pos_x",
                                           "light_pos_y", "light_pos_z", "view", "culling", "shadow_mode", NULL};
    for (int c = 0; c < t.cols; c++) {
        const char *h = t.header[c];
        size_t n = strlen(h);
        bool unit = (n > 3 && strcmp(h + n - 3, "_ms") == 0) || (n > 2 && strcmp(h + n - 2, "_s") == 0) ||
                    (n > 3 && strcmp(h + n - 3, "_px") == 0) || (n > 4 && strcmp(h + n - 4, "_deg") == 0);
        bool known = false;
        for (int k = 0; unitless[k]; k++)
            known |= strcmp(h, unitless[k]) == 0;
        CHECK(n > 0 && (unit || known), "column %d '%s' has a name with its unit", c, h);
    }
    const char *needed[] = {"frame", "wall_s", "frame_ms", "depth_pass_ms", "reconstruct_ms", "binning_ms",
                            "culling_ms", "raster_ms", "shading_ms", "tris_in", "tris_after_cull", "points",
                            "kernel", "binning", "unit_size", "grid_w", "grid_h", "width_px", "height_px",
                            "cam_x", "cam_dir_z", "light_type", "light_pos_y", NULL};
    for (int k = 0; needed[k]; k++)
        CHECK(csv_col(&t, needed[k]) >= 0, "column '%s' present", needed[k]);

    float fwd[3];
    camera_forward(&cam, fwd);
    for (long f = 0; f < t.rows; f++) {
        fps_log_row w = make_row(f, &cam, &li);
        CHECK(csv_num(&t, f, "frame") == (double)f, "frame %ld", f);
        CHECK(fabs(csv_num(&t, f, "frame_ms") - w.frame_ms) < 1e-3, "frame_ms row %ld", f);
        CHECK(fabs(csv_num(&t, f, "wall_s") - w.wall_s) < 1e-5, "wall_s row %ld", f);
        CHECK(fabs(csv_num(&t, f, "depth_pass_ms") - 0.75) < 1e-3, "depth_pass_ms");
        CHECK(fabs(csv_num(&t, f, "shading_ms") - 1.5) < 1e-3, "shading_ms");
        for (int s = 0; s < IZB_STAGE_COUNT; s++) {
            char name[64];
            snprintf(name, sizeof name, "%s_ms", izb_stage_names[s]);
            CHECK(fabs(csv_num(&t, f, name) - (double)w.izb.stage_ms[s]) < 1e-3, "%s row %ld: %g vs %g", name, f,
                  csv_num(&t, f, name), (double)w.izb.stage_ms[s]);
        }
        CHECK(csv_num(&t, f, "points") == w.izb.points, "points row %ld", f);
        CHECK(csv_num(&t, f, "tris_after_cull") == w.izb.tris_after_cull, "tris_after_cull row %ld", f);
        CHECK(csv_num(&t, f, "grid_w") == 31 && csv_num(&t, f, "grid_h") == 17, "grid");
        CHECK(csv_num(&t, f, "width_px") == 320 && csv_num(&t, f, "height_px") == 180, "resolution");
        CHECK(strcmp(csv_str(&t, f, "kernel"), "2") == 0, "kernel '%s'", csv_str(&t, f, "kernel"));
        CHECK(strcmp(csv_str(&t, f, "binning"), "atomic") == 0, "binning");
        CHECK(strcmp(csv_str(&t, f, "unit_size"), "64") == 0, "unit_size '%s'", csv_str(&t, f, "unit_size"));
        CHECK(strcmp(csv_str(&t, f, "backend"), "cpu") == 0, "backend");
        CHECK(fabs(csv_num(&t, f, "cam_y") - 2.25) < 1e-4 && fabs(csv_num(&t, f, "cam_yaw_deg") - 30.0) < 1e-3,
              "camera position and yaw");
        CHECK(fabs(csv_num(&t, f, "cam_dir_x") - fwd[0]) < 1e-4 && fabs(csv_num(&t, f, "cam_dir_z") - fwd[2]) < 1e-4,
              "camera direction");
        CHECK(strcmp(csv_str(&t, f, "light_type"), "spot") == 0 && fabs(csv_num(&t, f, "light_pos_y") - 9.0) < 1e-4,
              "light");
    }
    csv_free(&t);

    /* a pass that did not run leaves its fields empty: sm_ms in modes izb and none, the IZB's times
     * and outputs in modes map and none (their stats and timer still hold an older frame's) */
    char mpath[256];
    snprintf(mpath, sizeof mpath, "%s/modes.csv", dir);
    CHECK(fps_log_open(&log, mpath, false, err, sizeof err), "open: %s", err);
    static const char *const modes[4] = {"izb", "map", "diff", "none"};
    for (int m = 0; m < 4; m++) {
        fps_log_row row = make_row(m, &cam, &li);
        row.gl.shadow_map_ms = 3.5f; /* the last map's time, as render_get_timings keeps it */
        row.shadow_mode = modes[m];
        row.sm_size = 2048;
        fps_log_write(&log, &row);
    }
    fps_log_close(&log);
    CHECK(csv_read(mpath, &t) && t.rows == 4, "modes log: 4 rows");
    for (long m = 0; m < t.rows && m < 4; m++) {
        bool map = m == 1 || m == 2, izb = m == 0 || m == 2;
        CHECK(strcmp(csv_str(&t, m, "shadow_mode"), modes[m]) == 0, "mode column '%s'", csv_str(&t, m, "shadow_mode"));
        CHECK(map ? fabs(csv_num(&t, m, "sm_ms") - 3.5) < 1e-4 : csv_str(&t, m, "sm_ms")[0] == '\0',
              "mode %s: sm_ms '%s' (%s)", modes[m], csv_str(&t, m, "sm_ms"), map ? "3.5" : "empty");
        CHECK(csv_num(&t, m, "sm_size_px") == 2048, "sm_size_px");
        static const char *const izb_cols[] = {"reconstruct_ms", "raster_ms", "izb_total_ms", "points", "grid_w", NULL};
        for (int k = 0; izb_cols[k]; k++)
            CHECK(izb == (csv_str(&t, m, izb_cols[k])[0] != '\0'), "mode %s: %s '%s' (%s)", modes[m], izb_cols[k],
                  csv_str(&t, m, izb_cols[k]), izb ? "a number" : "empty");
        CHECK(csv_num(&t, m, "tris_in") == 5000 && csv_num(&t, m, "shading_ms") > 1.0, "scene and shading columns stay");
    }
    csv_free(&t);

    /* never overwritten silently */
    CHECK(!fps_log_open(&log, path, false, err, sizeof err) && strstr(err, path) && !strchr(err, '\n'),
          "an existing log is refused with one line naming it: '%s'", err);
    CHECK(csv_read(path, &t) && t.rows == ROWS, "the refused file keeps its %d rows (%ld)", ROWS, t.rows);
    csv_free(&t);

    /* F: start, write, stop; start again -> another file */
    fps_log app_log = {0};
    session s;
    CHECK(session_init(&s, &(session_desc){.log = &app_log, .out_dir = dir, .headless = true}, err, sizeof err),
          "session_init: %s", err);
    session_keys(&s, CONTROL_LOG, 0.0, NULL, &cam, &li);
    CHECK(app_log.f != NULL && strstr(s.log_path, "/izb-log-") && strstr(s.log_path, ".csv"),
          "F opens a timestamped log: '%s'", s.log_path);
    CHECK(strstr(s.notice, s.log_path) != NULL, "the notice (HUD, stdout) names it: '%s'", s.notice);
    char first[512];
    snprintf(first, sizeof first, "%s", s.log_path);
    fps_log_row row = make_row(0, &cam, &li);
    fps_log_write(&app_log, &row);
    fps_log_write(&app_log, &row);
    session_keys(&s, CONTROL_LOG, 1.0, NULL, &cam, &li);
    CHECK(app_log.f == NULL, "F again closes it");
    CHECK(csv_read(first, &t) && t.rows == 2, "%s holds the 2 rows", first);
    csv_free(&t);
    session_keys(&s, CONTROL_LOG, 2.0, NULL, &cam, &li);
    CHECK(app_log.f != NULL && strcmp(s.log_path, first) != 0, "a second F log gets a new name: '%s'", s.log_path);
    session_keys(&s, CONTROL_LOG, 3.0, NULL, &cam, &li);
    CHECK(csv_read(first, &t) && t.rows == 2, "the first log is untouched");
    csv_free(&t);
    session_shutdown(&s, 4.0);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "clean up");
    return test_done();
}
