/* scene_spheres.c — "spheres": a G x G field of spheres over a 20-unit ground, some resting, some
 * floating so they shadow each other. Both the count and the tessellation grow with N (each about
 * N^(1/2) triangles per sphere, N^(1/2) spheres), so neither becomes absurd from 10K to 10M. */
#include "scene_builtin.h"
#include "scene_rng.h"

#include <math.h>
#include <stdlib.h>

void scene_build_spheres(soup *s, long n, view_desc *v)
{
    /* S slices, S/2 stacks: 2*S*(S/2 - 1) triangles per sphere, aiming at sqrt(N) */
    int slices = (int)lround(1.0 + sqrt(1.0 + sqrt((double)n)));
    slices = slices < 6 ? 6 : slices;
    int stacks = slices / 2;
    long per = 2L * slices * (stacks - 1);
    int g = (int)lround(sqrt((double)(n - 2) / (double)per));
    g = g < 1 ? 1 : g;

    imesh sphere = {0};
    imesh_sphere(&sphere, slices, stacks);
    const imesh **mesh = malloc((size_t)g * g * sizeof *mesh);
    xform *t = malloc((size_t)g * g * sizeof *t);
    const float half = 10.0f, cell = 2.0f * half / (float)g;
    soup_ground(s, -half - cell, -half - cell, half + cell, half + cell, 0.0f);

    rng r = {12345};
    float top = 0.0f;
    for (long i = 0; mesh && t && i < (long)g * g; i++) {
        float rad = cell * rng_range(&r, 0.2f, 0.42f);
        float jx = rng_range(&r, -0.5f, 0.5f) * (cell * 0.5f - rad);
        float jz = rng_range(&r, -0.5f, 0.5f) * (cell * 0.5f - rad);
        /* a third float up to two cells high; the rest rest just above the ground */
        float lift = rng_range(&r, 0.0f, 1.0f) < 0.33f ? rng_range(&r, 0.5f, 2.0f) * cell : 0.01f * rad;
        float c[3] = {-half + cell * ((float)(i / g) + 0.5f) + jx, rad + lift,
                      -half + cell * ((float)(i % g) + 0.5f) + jz};
        mesh[i] = &sphere;
        t[i] = xform_translate_scale(c, rad);
        top = fmaxf(top, c[1] + rad);
    }
    if (mesh && t)
        soup_emit_batch(s, mesh, t, (long)g * g);
    else
        s->oom = true;
    free(mesh);
    free(t);
    imesh_free(&sphere);

    /* the middle of the field fills the view; the rest stretches beyond it */
    *v = (view_desc){.fmin = {-0.6f * half, 0.0f, -0.6f * half},
                     .fmax = {0.6f * half, top, 0.6f * half},
                     .yaw = -30.0f,
                     .pitch = -35.0f,
                     .light_dir = {0.4f, -0.8f, -0.7f}};
}
