/* test_keys.c — the key bindings act (suite gl: P needs a frame). The handlers are called
 * directly, as the GLFW key callback does (controls_key), then the app's session handler:
 *  - each documented key queues its action; the old V (vsync) and R (reset) moved to Y and Home;
 *  - L flips the light mode; H flips the HUD;
 *  - P writes a timestamped PNG of the last headless frame that decodes at the frame's size;
 *  - F starts a log whose row holds the numbers that frame produced (points, triangles, grid);
 *  - F1 lists every key;
 *  - presses faster than frames: every one comes out in order (K four times toggles four times),
 *    P twice between two frames writes two screenshots, F three times starts, stops and starts.
 * Exit 77 without a GL 4.5 context. */
#undef NDEBUG
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "png_decode.h"

#include "controls.h"
#include "csv_util.h"
#include "fps_log.h"
#include "gl_context.h"
#include "render.h"
#include "scene.h"
#include "session.h"
#include "test.h"

enum { W = 160, H = 90 };
static char dir[] = "/tmp/izb-keys-XXXXXX";

/* files in d whose name starts with prefix */
static int count_files(const char *d, const char *prefix)
{
    DIR *dd = opendir(d);
    int n = 0;
    for (struct dirent *e; dd && (e = readdir(dd)) != NULL;)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (dd) closedir(dd);
    return n;
}

/* a press, then a frame: the toggles it queued (OR-ed) */
static unsigned press(controls *c, int key)
{
    controls_key(c, key);
    unsigned got = 0;
    for (unsigned t; (t = controls_next(c)) != 0;)
        got |= t;
    camera cam = {0};
    light l = {0};
    controls_update(c, 0.016f, &cam, &l);
    return got;
}

/* presses that come faster than frames: every one comes out, in order (issue 22, defect 1) */
static const int BURST[] = {GLFW_KEY_K,
                            GLFW_KEY_P,
                            GLFW_KEY_K,
                            GLFW_KEY_F,
                            GLFW_KEY_LEFT_BRACKET,
                            GLFW_KEY_K,
                            GLFW_KEY_F,
                            GLFW_KEY_P,
                            GLFW_KEY_LEFT_BRACKET,
                            GLFW_KEY_K,
                            GLFW_KEY_F,
                            GLFW_KEY_LEFT_BRACKET};
static const unsigned BURST_ACTIONS[] = {CONTROL_KERNEL, CONTROL_SCREENSHOT, CONTROL_KERNEL,
                                         CONTROL_LOG,    CONTROL_SM_SMALLER, CONTROL_KERNEL,
                                         CONTROL_LOG,    CONTROL_SCREENSHOT, CONTROL_SM_SMALLER,
                                         CONTROL_KERNEL, CONTROL_LOG,        CONTROL_SM_SMALLER};
enum { BURST_N = sizeof BURST / sizeof BURST[0] };

