/* simt_runtime.cpp — the emulated CUDA runtime: errors, the device's properties, device and pinned
 * memory (poisoned, bounds-checked), deferred streams and events, copies and memsets, __constant__
 * symbols, arrays, texture and surface objects, and the CUB helpers' checks. See
 * simt_runtime_internal.h for the representations and simt.h for the contracts.
 */
#include "simt_runtime_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <vector>

#include "simt.h"

namespace simt {

/* ---- errors -------------------------------------------------------------------------------------- */

static thread_local cudaError_t last_error = cudaSuccess;
static std::atomic<int> sticky{cudaSuccess};

cudaError_t set_error(cudaError_t err)
{
    if (err != cudaSuccess)
        last_error = err;
    return err;
}
cudaError_t sticky_error() { return (cudaError_t)sticky.load(); }
void set_sticky(cudaError_t err)
{
    int ok = cudaSuccess;
    sticky.compare_exchange_strong(ok, (int)err);
    last_error = err;
}

void complain(const char *call, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "simt: %s: %s\n", call, msg);
}

/* Every entry point starts with this: a sticky error fails every call. */
#define SIMT_STICKY_CHECK()                                                                        \
    do {                                                                                           \
        if (sticky_error() != cudaSuccess)                                                         \
            return set_error(sticky_error());                                                      \
    } while (0)

static long env_long(const char *name, long fallback)
{
    const char *e = getenv(name);
    if (!e || !*e)
        return fallback;
    char *end;
    long v = strtol(e, &end, 0);
    return *end ? fallback : v;
}

unsigned char poison_byte()
{
    static const unsigned char b = (unsigned char)env_long("SIMT_POISON", 0xff);
    return b;
}

int reported_sm_count()
{
    static const int n = (int)env_long("SIMT_SM_COUNT", 4);
    return n > 0 ? n : 1;
}

/* ---- allocations ----------------------------------------------------------------------------------- */

static std::mutex alloc_mutex;
static std::map<uintptr_t, allocation> allocations; /* by base address */

bool find_allocation(const void *p, size_t bytes, allocation *whole)
{
    std::lock_guard<std::mutex> lock(alloc_mutex);
    const uintptr_t a = (uintptr_t)p;
    auto it = allocations.upper_bound(a);
    if (it == allocations.begin())
        return false;
    --it;
    const allocation &al = it->second;
    if (a >= (uintptr_t)al.base + al.bytes && !(al.bytes == 0 && a == (uintptr_t)al.base))
        return false;
    if (whole)
        *whole = al;
    return bytes <= al.bytes - (a - (uintptr_t)al.base);
}

static cudaError_t allocate(void **ptr, size_t bytes, mem_kind kind, const char *call)
{
    SIMT_STICKY_CHECK();
    if (!ptr)
        return set_error(cudaErrorInvalidValue);
    *ptr = nullptr;
    const size_t rounded = ((bytes ? bytes : 1) + 255) / 256 * 256;
    if (bytes > ((size_t)1 << 40))
        return set_error(cudaErrorMemoryAllocation);
    unsigned char *p = (unsigned char *)aligned_alloc(256, rounded);
    if (!p)
        return set_error(cudaErrorMemoryAllocation);
    memset(p, poison_byte(), rounded);
    std::lock_guard<std::mutex> lock(alloc_mutex);
    allocations[(uintptr_t)p] = allocation{p, bytes, kind};
    *ptr = p;
    (void)call;
    return cudaSuccess;
}

static cudaError_t release(void *ptr, mem_kind kind, const char *call)
{
    if (!ptr)
        return cudaSuccess;
    flush_all_streams(); /* cudaFree synchronises the device */
    std::unique_lock<std::mutex> lock(alloc_mutex);
    auto it = allocations.find((uintptr_t)ptr);
    if (it == allocations.end() || it->second.kind != kind) {
        lock.unlock();
        complain(call, "%p is not the start of a %s allocation", ptr, kind == mem_kind::device ? "device" : "pinned");
        return set_error(cudaErrorInvalidValue);
    }
    /* Poison before handing back: a stale pointer reads garbage, not the old values. */
    memset(it->second.base, poison_byte(), it->second.bytes);
    allocations.erase(it);
    lock.unlock();
    free(ptr);
    return cudaSuccess;
}

