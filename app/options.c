/* options.c — command-line parsing and validation. Every option takes `--name value` or
 * `--name=value`; the first non-option argument is the scene. */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scene.h"

#define MAX_SIZE 16384

/* one-line message into err; returns OPTIONS_ERROR */
static options_result fail(char *err, size_t n, const char *fmt, ...);
/* whole-string integer in [lo, hi] */
static bool parse_int(const char *s, long lo, long hi, long *out);
/* whole-string finite float */
static bool parse_float(const char *s, float *out);
/* "x,y,z" of finite floats */
static bool parse_vec3(const char *s, float out[3]);
/* "WxH" of integers in [1, hi] */
static bool parse_size2(const char *s, int hi, int *w, int *h);
/* the directory part of path exists */
static bool parent_dir_exists(const char *path);
/* builtin:NAME[:N] with a known NAME and a valid N; or an existing readable file */
static bool check_scene(const char *spec, char *err, size_t n);

static options_result fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
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

static bool parse_size2(const char *s, int hi, int *w, int *h)
{
    const char *x = strchr(s, 'x');
    char a[32];
    long vw, vh;
    if (!x || (size_t)(x - s) >= sizeof a) return false;
    memcpy(a, s, (size_t)(x - s));
    a[x - s] = '\0';
    if (!parse_int(a, 1, hi, &vw) || !parse_int(x + 1, 1, hi, &vh)) return false;
    *w = (int)vw;
    *h = (int)vh;
    return true;
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
    const char *name = spec + sizeof prefix - 1, *colon = strchr(name, ':');
    size_t len = colon ? (size_t)(colon - name) : strlen(name);
    bool known = false;
    char names[256] = "";
    for (int i = 0; scene_builtin_names[i]; i++) {
        if (strlen(scene_builtin_names[i]) == len && strncmp(scene_builtin_names[i], name, len) == 0)
            known = true;
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                 scene_builtin_names[i]);
    }
    if (!known) {
        snprintf(err, n, "--scene '%s': unknown builtin scene (one of %s)", spec, names);
        return false;
    }
    if (colon) {
        char num[32];
        const char *s = colon + 1;
        size_t l = strlen(s);
        long mul = 1, v = 0;
        if (l > 0 && l < sizeof num) {
            memcpy(num, s, l + 1);
            if (num[l - 1] == 'k' || num[l - 1] == 'K')
                mul = 1000, num[l - 1] = '\0';
            else if (num[l - 1] == 'm' || num[l - 1] == 'M')
                mul = 1000000, num[l - 1] = '\0';
        }
        if (l == 0 || l >= sizeof num || num[0] < '0' || num[0] > '9' ||
            !parse_int(num, 1, SCENE_MAX_TRIANGLES / mul, &v)) {
            snprintf(err, n, "--scene '%s': N must be a triangle count from 1 to %d (k/M suffixes allowed)",
                     spec, SCENE_MAX_TRIANGLES);
            return false;
        }
    }
    return true;
}

void options_synopsis(FILE *f)
{
    fprintf(f, "usage: izb-shadows [scene-file] [options]   (izb-shadows --help lists the options)\n");
}

