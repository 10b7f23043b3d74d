/* kernels_recon.h — stage 1's hot loop: reconstruction and the bbox over blocks of KERN_BLOCK pixels. One copy per instruction set (see kernels.h). */
#if !defined(KERN) || !defined(KERN_BLOCK)
#error "kernels_recon.h is included by kernels.h only (cpu/isa.c's per-ISA copies)"
#endif

/* Reconstruction of one pixel into lane k: its kind (izb_reconstruct's) and its point, whatever the
 * kind; unit_w as izb_reconstruct_w's (a constant at each call). A helper, so that the point is
 * scalarised per lane. */
static inline int32_t KERN(recon_lane)(const izb_recon *f, int px, int py, float depth, bool unit_w, float *x,
                                       float *y, float *z, uint32_t *pixel, int k)
{
    izb_point p;
    const izb_sample_kind kind = izb_reconstruct_w(f, px, py, depth, unit_w, &p);
    x[k] = p.x, y[k] = p.y, z[k] = p.z, pixel[k] = p.pixel;
    return izb_depth_is_sky(depth) ? IZB_SKY : (int32_t)kind;
}

/* o[k] = (x[k], y[k], z[k], pixel[k]) for the KERN_BLOCK (16) lanes: a 4x4 transpose of the four
 * vectors by shuffles, then four 64-byte stores. GCC made the plain loop 64 scalar stores (one
 * extract each), which took a quarter of the block's time. */
static inline void KERN(recon_store16)(const float *x, const float *y, const float *z, const uint32_t *pixel,
                                       izb_point *o)
{
#if defined(__GNUC__) && !defined(__clang__) && KERN_BLOCK == 16
    typedef float v16 __attribute__((vector_size(64)));
    typedef int32_t i16 __attribute__((vector_size(64)));
    v16 vx, vy, vz, vp;
    memcpy(&vx, x, 64), memcpy(&vy, y, 64), memcpy(&vz, z, 64), memcpy(&vp, pixel, 64); /* pixel: bits */
    const i16 lo = {0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23},
              hi = {8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31},
              q0 = {0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23},
              q1 = {8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31};
    const v16 xy0 = __builtin_shuffle(vx, vy, lo), xy1 = __builtin_shuffle(vx, vy, hi); /* x0 y0 x1 y1 .. */
    const v16 zp0 = __builtin_shuffle(vz, vp, lo), zp1 = __builtin_shuffle(vz, vp, hi);
    const v16 o0 = __builtin_shuffle(xy0, zp0, q0), o1 = __builtin_shuffle(xy0, zp0, q1);
    const v16 o2 = __builtin_shuffle(xy1, zp1, q0), o3 = __builtin_shuffle(xy1, zp1, q1);
    memcpy(o, &o0, 64), memcpy(o + 4, &o1, 64), memcpy(o + 8, &o2, 64), memcpy(o + 12, &o3, 64);
#else
    for (int k = 0; k < KERN_BLOCK; k++)
        o[k] = (izb_point){x[k], y[k], z[k], pixel[k]};
#endif
}

/* recon.c's stage 1 on rows [y0, y1): mask init, the samples from points[0], their count and bbox.
 * The samples come in tiles of tile_w columns (a multiple of KERN_BLOCK; >= the width: pixel
 * order) by the rows' height: the tiles left to right, each row by row (recon.c says why). Blocks
 * of KERN_BLOCK pixels: every lane computes (izb_reconstruct_lit, no branch; no byte stores in
 * that loop, which would make it 16-byte vectors), then the bbox per lane, the mask bytes from the
 * block's unlit bits, and the samples are stored: a whole block at once, none, or (at a
 * silhouette) one by one with no branch. points must hold the rows' pixels: a store may land on
 * any place up to the count of pixels before it in this order. */
