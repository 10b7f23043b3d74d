/* scene_default.c — the "default" scene (~20K triangles, ~20 units wide): casters chosen for the
 * cases shadow maps get wrong. Thin features (fence pickets, a lattice of 2.5 cm slats, thin
 * poles) alias or vanish in a shadow map; a thin plate tilted towards grazing light shows
 * bias/peter-panning; a torus knot and a bumpy blob give detailed self-shadowing; plain boxes and
 * spheres are the baseline. Fixed size: N is ignored. */
#include "scene_builtin.h"

#include <math.h>
#include <stdlib.h>

static const float PI = 3.14159265358979f;

/* (2,3) torus knot tube of `sides` around `samples` points, centred at c, scaled by `scale` */
static void torus_knot(imesh *m, const float c[3], float scale, float radius, int samples, int sides);
/* unit sphere with a smooth bumpy displacement, normals from the displaced surface */
static void bumpy_blob(imesh *m, int slices, int stacks);

void scene_build_default(soup *s, long n, view_desc *v)
{
    (void)n;
    imesh box = {0}, tube = {0}, sphere = {0}, small = {0}, knot = {0}, blob = {0};
    imesh_box(&box);
    imesh_tube(&tube, 12, 1);
    imesh_sphere(&sphere, 48, 24);
    imesh_sphere(&small, 24, 12);
    torus_knot(&knot, (float[3]){2.5f, 3.0f, 1.5f}, 0.8f, 0.22f, 384, 16);
    bumpy_blob(&blob, 64, 32);

    soup_reserve(s, 21000);
    soup_ground(s, -12.0f, -12.0f, 12.0f, 12.0f, 0.0f);

    /* fence along z = -5: posts, two rails through them, pickets just in front of the rails */
    for (int i = 0; i <= 8; i++) {
        xform t = xform_box((float[3]){-9.0f + (float)i, 0.75f, -5.0f}, 0.06f, 0.75f, 0.06f, 0, 0);
        soup_emit(s, &box, &t);
    }
    for (int i = 0; i < 2; i++) {
        xform t = xform_box((float[3]){-5.0f, 0.5f + 0.7f * (float)i, -5.0f}, 4.1f, 0.03f, 0.025f, 0, 0);
        soup_emit(s, &box, &t);
    }
    for (int i = 0; i < 32; i++) {
        float x = -8.875f + 0.25f * (float)i;
        xform t = xform_box((float[3]){x, 0.7f, -4.95f}, 0.02f, 0.65f, 0.012f, 0, 0);
        soup_emit(s, &box, &t);
    }

    /* lattice: two posts, 16 vertical and 12 horizontal slats in two layers a few mm apart
     * (touching coplanar faces would make the shapes share edges and z-fight) */
    for (int i = 0; i < 2; i++) {
        xform t = xform_box((float[3]){1.0f + 4.0f * (float)i, 1.7f, -4.0f}, 0.05f, 1.7f, 0.05f, 0, 0);
        soup_emit(s, &box, &t);
    }
    for (int i = 0; i < 16; i++) {
        xform t = xform_box((float[3]){1.125f + 0.25f * (float)i, 1.9f, -4.0f}, 0.0125f, 1.5f, 0.015f, 0, 0);
        soup_emit(s, &box, &t);
    }
    for (int i = 0; i < 12; i++) {
        xform t = xform_box((float[3]){3.0f, 0.55f + 0.25f * (float)i, -3.96f}, 2.1f, 0.0125f, 0.015f, 0, 0);
        soup_emit(s, &box, &t);
    }

    /* thin plate tilted 35 degrees on a pole */
    xform plate = xform_box((float[3]){-4.0f, 2.2f, 1.5f}, 1.6f, 0.03f, 1.1f, 20.0f, 35.0f);
    soup_emit(s, &box, &plate);
    xform pole = xform_segment((float[3]){-4.0f, 0.0f, 1.5f}, (float[3]){-4.0f, 2.2f, 1.5f}, 0.05f);
    soup_emit(s, &tube, &pole);

    /* detailed casters, built in world space */
    xform id = xform_translate_scale((float[3]){0, 0, 0}, 1.0f);
    soup_emit(s, &knot, &id);
    xform bt = xform_translate_scale((float[3]){-1.0f, 1.3f, 4.0f}, 1.1f);
    soup_emit(s, &blob, &bt);

    /* baseline: a rotated cube, a pillar, a sphere, a small sphere on a thin pole */
    xform cube = xform_box((float[3]){6.5f, 0.8f, 3.0f}, 0.8f, 0.8f, 0.8f, 30.0f, 0);
    soup_emit(s, &box, &cube);
    xform pillar = xform_box((float[3]){7.0f, 1.75f, -2.0f}, 0.4f, 1.75f, 0.4f, 10.0f, 0);
    soup_emit(s, &box, &pillar);
    xform ball = xform_translate_scale((float[3]){-6.5f, 1.0f, 3.5f}, 1.0f);
    soup_emit(s, &sphere, &ball);
    xform lamp_pole = xform_segment((float[3]){4.5f, 0.0f, 5.5f}, (float[3]){4.5f, 2.5f, 5.5f}, 0.04f);
    soup_emit(s, &tube, &lamp_pole);
    xform lamp = xform_translate_scale((float[3]){4.5f, 2.75f, 5.5f}, 0.3f);
    soup_emit(s, &small, &lamp);

    imesh_free(&box), imesh_free(&tube), imesh_free(&sphere);
    imesh_free(&small), imesh_free(&knot), imesh_free(&blob);

    /* camera on +z looking at the fence and lattice; the light comes from the camera's left and
     * behind it, so the lattice and fence throw their grids back onto the ground in view */
    *v = (view_desc){.fmin = {-9.2f, 0.0f, -5.5f},
                     .fmax = {7.6f, 5.6f, 6.0f},
                     .yaw = -10.0f,
                     .pitch = -38.0f,
                     .light_dir = {0.55f, -0.75f, -0.5f}};
}

