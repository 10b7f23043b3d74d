/* test_simt_memory.cu — the emulated runtime's memory contracts: device and pinned memory poisoned
 * at allocation, copies and memsets bounds-checked against their allocation, streams deferred to
 * their sync points (a missing sync before the host reads pinned results reads poison), CUB's
 * two-call protocol, ranges and scrambled inactive DoubleBuffer, tex2D point sampling with clamp.
 * Suite 'simt'. */
#include <stdint.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <vector>

#include "test.h"

__global__ void fill_kernel(uint32_t *out, uint32_t n)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * 7u;
}

__global__ void tex_kernel(cudaTextureObject_t t, float *out)
{
    const int x = (int)threadIdx.x - 2; /* -2 .. 5 over a 4-wide texture */
    out[threadIdx.x] = tex2D<float>(t, (float)x + 0.5f, 1.5f);
}

static bool fill(uint32_t *d, uint32_t n, cudaStream_t s) { CUDA_LAUNCH(fill_kernel, cuda_blocks(n, 128), 128, 0, s, d, n); return true; }
static bool sample(cudaTextureObject_t t, float *d) { CUDA_LAUNCH(tex_kernel, 1, 8, 0, 0, t, d); return true; }

struct max_op {
    uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

int main(void)
{
    const uint32_t n = 1000;
    unsigned char *d;
    CHECK(cudaMalloc((void **)&d, n) == cudaSuccess, "malloc");
    std::vector<unsigned char> h(n, 0);
    CHECK(cudaMemcpy(h.data(), d, n, cudaMemcpyDeviceToHost) == cudaSuccess, "read back");
    bool poisoned = true;
    for (unsigned char c : h)
        poisoned &= c == 0xff;
    CHECK(poisoned, "new device memory holds the poison byte 0xff");

    /* bounds */
    CHECK(cudaMemcpy(d, h.data(), n + 1, cudaMemcpyHostToDevice) == cudaErrorInvalidValue, "copy overrun refused");
    CHECK(cudaMemcpy(h.data(), d + 10, n - 9, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue, "read overrun refused");
    CHECK(cudaMemset(d + 500, 0, 501) == cudaErrorInvalidValue, "memset overrun refused");
    CHECK(cudaMemcpy(d, h.data(), n, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue, "wrong direction refused");
    CHECK(cudaFree(d + 1) == cudaErrorInvalidValue, "freeing an inner pointer is refused");
    cudaGetLastError();
    CHECK(cudaMemset(d + 500, 0, 500) == cudaSuccess, "memset inside");

    /* deferred streams: results land in pinned memory only at the sync point */
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess, "stream");
    uint32_t *d_u, *h_pinned;
    CHECK(cudaMalloc((void **)&d_u, n * 4) == cudaSuccess && cudaMallocHost((void **)&h_pinned, n * 4) == cudaSuccess,
          "alloc");
    CHECK(h_pinned[0] == 0xffffffffu, "pinned memory is poisoned too");
    CHECK(fill(d_u, n, s), "fill");
    CHECK(cudaMemcpyAsync(h_pinned, d_u, n * 4, cudaMemcpyDeviceToHost, s) == cudaSuccess, "async copy");
    CHECK(h_pinned[5] == 0xffffffffu, "before the sync the host reads poison: %08x", h_pinned[5]);
    CHECK(cudaStreamQuery(s) == cudaErrorNotReady, "work is pending");
    uint32_t pageable[4] = {0, 0, 0, 0};
    CHECK(cudaMemcpy(pageable, d_u, 16, cudaMemcpyDeviceToHost) == cudaSuccess, "blocking copy");
    CHECK(pageable[3] == 0xffffffffu, "a blocking copy does not wait for a non-blocking stream");
    CHECK(cudaStreamSynchronize(s) == cudaSuccess && h_pinned[5] == 35u, "after the sync: %u", h_pinned[5]);
    /* a pageable destination is written before the call returns (the stream runs up to it) */
    CHECK(fill(d_u, n, s) && cudaMemcpyAsync(pageable, d_u + 1, 16, cudaMemcpyDeviceToHost, s) == cudaSuccess &&
              pageable[0] == 7u, "async copy to pageable memory is synchronous");
    /* events */
    cudaEvent_t e0, e1;
    float ms = -1.0f;
    CHECK(cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess, "events");
    CHECK(cudaEventRecord(e0, s) == cudaSuccess && fill(d_u, n, s) && cudaEventRecord(e1, s) == cudaSuccess, "record");
    CHECK(cudaEventElapsedTime(&ms, e0, e1) == cudaErrorNotReady, "elapsed time before the sync: not ready");
    cudaGetLastError();
    CHECK(cudaEventSynchronize(e1) == cudaSuccess && cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess && ms >= 0.0f,
          "elapsed %g ms", ms);
    /* an event without timing orders work (backend.cu's upload fence) but has no time to give */
    cudaEvent_t e2;
    CHECK(cudaEventCreateWithFlags(&e2, cudaEventDisableTiming) == cudaSuccess &&
              cudaEventRecord(e2, s) == cudaSuccess && cudaEventSynchronize(e2) == cudaSuccess &&
              cudaEventQuery(e2) == cudaSuccess,
          "a DisableTiming event records and synchronises");
    CHECK(cudaEventElapsedTime(&ms, e0, e2) == cudaErrorInvalidResourceHandle,
          "elapsed time with a DisableTiming event: invalid handle, as CUDA documents");
    cudaGetLastError();
    cudaEvent_t refused;
    CHECK(cudaEventCreateWithFlags(&refused, cudaEventInterprocess) == cudaErrorInvalidValue &&
              cudaEventCreateWithFlags(&refused, 0x80u) == cudaErrorInvalidValue,
          "Interprocess without DisableTiming, and unknown flags, are invalid");
    cudaGetLastError();
    CHECK(cudaEventDestroy(e2) == cudaSuccess, "destroy");

    /* CUB: the two-call protocol, ranges, result in Current(), inactive buffers scrambled */
    const int items = 300;
    uint32_t *k0, *k1, *v0, *v1, *out;
    CHECK(cudaMalloc((void **)&k0, items * 4) == cudaSuccess && cudaMalloc((void **)&k1, items * 4) == cudaSuccess &&
              cudaMalloc((void **)&v0, items * 4) == cudaSuccess && cudaMalloc((void **)&v1, items * 4) == cudaSuccess &&
              cudaMalloc((void **)&out, items * 4) == cudaSuccess, "cub buffers");
    std::vector<uint32_t> keys(items), vals(items);
    for (int i = 0; i < items; i++) {
        keys[i] = (uint32_t)((i * 37) % 16) | 0xf00u; /* bits 8+ must be ignored with end_bit 4 */
        vals[i] = (uint32_t)i;
    }
    CHECK(cudaMemcpy(k0, keys.data(), items * 4, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(v0, vals.data(), items * 4, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
    cub::DoubleBuffer<uint32_t> kb(k0, k1), vb(v0, v1);
    size_t need = 0;
    CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, kb, vb, items, 0, 4) == cudaSuccess && need > 0, "size query");
    size_t small_need = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, small_need, kb, vb, items / 2, 0, 4);
    void *temp;
    CHECK(cudaMalloc(&temp, need) == cudaSuccess, "temp");
    size_t bytes = small_need;
    CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, kb, vb, items, 0, 4) == cudaErrorInvalidValue,
          "temporary storage sized for fewer items is refused");
    size_t big_need = 0;
    void *big_temp;
    cub::DeviceRadixSort::SortPairs(nullptr, big_need, kb, vb, items + 1, 0, 4);
    CHECK(cudaMalloc(&big_temp, big_need) == cudaSuccess, "temp");
    CHECK(cub::DeviceRadixSort::SortPairs(big_temp, big_need, kb, vb, items + 1, 0, 4) == cudaErrorInvalidValue,
          "more items than the buffers hold is refused");
    bytes = need;
    CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, kb, vb, items, 0, 4) == cudaSuccess, "sort");
    CHECK(kb.Current() == k1 && vb.Current() == v1, "the result is in the alternate buffers (selector flipped)");
    std::vector<uint32_t> sk(items), sv(items), stale(items);
    CHECK(cudaMemcpy(sk.data(), kb.Current(), items * 4, cudaMemcpyDeviceToHost) == cudaSuccess &&
              cudaMemcpy(sv.data(), vb.Current(), items * 4, cudaMemcpyDeviceToHost) == cudaSuccess &&
              cudaMemcpy(stale.data(), kb.Alternate(), items * 4, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
    bool sorted = true;
    for (int i = 1; i < items; i++)
        sorted &= (sk[i - 1] & 15u) < (sk[i] & 15u) || ((sk[i - 1] & 15u) == (sk[i] & 15u) && sv[i - 1] < sv[i]);
    CHECK(sorted, "stable sort on bits 0..3");
    CHECK(stale[0] == 0xffffffffu && stale[items - 1] == 0xffffffffu, "the inactive keys are scrambled");

    /* scans: exclusive sum and an inclusive max, in place too */
    std::vector<uint32_t> in(items);
    for (int i = 0; i < items; i++)
        in[i] = (uint32_t)(i % 5 == 0 ? i : 0);
    CHECK(cudaMemcpy(k0, in.data(), items * 4, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
    bytes = 0;
    CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, k0, out, items) == cudaSuccess && bytes <= need, "scan size");
    CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, k0, out, items) == cudaSuccess, "exclusive sum");
    std::vector<uint32_t> r(items);
    CHECK(cudaMemcpy(r.data(), out, items * 4, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
    uint32_t acc = 0;
    bool ex_ok = true;
    for (int i = 0; i < items; i++) {
        ex_ok &= r[i] == acc;
        acc += in[i];
    }
    CHECK(ex_ok, "exclusive sum");
    CHECK(cub::DeviceScan::InclusiveScan(temp, bytes, k0, k0, max_op{}, items) == cudaSuccess, "inclusive max in place");
    CHECK(cudaMemcpy(r.data(), k0, items * 4, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
    bool max_ok = true;
    for (int i = 0; i < items; i++)
        max_ok &= r[i] == (uint32_t)(i / 5 * 5);
    CHECK(max_ok, "inclusive max: r[7] = %u", r[7]);
    CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, k0, out, items + 1) == cudaErrorInvalidValue,
          "a scan past its buffers is refused");

    /* texture object: point sampling, unnormalised, clamped */
    cudaChannelFormatDesc fd = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &fd, 4, 2, 0) == cudaSuccess, "array");
    const float texels[8] = {0, 1, 2, 3, 10, 11, 12, 13};
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, texels, 16, 16, 2, cudaMemcpyHostToDevice) == cudaSuccess, "array upload");
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex = 0;
    CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr) == cudaSuccess && tex != 0, "texture object");
    float *d_f;
    CHECK(cudaMalloc((void **)&d_f, 8 * 4) == cudaSuccess && sample(tex, d_f), "sample");
    float got[8];
    CHECK(cudaMemcpy(got, d_f, 32, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
    const float want[8] = {10, 10, 10, 11, 12, 13, 13, 13};
    CHECK(!memcmp(got, want, sizeof want), "tex2D row 1 clamped: %g %g %g %g %g %g %g %g", got[0], got[1], got[2],
          got[3], got[4], got[5], got[6], got[7]);
    cudaResourceDesc bad = rd;
    cudaSurfaceObject_t surf;
    CHECK(cudaCreateSurfaceObject(&surf, &bad) == cudaErrorInvalidValue,
          "a surface on an array without cudaArraySurfaceLoadStore is refused");
    cudaGetLastError();
    CHECK(cudaDestroyTextureObject(tex) == cudaSuccess && cudaFreeArray(arr) == cudaSuccess, "cleanup");
    CHECK(cudaStreamDestroy(s) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess, "end");
    return test_done();
}
