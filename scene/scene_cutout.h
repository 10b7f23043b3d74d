/* scene_cutout.h — a scene's cut-outs (issue 18) as the IZB and the renderer read them: for every
 * masked (or blended) material, the base colour's alpha as 8-bit rows with row 0 at v = 0 (the
 * file's image flipped: GL samples it at (u, 1 - v)): its texture's alpha times the factor's alpha
 * (glTF), rounded, or a 1x1 image of the factor alone where it has no texture; its wrap and
 * cutoff; per triangle the image (IZB_OPAQUE where the material is opaque) and its UVs. Made once
 * per scene; izb_set_cutouts copies what it needs, render_set_cutouts uploads the alpha. */
#ifndef SCENE_CUTOUT_H
#define SCENE_CUTOUT_H

#include "izb.h"
#include "scene.h"

typedef struct scene_cutouts {
    izb_alpha_image *images; /* image_count; images[i].alpha points into alpha[i] */
    uint8_t **alpha;         /* owned, one array per image */
    int image_count;
    uint32_t *image_of; /* tri_count */
    float *uv;          /* 6 * tri_count: the scene's UVs, (0, 0) where it has none */
    int tri_count;
    int cut_tris; /* triangles with an image: 0 = nothing cuts */
} scene_cutouts;

/* Build the cut-outs of s into *out (zeroed first). A scene without masked materials gives
 * cut_tris 0 (true). False on OOM (message in err, *out empty). */
bool scene_cutouts_make(const scene *s, scene_cutouts *out, char *err, size_t err_size);
/* The view izb_set_cutouts takes (pointers into c); NULL-free even when c is empty. */
izb_cutouts scene_cutouts_view(const scene_cutouts *c);
void scene_cutouts_free(scene_cutouts *c);

#endif
