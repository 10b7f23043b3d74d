/* main.c — izb-shadows: load a scene, then per frame: input -> update -> draw (depth pass, IZB,
 * shading pass), in a window or headless, with an optional CSV log and a final screenshot. */
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "area_light.h"
#include "controls.h"
#include "izb_aa.h"
#include "izb_soft.h"
#include "file_out.h"
#include "fps_log.h"
#include "light_list.h"
#include "gl_census.h"
#include "gl_context.h"
#include "izb.h"
#include "options.h"
#include "render.h"
#include "scene.h"
#include "scene_cutout.h"
#include "shadow_map.h"
#include "session.h"
#include "stats.h"
#include "view.h"

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

typedef struct app {
    app_options opt;
    scene scn;
    bool ground; /* the added ground (scn.ground_tris) is shown */
    bool alpha_test;   /* cut-outs cut (--alpha-test, X) */
    scene_cutouts cut; /* the shown scene's cut-outs, made when it is given to the backend */
    float *anim_xyz, *anim_nrm; /* a moving scene's current pose (scn.motion; 9 floats a triangle) */
    gl_context gl;
    render *r;
    izb_backend *izb;
    izb_settings settings;
    izb_stats stats;
    bool izb_ran; /* the last frame drawn ran the IZB: stats are its (else an older frame's) */
    camera cam;
    /* the lights (light_list.h): as given (options_lights, then T, - = N, Insert and Delete) and as
     * drawn (reset_view makes them from what was given; L steers lights.set.l[lights.picked]) */
    light_list lights;
    izb_stats light_stats[IZB_MAX_LIGHTS]; /* the last frame's, each light's */
    controls ctl;
    fps_log log;
    render_view view;
    long frame;        /* frames drawn */
    long switches, switch_frame; /* --switch-every: switches made, frame of the last one */
    double t0, t_prev; /* wall clock at start-up / end of the previous frame (s) */
    double t_input;    /* last input time, for dt */
    double title_t;    /* last title update */
    long title_frame;
    float frame_ms;
    double *frame_times; /* opt.frames entries when a count is given (ms) */
    session ses;         /* HUD, F/R/P files, --path replay (session.h) */
    double hud_t;        /* last HUD text update */
    long hud_frame;
    bool hud_keys;       /* the HUD text holds the key list (F1): refresh at once when it flips */
    bool quit;
    int rc;
} app;

static volatile sig_atomic_t interrupted;

/* wall clock in seconds */
static double now_s(void);
static void on_signal(int sig);
/* one-line failure message; returns the exit code */
static int failf(int rc, const char *fmt, ...);
/* camera and light from the scene's suggestions and the options */
static void reset_view(app *a);
/* init: everything up to the first frame; 0 to go on, else the exit code */
static int app_init(app *a, int argc, char **argv);
/* (re)size a moving scene's pose buffers to the scene's triangle count */
static bool grow_pose_buffers(app *a);
/* per frame */
static void app_input(app *a);
static bool app_update(app *a);
static bool app_draw(app *a);
/* replace a failed GPU backend by the CPU's */
static bool fall_back_to_cpu(app *a, const char *what);
/* the scene as drawn: without its added ground when that is off (the ground is its last triangles) */
static scene shown_scene(const app *a);
/* a moving scene (scn.motion): this frame's pose to the renderer and the backend */
static bool animate_scene(app *a);
/* the shown scene to backend b, with its cut-outs while the alpha test is on (izb_set_cutouts:
 * a backend that cannot alpha-test says so and stays opaque) */
