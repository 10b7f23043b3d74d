/* test_cube.h — a closed cube as a triangle soup, for the tests of culling (closed meshes). */
#ifndef TEST_CUBE_H
#define TEST_CUBE_H

#include <stdbool.h>
#include <string.h>

/* Append the 12 triangles (9 floats each) of the cube [c - h, c + h]^3 at triangle n of xyz,
 * counter-clockwise seen from outside (outward normals), or inside out when `flip`; returns
 * n + 12. */
static inline int test_add_cube(float *xyz, int n, const float c[3], float h, bool flip)
{
    for (int axis = 0; axis < 3; axis++)
        for (int side = -1; side <= 1; side += 2) {
            const int u = (axis + 1) % 3, v = (axis + 2) % 3;
            float q[4][3];
            static const float su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
            for (int k = 0; k < 4; k++) {
                q[k][axis] = c[axis] + (float)side * h;
                q[k][u] = c[u] + su[k] * h;
                q[k][v] = c[v] + sv[k] * h;
            }
            /* u x v = axis: counter-clockwise seen from +axis; reverse for the -axis side */
            const bool reverse = (side < 0) != flip;
            const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
            for (int t = 0; t < 2; t++, n++)
                for (int k = 0; k < 3; k++)
                    memcpy(xyz + 9 * n + 3 * k, q[tri[t][reverse ? 2 - k : k]], sizeof q[0]);
        }
    return n;
}

#endif