static bool is_device(const void *p)
{
    allocation a;
    find_allocation(p, 0, &a);
    return find_allocation(p, 0, &a) && a.kind == mem_kind::device;
}
static bool is_pinned(const void *p)
{
    allocation a;
    return find_allocation(p, 0, &a) && a.kind == mem_kind::pinned;
}

/* A device range for a copy or memset: inside one device allocation. */
static bool check_device_range(const char *call, const char *what, const void *p, size_t bytes)
{
    allocation a;
    if (find_allocation(p, bytes, &a) && a.kind == mem_kind::device)
        return true;
    if (a.base && a.kind == mem_kind::device && (uintptr_t)p >= (uintptr_t)a.base)
        complain(call, "%s: %zu bytes at offset %zu overrun the %zu-byte device allocation at %p", what, bytes,
                 (size_t)((uintptr_t)p - (uintptr_t)a.base), a.bytes, (void *)a.base);
    else
        complain(call, "%s: %p is not device memory (%zu bytes)", what, p, bytes);
    return false;
}

bool cub_check_range(const char *call, const char *what, const void *p, size_t bytes)
{
    return bytes == 0 || check_device_range(call, what, p, bytes);
}

bool cub_check_temp(const char *call, const void *temp, size_t have, size_t need)
{
    if (have < need) {
        complain(call, "temp_storage_bytes is %zu; the size query asked for %zu (two-call protocol)", have, need);
        return false;
    }
    return check_device_range(call, "temporary storage", temp, need);
}

void cub_scramble(void *p, size_t bytes) { memset(p, poison_byte(), bytes); }

/* ---- streams ------------------------------------------------------------------------------------------ */

} // namespace simt

struct CUstream_st {
    std::mutex m;
    std::deque<std::function<void()>> queue;
    unsigned flags = 0;
};

struct CUevent_st {
    bool recorded = false, done = false;
    unsigned flags = 0; /* cudaEventCreateWithFlags */
    std::chrono::steady_clock::time_point when;
    cudaStream_t stream = nullptr;
};

