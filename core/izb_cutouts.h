/* izb_cutouts.h — private to backends and the tests' brute force: the scene's cut-outs
 * (izb_set_cutouts' izb_cutouts) checked and copied into the form the alpha test reads
 * (izb_alpha.h): every image's alpha in one pool, each image an izb_alpha_tex with its integer
 * threshold, per triangle its UVs and texture (IZB_OPAQUE where bad data left it opaque). */
#ifndef IZB_CUTOUTS_H
#define IZB_CUTOUTS_H

#include "izb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct izb_cutout_set {
    uint8_t *pool;          /* every texture's alpha, pool_bytes */
    size_t pool_bytes;
    izb_alpha_tex *textures; /* texture_count */
    int texture_count;
    float *uv;              /* 6 per triangle */
    uint32_t *tex;          /* per triangle: texture index or IZB_OPAQUE */
    int tri_count;
    int cut_count;          /* triangles with a texture: 0 = nothing to alpha-test */
} izb_cutout_set;

/* Check c against a scene of tri_count triangles and copy it into *out (zeroed first). Bad images
 * or indices: one warning line each kind on stderr, prefixed by who, and the triangles opaque.
 * False (with a message, *out empty) when c->tri_count != tri_count, the arrays are NULL, or out of
 * memory. c NULL: *out empty, true. */
bool izb_cutout_set_build(izb_cutout_set *out, const izb_cutouts *c, int tri_count, const char *who);
void izb_cutout_set_free(izb_cutout_set *s);

#ifdef __cplusplus
}
#endif
#endif
