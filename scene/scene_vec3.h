/* scene_vec3.h — internal to scene/: the two 3-vector operations that the indexed meshes, the
 * soup and the transforms share. Header-only so each keeps the exact arithmetic it always had
 * (the built-in scenes are bit-for-bit reproducible). */
#ifndef SCENE_VEC3_H
#define SCENE_VEC3_H

#include <math.h>

static inline void vec3_cross(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* v := v / |v|; a zero vector becomes +y, which keeps a normal unit (never happens for a closed
 * shape, whose faces all have area) */
static inline void vec3_normalize(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0.0f) {
        float inv = 1.0f / l;
        v[0] *= inv, v[1] *= inv, v[2] *= inv;
    } else {
        v[0] = 0, v[1] = 1, v[2] = 0;
    }
}

#endif
