/* scene_animate.c — see scene_animate.h. */
#include "scene_animate.h"

#include <math.h>
#include <string.h>

#define WAVE_AMPLITUDE 0.6f
#define WAVE_NUMBER 0.8f /* radians per unit of x or z */
#define WAVE_SPEED 0.15f /* radians per frame */
#define PI_F 3.14159265358979f

scene_motion scene_motion_of(const scene *s)
{
    return strncmp(s->name, "builtin:wave", 12) == 0 ? SCENE_MOTION_WAVE : SCENE_MOTION_TURNTABLE;
}

/* the ripple's height at (x, z) and its slopes d/dx, d/dz */
static float wave_height(float x, float z, float phase, float *hx, float *hz)
{
    const float sx = sinf(WAVE_NUMBER * x + phase), cx = cosf(WAVE_NUMBER * x + phase);
    const float sz = sinf(WAVE_NUMBER * z + 0.7f * phase), cz = cosf(WAVE_NUMBER * z + 0.7f * phase);
    *hx = WAVE_AMPLITUDE * WAVE_NUMBER * cx * cz;
    *hz = -WAVE_AMPLITUDE * WAVE_NUMBER * sx * sz;
    return WAVE_AMPLITUDE * sx * cz;
}

void scene_animate(const scene *rest, scene_motion m, long frame, float *xyz, float *normals)
{
    const long n = rest->tri_count;
    const bool builtin = strncmp(rest->name, "builtin:", 8) == 0;
    const long first = builtin ? (n < 2 ? n : 2) : 0, last = builtin ? n : n - rest->ground_tris;
    memcpy(xyz, rest->xyz, 9 * (size_t)n * sizeof(float));
    if (normals) memcpy(normals, rest->normals, 9 * (size_t)n * sizeof(float));
    if (frame == 0) return; /* the rest pose, bit for bit */
    const float cxz[2] = {0.5f * (rest->bounds_min[0] + rest->bounds_max[0]),
                          0.5f * (rest->bounds_min[2] + rest->bounds_max[2])};
    /* the turn in double from the frame number: no drift however long it runs */
    const double turn = fmod((double)frame * SCENE_TURNTABLE_DEG_PER_FRAME, 360.0) * (double)PI_F / 180.0;
    const float c = (float)cos(turn), s = (float)sin(turn);
    const float phase = (float)fmod((double)frame * WAVE_SPEED, 2.0 * PI_F);
#pragma omp parallel for schedule(static)
    for (long v = 3 * first; v < 3 * last; v++) {
        float *p = xyz + 3 * v, *nr = normals ? normals + 3 * v : NULL;
        if (m == SCENE_MOTION_TURNTABLE) {
            const float x = p[0] - cxz[0], z = p[2] - cxz[1];
            p[0] = cxz[0] + c * x + s * z;
            p[2] = cxz[1] - s * x + c * z;
            if (nr) {
                const float nx = nr[0], nz = nr[2];
                nr[0] = c * nx + s * nz;
                nr[2] = -s * nx + c * nz;
            }
        } else {
            /* the ripple less its phase-0 shape: the slab starts flat and every frame is a ripple */
            float hx, hz, hx0, hz0;
            p[1] += wave_height(p[0], p[2], phase, &hx, &hz) - wave_height(p[0], p[2], 0.0f, &hx0, &hz0);
            hx -= hx0, hz -= hz0;
            if (nr && fabsf(nr[1]) > 0.5f) { /* top and bottom follow the surface; the sides stay */
                const float sgn = nr[1] > 0.0f ? 1.0f : -1.0f, len = sqrtf(hx * hx + 1.0f + hz * hz);
                nr[0] = -sgn * hx / len, nr[1] = sgn / len, nr[2] = -sgn * hz / len;
            }
        }
    }
}
