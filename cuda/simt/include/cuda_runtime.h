/* cuda_runtime.h (SIMT emulator): the runtime API; the device vocabulary comes from the prelude. */
#ifndef SIMT_CUDA_RUNTIME_H
#define SIMT_CUDA_RUNTIME_H
#include "cuda_runtime_api.h"
#endif
