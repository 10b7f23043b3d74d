/* scene_tesseract.c — "tesseract": the thesis' figure 6.4 test model (a 24-cell, "123K tris"), as
 * a wireframe of thin tubes with a sphere at every vertex, hanging above a ground plane. The
 * 24-cell's 24 vertices and 96 edges are projected from 4D in perspective (the nested-shell look
 * of tesseract pictures), and N sets the tubes' sides and segments: 10K .. 10M triangles. */
#include "scene_builtin.h"

#include <math.h>

enum { VERTS = 24, EDGES = 96 };

/* the 24-cell projected to 3D, scaled and lifted: out[VERTS][3] */
static void polytope(float out[VERTS][3], int edges[EDGES][2]);

void scene_build_tesseract(soup *s, long n, view_desc *v)
{
    /* Budget: 96 tubes of 2*S*(segs+1) triangles, 24 joints of S*(S-2) (S slices, S/2 stacks).
     * Sides S ~ sqrt(per-tube budget) keeps tubes round at every size; segments take the rest. */
    int sides = 2 * (int)lround(0.5 * sqrt((double)n / 108.0));
    sides = sides < 6 ? 6 : sides;
    long joint_tris = (long)sides * (sides - 2);
    long rings = lround((double)(n - 2 - VERTS * joint_tris) / (EDGES * 2.0 * sides));
    int segs = rings > 2 ? (int)rings - 1 : 1;

    float p[VERTS][3];
    int e[EDGES][2];
    polytope(p, e);
    const float tube_r = 0.06f, joint_r = 0.12f;

    imesh tube = {0}, joint = {0};
    imesh_tube(&tube, sides, segs);
    imesh_sphere(&joint, sides, sides / 2);
    const imesh *mesh[EDGES + VERTS];
    xform t[EDGES + VERTS];
    soup_ground(s, -10.0f, -10.0f, 10.0f, 10.0f, 0.0f);
    for (int i = 0; i < EDGES; i++) {
        /* tubes end inside the joints, not at their centres: tubes sharing an end point could share
         * cap vertices, and the scene would no longer be separate closed shapes */
        const float *a = p[e[i][0]], *b = p[e[i][1]];
        float d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float f = 0.5f * joint_r / sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        float a2[3] = {a[0] + f * d[0], a[1] + f * d[1], a[2] + f * d[2]};
        float b2[3] = {b[0] - f * d[0], b[1] - f * d[1], b[2] - f * d[2]};
        mesh[i] = &tube;
        t[i] = xform_segment(a2, b2, tube_r);
    }
    for (int i = 0; i < VERTS; i++) {
        mesh[EDGES + i] = &joint;
        t[EDGES + i] = xform_translate_scale(p[i], joint_r);
    }
    soup_emit_batch(s, mesh, t, EDGES + VERTS);
    imesh_free(&tube);
    imesh_free(&joint);

    /* focus: the polytope and the ground below it, where its shadow falls */
    *v = (view_desc){.fmin = {1e9f, 0.0f, 1e9f},
                     .fmax = {-1e9f, -1e9f, -1e9f},
                     .yaw = 20.0f,
                     .pitch = -25.0f,
                     .light_dir = {0.35f, -1.0f, -0.3f}};
    for (int i = 0; i < VERTS; i++)
        for (int k = 0; k < 3; k++) {
            v->fmin[k] = fminf(v->fmin[k], p[i][k] - joint_r);
            v->fmax[k] = fmaxf(v->fmax[k], p[i][k] + joint_r);
        }
    v->fmin[1] = 0.0f;
}

static void polytope(float out[VERTS][3], int edges[EDGES][2])
{
    /* vertices: the permutations of (+-1, +-1, 0, 0) */
    float q[VERTS][4];
    int nv = 0;
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            for (int sg = 0; sg < 4; sg++) {
                float x[4] = {0, 0, 0, 0};
                x[a] = sg & 1 ? -1.0f : 1.0f;
                x[b] = sg & 2 ? -1.0f : 1.0f;
                for (int k = 0; k < 4; k++)
                    q[nv][k] = x[k];
                nv++;
            }
    /* edges: neighbours at distance sqrt(2), i.e. dot product 1 (8 per vertex) */
    int ne = 0;
    for (int i = 0; i < VERTS; i++)
        for (int j = i + 1; j < VERTS; j++) {
            float d = q[i][0] * q[j][0] + q[i][1] * q[j][1] + q[i][2] * q[j][2] + q[i][3] * q[j][3];
            if (d > 0.5f && d < 1.5f && ne < EDGES) edges[ne][0] = i, edges[ne][1] = j, ne++;
        }
    /* rotate in the xw and yz planes so no edges overlap in projection, then project from w = 3 */
    const float a = 0.45f, b = 0.3f, eye_w = 3.0f, scale = 1.8f, lift = 6.0f;
    for (int i = 0; i < VERTS; i++) {
        float x = q[i][0], y = q[i][1], z = q[i][2], w = q[i][3];
        float x2 = cosf(a) * x - sinf(a) * w, w2 = sinf(a) * x + cosf(a) * w;
        float y2 = cosf(b) * y - sinf(b) * z, z2 = sinf(b) * y + cosf(b) * z;
        float f = scale * eye_w / (eye_w - w2);
        out[i][0] = f * x2;
        out[i][1] = lift + f * y2;
        out[i][2] = f * z2;
    }
}
