/* options.c — command-line parsing and validation, driven by options_table: one row per option
 * (name, kind, range, destination, help). Every option takes `--name value` or `--name=value`;
 * the first non-option argument is the scene. A mode's names are its enum's own names array
 * (izb.h, view.h, scene.h, render.h, shadow_map.h): this file spells none of them. */
#include "options.h"

#include <assert.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "izb_aa.h"
#include "izb_soft.h"
#include "izb_area.h"
#include "scene.h"

#define MAX_SIZE 16384
#define MAX_FRAMES 1000000000L
/* defaults the parser fills in, also printed by --help (as text: STR) */
#define DEFAULT_SCENE "builtin:default"
#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 720
#define HEADLESS_FRAMES 60
#define STR_(x) #x
#define STR(x) STR_(x)

/* the field of app_options a row stores into, and a bool it sets when the option is given */
#define DEST(field) .dest = offsetof(app_options, field), .dest_size = sizeof(((app_options *)0)->field)
#define HAS(field) .has = offsetof(app_options, field) + 1
/* a coordinate: any finite float */
#define ANY_FLOAT .min = -FLT_MAX, .max = FLT_MAX

/* Enum fields are stored through an int (store_int): they must be int-sized. */
_Static_assert(sizeof(izb_backend_kind) == sizeof(int) && sizeof(izb_kernel) == sizeof(int) &&
                   sizeof(izb_binning) == sizeof(int) && sizeof(izb_cull) == sizeof(int) &&
                   sizeof(scene_ground) == sizeof(int) && sizeof(scene_up) == sizeof(int) &&
                   sizeof(light_type) == sizeof(int) && sizeof(render_view) == sizeof(int) &&
                   sizeof(shadow_mode) == sizeof(int),
               "enum fields are stored as int");

/* --vsync's names: a bool, false first */
static const char *const vsync_names[2] = {"off", "on"};
static const char *const alpha_test_names[2] = {"on", "off"}; /* index = alpha_test_off */

/* --light-shape's names, indexed by izb_recon.light_disk's values */
static const char *const light_shape_names[2] = {[IZB_AREA_RECT] = "rect", [IZB_AREA_DISK] = "disk"};

/* --shadow-samples' rule: izb_aa_samples_ok (a power of two from 1 to 32 but 2) */
static bool shadow_samples_ok(int v) { return izb_aa_samples_ok(v); }

