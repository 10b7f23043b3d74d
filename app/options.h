/* options.h — the command line: `izb-shadows [scene-file] [options]`. parse_options() only reads
 * and checks (numbers, ranges, names, files that must or must not exist); it opens nothing. */
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
    float bias; /* 0 = IZB_DEFAULT_BIAS */
    light_type light;
    bool has_light_dir, has_light_pos, has_cam_pos, has_cam_yaw, has_cam_pitch;
    float light_dir[3], light_pos[3], cone_deg;
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
} app_options;

typedef enum options_result {
    OPTIONS_OK = 0,
    OPTIONS_HELP,  /* --help: print options_usage(stdout), exit 0 */
    OPTIONS_ERROR, /* err holds one line naming the option and the reason: exit 2 */
} options_result;

/* Host memory a frame of one pixel costs (bytes), measured as peak RSS of headless CPU-backend
 * runs of the default scene (`/usr/bin/time -f %M izb-shadows --headless --width S --height S
 * --frames 2 --backend cpu`): 387,320 KB at 2048^2, 1,188,008 KB at 4096^2 and 4,364,428 KB at
 * 8192^2, i.e. 65 bytes per extra pixel (targets with the primitive-id target, read-back buffers,
 * the backend's points in pixel order, binned as four arrays and staged for the binning, llvmpipe's
 * copies; it was 40.5 before the ids and the structure-of-arrays points). --width x --height
 * needing more than options_memory_budget() is refused. */
#define OPTIONS_BYTES_PER_PIXEL 65ull
/* Memory this process may use: the machine's RAM, lowered by RLIMIT_AS / RLIMIT_DATA when set. */
unsigned long long options_memory_budget(void);

/* Parse argv[1..argc-1] into *o (filled with the defaults first). Strings in *o point into argv. */
options_result parse_options(int argc, char **argv, app_options *o, char *err, size_t err_size);

/* The synopsis line (what follows an error message) and the full option list (--help). */
void options_synopsis(FILE *f);
void options_usage(FILE *f);

#endif
