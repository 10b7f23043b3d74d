/* izb_cpu_stages.h — private to core/izb_ref.c and core/izb_cpu.c: the reference stages of
 * izb_ref.h with the thread count and scratch buffers passed in, so the CPU backend allocates
 * nothing per frame. The public izb_ref_* functions are these with all threads and scratch they
 * allocate themselves. Results never depend on `threads`.
 */
#ifndef IZB_CPU_STAGES_H
#define IZB_CPU_STAGES_H

#include <stddef.h>

#include "izb_ref.h"

/* Upper bound on worker threads (chunk counters live on the stack). */
#define IZB_CPU_MAX_THREADS 256

/* threads <= 0: all (omp_get_max_threads()); clamped to [1, IZB_CPU_MAX_THREADS]. */
int izb_cpu_threads(int threads);

/* izb_ref_reconstruct on `threads` threads. */
int izb_cpu_reconstruct(const izb_recon *f, const float *depth, izb_point *points, uint8_t *mask,
                        izb_bbox *bbox, int threads);

/* Scratch words izb_cpu_bin needs for n points, grid g and `threads` threads. */
size_t izb_cpu_bin_scratch(int n, const izb_grid *g, int threads);
/* izb_ref_bin with scratch (capacity izb_cpu_bin_scratch(n, g, threads) words). */
void izb_cpu_bin(const izb_point *in, int n, const izb_grid *g, izb_point *out, uint32_t *cell_start,
                 uint32_t *cell_end, int threads, uint32_t *scratch);

/* izb_ref_cull with a thread count, and back faces dropped where izb_may_cull(cull, i) says so. */
int izb_cpu_cull(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                 const izb_cull_view *cull, izb_tri *out, int threads);
/* izb_cpu_cull writing each survivor's scene index to tri_id (capacity n) unless it is NULL. */
int izb_cpu_cull_ids(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                     const izb_cull_view *cull, izb_tri *out, uint32_t *tri_id, int threads);

/* izb_ref_raster on `threads` threads. Kernel2 interleaves the cells over a G x G pattern of
 * groups (thesis §5.2.1, the smallest G >= 2 with G * G >= 2 * threads): cell (cx, cy) belongs to
 * group (cy % G) * G + cx % G, and one thread at a time owns a group. */
void izb_cpu_raster(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                    const uint32_t *cell_end, const izb_grid *g, izb_kernel kernel, uint8_t *mask,
                    int threads);
/* izb_ref_raster_own on `threads` threads. */
void izb_cpu_raster_own(const izb_tri *tris, int nt, const izb_point *points, const uint32_t *cell_start,
                        const uint32_t *cell_end, const izb_grid *g, izb_kernel kernel, const izb_own *own,
                        uint8_t *mask, int threads);

#endif