static bool give_scene(app *a, izb_backend *b, const scene *shown);
/* X: the alpha test on / off */
static void toggle_alpha(app *a);
/* G: show / hide the added ground, giving the renderer and the backend the scene again */
static void toggle_ground(app *a);
/* O: the model's next up axis; the renderer, the backend and the view follow */
static void next_up(app *a);
static void app_end_frame(app *a);
/* after the loop: screenshot, summary; the exit code */
static int app_finish(app *a);
static void app_shutdown(app *a);
static void apply_toggles(app *a, unsigned t);
/* --switch-every: the next scripted switch, reported for scripts/soak */
static void scripted_switch(app *a);
static void update_title(app *a);
static void update_hud(app *a);
/* what the HUD and the title show: this frame's numbers, the IZB's only where it ran */
static session_hud_info hud_info(app *a, double fps, double now);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int failf(int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("izb-shadows: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return rc;
}

/* one light from the options' description and the scene's suggestions */
static light make_light(const options_light *o, const scene *s)
{
    light l = {.type = o->light,
               .cone_deg = o->cone_deg > 0.0f ? o->cone_deg : 60.0f,
               .angle_deg = o->light_angle,
               .samples = o->light_samples > 0 ? o->light_samples : IZB_SOFT_DEFAULT_SAMPLES};
    memcpy(l.pos, o->has_light_pos ? o->light_pos : s->light_pos, sizeof l.pos);
    l.shape = o->light_shape;
    if (o->has_light_size) /* a spot with a size is an area light; other lights ignore it */
        memcpy(l.size, o->light_size, sizeof l.size);
    else if (o->light_area)
        l.size[0] = l.size[1] = area_light_default(s->bounds_min, s->bounds_max);
    if (o->has_light_dir) {
        memcpy(l.dir, o->light_dir, sizeof l.dir);
    } else if (l.type != LIGHT_DIRECTIONAL) {
        for (int k = 0; k < 3; k++) /* the spot looks at the scene's centre */
            l.dir[k] = 0.5f * (s->bounds_min[k] + s->bounds_max[k]) - l.pos[k];
    } else {
        memcpy(l.dir, s->light_dir, sizeof l.dir);
    }
    float n = sqrtf(l.dir[0] * l.dir[0] + l.dir[1] * l.dir[1] + l.dir[2] * l.dir[2]);
    for (int k = 0; k < 3; k++)
        l.dir[k] = n > 1e-12f ? l.dir[k] / n : (k == 1 ? -1.0f : 0.0f);
    return l;
}

static void reset_view(app *a)
{
    const app_options *o = &a->opt;
    const scene *s = &a->scn;
    a->cam = (camera){0};
    memcpy(a->cam.pos, o->has_cam_pos ? o->cam_pos : s->cam_pos, sizeof a->cam.pos);
    a->cam.yaw = o->has_cam_yaw ? o->cam_yaw : s->cam_yaw;
    a->cam.pitch = o->has_cam_pitch ? o->cam_pitch : s->cam_pitch;

    light_list *ll = &a->lights;
    for (int i = 0; i < ll->set.count; i++) {
        ll->set.l[i] = make_light(&ll->given[i], s);
        ll->set.intensity[i] = ll->given[i].has_light_intensity ? ll->given[i].light_intensity : 1.0f;
    }
}

/* Big buffers (shadow maps, llvmpipe's textures, the IZB arrays at large sizes) come and go with
 * the map size, the shadow mode and the window size. glibc's dynamic mmap threshold moves up to
 * the size of the last big block freed, so after the first 16 MiB map is freed the next ones come
 * from the heap, where freed space stays resident (up to twice the threshold at the top, any
 * amount in the middle): a 30,000-frame soak kept 40-50 MiB freed but resident, the held-but-free
 * heap climbing 47 -> 84 -> 100 MiB while the heap in use stayed flat. A fixed threshold keeps
 * every block from 1 MiB up on its own mapping, returned on free. Nothing allocates that much per
 * frame (strace: the same mmap count at 1920x1080 with and without), so it costs no time. */
static void return_big_blocks_on_free(void)
{
    /* Refused only where malloc is not glibc's (a sanitizer's allocator, a preloaded one): that
     * allocator has its own policy, and a note on every run would only be noise. */
    (void)mallopt(M_MMAP_THRESHOLD, 1 << 20);
}

static int app_init(app *a, int argc, char **argv)
{
    char err[1024];
    return_big_blocks_on_free();
    switch (parse_options(argc, argv, &a->opt, err, sizeof err)) {
    case OPTIONS_HELP:
        options_usage(stdout);
        return -1; /* exit 0 */
    case OPTIONS_ERROR:
        fprintf(stderr, "izb-shadows: %s\n", err);
        options_synopsis(stderr);
        return EXIT_USAGE;
    case OPTIONS_OK:
        break;
    }
    const app_options *o = &a->opt;
    a->lights.set.count = options_lights(o, a->lights.given);
    a->view = o->view;
    a->alpha_test = !o->alpha_test_off;
    a->settings = (izb_settings){.kernel = o->kernel,
                                 .binning = o->binning,
                                 .unit_size = o->unit_size,
                                 .grid_w = o->grid_w,
                                 .grid_h = o->grid_h,
                                 .cull = o->cull,
                                 .bias = o->bias};
    if (o->log_path && !fps_log_open(&a->log, o->log_path, o->force, err, sizeof err))
        return failf(EXIT_USAGE, "%s", err);
    /* like --log: a place that cannot take the file is said now, not after the last frame */
    if (o->screenshot && !file_out_probe(o->screenshot, err, sizeof err))
        return failf(EXIT_USAGE, "--screenshot %s", err);
    if (!session_init(&a->ses,
                      &(session_desc){.log = &a->log,
                                      .path_file = o->path,
                                      .path_loop = o->path_loop,
                                      .path_fps = o->path_fps,
                                      .headless = o->headless,
                                      .hud = o->hud || !o->headless},
                      err, sizeof err))
        return failf(EXIT_USAGE, "--path %s", err);
    long times = o->frames; /* headless replay to the path's end: its frame count */
    if (times == 0 && o->headless && a->ses.playing)
        times = (long)(camera_path_duration(&a->ses.play) * a->ses.desc.path_fps) + 2;
    if (times > 0 && !(a->frame_times = calloc((size_t)times, sizeof *a->frame_times)))
        return failf(EXIT_RUNTIME, "out of memory for %ld frame times", times);

    if (!scene_load(o->scene, &a->scn, err, sizeof err)) return failf(EXIT_RUNTIME, "%s", err);
    if (!scene_set_up(&a->scn, o->up, err, sizeof err))
        return failf(EXIT_RUNTIME, "--up %s: %s", scene_up_names[o->up], err);
    /* the ground: auto under model files only; G adds it later where it was not wanted (adding it
     * grows the scene's arrays, a copy of the whole scene for the large built-in ones) */
    a->ground = scene_ground_wanted(o->ground, o->scene);
    if (a->ground && !scene_add_ground(&a->scn, err, sizeof err)) return failf(EXIT_RUNTIME, "%s", err);
    if (o->animate && a->scn.motion == SCENE_MOTION_NONE) scene_set_motion(&a->scn, SCENE_MOTION_TURNTABLE);
    if (a->scn.motion != SCENE_MOTION_NONE && !grow_pose_buffers(a))
        return failf(EXIT_RUNTIME, "out of memory for the moving scene's %d triangles", a->scn.tri_count);
#ifdef NDEBUG
    const bool debug = false;
#else
    const bool debug = true;
#endif
    if (!gl_context_init(&a->gl,
                         &(gl_context_desc){.width = o->width,
                                            .height = o->height,
                                            .headless = o->headless,
                                            .vsync = o->vsync,
                                            .debug = debug},
                         err, sizeof err))
        return failf(EXIT_RUNTIME, "%s", err);
    int w = o->headless ? o->width : a->gl.fb_width, h = o->headless ? o->height : a->gl.fb_height;
    a->r = render_create(
        &(render_desc){.width = w > 0 ? w : 1, .height = h > 0 ? h : 1, .shader_dir = o->shader_dir}, err,
        sizeof err);
    if (!a->r) return failf(EXIT_RUNTIME, "%s", err);
    const scene shown = shown_scene(a);
    if (!render_set_scene(a->r, &shown, err, sizeof err))
        return failf(EXIT_RUNTIME, "scene '%s': %s", o->scene, err);
    /* .pcss: a soft light (an angled sun, an area light) in the map modes is drawn with PCSS,
     * automatically */
    const shadow_map_desc smd = {.size = o->sm_size, .pcf = o->sm_pcf, .pcss = true};
    if (!render_set_shadow_map(a->r, &smd, err, sizeof err) ||
        !render_set_shadow_mode(a->r, o->shadows, err, sizeof err))
        return failf(EXIT_RUNTIME, "--sm-size / --shadows: %s", err);
    a->izb = izb_create(&(izb_desc){.backend = o->backend, .threads = o->threads});
    if (!a->izb) return failf(EXIT_RUNTIME, "no IZB backend (see above)");
    if (!give_scene(a, a->izb, &shown) && !fall_back_to_cpu(a, "cannot take the scene"))
        return failf(EXIT_RUNTIME, "scene '%s': the %s backend cannot take %d triangles", o->scene,
                     izb_name(a->izb), shown.tri_count);
    reset_view(a);
    controls_init(&a->ctl, a->gl.window, a->scn.bounds_min, a->scn.bounds_max);

    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    printf("izb-shadows: scene %s: %d triangles (%d degenerate, %d non-finite dropped); %dx%d %s; GL: %s; "
           "IZB backend: %s\n",
           a->scn.name[0] ? a->scn.name : o->scene, a->scn.tri_count, a->scn.dropped_degenerate,
           a->scn.dropped_nonfinite, render_width(a->r), render_height(a->r),
           o->headless ? "headless" : "window", a->gl.renderer, izb_name(a->izb));
    if (a->gl.window) printf("izb-shadows: press F1 or ? for the keys\n");
    fflush(stdout);
    a->t0 = a->t_prev = a->t_input = a->title_t = now_s();
    return 0;
}

/* = - N on a spot light: its emitter's size (area_light_step: 0 is the hard spot) and samples. Kept
 * in the options like the directional light's angle; past the largest size it stays there, with a
 * line saying so. */
static void area_size_keys(app *a, unsigned t)
{
    options_light *o = &a->lights.given[a->lights.picked];
    light *l = &a->lights.set.l[a->lights.picked];
    const float *bmin = a->scn.bounds_min, *bmax = a->scn.bounds_max;
    const float def = area_light_default(bmin, bmax), max = area_light_max(bmin, bmax);
    float size[2] = {l->size[0], l->size[1]};
    int m = o->light_samples > 0 ? o->light_samples : IZB_SOFT_DEFAULT_SAMPLES;
    if ((t & CONTROL_LIGHT_WIDER) && area_light_step(size, true, def, max) == AREA_STEP_CLAMPED)
        printf("izb-shadows: the area light stays at its largest size, %g world units (the scene's size)\n",
               (double)max);
    if (t & CONTROL_LIGHT_NARROWER) area_light_step(size, false, def, max);
    if (t & CONTROL_LIGHT_SAMPLES) m = m >= 256 ? 16 : 2 * m;
    memcpy(o->light_size, size, sizeof size);
    memcpy(l->size, size, sizeof size);
    o->has_light_size = true;
    o->light_samples = l->samples = m;
    if (size[0] > 0.0f || size[1] > 0.0f)
        printf("izb-shadows: area light %.3g x %.3g world units, %d samples (soft shadows: CPU backend)\n",
               (double)size[0], (double)size[1], m);
    else
        printf("izb-shadows: light size 0: hard spot shadows\n");
}

/* = - N: the directional light's angular size and its samples (soft shadows); a spot's emitter
 * (area_size_keys). Kept in the options, so that T and Home keep them; a step past either end stays
 * there, with a line saying so. */
static void light_size_keys(app *a, unsigned t)
{
    options_light *o = &a->lights.given[a->lights.picked];
    light *l = &a->lights.set.l[a->lights.picked];
    if (l->type == LIGHT_SPOT) {
        area_size_keys(a, t);
        return;
    }
    float d = o->light_angle;
    int m = o->light_samples > 0 ? o->light_samples : IZB_SOFT_DEFAULT_SAMPLES;
    if (t & CONTROL_LIGHT_WIDER) {
        if (d >= IZB_SOFT_MAX_ANGLE_DEG)
            printf("izb-shadows: the light's angular size stays at its maximum, %g degrees\n",
                   (double)IZB_SOFT_MAX_ANGLE_DEG);
        d = d <= 0.0f ? 0.53f : fminf(1.5f * d, IZB_SOFT_MAX_ANGLE_DEG);
    }
    if (t & CONTROL_LIGHT_NARROWER) d = d / 1.5f < 0.5f ? 0.0f : d / 1.5f;
    if (t & CONTROL_LIGHT_SAMPLES) m = m >= 256 ? 16 : 2 * m;
    o->light_angle = l->angle_deg = d;
    o->light_samples = l->samples = m;
    if (d > 0.0f && l->type != LIGHT_DIRECTIONAL)
        printf("izb-shadows: light angular size %.2f degrees, %d samples: for the directional light (T) only so far\n",
               (double)d, m);
    else if (d > 0.0f)
        printf("izb-shadows: light angular size %.2f degrees, %d samples (soft shadows)\n", (double)d, m);
    else
        printf("izb-shadows: light angular size 0: hard shadows\n");
}

/* J: pick the next light (the one L, T, - = N change); Insert: add a light, a copy of the picked
 * one as it is now, and pick it; Delete: remove the picked light (not the last one). A line says
 * what happened, or why nothing did. */
static void light_list_keys(app *a, unsigned t)
{
    light_list *l = &a->lights;
    if (t & CONTROL_LIGHT_NEXT) light_list_next(l);
    if ((t & CONTROL_LIGHT_ADD) && !light_list_add(l))
        printf("izb-shadows: already %d lights, the most there can be\n", IZB_MAX_LIGHTS);
    if ((t & CONTROL_LIGHT_REMOVE) && !light_list_remove(l)) printf("izb-shadows: the last light stays\n");
    printf("izb-shadows: %d light%s, light %d picked (%s)\n", l->set.count, l->set.count > 1 ? "s" : "",
           l->picked + 1, light_kind_name(&l->set.l[l->picked]));
}

/* I: the sub-samples per pixel of anti-aliased shadow edges (izb_aa.h), 1 -> 4 -> 8 -> 16 -> 32 -> 1.
 * Kept in the options, like the light's size. */
static void shadow_samples_key(app *a)
{
    const int n = a->opt.shadow_samples > 1 ? a->opt.shadow_samples : 1;
    a->opt.shadow_samples = n >= IZB_AA_MAX_SAMPLES ? 1 : n == 1 ? 4 : 2 * n;
    bool any_hard = false; /* the lights N applies to (render_izb_lights) */
    for (int i = 0; i < a->lights.set.count; i++) {
        const light *l = &a->lights.set.l[i];
        any_hard |= (l->type == LIGHT_DIRECTIONAL && !(l->angle_deg > 0.0f)) || l->type == LIGHT_POINT ||
                    (l->type == LIGHT_SPOT && !(l->size[0] > 0.0f) && !(l->size[1] > 0.0f));
    }
    if (a->opt.shadow_samples > 1 && !any_hard)
        printf("izb-shadows: %d shadow samples per pixel: for hard directional, spot and point lights only so far (T, -)\n",
               a->opt.shadow_samples);
    else
        printf("izb-shadows: %d shadow samples per pixel%s\n", a->opt.shadow_samples,
               a->opt.shadow_samples > 1 ? " (anti-aliased edges)" : ": hard edges");
}

static void apply_toggles(app *a, unsigned t)
{
    izb_settings *s = &a->settings;
    if (t & CONTROL_KERNEL) s->kernel = s->kernel == IZB_KERNEL2 ? IZB_KERNEL1 : IZB_KERNEL2;
    if (t & CONTROL_BINNING)
        s->binning = s->binning == IZB_BINNING_ATOMIC ? IZB_BINNING_RADIX : IZB_BINNING_ATOMIC;
    if (t & CONTROL_UNIT) s->unit_size = s->unit_size == 0 ? 32 : s->unit_size >= 256 ? 0 : 2 * s->unit_size;
    if (t & CONTROL_CULL) /* auto -> on -> off -> auto */
        s->cull = s->cull == IZB_CULL_ON    ? IZB_CULL_OFF
                  : s->cull == IZB_CULL_OFF ? IZB_CULL_AUTO
                                            : IZB_CULL_ON;
    if (t & CONTROL_GROUND) toggle_ground(a);
    if (t & CONTROL_UP) next_up(a);
    if (t & CONTROL_ALPHA) toggle_alpha(a);
    if (t & (CONTROL_LIGHT_WIDER | CONTROL_LIGHT_NARROWER | CONTROL_LIGHT_SAMPLES)) light_size_keys(a, t);
    if (t & CONTROL_SHADOW_SAMPLES) shadow_samples_key(a);
    if (t & CONTROL_LIGHT_TYPE) { /* the picked light: directional -> spot -> area -> point, the scene's pose */
        const int p = a->lights.picked;
        options_light *o = &a->lights.given[p];
        const light *cur = &a->lights.set.l[p];
        const bool to_area = cur->type == LIGHT_SPOT && !(cur->size[0] > 0.0f || cur->size[1] > 0.0f);
        o->light = to_area ? LIGHT_SPOT : (light_type)((cur->type + 1) % LIGHT_TYPE_COUNT);
        o->light_area = to_area; /* the default size (make_light) */
        o->has_light_size = false;
        o->light_size[0] = o->light_size[1] = 0.0f;
        o->has_light_dir = o->has_light_pos = false;
        a->lights.set.l[p] = make_light(o, &a->scn);
    }
    if (t & (CONTROL_LIGHT_NEXT | CONTROL_LIGHT_ADD | CONTROL_LIGHT_REMOVE)) light_list_keys(a, t);
    if (t & CONTROL_VSYNC) gl_context_set_vsync(&a->gl, !a->gl.vsync);
    if (t & CONTROL_VIEW) a->view = (render_view)((a->view + 1) % RENDER_VIEW_COUNT);
    if (t & CONTROL_RESET) reset_view(a);
    if (t & (CONTROL_SHADOW_MODE | CONTROL_SM_SMALLER | CONTROL_SM_LARGER)) {
        char msg[256];
        int step = (t & CONTROL_SM_LARGER ? 1 : 0) - (t & CONTROL_SM_SMALLER ? 1 : 0);
        render_shadow_keys(a->r, t & CONTROL_SHADOW_MODE, step, msg, sizeof msg);
        printf("izb-shadows: %s\n", msg);
    }
    if (t & CONTROL_QUIT) a->quit = true;
    session_keys(&a->ses, t, now_s(), a->r, &a->cam, &a->lights.set.l[0]);
    if (t & ~(CONTROL_HELP | CONTROL_QUIT | CONTROL_HUD | CONTROL_LOG | CONTROL_RECORD | CONTROL_SCREENSHOT)) {
        izb_settings r = izb_settings_resolve(*s);
        char unit[16] = "auto";
        if (strcmp(izb_name(a->izb), "cpu") == 0) /* no units of threads: the size does nothing */
            snprintf(unit, sizeof unit, "n/a");
        else if (r.unit_size > 0)
            snprintf(unit, sizeof unit, "%d", r.unit_size);
        printf("izb-shadows: kernel %s, %s binning, unit %s, culling %s, ground %s, %s light, vsync %s, "
               "%s view\n",
               izb_kernel_name(r.kernel), izb_binning_name(r.binning), unit, izb_cull_name(r.cull),
               a->ground ? "on" : "off", light_kind_name(&a->lights.set.l[a->lights.picked]), a->gl.vsync ? "on" : "off",
               render_view_names[a->view]);
    }
}

/* resident set size in kB (Linux /proc), -1 where unknown */
static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages_total = 0, pages_resident = -1;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2) pages_resident = -1;
        fclose(f);
    }
    return pages_resident < 0 ? -1 : pages_resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void scripted_switch(app *a)
{
    /* the keys a user would press, in turn; 0: a resize (headless: the targets change size as a
     * window's would), through three sizes, odd ones among them */
    static const unsigned steps[] = {CONTROL_KERNEL,      CONTROL_BINNING,   CONTROL_UNIT,       CONTROL_CULL,
                                     CONTROL_VIEW,        CONTROL_LIGHT_TYPE, CONTROL_SHADOW_MODE,
                                     CONTROL_SM_LARGER,   CONTROL_SM_SMALLER, 0};
    const long n = a->switches++;
    const unsigned step = steps[n % (long)(sizeof steps / sizeof steps[0])];
    if (step) {
        apply_toggles(a, step);
    } else if (a->gl.headless) {
        const long k = n / (long)(sizeof steps / sizeof steps[0]) % 3;
        const int w = k == 0 ? a->opt.width * 3 / 2 + 1 : k == 1 ? a->opt.width / 2 + 3 : a->opt.width;
        const int h = k == 0 ? a->opt.height * 3 / 2 + 1 : k == 1 ? a->opt.height / 2 + 1 : a->opt.height;
        char err[256];
        if (!render_resize(a->r, w > 0 ? w : 1, h > 0 ? h : 1, err, sizeof err)) {
            a->rc = failf(EXIT_RUNTIME, "%s", err);
            a->quit = true;
        }
    }
    gl_census c = gl_census_take();
    /* the C heap (every arena): in use, and held from the system — told apart from the resident
     * set, a growing "in use" is a leak, a growing "held" alone fragmentation, neither: not malloc */
    const struct mallinfo2 mi = mallinfo2();
    printf("izb-shadows: switch %ld at frame %ld: %dx%d, rss %ld kB, heap %zu / %zu kB, GL objects %d (textures %d, "
           "buffers %d, framebuffers %d, renderbuffers %d, vertex arrays %d, programs %d, shaders %d, queries %d, "
           "samplers %d)\n",
           n + 1, a->frame, render_width(a->r), render_height(a->r), rss_kb(), (mi.uordblks + mi.hblkhd) / 1024,
           (mi.arena + mi.hblkhd) / 1024, c.total, c.textures, c.buffers, c.framebuffers, c.renderbuffers,
           c.vertex_arrays, c.programs, c.shaders, c.queries, c.samplers);
    fflush(stdout);
}

