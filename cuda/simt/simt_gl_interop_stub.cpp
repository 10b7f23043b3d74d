/* simt_gl_interop_stub.cpp — TEMPORARY SEAM: the CUDA–GL interop entry points of the emulated
 * runtime refuse loudly (cudaErrorNotSupported) until the emulated interop on Mesa replaces this
 * file (issue 9 item 2: cudaGraphicsGLRegisterImage backed by glGetTextureImage at map and
 * glTextureSubImage2D at unmap, on top of simt_runtime_internal.h). The backend then reports
 * "cannot register GL texture" and the program draws the frame with the CPU backend. */
#include <stdio.h>

#include <cuda_gl_interop.h>

#include "simt_runtime_internal.h"

static cudaError_t refuse(const char *call)
{
    simt::complain(call, "CUDA-GL interop is not emulated yet (cuda/simt/simt_gl_interop_stub.cpp)");
    return simt::set_error(cudaErrorNotSupported);
}

extern "C" {
cudaError_t cudaGLGetDevices(unsigned *count, int *devices, unsigned max_devices, cudaGLDeviceList list)
{
    (void)devices, (void)max_devices, (void)list;
    if (count)
        *count = 0;
    return refuse("cudaGLGetDevices");
}
cudaError_t cudaGraphicsGLRegisterImage(cudaGraphicsResource_t *res, GLuint image, GLenum target, unsigned flags)
{
    (void)image, (void)target, (void)flags;
    if (res)
        *res = nullptr;
    return refuse("cudaGraphicsGLRegisterImage");
}
cudaError_t cudaGraphicsGLRegisterBuffer(cudaGraphicsResource_t *res, GLuint buffer, unsigned flags)
{
    (void)buffer, (void)flags;
    if (res)
        *res = nullptr;
    return refuse("cudaGraphicsGLRegisterBuffer");
}
cudaError_t cudaGraphicsUnregisterResource(cudaGraphicsResource_t res)
{
    return res ? refuse("cudaGraphicsUnregisterResource") : simt::set_error(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaGraphicsMapResources(int count, cudaGraphicsResource_t *res, cudaStream_t s)
{
    (void)count, (void)res, (void)s;
    return refuse("cudaGraphicsMapResources");
}
cudaError_t cudaGraphicsUnmapResources(int count, cudaGraphicsResource_t *res, cudaStream_t s)
{
    (void)count, (void)res, (void)s;
    return refuse("cudaGraphicsUnmapResources");
}
cudaError_t cudaGraphicsSubResourceGetMappedArray(cudaArray_t *array, cudaGraphicsResource_t res, unsigned index,
                                                  unsigned level)
{
    (void)res, (void)index, (void)level;
    if (array)
        *array = nullptr;
    return refuse("cudaGraphicsSubResourceGetMappedArray");
}
}
