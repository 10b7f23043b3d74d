/* kernels_aa.h — the anti-aliased frames' hot loops (izb_aa.h): one triangle against a run of
 * binned points, each point's sub-samples tested in vector lanes. One copy per instruction set (see
 * kernels.h); cpu/raster_aa.c owns the traversal. N <= 32: a point's mask is one word. */
#if !defined(KERN)
#error "kernels_aa.h is included by kernels.h only (cpu/isa.c's per-ISA copies)"
#endif

/* The footprints of binned points [j0, j1) (izb_cpu_aa_footprints: here, not in raster_aa.c, since
 * built for the baseline every fmaf would be a libm call: measured 5x the hard frame's set-up);
 * *ex, *ey: their largest extents, max-ed in. */
static void KERN(aa_footprints)(const izb_recon *f, const izb_aa_view *V, const float *depth, const uint32_t *ids,
                                const float *xyz, uint32_t tri_count, const izb_cpu_points *p, int64_t j0, int64_t j1,
                                izb_aa_foot *foot, float *ex, float *ey)
{
    const int W = f->width, H = f->height;
    float mx = *ex, my = *ey;
    for (int64_t j = j0; j < j1; j++) {
        const int pix = (int)p->pixel[j], px = pix % W, py = pix / W;
        /* neighbours outside the image count as sky: not usable (izb_aa_secant) */
        const float nb[4] = {px > 0 ? depth[pix - 1] : 0.0f, px + 1 < W ? depth[pix + 1] : 0.0f,
                             py > 0 ? depth[pix - W] : 0.0f, py + 1 < H ? depth[pix + W] : 0.0f};
        const uint32_t id = ids ? ids[pix] : IZB_NO_ID;
        float nv[3];
        if (id < tri_count) izb_aa_facet_normal(V, xyz + 9 * (size_t)id, nv);
        izb_aa_footprint(f, px, py, depth[pix], nb, id < tri_count ? nv : NULL, &foot[j]);
        mx = izb_maxf(mx, foot[j].ex);
        my = izb_maxf(my, foot[j].ey);
    }
    *ex = mx, *ey = my;
}

/* The sub-samples of point (x, y, z) with footprint f that t hides, as bits (bit k = sample k). */
static inline uint32_t KERN(aa_word)(const izb_tri *t, float x, float y, float z, const izb_aa_foot *f,
                                     const izb_aa_samples *S)
{
    const izb_tri tt = *t;
    const izb_aa_foot ff = *f;
    const int n = S->n;
    uint32_t bits = 0;
#pragma omp simd reduction(| : bits)
    for (int k = 0; k < n; k++)
        bits |= (uint32_t)izb_aa_sample_hidden(&tt, x, y, z, &ff, S->u[k], S->v[k]) << k;
    return bits;
}

/* Point j (near t: izb_aa_near) against t: its hidden sub-samples OR-ed into its mask word mk,
 * unless the mask is full already (the early-out) or, with ids, t is its own (izb_hit_is_own).
 * Returns whether the samples ran. */
static inline uint32_t KERN(aa_point)(const izb_tri *t, uint32_t scene_id, const izb_aa_samples *S,
                                      const izb_cpu_points *p, const izb_aa_foot *foot, uint32_t j, uint32_t *mk,
                                      const izb_own *own, bool shared)
{
    const uint32_t full = izb_mask_word_bits(S->n, 0);
    const uint32_t cur = shared ? __atomic_load_n(mk, __ATOMIC_RELAXED) : *mk;
    if ((cur & full) == full)
        return 0;
    const uint32_t bits = KERN(aa_word)(t, p->x[j], p->y[j], p->z[j], &foot[j], S) & ~cur;
    if (!bits || (own && izb_hit_is_own(own->xyz, 9, 1, own->tri_count, own->pixel_id[p->pixel[j]], scene_id)))
        return 1;
    if (shared)
        __atomic_fetch_or(mk, bits, __ATOMIC_RELAXED);
    else
        *mk |= bits;
    return 1;
}

/* Triangle t (scene index scene_id) against points [j0, j1): each point's hidden sub-samples OR-ed
 * into masks[j]. shared: other threads OR into the same masks (kernel1), so the ORs are atomic;
 * kernel2's threads own their cells and write plainly. izb_aa_near is tested first, 16 points in
 * vector lanes (most points of the visited cells are not near t). Reads whole blocks of 16 points
 * and footprints (both readable IZB_CPU_POINTS_PAD past their end). Returns the pairs whose samples
 * ran, for the statistics. */
static uint32_t KERN(aa_row)(const izb_tri *t, uint32_t scene_id, const izb_aa_samples *S, const izb_cpu_points *p,
                             const izb_aa_foot *foot, uint32_t j0, uint32_t j1, uint32_t *masks, const izb_own *own,
                             bool shared)
{
    uint32_t pairs = 0;
    for (uint32_t b = j0; b < j1; b += 16) {
        const int len = (int)(j1 - b);
        int32_t flag[16] __attribute__((aligned(64)));
#pragma omp simd
        for (int k = 0; k < 16; k++)
            flag[k] = -(int32_t)(izb_aa_near(t, p->x[b + k], p->y[b + k], foot[b + k].ex, foot[b + k].ey) & (k < len));
        for (uint32_t in = KERN_MOVEMASK(flag); in; in &= in - 1) {
            const uint32_t j = b + (uint32_t)__builtin_ctz(in);
            pairs += KERN(aa_point)(t, scene_id, S, p, foot, j, masks + j, own, shared);
        }
    }
    return pairs;
}