static void app_input(app *a)
{
    gl_context_poll(&a->gl);
    double t = now_s();
    float dt = (float)(t - a->t_input);
    a->t_input = t;
    /* every press since the last frame, in order: K four times toggles four times */
    for (unsigned toggle; (toggle = controls_next(&a->ctl)) != 0;)
        apply_toggles(a, toggle);
    controls_update(&a->ctl, dt > 0.25f ? 0.25f : dt, &a->cam, &a->lights.set.l[a->lights.picked]);
    if (a->opt.switch_every > 0 && a->frame > 0 && a->frame % a->opt.switch_every == 0 &&
        a->frame != a->switch_frame) {
        a->switch_frame = a->frame;
        scripted_switch(a);
    }
    session_replay(&a->ses, dt, &a->cam, &a->lights.set.l[0]); /* paths carry light 0 (camera_path.h) */
    if (interrupted || gl_context_should_close(&a->gl)) a->quit = true;
}

/* false when there is nothing to draw this time (minimised window) */
static bool app_update(app *a)
{
    if (!a->gl.headless) {
        int w = a->gl.fb_width, h = a->gl.fb_height;
        if (w <= 0 || h <= 0) {
            gl_context_wait(&a->gl, 0.1); /* minimised: sleep until something happens */
            return false;
        }
        char err[256];
        if (!render_resize(a->r, w, h, err, sizeof err)) {
            a->rc = failf(EXIT_RUNTIME, "%s", err);
            a->quit = true;
            return false;
        }
    }
    const scene shown = shown_scene(a);
    camera_fit_clip(&a->cam, shown.bounds_min, shown.bounds_max);
    return animate_scene(a);
}

