/* kernels_aa_foot.h — the anti-aliased frames' footprints (izb_aa.h): each binned point's quad on
 * its surface, 16 points in vector lanes. One copy per instruction set, compiled by
 * cpu/isa_aa_foot.c (a unit of its own, apart from the raster loop's: each can be tuned without
 * moving the other's code); the izb_cpu_kernels table names them. */
#if !defined(KERN) || !defined(KERN_AA_FOOT_ONLY)
#error "kernels_aa_foot.h is included by cpu/isa_aa_foot.c only"
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
