/* kernels_aa.h — the anti-aliased frames' raster loop (izb_aa.h): one triangle against a run of
 * binned points, each point's sub-samples tested in vector lanes. One copy per instruction set,
 * compiled by cpu/isa_aa.c (its own unit: see there why); the izb_cpu_kernels table names them.
 * cpu/raster_aa.c owns the traversal; the footprints' loop is kernels_aa_foot.h. N <= 32: a
 * point's mask is one word. */
#if !defined(KERN) || !defined(KERN_AA_ONLY)
#error "kernels_aa.h is included by cpu/isa_aa.c only"
#endif

/* 16 sub-samples (u[k], v[k]) of point (x, y, z) with footprint f against t: bit k = sample k
 * hidden. A whole vector (16 lanes) whatever N: a loop of N < 16 iterations did not vectorise (GCC
 * ran it scalar, and N = 4 or 8 cost more than N = 32); the pattern is zero past N (the centre),
 * and the caller drops those bits. persp (a constant in each copy): a spot light's footprint, each
 * sample divided by its own w (izb_aa_sample_hidden); else the directional's, without the division
 * (izb_aa_sample_hidden_affine: the same bits where aw = bw = 0). */
static inline __attribute__((always_inline)) uint32_t KERN(aa_word16)(const izb_tri *t, float x, float y, float z,
                                                                      const izb_aa_foot *f, const float *u,
                                                                      const float *v, const bool persp)
{
    const izb_tri tt = *t;
    const izb_aa_foot ff = *f;
    int32_t flag[16] __attribute__((aligned(64)));
    if (persp) {
#pragma omp simd
        for (int k = 0; k < 16; k++)
            flag[k] = -(int32_t)izb_aa_sample_hidden(&tt, x, y, z, &ff, u[k], v[k]);
    } else {
#pragma omp simd
        for (int k = 0; k < 16; k++)
            flag[k] = -(int32_t)izb_aa_sample_hidden_affine(&tt, x, y, z, &ff, u[k], v[k]);
    }
    return KERN_MOVEMASK(flag);
}

/* A cut-out triangle's alpha-test inputs (izb_cut), resolved once per triangle in aa_tri. */
typedef struct KERN(aa_cut) {
    const float *uv;
    const izb_alpha_tex *tex;
    const uint8_t *pool;
} KERN(aa_cut);

/* Point j (near t: izb_aa_near) against t: its hidden sub-samples OR-ed into its mask word mk,
 * unless the mask is full already (the early-out) or, with ids, t is its own (izb_hit_is_own).
 * ct: t's cut-out inputs, NULL (a constant in the opaque copy: always inlined) when opaque; then
 * only the hidden sub-samples the alpha test keeps count (izb_aa_keep_bits, scalar per hidden
 * sample: a texel read is a gather). Returns whether the samples ran. */
static inline __attribute__((always_inline)) uint32_t KERN(aa_point)(
    const izb_tri *t, uint32_t scene_id, const izb_aa_samples *S, const izb_cpu_points *p,
    const izb_cpu_aa_feet *F, uint32_t j, uint32_t *mk, const izb_own *own, const KERN(aa_cut) *ct, bool shared,
    const bool persp)
{
    const uint32_t full = izb_mask_word_bits(S->n, 0);
    const uint32_t cur = shared ? __atomic_load_n(mk, __ATOMIC_RELAXED) : *mk;
    if ((cur & full) == full)
        return 0;
    const float x = p->x[j], y = p->y[j], z = p->z[j];
    const izb_aa_foot fj = izb_cpu_aa_foot_at(F, j);
    uint32_t bits = KERN(aa_word16)(t, x, y, z, &fj, S->u, S->v, persp);
    if (S->n > 16)
        bits |= KERN(aa_word16)(t, x, y, z, &fj, S->u + 16, S->v + 16, persp) << 16;
    bits &= full & ~cur;
    if (!bits || (own && izb_hit_is_own(own->xyz, 9, 1, own->tri_count, own->pixel_id[p->pixel[j]], scene_id)))
        return 1;
    if (ct && !(bits = izb_aa_keep_bits(t, x, y, &fj, S, bits, ct->uv, ct->pool, ct->tex)))
        return 1;
    if (shared)
        __atomic_fetch_or(mk, bits, __ATOMIC_RELAXED);
    else
        *mk |= bits;
    return 1;
}

/* Triangle t (scene index scene_id) against points [j0, j1): each point's hidden sub-samples OR-ed
 * into masks[j]. shared: other threads OR into the same masks (kernel1), so the ORs are atomic;
 * kernel2's threads own their cells and write plainly. izb_aa_near and the conservative
 * izb_aa_may_hide are tested first, 16 points in vector lanes (most points of the visited cells
 * are not near t, or their footprints are outside its edges or in front of it). Reads whole blocks
 * of 16 points and footprints (both readable IZB_CPU_POINTS_PAD past their end). Returns the pairs
 * whose samples ran, for the statistics. */
