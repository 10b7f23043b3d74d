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

/* With ids: the last own triangle seen by t's pairs and its verdict (izb_hit_is_own depends on the
 * two triangles alone). Neighbouring points mostly show one facet, and the test (two triangles'
 * vertices, random loads, double math) was ~15% of the raster on spheres:4000 with ids (perf). */
typedef struct KERN(aa_memo) {
    uint32_t own;
    bool is_own;
} KERN(aa_memo);

/* Point j (near t: izb_aa_near) against t: its hidden sub-samples OR-ed into its mask word mk,
 * unless the mask is full already (the early-out) or, with ids, t is its own (izb_hit_is_own).
 * ct: t's cut-out inputs, NULL (a constant in the opaque copy: always inlined) when opaque; then
 * only the hidden sub-samples the alpha test keeps count (izb_aa_keep_bits, scalar per hidden
 * sample: a texel read is a gather). Returns whether the samples ran. */
static inline __attribute__((always_inline)) uint32_t KERN(aa_point)(
    const izb_tri *t, uint32_t scene_id, const izb_aa_samples *S, const izb_cpu_points *p,
    const izb_cpu_aa_feet *F, uint32_t j, uint32_t *mk, const izb_own *own, KERN(aa_memo) *memo,
    const KERN(aa_cut) *ct, bool shared, const bool persp)
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
    if (!bits)
        return 1;
    if (own) {
        const uint32_t o = own->pixel_id[p->pixel[j]];
        if (o != memo->own)
            memo->own = o, memo->is_own = izb_hit_is_own(own->xyz, 9, 1, own->tri_count, o, scene_id);
        if (memo->is_own)
            return 1;
    }
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
    uint32_t j0, uint32_t j1, uint32_t *masks, const izb_own *own, KERN(aa_memo) *memo, const KERN(aa_cut) *ct,
    bool shared, const bool persp)
{
    uint32_t pairs = 0;
    for (uint32_t b = j0; b < j1; b += 16) {
        const int len = (int)(j1 - b);
        int32_t flag[16] __attribute__((aligned(64)));
        /* the block's fields through pointers at b, indexed by the lane: indexed by b + k (a 32-bit
         * sum that may wrap, so not contiguous to GCC) every field was 16 scalar loads and inserts
         * a block (vinsertps), most of the raster's time (perf, spheres:4000) */
        const float *x = p->x + b, *y = p->y + b, *z = p->z + b;
        izb_cpu_aa_feet Fb = *F;
        for (int i = 0; i < 3; i++)
            Fb.a[i] += b, Fb.b[i] += b;
        Fb.ex += b, Fb.ey += b, Fb.aw += b, Fb.bw += b, Fb.ez += b;
        /* izb_aa_near alone first (four loads, four compares): where triangles are small next to
         * the cells (spheres:1M), most blocks of the dilated ranges end here */
#pragma omp simd
        for (int k = 0; k < 16; k++)
            flag[k] = -(int32_t)(izb_aa_near(t, x[k], y[k], Fb.ex[k], Fb.ey[k]) & (k < len));
        if (!KERN_MOVEMASK(flag)) continue;
        if (persp) { /* (the projected quad: its bbox and key range) */
#pragma omp simd
            for (int k = 0; k < 16; k++) {
                const izb_aa_foot fk = izb_cpu_aa_foot_at(&Fb, (size_t)k);
                flag[k] = flag[k] & -(int32_t)izb_aa_may_hide_box(t, x[k], y[k], z[k], &fk);
            }
        } else {
#pragma omp simd
            for (int k = 0; k < 16; k++) {
                const izb_aa_foot fk = izb_cpu_aa_foot_at(&Fb, (size_t)k);
                flag[k] = flag[k] & -(int32_t)izb_aa_may_hide(t, x[k], y[k], z[k], &fk);
            }
        }
        for (uint32_t in = KERN_MOVEMASK(flag); in; in &= in - 1) {
            const uint32_t j = b + (uint32_t)__builtin_ctz(in);
            pairs += KERN(aa_point)(t, scene_id, S, p, F, j, masks + j, own, memo, ct, shared, persp);
        }
    }
    return pairs;
}

/* aa_row's four copies: opaque or cut-out (ct NULL or not), a directional light's footprints or a
 * spot's (S->persp). An empty run: nothing. Out of line (an ISA copy still): aa_tri calls it twice,
 * and eight inlined copies of the rows pushed GCC's inliner past its limits (izb_tri_occludes out of
 * line: cpu_aa_kernels_inlined); a call per run of ~100 points costs nothing measurable. */
static __attribute__((noinline)) uint32_t KERN(aa_run)(
    const izb_tri *t, uint32_t scene_id, const izb_aa_samples *S, const izb_cpu_points *p, const izb_cpu_aa_feet *F,
    uint32_t j0, uint32_t j1, uint32_t *masks, const izb_own *own, KERN(aa_memo) *memo, const KERN(aa_cut) *ct,
    bool shared)
{
    if (j0 >= j1)
        return 0;
    if (S->persp)
        return ct ? KERN(aa_row)(t, scene_id, S, p, F, j0, j1, masks, own, memo, ct, shared, true)
                  : KERN(aa_row)(t, scene_id, S, p, F, j0, j1, masks, own, memo, NULL, shared, true);
    return ct ? KERN(aa_row)(t, scene_id, S, p, F, j0, j1, masks, own, memo, ct, shared, false)
              : KERN(aa_row)(t, scene_id, S, p, F, j0, j1, masks, own, memo, NULL, shared, false);
}

/* Triangle t (scene index scene_id) against the cells (cx, cy) of its bbox grown by (ex, ey) (the
 * frame's largest extent) with cx = gx, cy = gy (mod side) (kernel1:
 * side 1), skipping a cell whose reach box (cell_box: x0, y0, x1, y1 per cell) misses t's bbox or
 * lies wholly outside an edge (izb_aa_rect_may_hide); n: the counts, added to.
 * The whole range in one call, the triangle in registers (raster_aa.c called a row per cell); the
 * visited cells' contiguous points in runs (aa_run).
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
    KERN(aa_memo) memo = {IZB_NO_ID, false};
    uint32_t r0 = 0, r1 = 0; /* the pending run of points [r0, r1) */
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
            /* consecutive visited cells whose points are contiguous (a row's, kernel1) make one run:
             * its blocks span cells, as the hard raster's rows do (spheres:4000 at 720p, N = 32: a block
             * per cell made 97 K blocks a frame of 1.16 M visited points, the runs 77 K) */
            if (j0 != r1) {
                pairs += KERN(aa_run)(&tt, scene_id, S, p, F, r0, r1, masks, own, &memo, tex == IZB_OPAQUE ? NULL : &ct,
                                      shared);
                r0 = j0;
            }
            r1 = j1;
        }
    pairs += KERN(aa_run)(&tt, scene_id, S, p, F, r0, r1, masks, own, &memo, tex == IZB_OPAQUE ? NULL : &ct, shared);
    n->global += global, n->visited += visited, n->pairs += pairs;
}
