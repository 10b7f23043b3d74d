/* kernels_soft.h — the soft-shadow raster's hot loop (izb_soft.h): one triangle against a run of
 * binned points, each point's light samples tested in vector lanes. One copy per instruction set
 * (see kernels.h); cpu/raster_soft.c owns the traversal. */
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

/* Triangle t (scene index scene_id) against points [j0, j1): each point's hidden samples OR-ed into
 * its mask words (masks + j * words). shared: other threads OR into the same masks (kernel1), so
 * the ORs are atomic; kernel2's threads own their cells and write plainly. A point whose mask is
 * already full is skipped (the early-out); with ids (own) a pair that hides something is dropped
 * when izb_hit_is_own says the triangle is the point's own or in its plane. Returns the pairs set
 * up (points inside the penumbra box), for the statistics. */
static uint32_t KERN(soft_row)(const izb_soft_tri *t, uint32_t scene_id, const izb_soft_light *L,
                               const izb_cpu_points *p, uint32_t j0, uint32_t j1, uint32_t *masks,
                               const izb_own *own, bool shared)
{
    const int words = izb_mask_words(L->m);
    uint32_t pairs = 0;
    for (uint32_t j = j0; j < j1; j++) {
        uint32_t *mk = masks + (size_t)j * (size_t)words;
        uint32_t cur[IZB_MASK_MAX_WORDS];
        for (int w = 0; w < words; w++)
            cur[w] = shared ? __atomic_load_n(&mk[w], __ATOMIC_RELAXED) : mk[w];
        if (izb_mask_full(cur, L->m))
            continue;
        izb_soft_pair pr;
        if (!izb_soft_pair_setup(t, p->x[j], p->y[j], p->z[j], &pr))
            continue;
        pairs++;
        uint32_t bits[IZB_MASK_MAX_WORDS], any = 0;
        for (int w = 0; w < words; w++) {
            bits[w] = KERN(soft_word)(&pr, t->n, L, w) & ~cur[w];
            any |= bits[w];
        }
        if (!any)
            continue;
        if (own && izb_hit_is_own(own->xyz, 9, 1, own->tri_count, own->pixel_id[p->pixel[j]], scene_id))
            continue;
        for (int w = 0; w < words; w++) {
            if (!bits[w])
                continue;
            if (shared)
                __atomic_fetch_or(&mk[w], bits[w], __ATOMIC_RELAXED);
            else
                mk[w] |= bits[w];
        }
    }
    return pairs;
}
