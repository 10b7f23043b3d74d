/* simt.h — the SIMT emulator's device side: what a kernel compiled with the host C++ compiler calls
 * (through the prelude's CUDA vocabulary) and the launch that runs it. C++17.
 *
 * CUDA contracts this emulator ENFORCES (a violation is a fault: one message naming kernel, launch
 * site, block, warp and lanes, then abort — or a sticky cudaErrorLaunchFailure with
 * SIMT_ON_FAULT=error — never a hang):
 *  - __syncthreads is a meeting point of every thread of the block, at one call site: a barrier
 *    some threads never reach (deadlock), threads waiting at two different barriers (divergent
 *    barrier), or a barrier reached after some thread of the block exited.
 *  - every warp collective (__ballot_sync, __shfl_*_sync, __any/__all_sync, __syncwarp) is a
 *    meeting point of exactly the lanes in its mask, all at the same call site with the same mask:
 *    a calling lane outside the mask, a lane of the mask that exited or waits elsewhere, different
 *    masks or sites, and a shuffle reading a lane outside the mask are faults.
 *  - launch configuration: 1..1024 threads per block, no zero-sized grid, dynamic shared memory
 *    at most 48 KB unless cudaFuncSetAttribute(MaxDynamicSharedMemorySize) allowed more (at most
 *    the reported opt-in limit): otherwise cudaErrorInvalidConfiguration at the launch, like CUDA.
 *  - surf2Dwrite out of bounds (cudaBoundaryModeTrap, the default) is a fault; tex2D clamps or
 *    wraps as its texture object says.
 *  - atomics are real atomics (relaxed, as CUDA's) shared by all blocks on all worker threads.
 * What it does NOT model: the memory model under real concurrency (threads of a block interleave
 * only at barriers and collectives), device rounding (the emulated objects round as the CPU does),
 * occupancy and speed. Bounds of plain loads/stores in kernels are not checked (run an ASan build
 * for that); copies, memsets and CUB calls are (simt_runtime.cpp).
 *
 * Execution: the threads of a block are fibers on one OS worker thread, run one at a time until
 * they wait at a barrier or collective or exit; blocks are spread over a pool of workers. Because a
 * worker runs one block at a time to completion, static __shared__ arrays are `thread_local`
 * function statics (one copy per worker = per running block), and extern __shared__ arrays are
 * thread_local buffers generated at build time (gen_dynamic_shared.py).
 *
 * Environment switches (results must not depend on them; CI runs both orders):
 *   SIMT_THREAD_ORDER=forward|reverse  order in which runnable threads of a block are resumed
 *   SIMT_BLOCK_ORDER=forward|reverse   order in which blocks are handed to workers
 *   SIMT_WORKERS=N                     worker threads (default: online CPUs)
 *   SIMT_SM_COUNT=N                    multiprocessors the device reports (default 4)
 *   SIMT_POISON=0xNN                   byte that fills new device/pinned memory (default 0xff)
 *   SIMT_STRICT=1                      also: yield at every atomic (threads interleave there) and
 *                                      poison dynamic shared memory at every block start
 *   SIMT_ON_FAULT=abort|error          abort the process (default) or make the fault a sticky
 *                                      cudaErrorLaunchFailure
 *   SIMT_RACE_FIBERS=thread|warp       race mode: one TSan fiber per CUDA thread (default) or per
 *                                      warp (32x cheaper syncs; misses races inside one warp)
 */
#ifndef SIMT_H
#define SIMT_H

#include <stdint.h>
#include <string.h>

#include <atomic>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda_runtime_api.h"

/* Largest dynamic shared memory per block a launch may ask for after cudaFuncSetAttribute
 * (an H100's 227 KB); the generated extern __shared__ buffers have this size. */
#define SIMT_DYNAMIC_SHARED_MAX (227u * 1024u)
#define SIMT_DYNAMIC_SHARED_DEFAULT (48u * 1024u)

/* The running CUDA thread's coordinates: per OS thread, set by the scheduler before it resumes a
 * fiber (a block's fibers never leave their worker). */
extern __thread uint3 simt_threadIdx, simt_blockIdx;
extern __thread dim3 simt_blockDim, simt_gridDim;

namespace simt {

struct site {
    const char *file;
    int line;
};

/* Warp collectives: every lane of `mask` brings `value`; returns what its lane gets. */
enum class coll { ballot, shfl_xor, shfl_idx, shfl_up, shfl_down, any, all, syncwarp };
uint64_t warp_collective(coll kind, unsigned mask, uint64_t value, int arg, int width, site where);
void syncthreads(site where);
/* SIMT_STRICT: let other threads of the block run (at atomics). */
void maybe_yield();

template <class T> static inline uint64_t to_bits(T v)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "shuffle of a type wider than 8 bytes");
    uint64_t u = 0;
    memcpy(&u, &v, sizeof v);
    return u;
}
template <class T> static inline T from_bits(uint64_t u)
{
    T v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* One launch: the per-thread body and where it came from. */
struct grid_launch {
    const char *kernel;   /* the expression given to CUDA_LAUNCH */
    const void *function; /* for the name (dladdr) and function attributes */
    site where;
    dim3 grid, block;
    size_t dynamic_shared;
    std::function<void()> body; /* calls the kernel with the launch's copied arguments */
    std::atomic<bool> faulted{false};
    char tsan_launch = 0, tsan_end = 0; /* race mode: synchronisation addresses of launch and grid end */
};

/* The generated simt_dynamic_shared.cpp registers how to fill this worker's extern __shared__
 * buffers (SIMT_STRICT poisons them at every block start). */
void register_dynamic_shared(void (*fill)(unsigned char byte, size_t bytes));

/* Validate and queue a launch on stream s (runs at the stream's next sync point). Sets the launch
 * error that cudaGetLastError returns. */
void launch_queue(std::shared_ptr<grid_launch> g, cudaStream_t s);

template <class... P, class... A>
void launch(const char *name, site where, void (*kernel)(P...), dim3 grid, dim3 block, size_t smem, cudaStream_t s,
            A &&...args)
{
    auto g = std::make_shared<grid_launch>();
    g->kernel = name;
    g->function = (const void *)kernel;
    g->where = where;
    g->grid = grid;
    g->block = block;
    g->dynamic_shared = smem;
    /* Arguments are copied at the launch, converted to the parameter types, as CUDA does. */
    auto params = std::make_shared<std::tuple<std::decay_t<P>...>>(std::forward<A>(args)...);
    g->body = [kernel, params]() { std::apply(kernel, *params); };
    launch_queue(std::move(g), s);
}

} // namespace simt

#endif
