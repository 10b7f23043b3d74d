/* camera_path.c — record, save, load and replay camera/light paths (see camera_path.h). */
#include "camera_path.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_out.h"
#include "izb_area.h"
#include "izb_soft.h"

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

/* Field f of pose q as the text the loader reads back to the same value: t to the microsecond,
 * a float to its 9 significant digits (exact), an integer whole. */
static void write_field(FILE *f, const path_pose *q, const path_field *fd)
{
    const double v = camera_path_field_value(q, fd);
    switch (fd->kind) {
    case PATH_FIELD_TIME:
        fprintf(f, "%.6f", v);
        return;
    case PATH_FIELD_FLOAT:
        fprintf(f, "%.9g", v);
        return;
    case PATH_FIELD_INT:
        fprintf(f, "%d", (int)v);
        return;
    }
}

bool camera_path_save(const camera_path *p, const char *file, char *err, size_t err_size)
{
    file_out o; /* a temporary name renamed into place: a failed save leaves no half path file */
    if (!file_out_open(&o, file, err, err_size)) return false;
    fprintf(o.f, "izb-path %d\n#", CAMERA_PATH_VERSION);
    for (int k = 0; k < camera_path_field_count; k++) /* the fields' names, in the order below */
        fprintf(o.f, " %s", camera_path_fields[k].name);
    fputc('\n', o.f);
    for (int i = 0; i < p->count; i++) {
        path_pose q = p->poses[i];
        /* the light's "0 = default" values (view.h) spelled out, so the file loads: the ranges
         * are the options', which have no 0 for these */
        if (!(q.light.cone_deg > 0.0f)) q.light.cone_deg = 60.0f;
        if (q.light.samples == 0) q.light.samples = IZB_SOFT_DEFAULT_SAMPLES;
        for (int k = 0; k < camera_path_field_count; k++) {
            if (k) fputc(' ', o.f);
            write_field(o.f, &q, &camera_path_fields[k]);
        }
        fputc('\n', o.f);
    }
    return file_out_commit(&o, err, err_size); /* checks every fprintf above through ferror */
}

/* The fields of a pose line, in their order: version 1's 13, then version 2's light extent. The
 * ranges are the options' (--cam-pos, --cam-yaw, --cam-pitch, --light, --light-dir, --light-pos,
 * --cone, --light-angle, --light-samples, --light-size, --light-shape): a path replays only poses
 * the command line could set. t: seconds from the start, at most 1e9 (--frames' largest value at
 * --path-fps 1, the longest a headless replay runs). */
