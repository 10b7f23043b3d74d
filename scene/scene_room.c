/* scene_room.c — "room": a closed room (floor, four walls, ceiling: thin closed slabs) with
 * furniture (a table with legs, stools, a shelf, a lamp column) and spheres on the table and the
 * floor, for a point light (--light point) that hangs inside it: its shadows fall on every wall,
 * across the seams of the light's cube faces. The camera stands inside, in a corner. N sets the
 * spheres' tessellation (about N triangles; 1K .. 10M). */
#include "scene_builtin.h"

#include <math.h>

enum { SPHERES = 14 };

/* the room's half sizes: x and z, and its height */
static const float HALF = 6.0f, HEIGHT = 4.5f, WALL = 0.1f;

void scene_build_room(soup *s, long n, view_desc *v)
{
    imesh box = {0}, ball = {0};
    imesh_box(&box);
    /* spheres get what the boxes (12 triangles each) leave: S slices, S/2 stacks = S*(S-2) each */
    long per = n / SPHERES;
    int sides = 2 * (int)lround(0.5 * sqrt((double)(per > 48 ? per : 48)));
    sides = sides < 8 ? 8 : sides > 2048 ? 2048 : sides;
    imesh_sphere(&ball, sides, sides / 2);

    /* The floor (triangles 0 and 1) reaches under the walls, and the slabs overlap at the corners
     * without sharing an edge: every piece stays a closed shape of its own. */
    const float F = HALF + 0.5f * WALL;
    soup_ground(s, -F, -F, F, F, 0.0f);
    const float h = HEIGHT, hy = 0.5f * HEIGHT + WALL, c[][7] = {
        /* centre xyz, half extents xyz, yaw: walls (from the floor up) and the ceiling */
        {0, hy, -HALF - WALL, HALF + 2 * WALL, hy, WALL, 0},
        {0, hy, HALF + WALL, HALF + 2 * WALL, hy, WALL, 0},
        {-HALF - WALL, hy, 0, WALL, hy, HALF + 0.5f * WALL, 0},
        {HALF + WALL, hy, 0, WALL, hy, HALF + 0.5f * WALL, 0},
        {0, h + WALL, 0, HALF + 1.5f * WALL, WALL, HALF + 1.5f * WALL, 0},
        /* a table: top and four legs */
        {0.5f, 1.0f, -0.5f, 1.6f, 0.06f, 0.9f, 15},
        {-0.85f, 0.47f, -1.55f, 0.07f, 0.47f, 0.07f, 15},
        {2.2f, 0.47f, -1.0f, 0.07f, 0.47f, 0.07f, 15},
        {-1.2f, 0.47f, 0.0f, 0.07f, 0.47f, 0.07f, 15},
        {1.85f, 0.47f, 0.55f, 0.07f, 0.47f, 0.07f, 15},
        /* stools, a shelf against the back wall, a lamp column */
        {-2.6f, 0.35f, 1.4f, 0.4f, 0.35f, 0.4f, 30},
        {3.2f, 0.35f, 1.8f, 0.4f, 0.35f, 0.4f, -20},
        {-1.5f, 1.6f, -5.6f, 2.2f, 0.05f, 0.35f, 0},
        {-1.5f, 2.6f, -5.6f, 2.2f, 0.05f, 0.35f, 0},
        {4.2f, 1.2f, -3.8f, 0.12f, 1.2f, 0.12f, 0},
    };
    const int boxes = (int)(sizeof c / sizeof c[0]);
    const imesh *mesh[sizeof c / sizeof c[0] + SPHERES];
    xform t[sizeof c / sizeof c[0] + SPHERES];
    for (int i = 0; i < boxes; i++) {
        mesh[i] = &box;
        t[i] = xform_box(c[i], c[i][3], c[i][4], c[i][5], c[i][6], 0.0f);
    }
    /* spheres: some on the table, some on the shelf, the rest on the floor, in a fixed pattern */
    for (int i = 0; i < SPHERES; i++) {
        float p[3], r;
        if (i < 4) {
            r = 0.25f + 0.05f * (float)i;
            p[0] = -0.4f + 0.65f * (float)i, p[1] = 1.06f + r, p[2] = -0.8f + 0.3f * (float)(i & 1);
        } else if (i < 7) {
            r = 0.2f;
            p[0] = -3.0f + 1.2f * (float)(i - 4), p[1] = 1.65f + r, p[2] = -5.6f;
        } else {
            const float a = 0.9f * (float)i;
            r = 0.3f + 0.08f * (float)(i % 3);
            p[0] = 4.3f * cosf(a), p[1] = r, p[2] = 4.3f * sinf(a);
        }
        mesh[boxes + i] = &ball;
        t[boxes + i] = xform_translate_scale(p, r);
    }
    soup_emit_batch(s, mesh, t, boxes + SPHERES);
    imesh_free(&box);
    imesh_free(&ball);

    /* inside: the camera in a corner looking across the room, the light under the ceiling */
    *v = (view_desc){.fmin = {-HALF, 0.0f, -HALF},
                     .fmax = {HALF, HEIGHT, HALF},
                     .yaw = -45.0f,
                     .pitch = -18.0f,
                     .light_dir = {0.0f, -1.0f, 0.0f},
                     .inside = true,
                     .cam_at = {4.9f, 2.6f, 4.9f},
                     .light_at = {0.8f, 3.4f, 0.6f}};
}
