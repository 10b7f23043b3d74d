/* scene_up.c — standing a model up (scene.h: scene_set_up): model files disagree on which axis is
 * up (OBJ and glTF say +y, X and AC files are often z-up or upside down), so a viewer lets the
 * user name the file's up axis, as model viewers do. The turn is one of the 24 rotations of the
 * axes, a signed permutation: exact in float, and never a mirror, so closed meshes stay closed
 * and outward-facing. */
#include "scene.h"
#include "scene_common.h"
#include "scene_frame.h"

#include <stdio.h>
#include <string.h>

const char *const scene_up_names[SCENE_UP_COUNT] = {"y", "z", "x", "-y", "-z", "-x"};

/* Row i of ROT[up] takes world axis i from file axis (AXIS[i] ... with sign SIGN[i]):
 * world[i] = SIGN[i] * file[AXIS[i]]. Each turns the file's axis `up` to +y with determinant +1. */
static const int AXIS[SCENE_UP_COUNT][3] = {
    {0, 1, 2}, /* y: as it is */
    {0, 2, 1}, /* z: (x, z, -y), a quarter turn about x */
    {1, 0, 2}, /* x: (-y, x, z), a quarter turn about z */
    {0, 1, 2}, /* -y: (x, -y, -z), a half turn about x */
    {0, 2, 1}, /* -z: (x, -z, y) */
    {1, 0, 2}, /* -x: (y, -x, z) */
};
static const float SIGN[SCENE_UP_COUNT][3] = {
    {1, 1, 1}, {1, 1, -1}, {-1, 1, 1}, {1, -1, -1}, {1, -1, 1}, {1, -1, 1},
};

/* v (3 floats) from the file's axes to the world's under `up`, and back */
static void turn(scene_up up, float v[3])
{
    const float f[3] = {v[0], v[1], v[2]};
    for (int i = 0; i < 3; i++)
        v[i] = SIGN[up][i] * f[AXIS[up][i]];
}

static void unturn(scene_up up, float v[3])
{
    const float w[3] = {v[0], v[1], v[2]};
    for (int i = 0; i < 3; i++)
        v[AXIS[up][i]] = SIGN[up][i] * w[i];
}

bool scene_set_up(scene *s, scene_up up, char *err, size_t err_size)
{
    if ((int)up < 0 || up >= SCENE_UP_COUNT)
        return scene_errorf(err, err_size, "scene '%s': no such up axis", s->name);
    if (up == s->up) return true;
    if (strncmp(s->name, "builtin:", 8) == 0)
        return scene_errorf(err, err_size, "scene '%s': built-in scenes stand y-up; --up turns model files",
                            s->name);
    const int ground = s->ground_tris;
    const size_t model = (size_t)(s->tri_count - ground);
    for (size_t i = 0; i < 3 * model; i++) {
        unturn(s->up, s->xyz + 3 * i);
        turn(up, s->xyz + 3 * i);
        unturn(s->up, s->normals + 3 * i);
        turn(up, s->normals + 3 * i);
    }
    s->up = up;
    /* the view and the ground follow the new bounds: the ground is dropped and laid again */
    s->tri_count -= ground;
    s->ground_tris = 0;
    scene_frame_view(s);
    if (ground > 0 && !scene_add_ground(s, err, err_size)) return false;
    return true;
}
