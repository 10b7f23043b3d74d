/* kernels_raster.h — stage 4's hot loops: kernel1's and kernel2's traversal of cell rows in blocks of KERN_BLOCK points. One copy per instruction set (see kernels.h). */
#if !defined(KERN) || !defined(KERN_BLOCK)
#error "kernels_raster.h is included by kernels.h only (cpu/isa.c's per-ISA copies)"
#endif

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

/* Cut-outs (izb_cut): a cut-out survivor's alpha-test inputs, resolved once per triangle. Opaque
 * triangles never get one, so their rows run the loops below without the alpha test. */
typedef struct KERN(cut_tri) {
    const float *uv;
    const izb_alpha_tex *tex;
    const uint8_t *pool;
} KERN(cut_tri);

/* Is survivor i a cut-out? Then *ct holds its inputs. */
static inline bool KERN(cut_of)(const izb_cut *cut, int i, KERN(cut_tri) *ct)
{
    const uint32_t id = cut->tri_id[i], k = cut->tex[id];
    if (k == IZB_OPAQUE) return false;
    ct->uv = cut->uv + 6 * (size_t)id, ct->tex = cut->textures + k, ct->pool = cut->pool;
    return true;
}

/* The points of the block at j this thread has already marked: a hit there changes nothing, so a
 * cut-out triangle skips their alpha test (among foliage most points lie under several cards). */
static inline uint32_t KERN(marked_bits)(const uint64_t *hits, uint32_t j)
{
    const uint32_t s = j & 63;
    const uint64_t lo = hits[j >> 6] >> s, hi = s ? hits[(j >> 6) + 1] << (64 - s) : 0;
    return (uint32_t)(lo | hi);
}

/* Are the points of the block at j (those before end) all marked already? Then a cut-out
 * triangle skips the block: its test could only mark them again. Under dense foliage most points
 * end up under a kept texel of some card, and the test's loads of the points (random places in
 * the binned arrays) are the raster's main cost; the bitmap is small and cached. */
static inline bool KERN(all_marked)(const uint64_t *hits, uint32_t j, uint32_t end)
{
    const uint32_t lanes = end - j >= KERN_BLOCK ? 0xffffu : (1u << (end - j)) - 1;
    return (KERN(marked_bits)(hits, j) & lanes) == lanes;
}

/* Cut-out frames' cell flags (done: one bit per cell, this thread's): a cell's bit is set once every
 * point of it is marked in this thread's bitmap, so a later cut-out triangle skips the cell
 * without reading its range, its bitmap words or its points. Under dense foliage most rows a card
 * covers are done (foliage:1M at 1280x720: 72% of its blocks were all marked), and each skipped
 * row still cost two cell-range loads, the bitmap's words and a branch per block. The flags only
 * skip tests that could mark nothing new: the mask is the same. Are cells [c0, c1] all done? */
static inline bool KERN(cells_done)(const uint64_t *done, uint32_t c0, uint32_t c1)
{
    for (uint32_t w = c0 >> 6; w <= c1 >> 6; w++) {
        const uint32_t lo = w == c0 >> 6 ? c0 & 63 : 0, hi = w == c1 >> 6 ? c1 & 63 : 63;
        const uint64_t want = (~(uint64_t)0 >> (63 - (hi - lo))) << lo;
        if ((done[w] & want) != want) return false;
    }
    return true;
}

/* Cells [c0, c1] done (cells_done). */
static inline void KERN(set_done)(uint64_t *done, uint32_t c0, uint32_t c1)
{
    for (uint32_t w = c0 >> 6; w <= c1 >> 6; w++) {
        const uint32_t lo = w == c0 >> 6 ? c0 & 63 : 0, hi = w == c1 >> 6 ? c1 & 63 : 63;
        done[w] |= (~(uint64_t)0 >> (63 - (hi - lo))) << lo;
    }
}

/* The hits `bits` of cut-out triangle t on the block at x, y that the alpha test keeps: the test
 * runs per hit only (scalar: a texel read is a gather, and most blocks of a card hit few points). */
static uint32_t KERN(cut_bits)(const izb_tri *t, const KERN(cut_tri) *ct, const float *x, const float *y,
                               uint32_t bits)
{
    uint32_t keep = 0;
    for (uint32_t b = bits; b; b &= b - 1) {
        const int k = __builtin_ctz(b);
        keep |= (uint32_t)izb_alpha_tri_keeps(t, x[k], y[k], ct->uv, ct->pool, ct->tex) << k;
    }
    return keep;
}

