/* kernels.h — the CPU backend's hot loops (reconstruction's blocks of 16 pixels, binning's
 * cell hash, the two rasterisers' inner traversal, culling's bundles of 16 triangles), included
 * once per instruction set by isa.c under its own `#pragma GCC target`, with KERN(name)
 * naming that copy. Not a header to include anywhere else.
 *
 * One formula, one source: every per-point value is izb_math.h's inline function, vectorised by
 * `#pragma omp simd`. fmaf is correctly rounded in vector form too and nothing is contracted
 * (-ffp-contract=off), so every copy gives the bits of the scalar reference.
 *
 * The raster tests a triangle against its cell rows' points in blocks of KERN_BLOCK (one AVX-512
 * vector, two AVX2 ones): the block always computes all lanes, from the structure-of-arrays points
 * (izb_cpu_points: x, y, z contiguous, readable IZB_CPU_POINTS_PAD past the end) and masks off the
 * lanes past the row, so a row of any length is whole vectors with no scalar tail. The hits come
 * out as a bit mask, OR-ed into the calling thread's own bitmap over the binned points: no branch
 * on the outcome (which is unpredictable) and no store another thread can see. With primitive ids
 * (izb_own) the block's hits are queued for izb_hit_is_own, which runs in batches (own_flush); the
 * traversals are compiled twice (with and without ids), so the path without ids has no branch per
 * block at all. */
#if !defined(KERN) || !defined(KERN_MOVEMASK)
#error "kernels.h is included by cpu/isa.c only, with KERN and KERN_MOVEMASK defined"
#endif

#define KERN_BLOCK 16 /* points (pixels, triangles) per block: one bit each in a uint32_t */

/* one header per stage, like the stage files of cpu/ and cuda/ */
#include "kernels_recon.h"   /* stage 1: reconstruction of blocks of 16 pixels */
#include "kernels_faces.h"   /* a point light's cube: reconstruction into faces, culling's pre-test */
#include "kernels_binning.h" /* stage 2: the cell hash */
#include "kernels_cull.h"    /* stage 3: culling of bundles of 16 triangles */
#include "kernels_raster.h"  /* stage 4: kernel1's and kernel2's traversals */
#include "kernels_soft.h"    /* stage 4 for soft shadows: a triangle against a run of points */
/* kernels_aa.h, kernels_aa_foot.h (anti-aliased edges) and kernels_area.h (area lights): their own units, isa_aa.c, isa_aa_foot.c and isa_area.c */

#undef KERN_OWN_BATCH
#undef KERN_OWN_BLOCKS
#undef KERN_BLOCK