/* a moving scene: pose it for this frame (session_anim_time: the wall clock in a window, frame /
 * path_fps headless) and hand the moved triangles to the renderer and to the backend
 * (izb_update_scene: a copy, no rebuild) */
static bool animate_scene(app *a)
{
    if (a->scn.motion == SCENE_MOTION_NONE)
        return true;
    scene_animate(&a->scn, session_anim_time(&a->ses, a->frame, now_s() - a->t0), a->anim_xyz, a->anim_nrm);
    const int n = shown_scene(a).tri_count; /* the added ground is last and never moves */
    char err[256];
    if (!render_update_positions(a->r, a->anim_xyz, a->anim_nrm, n, err, sizeof err) ||
        !izb_update_scene(a->izb, a->anim_xyz, n)) {
        a->rc = failf(EXIT_RUNTIME, "moving the scene failed on frame %ld: %s", a->frame, err);
        a->quit = true;
        return false;
    }
    return true;
}

static scene shown_scene(const app *a)
{
    scene s = a->scn;
    if (!a->ground) s.tri_count -= s.ground_tris, s.ground_tris = 0;
    scene_motion_bounds(&a->scn, s.bounds_min, s.bounds_max); /* a moving scene's: every pose */
    return s;
}

/* scene_animate writes every triangle, the ground's too */
static bool grow_pose_buffers(app *a)
{
    const size_t bytes = 9 * sizeof(float) * (size_t)a->scn.tri_count;
    float *xyz = realloc(a->anim_xyz, bytes);
    if (xyz) a->anim_xyz = xyz;
    float *nrm = xyz ? realloc(a->anim_nrm, bytes) : NULL;
    if (nrm) a->anim_nrm = nrm;
    return xyz && nrm;
}

