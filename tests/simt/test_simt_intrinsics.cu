/* test_simt_intrinsics.cu — the emulator's device vocabulary against CUDA's documented semantics:
 * ballot bit order, shuffle butterflies and index/up/down shuffles, __popc/__ffs, atomics that
 * return the old value and are atomic across blocks on different workers, __shared__ per block,
 * extern __shared__ sized at launch, __ldcg, __constant__ copies, and launch-configuration errors.
 * Compiled like cuda/ (simt_prelude.h force-included); suite 'simt'. */
#include <stdint.h>
#include <string.h>

#include <vector>

#include "test.h"

#define THREADS 256

__global__ void ballot_kernel(uint32_t *out)
{
    const unsigned lane = threadIdx.x & 31u;
    const unsigned b = __ballot_sync(0xffffffffu, lane % 3 == 0 || threadIdx.x == 37);
    out[threadIdx.x] = b;
}

__global__ void shuffle_kernel(int *xor_sum, int *idx, int *up, int *down, int *xor1)
{
    const int lane = (int)(threadIdx.x & 31u), t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int v = lane;
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o); /* butterfly: every lane ends with the sum */
    xor_sum[t] = v;
    idx[t] = __shfl_sync(0xffffffffu, lane * 10, 5);
    up[t] = __shfl_up_sync(0xffffffffu, lane, 3);
    down[t] = __shfl_down_sync(0xffffffffu, lane, 3, 16); /* width 16: stays in its half */
    xor1[t] = __shfl_xor_sync(0xffffffffu, (float)lane + 0.5f, 1) == (float)(lane ^ 1) + 0.5f;
}

__global__ void partial_mask_kernel(uint32_t *out)
{
    const unsigned lane = threadIdx.x & 31u;
    if (lane < 16) /* only the lower half meets, with its own mask */
        out[threadIdx.x] = __ballot_sync(0x0000ffffu, lane & 1u);
    else
        out[threadIdx.x] = 0;
}

__global__ void atomic_kernel(uint32_t *counter, uint32_t *old, float *fsum)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    old[i] = atomicAdd(counter, 1u);
    atomicAdd(fsum, 1.0f);
}

/* __ldcg reads what atomics stored: each thread ORs its bit into the block's word, then after the
 * barrier reads the word through __ldcg (all bits) and a neighbour's value (its own store) */
__global__ void ldcg_kernel(uint32_t *words, uint32_t *vals, uint32_t *out)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicOr(&words[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32], 1u << (threadIdx.x & 31u));
    vals[i] = i * 3u + 1u;
    __syncthreads();
    const uint32_t nb = blockIdx.x * blockDim.x + (threadIdx.x + 1) % blockDim.x;
    out[2 * i] = __ldcg(&words[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32]);
    out[2 * i + 1] = __ldcg(&vals[nb]);
}

__global__ void shared_kernel(uint32_t *out)
{
    __shared__ uint32_t s_val[THREADS];
    s_val[threadIdx.x] = blockIdx.x * 1000u + threadIdx.x;
    __syncthreads();
    /* read a neighbour's slot: only right if the barrier held and the array is this block's */
    out[blockIdx.x * THREADS + threadIdx.x] = s_val[(threadIdx.x + 1) % THREADS];
}

__global__ void dynamic_shared_kernel(uint32_t words, uint32_t *out)
{
    extern __shared__ uint32_t s_dyn[];
    for (uint32_t k = threadIdx.x; k < words; k += blockDim.x)
        s_dyn[k] = k * 3u + blockIdx.x;
    __syncthreads();
    uint32_t sum = 0;
    for (uint32_t k = 0; k < words; k++)
        sum += s_dyn[k];
    if (threadIdx.x == 0)
        out[blockIdx.x] = sum;
}

__constant__ float c_values[8];

__global__ void constant_kernel(float *out) { out[threadIdx.x] = c_values[threadIdx.x % 8]; }

static bool run_ballot(uint32_t *d) { CUDA_LAUNCH(ballot_kernel, 1, 64, 0, 0, d); return true; }
static bool run_shuffle(int *a, int *b, int *c, int *d, int *e)
{
    CUDA_LAUNCH(shuffle_kernel, 2, 64, 0, 0, a, b, c, d, e);
    return true;
}
static bool run_partial(uint32_t *d) { CUDA_LAUNCH(partial_mask_kernel, 1, 32, 0, 0, d); return true; }
static bool run_atomic(uint32_t blocks, uint32_t *c, uint32_t *o, float *f)
{
    CUDA_LAUNCH(atomic_kernel, blocks, THREADS, 0, 0, c, o, f);
    return true;
}
static bool run_ldcg(uint32_t blocks, uint32_t *w, uint32_t *v, uint32_t *o)
{
    CUDA_LAUNCH(ldcg_kernel, blocks, THREADS, 0, 0, w, v, o);
    return true;
}
static bool run_shared(uint32_t blocks, uint32_t *o) { CUDA_LAUNCH(shared_kernel, blocks, THREADS, 0, 0, o); return true; }
static bool run_dynamic(uint32_t blocks, uint32_t words, uint32_t *o)
{
    CUDA_LAUNCH(dynamic_shared_kernel, blocks, 128, words * sizeof(uint32_t), 0, words, o);
    return true;
}
static bool run_constant(float *o) { CUDA_LAUNCH(constant_kernel, 1, 32, 0, 0, o); return true; }

