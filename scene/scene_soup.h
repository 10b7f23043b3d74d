/* scene_soup.h — internal to scene/: the triangle soup a built-in scene is built into, instance by
 * instance (an indexed mesh of scene_imesh.h under a transform of scene_xform.h), and handed over
 * to a scene whole. */
#ifndef SCENE_SOUP_H
#define SCENE_SOUP_H

#include <stdbool.h>
#include <stddef.h>

#include "scene.h"
#include "scene_imesh.h"
#include "scene_xform.h"

/* Bounds as instances are emitted (each imesh position is used by a triangle, so the bounds of
 * the transformed positions are the soup's: no second pass over 10M triangles). */
typedef struct box3 {
    float lo[3], hi[3];
} box3;

typedef struct soup {
    float *xyz, *nrm; /* 9 floats per triangle (owned until soup_finish) */
    long count, cap;  /* triangles */
    box3 bounds;      /* valid when count > 0 */
    float *scratch;   /* soup_emit's transformed positions and normals */
    int scratch_cap;  /* in floats */
    bool oom;
} soup;

/* Make room for `extra` more triangles (one allocation for a whole scene when the count is known). */
bool soup_reserve(soup *s, long extra);
/* Append an instance of m under t. */
void soup_emit(soup *s, const imesh *m, const xform *t);
/* Append count instances, mesh[i] under t[i], in parallel (OpenMP): the big scenes' path. */
void soup_emit_batch(soup *s, const imesh *const *mesh, const xform *t, long count);
/* The ground: one upward-facing quad (2 triangles) at height y over [x0,x1] x [z0,z1]. */
void soup_ground(soup *s, float x0, float z0, float x1, float z1, float y);
/* Move the soup into out (xyz, normals, tri_count, bounds); frees the scratch. false on OOM
 * (message naming `name` in err, the soup freed). */
bool soup_finish(soup *s, scene *out, const char *name, char *err, size_t err_size);
void soup_free(soup *s);

#endif
