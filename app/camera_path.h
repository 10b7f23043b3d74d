/* camera_path.h — recorded camera (and light) paths: record poses with time stamps, save/load them
 * as text, replay them interpolated by time so playback is frame-rate independent.
 *
 * File format (one pose per line, '#' comments allowed):
 *   izb-path 1
 *   t  cam_x cam_y cam_z  yaw pitch  light_type  dir_x dir_y dir_z  pos_x pos_y pos_z
 * t in seconds from the start, strictly increasing; angles in degrees, pitch within +-89 and yaw
 * within +-3600 (CAMERA_PITCH_MAX, CAMERA_YAW_MAX: the options' ranges); light_type 0 directional,
 * 1 spot, 2 point (light_type's order). */
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
