/* interop.h — CUDA–GL interop for the GL path (thesis §3.1.2): the depth pass's GL_R32F colour
 * texture is read through a texture object, the GL_R8 mask texture written through a surface
 * object; no host copies. A texture is registered once per (name, size, generation) and
 * re-registered when any changes (resize); it is mapped and unmapped around every frame. The GL
 * context that owns the textures must be current on the calling thread, on the same device as CUDA.
 * A texture re-specified in place (glTexImage2D on the same name at the same size) must be
 * released with interop_release first: its registration would point at the old storage.
 */
#ifndef IZB_CUDA_INTEROP_H
#define IZB_CUDA_INTEROP_H

#include "cuda_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct interop_texture {
    unsigned name; /* GL texture name; 0 = not registered */
    int width, height;
    unsigned generation; /* the caller's count of texture re-creations (izb_shade_gl) */
    bool writable;                 /* registered for surface load/store (the mask) */
    cudaGraphicsResource_t res;
} interop_texture;

/* Register `name` (GL_TEXTURE_2D, width x height) unless t already holds it: the same name, size
 * and generation (a name deleted and reused at the same size is another texture: the caller
 * changes the generation when it re-creates its textures). writable: the mask
 * (surface load/store); else read-only (depth, ids). */
bool interop_bind(interop_texture *t, unsigned name, int width, int height, unsigned generation, bool writable);
void interop_release(interop_texture *t);

/* Read-back path for a GL context CUDA cannot register with (on another GPU, or Mesa): depth_tex
 * (GL_R32F) into depth, mask into mask_tex (GL_R8), width x height, rows packed. The caller's
 * pixel-store state is kept. False with a message on a GL error. */
bool interop_read_depth(unsigned depth_tex, int width, int height, float *depth);
/* ids_tex (GL_R32UI primitive ids) into ids, as interop_read_depth */
bool interop_read_ids(unsigned ids_tex, int width, int height, uint32_t *ids);
bool interop_write_mask(unsigned mask_tex, int width, int height, const uint8_t *mask);

/* Map depth and mask on stream s and describe them as img (texture + surface objects). ids (NULL:
 * none): the GL_R32UI primitive-id texture, mapped too and copied on s into ids_dst (width*height
 * uint32 device memory, rows packed), for the raster kernels' own-triangle rule. On failure nothing
 * stays mapped. */
bool interop_map(interop_texture *depth, interop_texture *mask, interop_texture *ids, uint32_t *ids_dst,
                 cudaStream_t s, cuda_image *img);
/* Wait for s, destroy img's objects and unmap (GL may use the textures again afterwards); ids as
 * given to interop_map. */
bool interop_unmap(interop_texture *depth, interop_texture *mask, interop_texture *ids, cudaStream_t s,
                   cuda_image *img);

#ifdef __cplusplus
}
#endif
#endif
