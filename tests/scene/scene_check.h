/* scene_check.h — what every loaded or built scene must satisfy, shared by the scene tests:
 * finite coordinates inside tight bounds, unit normals, a sane suggested view; and for closed
 * geometry, watertightness (each edge used exactly twice, in opposite directions) with
 * outward-facing winding. Functions return the number of problems found and print the first few. */
#ifndef SCENE_CHECK_H
#define SCENE_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"

/* Normals are normalised in float: |n| is 1 within a few ulps; 1e-4 leaves room and still catches
 * any unnormalised or zero normal. */
#define CHECK_NORMAL_TOL 1e-4f

static inline int report_(int *count, const char *what, const char *fmt, double a, double b)
{
    if ((*count)++ < 5) {
        fprintf(stderr, "  %s: ", what);
        fprintf(stderr, fmt, a, b);
        fputc('\n', stderr);
    }
    return 1;
}

/* Finite coordinates within tight bounds, unit normals, finite view. */
static inline int check_scene_valid(const scene *s, const char *what)
{
    int bad = 0;
    if (s->tri_count <= 0 || !s->xyz || !s->normals)
        return report_(&bad, what, "no triangles (%g) or no arrays (%g)", s->tri_count,
                       !s->xyz || !s->normals);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < (size_t)s->tri_count * 3; i++) {
        const float *p = s->xyz + 3 * i, *n = s->normals + 3 * i;
        for (int k = 0; k < 3; k++) {
            if (!isfinite(p[k]))
                report_(&bad, what, "vertex %g has a non-finite coordinate %g", (double)i, p[k]);
            if (p[k] < s->bounds_min[k] || p[k] > s->bounds_max[k])
                report_(&bad, what, "vertex %g coordinate %g outside the bounds", (double)i, p[k]);
            lo[k] = fminf(lo[k], p[k]);
            hi[k] = fmaxf(hi[k], p[k]);
        }
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(fabsf(l - 1.0f) < CHECK_NORMAL_TOL))
            report_(&bad, what, "vertex %g normal length %g", (double)i, l);
    }
    for (int k = 0; k < 3; k++)
        if (lo[k] != s->bounds_min[k] || hi[k] != s->bounds_max[k])
            report_(&bad, what, "bounds not tight: axis min %g vs vertices %g", s->bounds_min[k], lo[k]);
    float ll = 0.0f;
    for (int k = 0; k < 3; k++) {
        if (!isfinite(s->cam_pos[k]) || !isfinite(s->light_pos[k]) || !isfinite(s->light_dir[k]))
            report_(&bad, what, "non-finite view (%g, %g)", s->cam_pos[k], s->light_pos[k]);
        ll += s->light_dir[k] * s->light_dir[k];
    }
    if (!(fabsf(ll - 1.0f) < 1e-4f) || !(s->light_dir[1] < -0.5f))
        report_(&bad, what, "light_dir not unit (%g) or not mostly downward (y %g)", ll, s->light_dir[1]);
    /* the spot looks at the bounds' centre along light_dir */
    float c[3], d[3], dl = 0.0f, dot = 0.0f;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (s->bounds_min[k] + s->bounds_max[k]);
        d[k] = c[k] - s->light_pos[k];
        dl += d[k] * d[k];
        dot += d[k] * s->light_dir[k];
    }
    if (!(dot > 0.999f * sqrtf(dl)))
        report_(&bad, what, "spot does not look at the bounds' centre (cos %g, distance %g)", dot / sqrtf(dl),
                sqrtf(dl));
    /* the camera looks towards the bounds' centre */
    const float deg = 0.017453292519943295f;
    float fwd[3] = {cosf(s->cam_pitch * deg) * sinf(s->cam_yaw * deg), sinf(s->cam_pitch * deg),
                    -cosf(s->cam_pitch * deg) * cosf(s->cam_yaw * deg)};
    float cl = 0.0f, cd = 0.0f;
    for (int k = 0; k < 3; k++) {
        cd += (c[k] - s->cam_pos[k]) * fwd[k];
        cl += (c[k] - s->cam_pos[k]) * (c[k] - s->cam_pos[k]);
    }
    if (!(cd > 0.5f * sqrtf(cl)))
        report_(&bad, what, "camera looks away from the scene (cos %g, distance %g)", cd / sqrtf(cl),
                sqrtf(cl));
    return bad;
}

/* ---- closedness --------------------------------------------------------------------------- */

typedef struct edge_ {
    uint64_t key; /* (min vertex id << 32) | max vertex id */
    int forward;  /* 1 when the triangle runs min -> max */
    int tri;
} edge_;

static inline int edge_cmp_(const void *a, const void *b)
{
    const edge_ *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key ? 1 : x->forward - y->forward;
}

