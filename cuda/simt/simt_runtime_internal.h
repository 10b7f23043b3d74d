/* simt_runtime_internal.h — how the emulated runtime represents what CUDA hands out as handles, for
 * the runtime's own files (simt_runtime.cpp, simt_exec.cpp, the GL interop). Not for the .cu files of cuda/.
 *
 *  - Device memory (cudaMalloc) and pinned host memory (cudaMallocHost) are host allocations,
 *    256-byte aligned, filled with the poison byte, registered in one table so copies, memsets and
 *    CUB calls can check that a range lies inside one allocation (find_allocation).
 *  - A cudaArray is `struct cudaArray` below: a width x height block of texels of elem_bytes each,
 *    row 0 first, rows packed (pitch = width * elem_bytes), poisoned at creation.
 *  - Texture and surface objects are small integers (1, 2, ...) indexing a table of
 *    texture_object / surface_object; 0 is never a valid object, as in CUDA.
 *  - Streams are queues of host closures run in order at the stream's sync points (deferred).
 */
#ifndef SIMT_RUNTIME_INTERNAL_H
#define SIMT_RUNTIME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <functional>

#include "cuda_runtime_api.h"

struct cudaArray {
    cudaChannelFormatDesc desc;
    size_t width, height; /* texels */
    size_t elem_bytes;    /* (x + y + z + w) / 8 */
    unsigned flags;       /* cudaArraySurfaceLoadStore, ... */
    unsigned char *data;  /* width * height * elem_bytes, row y at data + y * width * elem_bytes */
    /* Set while the array is a mapped graphics resource (GL interop): who owns it. */
    void *owner;
};

namespace simt {

enum class mem_kind { device, pinned };

struct allocation {
    unsigned char *base;
    size_t bytes;
    mem_kind kind;
};

/* The allocation holding [p, p + bytes), or false. *whole (may be NULL) gets it; when p lies in an
 * allocation but the range overruns it, *whole still gets that allocation and false is returned. */
bool find_allocation(const void *p, size_t bytes, allocation *whole);

/* Arrays (cudaMallocArray and mapped GL images). NULL with cudaErrorInvalidValue set on a bad
 * format (only 1-channel 8/16/32-bit formats are emulated). */
cudaArray *array_create(const cudaChannelFormatDesc *desc, size_t width, size_t height, unsigned flags);
void array_destroy(cudaArray *a);

struct texture_object {
    cudaArray *array;
    cudaTextureDesc desc;
};
struct surface_object {
    cudaArray *array;
};

/* Errors: record err as the calling thread's last error (and return it). A sticky error (a kernel
 * fault) is returned by every later call. */
cudaError_t set_error(cudaError_t err);
cudaError_t sticky_error();
void set_sticky(cudaError_t err);
/* Print "simt: CALL: MESSAGE" (printf format) to stderr. */
void complain(const char *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Streams: queue an operation, run everything queued on one stream or on all (device sync). A
 * NULL stream is the legacy default stream. */
void stream_queue(cudaStream_t s, std::function<void()> op);
void stream_flush(cudaStream_t s);
void flush_all_streams();

/* The byte new device and pinned memory is filled with (SIMT_POISON, default 0xff). */
unsigned char poison_byte();

/* Worker pool (simt_exec.cpp). */
struct grid_launch;
void run_grid(grid_launch &g);
int reported_sm_count();

} // namespace simt
#endif