#define PATH_TIME_MAX 1e9
#define ANY_FLOAT -FLT_MAX, FLT_MAX
#define AT(member) offsetof(path_pose, member)
_Static_assert(sizeof(light_type) == sizeof(int), "light_type is stored as an int");
const path_field camera_path_fields[] = {
    {"t", PATH_FIELD_TIME, 0.0, PATH_TIME_MAX, "seconds", AT(t), false},
    {"cam_x", PATH_FIELD_FLOAT, ANY_FLOAT, "a coordinate", AT(cam.pos[0]), false},
    {"cam_y", PATH_FIELD_FLOAT, ANY_FLOAT, "a coordinate", AT(cam.pos[1]), false},
    {"cam_z", PATH_FIELD_FLOAT, ANY_FLOAT, "a coordinate", AT(cam.pos[2]), false},
    {"yaw", PATH_FIELD_FLOAT, -CAMERA_YAW_MAX, CAMERA_YAW_MAX, "degrees", AT(cam.yaw), false},
    {"pitch", PATH_FIELD_FLOAT, -CAMERA_PITCH_MAX, CAMERA_PITCH_MAX, "degrees", AT(cam.pitch), false},
    {"light_type", PATH_FIELD_INT, 0, LIGHT_TYPE_COUNT - 1, "a light type (0 directional, 1 spot, 2 point)",
     AT(light.type), false},
    {"dir_x", PATH_FIELD_FLOAT, ANY_FLOAT, "a direction component", AT(light.dir[0]), false},
    {"dir_y", PATH_FIELD_FLOAT, ANY_FLOAT, "a direction component", AT(light.dir[1]), false},
    {"dir_z", PATH_FIELD_FLOAT, ANY_FLOAT, "a direction component", AT(light.dir[2]), false},
    {"pos_x", PATH_FIELD_FLOAT, ANY_FLOAT, "a coordinate", AT(light.pos[0]), false},
    {"pos_y", PATH_FIELD_FLOAT, ANY_FLOAT, "a coordinate", AT(light.pos[1]), false},
    {"pos_z", PATH_FIELD_FLOAT, ANY_FLOAT, "a coordinate", AT(light.pos[2]), false},
    /* version 2 */
    {"cone", PATH_FIELD_FLOAT, 1.0, 170.0, "degrees", AT(light.cone_deg), false},
    {"angle", PATH_FIELD_FLOAT, 0.0, IZB_SOFT_MAX_ANGLE_DEG, "degrees", AT(light.angle_deg), false},
    {"samples", PATH_FIELD_INT, 16, 256, "a power of two", AT(light.samples), true},
    {"size_w", PATH_FIELD_FLOAT, 0.0, IZB_AREA_MAX_SIZE, "world units", AT(light.size[0]), false},
    {"size_h", PATH_FIELD_FLOAT, 0.0, IZB_AREA_MAX_SIZE, "world units", AT(light.size[1]), false},
    {"shape", PATH_FIELD_INT, IZB_AREA_RECT, IZB_AREA_DISK, "a shape (0 rect, 1 disk)", AT(light.shape),
     false},
};
const int camera_path_field_count = (int)(sizeof camera_path_fields / sizeof camera_path_fields[0]);
#define PATH_V1_FIELDS 13

int camera_path_fields_in(int version)
{
    return version == 1 ? PATH_V1_FIELDS : version == 2 ? camera_path_field_count : 0;
}

double camera_path_field_value(const path_pose *q, const path_field *f)
{
    const char *at = (const char *)q + f->offset;
    double d;
    float v;
    int i;
    switch (f->kind) {
    case PATH_FIELD_TIME:
        memcpy(&d, at, sizeof d);
        return d;
    case PATH_FIELD_FLOAT:
        memcpy(&v, at, sizeof v);
        return v;
    case PATH_FIELD_INT:
        break;
    }
    memcpy(&i, at, sizeof i);
    return i;
}

/* tok, the whole token, as field f's value within its range, stored into *q; false otherwise.
 * Floats are compared as the float stored (89.0000001 reads as 89 and is 89). Underflow to a
 * subnormal or zero is not an error: a saved pose may hold one. */
static bool read_field(const path_field *f, const char *tok, path_pose *q)
{
    char *at = (char *)q + f->offset, *end = NULL;
    switch (f->kind) {
    case PATH_FIELD_TIME: {
        const double d = strtod(tok, &end);
        if (end == tok || *end || !isfinite(d) || !(d >= f->min && d <= f->max)) return false;
        memcpy(at, &d, sizeof d);
        return true;
    }
    case PATH_FIELD_FLOAT: {
        const float v = strtof(tok, &end);
        if (end == tok || *end || !isfinite(v) || !(v >= (float)f->min && v <= (float)f->max)) return false;
        memcpy(at, &v, sizeof v);
        return true;
    }
    case PATH_FIELD_INT: {
        errno = 0;
        const long v = strtol(tok, &end, 10);
        if (end == tok || *end || errno || v < (long)f->min || v > (long)f->max) return false;
        if (f->pow2 && (v & (v - 1)) != 0) return false;
        const int i = (int)v;
        memcpy(at, &i, sizeof i);
        return true;
    }
    }
    return false;
}

