/* izb_cpu_kernels.h — the CPU backend's hot loops (binning's cell hash, the two rasterisers' inner
 * traversal), included once per instruction set by izb_cpu_isa.c under its own `#pragma GCC
 * target`, with KERN(name) naming that copy. Not a header to include anywhere else.
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
 * (izb_own) the block's hits then pass izb_hit_is_own one by one, so the path without ids pays one
 * predictable branch per block. */
#if !defined(KERN) || !defined(KERN_MOVEMASK)
#error "izb_cpu_kernels.h is included by izb_cpu_isa.c only, with KERN and KERN_MOVEMASK defined"
#endif

#define KERN_BLOCK 16 /* points per block: one bit each in a uint32_t */

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

/* With ids (own, izb_hit_is_own): bits without the hits of scene triangle `tri` that are ignored
 * on points j + k. A point this thread has already marked skips the plane test: it stays marked.
 * Runs only on blocks with hits, and only when the frame has ids. */
static uint32_t KERN(own_filter)(const izb_own *own, uint32_t tri, const uint32_t *pixel, uint32_t j,
                                 uint32_t bits, const uint64_t *hits)
{
    for (uint32_t rest = bits; rest; rest &= rest - 1) {
        const uint32_t k = (uint32_t)__builtin_ctz(rest), q = j + k;
        if (!(hits[q >> 6] >> (q & 63) & 1) &&
            izb_hit_is_own(own->xyz, 9, 1, own->tri_count, own->pixel_id[pixel[q]], tri))
            bits &= ~(1u << k);
    }
    return bits;
}

/* Kernel1's triangles [i0, i1): each cell row of a triangle is one contiguous run of points. Hits
 * go to this thread's bitmap (izb_cpu_raster.c turns the bitmaps into the mask). */
static void KERN(k1_tris)(const izb_tri *tris, int i0, int i1, const izb_cpu_points *p,
                          const uint32_t *cell_start, const uint32_t *cell_end, int grid_w,
                          const izb_own *own, uint64_t *hits)
{
    const float *x = p->x, *y = p->y, *z = p->z;
    for (int i = i0; i < i1; i++) {
        const izb_tri t = tris[i]; /* a local copy, kept in registers across the stores */
        for (int cy = t.cy0; cy <= t.cy1; cy++) {
            const uint32_t end = cell_end[cy * grid_w + t.cx1];
            for (uint32_t j = cell_start[cy * grid_w + t.cx0]; j < end; j += KERN_BLOCK) {
                uint32_t bits = KERN(block_hits)(&t, x + j, y + j, z + j, (int)(end - j));
                if (own && bits) bits = KERN(own_filter)(own, own->tri_id[i], p->pixel, j, bits, hits);
                KERN(mark_hits)(hits, j, bits);
            }
        }
    }
}

/* Kernel2's group (gx, gy) of a side x side interleave, over every triangle: cells
 * (cx, cy) with cx % side == gx, cy % side == gy. Hits go to this thread's bitmap. */
static void KERN(k2_group)(const izb_tri *tris, int nt, int gx, int gy, int side, const izb_cpu_points *p,
                           const uint32_t *cell_start, const uint32_t *cell_end, int grid_w,
                           const izb_own *own, uint64_t *hits)
{
    const float *x = p->x, *y = p->y, *z = p->z;
    for (int i = 0; i < nt; i++) {
        const izb_tri t = tris[i];
        const int cx_first = izb_cpu_first_congruent(t.cx0, gx, side);
        if (cx_first > t.cx1) continue;
        for (int cy = izb_cpu_first_congruent(t.cy0, gy, side); cy <= t.cy1; cy += side)
            for (int cx = cx_first; cx <= t.cx1; cx += side) {
                const int c = cy * grid_w + cx;
                const uint32_t end = cell_end[c];
                for (uint32_t j = cell_start[c]; j < end; j += KERN_BLOCK) {
                    uint32_t bits = KERN(block_hits)(&t, x + j, y + j, z + j, (int)(end - j));
                    if (own && bits) bits = KERN(own_filter)(own, own->tri_id[i], p->pixel, j, bits, hits);
                    KERN(mark_hits)(hits, j, bits);
                }
            }
    }
}

#undef KERN_BLOCK