static bool give_scene(app *a, izb_backend *b, const scene *shown)
{
    if (!izb_set_scene(b, shown->xyz, shown->tri_count)) return false;
    char err[256];
    scene_cutouts_free(&a->cut);
    if (!scene_cutouts_make(shown, &a->cut, err, sizeof err))
        fprintf(stderr, "izb-shadows: %s: every triangle opaque\n", err);
    if (a->alpha_test && a->cut.cut_tris > 0) {
        const izb_cutouts v = scene_cutouts_view(&a->cut);
        (void)izb_set_cutouts(b, &v); /* false: the backend said why; its IZB stays opaque */
    }
    if (!render_set_cutouts(a->r, a->alpha_test ? &a->cut : NULL, err, sizeof err))
        fprintf(stderr, "izb-shadows: %s: the camera's passes draw every triangle opaque\n", err);
    return true;
}

static void toggle_alpha(app *a)
{
    a->alpha_test = !a->alpha_test;
    const izb_cutouts v = scene_cutouts_view(&a->cut);
    (void)izb_set_cutouts(a->izb, a->alpha_test && a->cut.cut_tris > 0 ? &v : NULL);
    char err[256];
    if (!render_set_cutouts(a->r, a->alpha_test ? &a->cut : NULL, err, sizeof err))
        fprintf(stderr, "izb-shadows: %s: the camera's passes draw every triangle opaque\n", err);
    printf("izb-shadows: alpha test %s (%d cut-out triangles)\n", a->alpha_test ? "on" : "off", a->cut.cut_tris);
}

