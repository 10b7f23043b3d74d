/* scene_xform.c — the affine transforms that place an indexed mesh in the world (scene_xform.h). */
#include "scene_xform.h"
#include "scene_vec3.h"

#include <math.h>

static const float DEG = 0.017453292519943295f;

xform xform_translate_scale(const float c[3], float scale)
{
    return (xform){.m = {scale, 0, 0, 0, scale, 0, 0, 0, scale}, .t = {c[0], c[1], c[2]}};
}

xform xform_box(const float c[3], float hx, float hy, float hz, float yaw_deg, float tilt_deg)
{
    float ca = cosf(yaw_deg * DEG), sa = sinf(yaw_deg * DEG);
    float ct = cosf(tilt_deg * DEG), st = sinf(tilt_deg * DEG);
    /* R = Ry(yaw) Rx(tilt), columns scaled by the half-extents */
    return (xform){.m = {hx * ca, 0, -hx * sa, hy * st * sa, hy * ct, hy * st * ca, hz * ct * sa, -hz * st,
                         hz * ct * ca},
                   .t = {c[0], c[1], c[2]}};
}

xform xform_segment(const float p0[3], const float p1[3], float radius)
{
    float d[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, dn[3] = {d[0], d[1], d[2]}, u[3], v[3];
    vec3_normalize(dn);
    /* u: perpendicular to d, from the axis least aligned with it; v = d x u so that u x v = d */
    float ax[3] = {0, 0, 0};
    float a0 = fabsf(dn[0]), a1 = fabsf(dn[1]), a2 = fabsf(dn[2]);
    ax[a0 <= a1 && a0 <= a2 ? 0 : a1 <= a2 ? 1 : 2] = 1.0f;
    vec3_cross(dn, ax, u);
    vec3_normalize(u);
    vec3_cross(dn, u, v);
    xform x;
    for (int i = 0; i < 3; i++) {
        x.m[i] = radius * u[i];
        x.m[3 + i] = radius * v[i];
        x.m[6 + i] = d[i];
        x.t[i] = p0[i];
    }
    return x;
}
