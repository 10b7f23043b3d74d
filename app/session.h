/* session.h — the demo's tools around the frame loop: the HUD text (H), FPS logs started and
 * stopped with F (timestamped CSV), camera paths recorded with R and replayed with --path
 * (interpolated by time: wall clock in a window, a fixed simulated step headless so benchmarks
 * are deterministic), and screenshots (P). main.c owns the loop; it calls session_keys() with the
 * toggles of the frame, session_replay() before drawing, session_record() after. Files made here
 * never replace an existing file: names are timestamped and numbered when taken. */
#ifndef SESSION_H
#define SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "camera_path.h"
#include "fps_log.h"
#include "izb.h"
#include "render.h"
#include "shadow_map.h"
#include "view.h"

/* Defaults (zero fields): no replay, HUD off, files in the current directory, 60 fps replay
 * steps headless. */
typedef struct session_desc {
    fps_log *log;          /* the app's log (already open when --log was given); F toggles it */
    const char *path_file; /* --path: replay this izb-path file */
    bool path_loop;        /* --path-loop: wrap around instead of stopping at the end */
    double path_fps;       /* --path-fps: fixed replay step 1/path_fps when headless (default 60) */
    bool headless;         /* replay on the fixed step instead of the wall clock */
    bool hud;              /* HUD visible at start */
    const char *out_dir;   /* where F, R and P put their files (default ".") */
} session_desc;

typedef struct session {
    session_desc desc;
    char log_path[512]; /* the open log's file ("" when none) */
    /* recording (R) */
    bool recording;
    camera_path rec;
    double rec_t0;
    char rec_path[512];
    /* replay (--path) */
    bool playing, path_done;
    camera_path play;
    double play_t;   /* path time of the next frame (s) */
    long play_frame; /* headless: frames replayed (play_t = play_frame / path_fps) */
    /* HUD */
    bool hud;
    bool keys_shown;  /* F1 or ?: the key list over the image (shown even with the HUD off) */
    char notice[256]; /* last file written and the like, shown on the HUD for a few seconds */
    double notice_until;
    int write_failures; /* camera paths and screenshots that could not be written (said on stderr) */
} session;

/* Fill s; load the --path file. False with a one-line reason naming the file. */
bool session_init(session *s, const session_desc *d, char *err, size_t err_size);
/* Stop a recording in progress (saving it) and free the paths. The log is the app's to close. */
void session_shutdown(session *s, double now);

/* Act on the session toggles (CONTROL_HUD, _HELP, _LOG, _RECORD, _SCREENSHOT) in `toggles` (F1
 * prints the key list on stdout when it shows it, not when it hides it); what happens
 * is printed on stdout (a file that cannot be written: on stderr, counted in write_failures, and the
 * session goes on so the user can try again) and kept as the HUD notice. `now` is the wall clock (s); r is
 * needed for screenshots (the colour target of the last frame). */
void session_keys(session *s, unsigned toggles, double now, render *r, const camera *c, const light *l);

/* While replaying: set *c and *l to the path's pose at the current path time and advance it by
 * the fixed step (headless) or wall_dt. Sets path_done once a non-looping path has given its last
 * pose. No-op when not replaying. */
void session_replay(session *s, double wall_dt, camera *c, light *l);

/* The time (s) a moving scene (--animate, builtin:wave) is posed at on frame `frame`, `wall_s`
 * seconds of wall clock after the first frame began: in a window the wall clock, so the motion
 * keeps its speed at any frame rate (a turn in 12 s at 4 fps as at 60); headless frame /
 * path_fps (default 60), the step the path replay takes too, so a headless run (a benchmark, a
 * screenshot) poses frame N the same on every machine. */
double session_anim_time(const session *s, long frame, double wall_s);

/* While recording: add the pose at wall time `now`. */
void session_record(session *s, double now, const camera *c, const light *l);

/* An unused file name dir/PREFIX-YYYYMMDD-HHMMSS.EXT (then -2, -3, ... when taken). False when
 * none fits or none is free. */
bool session_unique_name(char *out, size_t out_size, const char *dir, const char *prefix, const char *ext);

/* What the HUD shows. */
typedef struct session_hud_info {
    double fps, frame_ms;
    render_timings gl;    /* a pass time whose *_frame is -1 has no result yet: shown as n/a */
    const izb_stats *izb; /* the last frame's IZB numbers; NULL where the IZB did not run on it */
    int scene_tris;       /* the scene's triangles as drawn: known in every mode */
    const char *backend;  /* izb_name(); "cpu": no units, the unit size is n/a */
    bool vsync;
    izb_settings settings; /* as asked (zero fields = defaults) */
    const light *light;          /* the picked light (the one L steers) */
    const light_set *lights;     /* NULL: one light */
    int picked;                  /* its index in lights */
    const izb_stats *light_stats; /* [IZB_MAX_LIGHTS] each light's IZB numbers this frame; NULL where it did not run */
    int width, height;
    render_view view;
    bool light_mode;
    bool ground; /* the added ground (scene_add_ground) is shown */
    bool alpha_test; /* cut-outs cut (--alpha-test) */
    int cut_tris;    /* the shown scene's cut-out triangles (scene_cutouts) */
    double now;
    shadow_mode shadows; /* what draws the shadows (render_shadow_mode) */
    int sm_size;         /* shadow map texels a side */
    bool sm_pcss;        /* the map draws a soft light with PCSS (shadow_map_uses_pcss): "PCSS" */
} session_hud_info;

/* The HUD text: several lines, '\n'-separated; the key list instead while keys_shown. Every number
 * is this frame's or says n/a: the IZB's counts and times only where it ran (i->izb). */
void session_hud_text(const session *s, const session_hud_info *i, char *out, size_t out_size);
/* The window title: the same numbers in short (fps, backend and settings, triangles, points,
 * view, shadows; with several lights their count, the picked one and each one's IZB time). */
void session_title_text(const session_hud_info *i, char *out, size_t out_size);

/* What draws the shadows, for the HUD and the window title: "IZB", "shadow map 2048: 1.25 ms",
 * "difference IZB / map 2048: 1.25 ms", "none". The map's time only where a map is drawn; a
 * negative sm_ms (no timer result yet) says n/a. */
void session_shadow_text(char *out, size_t out_size, shadow_mode m, int sm_size, float sm_ms);

#endif