static void toggle_ground(app *a)
{
    char err[256];
    if (!a->scn.ground_tris) {
        if (!scene_add_ground(&a->scn, err, sizeof err)) {
            fprintf(stderr, "izb-shadows: ground: %s\n", err); /* stays off */
            return;
        }
        /* a moving scene's pose buffers hold every triangle, the new ground's too */
        if (a->scn.motion != SCENE_MOTION_NONE && !grow_pose_buffers(a)) {
            fprintf(stderr, "izb-shadows: ground: out of memory for the moving scene's %d triangles\n",
                    a->scn.tri_count);
            a->quit = true, a->rc = EXIT_RUNTIME;
            return;
        }
    }
    a->ground = !a->ground;
    const scene shown = shown_scene(a);
    if (!render_set_scene(a->r, &shown, err, sizeof err)) {
        fprintf(stderr, "izb-shadows: ground %s: %s\n", a->ground ? "on" : "off", err);
        a->quit = true, a->rc = EXIT_RUNTIME;
        return;
    }
    if (!give_scene(a, a->izb, &shown) && !fall_back_to_cpu(a, "cannot take the scene")) {
        fprintf(stderr, "izb-shadows: ground %s: the %s backend cannot take the scene\n",
                a->ground ? "on" : "off", izb_name(a->izb));
        a->quit = true, a->rc = EXIT_RUNTIME;
    }
}