void options_usage(FILE *f)
{
    fprintf(f,
            "usage: izb-shadows [scene-file] [options]\n"
            "Alias-free hard shadows with an irregular Z-buffer between two OpenGL passes.\n"
            "\n"
            "scene and output\n"
            "  --scene SPEC          builtin:NAME[:N] (default, tesseract, spheres, grass; N triangles,\n"
            "                        k/M suffixes) or a model file (OBJ, PLY, glTF, ...); default\n"
            "                        builtin:default. A positional argument works too.\n"
            "  --width W --height H  window / image size in pixels (default 1280x720, at most %d)\n"
            "  --headless            no window: EGL without a display, render into FBOs\n"
            "  --frames N            render N frames, then exit (headless default 60)\n"
            "  --screenshot FILE     write the last frame as PNG\n"
            "  --log FILE            per-frame CSV: stage times, counts, settings, camera pose\n"
            "  --path FILE           replay a camera path (izb-path file; R records one); headless\n"
            "                        runs stop at its end unless --frames is given\n"
            "  --path-loop           replay the path in a loop\n"
            "  --path-fps F          headless replay step 1/F s of path time per frame (default 60)\n"
            "  --force               let --log overwrite an existing file\n"
            "IZB\n"
            "  --backend cpu|cuda|auto   default auto (CUDA when a device answers)\n"
            "  --kernel 1|2              rasteriser: 1 per triangle, 2 per cell group (default 1)\n"
            "  --binning radix|atomic    default radix\n"
            "  --unit 32|64|128|256|auto threads per unit (CUDA), default auto\n"
            "  --grid WxH                fixed grid (at most %dx%d), default adaptive\n"
            "  --cull auto|on|off        drop triangles facing away from the light: auto only on\n"
            "                            closed meshes the light is outside of (exact), on all of\n"
            "                            them (exact only for closed meshes), off none (default auto);\n"
            "                            --no-cull is --cull off\n"
            "  --bias B                  depth bias, 0 < B < 0.1 (default %g)\n"
            "  --threads N               CPU backend threads (default all cores)\n"
            "light and camera\n"
            "  --light directional|spot  default directional\n"
            "  --light-dir x,y,z         direction the light travels (default the scene's)\n"
            "  --light-pos x,y,z         spot position (default the scene's)\n"
            "  --cone DEG                spot cone, full angle, 1..170 (default 60)\n"
            "  --cam-pos x,y,z --cam-yaw DEG --cam-pitch DEG   camera pose (default the scene's)\n"
            "  --ground auto|on|off      a ground under the scene that catches its shadows (auto: on\n"
            "                            for model files, off for built-in scenes, which have one)\n"
            "  --animate                 turn the scene on a turntable (12 s a turn, 60 frames a second;\n"
            "                            builtin:wave moves by itself): the shadows sweep\n"
            "display\n"
            "  --vsync on|off            default off\n"
            "  --view shaded|overlay|mask|depth|points|cells   what is shown (default shaded)\n"
            "  --hud                 show the HUD from the start (default: on in a window only)\n"
            "  --shadows izb|map|diff|none   shadow mask: IZB, shadow map, their difference, none (default izb)\n"
            "  --sm-size N               shadow map texels a side, a power of two from 512 to 16384 (default 2048)\n"
            "  --sm-pcf                  3x3 percentage-closer filtering on the shadow map\n"
            "  --shader-dir DIR          load the GLSL files from DIR instead of the embedded copies\n"
            "  --help                    this text; the keys are listed with F1 or ? in the window\n"
            "exit status: 0 done, 1 runtime failure (scene, GL, IZB), 2 bad command line\n",
            MAX_SIZE, IZB_GRID_MAX_DIM, IZB_GRID_MAX_DIM, (double)IZB_DEFAULT_BIAS);
}

