/* cuda_check.h — error checks for the host side of the .cu files (C++ only). Every CUDA call and
 * every launch is checked; a failure prints one line naming the expression (or kernel), the file
 * and the line, and the enclosing function returns false. Errors raised asynchronously by a
 * kernel surface at the next checked call; set IZB_CUDA_SYNC=1 in the environment to synchronise
 * after every launch, so the failing kernel itself is named.
 */
#ifndef IZB_CUDA_CHECK_H
#define IZB_CUDA_CHECK_H

#include <stdio.h>

#include <cuda_runtime_api.h>

/* Print "izb cuda: WHAT failed: REASON (FILE:LINE)"; returns false for `return cuda_report(...)`. */
bool cuda_report(cudaError_t err, const char *what, const char *file, int line);
/* After a launch: cudaGetLastError, plus a stream sync when IZB_CUDA_SYNC is set. */
bool cuda_launch_check(const char *kernel, const char *file, int line, cudaStream_t stream);

#define CUDA_TRY(expr)                                                                             \
    do {                                                                                           \
        cudaError_t err_ = (expr);                                                                 \
        if (err_ != cudaSuccess)                                                                   \
            return cuda_report(err_, #expr, __FILE__, __LINE__);                                   \
    } while (0)

/* Launch `kernel` (a name, or a variable holding a __global__ function pointer for templates
 * whose argument lists have commas) and check it. */
#define CUDA_LAUNCH(kernel, grid, block, smem, stream, ...)                                        \
    do {                                                                                           \
        kernel<<<(grid), (block), (smem), (stream)>>>(__VA_ARGS__);                                \
        if (!cuda_launch_check(#kernel, __FILE__, __LINE__, (stream)))                            \
            return false;                                                                          \
    } while (0)

static inline unsigned cuda_blocks(size_t items, unsigned threads)
{
    return (unsigned)((items + threads - 1) / threads);
}

#endif
