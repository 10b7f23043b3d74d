/* kernels_recon.h — stage 1's hot loop: reconstruction and the bbox over blocks of KERN_BLOCK pixels. One copy per instruction set (see kernels.h). */
#if !defined(KERN) || !defined(KERN_BLOCK)
#error "kernels_recon.h is included by kernels.h only (cpu/isa.c's per-ISA copies)"
#endif

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

/* recon.c's stage 1 on rows [y0, y1): mask init, the samples in pixel order from points[0], their
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
