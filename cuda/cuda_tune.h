/* cuda_tune.h — every tunable of the CUDA backend, in one place. Sizes are powers of two given as
 * *_LOG2 so index math stays shifts and masks; the unit of each is in its comment. Changing one
 * changes performance only, never results (the tests run every kernel/unit/binning combination).
 */
#ifndef IZB_CUDA_TUNE_H
#define IZB_CUDA_TUNE_H

/* Reconstruction + bbox (thesis §3.3.4): threads per block, depth loads per thread. The thesis
 * found 256 threads x 4 loads best; the block covers 1024 pixels. */
#define IZB_CUDA_RECON_THREADS_LOG2 8
#define IZB_CUDA_RECON_LOADS_LOG2 2
/* Threads of the single-block final bbox stage (loops over the per-block boxes). */
#define IZB_CUDA_FINAL_THREADS_LOG2 10

/* Threads per block of the simple 1D kernels (hash, reorder, cull, scatter, resolve). */
#define IZB_CUDA_THREADS_LOG2 8

/* Atomic binning (thesis §4.2.2). Shared-memory counters per block (cells; 2^13 x 4 B = 32 KB),
 * at most 2^2 = 4 groups of cells (the thesis' 4 groups of 8K cells), 2^7 blocks per group (the
 * thesis used 32 on a 27-SM GTX 260; an H100 has 132 SMs). Grids with more cells than
 * groups x counters use one global atomic per point instead: every group re-reads all points, so
 * more groups would cost more than the global-atomic contention they avoid at ~8 points/cell. */
#define IZB_CUDA_ATOMIC_SMEM_CELLS_LOG2 13
#define IZB_CUDA_ATOMIC_MAX_GROUPS_LOG2 2
#define IZB_CUDA_ATOMIC_BLOCKS_PER_GROUP_LOG2 7
/* Points per counting tile (= threads per counting block): the scatter recomputes which block
 * counted point i as (i >> TILE_LOG2) & (blocks per group - 1). */
#define IZB_CUDA_ATOMIC_TILE_LOG2 8

/* Rasterisation (thesis §5): threads per block; units of 2^5 .. 2^8 threads share a block. */
#define IZB_CUDA_RASTER_THREADS_LOG2 8
/* kernel1 splitting: a triangle whose rows hold more than 2^K1_SPLIT_WORK_LOG2 x unit
 * points is shared by up to IZB_CUDA_K1_SPLIT units (equal pieces of its points), so one triangle
 * covering millions of points is not serialised on one unit. IZB_CUDA_K1_SPLIT 1 = the thesis
 * form (§5.1: one unit per triangle). The launch has ntri x K1_SPLIT units; the spare ones exit
 * after summing the triangle's row lengths. */
#define IZB_CUDA_K1_SPLIT 8
#define IZB_CUDA_K1_SPLIT_WORK_LOG2 4
/* kernel2: triangles staged per shared-memory tile (their cell ranges only, 16 B each). */
#define IZB_CUDA_K2_TILE_LOG2 8
/* kernel2: units are sized to fill about 2^10 threads per SM in one wave. Every unit walks the
 * whole triangle list (thesis eq. 5.2), so more units only add triangle-loop overhead. */
#define IZB_CUDA_K2_THREADS_PER_SM_LOG2 10

/* Unit size 'auto' (thesis §5.6.3: 256 threads below ~5000 triangles, 64 above). Not a power of
 * two: it is the thesis' measured switch point. Above it, a grid with many points per cell (a
 * coarse grid_w x grid_h chosen by the user) gets 128: rows hold more points than 64 lanes. */
#define IZB_CUDA_AUTO_FEW_TRIS 5000
#define IZB_CUDA_AUTO_DENSE_PPC_LOG2 5

#endif