namespace simt {

static CUstream_st legacy_stream;
static std::mutex streams_mutex;
static std::vector<CUstream_st *> streams; /* created ones */

static CUstream_st *resolve(cudaStream_t s) { return s ? s : &legacy_stream; }

void stream_queue(cudaStream_t s, std::function<void()> op)
{
    CUstream_st *st = resolve(s);
    std::lock_guard<std::mutex> lock(st->m);
    st->queue.push_back(std::move(op));
}

void cub_queue(cudaStream_t s, std::function<void()> op) { stream_queue(s, std::move(op)); }

/* Run the queue in order on the calling thread. After a fault the rest is dropped (the context is
 * lost, as on a GPU). */
void stream_flush(cudaStream_t s)
{
    CUstream_st *st = resolve(s);
    for (;;) {
        std::function<void()> op;
        {
            std::lock_guard<std::mutex> lock(st->m);
            if (st->queue.empty())
                return;
            op = std::move(st->queue.front());
            st->queue.pop_front();
        }
        if (sticky_error() == cudaSuccess)
            op();
    }
}

void flush_all_streams()
{
    std::vector<CUstream_st *> all;
    {
        std::lock_guard<std::mutex> lock(streams_mutex);
        all = streams;
    }
    stream_flush(nullptr);
    for (CUstream_st *s : all)
        stream_flush(s);
}

/* A blocking call (cudaMemcpy, cudaMemset) waits for the legacy stream and the blocking streams. */
static void flush_blocking_streams()
{
    std::vector<CUstream_st *> all;
    {
        std::lock_guard<std::mutex> lock(streams_mutex);
        all = streams;
    }
    stream_flush(nullptr);
    for (CUstream_st *s : all)
        if (!(s->flags & cudaStreamNonBlocking))
            stream_flush(s);
}

static bool known_stream(cudaStream_t s)
{
    if (!s)
        return true;
    std::lock_guard<std::mutex> lock(streams_mutex);
    for (CUstream_st *x : streams)
        if (x == s)
            return true;
    return false;
}

/* ---- copies ------------------------------------------------------------------------------------------- */

/* Check a copy's pointers against its kind; resolves cudaMemcpyDefault. */
static bool check_copy(const char *call, void *dst, const void *src, size_t bytes, cudaMemcpyKind *kind)
{
    if (*kind == cudaMemcpyDefault)
        *kind = is_device(dst) ? (is_device(src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                               : (is_device(src) ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    if (bytes == 0)
        return true;
    if (!dst || !src) {
        complain(call, "NULL %s", dst ? "source" : "destination");
        return false;
    }
    switch (*kind) {
    case cudaMemcpyHostToDevice:
        if (is_device(src)) {
            complain(call, "cudaMemcpyHostToDevice from device memory %p", src);
            return false;
        }
        return check_device_range(call, "destination", dst, bytes);
    case cudaMemcpyDeviceToHost:
        if (is_device(dst)) {
            complain(call, "cudaMemcpyDeviceToHost into device memory %p", dst);
            return false;
        }
        return check_device_range(call, "source", src, bytes);
    case cudaMemcpyDeviceToDevice:
        return check_device_range(call, "source", src, bytes) && check_device_range(call, "destination", dst, bytes);
    case cudaMemcpyHostToHost:
        if (is_device(dst) || is_device(src)) {
            complain(call, "cudaMemcpyHostToHost with device memory");
            return false;
        }
        return true;
    default:
        complain(call, "bad copy kind %d", (int)*kind);
        return false;
    }
}

/* Queue a copy with CUDA's rules for pageable host memory: a pageable source is read at the call
 * (staged), a pageable destination is written before the call returns (the stream is run up to
 * the copy); pinned memory is read/written when the stream gets there. */
static void queue_copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s)
{
    if (bytes == 0)
        return;
    if ((kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost) && !is_pinned(src)) {
        auto staged = std::make_shared<std::vector<unsigned char>>((const unsigned char *)src,
                                                                   (const unsigned char *)src + bytes);
        stream_queue(s, [dst, staged]() { memcpy(dst, staged->data(), staged->size()); });
    } else {
        stream_queue(s, [dst, src, bytes]() { memmove(dst, src, bytes); });
    }
    if ((kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost) && !is_pinned(dst))
        stream_flush(s);
}

} // namespace simt

using namespace simt;

extern "C" {

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;
    last_error = sticky_error();
    return e;
}
cudaError_t cudaPeekAtLastError(void) { return last_error; }

const char *cudaGetErrorName(cudaError_t err)
{
    switch (err) {
#define N(e)                                                                                       \
    case e:                                                                                        \
        return #e;
        N(cudaSuccess) N(cudaErrorInvalidValue) N(cudaErrorMemoryAllocation) N(cudaErrorInitializationError)
        N(cudaErrorInvalidConfiguration) N(cudaErrorInvalidSymbol) N(cudaErrorInvalidDevicePointer)
        N(cudaErrorInvalidMemcpyDirection) N(cudaErrorInvalidResourceHandle) N(cudaErrorNotReady)
        N(cudaErrorIllegalAddress) N(cudaErrorLaunchFailure) N(cudaErrorNotSupported) N(cudaErrorInvalidDevice)
        N(cudaErrorNoDevice) N(cudaErrorUnknown)
#undef N
    }
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t err)
{
    switch (err) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchFailure: return "unspecified launch failure (SIMT emulator fault, see above)";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    default: return cudaGetErrorName(err);
    }
}

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return set_error(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}
cudaError_t cudaGetDevice(int *device)
{
    SIMT_STICKY_CHECK();
    if (!device)
        return set_error(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}
cudaError_t cudaSetDevice(int device)
{
    SIMT_STICKY_CHECK();
    return device == 0 ? cudaSuccess : set_error(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device)
{
    SIMT_STICKY_CHECK();
    if (!prop)
        return set_error(cudaErrorInvalidValue);
    if (device != 0)
        return set_error(cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "SIMT emulator (%d SMs reported)", reported_sm_count());
    prop->totalGlobalMem = (size_t)8 << 30;
    prop->sharedMemPerBlock = SIMT_DYNAMIC_SHARED_DEFAULT;
    prop->sharedMemPerBlockOptin = SIMT_DYNAMIC_SHARED_MAX;
    prop->regsPerBlock = 65536;
    prop->warpSize = 32;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 0x7fffffff;
    prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
    prop->major = 9;
    prop->minor = 0;
    prop->multiProcessorCount = reported_sm_count();
    prop->maxThreadsPerMultiProcessor = 2048;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device)
{
    SIMT_STICKY_CHECK();
    cudaDeviceProp p;
    if (!value)
        return set_error(cudaErrorInvalidValue);
    cudaError_t e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess)
        return e;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    default: return set_error(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    SIMT_STICKY_CHECK();
    flush_all_streams();
    return set_error(sticky_error());
}
cudaError_t cudaDeviceReset(void)
{
    flush_all_streams();
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **ptr, size_t bytes) { return allocate(ptr, bytes, mem_kind::device, "cudaMalloc"); }
cudaError_t cudaFree(void *ptr)
{
    SIMT_STICKY_CHECK();
    return release(ptr, mem_kind::device, "cudaFree");
}
cudaError_t cudaMallocHost(void **ptr, size_t bytes) { return allocate(ptr, bytes, mem_kind::pinned, "cudaMallocHost"); }
cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned flags)
{
    (void)flags;
    return allocate(ptr, bytes, mem_kind::pinned, "cudaHostAlloc");
}
cudaError_t cudaFreeHost(void *ptr)
{
    SIMT_STICKY_CHECK();
    return release(ptr, mem_kind::pinned, "cudaFreeHost");
}
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    SIMT_STICKY_CHECK();
    if (free_bytes)
        *free_bytes = (size_t)6 << 30;
    if (total_bytes)
        *total_bytes = (size_t)8 << 30;
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s)
{
    SIMT_STICKY_CHECK();
    if (!known_stream(s))
        return set_error(cudaErrorInvalidResourceHandle);
    if (!check_copy("cudaMemcpyAsync", dst, src, bytes, &kind))
        return set_error(cudaErrorInvalidValue);
    queue_copy(dst, src, bytes, kind, s);
    return set_error(sticky_error());
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    SIMT_STICKY_CHECK();
    if (!check_copy("cudaMemcpy", dst, src, bytes, &kind))
        return set_error(cudaErrorInvalidValue);
    queue_copy(dst, src, bytes, kind, nullptr);
    flush_blocking_streams();
    return set_error(sticky_error());
}

cudaError_t cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t s)
{
    SIMT_STICKY_CHECK();
    if (!known_stream(s))
        return set_error(cudaErrorInvalidResourceHandle);
    if (bytes && !check_device_range("cudaMemsetAsync", "destination", dst, bytes))
        return set_error(cudaErrorInvalidValue);
    if (bytes)
        stream_queue(s, [dst, value, bytes]() { memset(dst, value, bytes); });
    return cudaSuccess;
}

