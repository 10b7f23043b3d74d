/* simt_gl_interop.cpp — CUDA–GL interop of the emulated runtime, on any GL 4.5 context (Mesa
 * llvmpipe in CI). A registered GL_TEXTURE_2D owns one emulated cudaArray of its size and format
 * for the registration's lifetime:
 *  - map: the texture's level 0 is read into the array with glGetTextureImage (GL finishes its
 *    own work first, as CUDA's map orders GL work before the stream's); a WriteDiscard image is not
 *    read (its contents are undefined in CUDA: the array keeps the poison byte);
 *  - unmap: the stream is flushed (the deferred kernels that write the array run), then the array
 *    goes back with glTextureSubImage2D unless the image was registered ReadOnly, and the array is
 *    poisoned again, so a texture/surface object kept past the unmap reads poison, not stale texels.
 * The rules and errors are CUDA's (CUDA Runtime API, "OpenGL Interoperability" and "Graphics
 * Interoperability"): unknown texture name, wrong target or an unsupported internal format ->
 * cudaErrorInvalidValue; mapping a mapped resource, unmapping an unmapped one, or asking for the
 * array of an unmapped one -> cudaErrorUnknown; a handle that is not registered ->
 * cudaErrorInvalidResourceHandle. A surface object can be made on the array only when the image
 * was registered with cudaGraphicsRegisterFlagsSurfaceLoadStore.
 * Emulator-only checks (CUDA leaves these undefined): a texture re-specified at another size or
 * format since registration, or deleted with its name reused by a new texture (see texture_label),
 * fails the map with cudaErrorUnknown and names the stale registration;
 * formats CUDA accepts with 2 or 4 channels are refused with cudaErrorNotSupported (the emulated
 * arrays are 1-channel). GL is called through libGL's exported entry points, so the caller's GL
 * loader (GLAD) is not involved; the caller's GL context must be current, as in CUDA. */
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <mutex>
#include <unordered_set>

#include <cuda_gl_interop.h>

#include "simt_runtime_internal.h"

struct cudaGraphicsResource {
    GLuint name;
    unsigned flags;         /* cudaGraphicsRegisterFlags */
    GLenum internal_format; /* as registered */
    GLenum format, type;    /* glGetTextureImage / glTextureSubImage2D pixel format and type */
    cudaArray *array;       /* width x height, owned for the registration's lifetime */
    bool mapped;
    char label[64]; /* the texture object's GL label at registration (see texture_label) */
};