static void torus_knot(imesh *m, const float c[3], float scale, float radius, int samples, int sides)
{
    float *centre = malloc((size_t)samples * 9 * sizeof(float)), *nrm = centre + 3 * samples;
    float *bin = nrm + 3 * samples;
    if (!centre) {
        m->oom = true;
        return;
    }
    for (int k = 0; k < samples; k++) {
        float t = 2.0f * PI * (float)k / (float)samples;
        float c2 = cosf(2 * t), s2 = sinf(2 * t), c3 = cosf(3 * t), s3 = sinf(3 * t);
        float r = 2.0f + c3;
        float p[3] = {r * c2, r * s2, -s3};
        /* tangent dp/dt; the knot lies on a torus, whose surface normal at p (from the core
         * circle towards p) is perpendicular to it: a frame that closes up exactly, unlike Frenet */
        float tg[3] = {-3 * s3 * c2 - 2 * r * s2, -3 * s3 * s2 + 2 * r * c2, -3 * c3};
        float nn[3] = {c3 * c2, c3 * s2, -s3};
        float tl = sqrtf(tg[0] * tg[0] + tg[1] * tg[1] + tg[2] * tg[2]);
        for (int i = 0; i < 3; i++)
            tg[i] /= tl;
        /* binormal b = t x n, so that n x b = t (the ring winds counter-clockwise about t) */
        float b[3] = {tg[1] * nn[2] - tg[2] * nn[1], tg[2] * nn[0] - tg[0] * nn[2],
                      tg[0] * nn[1] - tg[1] * nn[0]};
        for (int i = 0; i < 3; i++) {
            centre[3 * k + i] = c[i] + scale * p[i];
            nrm[3 * k + i] = nn[i];
            bin[3 * k + i] = b[i];
        }
    }
    imesh_closed_tube(m, centre, nrm, bin, samples, sides, radius);
    free(centre);
}

static void bumpy_blob(imesh *m, int slices, int stacks)
{
    int first = m->vcount;
    imesh_sphere(m, slices, stacks);
    for (int i = first; i < m->vcount; i++) {
        float *p = m->pos + 3 * i;
        /* a function of the position alone, so the seam and poles stay shared and closed */
        float r = 1.0f + 0.12f * sinf(5.0f * p[0]) * sinf(5.0f * p[1] + 1.0f) * sinf(5.0f * p[2]);
        p[0] *= r, p[1] *= r, p[2] *= r;
    }
    imesh_smooth_normals(m);
}
