/* interop.cu — registration, mapping and texture/surface objects for the GL path. */
#include "interop.h"

#include <string.h>

#define GL_GLEXT_PROTOTYPES 1 /* glGetTextureImage / glTextureSubImage2D (GL 4.5) from libGL */
#include <cuda_gl_interop.h>
#include <GL/glext.h>

#include "cuda_check.h"

extern "C" void interop_release(interop_texture *t)
{
    if (t->res)
        cudaGraphicsUnregisterResource(t->res); /* also fine when the GL context is gone */
    memset(t, 0, sizeof *t);
}

extern "C" bool interop_bind(interop_texture *t, unsigned name, int width, int height, unsigned generation,
                             bool writable)
{
    if (t->res && t->name == name && t->width == width && t->height == height && t->generation == generation &&
        t->writable == writable)
        return true;
    interop_release(t);
    const unsigned flags = writable ? cudaGraphicsRegisterFlagsSurfaceLoadStore : cudaGraphicsRegisterFlagsReadOnly;
    cudaError_t err = cudaGraphicsGLRegisterImage(&t->res, name, GL_TEXTURE_2D, flags);
    if (err != cudaSuccess) {
        t->res = NULL;
        fprintf(stderr, "izb cuda: cannot register GL texture %u (%dx%d, %s) with CUDA: %s\n", name, width, height,
                writable ? "mask" : "depth", cudaGetErrorString(err));
        cudaGetLastError();
        return false;
    }
    t->name = name;
    t->width = width;
    t->height = height;
    t->generation = generation;
    t->writable = writable;
    return true;
}

/* Tightly packed rows, no pixel buffer bound, around one transfer (an odd-width R8 row is not
 * 4-byte aligned); the caller's state is put back. */
typedef struct pixel_store {
    GLint pack, unpack, pack_buf, unpack_buf;
} pixel_store;
static pixel_store pixel_store_tight(void)
{
    pixel_store p;
    glGetIntegerv(GL_PACK_ALIGNMENT, &p.pack);
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &p.unpack);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &p.pack_buf);
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &p.unpack_buf);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    return p;
}
static bool pixel_store_restore(pixel_store p, const char *what, unsigned tex)
{
    GLenum err = glGetError();
    glPixelStorei(GL_PACK_ALIGNMENT, p.pack);
    glPixelStorei(GL_UNPACK_ALIGNMENT, p.unpack);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)p.pack_buf);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, (GLuint)p.unpack_buf);
    if (err != GL_NO_ERROR)
        fprintf(stderr, "izb cuda: read-back path: %s of GL texture %u failed (GL error 0x%x)\n", what, tex, err);
    return err == GL_NO_ERROR;
}

extern "C" bool interop_read_depth(unsigned depth_tex, int width, int height, float *depth)
{
    while (glGetError() != GL_NO_ERROR) {
    }
    pixel_store p = pixel_store_tight();
    glGetTextureImage(depth_tex, 0, GL_RED, GL_FLOAT, (GLsizei)((size_t)width * (size_t)height * sizeof(float)),
                      depth);
    return pixel_store_restore(p, "glGetTextureImage", depth_tex);
}

extern "C" bool interop_read_ids(unsigned ids_tex, int width, int height, uint32_t *ids)
{
    while (glGetError() != GL_NO_ERROR) {
    }
    pixel_store p = pixel_store_tight();
    glGetTextureImage(ids_tex, 0, GL_RED_INTEGER, GL_UNSIGNED_INT,
                      (GLsizei)((size_t)width * (size_t)height * sizeof(uint32_t)), ids);
    return pixel_store_restore(p, "glGetTextureImage", ids_tex);
}

extern "C" bool interop_write_mask(unsigned mask_tex, int width, int height, const uint8_t *mask)
{
    while (glGetError() != GL_NO_ERROR) {
    }
    pixel_store p = pixel_store_tight();
    glTextureSubImage2D(mask_tex, 0, 0, 0, width, height, GL_RED, GL_UNSIGNED_BYTE, mask);
    return pixel_store_restore(p, "glTextureSubImage2D", mask_tex);
}

/* Review fix: the kernels trust the mapped arrays to be width x height R32F (depth), R8 (mask) and
 * R32UI (ids). A texture of another size or format (e.g. a caller's stale texture name, an RGBA8
 * mask) would make surf2Dwrite trap (a sticky fault: the context is lost) or write the wrong
 * texels; check what was actually mapped against what bind was told. kind < 0: any kind. */