static inline uint64_t pos_hash_(const float *p)
{
    uint32_t u[3];
    for (int k = 0; k < 3; k++) {
        float v = p[k] + 0.0f; /* -0 and +0 are the same position */
        memcpy(&u[k], &v, 4);
    }
    uint64_t h = 1469598103934665603ull;
    for (int k = 0; k < 3; k++)
        h = (h ^ u[k]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static inline int find_(int *parent, int i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* Triangles [first, tri_count) must form closed, consistently and outward-oriented surfaces:
 * vertices are identified by exact position; every undirected edge is used by exactly two
 * triangles running it in opposite directions; no triangle repeats a vertex; each connected piece
 * encloses positive volume (outward winding); every face's winding agrees with its vertex normals. */
static inline int check_closed(const scene *s, int first, const char *what)
{
    int bad = 0;
    long nt = s->tri_count - first, nv = 3 * nt;
    if (nt <= 0) return report_(&bad, what, "nothing to check (%g of %g)", (double)first, s->tri_count);
    size_t cap = 1;
    while (cap < (size_t)nv * 2)
        cap *= 2;
    int *table = malloc(cap * sizeof(int)), *id = malloc((size_t)nv * sizeof(int));
    int *rep = malloc((size_t)nv * sizeof(int)); /* vertex id -> a soup index holding it */
    edge_ *e = malloc((size_t)nv * sizeof(edge_));
    if (!table || !id || !rep || !e) {
        free(table), free(id), free(rep), free(e);
        return report_(&bad, what, "out of memory (%g, %g)", (double)nv, 0);
    }
    memset(table, 0xff, cap * sizeof(int));
    const float *xyz = s->xyz + 9 * (size_t)first;
    int ids = 0;
    for (long i = 0; i < nv; i++) {
        const float *p = xyz + 3 * i;
        size_t h = pos_hash_(p) & (cap - 1);
        for (;; h = (h + 1) & (cap - 1)) {
            int t = table[h];
            if (t < 0) {
                table[h] = ids;
                rep[ids] = (int)i;
                id[i] = ids++;
                break;
            }
            const float *q = xyz + 3 * rep[t];
            if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2]) {
                id[i] = t;
                break;
            }
        }
    }
    for (long t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = (uint32_t)id[3 * t + k], b = (uint32_t)id[3 * t + (k + 1) % 3];
            if (a == b) report_(&bad, what, "triangle %g repeats vertex %g", (double)(t + first), a);
            e[3 * t + k] = (edge_){.key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a,
                                   .forward = a < b,
                                   .tri = (int)t};
        }
    qsort(e, (size_t)nv, sizeof *e, edge_cmp_);
    int *parent = table; /* reuse: union-find over triangles */
    for (long t = 0; t < nt; t++)
        parent[t] = (int)t;
    for (long i = 0; i < nv;) {
        long j = i;
        while (j < nv && e[j].key == e[i].key)
            j++;
        if (j - i != 2 || e[i].forward == e[i + 1].forward)
            report_(&bad, what, "edge used %g times (directions agree: %g)", (double)(j - i),
                    j - i == 2 && e[i].forward == e[i + 1].forward);
        else
            parent[find_(parent, e[i].tri)] = find_(parent, e[i + 1].tri);
        i = j;
    }
    /* signed volume per piece (divergence theorem, relative to the piece's first vertex would be
     * better conditioned; the scenes are small enough for the origin in double) */
    double *vol = calloc((size_t)nt, sizeof(double));
    for (long t = 0; vol && t < nt; t++) {
        const float *a = xyz + 9 * t, *b = a + 3, *c = a + 6;
        double cx = (double)b[1] * c[2] - (double)b[2] * c[1], cy = (double)b[2] * c[0] - (double)b[0] * c[2],
               cz = (double)b[0] * c[1] - (double)b[1] * c[0];
        vol[find_(parent, (int)t)] += (a[0] * cx + a[1] * cy + a[2] * cz) / 6.0;
        /* winding agrees with the normals */
        float e1[3], e2[3], gn[3], dot = 0.0f;
        for (int k = 0; k < 3; k++)
            e1[k] = b[k] - a[k], e2[k] = c[k] - a[k];
        gn[0] = e1[1] * e2[2] - e1[2] * e2[1];
        gn[1] = e1[2] * e2[0] - e1[0] * e2[2];
        gn[2] = e1[0] * e2[1] - e1[1] * e2[0];
        const float *n = s->normals + 9 * ((size_t)first + t);
        for (int k = 0; k < 3; k++)
            dot += gn[k] * (n[k] + n[3 + k] + n[6 + k]);
        if (!(dot > 0.0f))
            report_(&bad, what, "triangle %g winding disagrees with its normals (%g)", (double)(t + first),
                    dot);
    }
    int pieces = 0;
    for (long t = 0; vol && t < nt; t++)
        if (find_(parent, (int)t) == t) {
            pieces++;
            if (!(vol[t] > 0.0))
                report_(&bad, what, "piece at triangle %g encloses volume %g (inward winding?)",
                        (double)(t + first), vol[t]);
        }
    printf("  %s: %ld triangles, %d vertices, %d closed pieces\n", what, nt, ids, pieces);
    free(vol), free(table), free(id), free(rep), free(e);
    return bad;
}

#endif
