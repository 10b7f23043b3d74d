/* test_fps_log.c — the FPS log (suite cpu):
 *  - the header names every column, each with its unit where it has one (_ms, _s, _px, _deg);
 *  - rows parse back to the numbers written (stage times, counts, modes, pose, light), one row
 *    per frame, each complete on disk as soon as it is written (flushed: nothing lost on Ctrl-C);
 *  - a pass that did not run leaves its fields empty (the IZB's in modes map and none, the map's
 *    time and size in izb and none), so does a GL time not yet measured (frame 0); tris_in is the
 *    scene's and kernel, binning, unit the settings' in every mode;
 *  - an existing file is never overwritten without force, and the message names it;
 *  - F (session_keys with CONTROL_LOG) starts a new timestamped log and stops it; a second start
 *    picks a new name and leaves the first file alone. */
#undef NDEBUG
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "controls.h"
#include "csv_util.h"
#include "fps_log.h"
#include "session.h"
#include "test.h"

static char dir[] = "/tmp/izb-fpslog-XXXXXX";

/* three lights, the second at intensity 0 (no IZB pass: its column empty), each with its own time */
static const light_set three = {.count = 3, .intensity = {1.0f, 0.0f, 0.5f}};
static izb_stats three_stats[IZB_MAX_LIGHTS] = {{.total_ms = 4.5f}, {.total_ms = 99.0f}, {.total_ms = 8.0f}};

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
    z.total_ms = 12.5f + (float)frame;
    z.kernel = IZB_KERNEL2;
    z.binning = IZB_BINNING_ATOMIC;
    z.unit_size = 64;
    return (fps_log_row){
        .frame = frame,
        .wall_s = 0.5 * (double)frame,
        .frame_ms = 16.5 + (double)frame,
        .gl = {.depth_ms = 0.75f, .shade_ms = 1.5f, .transfer_ms = 0.25f, .shadow_map_ms = 3.25f},
        .izb = z,
        .backend = "cpu",
        .unit_setting = 0,
        .width = 320,
        .height = 180,
        .cam = c,
        .light = l,
        .view = RENDER_VIEW_MASK,
        .cull = IZB_CULL_OFF,
        .shadow_mode = "diff", /* both passes ran: every field has a value */
        .sm_size = 1024,
        .scene_tris = 5000,
        .lights = &three,
        .light_stats = three_stats,
        .shadow_samples = 8};
}

/* Every column of row f against what make_row put in, by name; a column this table does not know
 * fails, so a new column comes with its check and two swapped columns cannot both pass. */
