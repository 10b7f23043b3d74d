/* izb_cuda_stages.h — each CUDA stage on host arrays (upload -> stage -> download), so the tests can
 * compare it with the CPU reference stage of core/izb_ref.h on the same input. Slow (allocates per
 * call); for tests only. Every function returns false (with a message) on a CUDA error.
 */
#ifndef IZB_CUDA_STAGES_H
#define IZB_CUDA_STAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/izb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Does a CUDA device answer (cudaGetDeviceCount succeeds and finds one)? Tests exit 77 if not.
 * why (may be NULL) gets the reason when not: the CUDA error string (e.g. a driver older than the
 * runtime) or "no device found". */
bool izb_cuda_available(const char **why);

/* izb_ref_reconstruct plus the grid: points (out, capacity width*height) in the device's order
 * (pixel order within blocks of 1024 pixels, blocks in any order — sort by pixel to compare),
 * mask (out, width*height), *count, *bbox, *grid = what the device derived for req_w x req_h. */
bool izb_cuda_stage_reconstruct(const izb_recon *f, const float *depth, int req_w, int req_h, izb_point *points,
                                uint8_t *mask, int *count, izb_bbox *bbox, izb_grid *grid);

/* izb_ref_bin with the given binning mode (n >= 1). */
bool izb_cuda_stage_bin(const izb_point *in, int n, const izb_grid *g, izb_binning mode, izb_point *out,
                        uint32_t *cell_start, uint32_t *cell_end);

/* izb_ref_cull_ids (n >= 1) with every output of the stage: the survivors (in input order) set up
 * in a device buffer of `capacity` triangles (1..n; n always suffices), their scene indices in the
 * stage's tri_id buffer (ids NULL: tri_id not asked for, as the backend without primitive ids
 * runs it), *count = the stage's survivor count (at most capacity) and *overflows = the survivors
 * that did not fit (its overflow counter). out and ids get all `capacity` slots: those past *count
 * hold the 0xAB bytes the device buffers were filled with first, unless the stage wrote there. */
bool izb_cuda_stage_cull(const float *xyz, int n, const izb_recon *f, const izb_grid *g, const izb_bbox *bbox,
                         bool cull_back, int capacity, izb_tri *out, uint32_t *ids, int *count, int *overflows);

/* izb_ref_raster with kernel1/kernel2 and `unit` threads per unit (32/64/128/256, 0 = auto) on a
 * width x height mask (in/out: occluded points' pixels set to 0, the rest untouched). k1_split:
 * kernel1's units per triangle at most (<= 1: the thesis form; the backend uses IZB_CUDA_K1_SPLIT). */
bool izb_cuda_stage_raster(const izb_tri *tris, int nt, const izb_point *points, int n, const uint32_t *cell_start,
                           const uint32_t *cell_end, const izb_grid *g, izb_kernel kernel, int unit, int k1_split,
                           uint8_t *mask, int width, int height);

/* kernel2's unit layout on this device for grid g and `unit` (raster_k2_units), so tests can
 * check layouts wider than the grid and single-unit ones. */
void izb_cuda_k2_units(const izb_grid *g, int unit, int *ux, int *uy);

#ifdef __cplusplus
}
#endif
#endif