/* "expected WHAT from MIN to MAX" for field f; a full float range is "any finite number" */
static void field_expectation(const path_field *f, char *buf, size_t n)
{
    if (f->kind == PATH_FIELD_FLOAT && (float)f->min == -FLT_MAX && (float)f->max == FLT_MAX)
        snprintf(buf, n, "%s, any finite number", f->what);
    else
        snprintf(buf, n, "%s from %.9g to %.9g", f->what, f->min, f->max);
}

/* tok as the message quotes it: at most 40 bytes, control bytes as '?' (a quoted token must not
 * break the message's one line or drive the terminal) */
static void quoted(const char *tok, char out[41])
{
    size_t i = 0;
    for (; i < 40 && tok[i]; i++)
        out[i] = (unsigned char)tok[i] < 0x20 || tok[i] == 0x7f ? '?' : tok[i];
    out[i] = '\0';
}

/* One pose line (s, without the comment lines) of n fields into *q: every field present, each
 * within its row's range, nothing after the last; false with one line naming file:lineno and the
 * field. */
static bool read_pose(const char *s, int n, path_pose *q, const char *file, int lineno, char *err,
                      size_t err_size)
{
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", s);
    int k = 0;
    for (char *tok = strtok_r(buf, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save), k++) {
        char q40[41];
        quoted(tok, q40);
        if (k >= n) {
            snprintf(err, err_size, "%s:%d: malformed pose: more than %d fields ('%s' after %s)", file,
                     lineno, n, q40, camera_path_fields[n - 1].name);
            return false;
        }
        const path_field *f = &camera_path_fields[k];
        if (!read_field(f, tok, q)) {
            char want[128];
            field_expectation(f, want, sizeof want);
            snprintf(err, err_size, "%s:%d: %s '%s': expected %s", file, lineno, f->name, q40, want);
            return false;
        }
    }
    if (k < n) {
        snprintf(err, err_size, "%s:%d: malformed pose: %d fields, want %d (%s missing)", file, lineno, k, n,
                 camera_path_fields[k].name);
        return false;
    }
    return true;
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
            if (sscanf(s, "izb-path %d", &version) != 1 || camera_path_fields_in(version) == 0) {
                snprintf(err, err_size, "%s:%d: not an izb-path 1 or 2 file", file, lineno);
                ok = false;
            }
            p->version = version;
            continue;
        }
        path_pose q = {0}; /* a version-1 line leaves the light's extent 0 */
        if (!read_pose(s, camera_path_fields_in(version), &q, file, lineno, err, err_size)) {
            ok = false;
        } else if (!light_dir_usable(q.light.dir)) { /* the rule --light-dir follows */
            snprintf(err, err_size, "%s:%d: light direction %g,%g,%g: expected x,y,z, not all zero", file, lineno,
                     (double)q.light.dir[0], (double)q.light.dir[1], (double)q.light.dir[2]);
            ok = false;
        } else if (!camera_path_add(p, q.t, &q.cam, &q.light)) {
            snprintf(err, err_size, "%s:%d: time %.6f does not increase", file, lineno, q.t);
            ok = false;
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
    *l = u < 0.5f ? a->light : b->light; /* the light type, samples and shape switch halfway */
    for (int i = 0; i < 3; i++) {
        l->dir[i] = lerpf(a->light.dir[i], b->light.dir[i], u);
        l->pos[i] = lerpf(a->light.pos[i], b->light.pos[i], u);
    }
    /* the extent is continuous: it grows and shrinks with the path (both ends in range, so is
     * every value between) */
    l->cone_deg = lerpf(a->light.cone_deg, b->light.cone_deg, u);
    l->angle_deg = lerpf(a->light.angle_deg, b->light.angle_deg, u);
    for (int i = 0; i < 2; i++)
        l->size[i] = lerpf(a->light.size[i], b->light.size[i], u);
}

void camera_path_free(camera_path *p)
{
    free(p->poses);
    memset(p, 0, sizeof *p);
}
