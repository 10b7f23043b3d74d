/* binning.h — stage 2 on the device: points into the uniform grid, cell start/end (thesis §4.2),
 * by radix sort (§4.2.1) or by atomic counting (§4.2.2); both selectable at run time. */
#ifndef IZB_CUDA_BINNING_H
#define IZB_CUDA_BINNING_H

#include "../core/izb.h"
#include "cuda_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Entries bin_buffers.block_off needs: blocks per group x the largest grid that atomic binning
 * counts in shared memory (larger grids use global atomics and need none). */
size_t bin_block_off_capacity(void);

typedef struct bin_buffers {
    const float4 *points;            /* in: n points */
    float4 *binned;                  /* out: n points grouped by cell, cells in order */
    uint32_t *cell_start, *cell_end; /* out: grid w*h entries each; empty cells have start == end */
    uint32_t *cell_count;            /* scratch: w*h */
    uint32_t *keys[2], *vals[2];     /* scratch: n each (sort double buffers, hash/offset) */
    uint32_t *block_off;             /* scratch: bin_block_off_capacity() */
    cuda_scratch *temp;              /* CUB temporary storage; grown here if too small */
} bin_buffers;

/* CUB temporary bytes either mode needs for n points and `cells` cells (to reserve up front). */
size_t bin_temp_bytes(int n, int cells);

/* Bin n > 0 points into grid g (g->w*g->h cells) on stream s. Radix: a stable sort, so the order
 * within a cell is the input order (equal to izb_ref_bin on the same input). Atomic: the same
 * cells and cell_start/cell_end; the order within a cell depends on timing. */
bool bin_run(izb_binning mode, const izb_grid *g, int n, const bin_buffers *b, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
