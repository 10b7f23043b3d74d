/* scene_imesh.h — internal to scene/: indexed meshes (imesh), the shapes the built-in scenes are
 * made of, in local coordinates. Each shape is built once and instanced many times into the
 * scene's triangle soup (scene_soup.h) through an affine transform (scene_xform.h): no
 * per-triangle allocation for 10M-triangle scenes, one transform per vertex, and a vertex shared
 * by several triangles has bit-identical coordinates in each, so closed shapes stay watertight.
 *
 * Conventions (what the IZB's back-face culling relies on): every imesh is closed, its triangles
 * are counter-clockwise seen from outside, its normals are unit and point outward. */
#ifndef SCENE_IMESH_H
#define SCENE_IMESH_H

#include <stdbool.h>

/* Positions and normals are indexed separately (as in OBJ): a box has 8 corners and 6 normals,
 * a tube's cap shares its rim with the side, so each corner is transformed once per instance. */
typedef struct imesh {
    float *pos, *nrm; /* 3 floats per position / normal (owned, malloc) */
    int *idx;         /* 6 per triangle: 3 position indices, then 3 normal indices (owned) */
    int vcount, vcap; /* positions */
    int ncount, ncap; /* normals */
    int tcount, tcap; /* triangles */
    bool oom;         /* an allocation failed: the mesh is incomplete, soup_emit reports it */
} imesh;

int imesh_pos(imesh *m, float x, float y, float z); /* returns its index */
int imesh_nrm(imesh *m, float x, float y, float z); /* returns its index */
/* a position with its own normal, at the same index in both arrays (smooth shapes built only
 * with imesh_vert and imesh_tri) */
int imesh_vert(imesh *m, float x, float y, float z, float nx, float ny, float nz);
void imesh_tri(imesh *m, int a, int b, int c); /* normal indices = position indices */
void imesh_tri_n(imesh *m, int a, int b, int c, int na, int nb, int nc);
void imesh_free(imesh *m);
/* One normal per face, the face's own (for sharp-edged shapes that will be scaled anisotropically,
 * where averaged normals would end up facing away from the face). */
void imesh_flatten(imesh *m);
/* Normal i := area-weighted average of the faces around position i (for shapes with no analytic
 * normal, e.g. displaced surfaces); afterwards normal indices = position indices. */
void imesh_smooth_normals(imesh *m);

/* Shape generators; each appends to m. */
void imesh_box(imesh *m); /* cube [-1,1]^3, flat faces: 12 triangles */
/* unit sphere around the y axis: slices >= 3 around, stacks >= 2 from pole to pole;
 * 2 * slices * (stacks - 1) triangles */
void imesh_sphere(imesh *m, int slices, int stacks);
/* capped cylinder of radius 1 along z from 0 to 1: sides >= 3, segs >= 1 rings along the axis;
 * 2 * sides * (segs + 1) triangles */
void imesh_tube(imesh *m, int sides, int segs);
/* Closed tube of radius `radius` around a closed curve sampled at n points (ring frames given by
 * the curve: centre[3n], unit normal[3n] and binormal[3n] with tangent = normal x binormal).
 * 2 * n * sides triangles. */
void imesh_closed_tube(imesh *m, const float *centre, const float *normal, const float *binormal, int n,
                       int sides, float radius);

#endif