int main(void)
{
    controls c;
    const float bmin[3] = {-1, -1, -1}, bmax[3] = {1, 1, 1};
    controls_init(&c, NULL, bmin, bmax);
    static const struct {
        int key;
        unsigned bit;
        const char *name;
    } keys[] = {
        {GLFW_KEY_H, CONTROL_HUD, "H"},           {GLFW_KEY_F, CONTROL_LOG, "F"},
        {GLFW_KEY_R, CONTROL_RECORD, "R"},        {GLFW_KEY_V, CONTROL_VIEW, "V"},
        {GLFW_KEY_L, CONTROL_LIGHT_MODE, "L"},    {GLFW_KEY_P, CONTROL_SCREENSHOT, "P"},
        {GLFW_KEY_Y, CONTROL_VSYNC, "Y"},         {GLFW_KEY_HOME, CONTROL_RESET, "Home"},
        {GLFW_KEY_K, CONTROL_KERNEL, "K"},        {GLFW_KEY_B, CONTROL_BINNING, "B"},
        {GLFW_KEY_U, CONTROL_UNIT, "U"},          {GLFW_KEY_C, CONTROL_CULL, "C"},
        {GLFW_KEY_T, CONTROL_LIGHT_TYPE, "T"},    {GLFW_KEY_F1, CONTROL_HELP, "F1"},
        {GLFW_KEY_G, CONTROL_GROUND, "G"},
        {GLFW_KEY_ESCAPE, CONTROL_QUIT, "Esc"},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        unsigned got = press(&c, keys[i].key);
        CHECK(got == keys[i].bit, "%s gives action %#x (got %#x)", keys[i].name, keys[i].bit, got);
    }
    CHECK(press(&c, GLFW_KEY_Z) == 0, "an unbound key does nothing");
    CHECK(press(&c, GLFW_KEY_V) == CONTROL_VIEW, "V is the view now, not vsync");

    for (int i = 0; i < BURST_N; i++)
        controls_key(&c, BURST[i]);
    for (int i = 0; i < BURST_N; i++) {
        unsigned t = controls_next(&c);
        CHECK(t == BURST_ACTIONS[i], "burst press %d comes out in order: %#x (got %#x)", i, BURST_ACTIONS[i],
              t);
    }
    CHECK(controls_next(&c) == 0, "and nothing more");
    /* a full queue drops the rest, and the queue works again after */
    for (int i = 0; i < CONTROLS_QUEUE + 5; i++)
        controls_key(&c, GLFW_KEY_K);
    int kept = 0;
    while (controls_next(&c))
        kept++;
    CHECK(kept == CONTROLS_QUEUE && c.dropped == 5, "a full queue keeps %d (got %d), drops 5 (%ld)",
          CONTROLS_QUEUE, kept, c.dropped);
    CHECK(press(&c, GLFW_KEY_B) == CONTROL_BINNING, "after an overflow, a press still comes through");

    bool before = c.light_mode;
    press(&c, GLFW_KEY_L);
    CHECK(c.light_mode != before, "L flips the light mode");
    press(&c, GLFW_KEY_L);
    CHECK(c.light_mode == before, "L again flips it back");

    /* F1: the list names every key above */
    FILE *tf = tmpfile();
    controls_print_keys(tf);
    rewind(tf);
    char list[8192];
    size_t got = fread(list, 1, sizeof list - 1, tf);
    list[got] = '\0';
    fclose(tf);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char want[32];
        snprintf(want, sizeof want, "\n  %s ", keys[i].name);
        CHECK(strstr(list, want) != NULL, "the key list has %s", keys[i].name);
    }

    /* the session keys on a real headless frame */
    gl_context ctx;
    char err[512];
    if (!gl_context_init(&ctx, &(gl_context_desc){.headless = true}, err, sizeof err)) TEST_SKIP("%s", err);
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    scene s;
    CHECK(scene_load("builtin:default", &s, err, sizeof err), "scene: %s", err);
    render *r = render_create(&(render_desc){.width = W, .height = H}, err, sizeof err);
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 2});
    CHECK(r && b && render_set_scene(r, &s, err, sizeof err) && izb_set_scene(b, s.xyz, s.tri_count), "set up");
    camera cam = {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
    light l = {.type = LIGHT_DIRECTIONAL, .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}};
    izb_stats st;
    memset(&st, 0, sizeof st);
    CHECK(render_frame(r, &(render_frame_desc){.cam = &cam, .light = &l, .backend = b, .stats = &st}), "frame");

    fps_log log = {0};
    session ses;
    CHECK(session_init(&ses, &(session_desc){.log = &log, .out_dir = dir, .headless = true}, err, sizeof err),
          "session");
    CHECK(!ses.hud, "HUD off headless by default");
    session_keys(&ses, press(&c, GLFW_KEY_H), 0.0, r, &cam, &l);
    CHECK(ses.hud, "H shows the HUD");

    session_keys(&ses, press(&c, GLFW_KEY_P), 0.0, r, &cam, &l);
    const char *shot = strstr(ses.notice, dir);
    CHECK(shot && strstr(shot, "izb-shot-") && strstr(shot, ".png"), "P names its PNG: '%s'", ses.notice);
    if (shot) {
        int w = 0, h = 0, n = 0;
        unsigned char *img = stbi_load(shot, &w, &h, &n, 3);
        CHECK(img && w == W && h == H, "%s decodes at %dx%d (got %dx%d)", shot, W, H, w, h);
        stbi_image_free(img);
    }
    char first_shot[512];
    snprintf(first_shot, sizeof first_shot, "%s", shot ? shot : "");
    session_keys(&ses, press(&c, GLFW_KEY_P), 0.0, r, &cam, &l);
    CHECK(strstr(ses.notice, first_shot) == NULL && strstr(ses.notice, ".png"),
          "a second P in the same second gets another name: '%s'", ses.notice);

    session_keys(&ses, press(&c, GLFW_KEY_F), 0.0, r, &cam, &l);
    CHECK(log.f != NULL, "F starts a log");
    fps_log_write(&log, &(fps_log_row){.frame = 0, .frame_ms = 10.0, .gl = render_get_timings(r), .izb = st,
                                       .backend = izb_name(b), .width = W, .height = H, .cam = &cam,
                                       .light = &l});
    char logp[512];
    snprintf(logp, sizeof logp, "%s", ses.log_path);
    session_keys(&ses, press(&c, GLFW_KEY_F), 0.0, r, &cam, &l);
    csv_table t;
    CHECK(csv_read(logp, &t) && t.rows == 1, "the F log has the frame's row");
    if (t.rows == 1) {
        CHECK(csv_num(&t, 0, "points") == st.points && st.points > 0, "points %g = %d", csv_num(&t, 0, "points"),
              st.points);
        CHECK(csv_num(&t, 0, "tris_in") == st.tris_in && csv_num(&t, 0, "tris_after_cull") == st.tris_after_cull,
              "triangle counts");
        CHECK(csv_num(&t, 0, "grid_w") == st.grid_w && csv_num(&t, 0, "grid_h") == st.grid_h, "grid");
        CHECK(fabs(csv_num(&t, 0, "raster_ms") - st.stage_ms[IZB_STAGE_RASTER]) < 1e-3, "raster ms");
    }
    csv_free(&t);

    session_keys(&ses, press(&c, GLFW_KEY_R), 0.0, r, &cam, &l);
    CHECK(ses.recording, "R starts recording");
    session_record(&ses, 0.5, &cam, &l);
    session_keys(&ses, press(&c, GLFW_KEY_R), 1.0, r, &cam, &l);
    CHECK(!ses.recording && access(ses.rec_path, R_OK) == 0, "R again writes %s", ses.rec_path);

    /* the burst of the frame loop (main.c takes the queue until it is empty): P twice writes two
     * screenshots, F three times starts, stops and starts a log */
    int shots0 = count_files(dir, "izb-shot-"), logs0 = count_files(dir, "izb-log-");
    for (int i = 0; i < BURST_N; i++)
        controls_key(&c, BURST[i]);
    int applied = 0;
    for (unsigned toggle; (toggle = controls_next(&c)) != 0; applied++)
        session_keys(&ses, toggle, 3.0, r, &cam, &l);
    CHECK(applied == BURST_N, "%d presses applied (got %d)", BURST_N, applied);
    CHECK(count_files(dir, "izb-shot-") == shots0 + 2, "P twice in one frame: two screenshots (%d -> %d)",
          shots0, count_files(dir, "izb-shot-"));
    CHECK(log.f != NULL && count_files(dir, "izb-log-") == logs0 + 2,
          "F three times in one frame: start, stop, start (a log open, %d -> %d log files)", logs0,
          count_files(dir, "izb-log-"));

    session_shutdown(&ses, 2.0);
    fps_log_close(&log);
    izb_destroy(b);
    render_destroy(r);
    scene_free(&s);
    gl_context_shutdown(&ctx);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "clean up");
    return test_done();
}
