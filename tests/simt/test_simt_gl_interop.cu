/* test_simt_gl_interop.cu — the emulated CUDA–GL interop (cuda/simt/simt_gl_interop.cpp) on a
 * headless GL 4.5 context (Mesa llvmpipe here): CUDA's registration rules and errors (unknown name,
 * target, unsupported format, bad flags), map/unmap/get-array on the wrong state, texels read at map
 * and written back at unmap (an odd width: no row padding), ReadOnly never written back,
 * WriteDiscard not read, a surface only on a SurfaceLoadStore registration, objects kept past the
 * unmap reading poison, a stale registration after a resize refused, cudaGLGetDevices;
 * cudaMemcpy2DFromArrayAsync from a mapped GL_R32UI texture (the primitive ids of cuda/interop.cu):
 * stream-ordered before the unmap, device and pageable host destinations, bad ranges refused.
 * Suite 'simt'; exits 77 without a GL 4.5 context. */
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cuda_gl_interop.h>

#include <vector>

extern "C" {
#include "gl_context.h"
}
#include "test.h"

enum { W = 37, H = 5 };

/* mask = depth * 2 + 1 (depth holds small integers), through the texture and surface objects */
__global__ void double_kernel(cudaTextureObject_t depth, cudaSurfaceObject_t mask, int w, int h)
{
    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x), y = (int)blockIdx.y;
    if (x >= w) return;
    const float d = tex2D<float>(depth, (float)x + 0.5f, (float)y + 0.5f);
    surf2Dwrite((uint8_t)(d * 2.0f + 1.0f), mask, x, y);
}
__global__ void sample_kernel(cudaTextureObject_t depth, float *out)
{
    out[threadIdx.x] = tex2D<float>(depth, (float)threadIdx.x + 0.5f, 0.5f);
}

static bool run_double(cudaTextureObject_t t, cudaSurfaceObject_t s, cudaStream_t st)
{
    CUDA_LAUNCH(double_kernel, dim3(1, H), 64, 0, st, t, s, W, H);
    return true;
}
static bool run_sample(cudaTextureObject_t t, float *out)
{
    CUDA_LAUNCH(sample_kernel, 1, 8, 0, 0, t, out);
    return true;
}

static GLuint make_texture(GLenum internal, int w, int h, GLenum format, GLenum type, const void *data)
{
    GLuint t;
    glCreateTextures(GL_TEXTURE_2D, 1, &t);
    glTextureStorage2D(t, 1, internal, w, h);
    if (data) glTextureSubImage2D(t, 0, 0, 0, w, h, format, type, data);
    return t;
}

static bool expect(cudaError_t got, cudaError_t want, const char *what)
{
    cudaGetLastError();
    CHECK(got == want, "%s: got %s, want %s", what, cudaGetErrorName(got), cudaGetErrorName(want));
    return got == want;
}

