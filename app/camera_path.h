/* camera_path.h — recorded camera (and light) paths: record poses with time stamps, save/load them
 * as text, replay them interpolated by time so playback is frame-rate independent.
 *
 * File format (one pose per line, '#' comments allowed):
 *   izb-path 2
 *   t  cam_x cam_y cam_z  yaw pitch  light_type  dir_x dir_y dir_z  pos_x pos_y pos_z
 *      cone angle samples size_w size_h shape
 * Version 1 (every path recorded before the light's extent was saved, and assets/paths/) is the
 * first 13 fields; its poses carry no cone, angle, samples, size or shape (they load as 0) and
 * the replay keeps the command line's (session_replay). The recorder writes version 2.
 * Each field's type and range is a row of camera_path_fields (camera_path.c): the loader checks
 * every field of the file's version against its row, the tests are generated from the rows and
 * docs/usage.md lists them. Beyond the rows: t strictly increasing, the light direction not all
 * zero.
 *
 * Several lights (view.h light_set): a path carries light 0 only, the light a path has always
 * meant; the other lights stay where the command line and the keys put them. Why: a pose line of
 * fixed fields keeps every path recorded so far valid and its fields tested from one table; a
 * light list per pose would be a new format version for a demo tool. */
#ifndef CAMERA_PATH_H
#define CAMERA_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "view.h"

typedef struct path_pose {
    double t;
    camera cam;
    light light;
} path_pose;

typedef struct camera_path {
    path_pose *poses; /* owned */
    int count, capacity;
    /* the loaded file's format version: 1, the poses carry no light extent (its fields are 0 and
     * the replay keeps the app's); 2, they do. 0 for a path built with camera_path_add. */
    int version;
} camera_path;

#define CAMERA_PATH_VERSION 2 /* the version camera_path_save writes */

/* One field of a pose line: its name, how it is read, its range, where it goes in a path_pose. */
typedef enum path_field_kind {
    PATH_FIELD_TIME,  /* a finite double */
    PATH_FIELD_FLOAT, /* a finite float, compared with min and max as a float */
    PATH_FIELD_INT,   /* a whole-token integer (an enum's value) */
} path_field_kind;

typedef struct path_field {
    const char *name; /* "pitch": the name the file's comment line and docs/usage.md use */
    path_field_kind kind;
    double min, max;  /* accepted range, both ends included */
    const char *what; /* the error's "expected WHAT from MIN to MAX" */
    size_t offset;    /* offsetof(path_pose, ...): a double, float or int-sized enum */
    bool pow2;        /* PATH_FIELD_INT: a power of two too (--light-samples' rule) */
} path_field;

extern const path_field camera_path_fields[];
extern const int camera_path_field_count; /* 19: the order of the fields on a version-2 line */
/* How many of camera_path_fields a line of format `version` has: 13 for 1, 19 for 2; 0 for
 * any other version. */
int camera_path_fields_in(int version);

/* The value of field f in pose q (as a double). */
double camera_path_field_value(const path_pose *q, const path_field *f);

/* Append a pose (t must be > the last pose's t; equal or earlier poses are ignored). */
bool camera_path_add(camera_path *p, double t, const camera *c, const light *l);
bool camera_path_save(const camera_path *p, const char *file, char *err, size_t err_size);
/* Load; false with a one-line reason naming the file and line on any malformed input. */
bool camera_path_load(camera_path *p, const char *file, char *err, size_t err_size);
/* Duration in seconds (0 for fewer than two poses). */
double camera_path_duration(const camera_path *p);
/* The pose at time t: linear interpolation of positions, directions, the cone, the angle and the
 * emitter's size; shortest-arc yaw; clamps to the ends, or wraps when loop. The light type, its
 * samples and its shape (whole numbers) switch halfway between poses. Needs count >= 1. */
void camera_path_sample(const camera_path *p, double t, bool loop, camera *c, light *l);
void camera_path_free(camera_path *p);

#endif
