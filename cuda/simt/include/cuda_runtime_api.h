/* cuda_runtime_api.h (SIMT emulator) — the slice of the CUDA runtime API that the .cu files of cuda/ uses, with
 * CUDA's names, types and documented contracts, implemented on the CPU by cuda/simt/. Readable by C
 * and C++ like the real header; the C++-only parts (dim3 constructors, symbol and function-attribute
 * templates) sit at the end. Only what the project's code (and the emulator's own tests) call is
 * declared: a missing entry point is a compile error, never a silent stub.
 */
#ifndef SIMT_CUDA_RUNTIME_API_H
#define SIMT_CUDA_RUNTIME_API_H

#include <stddef.h>
#include <stdint.h>

#define CUDART_VERSION 12000
#define SIMT_EMULATOR 1

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
    cudaErrorInvalidDevice = 101,
    cudaErrorNoDevice = 100,
    cudaErrorUnknown = 999,
} cudaError_t;

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
} cudaMemcpyKind;

typedef struct __attribute__((aligned(16))) float4 { float x, y, z, w; } float4;
typedef struct __attribute__((aligned(8))) float2 { float x, y; } float2;
typedef struct __attribute__((aligned(16))) int4 { int x, y, z, w; } int4;
typedef struct __attribute__((aligned(16))) uint4 { unsigned x, y, z, w; } uint4;
typedef struct uint3 { unsigned x, y, z; } uint3;

#ifdef __cplusplus
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
#else
typedef struct dim3 { unsigned x, y, z; } dim3;
#endif

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaGraphicsResource *cudaGraphicsResource_t;
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

#define cudaStreamDefault 0x0u
#define cudaStreamNonBlocking 0x1u
#define cudaHostAllocDefault 0x0u
#define cudaArrayDefault 0x0u
#define cudaArraySurfaceLoadStore 0x2u

typedef enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3,
} cudaChannelFormatKind;

typedef struct cudaChannelFormatDesc {
    int x, y, z, w;
    enum cudaChannelFormatKind f;
} cudaChannelFormatDesc;

typedef struct cudaExtent {
    size_t width, height, depth;
} cudaExtent;

typedef enum cudaResourceType {
    cudaResourceTypeArray = 0,
    cudaResourceTypeMipmappedArray = 1,
    cudaResourceTypeLinear = 2,
    cudaResourceTypePitch2D = 3,
} cudaResourceType;

typedef struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width, height, pitchInBytes;
        } pitch2D;
    } res;
} cudaResourceDesc;

typedef enum cudaTextureAddressMode {
    cudaAddressModeWrap = 0,
    cudaAddressModeClamp = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3,
} cudaTextureAddressMode;
typedef enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 } cudaTextureFilterMode;
typedef enum cudaTextureReadMode {
    cudaReadModeElementType = 0,
    cudaReadModeNormalizedFloat = 1,
} cudaTextureReadMode;

typedef struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
} cudaTextureDesc;

typedef struct cudaResourceViewDesc cudaResourceViewDesc;

typedef enum cudaSurfaceBoundaryMode {
    cudaBoundaryModeZero = 0,
    cudaBoundaryModeClamp = 1,
    cudaBoundaryModeTrap = 2,
} cudaSurfaceBoundaryMode;

typedef struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerBlockOptin;
    int regsPerBlock, warpSize, maxThreadsPerBlock;
    int maxThreadsDim[3], maxGridSize[3];
    int major, minor, multiProcessorCount;
    int maxThreadsPerMultiProcessor;
} cudaDeviceProp;

typedef enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
} cudaDeviceAttr;

typedef enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
} cudaFuncAttribute;

typedef enum cudaGraphicsRegisterFlags {
    cudaGraphicsRegisterFlagsNone = 0,
    cudaGraphicsRegisterFlagsReadOnly = 1,
    cudaGraphicsRegisterFlagsWriteDiscard = 2,
    cudaGraphicsRegisterFlagsSurfaceLoadStore = 4,
    cudaGraphicsRegisterFlagsTextureGather = 8,
} cudaGraphicsRegisterFlags;

