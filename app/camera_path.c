/* camera_path.c — record, save, load and replay camera/light paths (see camera_path.h). */
#include "camera_path.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_out.h"

bool camera_path_add(camera_path *p, double t, const camera *c, const light *l)
{
    if (p->count > 0 && !(t > p->poses[p->count - 1].t))
        return false;
    if (p->count == p->capacity) {
        int cap = p->capacity ? 2 * p->capacity : 64;
        path_pose *n = realloc(p->poses, (size_t)cap * sizeof *n);
        if (!n)
            return false;
        p->poses = n;
        p->capacity = cap;
    }
    p->poses[p->count++] = (path_pose){.t = t, .cam = *c, .light = *l};
    return true;
}

bool camera_path_save(const camera_path *p, const char *file, char *err, size_t err_size)
{
    file_out o; /* a temporary name renamed into place: a failed save leaves no half path file */
    if (!file_out_open(&o, file, err, err_size)) return false;
    fprintf(o.f, "izb-path 1\n# t cam_x cam_y cam_z yaw pitch light_type dir_x dir_y dir_z pos_x pos_y pos_z\n");
    for (int i = 0; i < p->count; i++) {
        const path_pose *q = &p->poses[i];
        fprintf(o.f, "%.6f %.9g %.9g %.9g %.9g %.9g %d %.9g %.9g %.9g %.9g %.9g %.9g\n", q->t, q->cam.pos[0],
                q->cam.pos[1], q->cam.pos[2], q->cam.yaw, q->cam.pitch, (int)q->light.type, q->light.dir[0],
                q->light.dir[1], q->light.dir[2], q->light.pos[0], q->light.pos[1], q->light.pos[2]);
    }
    return file_out_commit(&o, err, err_size); /* checks every fprintf above through ferror */
}

bool camera_path_load(camera_path *p, const char *file, char *err, size_t err_size)
{
    memset(p, 0, sizeof *p);
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open camera path: %s", file, strerror(errno));
        return false;
    }
    char line[512];
    int lineno = 0, version = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        char *s = line + strspn(line, " \t");
        if (*s == '#' || *s == '\n' || *s == '\0')
            continue;
        if (!version) {
            if (sscanf(s, "izb-path %d", &version) != 1 || version != 1) {
                snprintf(err, err_size, "%s:%d: not an izb-path 1 file", file, lineno);
                ok = false;
            }
            continue;
        }
        double t;
        camera c = {0};
        light l = {0};
        int type, used = 0;
        int n = sscanf(s, "%lf %f %f %f %f %f %d %f %f %f %f %f %f %n", &t, &c.pos[0], &c.pos[1], &c.pos[2], &c.yaw,
                       &c.pitch, &type, &l.dir[0], &l.dir[1], &l.dir[2], &l.pos[0], &l.pos[1], &l.pos[2], &used);
        bool finite = isfinite(t) && isfinite(c.yaw) && isfinite(c.pitch);
        for (int i = 0; i < 3; i++)
            finite = finite && isfinite(c.pos[i]) && isfinite(l.dir[i]) && isfinite(l.pos[i]);
        if (n != 13 || s[used] != '\0' || !finite || !(type >= 0 && type < LIGHT_TYPE_COUNT)) {
            snprintf(err, err_size, "%s:%d: malformed pose (want 13 finite numbers, light type 0, 1 or 2)", file,
                     lineno);
            ok = false;
        } else if (!(fabsf(c.pitch) <= CAMERA_PITCH_MAX) || !(fabsf(c.yaw) <= CAMERA_YAW_MAX)) {
            /* the ranges of --cam-pitch and --cam-yaw: at a pitch of 90 the view is undefined */
            snprintf(err, err_size, "%s:%d: camera pitch %g, yaw %g: expected pitch -%g to %g, yaw -%g to %g degrees",
                     file, lineno, (double)c.pitch, (double)c.yaw, (double)CAMERA_PITCH_MAX,
                     (double)CAMERA_PITCH_MAX, (double)CAMERA_YAW_MAX, (double)CAMERA_YAW_MAX);
            ok = false;
        } else if (!light_dir_usable(l.dir)) { /* the rule --light-dir follows */
            snprintf(err, err_size, "%s:%d: light direction %g,%g,%g: expected x,y,z, not all zero", file, lineno,
                     (double)l.dir[0], (double)l.dir[1], (double)l.dir[2]);
            ok = false;
        } else {
            l.type = (light_type)type;
            if (!camera_path_add(p, t, &c, &l)) {
                snprintf(err, err_size, "%s:%d: time %.6f does not increase", file, lineno, t);
                ok = false;
            }
        }
    }
    fclose(f);
    if (ok && p->count == 0) {
        snprintf(err, err_size, "%s: camera path has no poses", file);
        ok = false;
    }
    if (!ok)
        camera_path_free(p);
    return ok;
}

double camera_path_duration(const camera_path *p)
{
    return p->count >= 2 ? p->poses[p->count - 1].t - p->poses[0].t : 0.0;
}

static float lerpf(float a, float b, float u) { return a + (b - a) * u; }

/* yaw interpolation along the shorter arc */
static float lerp_angle(float a, float b, float u)
{
    float d = fmodf(b - a, 360.0f);
    if (d > 180.0f)
        d -= 360.0f;
    if (d < -180.0f)
        d += 360.0f;
    return a + d * u;
}

void camera_path_sample(const camera_path *p, double t, bool loop, camera *c, light *l)
{
    const path_pose *first = &p->poses[0], *last = &p->poses[p->count - 1];
    double dur = camera_path_duration(p);
    double local = t;
    if (isnan(t))
        t = 0.0;
    if (loop && dur > 0.0 && !isfinite(t)) {
        local = first->t; /* an infinite time has no phase in the loop (fmod would give NaN) */
    } else if (loop && dur > 0.0) {
        local = fmod(t, dur);
        if (local < 0.0)
            local += dur;
        local += first->t;
    } else {
        local = t + first->t;
    }
    if (p->count == 1 || local <= first->t) {
        *c = first->cam;
        *l = first->light;
        return;
    }
    if (local >= last->t) {
        *c = last->cam;
        *l = last->light;
        return;
    }
    int lo = 0, hi = p->count - 1; /* binary search: poses[lo].t <= local < poses[hi].t */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (p->poses[mid].t <= local)
            lo = mid;
        else
            hi = mid;
    }
    const path_pose *a = &p->poses[lo], *b = &p->poses[hi];
    float u = (float)((local - a->t) / (b->t - a->t));
    *c = a->cam;
    for (int i = 0; i < 3; i++)
        c->pos[i] = lerpf(a->cam.pos[i], b->cam.pos[i], u);
    c->yaw = lerp_angle(a->cam.yaw, b->cam.yaw, u);
    c->pitch = lerpf(a->cam.pitch, b->cam.pitch, u);
    *l = u < 0.5f ? a->light : b->light; /* the light type (and cone) switches halfway */
    for (int i = 0; i < 3; i++) {
        l->dir[i] = lerpf(a->light.dir[i], b->light.dir[i], u);
        l->pos[i] = lerpf(a->light.pos[i], b->light.pos[i], u);
    }
}

void camera_path_free(camera_path *p)
{
    free(p->poses);
    memset(p, 0, sizeof *p);
}
