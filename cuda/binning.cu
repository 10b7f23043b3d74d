/* binning.cu — the two point-binning methods of thesis §4.2.
 *
 * Radix (§4.2.1): cell hash per point -> cub::DeviceRadixSort (keys = hash, values = point index,
 * only the bits the cell count needs) -> gather the points in sorted order. Cell ranges by
 * construction: the last point of each run writes its cell's end into a zeroed array, an inclusive
 * prefix max fills the empty cells with the end of the previous non-empty one (the thesis' "prefix
 * fill", §4.2.1), and start[c] = end[c - 1].
 *
 * Atomic (§4.2.2, steps 1-5): hash + counting with shared-memory counters per block, merged into
 * global counters with one atomicAdd per (block, cell) that returns the block's offset inside the
 * cell; exclusive scan of the counts -> cell start; offset accumulation + scatter. Grids with more
 * than 4 x 8K cells count with one global atomicAdd per point instead (see cuda_tune.h).
 */
#include "binning.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda_check.h"
#include "cuda_device.cuh"
#include "cuda_tune.h"

#define THREADS (1 << IZB_CUDA_THREADS_LOG2)
#define SMEM_CELLS (1 << IZB_CUDA_ATOMIC_SMEM_CELLS_LOG2)
#define MAX_GROUPS (1 << IZB_CUDA_ATOMIC_MAX_GROUPS_LOG2)
#define GROUP_BLOCKS (1 << IZB_CUDA_ATOMIC_BLOCKS_PER_GROUP_LOG2)
#define TILE (1 << IZB_CUDA_ATOMIC_TILE_LOG2)

/* Review fix: bin_count_smem_kernel takes up to SMEM_CELLS counters of dynamic shared memory. A
 * launch may ask for at most 48 KB of it without cudaFuncSetAttribute (and that attribute is per
 * device: 99-227 KB); the tunable must not silently turn every atomic-binning launch into an
 * invalid-argument error. */
static_assert((size_t)SMEM_CELLS * sizeof(uint32_t) <= 48u * 1024u,
              "IZB_CUDA_ATOMIC_SMEM_CELLS_LOG2: the counting kernel's dynamic shared memory exceeds 48 KB");

