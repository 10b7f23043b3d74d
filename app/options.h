/* options.h — the command line: `izb-shadows [scene-file] [options]`. parse_options() only reads
 * and checks (numbers, ranges, names, files that must or must not exist); it opens nothing. One
 * table, options_table, holds every option: the parser, --help, the options tests and the fuzz
 * target all read it, so an option added there is parsed, documented and tested at once. */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "izb.h"
#include "scene.h"
#include "render.h"
#include "shadow_map.h"
#include "view.h"

/* Defaults: scene builtin:default, 1280x720, windowed until closed (headless: 60 frames), backend
 * auto, kernel1, radix binning, unit auto, adaptive grid, culling auto, ground auto, the scene's camera and
 * directional light, 60 degree spot cone, vsync off, embedded shaders, all cores. */
typedef struct app_options {
    const char *scene;
    int width, height;
    bool headless;
    long frames; /* 0: until the window closes */
    const char *screenshot;
    const char *log_path;
    bool force; /* --log and --screenshot may overwrite an existing file */
    izb_backend_kind backend;
    izb_kernel kernel;
    izb_binning binning;
    int unit_size; /* 0 = auto */
    int grid_w, grid_h;
    izb_cull cull;  /* --cull auto|on|off (--no-cull: off); 0 = auto */
    scene_ground ground; /* --ground auto|on|off: a shadow catcher under loaded models */
    scene_up up;         /* --up: the model file's axis that is up (default y) */
    float bias; /* 0 = IZB_DEFAULT_BIAS */
    light_type light;
    bool has_light_dir, has_light_pos, has_cam_pos, has_cam_yaw, has_cam_pitch;
    float light_dir[3], light_pos[3], cone_deg;
    float light_angle; /* --light-angle: directional light's angular size, degrees (0 = hard) */
    int light_samples; /* --light-samples: M of a soft shadow; 0 = IZB_SOFT_DEFAULT_SAMPLES */
    float light_intensity; /* --light-intensity: 0 .. LIGHT_MAX_INTENSITY (1 where not given) */
    bool has_light_intensity;
    /* --light-size W[,H]: a spot light's emitter in world units (an area light, izb_area.h; 0: a point,
     * hard shadows; other lights ignore it); --light-shape: IZB_AREA_RECT or IZB_AREA_DISK; --light
     * area: a spot whose size, where --light-size gives none, is the scene's (make_light, app/main.c) */
    float light_size[2];
    bool has_light_size, light_area;
    int light_shape;
    /* The fields above from --light to light_shape describe the LATEST light. A second --light
     * starts a new one: the latest is kept in earlier[] and those fields start again from their
     * defaults (options_lights lists them all, the first light first). */
    bool light_given;
    int earlier_count;
    struct options_light {
        light_type light;
        bool has_light_dir, has_light_pos, has_light_intensity;
        float light_dir[3], light_pos[3], cone_deg, light_angle, light_intensity;
        int light_samples;
        float light_size[2];
        bool has_light_size, light_area;
        int light_shape;
    } earlier[IZB_MAX_LIGHTS - 1];
    int shadow_samples; /* --shadow-samples: N sub-samples per pixel (izb_aa.h); 0 = 1, hard edges */
    float cam_pos[3], cam_yaw, cam_pitch;
    bool vsync;
    render_view view;
    const char *shader_dir;
    int threads; /* 0 = all cores */
    const char *path; /* --path: replay this camera path (headless: until it ends unless --frames) */
    bool path_loop;   /* --path-loop */
    double path_fps;  /* --path-fps: headless replay step 1/fps (default 60) */
    bool hud;         /* --hud: HUD on from the start (windows start with it on) */
    shadow_mode shadows; /* --shadows izb|map|diff|none (default izb) */
    int sm_size;         /* --sm-size: shadow map texels a side; 0 = 2048 */
    bool sm_pcf;         /* --sm-pcf: 3x3 PCF on the shadow map */
    long switch_every;   /* --switch-every N: the next scripted switch every N frames (0: none) */
    bool animate;        /* --animate: a turntable for scenes that do not move by themselves */
    bool alpha_test_off; /* --alpha-test on|off: cut-outs cut (default on; X toggles it) */
} app_options;

typedef enum options_result {
    OPTIONS_OK = 0,
    OPTIONS_HELP,  /* --help: print options_usage(stdout), exit 0 */
    OPTIONS_ERROR, /* err holds one line naming the option and the reason: exit 2 */
} options_result;

/* What an option's value is, and so how it is parsed, checked and stored. */
typedef enum option_kind {
    OPTION_FLAG,   /* no value: stores .value (0: true) into dest */
    OPTION_HELP,   /* no value: parse_options returns OPTIONS_HELP */
    OPTION_INT,    /* a whole-string integer in [min, max]; .pow2: powers of two only; .auto_zero: "auto" is 0 */
    OPTION_FLOAT,  /* a finite float in [min, max], or in (min, max) where .open */
    OPTION_VEC3,   /* "x,y,z": three finite floats in [min, max], then .check */
    OPTION_SIZE2,  /* "WxH": two integers in [min, max], into dest and dest2 */
    OPTION_FLOAT2, /* "W[,H]": one or two finite floats in [min, max] into float[2] at dest (H = W when one) */
    OPTION_ENUM,   /* one of names[0 .. count-1] (NULL entries are no name): stores its index */
    OPTION_SCENE,  /* the scene, also the one positional argument: builtin:NAME[:N] or a readable file */
    OPTION_OUTPUT, /* a file the run writes: its folder must exist; an existing file needs --force */
    OPTION_INPUT,  /* a file the run reads */
    OPTION_DIR,    /* an existing folder */
} option_kind;

