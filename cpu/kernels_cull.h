/* kernels_cull.h — stage 3's hot loops: culling and set-up of bundles of KERN_BLOCK triangles. One copy per instruction set (see kernels.h). */
#if !defined(KERN) || !defined(KERN_BLOCK)
#error "kernels_cull.h is included by kernels.h only (cpu/isa.c's per-ISA copies)"
#endif

/* Culling of 16 triangles in two vectorised passes over the lanes, by izb_tri_setup's own pieces
 * (izb_math.h), so the same bits. The first pass (cull_test) transforms the vertices and takes the
 * verdict's inputs: det, which side of w = 0, the projected bbox against the points'. The second
 * (cull_setup) computes the edges, the depth plane and the cell range, and runs only when a lane
 * survives: the triangles of a bundle are neighbours in the mesh, so most bundles of a closed scene
 * face away as a whole or miss the points' bbox. Helpers per lane, so that their locals are
 * scalarised per lane. */
#define KERN_CULL_FRONT 1
#define KERN_CULL_CROSS 2
#define KERN_CULL_BACK 4
typedef struct KERN(cull_state) {
    float v[12][KERN_BLOCK]; /* vertex q's clip coordinate c at v[4 * q + c] */
    float E[3][KERN_BLOCK], det[KERN_BLOCK];
    float box[4][KERN_BLOCK]; /* the all-front bbox: x0, y0, x1, y1 */
} KERN(cull_state);

/* Lane k of the transposed bundle t (vertex q's coordinate c of triangle k at t[3 * q + c][k]) under
 * the light matrix m: its state into s, and flags: KERN_CULL_FRONT: every vertex in front of the
 * light and not rejected; KERN_CULL_CROSS: crosses w = 0 with a valid det, left to the scalar
 * izb_tri_setup; KERN_CULL_BACK: det < 0. No flag of the first two: rejected whatever cull_back is. */
static inline int32_t KERN(cull_test)(const float (*t)[KERN_BLOCK], int k, const float *m, const izb_bbox *pb,
                                      KERN(cull_state) *s)
{
    float v[3][4], E[3], x0, y0, x1, y1;
    const float p0[3] = {t[0][k], t[1][k], t[2][k]}, p1[3] = {t[3][k], t[4][k], t[5][k]},
                p2[3] = {t[6][k], t[7][k], t[8][k]};
    izb_transform(m, p0, v[0]); /* no inner loop: the bundle loop would not vectorise */
    izb_transform(m, p1, v[1]);
    izb_transform(m, p2, v[2]);
    const float det = izb_tri_det(v, E);
    bool none_front;
    const bool all_front = izb_tri_all_front(v, &none_front);
    const bool meets = izb_tri_front_bbox(v, pb, &x0, &y0, &x1, &y1);
    s->v[0][k] = v[0][0], s->v[1][k] = v[0][1], s->v[2][k] = v[0][2], s->v[3][k] = v[0][3];
    s->v[4][k] = v[1][0], s->v[5][k] = v[1][1], s->v[6][k] = v[1][2], s->v[7][k] = v[1][3];
    s->v[8][k] = v[2][0], s->v[9][k] = v[2][1], s->v[10][k] = v[2][2], s->v[11][k] = v[2][3];
    s->E[0][k] = E[0], s->E[1][k] = E[1], s->E[2][k] = E[2], s->det[k] = det;
    s->box[0][k] = x0, s->box[1][k] = y0, s->box[2][k] = x1, s->box[3][k] = y1;
    const bool ok = izb_tri_det_ok(det) & !none_front;
    return ((ok & all_front & meets) ? KERN_CULL_FRONT : 0) | ((ok & !all_front) ? KERN_CULL_CROSS : 0) |
           (det < 0.0f ? KERN_CULL_BACK : 0);
}

/* Lane k of state s set up into te (te[3 * i + c][k] = e[i][c], te[9 + c][k] = z[c], te[12 + c][k] =
 * the bbox x0, y0, x1, y1). */