namespace
{

std::mutex registry_lock;
std::unordered_set<cudaGraphicsResource *> registry;

bool registered(cudaGraphicsResource *r)
{
    std::lock_guard<std::mutex> g(registry_lock);
    return r && registry.count(r);
}

/* GL's answer for a sized 1- (emulated), 2- or 4-channel (CUDA accepts, not emulated) format. */
struct gl_format {
    GLenum internal, format, type;
    int bits;
    cudaChannelFormatKind kind;
    int channels;
};
const gl_format formats[] = {
    {GL_R8, GL_RED, GL_UNSIGNED_BYTE, 8, cudaChannelFormatKindUnsigned, 1},
    {GL_R16, GL_RED, GL_UNSIGNED_SHORT, 16, cudaChannelFormatKindUnsigned, 1},
    {GL_R16F, GL_RED, GL_HALF_FLOAT, 16, cudaChannelFormatKindFloat, 1},
    {GL_R32F, GL_RED, GL_FLOAT, 32, cudaChannelFormatKindFloat, 1},
    {GL_R8UI, GL_RED_INTEGER, GL_UNSIGNED_BYTE, 8, cudaChannelFormatKindUnsigned, 1},
    {GL_R16UI, GL_RED_INTEGER, GL_UNSIGNED_SHORT, 16, cudaChannelFormatKindUnsigned, 1},
    {GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, 32, cudaChannelFormatKindUnsigned, 1},
    {GL_R8I, GL_RED_INTEGER, GL_BYTE, 8, cudaChannelFormatKindSigned, 1},
    {GL_R16I, GL_RED_INTEGER, GL_SHORT, 16, cudaChannelFormatKindSigned, 1},
    {GL_R32I, GL_RED_INTEGER, GL_INT, 32, cudaChannelFormatKindSigned, 1},
    {GL_RG8, 0, 0, 8, cudaChannelFormatKindUnsigned, 2},
    {GL_RG16, 0, 0, 16, cudaChannelFormatKindUnsigned, 2},
    {GL_RG16F, 0, 0, 16, cudaChannelFormatKindFloat, 2},
    {GL_RG32F, 0, 0, 32, cudaChannelFormatKindFloat, 2},
    {GL_RGBA8, 0, 0, 8, cudaChannelFormatKindUnsigned, 4},
    {GL_RGBA16, 0, 0, 16, cudaChannelFormatKindUnsigned, 4},
    {GL_RGBA16F, 0, 0, 16, cudaChannelFormatKindFloat, 4},
    {GL_RGBA32F, 0, 0, 32, cudaChannelFormatKindFloat, 4},
    {GL_RGBA8UI, 0, 0, 8, cudaChannelFormatKindUnsigned, 4},
    {GL_RGBA32UI, 0, 0, 32, cudaChannelFormatKindUnsigned, 4},
};

const gl_format *find_format(GLenum internal)
{
    for (const gl_format &f : formats)
        if (f.internal == internal) return &f;
    return nullptr;
}

bool gl_context_current()
{
    return glGetString(GL_VERSION) != nullptr;
}

/* Level 0's size and internal format of texture `name`. */
void texture_level0(GLuint name, GLint *w, GLint *h, GLint *internal)
{
    *w = *h = *internal = 0;
    glGetTextureLevelParameteriv(name, 0, GL_TEXTURE_WIDTH, w);
    glGetTextureLevelParameteriv(name, 0, GL_TEXTURE_HEIGHT, h);
    glGetTextureLevelParameteriv(name, 0, GL_TEXTURE_INTERNAL_FORMAT, internal);
}

/* Tightly packed rows and no pixel buffer bound while the emulator moves texels, restored after:
 * the caller's pixel-store state is its own (an odd-width R8 texture would otherwise get padded
 * rows with the default alignment of 4). */
struct pixel_store_guard {
    GLint pack_align, unpack_align, pack_row, unpack_row, pack_buf, unpack_buf;
    pixel_store_guard()
    {
        glGetIntegerv(GL_PACK_ALIGNMENT, &pack_align);
        glGetIntegerv(GL_UNPACK_ALIGNMENT, &unpack_align);
        glGetIntegerv(GL_PACK_ROW_LENGTH, &pack_row);
        glGetIntegerv(GL_UNPACK_ROW_LENGTH, &unpack_row);
        glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buf);
        glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpack_buf);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glPixelStorei(GL_PACK_ROW_LENGTH, 0);
        glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    }
    ~pixel_store_guard()
    {
        glPixelStorei(GL_PACK_ALIGNMENT, pack_align);
        glPixelStorei(GL_UNPACK_ALIGNMENT, unpack_align);
        glPixelStorei(GL_PACK_ROW_LENGTH, pack_row);
        glPixelStorei(GL_UNPACK_ROW_LENGTH, unpack_row);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)pack_buf);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, (GLuint)unpack_buf);
    }
};

/* GL has no identity for a texture object but its name, and a deleted name is handed out again by
 * the next glCreateTextures: a registration kept across glDeleteTextures would then map a new
 * texture of the same size (on a GPU: the dead storage). To see that, an unlabelled texture gets
 * the label "simt interop N" at registration; a texture whose label differs at map is another
 * object under the same name. (An application's own label is kept and compared as it is.) */
void texture_label(GLuint name, char *label, size_t size, bool set_if_empty)
{
    static std::atomic<unsigned> next{1};
    GLsizei len = 0;
    label[0] = 0;
    glGetObjectLabel(GL_TEXTURE, name, (GLsizei)size, &len, label);
    if (len == 0 && set_if_empty) {
        snprintf(label, size, "simt interop %u", next.fetch_add(1));
        glObjectLabel(GL_TEXTURE, name, -1, label);
    }
}

size_t array_bytes(const cudaArray *a)
{
    return a->width * a->height * a->elem_bytes;
}

