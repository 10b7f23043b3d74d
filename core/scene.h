/* scene.h — a scene as the renderer and the IZB see it: a triangle soup in world space with
 * per-vertex normals, its bounds, and a suggested camera and light. Loaded once through assimp's
 * C API (OBJ+MTL, PLY, glTF, ... : whatever assimp reads) or built procedurally. */
#ifndef SCENE_H
#define SCENE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct scene {
    float *xyz;     /* 9 floats per triangle: 3 world-space vertices (owned, malloc) */
    float *normals; /* 9 floats per triangle: a unit normal per vertex (owned) */
    int tri_count;
    float bounds_min[3], bounds_max[3];
    int dropped_nonfinite;  /* faces dropped for NaN/Inf coordinates */
    int dropped_degenerate; /* faces dropped for zero area (or not triangles: points, lines) */
    char name[128];
    /* Suggested view: camera position/orientation (degrees) and light. */
    float cam_pos[3], cam_yaw, cam_pitch;
    float light_dir[3]; /* direction the light travels (directional) */
    float light_pos[3]; /* spot light position; it looks at the bounds' centre */
} scene;

/* Load `spec`: a file path, or "builtin:NAME[:N]" (N = approximate triangle count).
 * On failure returns false and writes a one-line reason naming the file into err. */
bool scene_load(const char *spec, scene *out, char *err, size_t err_size);

/* Load a file through assimp. Same contract as scene_load. */
bool scene_load_file(const char *path, scene *out, char *err, size_t err_size);

/* Built-in procedural scenes. NAME: "default" (ground, boxes, fence, slanted plane, detailed mesh),
 * "tesseract" (thesis figure 6.4), "spheres", "grass" (many thin blades: benchmark scalable).
 * N: approximate triangle count where the scene scales (10K .. 10M), 0 = the scene's default. */
bool scene_builtin(const char *name, long tri_target, scene *out, char *err, size_t err_size);

/* Names of the built-in scenes, NULL-terminated. */
extern const char *const scene_builtin_names[];

void scene_free(scene *s);

/* Recompute bounds and a default camera and light from the geometry (used after loading files). */
void scene_frame_view(scene *s);

#endif