struct max_u32 {
    __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

/* ---- radix ---------------------------------------------------------------------------------- */

__global__ void bin_hash_kernel(const float4 *__restrict__ points, uint32_t n, izb_grid grid, // in
                                uint32_t *__restrict__ keys, uint32_t *__restrict__ vals)    // out
{
    const uint32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    const izb_point p = point_load(points, i);
    keys[i] = izb_cell_hash(&grid, p.x, p.y);
    vals[i] = i;
}

/* Gather in sorted order (coalesced stores); the last point of each cell's run marks its end. */
__global__ void bin_reorder_kernel(const float4 *__restrict__ points,                          // in
                                   const uint32_t *__restrict__ keys,                          // in: sorted
                                   const uint32_t *__restrict__ vals, uint32_t n,              // in
                                   float4 *__restrict__ binned, uint32_t *__restrict__ end_mark) // out
{
    const uint32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    binned[i] = points[vals[i]];
    const uint32_t k = keys[i];
    if (i + 1 == n || keys[i + 1] != k)
        end_mark[k] = i + 1;
}

/* start[c] = end[c - 1]: cells are contiguous in binned order. */
__global__ void bin_start_kernel(const uint32_t *__restrict__ cell_end, uint32_t cells, // in
                                 uint32_t *__restrict__ cell_start)                     // out
{
    const uint32_t c = blockIdx.x * THREADS + threadIdx.x;
    if (c < cells)
        cell_start[c] = c ? cell_end[c - 1] : 0u;
}

/* ---- atomic --------------------------------------------------------------------------------- */

/* Steps 1-3 with shared-memory counters. Block b of group g owns the cells c with c % groups == g
 * (interleaved, §4.2.2) and the tiles of TILE points t = b, b + GROUP_BLOCKS, ...; a point is
 * counted by the one block whose group owns its cell and that covers its tile. keys[i] = cell,
 * vals[i] = offset inside the block's share of the cell, block_off[b * cells + c] = offset of the
 * block's share inside the cell (written for the cells the block counted, read only for those). */
__global__ void __launch_bounds__(TILE)
bin_count_smem_kernel(const float4 *__restrict__ points, uint32_t n, izb_grid grid, // in
                      uint32_t groups, uint32_t slots,                              // in: slots = ceil(cells / groups)
                      uint32_t *__restrict__ keys, uint32_t *__restrict__ vals,     // out
                      uint32_t *__restrict__ cell_count,                            // in/out: zeroed
                      uint32_t *__restrict__ block_off)                             // out
{
    extern __shared__ uint32_t s_count[]; /* slots counters */
    const uint32_t group = blockIdx.x / GROUP_BLOCKS, b = blockIdx.x % GROUP_BLOCKS;
    const uint32_t cells = (uint32_t)grid.w * (uint32_t)grid.h;
    for (uint32_t k = threadIdx.x; k < slots; k += TILE)
        s_count[k] = 0;
    __syncthreads();

    for (uint32_t tile = b; (size_t)tile * TILE < n; tile += GROUP_BLOCKS) {
        const uint32_t i = tile * TILE + threadIdx.x;
        if (i >= n)
            continue;
        const izb_point p = point_load(points, i);
        const uint32_t c = izb_cell_hash(&grid, p.x, p.y);
        if (c % groups == group) {
            vals[i] = atomicAdd(&s_count[c / groups], 1u); /* step 2: block-internal offset */
            keys[i] = c;
        }
    }
    __syncthreads();

    for (uint32_t k = threadIdx.x; k < slots; k += TILE) { /* step 3: merge, get the block offset */
        const uint32_t cnt = s_count[k], c = k * groups + group;
        if (cnt)
            block_off[(size_t)b * cells + c] = atomicAdd(&cell_count[c], cnt);
    }
}

/* Steps 1-2 for large grids: one global atomic per point; its result is the offset in the cell. */
__global__ void bin_count_global_kernel(const float4 *__restrict__ points, uint32_t n, izb_grid grid, // in
                                        uint32_t *__restrict__ keys, uint32_t *__restrict__ vals,    // out
                                        uint32_t *__restrict__ cell_count)                           // in/out
{
    const uint32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    const izb_point p = point_load(points, i);
    const uint32_t c = izb_cell_hash(&grid, p.x, p.y);
    keys[i] = c;
    vals[i] = atomicAdd(&cell_count[c], 1u);
}

__global__ void bin_end_kernel(const uint32_t *__restrict__ cell_start, const uint32_t *__restrict__ cell_count,
                               uint32_t cells,                   // in
                               uint32_t *__restrict__ cell_end)  // out
{
    const uint32_t c = blockIdx.x * THREADS + threadIdx.x;
    if (c < cells)
        cell_end[c] = cell_start[c] + cell_count[c];
}

/* Steps 4-5: global offset = cell start + block offset (shared-memory mode) + internal offset. */
__global__ void bin_scatter_kernel(const float4 *__restrict__ points, uint32_t n,            // in
                                   const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals, // in
                                   const uint32_t *__restrict__ cell_start,                  // in
                                   const uint32_t *__restrict__ block_off, uint32_t cells,   // in: NULL = global mode
                                   float4 *__restrict__ binned)                              // out
{
    const uint32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    const uint32_t c = keys[i];
    uint32_t off = cell_start[c] + vals[i];
    if (block_off)
        off += block_off[(size_t)((i >> IZB_CUDA_ATOMIC_TILE_LOG2) & (GROUP_BLOCKS - 1)) * cells + c];
    binned[off] = points[i];
}

/* ---- host ----------------------------------------------------------------------------------- */

static int key_bits(uint32_t cells) /* bits for keys 0 .. cells-1, at least 1 */
{
    int bits = 1;
    while (bits < 32 && (1u << bits) < cells)
        bits++;
    return bits;
}

extern "C" size_t bin_block_off_capacity(void) { return (size_t)GROUP_BLOCKS * SMEM_CELLS * MAX_GROUPS; }

static bool temp_bytes(int n, int cells, size_t *out)
{
    size_t sort = 0, fill = 0, scan = 0;
    cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort, k, v, n, 0, key_bits((uint32_t)cells)));
    CUDA_TRY(cub::DeviceScan::InclusiveScan(nullptr, fill, (uint32_t *)nullptr, (uint32_t *)nullptr, max_u32{}, cells));
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan, (uint32_t *)nullptr, (uint32_t *)nullptr, cells));
    *out = sort > fill ? sort : fill;
    *out = *out > scan ? *out : scan;
    return true;
}

