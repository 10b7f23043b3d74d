/* test_simt_race.cu — race mode (-Dsimt_race=true) finds a planted race: thread 0 publishes a
 * __shared__ value that the other warps read without __syncthreads (the missing-barrier bug). The
 * same kernel with the barrier must be clean, which shows that barriers synchronise and fiber
 * switches do not. Each kernel runs in a child process under TSAN_OPTIONS=halt_on_error=1.
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

int main(int argc, char **argv)
{
    if (argc > 1)
        return !strcmp(argv[1], "racy") ? !run<false>() : !strcmp(argv[1], "clean") ? !run<true>() : 2;
    int status = 0;
    std::string out = spawn("/proc/self/exe", "racy", "TSAN_OPTIONS=halt_on_error=1 exitcode=66", &status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 66, "the missing barrier is reported (status %d):\n%s", status,
          out.c_str());
    CHECK(out.find("data race") != std::string::npos && out.find("publish_kernel") != std::string::npos,
          "the report names a data race in publish_kernel:\n%s", out.c_str());
    out = spawn("/proc/self/exe", "clean", "TSAN_OPTIONS=halt_on_error=1 exitcode=66", &status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "with the barrier: no report (status %d):\n%s", status,
          out.c_str());
    return test_done();
}
