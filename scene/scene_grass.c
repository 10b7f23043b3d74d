/* scene_grass.c — "grass": a 12 x 12 lawn of thin closed blades, N / 22 of them. The IZB's hard
 * case: many tiny, thin, overlapping casters whose shadows land on each other and on the ground.
 * Blades are instances of a few bent templates under a random rotation, size and lean (a shear),
 * so building 10M triangles is a transform per vertex and a copy per triangle. */
#include "scene_builtin.h"
#include "scene_rng.h"

#include <math.h>
#include <stdlib.h>

enum { LEVELS = 4, TEMPLATES = 8, TRIS_PER_BLADE = 6 * LEVELS - 2 };

static const float PI = 3.14159265358979f;

/* a blade of height 1 and base radius 1, bending towards +x by `bend` base radii at the tip (the
 * instance scales x by the blade's width, ~1/30 of its height, so 12 is a strong bend): LEVELS
 * triangular cross-sections tapering to a tip, closed by a cap below */
static void blade(imesh *m, float bend);

void scene_build_grass(soup *s, long n, view_desc *v)
{
    long count = (n - 2) / TRIS_PER_BLADE;
    count = count < 1 ? 1 : count;
    imesh tmpl[TEMPLATES] = {{0}};
    for (int i = 0; i < TEMPLATES; i++)
        blade(&tmpl[i], 12.0f * (float)i / (float)(TEMPLATES - 1));

    const float half = 6.0f;
    const imesh **mesh = malloc((size_t)count * sizeof *mesh);
    xform *t = malloc((size_t)count * sizeof *t);
    soup_ground(s, -half - 1.0f, -half - 1.0f, half + 1.0f, half + 1.0f, 0.0f);
    rng r = {777};
    for (long i = 0; mesh && t && i < count; i++) {
        mesh[i] = &tmpl[rng_next(&r) % TEMPLATES];
        float a = rng_range(&r, 0.0f, 2.0f * PI), ca = cosf(a), sa = sinf(a);
        float h = rng_range(&r, 0.25f, 0.7f), w = rng_range(&r, 0.010f, 0.022f);
        float lx = rng_range(&r, -0.12f, 0.12f) * h, lz = rng_range(&r, -0.12f, 0.12f) * h;
        /* rotation about y times a shear along the blade: det = h * w^2 > 0 */
        t[i] = (xform){.m = {w * ca, 0, -w * sa, lx, h, lz, w * sa, 0, w * ca},
                       .t = {rng_range(&r, -half, half), 0.0f, rng_range(&r, -half, half)}};
    }
    if (mesh && t)
        soup_emit_batch(s, mesh, t, count);
    else
        s->oom = true;
    free(mesh);
    free(t);
    for (int i = 0; i < TEMPLATES; i++)
        imesh_free(&tmpl[i]);

    /* the middle of the lawn: blades are a few pixels wide from further away */
    *v = (view_desc){.fmin = {-2.5f, 0.0f, -2.5f},
                     .fmax = {2.5f, 0.7f, 2.5f},
                     .yaw = -30.0f,
                     .pitch = -35.0f,
                     .light_dir = {0.6f, -1.0f, -0.5f}};
}

static void blade(imesh *m, float bend)
{
    int ring[LEVELS][3];
    for (int k = 0; k < LEVELS; k++) {
        float y = (float)k / (float)LEVELS, rad = 1.0f - 0.8f * y, off = bend * y * y;
        for (int i = 0; i < 3; i++) {
            float th = 2.0f * PI * (float)i / 3.0f;
            ring[k][i] = imesh_vert(m, off + rad * cosf(th), y, rad * sinf(th), 0, 1, 0);
        }
    }
    int tip = imesh_vert(m, bend, 1.0f, 0.0f, 0, 1, 0);
    /* same winding as imesh_sphere: rings counter-clockwise seen from below */
    imesh_tri(m, ring[0][0], ring[0][1], ring[0][2]);
    for (int k = 0; k + 1 < LEVELS; k++)
        for (int i = 0; i < 3; i++) {
            int i1 = (i + 1) % 3;
            imesh_tri(m, ring[k + 1][i], ring[k + 1][i1], ring[k][i1]);
            imesh_tri(m, ring[k + 1][i], ring[k][i1], ring[k][i]);
        }
    for (int i = 0; i < 3; i++)
        imesh_tri(m, tip, ring[LEVELS - 1][(i + 1) % 3], ring[LEVELS - 1][i]);
    /* flat: the instance squeezes the blade ~30:1, which would turn averaged corner normals away
     * from the faces they belong to */
    imesh_flatten(m);
}