template <class T> static std::vector<T> download(const T *d, size_t n)
{
    std::vector<T> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess, "download");
    return h;
}

int main(void)
{
    /* host-side intrinsics */
    CHECK(__popc(0u) == 0 && __popc(0xffffffffu) == 32 && __popc(0x80000001u) == 2, "__popc");
    CHECK(__ffs(0) == 0 && __ffs(1) == 1 && __ffs(0x80) == 8 && __ffs((int)0x80000000u) == 32, "__ffs is 1-based");
    CHECK(__float_as_uint(1.0f) == 0x3f800000u && __uint_as_float(0x40000000u) == 2.0f, "bit casts");
    CHECK(__brev(1u) == 0x80000000u && __clz(1) == 31, "__brev, __clz");

    uint32_t *d_u;
    int *d_i[5];
    CHECK(cudaMalloc((void **)&d_u, 4096 * THREADS * sizeof(uint32_t)) == cudaSuccess, "malloc");
    for (int k = 0; k < 5; k++)
        CHECK(cudaMalloc((void **)&d_i[k], 128 * sizeof(int)) == cudaSuccess, "malloc");

    /* ballot: bit l is lane l's predicate */
    CHECK(run_ballot(d_u), "ballot launch");
    std::vector<uint32_t> b = download(d_u, 64);
    uint32_t want0 = 0;
    for (unsigned l = 0; l < 32; l++)
        want0 |= (l % 3 == 0 ? 1u : 0u) << l;
    CHECK(b[0] == want0 && b[31] == want0, "ballot warp 0: %08x, want %08x", b[0], want0);
    CHECK(b[32] == (want0 | 1u << 5) && b[63] == b[32], "ballot warp 1 (thread 37 = lane 5): %08x", b[32]);

    /* shuffles */
    CHECK(run_shuffle(d_i[0], d_i[1], d_i[2], d_i[3], d_i[4]), "shuffle launch");
    std::vector<int> xs = download(d_i[0], 128), ix = download(d_i[1], 128), up = download(d_i[2], 128),
                     dn = download(d_i[3], 128), x1 = download(d_i[4], 128);
    bool ok_x = true, ok_i = true, ok_u = true, ok_d = true, ok_1 = true;
    for (int t = 0; t < 128; t++) {
        const int lane = t & 31;
        ok_x &= xs[t] == 496;
        ok_i &= ix[t] == 50;
        ok_u &= up[t] == (lane >= 3 ? lane - 3 : lane);
        ok_d &= dn[t] == ((lane & 15) + 3 < 16 ? lane + 3 : lane);
        ok_1 &= x1[t] == 1;
    }
    CHECK(ok_x, "xor butterfly sum of lanes is 496 in every lane: %d %d", xs[0], xs[127]);
    CHECK(ok_i, "__shfl_sync from lane 5: %d %d", ix[0], ix[127]);
    CHECK(ok_u, "__shfl_up_sync by 3 keeps lanes 0..2");
    CHECK(ok_d, "__shfl_down_sync by 3 with width 16 stays in each half");
    CHECK(ok_1, "__shfl_xor_sync of a float");

    CHECK(run_partial(d_u), "partial-mask launch");
    b = download(d_u, 32);
    CHECK(b[0] == 0xaaaau && b[15] == 0xaaaau, "ballot over mask 0xffff: %08x (bits outside the mask are 0)", b[0]);

    /* atomics: the old values are a permutation of 0..n-1, from blocks on all workers */
    const uint32_t blocks = 64, n = blocks * THREADS;
    uint32_t *d_counter, *d_old;
    float *d_fsum;
    CHECK(cudaMalloc((void **)&d_counter, 4) == cudaSuccess && cudaMalloc((void **)&d_old, n * 4) == cudaSuccess &&
              cudaMalloc((void **)&d_fsum, 4) == cudaSuccess, "malloc");
    CHECK(cudaMemset(d_counter, 0, 4) == cudaSuccess && cudaMemset(d_fsum, 0, 4) == cudaSuccess, "memset");
    CHECK(run_atomic(blocks, d_counter, d_old, d_fsum), "atomic launch");
    std::vector<uint32_t> old = download(d_old, n), counter = download(d_counter, 1);
    std::vector<float> fsum = download(d_fsum, 1);
    std::vector<char> seen(n, 0);
    bool perm = true;
    for (uint32_t v : old) {
        perm &= v < n && !seen[v];
        if (v < n)
            seen[v] = 1;
    }
    CHECK(perm && counter[0] == n, "atomicAdd returns each old value once (counter %u of %u)", counter[0], n);
    CHECK(fsum[0] == (float)n, "float atomicAdd: %g", fsum[0]);

    /* __ldcg: a plain load's value (the words all threads ORed into, a neighbour's store) */
    {
        const uint32_t lb = 16, ln = lb * THREADS;
        uint32_t *d_w, *d_v, *d_o;
        CHECK(cudaMalloc((void **)&d_w, ln / 32 * 4) == cudaSuccess && cudaMalloc((void **)&d_v, ln * 4) == cudaSuccess &&
                  cudaMalloc((void **)&d_o, 2 * ln * 4) == cudaSuccess && cudaMemset(d_w, 0, ln / 32 * 4) == cudaSuccess,
              "ldcg malloc");
        CHECK(run_ldcg(lb, d_w, d_v, d_o), "ldcg launch");
        std::vector<uint32_t> lo = download(d_o, 2 * ln);
        bool ld_ok = true;
        for (uint32_t i = 0; i < ln; i++)
            ld_ok &= lo[2 * i] == 0xffffffffu &&
                     lo[2 * i + 1] == (i / THREADS * THREADS + (i % THREADS + 1) % THREADS) * 3u + 1u;
        CHECK(ld_ok, "__ldcg reads the ORed words and the neighbours' stores: %08x %u", lo[0], lo[1]);
        cudaFree(d_w);
        cudaFree(d_v);
        cudaFree(d_o);
    }

    /* __shared__ is per block: many blocks over the workers */
    CHECK(run_shared(4096, d_u), "shared launch");
    std::vector<uint32_t> sh = download(d_u, 4096 * THREADS);
    bool shared_ok = true;
    for (uint32_t blk = 0; blk < 4096; blk++)
        for (uint32_t t = 0; t < THREADS; t++)
            shared_ok &= sh[blk * THREADS + t] == blk * 1000u + (t + 1) % THREADS;
    CHECK(shared_ok, "static __shared__ arrays are the block's own");

    /* extern __shared__: size from the launch, the 48 KB default limit, cudaFuncSetAttribute */
    CHECK(run_dynamic(8, 1000, d_u), "dynamic shared launch");
    std::vector<uint32_t> dy = download(d_u, 8);
    bool dyn_ok = true;
    for (uint32_t blk = 0; blk < 8; blk++)
        dyn_ok &= dy[blk] == 3u * (999u * 1000u / 2u) + 1000u * blk;
    CHECK(dyn_ok, "extern __shared__ sums: %u", dy[0]);
    CHECK(!run_dynamic(1, 13000, d_u), "52 KB of dynamic shared memory without the attribute is refused");
    CHECK(cudaGetLastError() == cudaSuccess, "the launch error was consumed by the check");
    CHECK(cudaFuncSetAttribute(dynamic_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 13000 * 4) ==
              cudaSuccess, "cudaFuncSetAttribute");
    CHECK(run_dynamic(1, 13000, d_u), "52 KB after cudaFuncSetAttribute");
    CHECK(cudaFuncSetAttribute(dynamic_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024) ==
              cudaErrorInvalidValue, "above the device's opt-in limit");
    cudaGetLastError();

    /* __constant__ via cudaMemcpyToSymbolAsync (bounds-checked against the symbol) */
    const float vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    float *d_f;
    CHECK(cudaMalloc((void **)&d_f, 32 * sizeof(float)) == cudaSuccess, "malloc");
    CHECK(cudaMemcpyToSymbolAsync(c_values, vals, sizeof vals, 0, cudaMemcpyHostToDevice, 0) == cudaSuccess, "symbol");
    CHECK(run_constant(d_f), "constant launch");
    std::vector<float> cv = download(d_f, 32);
    CHECK(cv[0] == 1.0f && cv[7] == 8.0f && cv[15] == 8.0f, "constant values");
    CHECK(cudaMemcpyToSymbolAsync(c_values, vals, sizeof vals, 4, cudaMemcpyHostToDevice, 0) == cudaErrorInvalidValue,
          "a copy past the symbol's end is refused");
    cudaGetLastError();

    /* launch configuration */
    CHECK(!run_shared(0, d_u), "a zero-block grid is refused");
    CHECK(cudaGetLastError() == cudaSuccess, "consumed");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "device sync");
    return test_done();
}
