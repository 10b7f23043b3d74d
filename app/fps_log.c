/* fps_log.c — CSV frame log. */
#include "fps_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <unistd.h>

#include "izb_soft.h"
#include "shadow_map.h"

bool fps_log_open(fps_log *l, const char *path, bool force, char *err, size_t err_size)
{
    *l = (fps_log){0};
    /* "x": fail if the file exists, atomically (C11) */
    l->f = fopen(path, force ? "w" : "wx");
    if (!l->f) {
        if (errno == EEXIST)
            snprintf(err, err_size, "--log '%s': file exists (add --force to overwrite it)", path);
        else
            snprintf(err, err_size, "--log '%s': cannot create: %s", path, strerror(errno));
        return false;
    }
    snprintf(l->path, sizeof l->path, "%s", path);
    /* a buffer larger than any row, flushed after each: every row reaches the file in one write */
    setvbuf(l->f, NULL, _IOFBF, 16384);
    fputs("frame,wall_s,frame_ms,depth_pass_ms", l->f);
    for (int s = 0; s < IZB_STAGE_COUNT; s++)
        fprintf(l->f, ",%s_ms", izb_stage_names[s]);
    fputs(",izb_total_ms,transfer_ms,shading_ms,tris_in,tris_after_cull,points,backend,kernel,binning,"
          "unit_size,grid_w,grid_h,width_px,height_px,cam_x,cam_y,cam_z,cam_yaw_deg,cam_pitch_deg,cam_dir_x,"
          "cam_dir_y,cam_dir_z,light_type,"
          "light_dir_x,light_dir_y,light_dir_z,light_pos_x,light_pos_y,light_pos_z,cone_deg,view,culling,"
          "shadow_mode,sm_size_px,sm_ms,lights",
          l->f);
    for (int i = 1; i <= IZB_MAX_LIGHTS; i++) fprintf(l->f, ",light%d_izb_ms", i);
    fputs(",shadow_samples,light_angle_deg,light_samples\n", l->f);
    errno = 0;
    if (fflush(l->f) != 0 || ferror(l->f)) {
        snprintf(err, err_size, "--log '%s': cannot write: %s", path, errno ? strerror(errno) : "write error");
        fclose(l->f);
        *l = (fps_log){0};
        return false;
    }
    l->bytes = ftell(l->f);
    return true;
}

/* A pass that did not run this frame leaves its fields empty (its stats and timer still hold
 * an earlier frame's numbers, which must not read as this frame's). */
static const char *num(char buf[32], bool ran, const char *fmt, double v)
{
    buf[0] = '\0';
    if (ran) snprintf(buf, 32, fmt, v);
    return buf;
}