/* Check a list of resources for map/unmap: all registered, no duplicates, each mapped == want. */
cudaError_t check_list(const char *call, int count, cudaGraphicsResource_t *res, bool want_mapped)
{
    if (count <= 0 || !res) {
        simt::complain(call, "count %d, resources %p", count, (void *)res);
        return cudaErrorInvalidValue;
    }
    for (int i = 0; i < count; i++) {
        if (!registered(res[i])) {
            simt::complain(call, "resource %d (%p) is not a registered graphics resource", i, (void *)res[i]);
            return cudaErrorInvalidResourceHandle;
        }
        for (int j = 0; j < i; j++)
            if (res[j] == res[i]) {
                simt::complain(call, "resource %d is listed twice", i);
                return cudaErrorUnknown;
            }
        if (res[i]->mapped != want_mapped) {
            simt::complain(call, "GL texture %u is %s", res[i]->name,
                           want_mapped ? "not mapped" : "already mapped");
            return cudaErrorUnknown; /* CUDA's documented error for both */
        }
    }
    return cudaSuccess;
}

/* SIMT_INTEROP_FAULT=N: the Nth cudaGraphicsUnmapResources finds the context lost, as after a
 * kernel fault on a GPU (a sticky cudaErrorLaunchFailure; the resources stay mapped). For the
 * tests of what the program does after a sticky error inside a GL frame. */
bool injected_fault()
{
    static const long at = [] {
        const char *e = getenv("SIMT_INTEROP_FAULT");
        return e ? strtol(e, nullptr, 10) : 0L;
    }();
    static std::atomic<long> calls{0};
    return at > 0 && calls.fetch_add(1) + 1 == at;
}

/* SIMT_GL_FOREIGN=1: the current GL context lives on a device CUDA does not drive (Mesa, another
 * vendor's GPU): cudaGLGetDevices finds no CUDA device and registration fails. */
bool gl_foreign()
{
    static const bool on = [] {
        const char *e = getenv("SIMT_GL_FOREIGN");
        return e && *e && strcmp(e, "0") != 0;
    }();
    return on;
}

} // namespace

