/* izb_cpu_kernels.h — the CPU backend's hot loops (reconstruction's blocks of 16 pixels, binning's
 * cell hash, the two rasterisers' inner traversal, culling's bundles of 16 triangles), included
 * once per instruction set by izb_cpu_isa.c under its own `#pragma GCC target`, with KERN(name)
 * naming that copy. Not a header to include anywhere else.
 *
 * One formula, one source: every per-point value is izb_math.h's inline function, vectorised by
 * `#pragma omp simd`. fmaf is correctly rounded in vector form too and nothing is contracted
 * (-ffp-contract=off), so every copy gives the bits of the scalar reference.
 *
 * The raster tests a triangle against its cell rows' points in blocks of KERN_BLOCK (one AVX-512
 * vector, two AVX2 ones): the block always computes all lanes, from the structure-of-arrays points
 * (izb_cpu_points: x, y, z contiguous, readable IZB_CPU_POINTS_PAD past the end) and masks off the
 * lanes past the row, so a row of any length is whole vectors with no scalar tail. The hits come
 * out as a bit mask, OR-ed into the calling thread's own bitmap over the binned points: no branch
 * on the outcome (which is unpredictable) and no store another thread can see. With primitive ids
 * (izb_own) the block's hits are queued for izb_hit_is_own, which runs in batches (own_flush); the
 * traversals are compiled twice (with and without ids), so the path without ids has no branch per
 * block at all. */
#if !defined(KERN) || !defined(KERN_MOVEMASK)
#error "izb_cpu_kernels.h is included by izb_cpu_isa.c only, with KERN and KERN_MOVEMASK defined"
#endif

#define KERN_BLOCK 16 /* points per block: one bit each in a uint32_t */

/* Reconstruction of one pixel into lane k: its kind (izb_reconstruct's) and its point, whatever the
 * kind. A helper, so that the point is scalarised per lane. */
static inline int32_t KERN(recon_lane)(const izb_recon *f, int px, int py, float depth, float *x, float *y,
                                       float *z, uint32_t *pixel, int k)
{
    izb_point p;
    const izb_sample_kind kind = izb_reconstruct_lit(f, px, py, depth, &p);
    x[k] = p.x, y[k] = p.y, z[k] = p.z, pixel[k] = p.pixel;
    return izb_depth_is_sky(depth) ? IZB_SKY : (int32_t)kind;
}

/* izb_ref.c's stage 1 on rows [y0, y1): mask init, the samples in pixel order from points[0], their
 * count and bbox. Blocks of KERN_BLOCK pixels: every lane computes (izb_reconstruct_lit, no
 * branch; no byte stores in that loop, which would make it 16-byte vectors), then the bbox per
 * lane, the mask bytes from the block's unlit bits, and the samples are stored: a whole block at
 * once, none, or (at a silhouette) one by one with no branch. points must hold the rows' pixels: a
 * store may land on any place up to the pixel's own. */
