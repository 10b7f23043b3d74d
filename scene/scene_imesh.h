/* scene_imesh.h — internal to scene/: the mesh builder the procedural scenes share.
 *
 * Shapes are built once as small indexed meshes (imesh) in local coordinates, then instanced into
 * the scene's triangle soup (soup) through an affine transform. Building each shape once keeps
 * 10M-triangle scenes fast (no per-triangle allocation, one transform per vertex), and indexing
 * guarantees that a vertex shared by several triangles has bit-identical coordinates, so closed
 * shapes stay watertight after the transform.
 *
 * Conventions (what the IZB's back-face culling relies on): every imesh is closed, its triangles
 * are counter-clockwise seen from outside, its normals are unit and point outward. */
#ifndef SCENE_IMESH_H
#define SCENE_IMESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scene.h"
#include "scene_common.h"
#include "scene_frame.h"

/* ---- deterministic random numbers (fixed seed: the same scene every run) ----------------- */

typedef struct rng {
    uint64_t state;
} rng;

static inline uint64_t rng_next(rng *r) /* splitmix64 */
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi) */
static inline float rng_range(rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)(rng_next(r) >> 40) * (1.0f / 16777216.0f);
}

/* ---- indexed mesh in local coordinates ---------------------------------------------------- */

/* Positions and normals are indexed separately (as in OBJ): a box has 8 corners and 6 normals,
 * a tube's cap shares its rim with the side, so each corner is transformed once per instance. */
typedef struct imesh {
    float *pos, *nrm; /* 3 floats per position / normal */
    int *idx;         /* 6 per triangle: 3 position indices, then 3 normal indices */
    int vcount, vcap; /* positions */
    int ncount, ncap; /* normals */
    int tcount, tcap; /* triangles */
    bool oom;         /* an allocation failed: the mesh is incomplete, soup_emit reports it */
} imesh;

int im_pos(imesh *m, float x, float y, float z); /* returns its index */
int im_nrm(imesh *m, float x, float y, float z); /* returns its index */
/* a position with its own normal, at the same index in both arrays (smooth shapes built only
 * with im_vert and im_tri) */
int im_vert(imesh *m, float x, float y, float z, float nx, float ny, float nz);
void im_tri(imesh *m, int a, int b, int c); /* normal indices = position indices */
void im_tri_n(imesh *m, int a, int b, int c, int na, int nb, int nc);
void im_free(imesh *m);
/* One normal per face, the face's own (for sharp-edged shapes that will be scaled anisotropically,
 * where averaged normals would end up facing away from the face). */
void im_flatten(imesh *m);
/* Normal i := area-weighted average of the faces around position i (for shapes with no analytic
 * normal, e.g. displaced surfaces); afterwards normal indices = position indices. */
void im_smooth_normals(imesh *m);

/* Shape generators; each appends to m. */
void im_box(imesh *m); /* cube [-1,1]^3, flat faces: 12 triangles */
/* unit sphere around the y axis: slices >= 3 around, stacks >= 2 from pole to pole;
 * 2 * slices * (stacks - 1) triangles */
void im_sphere(imesh *m, int slices, int stacks);
/* capped cylinder of radius 1 along z from 0 to 1: sides >= 3, segs >= 1 rings along the axis;
 * 2 * sides * (segs + 1) triangles */
void im_tube(imesh *m, int sides, int segs);
/* Closed tube of radius `radius` around a closed curve sampled at n points (ring frames given by
 * the curve: centre[3n], unit normal[3n] and binormal[3n] with tangent = normal x binormal).
 * 2 * n * sides triangles. */
void im_closed_tube(imesh *m, const float *centre, const float *normal, const float *binormal, int n,
                    int sides, float radius);

/* ---- triangle soup: the scene being built ------------------------------------------------- */

/* Affine map p -> m p + t, m column-major (columns: images of the local x, y, z axes).
 * det(m) must be positive, so winding and outward normals survive. */
typedef struct xform {
    float m[9];
    float t[3];
} xform;

/* Bounds as instances are emitted (each imesh position is used by a triangle, so the bounds of
 * the transformed positions are the soup's: no second pass over 10M triangles). */
typedef struct box3 {
    float lo[3], hi[3];
} box3;

typedef struct soup {
    float *xyz, *nrm; /* 9 floats per triangle */
    long count, cap;  /* triangles */
    box3 bounds;      /* valid when count > 0 */
    float *scratch;   /* soup_emit's transformed positions and normals */
    int scratch_cap;  /* in floats */
    bool oom;
} soup;

/* Make room for `extra` more triangles (one allocation for a whole scene when the count is known). */
bool soup_reserve(soup *s, long extra);
/* Append an instance of m under t. */
void soup_emit(soup *s, const imesh *m, const xform *t);
/* Append count instances, mesh[i] under t[i], in parallel (OpenMP): the big scenes' path. */
void soup_emit_batch(soup *s, const imesh *const *mesh, const xform *t, long count);
/* The ground: one upward-facing quad (2 triangles) at height y over [x0,x1] x [z0,z1]. */
void soup_ground(soup *s, float x0, float z0, float x1, float z1, float y);
/* Move the soup into out (xyz, normals, tri_count, bounds); frees the scratch. false on OOM. */
bool soup_finish(soup *s, scene *out, const char *name, char *err, size_t err_size);
void soup_free(soup *s);

/* Transforms. */
xform xf_translate_scale(const float c[3], float scale);
/* box with centre c and half-extents (hx, hy, hz), rotated by yaw about y then pitch about the
 * box's own x axis (degrees) */
xform xf_box(const float c[3], float hx, float hy, float hz, float yaw_deg, float tilt_deg);
/* unit tube (im_tube) onto the segment p0 -> p1 with the given radius */
xform xf_segment(const float p0[3], const float p1[3], float radius);

/* ---- materials of loaded files (scene_material.c) ------------------------------------------ */

struct aiScene;
/* Fill s->materials (one per assimp material) and s->textures from ai; path is the model's file
 * (textures are looked up beside it). Unreadable textures warn on stderr and are left out; false
 * (message in err) only when out of memory. */
bool scene_materials_load(const struct aiScene *ai, const char *path, scene *s, char *err, size_t err_size);
/* True for assimp's stand-in material (a file with none): such triangles keep the renderer's tint. */
bool scene_material_is_default(const struct aiScene *ai, unsigned material);

/* ---- the scenes (one file each) ----------------------------------------------------------- */

/* Each appends its scene to s, the ground first (triangles 0 and 1), and describes its view.
 * n: target triangle count, > 0. Running out of memory is left in s->oom. */
void scene_build_default(soup *s, long n, view_desc *v);
void scene_build_tesseract(soup *s, long n, view_desc *v);
void scene_build_spheres(soup *s, long n, view_desc *v);
void scene_build_grass(soup *s, long n, view_desc *v);

#endif