void fps_log_write(fps_log *l, const fps_log_row *r)
{
    if (!l->f || l->failed) return;
    const izb_stats *z = &r->izb;
    /* which passes ran: the IZB in modes izb and diff, the shadow map in map and diff */
    const char *const *names = shadow_mode_names;
    const char *mode = r->shadow_mode ? r->shadow_mode : names[SHADOW_MODE_IZB];
    bool diff = strcmp(mode, names[SHADOW_MODE_DIFF]) == 0;
    bool izb_ran = diff || strcmp(mode, names[SHADOW_MODE_IZB]) == 0;
    bool map_ran = diff || strcmp(mode, names[SHADOW_MODE_MAP]) == 0;
    /* GL pass times: empty until the timer has a result (frame 0's is never reported) */
    bool depth_timed = r->gl.depth_frame >= 0, shade_timed = r->gl.shade_frame >= 0;
    bool sm_timed = map_ran && r->gl.shadow_map_frame >= 0;
    char b[12][32];
    fprintf(l->f, "%ld,%.6f,%.4f,%s", r->frame, r->wall_s, r->frame_ms,
            num(b[0], depth_timed, "%.4f", (double)r->gl.depth_ms));
    for (int s = 0; s < IZB_STAGE_COUNT; s++)
        fprintf(l->f, ",%s", num(b[0], izb_ran, "%.4f", (double)z->stage_ms[s]));
    /* kernel, binning, unit: the IZB's own where it ran (unit: what the backend resolved, CUDA),
     * else the settings now; "auto" = 0 */
    izb_settings set =
        r->settings
            ? izb_settings_resolve(*r->settings)
            : (izb_settings){.kernel = z->kernel, .binning = z->binning, .unit_size = r->unit_setting};
    izb_kernel kernel = izb_ran || !r->settings ? z->kernel : set.kernel;
    izb_binning binning = izb_ran || !r->settings ? z->binning : set.binning;
    int unit = izb_ran && z->unit_size > 0 ? z->unit_size : r->settings ? set.unit_size : r->unit_setting;
    char unit_s[16] = "auto";
    if (unit > 0) snprintf(unit_s, sizeof unit_s, "%d", unit);
    /* the scene's triangles: known in every mode */
    int tris_in = r->scene_tris > 0 ? r->scene_tris : z->tris_in;
    fprintf(l->f, ",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%d",
            num(b[1], izb_ran, "%.4f", (double)z->total_ms),
            num(b[2], izb_ran, "%.4f", (double)r->gl.transfer_ms),
            num(b[3], shade_timed, "%.4f", (double)r->gl.shade_ms),
            num(b[4], r->scene_tris > 0 || izb_ran, "%.0f", tris_in),
            num(b[5], izb_ran, "%.0f", z->tris_after_cull), num(b[6], izb_ran, "%.0f", z->points), r->backend,
            izb_kernel_name(kernel), izb_binning_name(binning), unit_s, num(b[7], izb_ran, "%.0f", z->grid_w),
            num(b[8], izb_ran, "%.0f", z->grid_h), r->width, r->height);
    const camera *c = r->cam;
    const light *li = r->light;
    float fwd[3];
    camera_forward(c, fwd);
    fprintf(l->f,
            ",%.5f,%.5f,%.5f,%.3f,%.3f,%.5f,%.5f,%.5f,%s,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.2f,%s,%s,%s,%s,%s",
            (double)c->pos[0], (double)c->pos[1], (double)c->pos[2], (double)c->yaw, (double)c->pitch,
            (double)fwd[0], (double)fwd[1], (double)fwd[2],
            light_kind_name(li), (double)li->dir[0],
            (double)li->dir[1], (double)li->dir[2], (double)li->pos[0], (double)li->pos[1],
            (double)li->pos[2], (double)(li->cone_deg > 0.0f ? li->cone_deg : 60.0f),
            (unsigned)r->view < RENDER_VIEW_COUNT ? render_view_names[r->view] : "?", izb_cull_name(r->cull),
            mode, num(b[9], map_ran, "%.0f", r->sm_size),
            num(b[10], sm_timed, "%.4f", (double)r->gl.shadow_map_ms));
    /* each light's IZB time: blank where that light had no pass this frame */
    const int count = r->lights ? r->lights->count : 1;
    fprintf(l->f, ",%d", count);
    for (int i = 0; i < IZB_MAX_LIGHTS; i++) {
        const bool ran = izb_ran && r->light_stats && i < count && (!r->lights || r->lights->intensity[i] > 0.0f);
        fprintf(l->f, ",%s", num(b[11], ran, "%.4f", ran ? (double)r->light_stats[i].total_ms : 0.0));
    }
    const bool soft = li->angle_deg > 0.0f;
    fprintf(l->f, ",%d,%.3f,%s\n", r->shadow_samples > 1 ? r->shadow_samples : 1, soft ? (double)li->angle_deg : 0.0,
            num(b[11], soft, "%.0f", li->samples > 0 ? li->samples : IZB_SOFT_DEFAULT_SAMPLES));
    errno = 0;
    if (fflush(l->f) != 0 || ferror(l->f)) {
        fprintf(stderr, "izb-shadows: log '%s': cannot write frame %ld: %s; logging stopped after %ld rows\n",
                l->path, r->frame, errno ? strerror(errno) : "write error", l->rows);
        l->failed = true;
        /* a disk that filled mid-row leaves part of it: cut back to the last whole row, so every
         * row in the file is one the program wrote (best effort: the file may not allow it) */
        __fpurge(l->f); /* drop the rest of the row still buffered: the close must not write it */
        if (l->bytes > 0 && ftruncate(fileno(l->f), l->bytes) != 0) l->bytes = -1;
        return;
    }
    l->bytes = ftell(l->f);
    l->rows++;
}

bool fps_log_close(fps_log *l)
{
    bool ok = !l->failed;
    if (l->f) {
        errno = 0;
        if (fclose(l->f) != 0 && ok) {
            fprintf(stderr, "izb-shadows: log '%s': cannot close: %s\n", l->path, strerror(errno));
            ok = false;
        }
    }
    *l = (fps_log){0};
    return ok;
}