/* The tests of triangle t (index i of the survivors) against points [j0, end), OR-ed into this
 * thread's bitmap. Always inlined and called with own either NULL or not by the traversals below,
 * so that neither copy has a branch on a block's outcome (hits are unpredictable: that branch cost
 * a third of kernel1's time on spheres:1M). With ids, a block is recorded always and kept when it
 * hit; the traversal queues the triangle's kept blocks after its last cell (own_drain). ct: the
 * triangle's cut-out inputs, NULL (a constant in the opaque copies) when it is opaque; the alpha
 * test then filters the block's hits before they are marked or queued, and a block whose points
 * are all marked is skipped (all_marked: a branch opaque triangles do not pay). Returns (for
 * cut-outs; opaque: true, unused) whether every point of [j0, end) is marked in the bitmap now. */
static inline __attribute__((always_inline)) bool KERN(row_hits)(const izb_tri *t, int i,
                                                                 const izb_cpu_points *p, uint32_t j0,
                                                                 uint32_t end, const izb_own *own,
                                                                 const KERN(cut_tri) *ct, KERN(own_queue) *oq,
                                                                 uint64_t *hits)
{
    const float *x = p->x, *y = p->y, *z = p->z;
    bool all = true; /* (cut-outs) every point of the run ends marked */
    if (!own) {
        for (uint32_t j = j0; j < end; j += KERN_BLOCK) {
            if (ct && KERN(all_marked)(hits, j, end)) continue;
            uint32_t bits = KERN(block_hits)(t, x + j, y + j, z + j, (int)(end - j));
            if (ct && bits) bits = KERN(cut_bits)(t, ct, x + j, y + j, bits & ~KERN(marked_bits)(hits, j));
            KERN(mark_hits)(hits, j, bits);
            if (ct) all = all && KERN(all_marked)(hits, j, end);
        }
        return all;
    }
    uint32_t m = oq->blocks;
    for (uint32_t j = j0; j < end; j += KERN_BLOCK) {
        if (ct && KERN(all_marked)(hits, j, end)) continue;
        all = false; /* its hits are queued, not marked yet */
        uint32_t bits = KERN(block_hits)(t, x + j, y + j, z + j, (int)(end - j));
        if (ct && bits) bits = KERN(cut_bits)(t, ct, x + j, y + j, bits & ~KERN(marked_bits)(hits, j));
        oq->block_j[m] = j, oq->block_bits[m] = bits;
        m += bits != 0; /* recorded always, kept when it hit: no branch on the outcome */
        if (m == KERN_OWN_BLOCKS) {
            oq->blocks = m;
            KERN(own_drain)(own, p->pixel, own->tri_id[i], oq, hits);
            m = 0;
        }
    }
    oq->blocks = m;
    return all;
}

#define KERN_UV_AHEAD 8
/* Kernel1's triangles [i0, i1) with own (NULL: no ids): each cell row of a triangle is one
 * contiguous run of points. */
static inline __attribute__((always_inline)) void
KERN(k1_run)(const izb_tri *tris, int i0, int i1, const izb_cpu_points *p, const uint32_t *cell_start,
             const uint32_t *cell_end, const izb_grid *g, const izb_own *own, const izb_cut *cut,
             KERN(own_queue) *oq, uint64_t *hits, uint64_t *done)
{
    for (int i = i0; i < i1; i++) {
        const izb_tri t = tris[i]; /* a local copy, kept in registers across the stores */
        int cx0, cy0, cx1, cy1;
        izb_tri_cells(&t, g, &cx0, &cy0, &cx1, &cy1);
        /* the UVs of the cut-out KERN_UV_AHEAD triangles on: read only where a hit is alpha-tested
         * (foliage:1M: some 390,000 tests for 2M cards), too sparse for the hardware's prefetch,
         * and that load's miss was half of the alpha test's samples */
        if (cut && i + KERN_UV_AHEAD < i1)
            __builtin_prefetch(cut->uv + 6 * (size_t)cut->tri_id[i + KERN_UV_AHEAD]);
        KERN(cut_tri) ct;
        if (cut && KERN(cut_of)(cut, i, &ct)) {
            for (int cy = cy0; cy <= cy1; cy++) {
                const uint32_t row = (uint32_t)(cy * g->w);
                if (done && KERN(cells_done)(done, row + (uint32_t)cx0, row + (uint32_t)cx1)) continue;
                const bool all =
                    KERN(row_hits)(&t, i, p, cell_start[row + cx0], cell_end[row + cx1], own, &ct, oq, hits);
                if (all && done) KERN(set_done)(done, row + (uint32_t)cx0, row + (uint32_t)cx1);
            }
        } else {
            for (int cy = cy0; cy <= cy1; cy++) {
                const int row = cy * g->w;
                KERN(row_hits)(&t, i, p, cell_start[row + cx0], cell_end[row + cx1], own, NULL, oq, hits);
            }
        }
        if (own && oq->blocks) KERN(own_drain)(own, p->pixel, own->tri_id[i], oq, hits);
    }
}

