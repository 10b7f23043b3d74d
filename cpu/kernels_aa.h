/* kernels_aa.h — the anti-aliased frames' hot loops (izb_aa.h): the points' footprints, and one
 * triangle against a run of binned points, each point's sub-samples tested in vector lanes. One
 * copy per instruction set, compiled by cpu/isa_aa.c (its own unit: see there why); the
 * izb_cpu_kernels table names them. cpu/raster_aa.c owns the traversal. N <= 32: a point's mask is
 * one word. */
#if !defined(KERN) || !defined(KERN_AA_ONLY)
#error "kernels_aa.h is included by cpu/isa_aa.c only"
#endif

/* The footprints of binned points [j0, j1) (izb_cpu_aa_footprints: here, not in raster_aa.c, since
 * built for the baseline every fmaf would be a libm call: measured 5x the hard frame's set-up);
 * *ex, *ey: their largest extents, max-ed in. Blocks of 16 points: a scalar loop gathers each
 * point's inputs (its depth, its neighbours', its facet's corners) into lanes, then izb_aa_footprint
 * runs in vector lanes (`GCC ivdep`: GCC vectorised no gather there, and `omp simd` not this loop). A point's footprint is
 * independent of the others' and every lane runs the same izb_aa_footprint, so each is the scalar
 * one's, bit for bit; a lane whose pixel has no valid id computes a facet normal from zeros and
 * drops it (the NULL normal: the secants' plane). */
static inline __attribute__((always_inline)) void KERN(aa_foot_run)(
    const izb_recon *f, const izb_aa_view *V, const float *depth, const uint32_t *ids, const float *xyz,
    uint32_t tri_count, const izb_cpu_points *p, int64_t j0, int64_t j1, const izb_cpu_aa_feet *F, float *ex,
    float *ey, const bool with_ids, const bool persp)
{
    const int W = f->width, H = f->height;
    const double inv_w = 1.0 / (double)W;
    /* the light's kind a constant in each copy: a directional frame's loop holds none of the spot's
     * code (izb_aa_persp_bound, the projective footprint; measured: the footprints' stage twice as
     * long with it), and izb.c takes spot lights alone among the lights at a point */
    izb_recon fr = *f;
    fr.light_is_spot = persp ? IZB_LIGHT_SPOT : 0;
    const izb_aa_view VV = *V;
    float mx = *ex, my = *ey;
    for (int64_t b = j0; b < j1; b += 16) {
        const int len = j1 - b < 16 ? (int)(j1 - b) : 16;
        int lpx[16], lpy[16];
        float ld[16], lnb[4][16], ltri[9][16];
        int32_t lhas[16]; /* (not bool: a byte lane would make GCC pick 16-lane vectors of bytes, and then find no float vector to match) */
        for (int k = 0; k < 16; k++) {
            const int pix = (int)p->pixel[b + (k < len ? k : 0)];
            /* pix / W without the integer division (a fifth of this loop, perf): the double
             * quotient's floor, corrected by one either way */
            int py = (int)((double)pix * inv_w);
            py -= py * W > pix;
            py += (py + 1) * W <= pix;
            const int px = pix - py * W;
            lpx[k] = px, lpy[k] = py, ld[k] = depth[pix];
            /* neighbours outside the image count as sky: not usable (izb_aa_secant) */
            lnb[0][k] = px > 0 ? depth[pix - 1] : 0.0f;
            lnb[1][k] = px + 1 < W ? depth[pix + 1] : 0.0f;
            lnb[2][k] = py > 0 ? depth[pix - W] : 0.0f;
            lnb[3][k] = py + 1 < H ? depth[pix + W] : 0.0f;
            const uint32_t id = with_ids ? ids[pix] : IZB_NO_ID;
            lhas[k] = id < tri_count;
            const float *v = xyz + 9 * (size_t)(lhas[k] ? id : 0u); /* (any triangle: dropped) */
            for (int i = 0; i < 9; i++)
                ltri[i][k] = with_ids ? v[i] : 0.0f;
        }
        float o[11][16];
#pragma GCC ivdep
        for (int k = 0; k < 16; k++) {
            const float nb[4] = {lnb[0][k], lnb[1][k], lnb[2][k], lnb[3][k]};
            float tri[9], nv[3];
            for (int i = 0; i < 9; i++)
                tri[i] = ltri[i][k];
            izb_aa_facet_normal(&VV, tri, nv);
            izb_aa_foot ft;
            izb_aa_footprint_sel(&fr, lpx[k], lpy[k], ld[k], nb, lhas[k] != 0, nv, &ft);
            for (int i = 0; i < 3; i++)
                o[i][k] = ft.a[i], o[3 + i][k] = ft.b[i];
            o[6][k] = ft.ex, o[7][k] = ft.ey;
            o[8][k] = ft.aw, o[9][k] = ft.bw, o[10][k] = ft.ez;
        }
        float *const out[11] = {F->a[0] + b, F->a[1] + b, F->a[2] + b, F->b[0] + b, F->b[1] + b, F->b[2] + b,
                                F->ex + b,   F->ey + b,   F->aw + b,   F->bw + b,   F->ez + b};
        if (len == 16) { /* (a whole block: vector copies) */
            for (int i = 0; i < 11; i++)
                for (int k = 0; k < 16; k++)
                    out[i][k] = o[i][k];
        } else {
            for (int i = 0; i < 11; i++)
                for (int k = 0; k < len; k++)
                    out[i][k] = o[i][k];
        }
        for (int k = 0; k < len; k++)
            mx = izb_maxf(mx, o[6][k]), my = izb_maxf(my, o[7][k]);
    }
    *ex = mx, *ey = my;
}

/* (four copies of the loop: without ids it reads neither ids nor xyz; a directional light's
 * without the spot's code) */
void KERN(izb_cpu_aa_footprints)(const izb_recon *f, const izb_aa_view *V, const float *depth, const uint32_t *ids,
                                 const float *xyz, uint32_t tri_count, const izb_cpu_points *p, int64_t j0,
                                 int64_t j1, const izb_cpu_aa_feet *F, float *ex, float *ey)
{
    const bool with_ids = ids && tri_count > 0;
    if (f->light_is_spot)
        if (with_ids)
            KERN(aa_foot_run)(f, V, depth, ids, xyz, tri_count, p, j0, j1, F, ex, ey, true, true);
        else
            KERN(aa_foot_run)(f, V, depth, ids, xyz, tri_count, p, j0, j1, F, ex, ey, false, true);
    else if (with_ids)
        KERN(aa_foot_run)(f, V, depth, ids, xyz, tri_count, p, j0, j1, F, ex, ey, true, false);
    else
        KERN(aa_foot_run)(f, V, depth, ids, xyz, tri_count, p, j0, j1, F, ex, ey, false, false);
}

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
