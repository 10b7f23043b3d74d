/* scene_imesh.c — the mesh builder shared by the procedural scenes: indexed shapes in local
 * coordinates (box, sphere, tube, tube around a closed curve) and their instancing into the
 * scene's triangle soup. See scene_imesh.h for the winding/normal conventions. */
#include "scene_imesh.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

static const float PI = 3.14159265358979f;
static const float DEG = 0.017453292519943295f;

/* grow *p (elem_size bytes each) to hold at least `need` elements; false on OOM or overflow */
static bool grow(void **p, int *cap, long need, size_t elem_size);
/* append a 3-vector to an array of them; its index, or 0 with *oom set */
static int push3(float **a, int *count, int *cap, bool *oom, float x, float y, float z);
/* one instance of m under t into out_xyz/out_nrm (9 floats per triangle each); scratch holds
 * 3 * (m->vcount + m->ncount) floats */
static void emit(const imesh *m, const xform *t, float *out_xyz, float *out_nrm, float *scratch, box3 *b);
/* b := b united with c (an empty box has lo > hi) */
static void box_merge(box3 *b, const box3 *c);
static const box3 EMPTY_BOX = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
static void cross3(const float a[3], const float b[3], float out[3]);
static inline void normalize3(float v[3]);

/* ---- imesh -------------------------------------------------------------------------------- */

int im_pos(imesh *m, float x, float y, float z)
{
    return push3(&m->pos, &m->vcount, &m->vcap, &m->oom, x, y, z);
}

int im_nrm(imesh *m, float x, float y, float z)
{
    return push3(&m->nrm, &m->ncount, &m->ncap, &m->oom, x, y, z);
}

int im_vert(imesh *m, float x, float y, float z, float nx, float ny, float nz)
{
    assert(m->vcount == m->ncount || m->oom);
    im_nrm(m, nx, ny, nz);
    return im_pos(m, x, y, z);
}

void im_tri(imesh *m, int a, int b, int c)
{
    im_tri_n(m, a, b, c, a, b, c);
}

void im_tri_n(imesh *m, int a, int b, int c, int na, int nb, int nc)
{
    if (m->oom) return;
    if (m->tcount == m->tcap && !grow((void **)&m->idx, &m->tcap, (long)m->tcount + 1, 6 * sizeof(int))) {
        m->oom = true;
        return;
    }
    int *t = m->idx + 6 * m->tcount++;
    t[0] = a, t[1] = b, t[2] = c, t[3] = na, t[4] = nb, t[5] = nc;
}

void im_free(imesh *m)
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
    cross3(e1, e2, n);
}

void im_flatten(imesh *m)
{
    if (m->oom) return;
    m->ncount = 0;
    for (int t = 0; t < m->tcount; t++) {
        float n[3];
        face_normal(m, t, n);
        normalize3(n);
        int k = im_nrm(m, n[0], n[1], n[2]);
        if (m->oom) return;
        m->idx[6 * t + 3] = m->idx[6 * t + 4] = m->idx[6 * t + 5] = k;
    }
}

void im_smooth_normals(imesh *m)
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
        normalize3(m->nrm + 3 * i);
}