static uint32_t KERN(recon_rows)(const izb_recon *fp, const float *depth, int y0, int y1, uint8_t *mask,
                                 izb_point *points, izb_bbox *box)
{
    const izb_recon f = *fp; /* a local copy: the stores cannot alias it */
    const int w = f.width;
    float lo_x[KERN_BLOCK], lo_y[KERN_BLOCK], hi_x[KERN_BLOCK], hi_y[KERN_BLOCK];
    for (int k = 0; k < KERN_BLOCK; k++)
        lo_x[k] = lo_y[k] = INFINITY, hi_x[k] = hi_y[k] = -INFINITY;
    uint32_t c = 0;
    for (int py = y0; py < y1; py++) {
        const float *drow = depth + (size_t)py * (size_t)w;
        uint8_t *mrow = mask + (size_t)py * (size_t)w;
        for (int x0 = 0; x0 < w; x0 += KERN_BLOCK) {
            const int len = w - x0 < KERN_BLOCK ? w - x0 : KERN_BLOCK;
            float tail[KERN_BLOCK], x[KERN_BLOCK], y[KERN_BLOCK], z[KERN_BLOCK];
            uint32_t pixel[KERN_BLOCK];
            int32_t kind[KERN_BLOCK], sample[KERN_BLOCK] __attribute__((aligned(64))),
                unlit[KERN_BLOCK] __attribute__((aligned(64)));
            const float *d = drow + x0; /* read in place: a copy would stall on store forwarding */
            if (len < KERN_BLOCK) {
                for (int k = 0; k < KERN_BLOCK; k++)
                    tail[k] = k < len ? d[k] : 0.0f; /* past the row: sky */
                d = tail;
            }
#pragma omp simd
            for (int k = 0; k < KERN_BLOCK; k++)
                kind[k] = KERN(recon_lane)(&f, x0 + k, py, d[k], x, y, z, pixel, k);
#pragma omp simd
            for (int k = 0; k < KERN_BLOCK; k++) {
                const bool s = kind[k] == IZB_SAMPLE;
                sample[k] = -(int32_t)s;
                unlit[k] = -(int32_t)(kind[k] == IZB_UNLIT);
                lo_x[k] = izb_minf(lo_x[k], s ? x[k] : INFINITY);
                lo_y[k] = izb_minf(lo_y[k], s ? y[k] : INFINITY);
                hi_x[k] = izb_maxf(hi_x[k], s ? x[k] : -INFINITY);
                hi_y[k] = izb_maxf(hi_y[k], s ? y[k] : -INFINITY);
            }
            /* the mask: 0 unlit, 255 else; a block is mostly all one or the other (all lit
             * under a directional light) */
            const uint32_t dark = KERN_MOVEMASK(unlit);
            uint8_t *m = mrow + x0;
            if (!dark || dark == 0xffffu)
                memset(m, dark ? 0 : 255, (size_t)len);
            else
                for (int k = 0; k < len; k++)
                    m[k] = dark >> k & 1 ? 0 : 255;
            const uint32_t bits = KERN_MOVEMASK(sample);
            izb_point *o = points + c;
            if (bits == 0xffffu) {
#pragma omp simd
                for (int k = 0; k < KERN_BLOCK; k++)
                    o[k].x = x[k], o[k].y = y[k], o[k].z = z[k], o[k].pixel = pixel[k];
                c += KERN_BLOCK;
            } else if (bits) {
                for (int k = 0; k < len; k++) {
                    points[c] = (izb_point){x[k], y[k], z[k], pixel[k]};
                    c += bits >> k & 1;
                }
            }
        }
    }
    izb_bbox b = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < KERN_BLOCK; k++) {
        b.min_x = izb_minf(b.min_x, lo_x[k]);
        b.min_y = izb_minf(b.min_y, lo_y[k]);
        b.max_x = izb_maxf(b.max_x, hi_x[k]);
        b.max_y = izb_maxf(b.max_y, hi_y[k]);
    }
    *box = b;
    return c;
}

/* hash[i] = izb_cell_hash(g, in[i]) for i in [0, n) */
static void KERN(cell_hash)(const izb_point *in, int64_t n, const izb_grid *gp, uint32_t *hash)
{
    const izb_grid g = *gp; /* a local copy: the stores to hash[] cannot alias it */
#pragma omp simd
    for (int64_t i = 0; i < n; i++)
        hash[i] = izb_cell_hash(&g, in[i].x, in[i].y);
}

/* Bit k set: point k (k < len) of the block at x, y, z is occluded by t. Reads KERN_BLOCK points
 * whatever len is. The lanes' flags are all-ones / zero words, so the copy's KERN_MOVEMASK turns
 * them into bits in one or two instructions (a reduction of shifted bits costs nine). */
static inline uint32_t KERN(block_hits)(const izb_tri *t, const float *x, const float *y, const float *z,
                                        int len)
{
    int32_t flag[KERN_BLOCK] __attribute__((aligned(64)));
#pragma omp simd
    for (int k = 0; k < KERN_BLOCK; k++)
        flag[k] = -(int32_t)(izb_tri_occludes(t, x[k], y[k], z[k]) & (k < len));
    return KERN_MOVEMASK(flag);
}

/* Points j .. j + KERN_BLOCK - 1 of the bitmap `hits` OR-ed with bits (bit k = point j + k). Two
 * unconditional read-modify-writes of the thread's own bitmap: no branch on whether anything hit. */
static inline void KERN(mark_hits)(uint64_t *hits, uint32_t j, uint32_t bits)
{
    const uint32_t s = j & 63;
    hits[j >> 6] |= (uint64_t)bits << s;
    hits[(j >> 6) + 1] |= ((uint64_t)bits >> 1) >> (63 - s); /* the bits shifted past the word */
}

/* With ids (own, izb_hit_is_own): the hits that wait for the test, (point, scene triangle) pairs.
 * The test reads the point's pixel, its pixel id, then its own triangle's vertices: dependent loads
 * from random places in arrays of megabytes (9 floats per scene triangle), which missed the caches
 * on nearly every hit when tested at once (spheres:1M at 1080p: 240,000 tests a frame, some 70 ns
 * each, the double math a small part). Queued, a batch's loads are issued together (prefetched)
 * and their misses overlap. The mask is an OR over the pairs, so testing later changes nothing. */
