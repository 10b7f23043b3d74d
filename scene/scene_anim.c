/* scene_anim.c — scenes that move (scene.h: scene_set_motion, scene_animate). What an IZB wins by
 * construction: it builds nothing over the triangles, so moving all of them every frame costs it a
 * copy (izb_update_scene), where a ray tracer must rebuild or refit its BVH.
 *
 * Every vertex moves as a function of its rest position and the time only, never of its triangle:
 * a vertex shared by several triangles lands on the same bits in each, so closed meshes stay closed
 * and izb_update_scene may keep the closed-mesh analysis of the rest pose.
 */
#include "scene.h"

#include <math.h>
#include <string.h>

#define TWO_PI 6.283185307179586

#define WAVE_PERIOD_S 2.0   /* one crest passes a point every 2 s */
#define WAVE_LENGTHS 2.0    /* crests across the scene's width */
#define WAVE_LIFT 0.06      /* of the scene's width: the crest's height */
#define TURNTABLE_PERIOD_S 12.0 /* one turn */

/* the wave's lift of a vertex at (x, z): >= 0, so what rests on the ground never sinks into it */
static float wave_lift(const scene *s, double t, float x, float z);

static float wave_lift(const scene *s, double t, float x, float z)
{
    const double w = fmax(s->bounds_max[0] - s->bounds_min[0], s->bounds_max[2] - s->bounds_min[2]);
    const double k = w > 0.0 ? TWO_PI * WAVE_LENGTHS / w : 0.0;
    const double phase = k * (0.8 * x + 0.6 * z) - TWO_PI * t / WAVE_PERIOD_S;
    return (float)(WAVE_LIFT * w * (0.5 + 0.5 * sin(phase)));
}

void scene_set_motion(scene *s, scene_motion m)
{
    s->motion = m;
    const bool builtin = strncmp(s->name, "builtin:", 8) == 0;
    int first = builtin ? 2 : 0, last = s->tri_count - s->ground_tris;
    first = first < last ? first : last;
    s->motion_first = m == SCENE_MOTION_NONE ? 0 : first;
    s->motion_count = m == SCENE_MOTION_NONE ? 0 : last - first;
}

void scene_motion_bounds(const scene *s, float bmin[3], float bmax[3])
{
    for (int k = 0; k < 3; k++)
        bmin[k] = s->bounds_min[k], bmax[k] = s->bounds_max[k];
    const float w = fmaxf(s->bounds_max[0] - s->bounds_min[0], s->bounds_max[2] - s->bounds_min[2]);
    if (s->motion == SCENE_MOTION_WAVE)
        bmax[1] += (float)WAVE_LIFT * w;
    if (s->motion == SCENE_MOTION_TURNTABLE) {
        const float hx = 0.5f * (s->bounds_max[0] - s->bounds_min[0]), hz = 0.5f * (s->bounds_max[2] - s->bounds_min[2]);
        const float r = sqrtf(hx * hx + hz * hz), cx = s->bounds_min[0] + hx, cz = s->bounds_min[2] + hz;
        bmin[0] = cx - r, bmax[0] = cx + r;
        bmin[2] = cz - r, bmax[2] = cz + r;
    }
}

void scene_animate(const scene *s, double t, float *xyz, float *normals)
{
    normals = s->normals ? normals : NULL;
    const size_t n = 9 * (size_t)s->tri_count;
    memcpy(xyz, s->xyz, n * sizeof(float));
    if (normals)
        memcpy(normals, s->normals, n * sizeof(float));
    const long first = s->motion_first, end = (long)s->motion_first + s->motion_count;
    if (s->motion == SCENE_MOTION_WAVE) {
        /* the lift varies across an object, so its normals tilt a little; they are kept: the
         * shading hardly changes, and the shadows (all the IZB computes) use positions only */
#pragma omp parallel for schedule(static)
        for (long i = first; i < end; i++)
            for (int v = 0; v < 3; v++) {
                float *p = xyz + 9 * (size_t)i + 3 * (size_t)v;
                p[1] += wave_lift(s, t, p[0], p[2]);
            }
    } else if (s->motion == SCENE_MOTION_TURNTABLE) {
        const double a = TWO_PI * fmod(t, TURNTABLE_PERIOD_S) / TURNTABLE_PERIOD_S;
        const float c = (float)cos(a), sn = (float)sin(a);
        const float cx = 0.5f * (s->bounds_min[0] + s->bounds_max[0]), cz = 0.5f * (s->bounds_min[2] + s->bounds_max[2]);
#pragma omp parallel for schedule(static)
        for (long i = first; i < end; i++)
            for (int v = 0; v < 3; v++) {
                const size_t o = 9 * (size_t)i + 3 * (size_t)v;
                const float x = s->xyz[o] - cx, z = s->xyz[o + 2] - cz;
                xyz[o] = cx + c * x + sn * z;
                xyz[o + 2] = cz - sn * x + c * z;
                if (normals) {
                    const float nx = s->normals[o], nz = s->normals[o + 2];
                    normals[o] = c * nx + sn * nz;
                    normals[o + 2] = -sn * nx + c * nz;
                }
            }
    }
}