static bool check_array(cudaArray_t a, const interop_texture *t, int bits, int kind, const char *expected)
{
    cudaChannelFormatDesc d;
    cudaExtent e;
    unsigned flags = 0;
    CUDA_TRY(cudaArrayGetInfo(&d, &e, &flags, a));
    if (e.width != (size_t)t->width || e.height != (size_t)t->height || d.x != bits || d.y || d.z || d.w ||
        (kind >= 0 && (int)d.f != kind)) {
        fprintf(
            stderr,
            "izb cuda: GL texture %u is %zux%zu with %d/%d/%d/%d-bit channels (kind %d); expected %dx%d %s\n",
            t->name, e.width, e.height, d.x, d.y, d.z, d.w, (int)d.f, t->width, t->height, expected);
        return false;
    }
    return true;
}

static bool make_objects(interop_texture *depth, interop_texture *mask, cuda_image *img)
{
    cudaArray_t depth_array, mask_array;
    CUDA_TRY(cudaGraphicsSubResourceGetMappedArray(&depth_array, depth->res, 0, 0));
    CUDA_TRY(cudaGraphicsSubResourceGetMappedArray(&mask_array, mask->res, 0, 0));
    if (!check_array(depth_array, depth, 32, cudaChannelFormatKindFloat, "GL_R32F") ||
        !check_array(mask_array, mask, 8, -1, "GL_R8"))
        return false;

    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = depth_array;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint; /* the texel itself: no filtering */
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 0;
    CUDA_TRY(cudaCreateTextureObject(&img->depth_tex, &rd, &td, NULL));

    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = mask_array;
    CUDA_TRY(cudaCreateSurfaceObject(&img->mask_surf, &rd));
    return true;
}

/* The id texture's texels into ids_dst on s (the kernels read plain device memory). */
static bool copy_ids(interop_texture *ids, uint32_t *ids_dst, cudaStream_t s)
{
    cudaArray_t ids_array;
    CUDA_TRY(cudaGraphicsSubResourceGetMappedArray(&ids_array, ids->res, 0, 0));
    if (!check_array(ids_array, ids, 32, cudaChannelFormatKindUnsigned, "GL_R32UI")) return false;
    const size_t row = (size_t)ids->width * sizeof(uint32_t);
    CUDA_TRY(cudaMemcpy2DFromArrayAsync(ids_dst, row, ids_array, 0, 0, row, (size_t)ids->height,
                                        cudaMemcpyDeviceToDevice, s));
    return true;
}

extern "C" bool interop_map(interop_texture *depth, interop_texture *mask, interop_texture *ids,
                            uint32_t *ids_dst, cudaStream_t s, cuda_image *img)
{
    memset(img, 0, sizeof *img);
    img->width = depth->width;
    img->height = depth->height;
    cudaGraphicsResource_t res[3] = {depth->res, mask->res, ids ? ids->res : NULL};
    CUDA_TRY(cudaGraphicsMapResources(ids ? 3 : 2, res, s));
    if (!make_objects(depth, mask, img) || (ids && !copy_ids(ids, ids_dst, s))) {
        interop_unmap(depth, mask, ids, s, img);
        return false;
    }
    return true;
}

extern "C" bool interop_unmap(interop_texture *depth, interop_texture *mask, interop_texture *ids,
                              cudaStream_t s, cuda_image *img)
{
    /* Destroying a texture/surface object is not stream-ordered: no kernel may still use them. An
     * error here is reported, but the unmap below still runs so GL gets its textures back. */
    bool ok = true;
    cudaError_t err = cudaStreamSynchronize(s);
    if (err != cudaSuccess)
        ok = cuda_report(err, "cudaStreamSynchronize(s)", __FILE__, __LINE__);
    if (img->depth_tex)
        cudaDestroyTextureObject(img->depth_tex);
    if (img->mask_surf)
        cudaDestroySurfaceObject(img->mask_surf);
    img->depth_tex = 0;
    img->mask_surf = 0;
    cudaGraphicsResource_t res[3] = {depth->res, mask->res, ids ? ids->res : NULL};
    CUDA_TRY(cudaGraphicsUnmapResources(ids ? 3 : 2, res, s));
    return ok;
}