#define KERN_OWN_BATCH 64
#define KERN_OWN_BLOCKS 32 /* hit blocks of one triangle recorded (row_hits) before they are queued */
typedef struct KERN(own_queue) {
    uint32_t n;
    uint32_t point[KERN_OWN_BATCH + KERN_BLOCK]; /* room for a whole block past the batch */
    uint32_t tri[KERN_OWN_BATCH + KERN_BLOCK];
    uint32_t blocks, block_j[KERN_OWN_BLOCKS], block_bits[KERN_OWN_BLOCKS]; /* the triangle's hit blocks */
} KERN(own_queue);

/* Is point q marked in this thread's bitmap? */
static inline bool KERN(is_marked)(const uint64_t *hits, uint32_t q)
{
    return hits[q >> 6] >> (q & 63) & 1;
}

/* Runs the queue's tests and marks the points whose hit is not ignored; empties the queue. A point
 * already marked (by an earlier pair) skips its test: it stays marked. Consecutive pairs of one own
 * triangle and one hitting triangle (neighbouring points on one surface) reuse the verdict: it
 * depends on the two triangles only. */
static void KERN(own_flush)(const izb_own *own, const uint32_t *pixel, KERN(own_queue) *oq, uint64_t *hits)
{
    const uint32_t n = oq->n, count = own->tri_count;
    const uint32_t *pixel_id = own->pixel_id;
    const float *xyz = own->xyz;
    uint32_t own_id[KERN_OWN_BATCH + KERN_BLOCK];
    for (uint32_t i = 0; i < n; i++) /* (the points' pixels and hitting triangles: prefetched when queued) */
        __builtin_prefetch(&pixel_id[pixel[oq->point[i]]]);
    for (uint32_t i = 0; i < n; i++) {
        own_id[i] = pixel_id[pixel[oq->point[i]]];
        if (own_id[i] < count) {
            const float *a = xyz + (size_t)own_id[i] * 9; /* 36 bytes: at most two cache lines */
            __builtin_prefetch(a);
            __builtin_prefetch(a + 8);
        }
    }
    uint32_t memo_own = IZB_NO_ID, memo_tri = IZB_NO_ID;
    bool memo = false;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t q = oq->point[i], o = own_id[i], t = oq->tri[i];
        if (KERN(is_marked)(hits, q)) continue;
        if (o != memo_own || t != memo_tri)
            memo = izb_hit_is_own(xyz, 9, 1, count, o, t), memo_own = o, memo_tri = t;
        if (!memo) hits[q >> 6] |= (uint64_t)1 << (q & 63);
    }
    oq->n = 0;
}

/* With ids: the hits `bits` of scene triangle `tri` on points j + k queued for own_flush (which
 * runs when the batch is full), but for the points this thread has already marked. */
static inline void KERN(own_queue_hits)(const izb_own *own, const uint32_t *pixel, uint32_t tri, uint32_t j,
                                        uint32_t bits, KERN(own_queue) *oq, uint64_t *hits)
{
    uint32_t m = oq->n;
    const float *b = own->xyz + (size_t)tri * 9;
    __builtin_prefetch(b);
    __builtin_prefetch(b + 8);
    for (; bits; bits &= bits - 1) {
        const uint32_t q = j + (uint32_t)__builtin_ctz(bits);
        __builtin_prefetch(&pixel[q]); /* the kernel reads x, y, z only: not yet cached */
        oq->point[m] = q, oq->tri[m] = tri;
        m += !KERN(is_marked)(hits, q);
    }
    oq->n = m;
    if (m >= KERN_OWN_BATCH) KERN(own_flush)(own, pixel, oq, hits);
}

/* With ids: the recorded hit blocks of scene triangle tri queued (own_queue_hits). */
static void KERN(own_drain)(const izb_own *own, const uint32_t *pixel, uint32_t tri, KERN(own_queue) *oq,
                            uint64_t *hits)
{
    for (uint32_t b = 0; b < oq->blocks; b++)
        KERN(own_queue_hits)(own, pixel, tri, oq->block_j[b], oq->block_bits[b], oq, hits);
    oq->blocks = 0;
}

