/* test_simt_faults.cu — what the emulator must refuse, each as a fault that names kernel, launch
 * site, block, warp and lanes, never a hang: a deadlock (early return before a collective), a
 * divergent barrier, a barrier after threads exited, a lane calling a collective outside its mask,
 * a shuffle reading a lane outside the mask, divergent collectives, surf2Dwrite out of bounds.
 * Each scenario runs in a child process (this program with the scenario's name) that must die of
 * SIGABRT with the expected words on stderr; with SIMT_ON_FAULT=error the same fault is a sticky
 * cudaErrorLaunchFailure in-process. Suite 'simt'. */
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "spawn_util.h"
#include "test.h"

__global__ void early_return_kernel(uint32_t *out, uint32_t n)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) /* the planted bug: a tail guard that returns before the warp's ballot */
        return;
    out[i] = __ballot_sync(0xffffffffu, i & 1u);
}

__global__ void divergent_barrier_kernel(uint32_t *out)
{
    if (threadIdx.x < 32) {
        out[threadIdx.x] = 1;
        __syncthreads();
    } else {
        __syncthreads();
        out[threadIdx.x] = 2;
    }
}

__global__ void barrier_after_exit_kernel(uint32_t *out)
{
    if (threadIdx.x == 7)
        return;
    __syncthreads();
    out[threadIdx.x] = 1;
}

__global__ void outside_mask_kernel(uint32_t *out)
{
    /* every lane calls with a mask naming only lanes 0..15 */
    out[threadIdx.x] = __ballot_sync(0x0000ffffu, 1);
}

__global__ void shuffle_outside_kernel(uint32_t *out)
{
    const unsigned lane = threadIdx.x & 31u;
    if (lane < 16) /* xor 16 reads lanes 16..31, which are not in the mask */
        out[threadIdx.x] = __shfl_xor_sync(0x0000ffffu, lane, 16);
}

__global__ void divergent_collective_kernel(uint32_t *out)
{
    const unsigned lane = threadIdx.x & 31u;
    if (lane < 4)
        out[threadIdx.x] = __ballot_sync(0xffffffffu, 1);
    else
        out[threadIdx.x] = __ballot_sync(0xffffffffu, 0);
}

__global__ void surface_oob_kernel(cudaSurfaceObject_t s)
{
    surf2Dwrite((uint8_t)1, s, (int)threadIdx.x, 0); /* 40 threads, 32 texels */
}

static uint32_t *buffer()
{
    uint32_t *d = nullptr;
    cudaMalloc((void **)&d, 1024 * sizeof(uint32_t));
    return d;
}

static bool early_return() { CUDA_LAUNCH(early_return_kernel, 2, 64, 0, 0, buffer(), 100u); return true; }
static bool divergent_barrier() { CUDA_LAUNCH(divergent_barrier_kernel, 1, 64, 0, 0, buffer()); return true; }
static bool barrier_after_exit() { CUDA_LAUNCH(barrier_after_exit_kernel, 3, 64, 0, 0, buffer()); return true; }
static bool outside_mask() { CUDA_LAUNCH(outside_mask_kernel, 1, 32, 0, 0, buffer()); return true; }
static bool shuffle_outside() { CUDA_LAUNCH(shuffle_outside_kernel, 1, 32, 0, 0, buffer()); return true; }
static bool divergent_collective() { CUDA_LAUNCH(divergent_collective_kernel, 1, 32, 0, 0, buffer()); return true; }
static bool surface_oob()
{
    cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
    cudaArray_t a;
    CUDA_TRY(cudaMallocArray(&a, &d, 32, 1, cudaArraySurfaceLoadStore));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaSurfaceObject_t s;
    CUDA_TRY(cudaCreateSurfaceObject(&s, &rd));
    CUDA_LAUNCH(surface_oob_kernel, 1, 40, 0, 0, s);
    return true;
}

struct scenario {
    const char *name;
    bool (*run)();
    const char *expect[4]; /* words the fault message must contain */
};

static const scenario scenarios[] = {
    {"early_return", early_return, {"early_return_kernel", "block (1,0,0)", "warp 1", "never come"}},
    {"divergent_barrier", divergent_barrier, {"divergent_barrier_kernel", "divergent barrier", "test_simt_faults.cu:", "warp"}},
    {"barrier_after_exit", barrier_after_exit, {"barrier_after_exit_kernel", "exited", "__syncthreads", "block ("}},
    {"outside_mask", outside_mask, {"outside_mask_kernel", "lane ", "does not name it", "0x0000ffff"}},
    {"shuffle_outside", shuffle_outside, {"shuffle_outside_kernel", "outside the mask", "__shfl_xor_sync", "lane 0 reads lane 16"}},
    {"divergent_collective", divergent_collective, {"divergent collective", "__ballot_sync", "warp 0", "test_simt_faults.cu:6"}},
    {"surface_oob", surface_oob, {"surface_oob_kernel", "surf2Dwrite", "outside the 32x1 array", "warp 1"}},
};

static int run_scenario(const scenario &s)
{
    bool ok = s.run();
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s: launch %s, sync %s\n", s.name, ok ? "ok" : "failed", cudaGetErrorName(e));
    return e == cudaErrorLaunchFailure ? 3 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        for (const scenario &s : scenarios)
            if (!strcmp(argv[1], s.name))
                return run_scenario(s);
        return 2;
    }
    for (const scenario &s : scenarios) {
        int status = 0;
        std::string err = spawn("/proc/self/exe", s.name, nullptr, &status);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "%s: the fault aborts (status %d):\n%s", s.name,
              status, err.c_str());
        for (const char *w : s.expect)
            if (w)
                CHECK(err.find(w) != std::string::npos, "%s: the message names \"%s\":\n%s", s.name, w, err.c_str());
        err = spawn("/proc/self/exe", s.name, "SIMT_ON_FAULT=error", &status);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3,
              "%s: with SIMT_ON_FAULT=error the fault is a sticky cudaErrorLaunchFailure (status %d):\n%s", s.name,
              status, err.c_str());
    }
    return test_done();
}