const option_spec options_table[] = {
    {"--scene", .kind = OPTION_SCENE, .arg = "SPEC", DEST(scene), .section = "scene and output",
     .help = "builtin:NAME[:N] (N triangles, k/M suffixes) or a model file (OBJ, PLY,\n"
             "glTF, ...); a positional argument works too",
     .deflt = DEFAULT_SCENE},
    {"--width", .kind = OPTION_INT, .arg = "W", DEST(width), .min = 1, .max = MAX_SIZE, .what = "a size",
     .unit = "pixels", .help = "window / image width in pixels", .deflt = STR(DEFAULT_WIDTH)},
    {"--height", .kind = OPTION_INT, .arg = "H", DEST(height), .min = 1, .max = MAX_SIZE, .what = "a size",
     .unit = "pixels", .help = "window / image height in pixels", .deflt = STR(DEFAULT_HEIGHT)},
    {"--headless", .kind = OPTION_FLAG, DEST(headless),
     .help = "no window: EGL without a display, render into FBOs"},
    {"--frames", .kind = OPTION_INT, .arg = "N", DEST(frames), .min = 1, .max = MAX_FRAMES,
     .what = "a frame count", .help = "render N frames, then exit",
     .deflt = "until the window closes; headless " STR(HEADLESS_FRAMES)},
    {"--screenshot", .kind = OPTION_OUTPUT, .arg = "FILE", DEST(screenshot),
     .help = "write the last frame as PNG"},
    {"--log", .kind = OPTION_OUTPUT, .arg = "FILE", DEST(log_path),
     .help = "per-frame CSV: stage times, counts, settings, camera pose"},
    {"--path", .kind = OPTION_INPUT, .arg = "FILE", DEST(path),
     .help = "replay a camera path (izb-path file; R records one); headless\n"
             "runs stop at its end unless --frames is given"},
    {"--path-loop", .kind = OPTION_FLAG, DEST(path_loop), .help = "replay the path in a loop"},
    {"--path-fps", .kind = OPTION_FLOAT, .arg = "F", DEST(path_fps), .min = 1, .max = 1000,
     .what = "frames per second", .help = "headless step 1/F s of path and animation time per frame",
     .deflt = "60"},
    {"--switch-every", .kind = OPTION_INT, .arg = "N", DEST(switch_every), .min = 1, .max = MAX_FRAMES,
     .what = "a frame count",
     .help = "soak runs: every N frames the next of K, B, U, C, V, T, M, ], [ and\n"
             "(headless) a resize, each reported with memory and GL object counts"},
    {"--force", .kind = OPTION_FLAG, DEST(force),
     .help = "let --log and --screenshot overwrite an existing file"},

    {"--backend", .kind = OPTION_ENUM, DEST(backend), .names = izb_backend_names,
     .count = IZB_BACKEND_KIND_COUNT, .section = "IZB",
     .help = "where the IZB runs (auto: CUDA when a device answers)"},
    {"--kernel", .kind = OPTION_ENUM, DEST(kernel), .names = izb_kernel_names, .count = IZB_KERNEL_COUNT,
     .help = "rasteriser: 1 per triangle, 2 per cell group"},
    {"--binning", .kind = OPTION_ENUM, DEST(binning), .names = izb_binning_names, .count = IZB_BINNING_COUNT,
     .help = "points into cells: radix sort or atomic counters"},
    {"--unit", .kind = OPTION_INT, .arg = "N", DEST(unit_size), .min = 32, .max = 256, .pow2 = true,
     .auto_zero = true, .what = "a power of two", .help = "threads per unit (CUDA)", .deflt = "auto"},
    {"--grid", .kind = OPTION_SIZE2, .arg = "WxH", DEST(grid_w), .dest2 = offsetof(app_options, grid_h),
     .min = 1, .max = IZB_GRID_MAX_DIM, .what = "WxH with each side", .unit = "cells", .help = "fixed grid",
     .deflt = "adaptive"},
    {"--cull", .kind = OPTION_ENUM, DEST(cull), .names = izb_cull_names, .count = IZB_CULL_COUNT,
     .help = "drop triangles facing away from the light: auto only on\n"
             "closed meshes the light is outside of (exact), on all of\n"
             "them (exact only for closed meshes), off none"},
    {"--no-cull", .kind = OPTION_FLAG, DEST(cull), .value = IZB_CULL_OFF, .help = "the same as --cull off"},
    {"--bias", .kind = OPTION_FLOAT, .arg = "B", DEST(bias), .min = 0, .max = 0.1, .open = true,
     .what = "a number", .help = "depth bias", .deflt_num = IZB_DEFAULT_BIAS},
    {"--threads", .kind = OPTION_INT, .arg = "N", DEST(threads), .min = 1, .max = 1024,
     .what = "a thread count", .help = "CPU backend threads", .deflt = "all cores"},

    {"--light", .kind = OPTION_ENUM, DEST(light), .names = light_type_names, .count = LIGHT_TYPE_COUNT,
     .section = "light and camera", .help = "the light's kind; or area: a spot light with --light-size"},
    {"--light-dir", .kind = OPTION_VEC3, .arg = "x,y,z", DEST(light_dir), HAS(has_light_dir), ANY_FLOAT,
     .check = light_dir_usable, .what = "x,y,z, not all zero", .help = "direction the light travels",
     .deflt = "the scene's"},
    {"--light-pos", .kind = OPTION_VEC3, .arg = "x,y,z", DEST(light_pos), HAS(has_light_pos), ANY_FLOAT,
     .what = "x,y,z", .help = "spot position", .deflt = "the scene's"},
    {"--cone", .kind = OPTION_FLOAT, .arg = "DEG", DEST(cone_deg), .min = 1, .max = 170, .what = "degrees",
     .help = "spot cone, full angle", .deflt = "60"},
    {"--light-angle", .kind = OPTION_FLOAT, .arg = "DEG", DEST(light_angle), .min = 0,
     .max = IZB_SOFT_MAX_ANGLE_DEG, .what = "degrees",
     .help = "the directional light's angular size, full angle (the sun:\n"
             "0.53): soft shadows, exact for its light samples; 0 = hard",
     .deflt = "0"},
    {"--light-intensity", .kind = OPTION_FLOAT, .arg = "I", DEST(light_intensity), HAS(has_light_intensity),
     .min = 0, .max = LIGHT_MAX_INTENSITY, .what = "a factor",
     .help = "the light's colour times I; 0: it adds nothing (its IZB pass\n"
             "is skipped). Each --light after the first starts another light\n"
             "(at most " STR(IZB_MAX_LIGHTS) "): --light-* and --cone after it describe that one",
     .deflt = "1"},
    {"--light-samples", .kind = OPTION_INT, .arg = "M", DEST(light_samples), .min = 16, .max = 256, .pow2 = true,
     .what = "16, 32, 64, 128 or 256", .help = "light samples of a soft shadow", .deflt = STR(IZB_SOFT_DEFAULT_SAMPLES)},
    {"--light-size", .kind = OPTION_FLOAT2, .arg = "W[,H]", DEST(light_size), HAS(has_light_size), .min = 0,
     .max = IZB_AREA_MAX_SIZE, .what = "W or W,H in world units",
     .help = "a spot light's emitter, W x H world units facing its aim (H = W\n"
             "when one is given): an area light, soft shadows on the CPU\n"
             "backend; 0 = a point, hard shadows. --light area: a spot with\n"
             "this size (default: 2% of the scene's size)",
     .deflt = "0"},
    {"--light-shape", .kind = OPTION_ENUM, DEST(light_shape), .names = light_shape_names, .count = 2,
     .help = "the area light's emitter: a rectangle or the ellipse in it"},
    {"--shadow-samples", .kind = OPTION_INT, .arg = "N", DEST(shadow_samples), .min = 1, .max = IZB_AA_MAX_SAMPLES,
     .pow2 = true, .check_int = shadow_samples_ok, .what = "1, 4, 8, 16 or 32",
     .help = "sub-samples of each pixel's footprint: anti-aliased shadow\n"
             "edges (directional light, CPU backend; CUDA frames fall\n"
             "back to it); 1 = hard edges",
     .deflt = "1"},
    {"--cam-pos", .kind = OPTION_VEC3, .arg = "x,y,z", DEST(cam_pos), HAS(has_cam_pos), ANY_FLOAT,
     .what = "x,y,z", .help = "camera position", .deflt = "the scene's"},
    {"--cam-yaw", .kind = OPTION_FLOAT, .arg = "DEG", DEST(cam_yaw), HAS(has_cam_yaw), .min = -CAMERA_YAW_MAX,
     .max = CAMERA_YAW_MAX, .what = "degrees", .help = "camera yaw", .deflt = "the scene's"},
    {"--cam-pitch", .kind = OPTION_FLOAT, .arg = "DEG", DEST(cam_pitch), HAS(has_cam_pitch),
     .min = -CAMERA_PITCH_MAX, .max = CAMERA_PITCH_MAX, .what = "degrees", .help = "camera pitch", .deflt = "the scene's"},
    {"--ground", .kind = OPTION_ENUM, DEST(ground), .names = scene_ground_names, .count = SCENE_GROUND_COUNT,
     .help = "a ground under the scene that catches its shadows (auto: on\n"
             "for model files, off for built-in scenes, which have one)"},
    {"--up", .kind = OPTION_ENUM, DEST(up), .names = scene_up_names, .count = SCENE_UP_COUNT,
     .help = "the model file's axis that is up, turned to +y (X and AC files\n"
             "are often z-up; O cycles it in the window)"},
    {"--alpha-test", .kind = OPTION_ENUM, DEST(alpha_test_off), .names = alpha_test_names, .count = 2,
     .help = "cut-outs (alpha-tested cards: map_d, glTF MASK, builtin:foliage)\n"
             "cut away in the camera's passes, the IZB and the shadow map;\n"
             "off: every triangle opaque (X toggles it)"},
    {"--animate", .kind = OPTION_FLAG, DEST(animate),
     .help = "turn the scene on a turntable (12 s a turn: by the clock in a\n"
             "window, at --path-fps frames a second headless; builtin:wave\n"
             "moves by itself): the shadows sweep"},

    {"--vsync", .kind = OPTION_ENUM, DEST(vsync), .names = vsync_names, .count = 2, .section = "display",
     .help = "wait for the display's refresh"},
    {"--view", .kind = OPTION_ENUM, DEST(view), .names = render_view_names, .count = RENDER_VIEW_COUNT,
     .help = "what is shown"},
    {"--hud", .kind = OPTION_FLAG, DEST(hud), .help = "show the HUD from the start",
     .deflt = "on in a window only"},
    {"--shadows", .kind = OPTION_ENUM, DEST(shadows), .names = shadow_mode_names, .count = SHADOW_MODE_COUNT,
     .help = "shadow mask: IZB, shadow map, their difference, none"},
    {"--sm-size", .kind = OPTION_INT, .arg = "N", DEST(sm_size), .min = SHADOW_MAP_MIN_SIZE,
     .max = SHADOW_MAP_MAX_SIZE, .pow2 = true, .what = "a power of two", .help = "shadow map texels a side",
     .deflt = "2048"},
    {"--sm-pcf", .kind = OPTION_FLAG, DEST(sm_pcf),
     .help = "3x3 percentage-closer filtering on the shadow map"},
    {"--shader-dir", .kind = OPTION_DIR, .arg = "DIR", DEST(shader_dir),
     .help = "load the GLSL files from DIR instead of the embedded copies"},
    {"--help", .alias = "-h", .kind = OPTION_HELP,
     .help = "this text; the keys are listed with F1 or ? in the window"},
};
const int options_count = (int)(sizeof options_table / sizeof options_table[0]);

