/* fps_log.c — CSV frame log. */
#include "fps_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <unistd.h>

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
          "shadow_mode,sm_size_px,sm_ms\n",
          l->f);
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
    char b[8][32];
    fprintf(l->f, "%ld,%.6f,%.4f,%.4f", r->frame, r->wall_s, r->frame_ms, (double)r->gl.depth_ms);
    for (int s = 0; s < IZB_STAGE_COUNT; s++)
        fprintf(l->f, ",%s", num(b[0], izb_ran, "%.4f", (double)z->stage_ms[s]));
    /* unit: what the backend resolved (CUDA), else the setting ("auto" = 0) */
    int unit = z->unit_size > 0 ? z->unit_size : r->unit_setting;
    char unit_s[16] = "auto";
    if (unit > 0) snprintf(unit_s, sizeof unit_s, "%d", unit);
    fprintf(l->f, ",%s,%s,%.4f,%d,%s,%s,%s,%s,%s,%s,%s,%s,%d,%d", num(b[0], izb_ran, "%.4f", (double)z->total_ms),
            num(b[1], izb_ran, "%.4f", (double)r->gl.transfer_ms), (double)r->gl.shade_ms, z->tris_in,
            num(b[2], izb_ran, "%.0f", z->tris_after_cull), num(b[3], izb_ran, "%.0f", z->points), r->backend,
            izb_kernel_name(z->kernel), izb_binning_name(z->binning), unit_s,
            num(b[4], izb_ran, "%.0f", z->grid_w), num(b[5], izb_ran, "%.0f", z->grid_h), r->width, r->height);
    const camera *c = r->cam;
    const light *li = r->light;
    float fwd[3];
    camera_forward(c, fwd);
    fprintf(l->f, ",%.5f,%.5f,%.5f,%.3f,%.3f,%.5f,%.5f,%.5f,%s,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.2f,%s,%s,%s,%d,%s\n",
            (double)c->pos[0], (double)c->pos[1], (double)c->pos[2], (double)c->yaw, (double)c->pitch,
            (double)fwd[0], (double)fwd[1], (double)fwd[2],
            (unsigned)li->type < LIGHT_TYPE_COUNT ? light_type_names[li->type] : "?", (double)li->dir[0], (double)li->dir[1],
            (double)li->dir[2], (double)li->pos[0], (double)li->pos[1], (double)li->pos[2],
            (double)(li->cone_deg > 0.0f ? li->cone_deg : 60.0f),
            (unsigned)r->view < RENDER_VIEW_COUNT ? render_view_names[r->view] : "?",
            izb_cull_name(r->cull),
            mode, r->sm_size, num(b[6], map_ran, "%.4f", (double)r->gl.shadow_map_ms));
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
