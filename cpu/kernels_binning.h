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