/* one-line message into err; returns OPTIONS_ERROR */
static options_result fail(char *err, size_t n, const char *fmt, ...);
/* whole-string integer in [lo, hi] */
static bool parse_int(const char *s, long lo, long hi, long *out);
/* whole-string finite float */
static bool parse_float(const char *s, float *out);
/* "x,y,z" of finite floats */
static bool parse_vec3(const char *s, float out[3]);
/* "WxH" of integers in [lo, hi] */
static bool parse_size2(const char *s, long lo, long hi, int *w, int *h);
/* the directory part of path exists */
static bool parent_dir_exists(const char *path);
/* what a file that is not a regular one is: "a character device", ... */
static const char *file_kind(mode_t mode);
/* builtin:NAME[:N] with a known NAME and a valid N; or an existing readable file */
static bool check_scene(const char *spec, char *err, size_t n);
/* the row named by the first len bytes of arg (its name or alias), or NULL */
static const option_spec *find_option(const char *arg, size_t len);
/* parse, check and store one option's value; false with the message in err */
static bool take_value(app_options *o, const option_spec *s, const char *val, bool *scene_set, char *err,
                       size_t n);
/* "expected ..." for the row: its range, names or form */
static void expectation(const option_spec *s, char *buf, size_t n);
/* the row's first name that is not NULL: an enum's default (a zero *_DEFAULT means the first mode) */
static const char *first_name(const option_spec *s);
/* store v into the bool, int (enum) or long at offset off of *o, by the field's size */
static void store_int(app_options *o, size_t off, size_t size, long v);
/* float f in the row's range ((min, max) where open, else [min, max]) */
static bool float_in_range(const option_spec *s, float f);
/* a string field's value (NULL: not given) */
static const char *string_at(const app_options *o, const option_spec *s);

