/* kernels_binning.h — stage 2's hot loop: the cell hash of every point. One copy per instruction set (see kernels.h). */
#if !defined(KERN) || !defined(KERN_BLOCK)
#error "kernels_binning.h is included by kernels.h only (cpu/isa.c's per-ISA copies)"
#endif

/* hash[i] = izb_cell_hash(g, in[i]) for i in [0, n) */
static void KERN(cell_hash)(const izb_point *in, int64_t n, const izb_grid *gp, uint32_t *hash)
{
    const izb_grid g = *gp; /* a local copy: the stores to hash[] cannot alias it */
#pragma omp simd
    for (int64_t i = 0; i < n; i++)
        hash[i] = izb_cell_hash(&g, in[i].x, in[i].y);
}

/* x, y, z, pixel [d0, d1) from in[d0 .. d1): binning's sorted array of structs to the raster's
 * structure of arrays (binning.c's transpose), 16 points at a time as a 4x4 transpose of 64-byte
 * vectors by shuffles. GCC made the plain loop one 16-byte load and four scalar stores a point.
 * Measured in scripts/bench-binning-ab (see binning.c's header). */
static void KERN(bin_transpose)(const izb_point *in, int64_t d0, int64_t d1, float *restrict x, float *restrict y,
                                float *restrict z, uint32_t *restrict pixel)
{
    int64_t d = d0;
#if defined(__GNUC__) && !defined(__clang__)
    typedef float v16 __attribute__((vector_size(64)));
    typedef int32_t i16 __attribute__((vector_size(64)));
    const i16 xy = {0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29},
              zp = {2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31},
              lo = {0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23},
              hi = {8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31};
    for (; d + 16 <= d1; d += 16) {
        v16 a0, a1, a2, a3; /* points d .. d+3, d+4 .. d+7, ... */
        memcpy(&a0, in + d, 64), memcpy(&a1, in + d + 4, 64), memcpy(&a2, in + d + 8, 64), memcpy(&a3, in + d + 12, 64);
        const v16 s0 = __builtin_shuffle(a0, a1, xy), s1 = __builtin_shuffle(a0, a1, zp); /* x0..7 y0..7, z p */
        const v16 s2 = __builtin_shuffle(a2, a3, xy), s3 = __builtin_shuffle(a2, a3, zp); /* the same of 8..15 */
        const v16 vx = __builtin_shuffle(s0, s2, lo), vy = __builtin_shuffle(s0, s2, hi);
        const v16 vz = __builtin_shuffle(s1, s3, lo), vp = __builtin_shuffle(s1, s3, hi);
        memcpy(x + d, &vx, 64), memcpy(y + d, &vy, 64), memcpy(z + d, &vz, 64), memcpy(pixel + d, &vp, 64);
    }
#endif
    for (; d < d1; d++) {
        x[d] = in[d].x;
        y[d] = in[d].y;
        z[d] = in[d].z;
        pixel[d] = in[d].pixel;
    }
}
