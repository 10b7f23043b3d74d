/* test_simt_race.cu — race mode (-Dsimt_race=true) finds a planted race: thread 0 publishes a
 * __shared__ value that the other warps read without __syncthreads (the missing-barrier bug). The
 * same kernel with the barrier must be clean, which shows that barriers synchronise and fiber
 * switches do not. And __ldcg (cuda/raster_soft.cu's early-out reads of mask words that other
 * threads atomicOr into) is an atomic load there: clean, where the same read as a plain load is
 * reported. Each kernel runs in a child process under TSAN_OPTIONS=halt_on_error=1.
 * Registered only in race-mode builds; suite 'simt'. */
#include <stdint.h>
#include <string.h>

#include "spawn_util.h"
#include "test.h"

template <bool BARRIER> __global__ void publish_kernel(uint32_t *out)
{
    __shared__ uint32_t s_base;
    if (threadIdx.x == 0)
        s_base = 1000u + blockIdx.x;
    if (BARRIER)
        __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s_base + threadIdx.x;
}

template <bool BARRIER> static bool run()
{
    uint32_t *d = nullptr;
    CUDA_TRY(cudaMalloc((void **)&d, 8 * 128 * sizeof(uint32_t)));
    auto k = publish_kernel<BARRIER>;
    CUDA_LAUNCH(k, 8, 128, 0, 0, d);
    CUDA_TRY(cudaDeviceSynchronize());
    return true;
}

/* every thread ORs its bit into a word that the warp's other threads read meanwhile */
template <bool LDCG> __global__ void or_read_kernel(uint32_t *words, uint32_t *out)
{
    uint32_t *w = &words[threadIdx.x / 64];
    atomicOr(w, 1u << (threadIdx.x & 31u));
    out[blockIdx.x * blockDim.x + threadIdx.x] = LDCG ? __ldcg(w) : *(volatile uint32_t *)w;
}

template <bool LDCG> static bool run_or_read()
{
    uint32_t *w = nullptr, *o = nullptr;
    CUDA_TRY(cudaMalloc((void **)&w, 2 * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&o, 128 * sizeof(uint32_t)));
    CUDA_TRY(cudaMemset(w, 0, 2 * sizeof(uint32_t)));
    auto k = or_read_kernel<LDCG>;
    CUDA_LAUNCH(k, 1, 128, 0, 0, w, o);
    CUDA_TRY(cudaDeviceSynchronize());
    return true;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return !strcmp(argv[1], "racy")    ? !run<false>()
               : !strcmp(argv[1], "clean") ? !run<true>()
               : !strcmp(argv[1], "plain") ? !run_or_read<false>()
               : !strcmp(argv[1], "ldcg")  ? !run_or_read<true>()
                                           : 2;
    int status = 0;
    std::string out = spawn("/proc/self/exe", "racy", "TSAN_OPTIONS=halt_on_error=1 exitcode=66", &status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 66, "the missing barrier is reported (status %d):\n%s", status,
          out.c_str());
    CHECK(out.find("data race") != std::string::npos && out.find("publish_kernel") != std::string::npos,
          "the report names a data race in publish_kernel:\n%s", out.c_str());
    out = spawn("/proc/self/exe", "clean", "TSAN_OPTIONS=halt_on_error=1 exitcode=66", &status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "with the barrier: no report (status %d):\n%s", status,
          out.c_str());
    out = spawn("/proc/self/exe", "plain", "TSAN_OPTIONS=halt_on_error=1 exitcode=66", &status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 66 && out.find("or_read_kernel") != std::string::npos,
          "a plain read of a word others atomicOr into is reported (status %d):\n%s", status, out.c_str());
    out = spawn("/proc/self/exe", "ldcg", "TSAN_OPTIONS=halt_on_error=1 exitcode=66", &status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the same read by __ldcg: no report (status %d):\n%s", status,
          out.c_str());
    return test_done();
}
