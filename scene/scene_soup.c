/* scene_soup.c — the triangle soup a built-in scene is built into: instances of indexed meshes
 * under affine transforms, one at a time or a batch in parallel, and the hand-over to a scene. */
#include "scene_soup.h"
#include "scene_common.h"
#include "scene_frame.h"
#include "scene_vec3.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

/* grow the scratch to hold at least `floats` floats; false on OOM or overflow */
static bool scratch_reserve(soup *s, long floats);
/* one instance of m under t into out_xyz/out_nrm (9 floats per triangle each); scratch holds
 * 3 * (m->vcount + m->ncount) floats */
static void emit(const imesh *m, const xform *t, float *out_xyz, float *out_nrm, float *scratch, box3 *b);
/* b := b united with c (an empty box has lo > hi) */
static void box_merge(box3 *b, const box3 *c);
static const box3 EMPTY_BOX = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};

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
    if (!soup_reserve(s, m->tcount) || !scratch_reserve(s, 3L * (m->vcount + m->ncount))) {
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

/* ---- small helpers ------------------------------------------------------------------------ */

static bool scratch_reserve(soup *s, long floats)
{
    /* doubling from 64, like the meshes' arrays: a scene's instances come in a few sizes */
    if (floats <= s->scratch_cap) return true;
    long c = s->scratch_cap ? s->scratch_cap : 64;
    while (c < floats)
        c *= 2;
    if (c > INT_MAX) return false;
    float *q = realloc(s->scratch, (size_t)c * sizeof(float));
    if (!q) return false;
    s->scratch = q;
    s->scratch_cap = (int)c;
    return true;
}

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
    vec3_cross(c1, c2, k0);
    vec3_cross(c2, c0, k1);
    vec3_cross(c0, c1, k2);
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
        if (!similar) vec3_normalize(tn + 3 * v);
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
