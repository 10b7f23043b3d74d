/* kernels_soft.h — the soft-shadow hot loops (izb_soft.h): the triangles' soft set-up, and one
 * triangle against a run of binned points, each point's light samples tested in vector lanes. One
 * copy per instruction set (see kernels.h: built for the baseline, every fmaf would be a libm
 * call); cpu/raster_soft.c owns the traversal. */
#if !defined(KERN)
#error "kernels_soft.h is included by kernels.h only (cpu/isa.c's per-ISA copies)"
#endif

/* The samples [32 w, 32 w + 32) of the pair hidden by its triangle (normal n), as bits. Reads 32
 * directions whatever m is (izb_soft_light holds IZB_MASK_MAX_BITS, zero past m) and masks off the
 * lanes past m. */
static inline uint32_t KERN(soft_word)(const izb_soft_pair *pr, const float n[3], const izb_soft_light *L, int w)
{
    const float *dx = L->dx + 32 * w, *dy = L->dy + 32 * w;
    const int len = L->m - 32 * w;
    uint32_t bits = 0;
#pragma omp simd reduction(| : bits)
    for (int k = 0; k < 32; k++)
        bits |= (uint32_t)(izb_soft_sample_hidden(pr, n, dx[k], dy[k]) & (k < len)) << k;
    return bits;
}

/* A cut-out triangle's alpha-test inputs (izb_soft_sample_keeps), resolved once per row; tex NULL:
 * the triangle is opaque and its hidden samples are never looked up. */
typedef struct KERN(soft_cut) {
    const float *uv;
    const izb_alpha_tex *tex;
    const uint8_t *pool;
} KERN(soft_cut);

/* The hidden samples `bits` (word w) that the cut-out triangle keeps, each at its own ray's hit
 * point; only the set bits are looked up (a texel read each). */
static uint32_t KERN(soft_cut_bits)(const izb_soft_pair *pr, const izb_soft_light *L, const KERN(soft_cut) *ct, int w,
                                    uint32_t bits)
{
    uint32_t keep = 0;
    for (uint32_t b = bits; b; b &= b - 1) {
        const int k = __builtin_ctz(b), j = 32 * w + k;
        keep |= (uint32_t)izb_soft_sample_keeps(pr, L->dx[j], L->dy[j], ct->uv, ct->pool, ct->tex) << k;
    }
    return keep;
}

/* Point j (inside t's penumbra box) against t: its hidden samples OR-ed into its mask words mk,
 * unless the mask is full already (the early-out) or, with ids, t is its own (izb_hit_is_own); of
 * a cut-out triangle, only the samples its alpha test keeps. Returns whether the pair was set up
 * (ran its samples). */
/* area: t and L are an area light's (izb_area.h): only the pair's set-up differs. */
static inline uint32_t KERN(soft_point)(const izb_soft_tri *t, uint32_t scene_id, const izb_soft_light *L,
                                        const izb_cpu_points *p, uint32_t j, uint32_t *mk, const izb_own *own,
                                        const KERN(soft_cut) *ct, bool shared, bool area)
{
    const int words = izb_mask_words(L->m);
    uint32_t cur[IZB_MASK_MAX_WORDS];
    for (int w = 0; w < words; w++)
        cur[w] = shared ? __atomic_load_n(&mk[w], __ATOMIC_RELAXED) : mk[w];
    if (izb_mask_full(cur, L->m))
        return 0;
    izb_soft_pair pr;
    if (!(area ? izb_area_pair_setup(t, p->x[j], p->y[j], p->z[j], &pr)
               : izb_soft_pair_setup(t, p->x[j], p->y[j], p->z[j], &pr)))
        return 0;
    uint32_t bits[IZB_MASK_MAX_WORDS], any = 0;
    for (int w = 0; w < words; w++) {
        bits[w] = KERN(soft_word)(&pr, t->n, L, w) & ~cur[w];
        if (ct->tex && bits[w]) bits[w] = KERN(soft_cut_bits)(&pr, L, ct, w, bits[w]);
        any |= bits[w];
    }
    if (!any || (own && izb_hit_is_own(own->xyz, 9, 1, own->tri_count, own->pixel_id[p->pixel[j]], scene_id)))
        return 1;
    for (int w = 0; w < words; w++) {
        if (!bits[w])
            continue;
        if (shared)
            __atomic_fetch_or(&mk[w], bits[w], __ATOMIC_RELAXED);
        else
            mk[w] |= bits[w];
    }
    return 1;
}