/* One row of options_table. The value goes to the field at byte offset dest of app_options,
 * whose size dest_size tells its type (bool, int or an enum, long; float, double; float[3];
 * const char *). Zero fields are "none" (sokol style), hence has is an offset plus one. */
typedef struct option_spec {
    const char *name;  /* "--width" */
    const char *alias; /* another spelling ("-h") or NULL */
    option_kind kind;
    const char *arg;   /* --help's placeholder for the value ("W", "FILE"); enums list their names */
    double min, max;   /* OPTION_INT, _FLOAT, _VEC3, _SIZE2, _FLOAT2: the accepted range */
    bool open;         /* OPTION_FLOAT: min and max themselves are refused */
    bool pow2;         /* OPTION_INT: powers of two only */
    bool auto_zero;    /* OPTION_INT: "auto" is accepted and stored as 0 */
    const char *const *names; /* OPTION_ENUM: names[i] is value i (the enum's own names array) */
    int count;                /* OPTION_ENUM: entries in names */
    int value;                /* OPTION_FLAG: what it stores; 0 stores true */
    size_t dest, dest_size;   /* offsetof / sizeof the app_options field */
    size_t dest2;             /* OPTION_SIZE2: offsetof the int that gets H */
    size_t has;               /* offsetof + 1 of a bool set when the option is given; 0: none */
    bool (*check)(const float v[3]); /* OPTION_VEC3: a further rule (light_dir_usable) */
    bool (*check_int)(int v);        /* OPTION_INT: a further rule (izb_aa_samples_ok); NULL: none */
    const char *what;    /* the error's "expected WHAT from MIN to MAX UNIT" */
    const char *unit;    /* see what; NULL: none */
    const char *section; /* --help: a heading printed above this row */
    const char *help;    /* --help: what it does ('\n': goes on, indented); the range is added */
    const char *deflt;   /* --help: "(default DEFLT)"; NULL: none, or deflt_num where that is set */
    double deflt_num;
} option_spec;

extern const option_spec options_table[];
extern const int options_count;

/* The number the row's option stored in *o (component: 0..2 of an OPTION_VEC3, 0..1 of an
 * OPTION_SIZE2 or OPTION_FLOAT2, else 0); an OPTION_ENUM's index, a flag's 0/1 or its value. Not for strings. */
double options_value(const app_options *o, const option_spec *s, int component);

/* Host memory a frame of one pixel costs (bytes), measured as peak RSS of headless CPU-backend
 * runs of the default scene (`/usr/bin/time -f %M izb-shadows --headless --width S --height S
 * --frames 2 --backend cpu`): 387,320 KB at 2048^2, 1,188,008 KB at 4096^2 and 4,364,428 KB at
 * 8192^2, i.e. 65 bytes per extra pixel (targets with the primitive-id target, read-back buffers,
 * the backend's points in pixel order, binned as four arrays and staged for the binning, llvmpipe's
 * copies; it was 40.5 before the ids and the structure-of-arrays points). --width x --height
 * needing more than options_memory_budget() is refused (a machine that had 23 GB, 16384^2 took
 * 17 GB of it and drew nothing in 120 s: the RAM alone is not the bound, what is free is). */
#define OPTIONS_BYTES_PER_PIXEL 65ull
/* Memory a frame may take and what sets it: the least of the machine's RAM, what it has free now
 * (MemAvailable in `meminfo`, the text of /proc/meminfo; NULL: read that file) and RLIMIT_AS /
 * RLIMIT_DATA when set. `what` names the bound for the refusal ("free on this machine
 * (MemAvailable in /proc/meminfo)", ...). */
typedef struct options_memory {
    unsigned long long bytes;
    const char *what;
} options_memory;
options_memory options_memory_budget(const char *meminfo);
/* MemAvailable from the text of /proc/meminfo, in bytes; 0 when the text has none. */
unsigned long long options_mem_available(const char *meminfo);
/* --width x --height against options_memory_budget(meminfo): false with one line naming the sizes,
 * the need and the bound that refuses it. */
bool options_check_memory(int width, int height, const char *meminfo, char *err, size_t err_size);

/* One light as the command line gave it (app_options' latest-light fields). */
typedef struct options_light options_light;

/* Every light of the command line into out[IZB_MAX_LIGHTS], the first --light first; the count
 * (1 .. IZB_MAX_LIGHTS). */
int options_lights(const app_options *o, options_light out[IZB_MAX_LIGHTS]);

/* Parse argv[1..argc-1] into *o (filled with the defaults first). Strings in *o point into argv. */
options_result parse_options(int argc, char **argv, app_options *o, char *err, size_t err_size);

/* The synopsis line (what follows an error message) and the full option list (--help). */
void options_synopsis(FILE *f);
void options_usage(FILE *f);

#endif
