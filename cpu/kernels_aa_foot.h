/* kernels_aa_foot.h — the anti-aliased frames' footprints (izb_aa.h): each binned point's quad on
 * its surface, 16 points in vector lanes; and the cells' reach boxes over them. One copy per instruction set, compiled by
 * cpu/isa_aa_foot.c (a unit of its own, apart from the raster loop's: each can be tuned without
 * moving the other's code); the izb_cpu_kernels table names them. */
#if !defined(KERN) || !defined(KERN_AA_FOOT_ONLY)
#error "kernels_aa_foot.h is included by cpu/isa_aa_foot.c only"
#endif

#ifndef AA_FOOT_AHEAD
#define AA_FOOT_AHEAD 64 /* (measured against none: 5-7% less time, 32 about the same) */
#endif

/* out[k] = base[idx[k]], k < 16: one vector gather where the copy's instruction set has it (the
 * scalar loop's loads were most of this stage, perf: GCC unrolls 16-lane loops before its
 * vectoriser, which then emits no gather) */
static inline __attribute__((always_inline)) void KERN(aa_gather)(const float *base, const int32_t *idx, float *out)
{
#if defined(__AVX512F__)
    _mm512_storeu_ps(out, _mm512_i32gather_ps(_mm512_loadu_si512(idx), base, 4));
#elif defined(__AVX2__)
    for (int h = 0; h < 16; h += 8)
        _mm256_storeu_ps(out + h, _mm256_i32gather_ps(base, _mm256_loadu_si256((const __m256i *)(idx + h)), 4));
#else
    for (int k = 0; k < 16; k++)
        out[k] = base[idx[k]];
#endif
}

static inline __attribute__((always_inline)) void KERN(aa_gather_u)(const uint32_t *base, const int32_t *idx,
                                                                    uint32_t *out)
{
#if defined(__AVX512F__)
    _mm512_storeu_si512(out, _mm512_i32gather_epi32(_mm512_loadu_si512(idx), base, 4));
#elif defined(__AVX2__)
    for (int h = 0; h < 16; h += 8)
        _mm256_storeu_si256((__m256i *)(out + h),
                            _mm256_i32gather_epi32((const int *)base, _mm256_loadu_si256((const __m256i *)(idx + h)), 4));
#else
    for (int k = 0; k < 16; k++)
        out[k] = base[idx[k]];
#endif
}

/* The footprints of binned points [j0, j1) (izb_cpu_aa_footprints: here, not in raster_aa.c, since
 * built for the baseline every fmaf would be a libm call: measured 5x the hard frame's set-up);
 * *ex, *ey: their largest extents, max-ed in. Blocks of 16 points: vector gathers fetch each
 * point's inputs (its depth, its neighbours', its id, its facet's corners) into lanes, then
 * izb_aa_footprint runs in vector lanes (`GCC ivdep`; `omp simd` does not take this loop). A
 * point's footprint is independent of the others' and every lane runs the same izb_aa_footprint,
 * so each is the scalar one's, bit for bit (test_cpu_aa_foot); a lane whose pixel has no valid id
 * computes a facet normal from triangle 0 and drops it (the NULL normal: the secants' plane).
 * Measured (perf, docs/benchmarks.md): the scalar per-lane loads were ~70% of this loop, and the
 * binned points come in cell order, so the depth rows and ids are mostly cache misses: hence the
 * gathers and the prefetch AA_FOOT_AHEAD points on. */