/* Triangle t (scene index scene_id) against points [j0, j1): each point's hidden samples OR-ed into
 * its mask words (masks + j * words). cut (NULL: no cut-outs in the scene) gives the cut-out
 * triangles' inputs, indexed by scene id (its tri_id is not read). shared: other threads OR into the same masks (kernel1), so
 * the ORs are atomic; kernel2's threads own their cells and write plainly. The penumbra box is
 * tested first, 16 points in vector lanes (most points of the visited cells are outside it): the
 * test izb_soft_pair_setup starts with, so it changes no result. Reads whole blocks of 16 points
 * (izb_cpu_points is readable IZB_CPU_POINTS_PAD past its end). Returns the pairs set up, for the
 * statistics. */
static inline __attribute__((always_inline)) uint32_t KERN(soft_row_of)(const izb_soft_tri *t, uint32_t scene_id,
                                                                        const izb_soft_light *L, const izb_cpu_points *p,
                                                                        uint32_t j0, uint32_t j1, uint32_t *masks,
                                                                        const izb_own *own, const izb_cut *cut,
                                                                        bool shared, bool area)
{
    const size_t words = (size_t)izb_mask_words(L->m);
    const uint32_t tex = cut ? cut->tex[scene_id] : IZB_OPAQUE;
    const KERN(soft_cut) ct = {tex == IZB_OPAQUE ? NULL : cut->uv + 6 * (size_t)scene_id,
                               tex == IZB_OPAQUE ? NULL : cut->textures + tex, cut ? cut->pool : NULL};
    uint32_t pairs = 0;
    for (uint32_t b = j0; b < j1; b += 16) {
        const int len = (int)(j1 - b);
        int32_t flag[16] __attribute__((aligned(64)));
#pragma omp simd
        for (int k = 0; k < 16; k++) {
            float x0, y0, x1, y1;
            izb_soft_box_at(t, p->z[b + k], &x0, &y0, &x1, &y1);
            const float x = p->x[b + k], y = p->y[b + k];
            flag[k] = -(int32_t)((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1) & (k < len));
        }
        for (uint32_t in = KERN_MOVEMASK(flag); in; in &= in - 1) {
            const uint32_t j = b + (uint32_t)__builtin_ctz(in);
            pairs += KERN(soft_point)(t, scene_id, L, p, j, masks + (size_t)j * words, own, &ct, shared, area);
        }
    }
    return pairs;
}

#ifndef KERN_AREA_ONLY /* isa_area.c takes the row above and none of these */
static uint32_t KERN(soft_row)(const izb_soft_tri *t, uint32_t scene_id, const izb_soft_light *L,
                               const izb_cpu_points *p, uint32_t j0, uint32_t j1, uint32_t *masks,
                               const izb_own *own, const izb_cut *cut, bool shared)
{
    return KERN(soft_row_of)(t, scene_id, L, p, j0, j1, masks, own, cut, shared, false);
}

/* Scene triangles [i0, i1) transformed by the light matrix and set up (izb_soft_tri_setup; culled
 * when izb_may_cull says they may be); the survivors go to out[0 ..), their scene indices to
 * tri_id. Returns how many survived. */
static int64_t KERN(soft_setup)(const float *xyz, int64_t i0, int64_t i1, const float *light, const izb_soft_light *L,
                                float zmax, const izb_bbox *pb, const izb_cull_view *cull, izb_soft_tri *out,
                                uint32_t *tri_id)
{
    int64_t k = 0;
    for (int64_t i = i0; i < i1; i++) {
        float v[3][4];
        for (int c = 0; c < 3; c++)
            izb_transform(light, xyz + 9 * i + 3 * c, v[c]);
        if (izb_soft_tri_setup(v, zmax, L, pb, izb_may_cull(cull, (uint32_t)i), &out[k]))
            tri_id[k++] = (uint32_t)i;
    }
    return k;
}
#endif
