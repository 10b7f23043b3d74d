/* scene_cutout.c — a scene's cut-outs for the IZB and the renderer (scene_cutout.h). */
#include "scene_cutout.h"
#include "scene_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void scene_cutouts_free(scene_cutouts *c)
{
    for (int i = 0; c->alpha && i < c->image_count; i++) free(c->alpha[i]);
    free(c->alpha);
    free(c->images);
    free(c->image_of);
    free(c->uv);
    memset(c, 0, sizeof *c);
}

/* material m's base-colour texture, NULL when it has none (or it could not be read) */
static const scene_texture *texture_of(const scene *s, const scene_material *m)
{
    return m->texture >= 0 && m->texture < s->texture_count && s->textures[m->texture].rgba ? &s->textures[m->texture]
                                                                                            : NULL;
}

bool scene_cutouts_make(const scene *s, scene_cutouts *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    const int nt = s->tri_count, nm = s->material_count;
    out->image_of = malloc((size_t)(nt ? nt : 1) * sizeof *out->image_of);
    out->uv = calloc((size_t)(nt ? nt : 1) * 6, sizeof *out->uv);
    out->images = calloc((size_t)(nm ? nm : 1), sizeof *out->images);
    out->alpha = calloc((size_t)(nm ? nm : 1), sizeof *out->alpha);
    int *image_of_material = malloc((size_t)(nm ? nm : 1) * sizeof *image_of_material);
    if (!out->image_of || !out->uv || !out->images || !out->alpha || !image_of_material) goto oom;
    out->tri_count = nt;
    for (int t = 0; t < nt; t++) out->image_of[t] = IZB_OPAQUE;
    if (s->uv && s->uv_tri_count > 0)
        memcpy(out->uv, s->uv, 6 * (size_t)(s->uv_tri_count < nt ? s->uv_tri_count : nt) * sizeof *out->uv);
    /* one image per cutting material: the base colour's alpha (its texture's alpha channel, flipped
     * to v up, times the factor's alpha, as glTF defines it; the factor alone, as a 1x1 image, where
     * there is no texture) */
    for (int m = 0; m < nm; m++) {
        const scene_material *mat = &s->materials[m];
        image_of_material[m] = -1;
        if (mat->alpha == SCENE_ALPHA_OPAQUE) continue;
        const scene_texture *tx = texture_of(s, mat);
        const scene_texture *own = mat->alpha_texture > 0 && mat->alpha_texture <= s->texture_count &&
                                           s->textures[mat->alpha_texture - 1].rgba
                                       ? &s->textures[mat->alpha_texture - 1]
                                       : NULL;
        /* an OBJ map_d of its own image: its alpha where it has any below 255, else its grey */
        int channel = 3;
        if (own) {
            tx = own, channel = 0;
            for (size_t k = 0; k < (size_t)own->width * (size_t)own->height && channel == 0; k++)
                if (own->rgba[4 * k + 3] < 255) channel = 3;
        }
        const int w = tx ? tx->width : 1, h = tx ? tx->height : 1, i = out->image_count;
        const float factor = mat->base_colour[3] >= 0.0f && mat->base_colour[3] <= 1.0f ? mat->base_colour[3] : 1.0f;
        uint8_t *a = malloc((size_t)w * (size_t)h);
        if (!a) goto oom;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const float t = tx ? tx->rgba[4 * ((size_t)(h - 1 - y) * w + x) + channel] : 255.0f;
                a[(size_t)y * w + x] = (uint8_t)lrintf(t * factor);
            }
        out->alpha[i] = a;
        /* BLEND casts as a mask at 0.5 (scene.h) */
        out->images[i] = (izb_alpha_image){.alpha = a, .width = w, .height = h,
                                           .wrap_u = (izb_wrap)mat->wrap_u, .wrap_v = (izb_wrap)mat->wrap_v,
                                           .cutoff = mat->alpha == SCENE_ALPHA_BLEND ? 0.5f : mat->alpha_cutoff};
        image_of_material[m] = i;
        out->image_count++;
    }
    for (int r = 0; r < s->range_count; r++) {
        const scene_range *g = &s->ranges[r];
        if (g->material < 0 || g->material >= nm || image_of_material[g->material] < 0) continue;
        for (int t = g->first < 0 ? 0 : g->first; t < g->first + g->count && t < nt; t++) {
            out->cut_tris += out->image_of[t] == IZB_OPAQUE;
            out->image_of[t] = (uint32_t)image_of_material[g->material];
        }
    }
    free(image_of_material);
    return true;
oom:
    free(image_of_material);
    scene_cutouts_free(out);
    return scene_errorf(err, err_size, "scene '%s': out of memory for its cut-outs", s->name);
}

izb_cutouts scene_cutouts_view(const scene_cutouts *c)
{
    return (izb_cutouts){.images = c->images, .image_count = c->image_count, .uv = c->uv,
                         .image_of = c->image_of, .tri_count = c->tri_count};
}