/* The tests of triangle t (index i of the survivors) against points [j0, end), OR-ed into this
 * thread's bitmap. Always inlined and called with own either NULL or not by the traversals below,
 * so that neither copy has a branch on a block's outcome (hits are unpredictable: that branch cost
 * a third of kernel1's time on spheres:1M). With ids, a block is recorded always and kept when it
 * hit; the traversal queues the triangle's kept blocks after its last cell (own_drain). */
static inline __attribute__((always_inline)) void KERN(row_hits)(const izb_tri *t, int i,
                                                                 const izb_cpu_points *p, uint32_t j0,
                                                                 uint32_t end, const izb_own *own,
                                                                 KERN(own_queue) *oq, uint64_t *hits)
{
    const float *x = p->x, *y = p->y, *z = p->z;
    if (!own) {
        for (uint32_t j = j0; j < end; j += KERN_BLOCK)
            KERN(mark_hits)(hits, j, KERN(block_hits)(t, x + j, y + j, z + j, (int)(end - j)));
        return;
    }
    uint32_t m = oq->blocks;
    for (uint32_t j = j0; j < end; j += KERN_BLOCK) {
        const uint32_t bits = KERN(block_hits)(t, x + j, y + j, z + j, (int)(end - j));
        oq->block_j[m] = j, oq->block_bits[m] = bits;
        m += bits != 0; /* recorded always, kept when it hit: no branch on the outcome */
        if (m == KERN_OWN_BLOCKS) {
            oq->blocks = m;
            KERN(own_drain)(own, p->pixel, own->tri_id[i], oq, hits);
            m = 0;
        }
    }
    oq->blocks = m;
}

/* Kernel1's triangles [i0, i1) with own (NULL: no ids): each cell row of a triangle is one
 * contiguous run of points. */
static inline __attribute__((always_inline)) void
KERN(k1_run)(const izb_tri *tris, int i0, int i1, const izb_cpu_points *p, const uint32_t *cell_start,
             const uint32_t *cell_end, int grid_w, const izb_own *own, KERN(own_queue) *oq, uint64_t *hits)
{
    for (int i = i0; i < i1; i++) {
        const izb_tri t = tris[i]; /* a local copy, kept in registers across the stores */
        for (int cy = t.cy0; cy <= t.cy1; cy++) {
            const int row = cy * grid_w;
            KERN(row_hits)(&t, i, p, cell_start[row + t.cx0], cell_end[row + t.cx1], own, oq, hits);
        }
        if (own && oq->blocks) KERN(own_drain)(own, p->pixel, own->tri_id[i], oq, hits);
    }
}

/* Kernel1's triangles [i0, i1). Hits go to this thread's bitmap (izb_cpu_raster.c turns the
 * bitmaps into the mask). */
static void KERN(k1_tris)(const izb_tri *tris, int i0, int i1, const izb_cpu_points *p,
                          const uint32_t *cell_start, const uint32_t *cell_end, int grid_w,
                          const izb_own *own, uint64_t *hits)
{
    if (own) {
        KERN(own_queue) oq;
        oq.n = oq.blocks = 0;
        KERN(k1_run)(tris, i0, i1, p, cell_start, cell_end, grid_w, own, &oq, hits);
        KERN(own_flush)(own, p->pixel, &oq, hits);
    } else {
        KERN(k1_run)(tris, i0, i1, p, cell_start, cell_end, grid_w, NULL, NULL, hits);
    }
}

/* Kernel2's group (gx, gy) with own (NULL: no ids). */
static inline __attribute__((always_inline)) void KERN(k2_run)(const izb_tri *tris, int nt, int gx, int gy,
                                                               int side, const izb_cpu_points *p,
                                                               const uint32_t *cell_start,
                                                               const uint32_t *cell_end, int grid_w,
                                                               const izb_own *own, KERN(own_queue) *oq,
                                                               uint64_t *hits)
{
    for (int i = 0; i < nt; i++) {
        const izb_tri t = tris[i];
        const int cx_first = izb_cpu_first_congruent(t.cx0, gx, side);
        if (cx_first > t.cx1) continue;
        for (int cy = izb_cpu_first_congruent(t.cy0, gy, side); cy <= t.cy1; cy += side)
            for (int cx = cx_first; cx <= t.cx1; cx += side) {
                const int c = cy * grid_w + cx;
                KERN(row_hits)(&t, i, p, cell_start[c], cell_end[c], own, oq, hits);
            }
        if (own && oq->blocks) KERN(own_drain)(own, p->pixel, own->tri_id[i], oq, hits);
    }
}