int main(void)
{
    gl_context ctx;
    char err[256];
    gl_context_desc desc = {};
    desc.headless = true;
    if (!gl_context_init(&ctx, &desc, err, sizeof err)) TEST_SKIP("%s", err);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);

    unsigned count = 0;
    int dev = -1;
    CHECK(cudaGLGetDevices(&count, &dev, 1, cudaGLDeviceListAll) == cudaSuccess && count == 1 && dev == 0,
          "cudaGLGetDevices: the emulated device 0 owns the current context (count %u, device %d)", count,
          dev);

    std::vector<float> depth(W * H);
    std::vector<uint8_t> mask(W * H, 7), got(W * H);
    for (int i = 0; i < W * H; i++)
        depth[i] = (float)(i % 100);
    GLuint tex_depth = make_texture(GL_R32F, W, H, GL_RED, GL_FLOAT, depth.data());
    GLuint tex_mask = make_texture(GL_R8, W, H, GL_RED, GL_UNSIGNED_BYTE, mask.data());
    GLuint tex_rgb = make_texture(GL_RGB8, W, H, 0, 0, NULL);
    GLuint tex_depth_comp = make_texture(GL_DEPTH_COMPONENT32F, W, H, 0, 0, NULL);
    GLuint tex_rgba = make_texture(GL_RGBA8, W, H, 0, 0, NULL);
    GLuint unbound;
    glGenTextures(1, &unbound); /* a name, but no texture object until bound */

    /* registration rules */
    cudaGraphicsResource_t r_depth = NULL, r_mask = NULL, r = NULL;
    const unsigned ro = cudaGraphicsRegisterFlagsReadOnly, sls = cudaGraphicsRegisterFlagsSurfaceLoadStore;
    expect(cudaGraphicsGLRegisterImage(&r, 0, GL_TEXTURE_2D, ro), cudaErrorInvalidValue, "texture name 0");
    expect(cudaGraphicsGLRegisterImage(&r, 4242, GL_TEXTURE_2D, ro), cudaErrorInvalidValue,
           "unknown texture name");
    expect(cudaGraphicsGLRegisterImage(&r, unbound, GL_TEXTURE_2D, ro), cudaErrorInvalidValue,
           "a generated name never bound");
    expect(cudaGraphicsGLRegisterImage(&r, tex_depth, GL_TEXTURE_RECTANGLE, ro), cudaErrorNotSupported,
           "GL_TEXTURE_RECTANGLE (valid in CUDA, not emulated)");
    expect(cudaGraphicsGLRegisterImage(&r, tex_depth, GL_TEXTURE_1D, ro), cudaErrorInvalidValue,
           "GL_TEXTURE_1D");
    expect(cudaGraphicsGLRegisterImage(&r, tex_rgb, GL_TEXTURE_2D, ro), cudaErrorInvalidValue,
           "GL_RGB8 (3 channels: unsupported by CUDA)");
    expect(cudaGraphicsGLRegisterImage(&r, tex_depth_comp, GL_TEXTURE_2D, ro), cudaErrorInvalidValue,
           "GL_DEPTH_COMPONENT32F");
    expect(cudaGraphicsGLRegisterImage(&r, tex_rgba, GL_TEXTURE_2D, ro), cudaErrorNotSupported,
           "GL_RGBA8 (valid in CUDA, not emulated)");
    expect(
        cudaGraphicsGLRegisterImage(&r, tex_mask, GL_TEXTURE_2D, ro | cudaGraphicsRegisterFlagsWriteDiscard),
        cudaErrorInvalidValue, "ReadOnly | WriteDiscard");
    CHECK(r == NULL, "no handle after a failed registration");
    CHECK(expect(cudaGraphicsGLRegisterImage(&r_depth, tex_depth, GL_TEXTURE_2D, ro), cudaSuccess,
                 "depth R32F") &&
              expect(cudaGraphicsGLRegisterImage(&r_mask, tex_mask, GL_TEXTURE_2D, sls), cudaSuccess,
                     "mask R8"),
          "register");

    /* state rules */
    cudaArray_t a_depth = NULL, a_mask = NULL;
    cudaGraphicsResource_t both[2] = {r_depth, r_mask};
    expect(cudaGraphicsSubResourceGetMappedArray(&a_depth, r_depth, 0, 0), cudaErrorUnknown,
           "array of unmapped");
    expect(cudaGraphicsUnmapResources(2, both, 0), cudaErrorUnknown, "unmapping unmapped");
    cudaGraphicsResource_t twice[2] = {r_mask, r_mask};
    expect(cudaGraphicsMapResources(2, twice, 0), cudaErrorUnknown, "one resource listed twice");
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess, "stream");
    CHECK(expect(cudaGraphicsMapResources(2, both, st), cudaSuccess, "map"), "map");
    expect(cudaGraphicsMapResources(1, &r_mask, st), cudaErrorUnknown, "mapping twice");
    expect(cudaGraphicsUnregisterResource((cudaGraphicsResource_t)&count), cudaErrorInvalidResourceHandle,
           "unregistering a pointer that is no resource");
    expect(cudaGraphicsSubResourceGetMappedArray(&a_depth, r_depth, 1, 0), cudaErrorInvalidValue,
           "array index 1");
    expect(cudaGraphicsSubResourceGetMappedArray(&a_depth, r_depth, 0, 1), cudaErrorInvalidValue,
           "mip level 1");
    CHECK(cudaGraphicsSubResourceGetMappedArray(&a_depth, r_depth, 0, 0) == cudaSuccess &&
              cudaGraphicsSubResourceGetMappedArray(&a_mask, r_mask, 0, 0) == cudaSuccess,
          "mapped arrays");
    cudaChannelFormatDesc d;
    cudaExtent e;
    unsigned flags;
    CHECK(cudaArrayGetInfo(&d, &e, &flags, a_depth) == cudaSuccess && e.width == W && e.height == H &&
              d.x == 32 && d.f == cudaChannelFormatKindFloat && !(flags & cudaArraySurfaceLoadStore),
          "depth array: %zux%zu, %d-bit kind %d, flags %u", e.width, e.height, d.x, (int)d.f, flags);
    CHECK(cudaArrayGetInfo(&d, &e, &flags, a_mask) == cudaSuccess && e.width == W && e.height == H &&
              d.x == 8 && d.f == cudaChannelFormatKindUnsigned && (flags & cudaArraySurfaceLoadStore),
          "mask array: %zux%zu, %d-bit kind %d, flags %u", e.width, e.height, d.x, (int)d.f, flags);
    expect(cudaFreeArray(a_mask), cudaErrorInvalidValue, "freeing a mapped array");

    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a_depth;
    cudaSurfaceObject_t bad_surf = 0;
    expect(cudaCreateSurfaceObject(&bad_surf, &rd), cudaErrorInvalidValue,
           "a surface on a ReadOnly registration");
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex = 0;
    cudaSurfaceObject_t surf = 0;
    CHECK(cudaCreateTextureObject(&tex, &rd, &td, NULL) == cudaSuccess, "texture object on the depth array");
    rd.res.array.array = a_mask;
    CHECK(cudaCreateSurfaceObject(&surf, &rd) == cudaSuccess, "surface object on the mask array");

    /* the kernel is deferred on st: the unmap must run it before writing back */
    CHECK(run_double(tex, surf, st), "launch");
    CHECK(expect(cudaGraphicsUnmapResources(2, both, st), cudaSuccess, "unmap"), "unmap");
    glGetTextureImage(tex_mask, 0, GL_RED, GL_UNSIGNED_BYTE, W * H, got.data());
    long wrong = 0;
    for (int i = 0; i < W * H; i++)
        wrong += got[i] != (uint8_t)(depth[i] * 2.0f + 1.0f);
    CHECK(wrong == 0, "mask written back through the surface at unmap: %ld of %d texels wrong", wrong, W * H);
    /* a ReadOnly image is never written back: scribble on its array, unmap, GL keeps its texels */
    std::vector<float> scribble(W * H, -5.0f);
    CHECK(cudaGraphicsMapResources(1, &r_depth, 0) == cudaSuccess &&
              cudaGraphicsSubResourceGetMappedArray(&a_depth, r_depth, 0, 0) == cudaSuccess &&
              cudaMemcpy2DToArray(a_depth, 0, 0, scribble.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice) ==
                  cudaSuccess &&
              cudaGraphicsUnmapResources(1, &r_depth, 0) == cudaSuccess,
          "scribble on the read-only array");
    std::vector<float> depth_back(W * H);
    glGetTextureImage(tex_depth, 0, GL_RED, GL_FLOAT, W * H * 4, depth_back.data());
    CHECK(!memcmp(depth_back.data(), depth.data(), W * H * 4), "a ReadOnly image is not written back");

    /* a texture object kept past the unmap reads poison, not the texels */
    float *d_out;
    float h_out[8];
    CHECK(cudaMalloc((void **)&d_out, sizeof h_out) == cudaSuccess && run_sample(tex, d_out) &&
              cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost) == cudaSuccess,
          "sample after unmap");
    CHECK(isnan(h_out[3]), "texture object used after the unmap reads poison (got %g)", h_out[3]);
    cudaDestroyTextureObject(tex);
    cudaDestroySurfaceObject(surf);

    /* WriteDiscard: not read at map (the array holds poison), written back at unmap */
    cudaGraphicsResource_t r_discard = NULL;
    CHECK(cudaGraphicsGLRegisterImage(&r_discard, tex_mask, GL_TEXTURE_2D,
                                      cudaGraphicsRegisterFlagsWriteDiscard) == cudaSuccess,
          "register WriteDiscard");
    CHECK(cudaGraphicsMapResources(1, &r_discard, 0) == cudaSuccess &&
              cudaGraphicsSubResourceGetMappedArray(&a_mask, r_discard, 0, 0) == cudaSuccess &&
              cudaMemcpy2DFromArray(got.data(), W, a_mask, 0, 0, W, H, cudaMemcpyDeviceToHost) == cudaSuccess,
          "map WriteDiscard");
    CHECK(got[0] == 0xff && got[W * H - 1] == 0xff, "WriteDiscard: the GL texels are not read (got %u)",
          got[0]);
    std::vector<uint8_t> nines(W * H, 9);
    CHECK(cudaMemcpy2DToArray(a_mask, 0, 0, nines.data(), W, W, H, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaGraphicsUnmapResources(1, &r_discard, 0) == cudaSuccess,
          "write and unmap");
    glGetTextureImage(tex_mask, 0, GL_RED, GL_UNSIGNED_BYTE, W * H, got.data());
    CHECK(got[0] == 9 && got[W * H - 1] == 9, "WriteDiscard written back (got %u)", got[W * H - 1]);
    CHECK(cudaGraphicsUnregisterResource(r_discard) == cudaSuccess, "unregister WriteDiscard");

    /* a stale registration: the texture name re-specified at another size */
    GLuint tex_resize;
    glGenTextures(1, &tex_resize);
    glBindTexture(GL_TEXTURE_2D, tex_resize);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, W, H, 0, GL_RED, GL_UNSIGNED_BYTE, NULL);
    cudaGraphicsResource_t r_resize = NULL;
    CHECK(cudaGraphicsGLRegisterImage(&r_resize, tex_resize, GL_TEXTURE_2D, sls) == cudaSuccess, "register");
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, W + 1, H, 0, GL_RED, GL_UNSIGNED_BYTE, NULL);
    expect(cudaGraphicsMapResources(1, &r_resize, 0), cudaErrorUnknown, "mapping a stale registration");
    CHECK(cudaGraphicsUnregisterResource(r_resize) == cudaSuccess, "unregister the stale one");
    expect(cudaGraphicsUnregisterResource(r_resize), cudaErrorInvalidResourceHandle, "unregistering twice");

    /* a stale registration: the texture deleted and its name reused at the same size */
    GLuint tex_reuse = make_texture(GL_R8, W, H, 0, 0, NULL), tex_again;
    CHECK(cudaGraphicsGLRegisterImage(&r_resize, tex_reuse, GL_TEXTURE_2D, sls) == cudaSuccess, "register");
    glDeleteTextures(1, &tex_reuse);
    tex_again = make_texture(GL_R8, W, H, 0, 0, NULL);
    if (tex_again == tex_reuse)
        expect(cudaGraphicsMapResources(1, &r_resize, 0), cudaErrorUnknown,
               "mapping a registration whose texture was deleted and its name reused");
    else
        printf("GL did not reuse the deleted name %u (got %u): that case is not reachable here\n", tex_reuse,
               tex_again);
    CHECK(cudaGraphicsUnregisterResource(r_resize) == cudaSuccess, "unregister the stale one");
    CHECK(cudaGraphicsGLRegisterImage(&r_resize, tex_again, GL_TEXTURE_2D, sls) == cudaSuccess &&
              cudaGraphicsMapResources(1, &r_resize, 0) == cudaSuccess &&
              cudaGraphicsUnmapResources(1, &r_resize, 0) == cudaSuccess &&
              cudaGraphicsUnregisterResource(r_resize) == cudaSuccess,
          "registered again, it maps");

    /* GL_R32UI ids through cudaMemcpy2DFromArrayAsync, as cuda/interop.cu copies them */
    std::vector<uint32_t> ids(W * H);
    for (int i = 0; i < W * H; i++)
        ids[i] = i == 3 ? 0xffffffffu : (uint32_t)(i * 2654435761u);
    GLuint tex_ids = make_texture(GL_R32UI, W, H, GL_RED_INTEGER, GL_UNSIGNED_INT, ids.data());
    cudaGraphicsResource_t r_ids = NULL;
    uint32_t *d_ids = NULL;
    CHECK(cudaGraphicsGLRegisterImage(&r_ids, tex_ids, GL_TEXTURE_2D, ro) == cudaSuccess &&
              cudaMalloc((void **)&d_ids, W * H * sizeof(uint32_t)) == cudaSuccess &&
              cudaMemset(d_ids, 0, W * H * sizeof(uint32_t)) == cudaSuccess,
          "register the ids texture");
    cudaArray_t a_ids = NULL;
    CHECK(cudaGraphicsMapResources(1, &r_ids, st) == cudaSuccess &&
              cudaGraphicsSubResourceGetMappedArray(&a_ids, r_ids, 0, 0) == cudaSuccess &&
              cudaArrayGetInfo(&d, &e, &flags, a_ids) == cudaSuccess && d.x == 32 &&
              d.f == cudaChannelFormatKindUnsigned,
          "ids array: 32-bit unsigned");
    const size_t row = W * sizeof(uint32_t);
    CHECK(expect(cudaMemcpy2DFromArrayAsync(d_ids, row, a_ids, 0, 0, row, H, cudaMemcpyDeviceToDevice, st),
                 cudaSuccess, "ids into device memory"),
          "queue the ids copy");
    /* the unmap on st runs the queued copy first: the copy reads the texels, not the poison */
    CHECK(expect(cudaGraphicsUnmapResources(1, &r_ids, st), cudaSuccess, "unmap ids"), "unmap ids");
    std::vector<uint32_t> ids_got(W * H, 0);
    CHECK(cudaMemcpy(ids_got.data(), d_ids, row * H, cudaMemcpyDeviceToHost) == cudaSuccess &&
              !memcmp(ids_got.data(), ids.data(), row * H),
          "device copy of the ids equals the GL texels (id 3 = 0x%x, want 0xffffffff)", ids_got[3]);
    /* a pageable host destination is written before the call returns; a sub-rectangle with a pitch */
    std::vector<uint32_t> part(2 * 8, 7u);
    CHECK(
        cudaGraphicsMapResources(1, &r_ids, st) == cudaSuccess &&
            cudaGraphicsSubResourceGetMappedArray(&a_ids, r_ids, 0, 0) == cudaSuccess &&
            expect(cudaMemcpy2DFromArrayAsync(part.data(), 8 * sizeof(uint32_t), a_ids, 4 * sizeof(uint32_t),
                                              2, 3 * sizeof(uint32_t), 2, cudaMemcpyDeviceToHost, st),
                   cudaSuccess, "ids into host memory"),
        "host copy");
    CHECK(part[0] == ids[2 * W + 4] && part[2] == ids[2 * W + 6] && part[8] == ids[3 * W + 4] &&
              part[3] == 7u,
          "host copy of a 3x2 rectangle at (4,2): got %u %u %u, pad %u", part[0], part[2], part[8], part[3]);
    /* bad copies are refused */
    expect(cudaMemcpy2DFromArrayAsync(d_ids, row, a_ids, 4, 0, row, H, cudaMemcpyDeviceToDevice, st),
           cudaErrorInvalidValue, "a row past the array's width");
    expect(cudaMemcpy2DFromArrayAsync(d_ids, row, a_ids, 0, 1, row, H, cudaMemcpyDeviceToDevice, st),
           cudaErrorInvalidValue, "rows past the array's height");
    expect(cudaMemcpy2DFromArrayAsync(d_ids, row - 4, a_ids, 0, 0, row, H, cudaMemcpyDeviceToDevice, st),
           cudaErrorInvalidValue, "a pitch shorter than the row");
    expect(cudaMemcpy2DFromArrayAsync(d_ids + 1, row, a_ids, 0, 0, row, H, cudaMemcpyDeviceToDevice, st),
           cudaErrorInvalidValue, "a destination past its allocation");
    expect(cudaMemcpy2DFromArrayAsync(part.data(), row, a_ids, 0, 0, 4, 1, cudaMemcpyDeviceToDevice, st),
           cudaErrorInvalidValue, "DeviceToDevice into host memory");
    CHECK(cudaGraphicsUnmapResources(1, &r_ids, st) == cudaSuccess &&
              cudaGraphicsUnregisterResource(r_ids) == cudaSuccess && cudaFree(d_ids) == cudaSuccess,
          "ids cleanup");
    glDeleteTextures(1, &tex_ids);

    /* unregistering a mapped resource drops it (no write-back) */
    CHECK(cudaGraphicsMapResources(1, &r_mask, 0) == cudaSuccess &&
              cudaGraphicsUnregisterResource(r_mask) == cudaSuccess,
          "unregister while mapped");
    CHECK(cudaGraphicsUnregisterResource(r_depth) == cudaSuccess, "unregister depth");
    CHECK(glGetError() == GL_NO_ERROR, "no GL error left behind");
    CHECK(cudaFree(d_out) == cudaSuccess && cudaStreamDestroy(st) == cudaSuccess, "cleanup");

    gl_context_shutdown(&ctx);
    count = 7;
    expect(cudaGLGetDevices(&count, &dev, 1, cudaGLDeviceListAll), cudaErrorNoDevice,
           "no current GL context");
    CHECK(count == 0, "no device without a context");
    return test_done();
}