static void check_every_column(const csv_table *t, long f, const camera *cam, const light *li)
{
    fps_log_row w = make_row(f, cam, li);
    float fwd[3];
    camera_forward(cam, fwd);
    typedef struct {
        const char *name;
        double num;      /* expected number, when str is NULL */
        const char *str; /* expected text */
        double tol;
    } column_want;
    column_want want[64] = {
        {"frame", (double)f, NULL, 0},
        {"wall_s", w.wall_s, NULL, 1e-5},
        {"frame_ms", w.frame_ms, NULL, 1e-3},
        {"depth_pass_ms", 0.75, NULL, 1e-3},
        {"izb_total_ms", (double)w.izb.total_ms, NULL, 1e-3},
        {"transfer_ms", 0.25, NULL, 1e-3},
        {"shading_ms", 1.5, NULL, 1e-3},
        {"tris_in", 5000, NULL, 0},
        {"tris_after_cull", (double)w.izb.tris_after_cull, NULL, 0},
        {"points", (double)w.izb.points, NULL, 0},
        {"backend", 0, "cpu", 0},
        {"kernel", 0, "2", 0},
        {"binning", 0, "atomic", 0},
        {"unit_size", 0, "64", 0},
        {"grid_w", 31, NULL, 0},
        {"grid_h", 17, NULL, 0},
        {"width_px", 320, NULL, 0},
        {"height_px", 180, NULL, 0},
        {"cam_x", (double)cam->pos[0], NULL, 1e-4},
        {"cam_y", (double)cam->pos[1], NULL, 1e-4},
        {"cam_z", (double)cam->pos[2], NULL, 1e-4},
        {"cam_yaw_deg", (double)cam->yaw, NULL, 1e-3},
        {"cam_pitch_deg", (double)cam->pitch, NULL, 1e-3},
        {"cam_dir_x", (double)fwd[0], NULL, 1e-4},
        {"cam_dir_y", (double)fwd[1], NULL, 1e-4},
        {"cam_dir_z", (double)fwd[2], NULL, 1e-4},
        {"light_type", 0, "spot", 0},
        {"light_dir_x", (double)li->dir[0], NULL, 1e-4},
        {"light_dir_y", (double)li->dir[1], NULL, 1e-4},
        {"light_dir_z", (double)li->dir[2], NULL, 1e-4},
        {"light_pos_x", (double)li->pos[0], NULL, 1e-4},
        {"light_pos_y", (double)li->pos[1], NULL, 1e-4},
        {"light_pos_z", (double)li->pos[2], NULL, 1e-4},
        {"cone_deg", (double)li->cone_deg, NULL, 1e-2},
        {"view", 0, render_view_names[RENDER_VIEW_MASK], 0},
        {"culling", 0, "off", 0},
        {"shadow_mode", 0, "diff", 0},
        {"sm_size_px", 1024, NULL, 0},
        {"sm_ms", 3.25, NULL, 1e-3},
        {"lights", 3, NULL, 0},
        {"light1_izb_ms", 4.5, NULL, 1e-3},
        {"light2_izb_ms", 0, "", 0}, /* intensity 0: no pass */
        {"light3_izb_ms", 8.0, NULL, 1e-3},
        {"light4_izb_ms", 0, "", 0}, /* no such light */
        {"light5_izb_ms", 0, "", 0},
        {"light6_izb_ms", 0, "", 0},
        {"light7_izb_ms", 0, "", 0},
        {"light8_izb_ms", 0, "", 0},
        {"shadow_samples", 8, NULL, 0},
        {"light_angle_deg", (double)li->angle_deg, NULL, 1e-3},
        {"light_samples", (double)li->samples, NULL, 0},
    };
    int n = 0;
    while (want[n].name)
        n++;
    char stage_names[IZB_STAGE_COUNT][64];
    for (int s = 0; s < IZB_STAGE_COUNT; s++) {
        snprintf(stage_names[s], sizeof stage_names[s], "%s_ms", izb_stage_names[s]);
        want[n++] = (column_want){stage_names[s], (double)w.izb.stage_ms[s], NULL, 1e-3};
    }
    for (int c = 0; c < t->cols; c++) {
        const char *h = t->header[c];
        int k = 0;
        while (k < n && strcmp(want[k].name, h) != 0)
            k++;
        CHECK(k < n, "column '%s' has no check in this test", h);
        if (k == n) continue;
        if (want[k].str)
            CHECK(strcmp(csv_str(t, f, h), want[k].str) == 0, "row %ld %s: '%s', want '%s'", f, h,
                  csv_str(t, f, h), want[k].str);
        else
            CHECK(fabs(csv_num(t, f, h) - want[k].num) <= want[k].tol, "row %ld %s: %g, want %g", f, h,
                  csv_num(t, f, h), want[k].num);
    }
    CHECK(t->cols == n, "%d columns, %d checked", t->cols, n);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/a.csv", dir);
    camera cam = {.pos = {1.5f, 2.25f, -3.0f}, .yaw = 30.0f, .pitch = -20.0f};
    light li = {.type = LIGHT_SPOT, .dir = {0.0f, -1.0f, 0.0f}, .pos = {4.0f, 9.0f, -2.0f}, .cone_deg = 45.0f,
                .angle_deg = 2.5f, .samples = 64};

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
                                           "light_pos_y", "light_pos_z", "view", "culling", "shadow_mode", "lights",
                                           "shadow_samples", "light_samples", NULL};
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
    for (long f = 0; f < t.rows; f++)
        check_every_column(&t, f, &cam, &li);
    csv_free(&t);

    /* light_type names the light as the HUD does: an area light (a spot with a size) is "area" */
    char apath[256];
    snprintf(apath, sizeof apath, "%s/area.csv", dir);
    CHECK(fps_log_open(&log, apath, false, err, sizeof err), "open: %s", err);
    static const light kinds[4] = {{.type = LIGHT_SPOT, .size = {0.5f, 0.0f}}, {.type = LIGHT_SPOT},
                                   {.type = LIGHT_DIRECTIONAL, .size = {1.0f, 1.0f}}, {.type = LIGHT_POINT}};
    static const char *const kind_names[4] = {"area", "spot", "directional", "point"};
    for (int k = 0; k < 4; k++) {
        fps_log_row row = make_row(k, &cam, &kinds[k]);
        fps_log_write(&log, &row);
    }
    fps_log_close(&log);
    CHECK(csv_read(apath, &t) && t.rows == 4, "area log: 4 rows");
    for (long k = 0; k < t.rows && k < 4; k++)
        CHECK(strcmp(csv_str(&t, k, "light_type"), kind_names[k]) == 0, "light %ld: light_type '%s', want '%s'", k,
              csv_str(&t, k, "light_type"), kind_names[k]);
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
        CHECK(map ? csv_num(&t, m, "sm_size_px") == 2048 : csv_str(&t, m, "sm_size_px")[0] == '\0',
              "mode %s: sm_size_px '%s' (%s): no map drawn, no size", modes[m], csv_str(&t, m, "sm_size_px"),
              map ? "2048" : "empty");
        static const char *const izb_cols[] = {"reconstruct_ms", "raster_ms", "izb_total_ms", "points", "grid_w",
                                               "light1_izb_ms", "light3_izb_ms", NULL};
        for (int k = 0; izb_cols[k]; k++)
            CHECK(izb == (csv_str(&t, m, izb_cols[k])[0] != '\0'), "mode %s: %s '%s' (%s)", modes[m], izb_cols[k],
                  csv_str(&t, m, izb_cols[k]), izb ? "a number" : "empty");
        CHECK(csv_num(&t, m, "tris_in") == 5000 && csv_num(&t, m, "shading_ms") > 1.0, "scene and shading columns stay");
    }
    csv_free(&t);

    /* numbers that are true in every mode (issue 22, defect 2): tris_in is the scene's, also where
     * the IZB never ran (its stats all zero, as in a run started with --shadows map) or ran last
     * on a smaller scene; kernel, binning and unit are the settings now, not the last IZB frame's;
     * a GL time with no result yet (frame 0) is empty, not 0.0000 */
    char tpath[256];
    snprintf(tpath, sizeof tpath, "%s/true.csv", dir);
    CHECK(fps_log_open(&log, tpath, false, err, sizeof err), "open: %s", err);
    const izb_settings now_set = {.kernel = IZB_KERNEL1, .binning = IZB_BINNING_RADIX, .unit_size = 128};
    for (int m = 0; m < 4; m++) {
        fps_log_row row = make_row(m, &cam, &li); /* stats: kernel 2, atomic, unit 64, 5000 triangles */
        row.shadow_mode = modes[m];
        row.scene_tris = 7321; /* the scene as drawn now (G added the ground since the IZB last ran) */
        row.settings = &now_set;
        if (m == 3) row.izb = (izb_stats){0}; /* --shadows none from the start: no IZB frame ever */
        fps_log_write(&log, &row);
    }
    fps_log_row row0 = make_row(0, &cam, &li); /* frame 0: no GL timer result yet */
    row0.gl.depth_frame = row0.gl.shade_frame = row0.gl.shadow_map_frame = -1;
    row0.shadow_mode = "map";
    fps_log_write(&log, &row0);
    fps_log_close(&log);
    CHECK(csv_read(tpath, &t) && t.rows == 5, "true-numbers log: 5 rows");
    for (long m = 0; m < 4 && t.rows == 5; m++) {
        bool izb = m == 0 || m == 2;
        CHECK(csv_num(&t, m, "tris_in") == 7321, "mode %s: tris_in %s is the scene's 7321", modes[m],
              csv_str(&t, m, "tris_in"));
        CHECK(strcmp(csv_str(&t, m, "kernel"), izb ? "2" : "1") == 0 &&
                  strcmp(csv_str(&t, m, "binning"), izb ? "atomic" : "radix") == 0,
              "mode %s: kernel %s binning %s (%s)", modes[m], csv_str(&t, m, "kernel"),
              csv_str(&t, m, "binning"), izb ? "the IZB's own" : "the settings now");
        CHECK(strcmp(csv_str(&t, m, "unit_size"), izb ? "64" : "128") == 0, "mode %s: unit_size %s", modes[m],
              csv_str(&t, m, "unit_size"));
    }
    if (t.rows == 5) {
        static const char *const untimed[] = {"depth_pass_ms", "shading_ms", "sm_ms", NULL};
        for (int k = 0; untimed[k]; k++)
            CHECK(csv_str(&t, 4, untimed[k])[0] == '\0', "frame 0: %s '%s' is empty, not 0", untimed[k],
                  csv_str(&t, 4, untimed[k]));
        CHECK(csv_num(&t, 4, "sm_size_px") == 1024, "frame 0 in map mode: the map's size is known");
    }
    csv_free(&t);
    /* a log that cannot be written. /dev/full: the header's flush fails, so --log refuses at once */
    CHECK(!fps_log_open(&log, "/dev/full", true, err, sizeof err) && strstr(err, "/dev/full") &&
              strstr(err, "No space"),
          "/dev/full refused at open: '%s'", err);
    /* a directory root cannot create files in (tests run as root: chmod would not stop it) */
    CHECK(!fps_log_open(&log, "/proc/izb.csv", true, err, sizeof err) && strstr(err, "/proc/izb.csv"),
          "/proc refused: '%s'", err);
    /* a disk that fills mid-run: the file size limit lets 2.5 rows through after the first */
    {
        char full[300];
        /* a '%' in the name: the path the log's messages name is the one given, not read as a format */
        snprintf(full, sizeof full, "%s/full-100%%%%.csv", dir);
        CHECK(fps_log_open(&log, full, false, err, sizeof err), "open %s: %s", full, err);
        CHECK(strcmp(log.path, full) == 0, "the log calls '%s' '%s'", full, log.path);
        fps_log_row row = make_row(0, &cam, &li);
        fps_log_write(&log, &row);
        long header_and_row = file_size(full);
        row = make_row(1, &cam, &li);
        fps_log_write(&log, &row);
        long row_bytes = file_size(full) - header_and_row; /* rows 0..5 print the same widths */
        struct rlimit old, lim = {.rlim_cur = (rlim_t)(file_size(full) + row_bytes + row_bytes / 2),
                                  .rlim_max = RLIM_INFINITY};
        signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead of the signal killing us */
        CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0 && setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
        for (long f = 2; f < 6; f++) {
            row = make_row(f, &cam, &li);
            fps_log_write(&log, &row);
        }
        setrlimit(RLIMIT_FSIZE, &old);
        CHECK(log.failed && log.rows == 3, "the 4th row fails and logging stops: failed %d, %ld rows",
              (int)log.failed, log.rows);
        CHECK(!fps_log_close(&log), "close reports the incomplete log");
        CHECK(csv_read(full, &t) && t.rows == 3, "the file holds the 3 whole rows (%ld)", t.rows);
        for (long f = 0; f < t.rows; f++)
            check_every_column(&t, f, &cam, &li);
        csv_free(&t);
        CHECK(file_size(full) == header_and_row + 2 * row_bytes, "no part of the failed row is left: %ld bytes",
              file_size(full));
    }

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