extern "C" {

cudaError_t cudaGLGetDevices(unsigned *count, int *devices, unsigned max_devices, cudaGLDeviceList list)
{
    if (!count || (max_devices && !devices) || list < cudaGLDeviceListAll ||
        list > cudaGLDeviceListNextFrame) {
        simt::complain("cudaGLGetDevices", "bad arguments");
        return simt::set_error(cudaErrorInvalidValue);
    }
    *count = 0;
    /* No complaint: the backend asks this before every device choice, GL context or not. */
    if (!gl_context_current() || gl_foreign()) return simt::set_error(cudaErrorNoDevice);
    /* The emulated device 0 stands behind whatever GL context is current (Mesa included). */
    *count = 1;
    if (max_devices >= 1) devices[0] = 0;
    return simt::set_error(cudaSuccess);
}

cudaError_t cudaGraphicsGLRegisterImage(cudaGraphicsResource_t *res, GLuint image, GLenum target,
                                        unsigned flags)
{
    const char *call = "cudaGraphicsGLRegisterImage";
    if (cudaError_t e = simt::sticky_error()) return e;
    if (!res ||
        flags &
            ~(unsigned)(cudaGraphicsRegisterFlagsReadOnly | cudaGraphicsRegisterFlagsWriteDiscard |
                        cudaGraphicsRegisterFlagsSurfaceLoadStore | cudaGraphicsRegisterFlagsTextureGather) ||
        (flags & cudaGraphicsRegisterFlagsReadOnly && flags & cudaGraphicsRegisterFlagsWriteDiscard)) {
        simt::complain(call, "bad arguments (flags 0x%x)", flags);
        return simt::set_error(cudaErrorInvalidValue);
    }
    *res = nullptr;
    if (!gl_context_current() || gl_foreign()) {
        simt::complain(call, gl_foreign() ? "SIMT_GL_FOREIGN: the GL context is on no CUDA device"
                                          : "no GL context is current on this thread");
        return simt::set_error(cudaErrorUnknown);
    }
    while (glGetError() != GL_NO_ERROR) {
    } /* the caller's earlier errors are not ours */
    if (target != GL_TEXTURE_2D) {
        simt::complain(call, "target 0x%x: the emulator registers GL_TEXTURE_2D only", target);
        return simt::set_error(target == GL_TEXTURE_RECTANGLE || target == GL_TEXTURE_3D ||
                                       target == GL_TEXTURE_2D_ARRAY || target == GL_TEXTURE_CUBE_MAP ||
                                       target == GL_RENDERBUFFER
                                   ? cudaErrorNotSupported
                                   : cudaErrorInvalidValue);
    }
    GLint gl_target = 0;
    if (image == 0 || !glIsTexture(image) ||
        (glGetTextureParameteriv(image, GL_TEXTURE_TARGET, &gl_target), (GLenum)gl_target != target)) {
        while (glGetError() != GL_NO_ERROR) {
        }
        simt::complain(call, "GL name %u is not a GL_TEXTURE_2D texture object", image);
        return simt::set_error(cudaErrorInvalidValue);
    }
    GLint w, h, internal;
    texture_level0(image, &w, &h, &internal);
    const gl_format *f = find_format((GLenum)internal);
    if (!f) {
        simt::complain(call, "GL texture %u: internal format 0x%x is not one CUDA can register", image,
                       internal);
        return simt::set_error(cudaErrorInvalidValue);
    }
    if (f->channels != 1) {
        simt::complain(call, "GL texture %u: %d-channel format 0x%x is valid in CUDA but not emulated", image,
                       f->channels, internal);
        return simt::set_error(cudaErrorNotSupported);
    }
    if (w <= 0 || h <= 0) {
        simt::complain(call, "GL texture %u has no level-0 storage", image);
        return simt::set_error(cudaErrorInvalidValue);
    }
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc(f->bits, 0, 0, 0, f->kind);
    const unsigned array_flags =
        flags & cudaGraphicsRegisterFlagsSurfaceLoadStore ? cudaArraySurfaceLoadStore : 0;
    cudaArray *a = simt::array_create(&desc, (size_t)w, (size_t)h, array_flags);
    if (!a) return simt::set_error(cudaErrorInvalidValue);
    cudaGraphicsResource *r =
        new cudaGraphicsResource{image, flags, (GLenum)internal, f->format, f->type, a, false, {}};
    texture_label(image, r->label, sizeof r->label, true);
    a->owner = r;
    {
        std::lock_guard<std::mutex> g(registry_lock);
        registry.insert(r);
    }
    *res = r;
    return simt::set_error(cudaSuccess);
}

cudaError_t cudaGraphicsGLRegisterBuffer(cudaGraphicsResource_t *res, GLuint buffer, unsigned flags)
{
    (void)buffer, (void)flags;
    if (res) *res = nullptr;
    simt::complain("cudaGraphicsGLRegisterBuffer",
                   "buffer objects are not emulated (the project maps images only)");
    return simt::set_error(cudaErrorNotSupported);
}

cudaError_t cudaGraphicsUnregisterResource(cudaGraphicsResource_t res)
{
    if (!registered(res)) {
        simt::complain("cudaGraphicsUnregisterResource", "%p is not a registered graphics resource",
                       (void *)res);
        return simt::set_error(cudaErrorInvalidResourceHandle);
    }
    {
        std::lock_guard<std::mutex> g(registry_lock);
        registry.erase(res);
    }
    /* A mapped resource is dropped without writing back (CUDA does not define the contents GL sees;
     * the caller may have no GL context any more). */
    res->array->owner = nullptr;
    simt::array_destroy(res->array);
    delete res;
    return simt::set_error(cudaSuccess);
}

cudaError_t cudaGraphicsMapResources(int count, cudaGraphicsResource_t *res, cudaStream_t s)
{
    (void)s; /* nothing is queued: kernels queued on s after the map run later, on what is read now */
    const char *call = "cudaGraphicsMapResources";
    if (cudaError_t e = simt::sticky_error()) return e;
    if (cudaError_t e = check_list(call, count, res, false)) return simt::set_error(e);
    if (!gl_context_current()) {
        simt::complain(call, "no GL context is current on this thread");
        return simt::set_error(cudaErrorUnknown);
    }
    for (int i = 0; i < count; i++) {
        cudaGraphicsResource *r = res[i];
        GLint w, h, internal;
        texture_level0(r->name, &w, &h, &internal);
        if (!glIsTexture(r->name) || (GLenum)internal != r->internal_format || (size_t)w != r->array->width ||
            (size_t)h != r->array->height) {
            simt::complain(
                call,
                "GL texture %u is now %dx%d format 0x%x but was registered as %zux%zu format 0x%x: "
                "stale registration (re-register after re-specifying or deleting a texture)",
                r->name, w, h, internal, r->array->width, r->array->height, r->internal_format);
            return simt::set_error(cudaErrorUnknown);
        }
        char label[sizeof r->label];
        texture_label(r->name, label, sizeof label, false);
        if (strcmp(label, r->label) != 0) {
            simt::complain(call,
                           "GL texture %u is another texture object than the one registered (label '%s', was "
                           "'%s'): it was deleted and its name reused; stale registration (unregister before "
                           "deleting a registered texture)",
                           r->name, label, r->label);
            return simt::set_error(cudaErrorUnknown);
        }
    }
    pixel_store_guard guard;
    while (glGetError() != GL_NO_ERROR) {
    }
    for (int i = 0; i < count; i++) {
        cudaGraphicsResource *r = res[i];
        if (!(r->flags & cudaGraphicsRegisterFlagsWriteDiscard))
            glGetTextureImage(r->name, 0, r->format, r->type, (GLsizei)array_bytes(r->array), r->array->data);
        r->mapped = true;
    }
    if (GLenum e = glGetError()) {
        simt::complain(call, "glGetTextureImage failed (GL error 0x%x)", e);
        for (int i = 0; i < count; i++)
            res[i]->mapped = false;
        return simt::set_error(cudaErrorUnknown);
    }
    return simt::set_error(cudaSuccess);
}

cudaError_t cudaGraphicsUnmapResources(int count, cudaGraphicsResource_t *res, cudaStream_t s)
{
    const char *call = "cudaGraphicsUnmapResources";
    if (cudaError_t e = check_list(call, count, res, true)) return simt::set_error(e);
    simt::stream_flush(s); /* the kernels writing the arrays run now, before GL gets the texels */
    if (injected_fault()) {
        simt::complain(call, "SIMT_INTEROP_FAULT: the context is lost (injected sticky error)");
        simt::set_sticky(cudaErrorLaunchFailure);
    }
    if (cudaError_t e = simt::sticky_error())
        return e; /* the context is lost: the textures stay mapped, GL gets nothing back */
    if (!gl_context_current()) {
        simt::complain(call, "no GL context is current on this thread");
        return simt::set_error(cudaErrorUnknown);
    }
    pixel_store_guard guard;
    while (glGetError() != GL_NO_ERROR) {
    }
    for (int i = 0; i < count; i++) {
        cudaGraphicsResource *r = res[i];
        cudaArray *a = r->array;
        if (!(r->flags & cudaGraphicsRegisterFlagsReadOnly))
            glTextureSubImage2D(r->name, 0, 0, 0, (GLsizei)a->width, (GLsizei)a->height, r->format, r->type,
                                a->data);
        memset(a->data, simt::poison_byte(), array_bytes(a)); /* objects kept past the unmap read poison */
        r->mapped = false;
    }
    if (GLenum e = glGetError()) {
        simt::complain(call, "glTextureSubImage2D failed (GL error 0x%x)", e);
        return simt::set_error(cudaErrorUnknown);
    }
    return simt::set_error(cudaSuccess);
}

cudaError_t cudaGraphicsSubResourceGetMappedArray(cudaArray_t *array, cudaGraphicsResource_t res,
                                                  unsigned index, unsigned level)
{
    const char *call = "cudaGraphicsSubResourceGetMappedArray";
    if (array) *array = nullptr;
    if (!registered(res)) {
        simt::complain(call, "%p is not a registered graphics resource", (void *)res);
        return simt::set_error(cudaErrorInvalidResourceHandle);
    }
    if (!array || index != 0 || level != 0) {
        simt::complain(call, "array index %u, mip level %u: a GL_TEXTURE_2D has index 0 (level 0 emulated)",
                       index, level);
        return simt::set_error(cudaErrorInvalidValue);
    }
    if (!res->mapped) {
        simt::complain(call, "GL texture %u is not mapped", res->name);
        return simt::set_error(cudaErrorUnknown);
    }
    *array = res->array;
    return simt::set_error(cudaSuccess);
}
}