void im_box(imesh *m)
{
    /* corner i has x = bit 0, y = bit 1, z = bit 2 (0 -> -1, 1 -> +1); faces counter-clockwise
     * seen from outside */
    static const int face[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                                   {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
    static const float normal[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    int p0 = m->vcount, n0 = m->ncount;
    for (int i = 0; i < 8; i++)
        im_pos(m, i & 1 ? 1.0f : -1.0f, i & 2 ? 1.0f : -1.0f, i & 4 ? 1.0f : -1.0f);
    for (int f = 0; f < 6; f++) {
        im_nrm(m, normal[f][0], normal[f][1], normal[f][2]);
        const int *c = face[f];
        im_tri_n(m, p0 + c[0], p0 + c[1], p0 + c[2], n0 + f, n0 + f, n0 + f);
        im_tri_n(m, p0 + c[0], p0 + c[2], p0 + c[3], n0 + f, n0 + f, n0 + f);
    }
}

void im_sphere(imesh *m, int slices, int stacks)
{
    int top = im_vert(m, 0, 1, 0, 0, 1, 0);
    int ring0 = m->vcount;
    for (int j = 1; j < stacks; j++) {
        float phi = PI * (float)j / (float)stacks, y = cosf(phi), r = sinf(phi);
        for (int i = 0; i < slices; i++) {
            float th = 2.0f * PI * (float)i / (float)slices;
            float x = r * cosf(th), z = r * sinf(th);
            im_vert(m, x, y, z, x, y, z);
        }
    }
    int bottom = im_vert(m, 0, -1, 0, 0, -1, 0);
    /* ring j (1-based) vertex i; i wraps so the seam shares vertices */
#define RING(j, i) (ring0 + ((j)-1) * slices + ((i) % slices))
    for (int i = 0; i < slices; i++) {
        im_tri(m, top, RING(1, i + 1), RING(1, i));
        for (int j = 1; j < stacks - 1; j++) {
            im_tri(m, RING(j, i), RING(j, i + 1), RING(j + 1, i + 1));
            im_tri(m, RING(j, i), RING(j + 1, i + 1), RING(j + 1, i));
        }
        im_tri(m, bottom, RING(stacks - 1, i), RING(stacks - 1, i + 1));
    }
#undef RING
}

void im_tube(imesh *m, int sides, int segs)
{
    /* rings of positions along z (the caps reuse the end rings), radial normals per side, two
     * axial normals for the caps */
    int p0 = m->vcount, n0 = m->ncount;
    for (int k = 0; k <= segs; k++) {
        float z = (float)k / (float)segs; /* exactly 0 and 1 at the ends */
        for (int i = 0; i < sides; i++) {
            float th = 2.0f * PI * (float)i / (float)sides;
            im_pos(m, cosf(th), sinf(th), z);
        }
    }
    int c0 = im_pos(m, 0, 0, 0), c1 = im_pos(m, 0, 0, 1);
    for (int i = 0; i < sides; i++) {
        float th = 2.0f * PI * (float)i / (float)sides;
        im_nrm(m, cosf(th), sinf(th), 0);
    }
    int down = im_nrm(m, 0, 0, -1), up = im_nrm(m, 0, 0, 1);
    int top = p0 + segs * sides;
    for (int i = 0; i < sides; i++) {
        int i1 = (i + 1) % sides;
        for (int k = 0; k < segs; k++) {
            int lo = p0 + k * sides, hi = lo + sides;
            im_tri_n(m, lo + i, lo + i1, hi + i, n0 + i, n0 + i1, n0 + i);
            im_tri_n(m, lo + i1, hi + i1, hi + i, n0 + i1, n0 + i1, n0 + i);
        }
        im_tri_n(m, c0, p0 + i1, p0 + i, down, down, down);
        im_tri_n(m, c1, top + i, top + i1, up, up, up);
    }
}

void im_closed_tube(imesh *m, const float *centre, const float *normal, const float *binormal, int n,
                    int sides, float radius)
{
    int first = m->vcount;
    for (int k = 0; k < n; k++) {
        const float *c = centre + 3 * k, *nn = normal + 3 * k, *bb = binormal + 3 * k;
        for (int i = 0; i < sides; i++) {
            float th = 2.0f * PI * (float)i / (float)sides, cs = cosf(th), sn = sinf(th);
            float d[3] = {cs * nn[0] + sn * bb[0], cs * nn[1] + sn * bb[1], cs * nn[2] + sn * bb[2]};
            normalize3(d);
            im_vert(m, c[0] + radius * d[0], c[1] + radius * d[1], c[2] + radius * d[2], d[0], d[1], d[2]);
        }
    }
    for (int k = 0; k < n; k++) {
        int lo = first + k * sides, hi = first + ((k + 1) % n) * sides;
        for (int i = 0; i < sides; i++) {
            int i1 = (i + 1) % sides;
            im_tri(m, lo + i, lo + i1, hi + i);
            im_tri(m, lo + i1, hi + i1, hi + i);
        }
    }
}

/* ---- soup --------------------------------------------------------------------------------- */

/* realloc, but big blocks are 2 MB aligned and advised into transparent huge pages: a 10M-triangle
 * scene is 720 MB, and faulting it in 4 KB pages costs more than building it. Still free()able. */
static void *big_realloc(void *p, size_t used, size_t size)
{
    const size_t huge = (size_t)2 << 20;
    if (size < 4 * huge) return realloc(p, size);
    size = (size + huge - 1) / huge * huge;
    void *q = aligned_alloc(huge, size);
    if (!q) return NULL;
#if defined(MADV_HUGEPAGE)
    madvise(q, size, MADV_HUGEPAGE);
#endif
    if (p) memcpy(q, p, used);
    free(p);
    return q;
}

bool soup_reserve(soup *s, long extra)
{
    long need = s->count + extra;
    if (s->oom) return false;
    if (need <= s->cap) return true;
    if (need > INT_MAX) {
        s->oom = true;
        return false;
    }
    /* doubling for piecemeal growth, exact for one big batch */
    long cap = 2 * s->cap > need ? 2 * s->cap : need;
    float *x = big_realloc(s->xyz, (size_t)s->count * 9 * sizeof(float), (size_t)cap * 9 * sizeof(float));
    if (x) s->xyz = x;
    float *n =
        x ? big_realloc(s->nrm, (size_t)s->count * 9 * sizeof(float), (size_t)cap * 9 * sizeof(float)) : NULL;
    if (n) s->nrm = n;
    if (!x || !n) {
        s->oom = true;
        return false;
    }
    s->cap = cap;
    return true;
}

void soup_emit(soup *s, const imesh *m, const xform *t)
{
    if (s->oom || m->oom) {
        s->oom = true;
        return;
    }
    if (!soup_reserve(s, m->tcount) ||
        !grow((void **)&s->scratch, &s->scratch_cap, 3L * (m->vcount + m->ncount), sizeof(float))) {
        s->oom = true;
        return;
    }
    box3 b = EMPTY_BOX;
    emit(m, t, s->xyz + 9 * s->count, s->nrm + 9 * s->count, s->scratch, &b);
    if (s->count == 0) s->bounds = EMPTY_BOX;
    box_merge(&s->bounds, &b);
    s->count += m->tcount;
}

void soup_emit_batch(soup *s, const imesh *const *mesh, const xform *t, long count)
{
    long tris = 0;
    int scratch = 0;
    for (long i = 0; i < count; i++) {
        if (mesh[i]->oom) s->oom = true;
        tris += mesh[i]->tcount;
        int need = 3 * (mesh[i]->vcount + mesh[i]->ncount);
        scratch = need > scratch ? need : scratch;
    }
    if (s->oom || !soup_reserve(s, tris)) return;
    float *xyz = s->xyz + 9 * s->count, *nrm = s->nrm + 9 * s->count;
    int oom = 0;
    box3 all = EMPTY_BOX;
    /* Instances write disjoint ranges; their offsets follow from the meshes alone. Each thread
     * takes a contiguous block so it can walk its offset forward instead of a prefix sum. */
#if defined(_OPENMP)
#pragma omp parallel reduction(|| : oom)
#endif
    {
        float *tmp = malloc((size_t)scratch * sizeof(float));
        box3 b = EMPTY_BOX;
        int nth = 1, me = 0;
#if defined(_OPENMP)
        nth = omp_get_num_threads();
        me = omp_get_thread_num();
#endif
        long lo = count * me / nth, hi = count * (me + 1) / nth, off = 0;
        for (long i = 0; i < lo; i++)
            off += mesh[i]->tcount;
        for (long i = lo; tmp && i < hi; i++) {
            emit(mesh[i], &t[i], xyz + 9 * off, nrm + 9 * off, tmp, &b);
            off += mesh[i]->tcount;
        }
        oom = oom || !tmp;
        free(tmp);
#if defined(_OPENMP)
#pragma omp critical
#endif
        box_merge(&all, &b);
    }
    s->oom |= oom;
    if (s->count == 0) s->bounds = EMPTY_BOX;
    box_merge(&s->bounds, &all);
    s->count += tris;
}

void soup_ground(soup *s, float x0, float z0, float x1, float z1, float y)
{
    if (!soup_reserve(s, 2)) return;
    /* counter-clockwise seen from above */
    const float q[6][3] = {{x0, y, z0}, {x0, y, z1}, {x1, y, z1}, {x0, y, z0}, {x1, y, z1}, {x1, y, z0}};
    float *ox = s->xyz + 9 * s->count, *on = s->nrm + 9 * s->count;
    for (int k = 0; k < 6; k++) {
        memcpy(ox + 3 * k, q[k], sizeof q[k]);
        on[3 * k] = 0, on[3 * k + 1] = 1, on[3 * k + 2] = 0;
    }
    box3 b = {{fminf(x0, x1), y, fminf(z0, z1)}, {fmaxf(x0, x1), y, fmaxf(z0, z1)}};
    if (s->count == 0) s->bounds = EMPTY_BOX;
    box_merge(&s->bounds, &b);
    s->count += 2;
}

bool soup_finish(soup *s, scene *out, const char *name, char *err, size_t err_size)
{
    free(s->scratch);
    s->scratch = NULL;
    s->scratch_cap = 0;
    if (s->oom || s->count > INT_MAX) {
        long want = s->cap > s->count ? s->cap : s->count;
        soup_free(s);
        return scene_errorf(err, err_size, "scene '%s': out of memory building about %ld triangles", name,
                            want);
    }
    /* give back the unused tail of the doubling growth (cheap: the blocks are mmapped) */
    if (s->count < s->cap && s->count > 0) {
        float *x = realloc(s->xyz, (size_t)s->count * 9 * sizeof(float));
        if (x) s->xyz = x;
        float *n = realloc(s->nrm, (size_t)s->count * 9 * sizeof(float));
        if (n) s->nrm = n;
    }
    out->xyz = s->xyz;
    out->normals = s->nrm;
    out->tri_count = (int)s->count;
    memcpy(out->bounds_min, s->bounds.lo, sizeof out->bounds_min);
    memcpy(out->bounds_max, s->bounds.hi, sizeof out->bounds_max);
    if (s->count == 0) scene_compute_bounds(out); /* zero bounds */
    memset(s, 0, sizeof *s);
    return true;
}

void soup_free(soup *s)
{
    free(s->xyz);
    free(s->nrm);
    free(s->scratch);
    memset(s, 0, sizeof *s);
}

/* ---- transforms --------------------------------------------------------------------------- */

xform xf_translate_scale(const float c[3], float scale)
{
    return (xform){.m = {scale, 0, 0, 0, scale, 0, 0, 0, scale}, .t = {c[0], c[1], c[2]}};
}

xform xf_box(const float c[3], float hx, float hy, float hz, float yaw_deg, float tilt_deg)
{
    float ca = cosf(yaw_deg * DEG), sa = sinf(yaw_deg * DEG);
    float ct = cosf(tilt_deg * DEG), st = sinf(tilt_deg * DEG);
    /* R = Ry(yaw) Rx(tilt), columns scaled by the half-extents */
    return (xform){.m = {hx * ca, 0, -hx * sa, hy * st * sa, hy * ct, hy * st * ca, hz * ct * sa, -hz * st,
                         hz * ct * ca},
                   .t = {c[0], c[1], c[2]}};
}

xform xf_segment(const float p0[3], const float p1[3], float radius)
{
    float d[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, dn[3] = {d[0], d[1], d[2]}, u[3], v[3];
    normalize3(dn);
    /* u: perpendicular to d, from the axis least aligned with it; v = d x u so that u x v = d */
    float ax[3] = {0, 0, 0};
    float a0 = fabsf(dn[0]), a1 = fabsf(dn[1]), a2 = fabsf(dn[2]);
    ax[a0 <= a1 && a0 <= a2 ? 0 : a1 <= a2 ? 1 : 2] = 1.0f;
    cross3(dn, ax, u);
    normalize3(u);
    cross3(dn, u, v);
    xform x;
    for (int i = 0; i < 3; i++) {
        x.m[i] = radius * u[i];
        x.m[3 + i] = radius * v[i];
        x.m[6 + i] = d[i];
        x.t[i] = p0[i];
    }
    return x;
}

/* ---- small helpers ------------------------------------------------------------------------ */

static void box_merge(box3 *b, const box3 *c)
{
    for (int k = 0; k < 3; k++) {
        b->lo[k] = c->lo[k] < b->lo[k] ? c->lo[k] : b->lo[k];
        b->hi[k] = c->hi[k] > b->hi[k] ? c->hi[k] : b->hi[k];
    }
}

static void emit(const imesh *m, const xform *t, float *out_xyz, float *out_nrm, float *scratch, box3 *b)
{
    float *tp = scratch, *tn = scratch + 3 * m->vcount;
    /* normals map through the cofactor matrix (det * M^-T): columns c1 x c2, c2 x c0, c0 x c1 */
    const float *c0 = t->m, *c1 = t->m + 3, *c2 = t->m + 6;
    float k0[3], k1[3], k2[3];
    cross3(c1, c2, k0);
    cross3(c2, c0, k1);
    cross3(c0, c1, k2);
    for (int v = 0; v < m->vcount; v++) {
        const float *p = m->pos + 3 * v;
        for (int i = 0; i < 3; i++) {
            float x = c0[i] * p[0] + c1[i] * p[1] + c2[i] * p[2] + t->t[i];
            tp[3 * v + i] = x;
            b->lo[i] = x < b->lo[i] ? x : b->lo[i];
            b->hi[i] = x > b->hi[i] ? x : b->hi[i];
        }
    }
    /* A rotation times a uniform scale (spheres, cubes) maps unit normals to normals of one common
     * length: divide it out of the matrix once instead of normalising every normal. */
    float l0 = k0[0] * k0[0] + k0[1] * k0[1] + k0[2] * k0[2],
          l1 = k1[0] * k1[0] + k1[1] * k1[1] + k1[2] * k1[2];
    float l2 = k2[0] * k2[0] + k2[1] * k2[1] + k2[2] * k2[2];
    float d01 = k0[0] * k1[0] + k0[1] * k1[1] + k0[2] * k1[2],
          d02 = k0[0] * k2[0] + k0[1] * k2[1] + k0[2] * k2[2];
    float d12 = k1[0] * k2[0] + k1[1] * k2[1] + k1[2] * k2[2];
    bool similar = fabsf(l1 - l0) <= 1e-6f * l0 && fabsf(l2 - l0) <= 1e-6f * l0 && fabsf(d01) <= 1e-6f * l0 &&
                   fabsf(d02) <= 1e-6f * l0 && fabsf(d12) <= 1e-6f * l0 && l0 > 0.0f;
    if (similar) {
        float inv = 1.0f / sqrtf(l0);
        for (int i = 0; i < 3; i++)
            k0[i] *= inv, k1[i] *= inv, k2[i] *= inv;
    }
    for (int v = 0; v < m->ncount; v++) {
        const float *n = m->nrm + 3 * v;
        for (int i = 0; i < 3; i++)
            tn[3 * v + i] = k0[i] * n[0] + k1[i] * n[1] + k2[i] * n[2];
        if (!similar) normalize3(tn + 3 * v);
    }
    const int *idx = m->idx;
    for (int tri = 0; tri < m->tcount; tri++, idx += 6) {
        for (int k = 0; k < 3; k++) {
            memcpy(out_xyz, tp + 3 * idx[k], 3 * sizeof(float));
            memcpy(out_nrm, tn + 3 * idx[3 + k], 3 * sizeof(float));
            out_xyz += 3, out_nrm += 3;
        }
    }
}

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

static void cross3(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline void normalize3(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0.0f) {
        float inv = 1.0f / l;
        v[0] *= inv, v[1] *= inv, v[2] *= inv;
    } else {
        v[0] = 0, v[1] = 1, v[2] = 0; /* never for a closed shape; keeps the normal unit anyway */
    }
}
