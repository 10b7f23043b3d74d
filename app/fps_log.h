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
    const light *light;       /* light 0: the light columns */
    const light_set *lights;  /* NULL: one light (light); its count is the lights column */
    const izb_stats *light_stats; /* [IZB_MAX_LIGHTS] each light's IZB pass (light<i>_izb_ms); NULL: the IZB did not run */
    render_view view; /* what was shown */
    izb_cull cull;    /* back-face culling mode (0: auto) */
    const char *shadow_mode; /* shadow_mode_names[]: izb, map, diff, none (NULL: izb) */
    int sm_size;             /* shadow map texels a side */
    int scene_tris;          /* the scene's triangles as drawn (tris_in: known in every mode); 0: the IZB's */
    const izb_settings *settings; /* the settings now (kernel, binning, unit of a row without the IZB);
                                   * NULL: the IZB's stats */
    int shadow_samples; /* sub-samples per pixel asked for (--shadow-samples, key I); 0 = 1 */
} fps_log_row;

typedef struct fps_log {
    FILE *f;
    long rows;        /* rows written whole */
    bool failed;      /* a row could not be written: said on stderr, no more rows */
    long bytes;       /* file size after the last whole row: a failed row is cut back to it */
    char path[512];
} fps_log;

/* Create `path` and write the header. Refuses an existing file unless `force`. False with a
 * one-line reason naming the file. Written in place (not through file_out): every row is on disk
 * as soon as the frame ends, so Ctrl-C or a crash loses nothing already logged. */
bool fps_log_open(fps_log *l, const char *path, bool force, char *err, size_t err_size);
/* The last columns (after sm_ms; a one-light log has them too): lights, the frame's light count, and
 * light1_izb_ms .. light8_izb_ms, each light's IZB time (empty where the light is not there, its
 * intensity is 0 so its pass was skipped, or the IZB did not run). izb_total_ms is their sum. Then
 * what the samples cost is read against: shadow_samples (N sub-samples per pixel, 1 = hard edges),
 * light_angle_deg (light 0's angular size, 0 = hard) and light_samples (its M, empty when hard). */
/* Append one row and flush it whole (one write: a row never straddles two flushes). No-op when the
 * log is not open or has failed. The first row that cannot be written is said at once on stderr,
 * naming the file, the frame and the reason; what reached the file of that row is cut off (the file
 * ends with the last whole row) and the log stops (a gap would be silent). The fields of a pass
 * that did not run this frame are empty: the IZB's times and outputs (points, triangles after
 * culling, grid, transfer) in modes map and none, sm_ms and sm_size_px in modes izb and none; so
 * is a GL pass time not yet measured (frame 0: the timer's first result is not reported). tris_in,
 * kernel, binning and unit_size are the scene's and the settings' in every mode. */
void fps_log_write(fps_log *l, const fps_log_row *row);
/* Close. False (said on stderr) when a row or the close failed: the caller's run must end with
 * exit 1, the file being incomplete. */
bool fps_log_close(fps_log *l);

#endif
