/* fuzz_options.c — libFuzzer target: the command line. The input, split at NUL bytes, is argv[1..]
 * (at most 32 arguments). parse_options must return one of its three results; an error is one
 * line; an accepted command line holds only values inside the ranges --help documents. */
#include <math.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { MAX_ARGS = 32 };
    char *buf = malloc(size + 1); /* its own copy: libFuzzer's buffer is read-only */
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 2] = {"izb-shadows"};
    int argc = 1;
    for (size_t i = 0; i <= size && argc <= MAX_ARGS;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    if (size == 0) argc = 1;

    app_options o;
    char err[1024] = "";
    options_result r = parse_options(argc, argv, &o, err, sizeof err);
    FUZZ_ASSERT(r == OPTIONS_OK || r == OPTIONS_HELP || r == OPTIONS_ERROR, "result %d", (int)r);
    if (r == OPTIONS_ERROR) FUZZ_ASSERT(fuzz_one_line(err), "error message '%s'", err);
    if (r == OPTIONS_OK) {
        FUZZ_ASSERT(o.width >= 1 && o.height >= 1, "size %dx%d", o.width, o.height);
        FUZZ_ASSERT(o.frames >= 0, "frames %ld", o.frames);
        FUZZ_ASSERT(o.bias == 0.0f || (o.bias > 0.0f && o.bias < 0.1f), "bias %g", (double)o.bias);
        FUZZ_ASSERT(o.unit_size == 0 || o.unit_size == 32 || o.unit_size == 64 || o.unit_size == 128 ||
                        o.unit_size == 256,
                    "unit %d", o.unit_size);
        FUZZ_ASSERT(o.grid_w >= 0 && o.grid_w <= IZB_GRID_MAX_DIM && o.grid_h >= 0 &&
                        o.grid_h <= IZB_GRID_MAX_DIM,
                    "grid %dx%d", o.grid_w, o.grid_h);
        FUZZ_ASSERT(o.threads >= 0 && o.threads <= 1024, "threads %d", o.threads);
        FUZZ_ASSERT((unsigned)o.view < RENDER_VIEW_COUNT && (unsigned)o.shadows < SHADOW_MODE_COUNT, "enums");
        FUZZ_ASSERT(o.sm_size == 0 || (o.sm_size >= SHADOW_MAP_MIN_SIZE && o.sm_size <= SHADOW_MAP_MAX_SIZE &&
                                       (o.sm_size & (o.sm_size - 1)) == 0),
                    "sm size %d", o.sm_size);
        FUZZ_ASSERT(o.path_fps == 0.0 || (o.path_fps > 0.0 && isfinite(o.path_fps)), "path fps %g",
                    o.path_fps);
        for (int k = 0; k < 3; k++) {
            FUZZ_ASSERT(!o.has_light_dir || isfinite(o.light_dir[k]), "light dir");
            FUZZ_ASSERT(!o.has_light_pos || isfinite(o.light_pos[k]), "light pos");
            FUZZ_ASSERT(!o.has_cam_pos || isfinite(o.cam_pos[k]), "camera pos");
        }
        FUZZ_ASSERT(!o.has_cam_yaw || isfinite(o.cam_yaw), "yaw");
        FUZZ_ASSERT(!o.has_cam_pitch || isfinite(o.cam_pitch), "pitch");
        FUZZ_ASSERT(o.scene && *o.scene, "scene");
    }
    free(buf);
    return 0;
}
