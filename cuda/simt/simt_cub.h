/* simt_cub.h — cub::DoubleBuffer, DeviceRadixSort::SortPairs, DeviceScan::ExclusiveSum and
 * DeviceScan::InclusiveScan on the host, queued on the caller's stream like CUB's kernels.
 * Contracts enforced (a violation returns cudaErrorInvalidValue with a message, as CUB does for a
 * short temporary storage):
 *  - the two-call temporary-storage protocol: d_temp_storage == NULL only asks for the size; the
 *    second call needs temp_storage_bytes >= that size and a device allocation that holds it;
 *  - every input and output range lies inside one device allocation (num_items elements);
 *  - a sort leaves its result in Current() (the selector flips) and scrambles the inactive buffers
 *    with the poison byte, so code that reads the wrong half of a DoubleBuffer fails;
 *  - the temporary storage is scrambled too: nothing may rely on its contents between calls.
 * The required sizes grow with num_items, so storage sized for fewer items is refused.
 */
#ifndef SIMT_CUB_H
#define SIMT_CUB_H

#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <numeric>
#include <vector>

#include "cuda_runtime_api.h"

namespace simt {
/* simt_runtime.cpp: range checks, stream queueing and poison for the CUB calls */
bool cub_check_range(const char *call, const char *what, const void *p, size_t bytes);
bool cub_check_temp(const char *call, const void *temp, size_t have, size_t need);
void cub_queue(cudaStream_t s, std::function<void()> op);
void cub_scramble(void *p, size_t bytes);
static inline size_t cub_sort_bytes(size_t n) { return 1024 + 8 * n; }
static inline size_t cub_scan_bytes(size_t n) { return 512 + 4 * ((n + 255) / 256); }
} // namespace simt

namespace cub {

template <class T> struct DoubleBuffer {
    T *d_buffers[2];
    int selector;
    DoubleBuffer() : d_buffers{nullptr, nullptr}, selector(0) {}
    DoubleBuffer(T *current, T *alternate) : d_buffers{current, alternate}, selector(0) {}
    T *Current() { return d_buffers[selector]; }
    T *Alternate() { return d_buffers[selector ^ 1]; }
};

struct Max {
    template <class T> T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
struct Sum {
    template <class T> T operator()(const T &a, const T &b) const { return a + b; }
};

struct DeviceRadixSort {
    template <class K, class V, class N>
    static cudaError_t SortPairs(void *d_temp_storage, size_t &temp_storage_bytes, DoubleBuffer<K> &d_keys,
                                 DoubleBuffer<V> &d_values, N num_items, int begin_bit = 0,
                                 int end_bit = (int)sizeof(K) * 8, cudaStream_t stream = 0)
    {
        const char *call = "cub::DeviceRadixSort::SortPairs";
        const size_t n = num_items > 0 ? (size_t)num_items : 0, need = simt::cub_sort_bytes(n);
        if (!d_temp_storage) {
            temp_storage_bytes = need;
            return cudaSuccess;
        }
        if (begin_bit < 0 || end_bit > (int)sizeof(K) * 8 || begin_bit >= end_bit ||
            !simt::cub_check_temp(call, d_temp_storage, temp_storage_bytes, need) ||
            !simt::cub_check_range(call, "keys (current)", d_keys.Current(), n * sizeof(K)) ||
            !simt::cub_check_range(call, "keys (alternate)", d_keys.Alternate(), n * sizeof(K)) ||
            !simt::cub_check_range(call, "values (current)", d_values.Current(), n * sizeof(V)) ||
            !simt::cub_check_range(call, "values (alternate)", d_values.Alternate(), n * sizeof(V)))
            return cudaErrorInvalidValue;
        K *kin = d_keys.Current(), *kout = d_keys.Alternate();
        V *vin = d_values.Current(), *vout = d_values.Alternate();
        /* The result lands in the alternate buffers: the selectors flip now, on the host, as CUB's do. */
        d_keys.selector ^= 1;
        d_values.selector ^= 1;
        simt::cub_queue(stream, [=]() {
            const unsigned bits = (unsigned)(end_bit - begin_bit);
            auto digit = [=](K k) {
                const unsigned long long u = (unsigned long long)k >> begin_bit;
                return bits >= 64 ? u : u & ((1ull << bits) - 1ull);
            };
            std::vector<size_t> order(n);
            std::iota(order.begin(), order.end(), (size_t)0);
            std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return digit(kin[a]) < digit(kin[b]); });
            for (size_t i = 0; i < n; i++) {
                kout[i] = kin[order[i]];
                vout[i] = vin[order[i]];
            }
            simt::cub_scramble(kin, n * sizeof(K));
            simt::cub_scramble(vin, n * sizeof(V));
            simt::cub_scramble(d_temp_storage, need);
        });
        return cudaSuccess;
    }
};

struct DeviceScan {
    template <class In, class Out, class Op, class N>
    static cudaError_t InclusiveScan(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, Op op,
                                     N num_items, cudaStream_t stream = 0)
    {
        return scan("cub::DeviceScan::InclusiveScan", d_temp_storage, temp_storage_bytes, d_in, d_out, op,
                    num_items, stream, false);
    }
    template <class In, class Out, class N>
    static cudaError_t ExclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out,
                                    N num_items, cudaStream_t stream = 0)
    {
        return scan("cub::DeviceScan::ExclusiveSum", d_temp_storage, temp_storage_bytes, d_in, d_out, Sum{},
                    num_items, stream, true);
    }
    template <class In, class Out, class N>
    static cudaError_t InclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out,
                                    N num_items, cudaStream_t stream = 0)
    {
        return scan("cub::DeviceScan::InclusiveSum", d_temp_storage, temp_storage_bytes, d_in, d_out, Sum{},
                    num_items, stream, false);
    }

  private:
    template <class In, class Out, class Op, class N>
    static cudaError_t scan(const char *call, void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out,
                            Op op, N num_items, cudaStream_t stream, bool exclusive)
    {
        using T = typename std::remove_cv<typename std::remove_reference<decltype(*d_in)>::type>::type;
        const size_t n = num_items > 0 ? (size_t)num_items : 0, need = simt::cub_scan_bytes(n);
        if (!d_temp_storage) {
            temp_storage_bytes = need;
            return cudaSuccess;
        }
        if (!simt::cub_check_temp(call, d_temp_storage, temp_storage_bytes, need) ||
            !simt::cub_check_range(call, "input", &d_in[0], n * sizeof(T)) ||
            !simt::cub_check_range(call, "output", &d_out[0], n * sizeof(*d_out)))
            return cudaErrorInvalidValue;
        simt::cub_queue(stream, [=]() {
            T acc = T();
            for (size_t i = 0; i < n; i++) {
                const T v = d_in[i]; /* in place (d_in == d_out) is allowed: read before write */
                if (exclusive) {
                    d_out[i] = acc;
                    acc = op(acc, v);
                } else {
                    acc = i ? op(acc, v) : v;
                    d_out[i] = acc;
                }
            }
            simt::cub_scramble(d_temp_storage, need);
        });
        return cudaSuccess;
    }
};

} // namespace cub
#endif