/* Kernel1's triangles [i0, i1). Hits go to this thread's bitmap (cpu/raster.c turns the
 * bitmaps into the mask). */
static void KERN(k1_tris)(const izb_tri *tris, int i0, int i1, const izb_cpu_points *p,
                          const uint32_t *cell_start, const uint32_t *cell_end, const izb_grid *g,
                          const izb_own *own, const izb_cut *cut, uint64_t *hits, uint64_t *done)
{
    if (own) {
        KERN(own_queue) oq;
        oq.n = oq.blocks = 0;
        if (cut) KERN(k1_run)(tris, i0, i1, p, cell_start, cell_end, g, own, cut, &oq, hits, done);
        else KERN(k1_run)(tris, i0, i1, p, cell_start, cell_end, g, own, NULL, &oq, hits, NULL);
        KERN(own_flush)(own, p->pixel, &oq, hits);
    } else if (cut) {
        KERN(k1_run)(tris, i0, i1, p, cell_start, cell_end, g, NULL, cut, NULL, hits, done);
    } else {
        KERN(k1_run)(tris, i0, i1, p, cell_start, cell_end, g, NULL, NULL, NULL, hits, NULL);
    }
}

/* Kernel2's group (gx, gy) with own (NULL: no ids). */
static inline __attribute__((always_inline)) void KERN(k2_run)(const izb_tri *tris, int nt, int gx, int gy,
                                                               int side, const izb_cpu_points *p,
                                                               const uint32_t *cell_start,
                                                               const uint32_t *cell_end, const izb_grid *g,
                                                               const izb_own *own, const izb_cut *cut,
                                                               KERN(own_queue) *oq, uint64_t *hits,
                                                               uint64_t *done)
{
    for (int i = 0; i < nt; i++) {
        const izb_tri t = tris[i];
        int cx0, cy0, cx1, cy1;
        izb_tri_cells(&t, g, &cx0, &cy0, &cx1, &cy1);
        const int cx_first = izb_cpu_first_congruent(cx0, gx, side);
        if (cx_first > cx1) continue;
        KERN(cut_tri) ct;
        if (cut && KERN(cut_of)(cut, i, &ct)) {
            for (int cy = izb_cpu_first_congruent(cy0, gy, side); cy <= cy1; cy += side)
                for (int cx = cx_first; cx <= cx1; cx += side) {
                    const uint32_t c = (uint32_t)(cy * g->w + cx);
                    if (done && done[c >> 6] >> (c & 63) & 1) continue;
                    if (KERN(row_hits)(&t, i, p, cell_start[c], cell_end[c], own, &ct, oq, hits) && done)
                        done[c >> 6] |= (uint64_t)1 << (c & 63);
                }
        } else {
            for (int cy = izb_cpu_first_congruent(cy0, gy, side); cy <= cy1; cy += side)
                for (int cx = cx_first; cx <= cx1; cx += side) {
                    const int c = cy * g->w + cx;
                    KERN(row_hits)(&t, i, p, cell_start[c], cell_end[c], own, NULL, oq, hits);
                }
        }
        if (own && oq->blocks) KERN(own_drain)(own, p->pixel, own->tri_id[i], oq, hits);
    }
}

/* Kernel2's group (gx, gy) of a side x side interleave, over every triangle: cells
 * (cx, cy) with cx % side == gx, cy % side == gy. Hits go to this thread's bitmap. */
static void KERN(k2_group)(const izb_tri *tris, int nt, int gx, int gy, int side, const izb_cpu_points *p,
                           const uint32_t *cell_start, const uint32_t *cell_end, const izb_grid *g,
                           const izb_own *own, const izb_cut *cut, uint64_t *hits, uint64_t *done)
{
    if (own) {
        KERN(own_queue) oq;
        oq.n = oq.blocks = 0;
        if (cut) KERN(k2_run)(tris, nt, gx, gy, side, p, cell_start, cell_end, g, own, cut, &oq, hits, done);
        else KERN(k2_run)(tris, nt, gx, gy, side, p, cell_start, cell_end, g, own, NULL, &oq, hits, NULL);
        KERN(own_flush)(own, p->pixel, &oq, hits);
    } else if (cut) {
        KERN(k2_run)(tris, nt, gx, gy, side, p, cell_start, cell_end, g, NULL, cut, NULL, hits, done);
    } else {
        KERN(k2_run)(tris, nt, gx, gy, side, p, cell_start, cell_end, g, NULL, NULL, NULL, hits, NULL);
    }
}
