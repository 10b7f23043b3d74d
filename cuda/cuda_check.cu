/* cuda_check.cu — the error reporting behind cuda_check.h and the grow-only scratch buffer. */
#include "cuda_check.h"
#include "cuda_common.h"

#include <stdio.h>
#include <stdlib.h>

bool cuda_report(cudaError_t err, const char *what, const char *file, int line)
{
    fprintf(stderr, "izb cuda: %s failed: %s (%s:%d)\n", what, cudaGetErrorString(err), file, line);
    /* Review fix: a failed runtime call also sets the thread's last error. Left there, a non-sticky
     * one (a refused map, a bad argument) would be picked up by the next frame's first
     * cuda_launch_check and fail that frame too, blamed on an innocent kernel. Sticky errors (a
     * kernel fault) are not cleared by this and keep failing every call, as documented. */
    cudaGetLastError();
    return false;
}

static bool sync_each_launch(void)
{
    static int on = -1; /* benign race: every thread computes the same value */
    if (on < 0) {
        const char *e = getenv("IZB_CUDA_SYNC");
        on = e && *e && *e != '0';
    }
    return on != 0;
}

bool cuda_launch_check(const char *kernel, const char *file, int line, cudaStream_t stream)
{
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess && sync_each_launch())
        err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess)
        return cuda_report(err, kernel, file, line);
    return true;
}

bool cuda_scratch_reserve(cuda_scratch *s, size_t bytes, const char *what)
{
    if (bytes <= s->bytes && s->ptr)
        return true;
    cuda_scratch_free(s);
    cudaError_t err = cudaMalloc(&s->ptr, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        s->ptr = NULL;
        fprintf(stderr, "izb cuda: cannot allocate %.1f MB for %s: %s\n", (double)bytes / 1048576.0, what,
                cudaGetErrorString(err));
        cudaGetLastError(); /* an allocation failure is not sticky: clear it */
        return false;
    }
    s->bytes = bytes;
    return true;
}

void cuda_scratch_free(cuda_scratch *s)
{
    if (s->ptr)
        cudaFree(s->ptr);
    s->ptr = NULL;
    s->bytes = 0;
}