static void next_up(app *a)
{
    char err[256];
    const scene_up up = (scene_up)((a->scn.up + 1) % SCENE_UP_COUNT);
    if (!scene_set_up(&a->scn, up, err, sizeof err)) {
        fprintf(stderr, "izb-shadows: up axis: %s\n", err);
        if (a->scn.up != up) return; /* refused (a built-in scene): nothing changed */
        a->ground = false;           /* turned, but its ground could not be laid again */
    }
    printf("izb-shadows: up axis %s\n", scene_up_names[a->scn.up]);
    const scene shown = shown_scene(a);
    if (!render_set_scene(a->r, &shown, err, sizeof err) ||
        (!give_scene(a, a->izb, &shown) && !fall_back_to_cpu(a, "cannot take the scene"))) {
        fprintf(stderr, "izb-shadows: up axis %s: the scene could not be given again\n",
                scene_up_names[a->scn.up]);
        a->quit = true, a->rc = EXIT_RUNTIME;
        return;
    }
    reset_view(a);
    for (int k = 0; k < 3; k++) /* the spot steers around the turned model's centre */
        a->ctl.centre[k] = 0.5f * (a->scn.bounds_min[k] + a->scn.bounds_max[k]);
}

/* A CUDA error or out-of-GPU-memory is not the end (DESIGN.md "Bad input and faults"): say so once
 * and go on with the CPU backend. False when the failing backend already was the CPU's. */
static bool fall_back_to_cpu(app *a, const char *what)
{
    if (strcmp(izb_name(a->izb), "cpu") == 0)
        return false;
    fprintf(stderr, "izb-shadows: the %s IZB backend %s on frame %ld; continuing on the CPU backend\n",
            izb_name(a->izb), what, a->frame);
    izb_backend *cpu = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = a->opt.threads});
    const scene shown = shown_scene(a);
    if (!cpu || !give_scene(a, cpu, &shown)) {
        fprintf(stderr, "izb-shadows: the CPU backend cannot take the scene either\n");
        izb_destroy(cpu);
        return false;
    }
    izb_destroy(a->izb);
    a->izb = cpu;
    return true;
}

static bool render_once(app *a)
{
    return render_frame(a->r, &(render_frame_desc){.cam = &a->cam,
                                                   .lights = &a->lights.set,
                                                   .light_stats = a->light_stats,
                                                   .backend = a->izb,
                                                   .settings = &a->settings,
                                                   .stats = &a->stats,
                                                   .view = a->view,
                                                   .hud = a->ses.hud || a->ses.keys_shown,
                                                   .shadow_samples = a->opt.shadow_samples});
}

static bool app_draw(app *a)
{
    update_hud(a);
    /* a frame the backend failed is drawn again on the CPU: no broken image, no stale log row */
    if (!render_once(a) && !(fall_back_to_cpu(a, "failed") && render_once(a))) {
        a->rc = failf(EXIT_RUNTIME, "the %s IZB backend failed on frame %ld", izb_name(a->izb), a->frame);
        a->quit = true;
        return false;
    }
    const shadow_mode m = render_shadow_mode(a->r);
    a->izb_ran = m == SHADOW_MODE_IZB || m == SHADOW_MODE_DIFF;
    if (a->gl.window) render_present(a->r, a->gl.fb_width, a->gl.fb_height);
    return true;
}

static void app_end_frame(app *a)
{
    if (a->gl.window)
        gl_context_swap(&a->gl);
    else
        gl_context_finish(&a->gl); /* headless: the frame is done when the GPU is */
    double t = now_s();
    a->frame_ms = (float)((t - a->t_prev) * 1e3);
    a->t_prev = t;
    fps_log_write(&a->log, &(fps_log_row){.frame = a->frame,
                                          .wall_s = t - a->t0,
                                          .frame_ms = a->frame_ms,
                                          .gl = render_get_timings(a->r),
                                          .izb = a->stats,
                                          .backend = izb_name(a->izb),
                                          .unit_setting = a->settings.unit_size,
                                          .width = render_width(a->r),
                                          .height = render_height(a->r),
                                          .cam = &a->cam,
                                          .light = &a->lights.set.l[0],
                                          .lights = &a->lights.set,
                                          .light_stats = a->izb_ran ? a->light_stats : NULL,
                                          .view = a->view,
                                          .cull = izb_settings_resolve(a->settings).cull,
                                          .shadow_mode = shadow_mode_names[render_shadow_mode(a->r)],
                                          .sm_size = render_shadow_map_settings(a->r).size,
                                          .scene_tris = shown_scene(a).tri_count,
                                          .settings = &a->settings,
                                          .shadow_samples = a->opt.shadow_samples});
    if (a->frame_times) a->frame_times[a->frame] = a->frame_ms;
    a->frame++;
    session_record(&a->ses, t, &a->cam, &a->lights.set.l[0]);
    if (a->ses.path_done && a->gl.headless && a->opt.frames == 0) a->quit = true; /* the path ended */
    if (a->ses.path_done && !a->gl.headless) a->ses.playing = a->ses.path_done = false;
    if (a->gl.window && t - a->title_t >= 0.5) update_title(a);
    if (a->opt.frames > 0 && a->frame >= a->opt.frames) a->quit = true;
}

static void update_title(app *a)
{
    double t = now_s();
    double fps = (double)(a->frame - a->title_frame) / (t - a->title_t);
    a->title_t = t;
    a->title_frame = a->frame;
    char title[384];
    session_hud_info info = hud_info(a, fps, t);
    session_title_text(&info, title, sizeof title);
    gl_context_set_title(&a->gl, title);
}