static uint32_t KERN(recon_rows)(const izb_recon *fp, const float *depth, int y0, int y1, int tile_w,
                                 uint8_t *mask, izb_point *points, izb_bbox *box)
{
    const izb_recon f = *fp; /* a local copy: the stores cannot alias it */
    const int w = f.width;
    /* the w row (0, 0, 0, 1) of an orthographic light: w is 1 wherever the view point is finite */
    const float *wr = f.cam_to_light;
    const bool unit_try = wr[3] == 0.0f && wr[7] == 0.0f && wr[11] == 0.0f && wr[15] == 1.0f;
    float lo_x[KERN_BLOCK], lo_y[KERN_BLOCK], hi_x[KERN_BLOCK], hi_y[KERN_BLOCK];
    for (int k = 0; k < KERN_BLOCK; k++)
        lo_x[k] = lo_y[k] = INFINITY, hi_x[k] = hi_y[k] = -INFINITY;
    uint32_t c = 0;
    /* the depth prefetch's distance: 2 KB ahead along the row in pixel order; in tiles, the same
     * row's piece of the next tile (read a tile later) */
    const size_t ahead = tile_w < w ? (size_t)tile_w * sizeof(float) : 2048;
    for (int tx = 0; tx < w; tx += tile_w) {
        const int tx1 = w - tx < tile_w ? w : tx + tile_w;
        for (int py = y0; py < y1; py++) {
            const float *drow = depth + (size_t)py * (size_t)w;
            uint8_t *mrow = mask + (size_t)py * (size_t)w;
            for (int x0 = tx; x0 < tx1; x0 += KERN_BLOCK) {
                const int len = w - x0 < KERN_BLOCK ? w - x0 : KERN_BLOCK;
                float tail[KERN_BLOCK], x[KERN_BLOCK], y[KERN_BLOCK], z[KERN_BLOCK];
                uint32_t pixel[KERN_BLOCK];
                int32_t kind[KERN_BLOCK], sample[KERN_BLOCK] __attribute__((aligned(64))),
                    unlit[KERN_BLOCK] __attribute__((aligned(64)));
                const float *d = drow + x0; /* read in place: a copy would stall on store forwarding */
                /* the depth 2 KB ahead (the next row's once near the end: rows are contiguous). The
                 * block's first load was a fifth of its time; measured (bench-recon-ab against the
                 * loop without it, 1080p dir, 30 rounds, load 36): default 0.91-0.92, spheres:4K
                 * 0.89; 512 bytes 0.97, 1024 and 4096 0.92; a prefetch of the points' stores on top,
                 * no gain. An integer address: it may lie past the image, and a prefetch never faults. */
                __builtin_prefetch((const void *)((uintptr_t)d + ahead), 0, 3);
                if (len < KERN_BLOCK) {
                    for (int k = 0; k < KERN_BLOCK; k++)
                        tail[k] = k < len ? d[k] : 0.0f; /* past the row: sky */
                    d = tail;
                }
                /* A block of sky alone (the tail past the row counts as sky) has no point and leaves
                 * the bbox as it is: only its mask is written. */
                int32_t sky[KERN_BLOCK] __attribute__((aligned(64)));
#pragma omp simd
                for (int k = 0; k < KERN_BLOCK; k++)
                    sky[k] = -(int32_t)izb_depth_is_sky(d[k]);
                if (KERN_MOVEMASK(sky) == 0xffffu) {
                    memset(mrow + x0, 255, (size_t)len);
                    continue;
                }
                /* Under an orthographic light the block first tries izb_reconstruct_w's copy without
                 * the divisions by w, and keeps it when every lane that is not sky has w exactly 1
                 * (else, e.g. a coordinate overflowed, the whole block again with them). */
                uint32_t w_off = 1;
                if (unit_try) {
                    int32_t off[KERN_BLOCK] __attribute__((aligned(64)));
#pragma omp simd
                    for (int k = 0; k < KERN_BLOCK; k++) {
                        kind[k] = KERN(recon_lane)(&f, x0 + k, py, d[k], true, x, y, z, pixel, k);
                        off[k] = -(int32_t)(!sky[k] & !(izb_clip_w(&f, x0 + k, py, d[k]) == 1.0f));
                    }
                    w_off = KERN_MOVEMASK(off);
                }
                if (w_off)
#pragma omp simd
                    for (int k = 0; k < KERN_BLOCK; k++)
                        kind[k] = KERN(recon_lane)(&f, x0 + k, py, d[k], false, x, y, z, pixel, k);
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
                    KERN(recon_store16)(x, y, z, pixel, o);
                    c += KERN_BLOCK;
                } else if (bits) {
                    for (int k = 0; k < len; k++) {
                        points[c] = (izb_point){x[k], y[k], z[k], pixel[k]};
                        c += bits >> k & 1;
                    }
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