/* The message quotes what the user typed: a newline or other control byte in an argument must not
 * break it into lines or drive the terminal (fuzz_options found this). */
static void one_line(char *err, size_t n)
{
    for (char *c = err; n > 0 && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
}

static options_result fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    one_line(err, n);
    return OPTIONS_ERROR;
}

static bool parse_int(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_float(const char *s, float *out)
{
    char *end = NULL;
    errno = 0;
    float v = strtof(s, &end);
    if (!*s || errno || *end || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* "W" or "W,H" of finite floats (H = W when one) */
static bool parse_float2(const char *s, float out[2])
{
    const char *comma = strchr(s, ',');
    if (!comma) return parse_float(s, &out[0]) && (out[1] = out[0], true);
    char buf[256];
    const size_t n = (size_t)(comma - s);
    if (n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return parse_float(buf, &out[0]) && parse_float(comma + 1, &out[1]);
}

static bool parse_vec3(const char *s, float out[3])
{
    char buf[256];
    if (strlen(s) >= sizeof buf) return false;
    strcpy(buf, s);
    char *p = buf;
    for (int i = 0; i < 3; i++) {
        char *comma = strchr(p, ',');
        if ((i < 2) != (comma != NULL)) return false;
        if (comma) *comma = '\0';
        if (!parse_float(p, &out[i])) return false;
        p = comma ? comma + 1 : p;
    }
    return true;
}

static bool parse_size2(const char *s, long lo, long hi, int *w, int *h)
{
    const char *x = strchr(s, 'x');
    char a[32];
    long vw, vh;
    if (!x || (size_t)(x - s) >= sizeof a) return false;
    memcpy(a, s, (size_t)(x - s));
    a[x - s] = '\0';
    if (!parse_int(a, lo, hi, &vw) || !parse_int(x + 1, lo, hi, &vh)) return false;
    *w = (int)vw;
    *h = (int)vh;
    return true;
}

static const char *file_kind(mode_t mode)
{
    return S_ISCHR(mode)    ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISFIFO(mode) ? "a named pipe"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISDIR(mode)  ? "a directory"
                            : "something else";
}

static bool parent_dir_exists(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return true;
    char dir[4096];
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    if (len >= sizeof dir) return false;
    memcpy(dir, path, len);
    dir[len] = '\0';
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool check_scene(const char *spec, char *err, size_t n)
{
    static const char prefix[] = "builtin:";
    if (strncmp(spec, prefix, sizeof prefix - 1) != 0) {
        struct stat st;
        if (stat(spec, &st) != 0) {
            snprintf(err, n, "scene file '%s': %s", spec, strerror(errno));
            return false;
        }
        if (S_ISDIR(st.st_mode) || access(spec, R_OK) != 0) {
            snprintf(err, n, "scene file '%s': %s", spec,
                     S_ISDIR(st.st_mode) ? "is a directory" : strerror(errno));
            return false;
        }
        return true;
    }
    char name[SCENE_NAME_MAX], msg[512];
    long tris;
    if (!scene_builtin_parse(spec, name, &tris, msg, sizeof msg)) { /* the loader's own reader */
        snprintf(err, n, "--%s", msg);
        return false;
    }
    return true;
}

static const option_spec *find_option(const char *arg, size_t len)
{
    for (int k = 0; k < options_count; k++) {
        const option_spec *s = &options_table[k];
        if ((strlen(s->name) == len && strncmp(arg, s->name, len) == 0) ||
            (s->alias && strlen(s->alias) == len && strncmp(arg, s->alias, len) == 0))
            return s;
    }
    return NULL;
}

static const char *first_name(const option_spec *s)
{
    for (int k = 0; k < s->count; k++)
        if (s->names[k]) return s->names[k];
    return "";
}

static void store_int(app_options *o, size_t off, size_t size, long v)
{
    char *p = (char *)o + off;
    if (size == sizeof(bool)) {
        bool b = v != 0;
        memcpy(p, &b, sizeof b);
    } else if (size == sizeof(int)) {
        int i = (int)v;
        memcpy(p, &i, sizeof i);
    } else {
        assert(size == sizeof(long));
        memcpy(p, &v, sizeof v);
    }
}

/* float bounds compared as floats: the value was parsed as one, and --bias 0.1 must be refused
 * (0.1 is not a float; the double 0.1 would let the float 0.1 through) */
static bool float_in_range(const option_spec *s, float f)
{
    const float lo = (float)s->min, hi = (float)s->max;
    return s->open ? f > lo && f < hi : f >= lo && f <= hi;
}

static const char *string_at(const app_options *o, const option_spec *s)
{
    const char *v;
    assert(s->dest_size == sizeof v);
    memcpy(&v, (const char *)o + s->dest, sizeof v);
    return v;
}

double options_value(const app_options *o, const option_spec *s, int component)
{
    const char *p = (const char *)o + s->dest;
    if (s->kind == OPTION_FLOAT || s->kind == OPTION_VEC3 || s->kind == OPTION_FLOAT2) {
        if (s->kind == OPTION_FLOAT && s->dest_size == sizeof(double)) {
            double d;
            memcpy(&d, p, sizeof d);
            return d;
        }
        float f;
        memcpy(&f, p + (size_t)component * sizeof f, sizeof f);
        return f;
    }
    if (s->kind == OPTION_SIZE2 && component == 1) p = (const char *)o + s->dest2;
    if (s->dest_size == sizeof(bool)) {
        bool b;
        memcpy(&b, p, sizeof b);
        return b;
    }
    if (s->dest_size == sizeof(int)) {
        int i;
        memcpy(&i, p, sizeof i);
        return i;
    }
    long l;
    memcpy(&l, p, sizeof l);
    return (double)l;
}

static void expectation(const option_spec *s, char *buf, size_t n)
{
    const char *sp = s->unit ? " " : "", *unit = s->unit ? s->unit : "";
    switch (s->kind) {
    case OPTION_INT:
    case OPTION_SIZE2:
        snprintf(buf, n, "%s from %.10g to %.10g%s%s%s", s->what, s->min, s->max, sp, unit,
                 s->auto_zero ? " or auto" : "");
        break;
    case OPTION_FLOAT:
        snprintf(buf, n, s->open ? "%s between %.10g and %.10g%s%s" : "%s from %.10g to %.10g%s%s", s->what,
                 s->min, s->max, sp, unit);
        break;
    case OPTION_VEC3:
        snprintf(buf, n, "%s", s->what);
        break;
    case OPTION_FLOAT2:
        snprintf(buf, n, "%s, each from %.10g to %.10g%s%s", s->what, s->min, s->max, sp, unit);
        break;
    case OPTION_ENUM: { /* "a, b or c" */
        size_t len = 0;
        int named = 0, total = 0;
        for (int k = 0; k < s->count; k++)
            total += s->names[k] != NULL;
        buf[0] = '\0';
        for (int k = 0; k < s->count && len < n; k++) {
            if (!s->names[k]) continue;
            named++;
            int w = snprintf(buf + len, n - len, "%s%s",
                             named == 1       ? ""
                             : named == total ? " or "
                                              : ", ",
                             s->names[k]);
            len += w > 0 ? (size_t)w : 0;
        }
        break;
    }
    default:
        buf[0] = '\0';
    }
}

static bool take_value(app_options *o, const option_spec *s, const char *val, bool *scene_set, char *err,
                       size_t n)
{
    char want[192];
    expectation(s, want, sizeof want);
    char *field = (char *)o + s->dest;
    long v = 0;
    float f[3];
    int w, h;
    bool ok = true, is_string = false; /* strings point into argv */
    switch (s->kind) {
    case OPTION_INT:
        if (s->auto_zero && strcmp(val, "auto") == 0)
            v = 0;
        else
            ok = parse_int(val, (long)s->min, (long)s->max, &v) && !(s->pow2 && (v & (v - 1)) != 0) &&
                 !(s->check_int && !s->check_int((int)v));
        if (ok) store_int(o, s->dest, s->dest_size, v);
        break;
    case OPTION_FLOAT:
        ok = parse_float(val, &f[0]) && float_in_range(s, f[0]);
        if (ok && s->dest_size == sizeof(double)) {
            double d = f[0];
            memcpy(field, &d, sizeof d);
        } else if (ok) {
            memcpy(field, &f[0], sizeof f[0]);
        }
        break;
    case OPTION_VEC3:
        ok = parse_vec3(val, f);
        for (int k = 0; k < 3 && ok; k++)
            ok = f[k] >= (float)s->min && f[k] <= (float)s->max;
        ok = ok && (!s->check || s->check(f));
        if (ok) memcpy(field, f, sizeof f);
        break;
    case OPTION_FLOAT2:
        ok = parse_float2(val, f) && f[0] >= (float)s->min && f[0] <= (float)s->max && f[1] >= (float)s->min &&
             f[1] <= (float)s->max;
        if (ok) memcpy(field, f, 2 * sizeof f[0]);
        break;
    case OPTION_SIZE2:
        ok = parse_size2(val, (long)s->min, (long)s->max, &w, &h);
        if (ok) {
            memcpy(field, &w, sizeof w);
            memcpy((char *)o + s->dest2, &h, sizeof h);
        }
        break;
    case OPTION_ENUM:
        ok = false;
        for (int k = 0; k < s->count && !ok; k++)
            if (s->names[k] && strcmp(val, s->names[k]) == 0) {
                store_int(o, s->dest, s->dest_size, k);
                ok = true;
            }
        break;
    case OPTION_SCENE:
        if (*scene_set) {
            fail(err, n, "%s '%s': the scene is already '%s'", s->name, val, o->scene);
            return false;
        }
        *scene_set = is_string = true;
        break;
    case OPTION_OUTPUT:
        if (!*val || !parent_dir_exists(val)) {
            fail(err, n, "%s '%s': no such directory", s->name, val);
            return false;
        }
        is_string = true;
        break;
    case OPTION_INPUT:
        if (!*val || access(val, R_OK) != 0) {
            fail(err, n, "%s '%s': %s", s->name, val, *val ? strerror(errno) : "empty name");
            return false;
        }
        is_string = true;
        break;
    case OPTION_DIR: {
        struct stat st;
        if (stat(val, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fail(err, n, "%s '%s': no such directory", s->name, val);
            return false;
        }
        is_string = true;
        break;
    }
    case OPTION_FLAG:
    case OPTION_HELP:
        assert(!"flags take no value");
        break;
    }
    if (!ok) {
        fail(err, n, "%s '%s': expected %s", s->name, val, want);
        return false;
    }
    if (is_string) memcpy(field, &val, sizeof val);
    if (s->has) store_int(o, s->has - 1, sizeof(bool), 1);
    return true;
}

void options_synopsis(FILE *f)
{
    fprintf(f, "usage: izb-shadows [scene-file] [options]   (izb-shadows --help lists the options)\n");
}

/* --help's column where the help text starts */
#define HELP_COLUMN 28

void options_usage(FILE *f)
{
    fprintf(f, "usage: izb-shadows [scene-file] [options]\n"
               "Alias-free hard shadows with an irregular Z-buffer between two OpenGL passes.\n");
    for (int k = 0; k < options_count; k++) {
        const option_spec *s = &options_table[k];
        if (s->section) fprintf(f, "%s%s\n", k ? "" : "\n", s->section);
        /* the left column: name, alias, the value's form (an enum's names) */
        char left[160];
        int len =
            snprintf(left, sizeof left, "  %s%s%s", s->name, s->alias ? ", " : "", s->alias ? s->alias : "");
        if (s->kind == OPTION_ENUM)
            for (int i = 0, first = 1; i < s->count && len < (int)sizeof left; i++)
                if (s->names[i]) {
                    len += snprintf(left + len, sizeof left - (size_t)len, "%c%s", first ? ' ' : '|',
                                    s->names[i]);
                    first = 0;
                }
        if (s->arg && len < (int)sizeof left) snprintf(left + len, sizeof left - (size_t)len, " %s", s->arg);
        /* the help, each '\n' continuing on an indented line; below a left column too wide for it */
        if (strlen(left) < HELP_COLUMN)
            fprintf(f, "%-*s", HELP_COLUMN, left);
        else
            fprintf(f, "%s\n%*s", left, HELP_COLUMN, "");
        for (const char *c = s->help; *c; c++) {
            if (*c == '\n')
                fprintf(f, "\n%*s", HELP_COLUMN, "");
            else
                fputc(*c, f);
        }
        /* then the range and the default, from the same fields the parser reads */
        if (s->kind == OPTION_INT && s->pow2)
            fprintf(f, ", a power of two from %.10g to %.10g%s", s->min, s->max,
                    s->auto_zero ? " or auto" : "");
        else if (s->kind == OPTION_INT || (s->kind == OPTION_FLOAT && !s->open))
            fprintf(f, ", %.10g to %.10g", s->min, s->max);
        else if (s->kind == OPTION_FLOAT)
            fprintf(f, ", %.10g < %s < %.10g", s->min, s->arg, s->max);
        else if (s->kind == OPTION_SIZE2)
            fprintf(f, ", each side 1 to %.10g", s->max);
        else if (s->kind == OPTION_FLOAT2)
            fprintf(f, ", each %.10g to %.10g", s->min, s->max);
        if (s->kind == OPTION_SCENE) {
            fprintf(f, "\n%*sNAME: ", HELP_COLUMN, "");
            for (int i = 0; scene_builtin_names[i]; i++)
                fprintf(f, "%s%s", i ? ", " : "", scene_builtin_names[i]);
            fprintf(f, "; N: %d to %d", SCENE_MIN_TRIANGLES, SCENE_MAX_TRIANGLES);
        }
        if (s->deflt)
            fprintf(f, " (default %s)", s->deflt);
        else if (s->deflt_num != 0.0)
            fprintf(f, " (default %g)", s->deflt_num);
        else if (s->kind == OPTION_ENUM)
            fprintf(f, " (default %s)", first_name(s));
        fputc('\n', f);
    }
    fprintf(f, "exit status: 0 done, 1 runtime failure (scene, GL, IZB), 2 bad command line\n");
}

unsigned long long options_mem_available(const char *meminfo)
{
    for (const char *line = meminfo; line && *line;) {
        unsigned long long kb;
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) return kb * 1024ull;
        line = strchr(line, '\n');
        if (line) line++;
    }
    return 0;
}

options_memory options_memory_budget(const char *meminfo)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    options_memory m = {pages > 0 && page > 0 ? (unsigned long long)pages * (unsigned long long)page
                                              : ULLONG_MAX,
                        "RAM of this machine"};
    char text[8192] = "";
    if (!meminfo) { /* no /proc (not Linux, a sandbox): the RAM and the limits still bound it */
        FILE *f = fopen("/proc/meminfo", "r");
        if (f) {
            text[fread(text, 1, sizeof text - 1, f)] = '\0';
            fclose(f);
        }
        meminfo = text;
    }
    unsigned long long avail = options_mem_available(meminfo);
    if (avail > 0 && avail < m.bytes)
        m = (options_memory){avail, "free on this machine (MemAvailable in /proc/meminfo)"};
    static const struct {
        int resource;
        const char *what;
    } limits[2] = {{RLIMIT_AS, "this process may use (ulimit -v)"},
                   {RLIMIT_DATA, "this process may use (ulimit -d)"}};
    for (int i = 0; i < 2; i++) {
        struct rlimit rl;
        if (getrlimit(limits[i].resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < m.bytes)
            m = (options_memory){rl.rlim_cur, limits[i].what};
    }
    return m;
}

bool options_check_memory(int width, int height, const char *meminfo, char *err, size_t err_size)
{
    unsigned long long need =
        (unsigned long long)width * (unsigned long long)height * OPTIONS_BYTES_PER_PIXEL;
    options_memory m = options_memory_budget(meminfo);
    if (need <= m.bytes) return true;
    snprintf(err, err_size,
             "--width %d --height %d: needs about %.1f GB (%llu bytes a pixel), more than the %.1f GB %s",
             width, height, (double)need / 1e9, OPTIONS_BYTES_PER_PIXEL, (double)m.bytes / 1e9, m.what);
    return false;
}

/* the latest light's fields of o */
static options_light latest_light(const app_options *o)
{
    options_light l = {.light = o->light,
                       .has_light_dir = o->has_light_dir,
                       .has_light_pos = o->has_light_pos,
                       .has_light_intensity = o->has_light_intensity,
                       .cone_deg = o->cone_deg,
                       .light_angle = o->light_angle,
                       .light_intensity = o->light_intensity,
                       .light_samples = o->light_samples,
                       .has_light_size = o->has_light_size,
                       .light_area = o->light_area,
                       .light_shape = o->light_shape};
    memcpy(l.light_size, o->light_size, sizeof l.light_size);
    memcpy(l.light_dir, o->light_dir, sizeof l.light_dir);
    memcpy(l.light_pos, o->light_pos, sizeof l.light_pos);
    return l;
}

int options_lights(const app_options *o, options_light out[IZB_MAX_LIGHTS])
{
    int n = o->earlier_count < IZB_MAX_LIGHTS - 1 ? o->earlier_count : IZB_MAX_LIGHTS - 1;
    for (int i = 0; i < n; i++) out[i] = o->earlier[i];
    out[n] = latest_light(o);
    return n + 1;
}

/* one light's rules that no single row checks; `which` counts from 1 for the message */
static bool light_consistent(const options_light *l, int which, char *err, size_t err_size)
{
    if (l->light_angle > 0.0f && l->light != LIGHT_DIRECTIONAL) {
        if (which == 1)
            fail(err, err_size, "--light-angle %g: for the directional light only so far (--light %s given)",
                 (double)l->light_angle, light_type_names[l->light]);
        else
            fail(err, err_size, "--light-angle %g: for the directional light only so far (light %d is %s)",
                 (double)l->light_angle, which, light_type_names[l->light]);
        return false;
    }
    return true;
}

/* A second --light: the latest light joins the earlier ones and its fields start again. False
 * with one line when that would be light IZB_MAX_LIGHTS + 1. */
static bool start_light(app_options *o, char *err, size_t err_size)
{
    if (o->earlier_count >= IZB_MAX_LIGHTS - 1) {
        fail(err, err_size, "--light: at most %d lights", IZB_MAX_LIGHTS);
        return false;
    }
    options_light l = latest_light(o);
    if (!light_consistent(&l, o->earlier_count + 1, err, err_size)) return false;
    o->earlier[o->earlier_count++] = l;
    o->light = LIGHT_DIRECTIONAL;
    o->has_light_dir = o->has_light_pos = o->has_light_intensity = false;
    memset(o->light_dir, 0, sizeof o->light_dir);
    memset(o->light_pos, 0, sizeof o->light_pos);
    o->cone_deg = o->light_angle = o->light_intensity = 0.0f;
    o->light_samples = 0;
    o->light_size[0] = o->light_size[1] = 0.0f;
    o->has_light_size = o->light_area = false;
    o->light_shape = IZB_AREA_RECT;
    return true;
}

options_result parse_options(int argc, char **argv, app_options *o, char *err, size_t err_size)
{
    *o = (app_options){.scene = DEFAULT_SCENE, .width = DEFAULT_WIDTH, .height = DEFAULT_HEIGHT};
    bool scene_set = false;
    err[0] = '\0';

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0') {
            if (scene_set)
                return fail(err, err_size, "unexpected argument '%s' (the scene is already '%s')", arg,
                            o->scene);
            o->scene = arg;
            scene_set = true;
            continue;
        }
        /* --name=value or --name value */
        const char *eq = strchr(arg, '=');
        const size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        const int shown = nlen < 256 ? (int)nlen : 256; /* the message quotes at most this much */
        const option_spec *s = find_option(arg, nlen);
        if (!s) return fail(err, err_size, "unknown option '%.*s'", shown, arg);
        if (s->kind == OPTION_FLAG || s->kind == OPTION_HELP) {
            if (eq) return fail(err, err_size, "option %.*s takes no value", shown, arg);
            if (s->kind == OPTION_HELP) return OPTIONS_HELP;
            store_int(o, s->dest, s->dest_size, s->value ? s->value : 1);
            continue;
        }
        const char *val;
        if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc) return fail(err, err_size, "option %.*s needs a value", shown, arg);
            val = argv[++i];
        }
        if (s->dest == offsetof(app_options, light)) { /* --light: the first names light 0, a later one starts another */
            if (o->light_given && !start_light(o, err, err_size)) return OPTIONS_ERROR;
            o->light_given = true;
            o->light_area = strcmp(val, "area") == 0; /* a spot with a size (izb_area.h), not a type of its own */
            if (o->light_area) {
                o->light = LIGHT_SPOT;
                continue;
            }
        }
        if (!take_value(o, s, val, &scene_set, err, err_size)) return OPTIONS_ERROR;
    }

    /* before anything is allocated: a size the machine cannot hold would fail deep in the GL or
     * get the process killed */
    if (!options_check_memory(o->width, o->height, NULL, err, err_size)) return OPTIONS_ERROR;
    const options_light last = latest_light(o);
    if (!light_consistent(&last, o->earlier_count + 1, err, err_size)) return OPTIONS_ERROR;
    /* sub-samples per pixel apply to the hard directional, spot and point lights (render_izb_lights);
     * a light list without one is refused, as a single area or soft light is */
    if (o->shadow_samples > 1 && o->earlier_count == 0 &&
        !(o->light == LIGHT_DIRECTIONAL || o->light == LIGHT_POINT ||
          (o->light == LIGHT_SPOT && !o->light_area && !o->has_light_size)))
        return fail(err, err_size, "--shadow-samples %d: for directional, spot and point lights only so far (--light %s%s given)",
                    o->shadow_samples, light_type_names[o->light], o->light_area || o->has_light_size ? " with a size" : "");
    if (o->shadow_samples > 1 && o->earlier_count == 0 && o->light_angle > 0.0f)
        return fail(err, err_size, "--shadow-samples %d: not with --light-angle yet (soft shadows' edges are soft)",
                    o->shadow_samples);
    if (o->shadow_samples > 1 && o->earlier_count > 0) {
        bool hard = (last.light == LIGHT_DIRECTIONAL && !(last.light_angle > 0.0f)) || last.light == LIGHT_POINT ||
                    (last.light == LIGHT_SPOT && !last.light_area && !last.has_light_size);
        for (int i = 0; i < o->earlier_count; i++)
            hard |= (o->earlier[i].light == LIGHT_DIRECTIONAL && !(o->earlier[i].light_angle > 0.0f)) ||
                    o->earlier[i].light == LIGHT_POINT ||
                    (o->earlier[i].light == LIGHT_SPOT && !o->earlier[i].light_area && !o->earlier[i].has_light_size);
        if (!hard)
            return fail(err, err_size, "--shadow-samples %d: for hard directional, spot and point lights only so far (none "
                        "of the %d lights is one)", o->shadow_samples, o->earlier_count + 1);
    }
    if (!check_scene(o->scene, err, err_size)) {
        one_line(err, err_size);
        return OPTIONS_ERROR;
    }
    /* one overwrite policy for every output named on the command line: never without --force */
    for (int k = 0; k < options_count; k++) {
        const option_spec *s = &options_table[k];
        const char *path = s->kind == OPTION_OUTPUT ? string_at(o, s) : NULL;
        struct stat st;
        if (!path || o->force || stat(path, &st) != 0) continue;
        if (S_ISREG(st.st_mode))
            return fail(err, err_size, "%s '%s': file exists (add --force to overwrite it)", s->name, path);
        if (S_ISDIR(st.st_mode))
            return fail(err, err_size, "%s '%s': is a directory, not a file", s->name, path);
        return fail(err, err_size,
                    "%s '%s': exists and is %s, not a regular file (add --force to write to it)", s->name,
                    path, file_kind(st.st_mode));
    }
    if (o->headless && o->frames == 0 && (!o->path || o->path_loop))
        o->frames = HEADLESS_FRAMES; /* a path: to its end */
    return OPTIONS_OK;
}
