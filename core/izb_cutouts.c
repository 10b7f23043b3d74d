/* izb_cutouts.c — izb_set_cutouts' checking and copying (izb_cutouts.h). */
#include "izb_cutouts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void izb_cutout_set_free(izb_cutout_set *s)
{
    free(s->pool);
    free(s->textures);
    free(s->uv);
    free(s->tex);
    memset(s, 0, sizeof *s);
}

/* why image im cannot be used, NULL when it can */
static const char *image_fault(const izb_alpha_image *im)
{
    if (!im->alpha) return "no alpha data";
    if (im->width < 1 || im->height < 1) return "empty";
    if (im->width > IZB_ALPHA_MAX_DIM || im->height > IZB_ALPHA_MAX_DIM) return "larger than the maximum side";
    if ((unsigned)im->wrap_u >= IZB_WRAP_COUNT || (unsigned)im->wrap_v >= IZB_WRAP_COUNT) return "unknown wrap mode";
    return NULL;
}

bool izb_cutout_set_build(izb_cutout_set *out, const izb_cutouts *c, int tri_count, const char *who)
{
    memset(out, 0, sizeof *out);
    if (!c) return true;
    if (c->tri_count != tri_count || tri_count < 0) {
        fprintf(stderr, "%s: cut-outs for %d triangles, the scene has %d: the scene stays opaque\n", who,
                c->tri_count, tri_count);
        return false;
    }
    if (tri_count > 0 && (!c->uv || !c->image_of)) {
        fprintf(stderr, "%s: cut-outs without UVs or image indices: the scene stays opaque\n", who);
        return false;
    }
    const int ni = c->image_count > 0 && c->images ? c->image_count : 0;
    size_t pool = 0;
    bool *usable = calloc((size_t)(ni ? ni : 1), sizeof *usable);
    out->textures = calloc((size_t)(ni ? ni : 1), sizeof *out->textures);
    out->uv = malloc(6 * (size_t)(tri_count ? tri_count : 1) * sizeof *out->uv);
    out->tex = malloc((size_t)(tri_count ? tri_count : 1) * sizeof *out->tex);
    if (!usable || !out->textures || !out->uv || !out->tex) goto oom;
    int bad_images = 0, bad_cutoffs = 0, first_bad = -1;
    const char *why = NULL;
    for (int i = 0; i < ni; i++) {
        const izb_alpha_image *im = &c->images[i];
        const char *f = image_fault(im);
        if (f) {
            if (!bad_images++) first_bad = i, why = f;
            continue;
        }
        usable[i] = true;
        bad_cutoffs += !(im->cutoff >= 0.0f && im->cutoff <= 1.0f);
        out->textures[i] = (izb_alpha_tex){.offset = (uint32_t)pool, .width = im->width, .height = im->height,
                                           .wrap_u = (uint8_t)im->wrap_u, .wrap_v = (uint8_t)im->wrap_v,
                                           .threshold = izb_alpha_threshold(im->cutoff)};
        pool += (size_t)im->width * (size_t)im->height;
        if (pool > UINT32_MAX) { /* offsets are 32-bit: the rest stays opaque */
            usable[i] = false;
            pool -= (size_t)im->width * (size_t)im->height;
            if (!bad_images++) first_bad = i, why = "past 4 GiB of alpha in all";
        }
    }
    if (bad_images)
        fprintf(stderr, "%s: %d cut-out image(s) unusable (image %d: %s): their triangles are opaque\n", who,
                bad_images, first_bad, why);
    if (bad_cutoffs)
        fprintf(stderr, "%s: %d cut-out image(s) with a cutoff outside [0, 1]: clamped (NaN: 0.5)\n", who,
                bad_cutoffs);
    out->pool = malloc(pool ? pool : 1);
    if (!out->pool) goto oom;
    out->pool_bytes = pool;
    for (int i = 0; i < ni; i++)
        if (usable[i])
            memcpy(out->pool + out->textures[i].offset, c->images[i].alpha,
                   (size_t)c->images[i].width * (size_t)c->images[i].height);
    int bad_index = 0;
    for (int t = 0; t < tri_count; t++) {
        const uint32_t k = c->image_of[t];
        const bool ok = k < (uint32_t)ni && usable[k];
        bad_index += k != IZB_OPAQUE && k >= (uint32_t)ni;
        out->tex[t] = ok ? k : IZB_OPAQUE;
        out->cut_count += ok;
    }
    if (bad_index)
        fprintf(stderr, "%s: %d triangle(s) name no cut-out image (of %d): opaque\n", who, bad_index, ni);
    if (tri_count > 0) memcpy(out->uv, c->uv, 6 * (size_t)tri_count * sizeof *out->uv);
    out->texture_count = ni;
    out->tri_count = tri_count;
    free(usable);
    return true;
oom:
    fprintf(stderr, "%s: out of memory for the cut-outs: the scene stays opaque\n", who);
    free(usable);
    izb_cutout_set_free(out);
    return false;
}
