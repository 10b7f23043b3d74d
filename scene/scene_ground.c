/* scene_ground.c — a ground for loaded models (scene.h: scene_add_ground). A model from a file
 * floats in empty space: nothing but itself receives its shadow. The ground is one quad under
 * its bounds, sized from the shadow the scene's own directional light casts of the bounds box, so
 * the default view shows the model's shadow whole. */
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How far the ground extends at most, in bounding-sphere radii from the centre: a light a few
 * degrees above the horizon casts shadows ~tan(87°) = 19 radii long; past that it is all ground. */
#define GROUND_MAX_RADII 20.0f
/* Gap between the bounds' bottom and the ground, in radii: a face lying on the bottom must not
 * fight the ground for depth, and at 1e-3 the gap is below a pixel from the default camera. */
#define GROUND_GAP_RADII 1e-3f

const char *const scene_ground_names[SCENE_GROUND_COUNT] = {"auto", "on", "off"};

bool scene_ground_wanted(scene_ground g, const char *spec)
{
    if (g != SCENE_GROUND_AUTO) return g == SCENE_GROUND_ON;
    return !(spec && strncmp(spec, "builtin:", 8) == 0);
}

bool scene_add_ground(scene *s, char *err, size_t err_size)
{
    const float *lo = s->bounds_min, *hi = s->bounds_max;
    float c[3], r2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (lo[k] + hi[k]);
        r2 += 0.25f * (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    const float r = r2 > 0.0f ? sqrtf(r2) : 1.0f;
    const float y = lo[1] - GROUND_GAP_RADII * r;
    /* the footprint, grown by the shadow of every bounds corner along the light direction */
    float x0 = lo[0], x1 = hi[0], z0 = lo[2], z1 = hi[2];
    const float *d = s->light_dir;
    if (d[1] < -1e-6f) {
        for (int i = 0; i < 8; i++) {
            const float p[3] = {i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]};
            const float t = (y - p[1]) / d[1];
            x0 = fminf(x0, p[0] + t * d[0]), x1 = fmaxf(x1, p[0] + t * d[0]);
            z0 = fminf(z0, p[2] + t * d[2]), z1 = fmaxf(z1, p[2] + t * d[2]);
        }
    }
    const float margin = 0.25f * r, far = GROUND_MAX_RADII * r;
    x0 = fmaxf(x0 - margin, c[0] - far), x1 = fminf(x1 + margin, c[0] + far);
    z0 = fmaxf(z0 - margin, c[2] - far), z1 = fminf(z1 + margin, c[2] + far);

    const size_t n = (size_t)s->tri_count + 2;
    float *xyz = realloc(s->xyz, 9 * n * sizeof *xyz);
    if (xyz) s->xyz = xyz;
    float *nrm = xyz ? realloc(s->normals, 9 * n * sizeof *nrm) : NULL;
    if (!nrm) {
        snprintf(err, err_size, "scene '%s': out of memory for the ground", s->name);
        return false;
    }
    s->normals = nrm;
    /* counter-clockwise seen from above: normal +y */
    const float q[2][9] = {{x0, y, z0, x0, y, z1, x1, y, z1}, {x0, y, z0, x1, y, z1, x1, y, z0}};
    for (int t = 0; t < 2; t++) {
        memcpy(s->xyz + 9 * ((size_t)s->tri_count + t), q[t], sizeof q[t]);
        for (int v = 0; v < 3; v++) {
            float *m = s->normals + 9 * ((size_t)s->tri_count + t) + 3 * v;
            m[0] = 0.0f, m[1] = 1.0f, m[2] = 0.0f;
        }
    }
    s->tri_count += 2;
    s->ground_tris = 2;
    s->bounds_min[0] = fminf(lo[0], x0), s->bounds_max[0] = fmaxf(hi[0], x1);
    s->bounds_min[1] = y;
    s->bounds_min[2] = fminf(lo[2], z0), s->bounds_max[2] = fmaxf(hi[2], z1);
    return true;
}