/* Kernel2's group (gx, gy) of a side x side interleave, over every triangle: cells
 * (cx, cy) with cx % side == gx, cy % side == gy. Hits go to this thread's bitmap. */
static void KERN(k2_group)(const izb_tri *tris, int nt, int gx, int gy, int side, const izb_cpu_points *p,
                           const uint32_t *cell_start, const uint32_t *cell_end, int grid_w,
                           const izb_own *own, uint64_t *hits)
{
    if (own) {
        KERN(own_queue) oq;
        oq.n = oq.blocks = 0;
        KERN(k2_run)(tris, nt, gx, gy, side, p, cell_start, cell_end, grid_w, own, &oq, hits);
        KERN(own_flush)(own, p->pixel, &oq, hits);
    } else {
        KERN(k2_run)(tris, nt, gx, gy, side, p, cell_start, cell_end, grid_w, NULL, NULL, hits);
    }
}

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

/* Lane k of state s set up into te (te[3 * i + c][k] = e[i][c], te[9 + c][k] = z[c]) and tc (cx0,
 * cy0, cx1, cy1). */
static inline void KERN(cull_setup)(const KERN(cull_state) *s, int k, const izb_grid *g, float (*te)[KERN_BLOCK],
                                    int32_t (*tc)[KERN_BLOCK])
{
    const float v[3][4] = {{s->v[0][k], s->v[1][k], s->v[2][k], s->v[3][k]},
                           {s->v[4][k], s->v[5][k], s->v[6][k], s->v[7][k]},
                           {s->v[8][k], s->v[9][k], s->v[10][k], s->v[11][k]}};
    const float E[3] = {s->E[0][k], s->E[1][k], s->E[2][k]};
    float e[3][3];
    izb_tri_edges(v, e);
    izb_tri tri;
    izb_tri_finish(v, E, s->det[k], e, s->box[0][k], s->box[1][k], s->box[2][k], s->box[3][k], g, &tri);
    te[0][k] = tri.e[0][0], te[1][k] = tri.e[0][1], te[2][k] = tri.e[0][2];
    te[3][k] = tri.e[1][0], te[4][k] = tri.e[1][1], te[5][k] = tri.e[1][2];
    te[6][k] = tri.e[2][0], te[7][k] = tri.e[2][1], te[8][k] = tri.e[2][2];
    te[9][k] = tri.z[0], te[10][k] = tri.z[1], te[11][k] = tri.z[2];
    tc[0][k] = tri.cx0, tc[1][k] = tri.cy0, tc[2][k] = tri.cx1, tc[3][k] = tri.cy1;
}

/* Culling of triangles i0 .. i0 + 15 of xyz, where bit k of cullable says a back face k may be
 * dropped (izb_may_cull): bit k of *front = lane k survives with every vertex in front of the light,
 * set up into lane k of te / tc; bit k of *cross = lane k crosses w = 0 and is not dropped (the
 * caller sets it up). Every lane computes everything, so the outcome, unpredictable on closed
 * meshes, costs no branch, except the one on the whole bundle before the set-up. The bundle is
 * first transposed (GCC 12 does not vectorise the 9-float stride of the input). */
static void KERN(cull_bundle)(const float *xyz, int64_t i0, const float *light, const izb_bbox *pbp,
                              const izb_grid *gp, uint32_t cullable, uint32_t *front, uint32_t *cross,
                              float (*te)[KERN_BLOCK], int32_t (*tc)[KERN_BLOCK])
{
    float m[16];
    for (int j = 0; j < 16; j++)
        m[j] = light[j]; /* locals: the stores cannot alias them */
    const izb_bbox pb = *pbp;
    const izb_grid g = *gp;
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
        KERN(cull_setup)(&s, k, &g, te, tc);
}

/* The survivors `keep` of the set-up lanes te / tc (triangles i + k) to out[0..], in lane order, and
 * their indices to tri_id[0..] (may be NULL). A copy may define KERN_CULL_EMIT to do it in vector
 * registers instead (izb_cpu_isa.c). */
#ifndef KERN_CULL_EMIT
static void KERN(cull_emit)(const float (*te)[KERN_BLOCK], const int32_t (*tc)[KERN_BLOCK], uint32_t keep, int64_t i,
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
        t->cx0 = tc[0][k], t->cy0 = tc[1][k], t->cx1 = tc[2][k], t->cy1 = tc[3][k];
        if (tri_id) tri_id[c] = (uint32_t)(i + k);
    }
}
#endif

#undef KERN_OWN_BATCH
#undef KERN_OWN_BLOCKS
#undef KERN_BLOCK
