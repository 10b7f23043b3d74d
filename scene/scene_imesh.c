/* scene_imesh.c — indexed meshes in local coordinates and the shapes the built-in scenes are made
 * of (box, sphere, tube, tube around a closed curve). See scene_imesh.h for the winding/normal
 * conventions. */
#include "scene_imesh.h"
#include "scene_vec3.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const float PI = 3.14159265358979f;

/* grow *p (elem_size bytes each) to hold at least `need` elements; false on OOM or overflow */
static bool grow(void **p, int *cap, long need, size_t elem_size);
/* append a 3-vector to an array of them; its index, or 0 with *oom set */
static int push3(float **a, int *count, int *cap, bool *oom, float x, float y, float z);

int imesh_pos(imesh *m, float x, float y, float z)
{
    return push3(&m->pos, &m->vcount, &m->vcap, &m->oom, x, y, z);
}

int imesh_nrm(imesh *m, float x, float y, float z)
{
    return push3(&m->nrm, &m->ncount, &m->ncap, &m->oom, x, y, z);
}

int imesh_vert(imesh *m, float x, float y, float z, float nx, float ny, float nz)
{
    assert(m->vcount == m->ncount || m->oom);
    imesh_nrm(m, nx, ny, nz);
    return imesh_pos(m, x, y, z);
}

void imesh_tri(imesh *m, int a, int b, int c)
{
    imesh_tri_n(m, a, b, c, a, b, c);
}

void imesh_tri_n(imesh *m, int a, int b, int c, int na, int nb, int nc)
{
    if (m->oom) return;
    if (m->tcount == m->tcap && !grow((void **)&m->idx, &m->tcap, (long)m->tcount + 1, 6 * sizeof(int))) {
        m->oom = true;
        return;
    }
    int *t = m->idx + 6 * m->tcount++;
    t[0] = a, t[1] = b, t[2] = c, t[3] = na, t[4] = nb, t[5] = nc;
}

void imesh_free(imesh *m)
{
    free(m->pos);
    free(m->nrm);
    free(m->idx);
    memset(m, 0, sizeof *m);
}

/* twice the area times the unit normal of triangle t */
static void face_normal(const imesh *m, int t, float n[3])
{
    const int *v = m->idx + 6 * t;
    const float *a = m->pos + 3 * v[0], *b = m->pos + 3 * v[1], *c = m->pos + 3 * v[2];
    float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    vec3_cross(e1, e2, n);
}

void imesh_flatten(imesh *m)
{
    if (m->oom) return;
    m->ncount = 0;
    for (int t = 0; t < m->tcount; t++) {
        float n[3];
        face_normal(m, t, n);
        vec3_normalize(n);
        int k = imesh_nrm(m, n[0], n[1], n[2]);
        if (m->oom) return;
        m->idx[6 * t + 3] = m->idx[6 * t + 4] = m->idx[6 * t + 5] = k;
    }
}

void imesh_smooth_normals(imesh *m)
{
    if (m->oom || !grow((void **)&m->nrm, &m->ncap, m->vcount, 3 * sizeof(float))) {
        m->oom = true;
        return;
    }
    m->ncount = m->vcount;
    memset(m->nrm, 0, (size_t)m->vcount * 3 * sizeof(float));
    for (int t = 0; t < m->tcount; t++) {
        int *v = m->idx + 6 * t;
        float n[3];
        face_normal(m, t, n); /* length = twice the area: the weighting we want */
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < 3; i++)
                m->nrm[3 * v[k] + i] += n[i];
            v[3 + k] = v[k];
        }
    }
    for (int i = 0; i < m->vcount; i++)
        vec3_normalize(m->nrm + 3 * i);
}

