/* scene_wave.c — "wave": a thin square slab (a G x G grid of quads on top and bottom, closed by
 * its four sides) floating over a 20-unit ground, for dynamic scenes: scene_animate ripples it so
 * that every triangle but the ground's moves each frame. About 4 G^2 triangles. */
#include "scene_mesh.h"

#include <math.h>

/* vertex (i, j) of the grid, on the top (y = lift) or the bottom (y = lift - thickness) */
static int grid_vert(imesh *m, int g, int i, int j, bool top)
{
    const float half = 8.0f, lift = 3.0f, thick = 0.05f;
    const float x = -half + 2.0f * half * (float)i / (float)g, z = -half + 2.0f * half * (float)j / (float)g;
    return im_pos(m, x, top ? lift : lift - thick, z);
}

void scene_build_wave(soup *s, long n, view_desc *v)
{
    int g = (int)lround(sqrt((double)(n > 8 ? n : 8) / 4.0));
    g = g < 2 ? 2 : g;
    soup_ground(s, -10.0f, -10.0f, 10.0f, 10.0f, 0.0f);

    imesh m = {0};
    /* positions: top grid, then bottom grid, (g + 1)^2 each; index (i, j) -> i * (g + 1) + j */
    for (int top = 1; top >= 0; top--)
        for (int i = 0; i <= g; i++)
            for (int j = 0; j <= g; j++)
                grid_vert(&m, g, i, j, top);
    const int stride = g + 1, bottom = stride * stride;
    const int up = im_nrm(&m, 0, 1, 0), down = im_nrm(&m, 0, -1, 0);
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            const int a = i * stride + j, b = a + 1, c = a + stride + 1, d = a + stride;
            /* counter-clockwise seen from above on top, from below at the bottom */
            im_tri_n(&m, a, b, c, up, up, up);
            im_tri_n(&m, a, c, d, up, up, up);
            im_tri_n(&m, bottom + a, bottom + c, bottom + b, down, down, down);
            im_tri_n(&m, bottom + a, bottom + d, bottom + c, down, down, down);
        }
    /* the four sides, a quad per rim edge; (i0, j0) -> (i1, j1) runs against the top's boundary edge
     * there, so each side meets the top and the bottom in opposite directions (outward winding) */
    const int side_n[4] = {im_nrm(&m, 0, 0, -1), im_nrm(&m, 1, 0, 0), im_nrm(&m, 0, 0, 1),
                           im_nrm(&m, -1, 0, 0)};
    for (int side = 0; side < 4; side++)
        for (int k = 0; k < g; k++) {
            int i0, j0, i1, j1; /* rim edge from (i0, j0) to (i1, j1) */
            switch (side) {
            case 0:
                i0 = k, j0 = 0, i1 = k + 1, j1 = 0;
                break;
            case 1:
                i0 = g, j0 = k, i1 = g, j1 = k + 1;
                break;
            case 2:
                i0 = g - k, j0 = g, i1 = g - k - 1, j1 = g;
                break;
            default:
                i0 = 0, j0 = g - k, i1 = 0, j1 = g - k - 1;
                break;
            }
            const int t0 = i0 * stride + j0, t1 = i1 * stride + j1, nn = side_n[side];
            im_tri_n(&m, t0, t1, bottom + t1, nn, nn, nn);
            im_tri_n(&m, t0, bottom + t1, bottom + t0, nn, nn, nn);
        }
    xform id = xf_translate_scale((const float[3]){0.0f, 0.0f, 0.0f}, 1.0f);
    soup_emit(s, &m, &id);
    im_free(&m);

    *v = (view_desc){.fmin = {-9.0f, 0.0f, -9.0f},
                     .fmax = {9.0f, 3.5f, 9.0f},
                     .yaw = -30.0f,
                     .pitch = -35.0f,
                     .light_dir = {0.3f, -0.9f, -0.4f}};
}
