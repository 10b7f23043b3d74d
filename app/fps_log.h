/* fps_log.h — the per-frame CSV log (--log FILE): a header naming every column with its unit,
 * then one row per frame, flushed as it is written so the file is complete after Ctrl-C. */
#ifndef FPS_LOG_H
#define FPS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "izb.h"
#include "render.h"
#include "view.h"

/* Everything one row holds. */
typedef struct fps_log_row {
    long frame;
    double wall_s;   /* since the first frame started */
    double frame_ms; /* wall time from the end of the previous frame to the end of this one */
    render_timings gl;
    izb_stats izb;
    const char *backend;
    int unit_setting; /* requested unit size, 0 = auto */
    int width, height;
    const camera *cam;
    const light *light;
    render_view view; /* what was shown */
    izb_cull cull;    /* back-face culling mode (0: auto) */
    const char *shadow_mode; /* shadow_mode_names[]: izb, map, diff, none (NULL: izb) */
    int sm_size;             /* shadow map texels a side */
} fps_log_row;

typedef struct fps_log {
    FILE *f;
    long rows;
} fps_log;

/* Create `path` and write the header. Refuses an existing file unless `force`. False with a
 * one-line reason naming the file. */
bool fps_log_open(fps_log *l, const char *path, bool force, char *err, size_t err_size);
/* Append one row and flush. No-op when the log is not open. The fields of a pass that did not
 * run this frame are empty: the IZB's times and outputs (points, triangles after culling, grid,
 * transfer) in modes map and none, sm_ms in modes izb and none. */
void fps_log_write(fps_log *l, const fps_log_row *row);
void fps_log_close(fps_log *l);

#endif