void imesh_box(imesh *m)
{
    /* corner i has x = bit 0, y = bit 1, z = bit 2 (0 -> -1, 1 -> +1); faces counter-clockwise
     * seen from outside */
    static const int face[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                                   {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
    static const float normal[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    int p0 = m->vcount, n0 = m->ncount;
    for (int i = 0; i < 8; i++)
        imesh_pos(m, i & 1 ? 1.0f : -1.0f, i & 2 ? 1.0f : -1.0f, i & 4 ? 1.0f : -1.0f);
    for (int f = 0; f < 6; f++) {
        imesh_nrm(m, normal[f][0], normal[f][1], normal[f][2]);
        const int *c = face[f];
        imesh_tri_n(m, p0 + c[0], p0 + c[1], p0 + c[2], n0 + f, n0 + f, n0 + f);
        imesh_tri_n(m, p0 + c[0], p0 + c[2], p0 + c[3], n0 + f, n0 + f, n0 + f);
    }
}

void imesh_sphere(imesh *m, int slices, int stacks)
{
    int top = imesh_vert(m, 0, 1, 0, 0, 1, 0);
    int ring0 = m->vcount;
    for (int j = 1; j < stacks; j++) {
        float phi = PI * (float)j / (float)stacks, y = cosf(phi), r = sinf(phi);
        for (int i = 0; i < slices; i++) {
            float th = 2.0f * PI * (float)i / (float)slices;
            float x = r * cosf(th), z = r * sinf(th);
            imesh_vert(m, x, y, z, x, y, z);
        }
    }
    int bottom = imesh_vert(m, 0, -1, 0, 0, -1, 0);
    /* ring j (1-based) vertex i; i wraps so the seam shares vertices */
#define RING(j, i) (ring0 + ((j)-1) * slices + ((i) % slices))
    for (int i = 0; i < slices; i++) {
        imesh_tri(m, top, RING(1, i + 1), RING(1, i));
        for (int j = 1; j < stacks - 1; j++) {
            imesh_tri(m, RING(j, i), RING(j, i + 1), RING(j + 1, i + 1));
            imesh_tri(m, RING(j, i), RING(j + 1, i + 1), RING(j + 1, i));
        }
        imesh_tri(m, bottom, RING(stacks - 1, i), RING(stacks - 1, i + 1));
    }
#undef RING
}

void imesh_tube(imesh *m, int sides, int segs)
{
    /* rings of positions along z (the caps reuse the end rings), radial normals per side, two
     * axial normals for the caps */
    int p0 = m->vcount, n0 = m->ncount;
    for (int k = 0; k <= segs; k++) {
        float z = (float)k / (float)segs; /* exactly 0 and 1 at the ends */
        for (int i = 0; i < sides; i++) {
            float th = 2.0f * PI * (float)i / (float)sides;
            imesh_pos(m, cosf(th), sinf(th), z);
        }
    }
    int c0 = imesh_pos(m, 0, 0, 0), c1 = imesh_pos(m, 0, 0, 1);
    for (int i = 0; i < sides; i++) {
        float th = 2.0f * PI * (float)i / (float)sides;
        imesh_nrm(m, cosf(th), sinf(th), 0);
    }
    int down = imesh_nrm(m, 0, 0, -1), up = imesh_nrm(m, 0, 0, 1);
    int top = p0 + segs * sides;
    for (int i = 0; i < sides; i++) {
        int i1 = (i + 1) % sides;
        for (int k = 0; k < segs; k++) {
            int lo = p0 + k * sides, hi = lo + sides;
            imesh_tri_n(m, lo + i, lo + i1, hi + i, n0 + i, n0 + i1, n0 + i);
            imesh_tri_n(m, lo + i1, hi + i1, hi + i, n0 + i1, n0 + i1, n0 + i);
        }
        imesh_tri_n(m, c0, p0 + i1, p0 + i, down, down, down);
        imesh_tri_n(m, c1, top + i, top + i1, up, up, up);
    }
}

void imesh_closed_tube(imesh *m, const float *centre, const float *normal, const float *binormal, int n,
                       int sides, float radius)
{
    int first = m->vcount;
    for (int k = 0; k < n; k++) {
        const float *c = centre + 3 * k, *nn = normal + 3 * k, *bb = binormal + 3 * k;
        for (int i = 0; i < sides; i++) {
            float th = 2.0f * PI * (float)i / (float)sides, cs = cosf(th), sn = sinf(th);
            float d[3] = {cs * nn[0] + sn * bb[0], cs * nn[1] + sn * bb[1], cs * nn[2] + sn * bb[2]};
            vec3_normalize(d);
            imesh_vert(m, c[0] + radius * d[0], c[1] + radius * d[1], c[2] + radius * d[2], d[0], d[1], d[2]);
        }
    }
    for (int k = 0; k < n; k++) {
        int lo = first + k * sides, hi = first + ((k + 1) % n) * sides;
        for (int i = 0; i < sides; i++) {
            int i1 = (i + 1) % sides;
            imesh_tri(m, lo + i, lo + i1, hi + i);
            imesh_tri(m, lo + i1, hi + i1, hi + i);
        }
    }
}

/* ---- small helpers ------------------------------------------------------------------------ */

static int push3(float **a, int *count, int *cap, bool *oom, float x, float y, float z)
{
    if (*oom) return 0;
    if (!grow((void **)a, cap, (long)*count + 1, 3 * sizeof(float))) {
        *oom = true;
        return 0;
    }
    float *p = *a + 3 * *count;
    p[0] = x, p[1] = y, p[2] = z;
    return (*count)++;
}

static bool grow(void **p, int *cap, long need, size_t elem_size)
{
    if (need <= *cap) return true;
    long c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    if (c > INT_MAX) return false;
    void *q = realloc(*p, (size_t)c * elem_size);
    if (!q) return false;
    *p = q;
    *cap = (int)c;
    return true;
}