extern "C" size_t bin_temp_bytes(int n, int cells)
{
    size_t bytes = 0;
    return temp_bytes(n, cells, &bytes) ? bytes : 0;
}

static bool bin_radix(const izb_grid *g, uint32_t n, uint32_t cells, const bin_buffers *b, cudaStream_t s)
{
    CUDA_LAUNCH(bin_hash_kernel, cuda_blocks(n, THREADS), THREADS, 0, s, b->points, n, *g, b->keys[0], b->vals[0]);
    cub::DoubleBuffer<uint32_t> keys(b->keys[0], b->keys[1]), vals(b->vals[0], b->vals[1]);
    size_t bytes = b->temp->bytes;
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(b->temp->ptr, bytes, keys, vals, (int)n, 0, key_bits(cells), s));
    /* cell_start is the zeroed end-mark array until bin_start_kernel overwrites it */
    CUDA_TRY(cudaMemsetAsync(b->cell_start, 0, cells * sizeof(uint32_t), s));
    CUDA_LAUNCH(bin_reorder_kernel, cuda_blocks(n, THREADS), THREADS, 0, s, b->points, keys.Current(),
                vals.Current(), n, b->binned, b->cell_start);
    bytes = b->temp->bytes;
    CUDA_TRY(cub::DeviceScan::InclusiveScan(b->temp->ptr, bytes, b->cell_start, b->cell_end, max_u32{}, (int)cells, s));
    CUDA_LAUNCH(bin_start_kernel, cuda_blocks(cells, THREADS), THREADS, 0, s, b->cell_end, cells, b->cell_start);
    return true;
}

static bool bin_atomic(const izb_grid *g, uint32_t n, uint32_t cells, const bin_buffers *b, cudaStream_t s)
{
    CUDA_TRY(cudaMemsetAsync(b->cell_count, 0, cells * sizeof(uint32_t), s));
    const bool smem = cells <= (uint32_t)SMEM_CELLS * MAX_GROUPS;
    if (smem) {
        const uint32_t groups = (cells + SMEM_CELLS - 1) / SMEM_CELLS;
        const uint32_t slots = (cells + groups - 1) / groups;
        CUDA_LAUNCH(bin_count_smem_kernel, groups * GROUP_BLOCKS, TILE, slots * sizeof(uint32_t), s, b->points, n,
                    *g, groups, slots, b->keys[0], b->vals[0], b->cell_count, b->block_off);
    } else {
        CUDA_LAUNCH(bin_count_global_kernel, cuda_blocks(n, THREADS), THREADS, 0, s, b->points, n, *g, b->keys[0],
                    b->vals[0], b->cell_count);
    }
    size_t bytes = b->temp->bytes;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(b->temp->ptr, bytes, b->cell_count, b->cell_start, (int)cells, s));
    CUDA_LAUNCH(bin_end_kernel, cuda_blocks(cells, THREADS), THREADS, 0, s, b->cell_start, b->cell_count, cells,
                b->cell_end);
    CUDA_LAUNCH(bin_scatter_kernel, cuda_blocks(n, THREADS), THREADS, 0, s, b->points, n, b->keys[0], b->vals[0],
                b->cell_start, smem ? b->block_off : nullptr, cells, b->binned);
    return true;
}

extern "C" bool bin_run(izb_binning mode, const izb_grid *g, int n, const bin_buffers *b, cudaStream_t s)
{
    const size_t cells = (size_t)g->w * (size_t)g->h;
    if (n <= 0 || g->w <= 0 || g->h <= 0 || cells > (size_t)IZB_GRID_MAX_DIM * IZB_GRID_MAX_DIM) {
        fprintf(stderr, "izb cuda: binning: bad input (%d points, grid %dx%d)\n", n, g->w, g->h);
        return false;
    }
    size_t need = 0;
    if (!temp_bytes(n, (int)cells, &need) || !cuda_scratch_reserve(b->temp, need, "binning scratch"))
        return false;
    if (mode == IZB_BINNING_ATOMIC)
        return bin_atomic(g, (uint32_t)n, (uint32_t)cells, b, s);
    return bin_radix(g, (uint32_t)n, (uint32_t)cells, b, s);
}