cudaError_t cudaMemset(void *dst, int value, size_t bytes)
{
    cudaError_t e = cudaMemsetAsync(dst, value, bytes, nullptr);
    if (e == cudaSuccess)
        flush_blocking_streams();
    return e != cudaSuccess ? e : set_error(sticky_error());
}

cudaError_t simt_memcpy_to_symbol_async(void *symbol, size_t symbol_bytes, const void *src, size_t count,
                                        size_t offset, cudaMemcpyKind kind, cudaStream_t s, int blocking)
{
    SIMT_STICKY_CHECK();
    const char *call = blocking ? "cudaMemcpyToSymbol" : "cudaMemcpyToSymbolAsync";
    if (offset > symbol_bytes || count > symbol_bytes - offset) {
        complain(call, "%zu bytes at offset %zu overrun the %zu-byte symbol", count, offset, symbol_bytes);
        return set_error(cudaErrorInvalidValue);
    }
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return set_error(cudaErrorInvalidMemcpyDirection);
    if (!known_stream(s))
        return set_error(cudaErrorInvalidResourceHandle);
    if (kind == cudaMemcpyDeviceToDevice && !check_device_range(call, "source", src, count))
        return set_error(cudaErrorInvalidValue);
    queue_copy((unsigned char *)symbol + offset, src,
               count, kind == cudaMemcpyDeviceToDevice ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, s);
    if (blocking)
        flush_blocking_streams();
    return cudaSuccess;
}

