/* camera_path.h — recorded camera (and light) paths: record poses with time stamps, save/load them
 * as text, replay them interpolated by time so playback is frame-rate independent.
 *
 * File format (one pose per line, '#' comments allowed):
 *   izb-path 1
 *   t  cam_x cam_y cam_z  yaw pitch  light_type  dir_x dir_y dir_z  pos_x pos_y pos_z
 * Each field's type and range is a row of camera_path_fields (camera_path.c): the loader checks
 * every field against its row, the tests are generated from the rows and docs/usage.md lists
 * them. Beyond the rows: t strictly increasing, the light direction not all zero.
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
} camera_path;

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
} path_field;

extern const path_field camera_path_fields[];
extern const int camera_path_field_count; /* 13: the order of the fields on a line */

/* The value of field f in pose q (as a double). */
double camera_path_field_value(const path_pose *q, const path_field *f);

/* Append a pose (t must be > the last pose's t; equal or earlier poses are ignored). */
bool camera_path_add(camera_path *p, double t, const camera *c, const light *l);
bool camera_path_save(const camera_path *p, const char *file, char *err, size_t err_size);
/* Load; false with a one-line reason naming the file and line on any malformed input. */
bool camera_path_load(camera_path *p, const char *file, char *err, size_t err_size);
/* Duration in seconds (0 for fewer than two poses). */
double camera_path_duration(const camera_path *p);
/* The pose at time t: linear interpolation of positions/directions, shortest-arc yaw; clamps to
 * the ends, or wraps when loop. The light type switches halfway between poses. Needs count >= 1. */
void camera_path_sample(const camera_path *p, double t, bool loop, camera *c, light *l);
void camera_path_free(camera_path *p);

#endif