unsigned long long options_memory_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    unsigned long long budget = pages > 0 && page > 0 ? (unsigned long long)pages * (unsigned long long)page : ULLONG_MAX;
    const int limits[2] = {RLIMIT_AS, RLIMIT_DATA};
    for (int i = 0; i < 2; i++) {
        struct rlimit rl;
        if (getrlimit(limits[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < budget)
            budget = rl.rlim_cur;
    }
    return budget;
}

options_result parse_options(int argc, char **argv, app_options *o, char *err, size_t err_size)
{
    *o = (app_options){.scene = "builtin:default", .width = 1280, .height = 720};
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
        char name[64];
        const char *eq = strchr(arg, '=');
        const char *val = NULL;
        size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        if (nlen >= sizeof name) return fail(err, err_size, "unknown option '%s'", arg);
        memcpy(name, arg, nlen);
        name[nlen] = '\0';

        /* flags */
        static const char *const flags[] = {"--headless", "--no-cull", "--force",     "--help",
                                            "-h",         "--hud",     "--path-loop", "--sm-pcf", "--animate", NULL};
        bool is_flag = false;
        for (int k = 0; flags[k]; k++)
            is_flag |= strcmp(name, flags[k]) == 0;
        if (is_flag) {
            if (eq) return fail(err, err_size, "option %s takes no value", name);
            if (strcmp(name, "--headless") == 0)
                o->headless = true;
            else if (strcmp(name, "--no-cull") == 0)
                o->cull = IZB_CULL_OFF;
            else if (strcmp(name, "--force") == 0)
                o->force = true;
            else if (strcmp(name, "--hud") == 0)
                o->hud = true;
            else if (strcmp(name, "--path-loop") == 0)
                o->path_loop = true;
            else if (strcmp(name, "--sm-pcf") == 0)
                o->sm_pcf = true;
            else if (strcmp(name, "--animate") == 0)
                o->animate = true;
            else
                return OPTIONS_HELP;
            continue;
        }

        static const char *const valued[] = {
            "--scene",   "--width",     "--height",    "--frames",    "--screenshot", "--log",
            "--backend", "--kernel",    "--binning",   "--unit",      "--grid",       "--bias",
            "--threads", "--light",     "--light-dir", "--light-pos", "--cone",       "--cam-pos",
            "--cam-yaw", "--cam-pitch", "--vsync",     "--view",      "--shader-dir", "--path",
            "--path-fps", "--shadows", "--sm-size", "--cull", "--ground", NULL};
        bool known = false;
        for (int k = 0; valued[k]; k++)
            known |= strcmp(name, valued[k]) == 0;
        if (!known) return fail(err, err_size, "unknown option '%s'", name);
        if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc) return fail(err, err_size, "option %s needs a value", name);
            val = argv[++i];
        }

        long v;
        float f;
        if (strcmp(name, "--scene") == 0) {
            if (scene_set)
                return fail(err, err_size, "--scene '%s': the scene is already '%s'", val, o->scene);
            o->scene = val;
            scene_set = true;
        } else if (strcmp(name, "--width") == 0 || strcmp(name, "--height") == 0) {
            if (!parse_int(val, 1, MAX_SIZE, &v))
                return fail(err, err_size, "%s '%s': expected a size from 1 to %d pixels", name, val,
                            MAX_SIZE);
            *(name[2] == 'w' ? &o->width : &o->height) = (int)v;
        } else if (strcmp(name, "--frames") == 0) {
            if (!parse_int(val, 1, 1000000000L, &v))
                return fail(err, err_size, "--frames '%s': expected a frame count from 1 to 1000000000", val);
            o->frames = v;
        } else if (strcmp(name, "--screenshot") == 0 || strcmp(name, "--log") == 0) {
            if (!*val || !parent_dir_exists(val))
                return fail(err, err_size, "%s '%s': no such directory", name, val);
            *(name[2] == 's' ? &o->screenshot : &o->log_path) = val;
        } else if (strcmp(name, "--backend") == 0) {
            if (strcmp(val, "cpu") == 0)
                o->backend = IZB_BACKEND_CPU;
            else if (strcmp(val, "cuda") == 0)
                o->backend = IZB_BACKEND_CUDA;
            else if (strcmp(val, "auto") == 0)
                o->backend = IZB_BACKEND_AUTO;
            else
                return fail(err, err_size, "--backend '%s': expected cpu, cuda or auto", val);
        } else if (strcmp(name, "--cull") == 0 || strcmp(name, "--ground") == 0) {
            int m = strcmp(val, "auto") == 0 ? 0 : strcmp(val, "on") == 0 ? 1 : strcmp(val, "off") == 0 ? 2 : -1;
            if (m < 0) return fail(err, err_size, "%s '%s': expected auto, on or off", name, val);
            if (name[2] == 'c')
                o->cull = m == 0 ? IZB_CULL_AUTO : m == 1 ? IZB_CULL_ON : IZB_CULL_OFF;
            else
                o->ground = m == 0 ? SCENE_GROUND_AUTO : m == 1 ? SCENE_GROUND_ON : SCENE_GROUND_OFF;
        } else if (strcmp(name, "--kernel") == 0) {
            if (strcmp(val, "1") == 0)
                o->kernel = IZB_KERNEL1;
            else if (strcmp(val, "2") == 0)
                o->kernel = IZB_KERNEL2;
            else
                return fail(err, err_size, "--kernel '%s': expected 1 or 2", val);
        } else if (strcmp(name, "--binning") == 0) {
            if (strcmp(val, "radix") == 0)
                o->binning = IZB_BINNING_RADIX;
            else if (strcmp(val, "atomic") == 0)
                o->binning = IZB_BINNING_ATOMIC;
            else
                return fail(err, err_size, "--binning '%s': expected radix or atomic", val);
        } else if (strcmp(name, "--unit") == 0) {
            if (strcmp(val, "auto") == 0)
                o->unit_size = 0;
            else if (parse_int(val, 32, 256, &v) && (v == 32 || v == 64 || v == 128 || v == 256))
                o->unit_size = (int)v;
            else
                return fail(err, err_size, "--unit '%s': expected 32, 64, 128, 256 or auto", val);
        } else if (strcmp(name, "--grid") == 0) {
            if (!parse_size2(val, IZB_GRID_MAX_DIM, &o->grid_w, &o->grid_h))
                return fail(err, err_size, "--grid '%s': expected WxH with each side from 1 to %d cells", val,
                            IZB_GRID_MAX_DIM);
        } else if (strcmp(name, "--bias") == 0) {
            if (!parse_float(val, &f) || !(f > 0.0f && f < 0.1f))
                return fail(err, err_size, "--bias '%s': expected a number between 0 and 0.1", val);
            o->bias = f;
        } else if (strcmp(name, "--threads") == 0) {
            if (!parse_int(val, 1, 1024, &v))
                return fail(err, err_size, "--threads '%s': expected a thread count from 1 to 1024", val);
            o->threads = (int)v;
        } else if (strcmp(name, "--light") == 0) {
            if (strcmp(val, "directional") == 0)
                o->light = LIGHT_DIRECTIONAL;
            else if (strcmp(val, "spot") == 0)
                o->light = LIGHT_SPOT;
            else
                return fail(err, err_size, "--light '%s': expected directional or spot", val);
        } else if (strcmp(name, "--light-dir") == 0) {
            if (!parse_vec3(val, o->light_dir) || !light_dir_usable(o->light_dir))
                return fail(err, err_size, "--light-dir '%s': expected x,y,z, not all zero", val);
            o->has_light_dir = true;
        } else if (strcmp(name, "--light-pos") == 0 || strcmp(name, "--cam-pos") == 0) {
            bool cam = name[2] == 'c';
            if (!parse_vec3(val, cam ? o->cam_pos : o->light_pos))
                return fail(err, err_size, "%s '%s': expected x,y,z", name, val);
            *(cam ? &o->has_cam_pos : &o->has_light_pos) = true;
        } else if (strcmp(name, "--cone") == 0) {
            if (!parse_float(val, &f) || !(f >= 1.0f && f <= 170.0f))
                return fail(err, err_size, "--cone '%s': expected degrees from 1 to 170", val);
            o->cone_deg = f;
        } else if (strcmp(name, "--cam-yaw") == 0) {
            if (!parse_float(val, &f) || fabsf(f) > 3600.0f)
                return fail(err, err_size, "--cam-yaw '%s': expected degrees", val);
            o->cam_yaw = f;
            o->has_cam_yaw = true;
        } else if (strcmp(name, "--cam-pitch") == 0) {
            if (!parse_float(val, &f) || fabsf(f) > 89.0f)
                return fail(err, err_size, "--cam-pitch '%s': expected degrees from -89 to 89", val);
            o->cam_pitch = f;
            o->has_cam_pitch = true;
        } else if (strcmp(name, "--vsync") == 0) {
            if (strcmp(val, "on") == 0)
                o->vsync = true;
            else if (strcmp(val, "off") == 0)
                o->vsync = false;
            else
                return fail(err, err_size, "--vsync '%s': expected on or off", val);
        } else if (strcmp(name, "--view") == 0) {
            int k = 0;
            while (k < RENDER_VIEW_COUNT && strcmp(val, render_view_names[k]) != 0)
                k++;
            if (k == RENDER_VIEW_COUNT)
                return fail(err, err_size, "--view '%s': expected shaded, overlay, mask, depth, points or cells", val);
            o->view = (render_view)k;
        } else if (strcmp(name, "--path") == 0) {
            if (!*val || access(val, R_OK) != 0)
                return fail(err, err_size, "--path '%s': %s", val, *val ? strerror(errno) : "empty name");
            o->path = val;
        } else if (strcmp(name, "--path-fps") == 0) {
            if (!parse_float(val, &f) || !(f >= 1.0f && f <= 1000.0f))
                return fail(err, err_size, "--path-fps '%s': expected frames per second from 1 to 1000", val);
            o->path_fps = f;
        } else if (strcmp(name, "--shadows") == 0) {
            int k = 0;
            while (k < SHADOW_MODE_COUNT && strcmp(val, shadow_mode_names[k]) != 0)
                k++;
            if (k == SHADOW_MODE_COUNT)
                return fail(err, err_size, "--shadows '%s': expected izb, map, diff or none", val);
            o->shadows = (shadow_mode)k;
        } else if (strcmp(name, "--sm-size") == 0) {
            if (!parse_int(val, SHADOW_MAP_MIN_SIZE, SHADOW_MAP_MAX_SIZE, &v) || (v & (v - 1)) != 0)
                return fail(err, err_size, "--sm-size '%s': expected a power of two from %d to %d", val,
                            SHADOW_MAP_MIN_SIZE, SHADOW_MAP_MAX_SIZE);
            o->sm_size = (int)v;
        } else if (strcmp(name, "--shader-dir") == 0) {
            struct stat st;
            if (stat(val, &st) != 0 || !S_ISDIR(st.st_mode))
                return fail(err, err_size, "--shader-dir '%s': no such directory", val);
            o->shader_dir = val;
        }
    }

    /* before anything is allocated: a size the machine cannot hold would fail deep in the GL or
     * get the process killed */
    unsigned long long need = (unsigned long long)o->width * (unsigned long long)o->height * OPTIONS_BYTES_PER_PIXEL,
                       budget = options_memory_budget();
    if (need > budget)
        return fail(err, err_size,
                    "--width %d --height %d: needs about %.1f GB (%llu bytes a pixel), more than the %.1f GB this "
                    "process may use",
                    o->width, o->height, (double)need / 1e9, OPTIONS_BYTES_PER_PIXEL, (double)budget / 1e9);
    if (!check_scene(o->scene, err, err_size)) return OPTIONS_ERROR;
    if (o->log_path && !o->force && access(o->log_path, F_OK) == 0)
        return fail(err, err_size, "--log '%s': file exists (add --force to overwrite it)", o->log_path);
    if (o->headless && o->frames == 0 && (!o->path || o->path_loop)) o->frames = 60; /* a path: to its end */
    return OPTIONS_OK;
}