cudaError_t simt_memcpy_from_symbol(void *dst, const void *symbol, size_t symbol_bytes, size_t count, size_t offset,
                                    cudaMemcpyKind kind)
{
    SIMT_STICKY_CHECK();
    if (offset > symbol_bytes || count > symbol_bytes - offset) {
        complain("cudaMemcpyFromSymbol", "%zu bytes at offset %zu overrun the %zu-byte symbol", count, offset,
                 symbol_bytes);
        return set_error(cudaErrorInvalidValue);
    }
    (void)kind;
    flush_blocking_streams();
    memcpy(dst, (const unsigned char *)symbol + offset, count);
    return set_error(sticky_error());
}

/* ---- streams and events ---------------------------------------------------------------------------------- */

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    SIMT_STICKY_CHECK();
    if (!s)
        return set_error(cudaErrorInvalidValue);
    CUstream_st *st = new CUstream_st;
    st->flags = flags;
    std::lock_guard<std::mutex> lock(streams_mutex);
    streams.push_back(st);
    *s = st;
    return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, cudaStreamDefault); }

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    if (!s || !known_stream(s))
        return set_error(cudaErrorInvalidResourceHandle);
    stream_flush(s); /* queued work still completes, as in CUDA */
    std::lock_guard<std::mutex> lock(streams_mutex);
    for (size_t i = 0; i < streams.size(); i++)
        if (streams[i] == s) {
            streams.erase(streams.begin() + (long)i);
            break;
        }
    delete s;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    SIMT_STICKY_CHECK();
    if (!known_stream(s))
        return set_error(cudaErrorInvalidResourceHandle);
    if (!s)
        flush_blocking_streams();
    else
        stream_flush(s);
    return set_error(sticky_error());
}

cudaError_t cudaStreamQuery(cudaStream_t s)
{
    SIMT_STICKY_CHECK();
    CUstream_st *st = resolve(s);
    std::lock_guard<std::mutex> lock(st->m);
    return st->queue.empty() ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    SIMT_STICKY_CHECK();
    if (!e)
        return set_error(cudaErrorInvalidValue);
    *e = new CUevent_st;
    return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
    SIMT_STICKY_CHECK();
    /* Interprocess needs DisableTiming too (CUDA's rule); unknown bits are invalid */
    if (flags & ~(unsigned)(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess) ||
        ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)))
        return set_error(cudaErrorInvalidValue);
    const cudaError_t err = cudaEventCreate(e);
    if (err == cudaSuccess)
        (*e)->flags = flags;
    return err;
}
cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    if (!e)
        return set_error(cudaErrorInvalidResourceHandle);
    if (e->recorded && !e->done && e->stream != nullptr && known_stream(e->stream))
        stream_flush(e->stream); /* the queued record still refers to e */
    else if (e->recorded && !e->done)
        stream_flush(nullptr);
    delete e;
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    SIMT_STICKY_CHECK();
    if (!e || !known_stream(s))
        return set_error(cudaErrorInvalidResourceHandle);
    e->recorded = true;
    e->done = false;
    e->stream = s;
    stream_queue(s, [e]() {
        e->when = std::chrono::steady_clock::now();
        e->done = true;
    });
    return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    SIMT_STICKY_CHECK();
    if (!e)
        return set_error(cudaErrorInvalidResourceHandle);
    if (e->recorded && !e->done)
        stream_flush(e->stream);
    return set_error(sticky_error());
}
cudaError_t cudaEventQuery(cudaEvent_t e)
{
    SIMT_STICKY_CHECK();
    if (!e)
        return set_error(cudaErrorInvalidResourceHandle);
    return !e->recorded || e->done ? cudaSuccess : cudaErrorNotReady;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    SIMT_STICKY_CHECK();
    if (!ms || !start || !end)
        return set_error(cudaErrorInvalidResourceHandle);
    if (!start->recorded || !end->recorded || ((start->flags | end->flags) & cudaEventDisableTiming))
        return set_error(cudaErrorInvalidResourceHandle);
    if (!start->done || !end->done)
        return set_error(cudaErrorNotReady);
    *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
    return cudaSuccess;
}

} // extern "C"