static inline __attribute__((always_inline)) void KERN(aa_foot_run)(
    const izb_recon *f, const izb_aa_view *V, const float *depth, const uint32_t *ids, const float *xyz,
    uint32_t tri_count, const izb_cpu_points *p, int64_t j0, int64_t j1, const izb_cpu_aa_feet *F, float *ex,
    float *ey, const bool with_ids, const bool persp)
{
    const int W = f->width, H = f->height;
    const double inv_w = 1.0 / (double)W;
    const int last_row = (H - 1) * W;
    /* the light's kind a constant in each copy: a directional frame's loop holds none of the spot's
     * code (izb_aa_persp_bound, the projective footprint; measured: the footprints' stage twice as
     * long with it), and izb.c takes spot lights alone among the lights at a point */
    izb_recon fr = *f;
    fr.light_is_spot = persp ? IZB_LIGHT_SPOT : 0;
    const izb_aa_view VV = *V;
    /* the extents' maxima per lane, combined at the end: izb_maxf drops NaN and every extent is
     * +0 or more, so the order of the max-es cannot change the bits */
    float mx[16], my[16];
    for (int k = 0; k < 16; k++)
        mx[k] = *ex, my[k] = *ey;
    for (int64_t b = j0; b < j1; b += 16) {
        const int len = j1 - b < 16 ? (int)(j1 - b) : 16;
        int32_t lpix[16], lpx[16], lpy[16];
        float ld[16], lnb[4][16], ltri[9][16];
        int32_t lhas[16]; /* (not bool: a byte lane would make GCC pick 16-lane vectors of bytes, and then find no float vector to match) */
        /* the depth rows and id of the points AA_FOOT_AHEAD on, fetched while this block waits on
         * its own (binned points are in cell order, not pixel order: most of these are misses) */
        if (b + AA_FOOT_AHEAD + 16 <= j1)
            for (int k = AA_FOOT_AHEAD; k < AA_FOOT_AHEAD + 16; k++) {
                const int q = (int)p->pixel[b + k];
                __builtin_prefetch(depth + (q >= W ? q - W : q));
                __builtin_prefetch(depth + q);
                __builtin_prefetch(depth + (q < last_row ? q + W : q));
                if (with_ids) __builtin_prefetch(ids + q);
            }
        /* the pixels read straight from the binned points in a whole block (copied into lpix in
         * narrower stores, then loaded as one vector, they were a store-forwarding stall: most of
         * the AVX2 copy's time, perf); a tail's last lanes repeat its first point */
        const uint32_t *src = p->pixel + b;
        uint32_t tail[16];
        if (len < 16) {
            for (int k = 0; k < 16; k++)
                tail[k] = p->pixel[b + (k < len ? k : 0)];
            src = tail;
        }
#pragma omp simd
        for (int k = 0; k < 16; k++) {
            const int pix = (int)src[k];
            lpix[k] = pix;
            /* pix / W without the integer division (a fifth of this loop, perf): the double
             * quotient's floor, corrected by one either way */
            int py = (int)((double)pix * inv_w);
            py -= py * W > pix;
            py += (py + 1) * W <= pix;
            lpx[k] = pix - py * W, lpy[k] = py;
        }
        /* the depths at the pixel and its neighbours (an index clamped to the pixel where the
         * neighbour is outside the image, then dropped: sky, not usable, izb_aa_secant) */
        int32_t li[4][16];
        for (int k = 0; k < 16; k++) {
            const int pix = lpix[k], px = lpx[k], py = lpy[k];
            li[0][k] = px > 0 ? pix - 1 : pix;
            li[1][k] = px + 1 < W ? pix + 1 : pix;
            li[2][k] = py > 0 ? pix - W : pix;
            li[3][k] = py + 1 < H ? pix + W : pix;
        }
        KERN(aa_gather)(depth, lpix, ld);
        for (int i = 0; i < 4; i++)
            KERN(aa_gather)(depth, li[i], lnb[i]);
        for (int k = 0; k < 16; k++) {
            lnb[0][k] = lpx[k] > 0 ? lnb[0][k] : 0.0f;
            lnb[1][k] = lpx[k] + 1 < W ? lnb[1][k] : 0.0f;
            lnb[2][k] = lpy[k] > 0 ? lnb[2][k] : 0.0f;
            lnb[3][k] = lpy[k] + 1 < H ? lnb[3][k] : 0.0f;
        }
        if (with_ids) {
            uint32_t lid[16];
            int32_t lv[16];
            KERN(aa_gather_u)(ids, lpix, lid);
            for (int k = 0; k < 16; k++) {
                lhas[k] = lid[k] < tri_count;
                lv[k] = lhas[k] ? 9 * (int32_t)lid[k] : 0; /* (any triangle: dropped; int32: AA_FOOT_GATHER_TRIS) */
            }
            for (int i = 0; i < 9; i++)
                KERN(aa_gather)(xyz + i, lv, ltri[i]);
        } else {
            for (int k = 0; k < 16; k++) {
                lhas[k] = 0;
                for (int i = 0; i < 9; i++)
                    ltri[i][k] = 0.0f;
            }
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
        for (int k = 0; k < 16; k++)
            mx[k] = k < len ? izb_maxf(mx[k], o[6][k]) : mx[k], my[k] = k < len ? izb_maxf(my[k], o[7][k]) : my[k];
    }
    for (int k = 0; k < 16; k++)
        *ex = izb_maxf(*ex, mx[k]), *ey = izb_maxf(*ey, my[k]);
}

/* A scene too large for the corners' int32 gather indices (9 id < 2^31): each point's footprint
 * one at a time, izb_aa_footprint itself (as test_cpu_aa_foot's reference). A branch inside the
 * block loop instead cost ~20% of the loop's time (measured). */
#define AA_FOOT_GATHER_TRIS ((uint32_t)(INT32_MAX / 9))
static void KERN(aa_foot_scalar)(const izb_recon *f, const izb_aa_view *V, const float *depth, const uint32_t *ids,
                                 const float *xyz, uint32_t tri_count, const izb_cpu_points *p, int64_t j0,
                                 int64_t j1, const izb_cpu_aa_feet *F, float *ex, float *ey)
{
    const int W = f->width, H = f->height;
    for (int64_t j = j0; j < j1; j++) {
        const int pix = (int)p->pixel[j], px = pix % W, py = pix / W;
        const float nb[4] = {px > 0 ? depth[pix - 1] : 0.0f, px + 1 < W ? depth[pix + 1] : 0.0f,
                             py > 0 ? depth[pix - W] : 0.0f, py + 1 < H ? depth[pix + W] : 0.0f};
        const bool has = ids[pix] < tri_count;
        float nv[3];
        if (has) izb_aa_facet_normal(V, xyz + 9 * (size_t)ids[pix], nv);
        izb_aa_foot ft;
        izb_aa_footprint(f, px, py, depth[pix], nb, has ? nv : NULL, &ft);
        for (int i = 0; i < 3; i++)
            F->a[i][j] = ft.a[i], F->b[i][j] = ft.b[i];
        F->ex[j] = ft.ex, F->ey[j] = ft.ey, F->aw[j] = ft.aw, F->bw[j] = ft.bw, F->ez[j] = ft.ez;
        *ex = izb_maxf(*ex, ft.ex), *ey = izb_maxf(*ey, ft.ey);
    }
}

/* (four copies of the loop: without ids it reads neither ids nor xyz; a directional light's
 * without the spot's code) */
void KERN(izb_cpu_aa_footprints)(const izb_recon *f, const izb_aa_view *V, const float *depth, const uint32_t *ids,
                                 const float *xyz, uint32_t tri_count, const izb_cpu_points *p, int64_t j0,
                                 int64_t j1, const izb_cpu_aa_feet *F, float *ex, float *ey)
{
    const bool with_ids = ids && tri_count > 0;
    if (with_ids && tri_count > AA_FOOT_GATHER_TRIS)
        KERN(aa_foot_scalar)(f, V, depth, ids, xyz, tri_count, p, j0, j1, F, ex, ey);
    else if (f->light_is_spot)
        if (with_ids)
            KERN(aa_foot_run)(f, V, depth, ids, xyz, tri_count, p, j0, j1, F, ex, ey, true, true);
        else
            KERN(aa_foot_run)(f, V, depth, ids, xyz, tri_count, p, j0, j1, F, ex, ey, false, true);
    else if (with_ids)
        KERN(aa_foot_run)(f, V, depth, ids, xyz, tri_count, p, j0, j1, F, ex, ey, true, false);
    else
        KERN(aa_foot_run)(f, V, depth, ids, xyz, tri_count, p, j0, j1, F, ex, ey, false, false);
}

/* izb_cpu_aa_cell_boxes over cells [c0, c1) (the loop binning_aa.c had; here its fmaf are
 * instructions, not libm calls: 2 a point, perf) */
static void KERN(aa_cell_boxes)(const izb_cpu_points *p, const izb_cpu_aa_feet *F, const uint32_t *start,
                                const uint32_t *end, int64_t c0, int64_t c1, float tx, float ty, float *box)
{
    for (int64_t c = c0; c < c1; c++) {
        float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        for (uint32_t j = start[c]; j < end[c]; j++) {
            if (!((F->ex[j] <= tx) & (F->ey[j] <= ty))) continue;
            const float rx = izb_cpu_aa_reach(p->x[j], F->ex[j]), ry = izb_cpu_aa_reach(p->y[j], F->ey[j]);
            x0 = izb_minf(x0, p->x[j] - rx), x1 = izb_maxf(x1, p->x[j] + rx);
            y0 = izb_minf(y0, p->y[j] - ry), y1 = izb_maxf(y1, p->y[j] + ry);
        }
        box[4 * c] = x0, box[4 * c + 1] = y0, box[4 * c + 2] = x1, box[4 * c + 3] = y1;
    }
}
