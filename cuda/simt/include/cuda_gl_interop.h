/* cuda_gl_interop.h (SIMT emulator) — CUDA–GL interop entry points with CUDA's signatures. The
 * emulated implementation lives in cuda/simt/ (see simt_runtime_internal.h for how mapped arrays
 * are represented). */
#ifndef SIMT_CUDA_GL_INTEROP_H
#define SIMT_CUDA_GL_INTEROP_H

#include <GL/gl.h>

#include "cuda_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cudaGLDeviceList {
    cudaGLDeviceListAll = 1,
    cudaGLDeviceListCurrentFrame = 2,
    cudaGLDeviceListNextFrame = 3,
} cudaGLDeviceList;

cudaError_t cudaGLGetDevices(unsigned *count, int *devices, unsigned max_devices, enum cudaGLDeviceList list);
cudaError_t cudaGraphicsGLRegisterImage(cudaGraphicsResource_t *res, GLuint image, GLenum target, unsigned flags);
cudaError_t cudaGraphicsGLRegisterBuffer(cudaGraphicsResource_t *res, GLuint buffer, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif
