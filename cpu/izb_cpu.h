/* izb_cpu.h — the CPU backend's C entry point (implemented in cpu/backend.c, which includes this
 * header so a signature drift fails to compile). The mirror of cuda/izb_cuda.h. */
#ifndef IZB_CPU_H
#define IZB_CPU_H

#include "izb_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create the CPU backend. Never fails but for out-of-memory. */
izb_backend *izb_cpu_create(const izb_desc *desc);

/* Its row in the build's backend registry (izb_backend.h): always built, needs no device. */
extern const izb_backend_entry izb_cpu_backend_entry;

#ifdef __cplusplus
}
#endif
#endif