static inline void KERN(cull_setup)(const KERN(cull_state) *s, int k, float (*te)[KERN_BLOCK])
{
    const float v[3][4] = {{s->v[0][k], s->v[1][k], s->v[2][k], s->v[3][k]},
                           {s->v[4][k], s->v[5][k], s->v[6][k], s->v[7][k]},
                           {s->v[8][k], s->v[9][k], s->v[10][k], s->v[11][k]}};
    const float E[3] = {s->E[0][k], s->E[1][k], s->E[2][k]};
    float e[3][3];
    izb_tri_edges(v, e);
    izb_tri tri;
    izb_tri_finish(v, E, s->det[k], e, s->box[0][k], s->box[1][k], s->box[2][k], s->box[3][k], &tri);
    te[0][k] = tri.e[0][0], te[1][k] = tri.e[0][1], te[2][k] = tri.e[0][2];
    te[3][k] = tri.e[1][0], te[4][k] = tri.e[1][1], te[5][k] = tri.e[1][2];
    te[6][k] = tri.e[2][0], te[7][k] = tri.e[2][1], te[8][k] = tri.e[2][2];
    te[9][k] = tri.z[0], te[10][k] = tri.z[1], te[11][k] = tri.z[2];
    te[12][k] = tri.x0, te[13][k] = tri.y0, te[14][k] = tri.x1, te[15][k] = tri.y1;
}

/* Culling of triangles i0 .. i0 + 15 of xyz, where bit k of cullable says a back face k may be
 * dropped (izb_may_cull): bit k of *front = lane k survives with every vertex in front of the light,
 * set up into lane k of te; bit k of *cross = lane k crosses w = 0 and is not dropped (the
 * caller sets it up). Every lane computes everything, so the outcome, unpredictable on closed
 * meshes, costs no branch, except the one on the whole bundle before the set-up. The bundle is
 * first transposed (GCC 12 does not vectorise the 9-float stride of the input). */
static void KERN(cull_bundle)(const float *xyz, int64_t i0, const float *light, const izb_bbox *pbp,
                              uint32_t cullable, uint32_t *front, uint32_t *cross, float (*te)[KERN_BLOCK])
{
    float m[16];
    for (int j = 0; j < 16; j++)
        m[j] = light[j]; /* locals: the stores cannot alias them */
    const izb_bbox pb = *pbp;
    const float *in = xyz + 9 * i0;
    float t[9][KERN_BLOCK] __attribute__((aligned(64)));
#ifdef KERN_CULL_TRANSPOSE
    KERN_CULL_TRANSPOSE(t, in);
#else
    for (int k = 0; k < KERN_BLOCK; k++)
        for (int c = 0; c < 9; c++)
            t[c][k] = in[9 * k + c];
#endif
    KERN(cull_state) s __attribute__((aligned(64)));
    int32_t f[KERN_BLOCK] __attribute__((aligned(64)));
    int32_t ff[KERN_BLOCK] __attribute__((aligned(64)));
    int32_t fc[KERN_BLOCK] __attribute__((aligned(64)));
    int32_t fb[KERN_BLOCK] __attribute__((aligned(64)));
#pragma omp simd
    for (int k = 0; k < KERN_BLOCK; k++)
        f[k] = KERN(cull_test)((const float (*)[KERN_BLOCK])t, k, m, &pb, &s);
#pragma omp simd
    for (int k = 0; k < KERN_BLOCK; k++) {
        ff[k] = -(f[k] & KERN_CULL_FRONT);
        fc[k] = -((f[k] & KERN_CULL_CROSS) >> 1);
        fb[k] = -((f[k] & KERN_CULL_BACK) >> 2);
    }
    const uint32_t drop = KERN_MOVEMASK(fb) & cullable;
    *front = KERN_MOVEMASK(ff) & ~drop;
    *cross = KERN_MOVEMASK(fc) & ~drop;
    if (!*front)
        return;
#pragma omp simd
    for (int k = 0; k < KERN_BLOCK; k++)
        KERN(cull_setup)(&s, k, te);
}

/* The survivors `keep` of the set-up lanes te (triangles i + k) to out[0..], in lane order, and
 * their indices to tri_id[0..] (may be NULL). A copy may define KERN_CULL_EMIT to do it in vector
 * registers instead (cpu/isa.c). */
#ifndef KERN_CULL_EMIT
static void KERN(cull_emit)(const float (*te)[KERN_BLOCK], uint32_t keep, int64_t i,
                            izb_tri *out, uint32_t *tri_id)
{
    for (uint32_t c = 0; keep; keep &= keep - 1, c++) {
        const int k = __builtin_ctz(keep);
        izb_tri *t = &out[c];
        for (int q = 0; q < 3; q++)
            for (int r = 0; r < 3; r++)
                t->e[q][r] = te[3 * q + r][k];
        for (int r = 0; r < 3; r++)
            t->z[r] = te[9 + r][k];
        t->x0 = te[12][k], t->y0 = te[13][k], t->x1 = te[14][k], t->y1 = te[15][k];
        if (tri_id) tri_id[c] = (uint32_t)(i + k);
    }
}
#endif