static session_hud_info hud_info(app *a, double fps, double now)
{
    /* a soft light in the map is drawn with PCSS (a hard map beside exact soft shadows would be a
     * poor comparison): the map modes draw every light, the difference view light 0 */
    const shadow_map_desc smd = render_shadow_map_settings(a->r);
    const int drawn = render_shadow_mode(a->r) == SHADOW_MODE_MAP ? a->lights.set.count : 1;
    bool pcss = false;
    for (int i = 0; i < drawn; i++)
        pcss |= shadow_map_uses_pcss(&smd, &a->lights.set.l[i]);
    return (session_hud_info){.fps = fps,
                              .frame_ms = a->frame_ms,
                              .gl = render_get_timings(a->r),
                              .izb = a->izb_ran ? &a->stats : NULL,
                              .scene_tris = shown_scene(a).tri_count,
                              .backend = izb_name(a->izb),
                              .vsync = a->gl.vsync,
                              .settings = a->settings,
                              .light = &a->lights.set.l[a->lights.picked],
                              .lights = &a->lights.set,
                              .picked = a->lights.picked,
                              .light_stats = a->izb_ran ? a->light_stats : NULL,
                              .width = render_width(a->r),
                              .height = render_height(a->r),
                              .view = a->view,
                              .light_mode = a->ctl.light_mode,
                              .ground = a->ground,
                              .alpha_test = a->alpha_test,
                              .cut_tris = a->cut.cut_tris,
                              .now = now,
                              .shadows = render_shadow_mode(a->r),
                              .sm_size = smd.size,
                              .sm_pcss = pcss};
}

/* the HUD text, rebuilt at most 4 times a second (the HUD re-uploads only when it changed) */
static void update_hud(app *a)
{
    double t = now_s();
    /* the last frame of a counted run always refreshes, so a --hud screenshot shows real numbers */
    bool last = a->opt.frames > 0 && a->frame == a->opt.frames - 1;
    bool shown = a->ses.hud || a->ses.keys_shown; /* F1's key list shows even with the HUD off */
    if (!shown || (t - a->hud_t < 0.25 && a->frame > 0 && !last && a->ses.keys_shown == a->hud_keys)) return;
    a->hud_keys = a->ses.keys_shown;
    double fps = t > a->hud_t && a->frame > a->hud_frame ? (double)(a->frame - a->hud_frame) / (t - a->hud_t) : 0.0;
    a->hud_t = t;
    a->hud_frame = a->frame;
    char text[4096];
    session_hud_info info = hud_info(a, fps, t);
    session_hud_text(&a->ses, &info, text, sizeof text);
    render_set_hud_text(a->r, text);
}

static int app_finish(app *a)
{
    char err[512];
    if (a->rc == 0 && a->opt.screenshot && a->frame > 0) {
        if (!render_screenshot(a->r, a->opt.screenshot, err, sizeof err))
            a->rc = failf(EXIT_RUNTIME, "%s", err);
        else
            printf("izb-shadows: wrote %s\n", a->opt.screenshot);
    }
    if (a->frame_times && a->frame > 0) {
        stats_summary t = stats_summarize(a->frame_times, (size_t)a->frame);
        printf("izb-shadows: %ld frames, frame ms: min %.2f median %.2f p95 %.2f max %.2f\n", a->frame, t.min,
               t.median, t.p95, t.max);
    }
    if (interrupted) printf("izb-shadows: interrupted after %ld frames\n", a->frame);
    /* nothing lost silently: a log row, camera path or screenshot that could not be written was said
     * on stderr when it happened; the run says so again and ends with exit 1 */
    session_shutdown(&a->ses, now_s()); /* saves a camera path still being recorded */
    char log_name[512];
    snprintf(log_name, sizeof log_name, "%s", a->log.path);
    if (!fps_log_close(&a->log)) {
        failf(EXIT_RUNTIME, "the log '%s' is incomplete (see above)", log_name);
        if (a->rc == 0) a->rc = EXIT_RUNTIME;
    }
    if (a->ses.write_failures > 0) {
        failf(EXIT_RUNTIME, "%d file(s) could not be written (see above)", a->ses.write_failures);
        if (a->rc == 0) a->rc = EXIT_RUNTIME;
    }
    if (!file_out_stdout_ok(err, sizeof err) && a->rc == 0) a->rc = failf(EXIT_RUNTIME, "%s", err);
    return a->rc;
}

static void app_shutdown(app *a)
{
    session_shutdown(&a->ses, now_s());
    fps_log_close(&a->log);
    izb_destroy(a->izb);
    render_destroy(a->r);
    if (a->gl.window || a->gl.egl_display) gl_context_shutdown(&a->gl);
    scene_free(&a->scn);
    scene_cutouts_free(&a->cut);
    free(a->anim_xyz);
    free(a->anim_nrm);
    free(a->frame_times);
}

int main(int argc, char **argv)
{
    static app a;
    int rc = app_init(&a, argc, argv);
    if (rc != 0) {
        app_shutdown(&a);
        return rc < 0 ? 0 : rc;
    }
    while (!a.quit) {
        app_input(&a);
        if (a.quit || !app_update(&a)) continue;
        if (app_draw(&a)) app_end_frame(&a);
    }
    rc = app_finish(&a);
    app_shutdown(&a);
    return rc;
}
