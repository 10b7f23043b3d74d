/* izb_cuda.h — the CUDA backend's C entry point (implemented in cuda/backend.cu, which includes
 * this header so a signature drift fails to compile). */
#ifndef IZB_CUDA_H
#define IZB_CUDA_H

#include "../core/izb_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create the CUDA backend; NULL when no CUDA device answers, with a one-line reason only when
 * desc asks for IZB_BACKEND_CUDA by name (auto stays silent: izb_create says one short line). */
izb_backend *izb_cuda_create(const izb_desc *desc);

/* Its row in the build's backend registry (izb_backend.h): tried first by auto, needs a device. */
extern const izb_backend_entry izb_cuda_backend_entry;

#ifdef __cplusplus
}
#endif
#endif