static inline __attribute__((always_inline)) uint32_t KERN(aa_row)(
    const izb_tri *t, uint32_t scene_id, const izb_aa_samples *S, const izb_cpu_points *p, const izb_cpu_aa_feet *F,
    uint32_t j0, uint32_t j1, uint32_t *masks, const izb_own *own, const KERN(aa_cut) *ct, bool shared,
    const bool persp)
{
    uint32_t pairs = 0;
    for (uint32_t b = j0; b < j1; b += 16) {
        const int len = (int)(j1 - b);
        int32_t flag[16] __attribute__((aligned(64)));
        /* izb_aa_near alone first (four loads, four compares): where triangles are small next to
         * the cells (spheres:1M), most blocks of the dilated ranges end here */
#pragma omp simd
        for (int k = 0; k < 16; k++)
            flag[k] = -(int32_t)(izb_aa_near(t, p->x[b + k], p->y[b + k], F->ex[b + k], F->ey[b + k]) & (k < len));
        if (!KERN_MOVEMASK(flag)) continue;
        if (persp) { /* (the projected quad: its bbox and key range) */
#pragma omp simd
            for (int k = 0; k < 16; k++) {
                const izb_aa_foot fk = izb_cpu_aa_foot_at(F, b + k);
                flag[k] = flag[k] & -(int32_t)izb_aa_may_hide_box(t, p->x[b + k], p->y[b + k], p->z[b + k], &fk);
            }
        } else {
#pragma omp simd
            for (int k = 0; k < 16; k++) {
                const izb_aa_foot fk = izb_cpu_aa_foot_at(F, b + k);
                flag[k] = flag[k] & -(int32_t)izb_aa_may_hide(t, p->x[b + k], p->y[b + k], p->z[b + k], &fk);
            }
        }
        for (uint32_t in = KERN_MOVEMASK(flag); in; in &= in - 1) {
            const uint32_t j = b + (uint32_t)__builtin_ctz(in);
            pairs += KERN(aa_point)(t, scene_id, S, p, F, j, masks + j, own, ct, shared, persp);
        }
    }
    return pairs;
}

/* Triangle t (scene index scene_id) against the cells (cx, cy) of its bbox grown by (ex, ey) (the
 * frame's largest extent, or 0 over the footprint copies) with cx = gx, cy = gy (mod side) (kernel1:
 * side 1), skipping a cell whose reach box (cell_box: x0, y0, x1, y1 per cell) misses t's bbox or
 * lies wholly outside an edge (izb_aa_rect_may_hide); n: the counts, added to.
 * The whole range in one call, the triangle in registers (raster_aa.c called a row per cell).
 * cut: the scene's cut-outs (NULL: none; its tri_id unused, scene_id names t): a cut-out t takes
 * the rows' copy with the alpha test, an opaque one the copy without (today's instructions). */
void KERN(izb_cpu_aa_tri)(const izb_tri *t, uint32_t scene_id, const izb_aa_samples *S, const izb_cpu_points *p,
                          const izb_cpu_aa_feet *F, const uint32_t *cell_start, const uint32_t *cell_end,
                          const float *cell_box, const izb_grid *g, float ex, float ey, const izb_own *own,
                          const izb_cut *cut, uint32_t *masks, bool shared, int gx, int gy, int side,
                          izb_cpu_aa_counts *n)
{
    const izb_tri tt = *t;
    const uint32_t tex = cut ? cut->tex[scene_id] : IZB_OPAQUE;
    const KERN(aa_cut) ct = {tex == IZB_OPAQUE ? NULL : cut->uv + 6 * (size_t)scene_id,
                             tex == IZB_OPAQUE ? NULL : cut->textures + tex, cut ? cut->pool : NULL};
    const izb_grid gg = *g;
    int cx0, cy0, cx1, cy1;
    izb_aa_tri_cells(&tt, ex, ey, &gg, &cx0, &cy0, &cx1, &cy1);
    const int cx_first = izb_cpu_first_congruent(cx0, gx, side);
    uint64_t global = 0, visited = 0, pairs = 0;
    for (int cy = izb_cpu_first_congruent(cy0, gy, side); cy <= cy1; cy += side)
        for (int cx = cx_first; cx <= cx1; cx += side) {
            const int c = cy * gg.w + cx;
            const uint32_t j0 = cell_start[c], j1 = cell_end[c];
            if (j0 >= j1) continue;
            global += j1 - j0;
            /* the cell's reach box (cell_box: the union of its points' footprint boxes, raster_aa.c):
             * a triangle whose bbox misses it is near none of its points (izb_aa_near), and one
             * whose edge has the box wholly outside hides none of their sub-samples */
            const float *bx = cell_box + 4 * (size_t)c;
            if (!((tt.x0 <= bx[2]) & (tt.x1 >= bx[0]) & (tt.y0 <= bx[3]) & (tt.y1 >= bx[1]))) continue;
            if (!izb_aa_rect_may_hide(&tt, bx[0], bx[1], bx[2], bx[3])) continue;
            visited += j1 - j0;
            /* four copies: opaque or cut-out, a directional light's footprints or a spot's (S->persp) */
            if (S->persp)
                pairs += tex == IZB_OPAQUE ? KERN(aa_row)(&tt, scene_id, S, p, F, j0, j1, masks, own, NULL, shared, true)
                                           : KERN(aa_row)(&tt, scene_id, S, p, F, j0, j1, masks, own, &ct, shared, true);
            else
                pairs += tex == IZB_OPAQUE ? KERN(aa_row)(&tt, scene_id, S, p, F, j0, j1, masks, own, NULL, shared, false)
                                           : KERN(aa_row)(&tt, scene_id, S, p, F, j0, j1, masks, own, &ct, shared, false);
        }
    n->global += global, n->visited += visited, n->pairs += pairs;
}