/* errors */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t err);
const char *cudaGetErrorName(cudaError_t err);

/* device */
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);

/* memory */
cudaError_t cudaMalloc(void **ptr, size_t bytes);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMallocHost(void **ptr, size_t bytes);
cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t s);
cudaError_t cudaMemset(void *dst, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t s);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);

/* streams and events */
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamQuery(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
/* event flags (CUDA's values): DisableTiming makes cudaEventElapsedTime refuse the event */
enum { cudaEventDefault = 0x0, cudaEventBlockingSync = 0x1, cudaEventDisableTiming = 0x2, cudaEventInterprocess = 0x4 };
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

/* arrays, texture and surface objects */
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);
cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                            size_t height, unsigned flags);
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent, unsigned *flags,
                             cudaArray_t array);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src, size_t spitch,
                                size_t width_bytes, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                  size_t h_offset, size_t width_bytes, size_t height, enum cudaMemcpyKind kind);
/* stream-ordered: the array's texels are read when s reaches the copy (a mapped GL texture's
 * array must stay mapped until then: cudaGraphicsUnmapResources on s runs s first) */
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                       size_t h_offset, size_t width_bytes, size_t height,
                                       enum cudaMemcpyKind kind, cudaStream_t s);
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *tex, const struct cudaResourceDesc *res,
                                    const struct cudaTextureDesc *desc, const struct cudaResourceViewDesc *view);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surf, const struct cudaResourceDesc *res);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surf);

/* graphics interop (declared here as in the real header; GL-specific calls in cuda_gl_interop.h) */
cudaError_t cudaGraphicsUnregisterResource(cudaGraphicsResource_t res);
cudaError_t cudaGraphicsMapResources(int count, cudaGraphicsResource_t *res, cudaStream_t s);
cudaError_t cudaGraphicsUnmapResources(int count, cudaGraphicsResource_t *res, cudaStream_t s);
cudaError_t cudaGraphicsSubResourceGetMappedArray(cudaArray_t *array, cudaGraphicsResource_t res,
                                                  unsigned index, unsigned level);

/* emulator entry points behind the C++ templates below */
cudaError_t simt_memcpy_to_symbol_async(void *symbol, size_t symbol_bytes, const void *src, size_t count,
                                        size_t offset, enum cudaMemcpyKind kind, cudaStream_t s, int blocking);
cudaError_t simt_memcpy_from_symbol(void *dst, const void *symbol, size_t symbol_bytes, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind);
cudaError_t simt_func_set_attribute(const void *func, enum cudaFuncAttribute attr, int value);

#ifdef __cplusplus
}

/* __constant__ symbols are host objects in the emulator: the size comes from the type, as in CUDA's
 * C++ overloads, and every copy is bounds-checked against it. */
template <class T>
static inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                                  cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t s = 0)
{
    return simt_memcpy_to_symbol_async((void *)&symbol, sizeof(T), src, count, offset, kind, s, 0);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return simt_memcpy_to_symbol_async((void *)&symbol, sizeof(T), src, count, offset, kind, 0, 1);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                               cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return simt_memcpy_from_symbol(dst, (const void *)&symbol, sizeof(T), count, offset, kind);
}
template <class... P>
static inline cudaError_t cudaFuncSetAttribute(void (*func)(P...), cudaFuncAttribute attr, int value)
{
    return simt_func_set_attribute((const void *)func, attr, value);
}
template <class T> static inline cudaChannelFormatDesc cudaCreateChannelDesc()
{
    if constexpr (sizeof(T) == 4 && T(0.5) != T(0))
        return cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    else
        return cudaCreateChannelDesc(8 * (int)sizeof(T), 0, 0, 0,
                                     T(-1) < T(0) ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned);
}
#endif

#endif