/* ---- arrays, texture and surface objects ---------------------------------------------------------------------- */

namespace simt {

/* Object tables: fixed size so kernels read them without a lock; slot 0 is never valid. */
enum { max_objects = 1 << 14 };
static std::mutex object_mutex;
static std::atomic<texture_object *> textures[max_objects];
static std::atomic<surface_object *> surfaces[max_objects];

template <class T> static unsigned long long object_add(std::atomic<T *> *table, T *obj)
{
    std::lock_guard<std::mutex> lock(object_mutex);
    for (unsigned long long i = 1; i < max_objects; i++)
        if (!table[i].load()) {
            table[i].store(obj);
            return i;
        }
    delete obj;
    return 0;
}
template <class T> static bool object_remove(std::atomic<T *> *table, unsigned long long i)
{
    std::lock_guard<std::mutex> lock(object_mutex);
    if (i == 0 || i >= max_objects || !table[i].load())
        return false;
    delete table[i].exchange(nullptr);
    return true;
}

cudaArray *array_create(const cudaChannelFormatDesc *desc, size_t width, size_t height, unsigned flags)
{
    const int bits = desc->x + desc->y + desc->z + desc->w;
    if (desc->y || desc->z || desc->w || (bits != 8 && bits != 16 && bits != 32) || width == 0 || height == 0 ||
        width > 65536 || height > 65536) {
        complain("cudaArray", "unsupported array: %d/%d/%d/%d-bit channels, %zux%zu (the emulator has 1-channel "
                 "8/16/32-bit arrays)", desc->x, desc->y, desc->z, desc->w, width, height);
        set_error(cudaErrorInvalidValue);
        return nullptr;
    }
    cudaArray *a = new cudaArray;
    a->desc = *desc;
    a->width = width;
    a->height = height;
    a->elem_bytes = (size_t)bits / 8;
    a->flags = flags;
    a->owner = nullptr;
    a->data = (unsigned char *)malloc(width * height * a->elem_bytes);
    memset(a->data, poison_byte(), width * height * a->elem_bytes);
    return a;
}

void array_destroy(cudaArray *a)
{
    if (!a)
        return;
    free(a->data);
    delete a;
}

static texture_object *texture_get(cudaTextureObject_t t)
{
    return t < max_objects ? textures[t].load(std::memory_order_acquire) : nullptr;
}
static surface_object *surface_get(cudaSurfaceObject_t s)
{
    return s < max_objects ? surfaces[s].load(std::memory_order_acquire) : nullptr;
}

void kernel_fault(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace simt

extern "C" {

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f)
{
    cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t width, size_t height,
                            unsigned flags)
{
    SIMT_STICKY_CHECK();
    if (!array || !desc)
        return set_error(cudaErrorInvalidValue);
    *array = array_create(desc, width, height ? height : 1, flags);
    return *array ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
    if (!array)
        return cudaSuccess;
    if (array->owner) {
        complain("cudaFreeArray", "the array belongs to a mapped graphics resource");
        return set_error(cudaErrorInvalidValue);
    }
    flush_all_streams();
    array_destroy(array);
    return cudaSuccess;
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent, unsigned *flags, cudaArray_t array)
{
    SIMT_STICKY_CHECK();
    if (!array)
        return set_error(cudaErrorInvalidResourceHandle);
    if (desc)
        *desc = array->desc;
    if (extent) {
        extent->width = array->width;
        extent->height = array->height;
        extent->depth = 0;
    }
    if (flags)
        *flags = array->flags;
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src, size_t spitch,
                                size_t width_bytes, size_t height, cudaMemcpyKind kind)
{
    SIMT_STICKY_CHECK();
    const size_t row = dst ? dst->width * dst->elem_bytes : 0;
    if (!dst || !src || w_offset + width_bytes > row || h_offset + height > dst->height || spitch < width_bytes) {
        complain("cudaMemcpy2DToArray", "copy outside the array or bad pitch");
        return set_error(cudaErrorInvalidValue);
    }
    (void)kind;
    flush_blocking_streams();
    for (size_t y = 0; y < height; y++)
        memcpy(dst->data + (h_offset + y) * row + w_offset, (const unsigned char *)src + y * spitch, width_bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                  size_t width_bytes, size_t height, cudaMemcpyKind kind)
{
    SIMT_STICKY_CHECK();
    const size_t row = src ? src->width * src->elem_bytes : 0;
    if (!dst || !src || w_offset + width_bytes > row || h_offset + height > src->height || dpitch < width_bytes) {
        complain("cudaMemcpy2DFromArray", "copy outside the array or bad pitch");
        return set_error(cudaErrorInvalidValue);
    }
    (void)kind;
    flush_blocking_streams();
    for (size_t y = 0; y < height; y++)
        memcpy((unsigned char *)dst + y * dpitch, src->data + (h_offset + y) * row + w_offset, width_bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                       size_t h_offset, size_t width_bytes, size_t height,
                                       cudaMemcpyKind kind, cudaStream_t s)
{
    const char *call = "cudaMemcpy2DFromArrayAsync";
    SIMT_STICKY_CHECK();
    if (!known_stream(s)) return set_error(cudaErrorInvalidResourceHandle);
    const size_t row = src ? src->width * src->elem_bytes : 0;
    if (!dst || !src || w_offset + width_bytes > row || h_offset + height > src->height ||
        dpitch < width_bytes) {
        complain(call, "copy outside the array or bad pitch");
        return set_error(cudaErrorInvalidValue);
    }
    if (kind == cudaMemcpyDefault) kind = is_device(dst) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
    const size_t span = height ? (height - 1) * dpitch + width_bytes : 0;
    if (kind == cudaMemcpyDeviceToDevice ? !check_device_range(call, "destination", dst, span)
                                         : kind != cudaMemcpyDeviceToHost || is_device(dst)) {
        if (kind != cudaMemcpyDeviceToDevice)
            complain(call,
                     "kind %d: the destination must be device (DeviceToDevice) or host (DeviceToHost) memory",
                     (int)kind);
        return set_error(cudaErrorInvalidValue);
    }
    /* the texels are read when the stream gets here, like a kernel's texture reads */
    stream_queue(s, [=]() {
        for (size_t y = 0; y < height; y++)
            memcpy((unsigned char *)dst + y * dpitch, src->data + (h_offset + y) * row + w_offset,
                   width_bytes);
    });
    if (kind == cudaMemcpyDeviceToHost && !is_pinned(dst))
        stream_flush(s); /* a pageable destination is written before the call returns */
    return set_error(sticky_error());
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *tex, const cudaResourceDesc *res, const cudaTextureDesc *desc,
                                    const cudaResourceViewDesc *view)
{
    SIMT_STICKY_CHECK();
    if (!tex || !res || !desc || view || res->resType != cudaResourceTypeArray || !res->res.array.array) {
        complain("cudaCreateTextureObject", "the emulator takes array resources without a view");
        return set_error(cudaErrorInvalidValue);
    }
    if (desc->filterMode != cudaFilterModePoint || desc->normalizedCoords ||
        desc->readMode != cudaReadModeElementType) {
        complain("cudaCreateTextureObject", "the emulator samples with point filtering, unnormalised coordinates and "
                 "element-type reads only");
        return set_error(cudaErrorNotSupported);
    }
    *tex = object_add(textures, new texture_object{res->res.array.array, *desc});
    return *tex ? cudaSuccess : set_error(cudaErrorMemoryAllocation);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex)
{
    return object_remove(textures, tex) ? cudaSuccess : set_error(cudaErrorInvalidValue);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surf, const cudaResourceDesc *res)
{
    SIMT_STICKY_CHECK();
    if (!surf || !res || res->resType != cudaResourceTypeArray || !res->res.array.array)
        return set_error(cudaErrorInvalidValue);
    if (!(res->res.array.array->flags & cudaArraySurfaceLoadStore)) {
        complain("cudaCreateSurfaceObject", "the array was not created with cudaArraySurfaceLoadStore");
        return set_error(cudaErrorInvalidValue);
    }
    *surf = object_add(surfaces, new surface_object{res->res.array.array});
    return *surf ? cudaSuccess : set_error(cudaErrorMemoryAllocation);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surf)
{
    return object_remove(surfaces, surf) ? cudaSuccess : set_error(cudaErrorInvalidValue);
}

static size_t address(float c, size_t n, cudaTextureAddressMode mode)
{
    long i = (long)floorf(c);
    if (mode == cudaAddressModeWrap) {
        i %= (long)n;
        return (size_t)(i < 0 ? i + (long)n : i);
    }
    return (size_t)(i < 0 ? 0 : i >= (long)n ? (long)n - 1 : i); /* clamp (and border's texel) */
}

float simt_tex2d_float(cudaTextureObject_t tex, float x, float y)
{
    texture_object *t = texture_get(tex);
    if (!t) {
        kernel_fault("tex2D on texture object %llu, which does not exist (destroyed or never created)", tex);
        return 0.0f;
    }
    const cudaArray *a = t->array;
    if (a->desc.f != cudaChannelFormatKindFloat || a->elem_bytes != 4) {
        kernel_fault("tex2D<float> on a texture whose array is not 32-bit float");
        return 0.0f;
    }
    if (t->desc.addressMode[0] == cudaAddressModeBorder &&
        (x < 0.0f || y < 0.0f || x >= (float)a->width || y >= (float)a->height))
        return t->desc.borderColor[0];
    const size_t ix = address(x, a->width, t->desc.addressMode[0]);
    const size_t iy = address(y, a->height, t->desc.addressMode[1]);
    float v;
    memcpy(&v, a->data + (iy * a->width + ix) * 4, 4);
    return v;
}

void simt_surf2d_write(cudaSurfaceObject_t surf, const void *value, size_t bytes, int x_bytes, int y, int boundary)
{
    surface_object *s = surface_get(surf);
    if (!s) {
        kernel_fault("surf2Dwrite on surface object %llu, which does not exist", surf);
        return;
    }
    const cudaArray *a = s->array;
    const long row = (long)(a->width * a->elem_bytes);
    if (bytes != a->elem_bytes || x_bytes % (int)a->elem_bytes) {
        kernel_fault("surf2Dwrite of %zu bytes at byte x %d into an array of %zu-byte texels", bytes, x_bytes,
                     a->elem_bytes);
        return;
    }
    if (x_bytes < 0 || y < 0 || (long)x_bytes + (long)bytes > row || (size_t)y >= a->height) {
        if (boundary == cudaBoundaryModeZero)
            return;
        kernel_fault("surf2Dwrite at (%d bytes, %d) outside the %zux%zu array (cudaBoundaryModeTrap)", x_bytes, y,
                     a->width, a->height);
        return;
    }
    memcpy(a->data + (size_t)y * (size_t)row + (size_t)x_bytes, value, bytes);
}

} // extern "C"
