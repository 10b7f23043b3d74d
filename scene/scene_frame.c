/* scene_frame.c — bounds and the suggested view: where the camera stands and where the light comes
 * from, so that a scene opens looking at what is worth seeing. Files frame their whole bounds
 * (scene_frame_view); built-in scenes name a focus box (scene_view_focus). A leaf (see
 * scene_frame.h). */
#include "scene_frame.h"

#include <math.h>
#include <string.h>

static const float DEG = 0.017453292519943295f;
/* Half-angles the suggested view leaves a margin with: the camera's vertical field of view and a
 * spot's cone are 60 degrees (scene/view.h defaults); aim for 27 so the focus is not cut at the edge. */
static const float HALF_VIEW_DEG = 27.0f;

void scene_compute_bounds(scene *s)
{
    float lo0 = INFINITY, lo1 = INFINITY, lo2 = INFINITY, hi0 = -INFINITY, hi1 = -INFINITY, hi2 = -INFINITY;
    long nv = s->tri_count > 0 ? 3L * s->tri_count : 0;
    const float *p = s->xyz;
    /* 10M-triangle scenes: worth both cores */
#if defined(_OPENMP)
#pragma omp parallel for reduction(min : lo0, lo1, lo2) reduction(max : hi0, hi1, hi2) if (nv > 300000)
#endif
    for (long i = 0; i < nv; i++) {
        const float *v = p + 3 * i;
        lo0 = v[0] < lo0 ? v[0] : lo0, hi0 = v[0] > hi0 ? v[0] : hi0;
        lo1 = v[1] < lo1 ? v[1] : lo1, hi1 = v[1] > hi1 ? v[1] : hi1;
        lo2 = v[2] < lo2 ? v[2] : lo2, hi2 = v[2] > hi2 ? v[2] : hi2;
    }
    const float lo[3] = {lo0, lo1, lo2}, hi[3] = {hi0, hi1, hi2};
    for (int k = 0; k < 3; k++) {
        s->bounds_min[k] = nv ? lo[k] : 0.0f;
        s->bounds_max[k] = nv ? hi[k] : 0.0f;
    }
}

/* centre and bounding-sphere radius of a box (radius at least a small positive value) */
static float box_sphere(const float lo[3], const float hi[3], float c[3])
{
    float d2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (lo[k] + hi[k]);
        d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    float r = 0.5f * sqrtf(d2);
    return r > 1e-6f ? r : 1e-6f;
}

void scene_view_focus(scene *s, const view_desc *v)
{
    float fc[3], bc[3];
    float fr = box_sphere(v->fmin, v->fmax, fc), br = box_sphere(s->bounds_min, s->bounds_max, bc);
    float t = tanf(HALF_VIEW_DEG * DEG);

    /* camera: back along its forward vector from the focus centre until every focus corner is in
     * view: |y| <= t z vertically, |x| <= t * 4/3 z horizontally (4:3 or wider windows) */
    float cy = cosf(v->yaw * DEG), sy = sinf(v->yaw * DEG), cp = cosf(v->pitch * DEG),
          sp = sinf(v->pitch * DEG);
    float fwd[3] = {cp * sy, sp, -cp * cy}, right[3] = {cy, 0.0f, sy};
    float up[3] = {right[1] * fwd[2] - right[2] * fwd[1], right[2] * fwd[0] - right[0] * fwd[2],
                   right[0] * fwd[1] - right[1] * fwd[0]};
    float dist = 0.1f * fr;
    for (int c = 0; c < 8; c++) {
        float w[3] = {(c & 1 ? v->fmax[0] : v->fmin[0]) - fc[0], (c & 2 ? v->fmax[1] : v->fmin[1]) - fc[1],
                      (c & 4 ? v->fmax[2] : v->fmin[2]) - fc[2]};
        float x = w[0] * right[0] + w[1] * right[1] + w[2] * right[2];
        float y = w[0] * up[0] + w[1] * up[1] + w[2] * up[2];
        float z = w[0] * fwd[0] + w[1] * fwd[1] + w[2] * fwd[2];
        float need = fmaxf(fabsf(y) / t, fabsf(x) / (t * 4.0f / 3.0f)) - z;
        dist = need > dist ? need : dist;
    }
    for (int k = 0; k < 3; k++)
        s->cam_pos[k] = fc[k] - dist * fwd[k];
    s->cam_yaw = v->yaw;
    s->cam_pitch = v->pitch;

    float l[3] = {v->light_dir[0], v->light_dir[1], v->light_dir[2]};
    float ll = sqrtf(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
    if (!(ll > 1e-12f)) l[0] = 0.0f, l[1] = -1.0f, l[2] = 0.0f, ll = 1.0f;
    for (int k = 0; k < 3; k++)
        s->light_dir[k] = l[k] / ll;

    /* spot at bounds centre - d * dir. A focus corner q is inside the cone when its distance from
     * the axis p satisfies p <= t * (a + d), a its offset along the axis: d >= p / t - a. Stay
     * outside the bounding sphere too, so the spot does not sit among the geometry. */
    float d = 1.05f * br;
    for (int c = 0; c < 8; c++) {
        float w[3] = {(c & 1 ? v->fmax[0] : v->fmin[0]) - bc[0], (c & 2 ? v->fmax[1] : v->fmin[1]) - bc[1],
                      (c & 4 ? v->fmax[2] : v->fmin[2]) - bc[2]};
        float a = w[0] * s->light_dir[0] + w[1] * s->light_dir[1] + w[2] * s->light_dir[2];
        float p2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2] - a * a;
        float need = sqrtf(p2 > 0.0f ? p2 : 0.0f) / t - a;
        d = need > d ? need : d;
    }
    for (int k = 0; k < 3; k++)
        s->light_pos[k] = bc[k] - d * s->light_dir[k];
    if (v->inside) { /* the light at light_at still looks at the bounds' centre, as a spot does */
        float d2 = 0.0f, to[3];
        for (int k = 0; k < 3; k++) {
            s->cam_pos[k] = v->cam_at[k], s->light_pos[k] = v->light_at[k];
            to[k] = bc[k] - v->light_at[k], d2 += to[k] * to[k];
        }
        for (int k = 0; k < 3 && d2 > 0.0f; k++)
            s->light_dir[k] = to[k] / sqrtf(d2);
    }
}

void scene_frame_view(scene *s)
{
    scene_compute_bounds(s);
    /* Looking down at 30 degrees from the +x/+z side; the light comes over the camera's left
     * shoulder, so the faces the camera sees are lit and the shadows fall back and to the right,
     * where the raised camera sees them. Assumes +y is up, as OBJ and glTF do. */
    view_desc v = {.yaw = -30.0f, .pitch = -30.0f, .light_dir = {0.3f, -1.0f, -0.8f}};
    memcpy(v.fmin, s->bounds_min, sizeof v.fmin);
    memcpy(v.fmax, s->bounds_max, sizeof v.fmax);
    scene_view_focus(s, &v);
}
