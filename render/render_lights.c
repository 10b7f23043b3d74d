/* render_lights.c — several lights (view.h light_set): one IZB pass and one mask per light, shaded
 * as a sum. Light 0 keeps the one-light path and its texture (tex_mask: CUDA's interop registers
 * it, and a one-light frame stays what it was, bit for bit); lights 1.. go through host memory (the
 * depth pass read back once for all of them) into the layers of one GL_R8 2D array texture.
 *
 * Why an array of bytes and not packed bits: a mask texel is a byte already (255 lit; soft shadows
 * and PCF give fractions that bits would lose), the shading pass reads each light with one
 * texelFetch, and a shadow-map mask is copied into a layer as it is (glCopyImageSubData). The array
 * is made when the light count or the size changes (a key press, a resize), never per frame, and
 * is 1x1x1 while there is one light: a one-light run costs no memory for it. */
#include "render_internal.h"

#include "izb_area.h"

#include <stdio.h>
#include <string.h>

void render_lights_free(render *r)
{
    glDeleteTextures(1, &r->tex_masks);
    r->tex_masks = 0;
    r->masks_w = r->masks_h = r->masks_layers = 0;
}

bool render_lights_targets(render *r, int count, char *err, size_t err_size)
{
    const int layers = count > 1 ? count - 1 : 0;
    const int w = layers ? r->width : 1, h = layers ? r->height : 1;
    if (r->tex_masks && r->masks_w == w && r->masks_h == h && r->masks_layers == layers) return true;
    render_lights_free(r);
    while (glGetError() != GL_NO_ERROR) {
    }
    glCreateTextures(GL_TEXTURE_2D_ARRAY, 1, &r->tex_masks);
    glTextureStorage3D(r->tex_masks, 1, GL_R8, w, h, layers ? layers : 1);
    glTextureParameteri(r->tex_masks, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(r->tex_masks, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    if (glGetError() != GL_NO_ERROR) {
        snprintf(err, err_size, "render: masks of %d lights at %dx%d: out of memory", count, r->width, r->height);
        render_lights_free(r);
        return false;
    }
    r->masks_w = w, r->masks_h = h, r->masks_layers = layers;
    static const uint8_t lit = 255;
    glClearTexImage(r->tex_masks, 0, GL_RED, GL_UNSIGNED_BYTE, &lit);
    return true;
}

void render_fill_light_mask(render *r, int which, uint8_t value)
{
    if (which == 0) {
        render_fill_mask(r, value);
        return;
    }
    if (which < 1 || which > r->masks_layers) return;
    glClearTexSubImage(r->tex_masks, 0, 0, 0, which - 1, r->width, r->height, 1, GL_RED, GL_UNSIGNED_BYTE, &value);
}

void render_read_light_mask(render *r, int which, uint8_t *mask)
{
    if (which == 0) {
        render_read_mask(r, mask);
        return;
    }
    const size_t pixels = (size_t)r->width * (size_t)r->height;
    if (which < 1 || which > r->masks_layers) {
        memset(mask, 0, pixels);
        return;
    }
    glGetTextureSubImage(r->tex_masks, 0, 0, 0, which - 1, r->width, r->height, 1, GL_RED, GL_UNSIGNED_BYTE,
                         (GLsizei)pixels, mask);
}

/* a light's IZB numbers added to the frame's (the times and counts of every light's pass) */
static void add_light_stats(izb_stats *sum, const izb_stats *l)
{
    for (int k = 0; k < IZB_STAGE_COUNT; k++) sum->stage_ms[k] += l->stage_ms[k];
    sum->total_ms += l->total_ms;
    sum->points += l->points;
    sum->tris_after_cull += l->tris_after_cull;
    sum->overflows += l->overflows;
    sum->soft_tests_global += l->soft_tests_global;
    sum->soft_tests += l->soft_tests;
    sum->soft_pairs += l->soft_pairs;
    sum->frame_bytes = l->frame_bytes > sum->frame_bytes ? l->frame_bytes : sum->frame_bytes;
}

bool render_izb_lights(render *r, const camera *c, const light_set *ls, izb_backend *b, const izb_settings *s,
                       int shadow_samples, izb_stats *sum, izb_stats per_light[IZB_MAX_LIGHTS])
{
    izb_stats total = {0};
    bool first = true, ok = true;
    r->transfer_ms = 0.0f;
    /* lights 1.. first, light 0 last: what the backend keeps of its last pass (the points and cells
     * views, the grid and bbox of the frame's numbers) is light 0's, as with one light */
    for (int k = 0; k < ls->count && ok; k++) {
        const int i = (k + 1) % ls->count;
        izb_stats st = {0};
        if (ls->intensity[i] <= 0.0f) { /* adds nothing: no pass; its mask says lit */
            render_fill_light_mask(r, i, 255);
        } else {
            izb_recon fr[LIGHT_CUBE_FACES];
            const int n = izb_frame_make_faces(c, &ls->l[i], r->bounds_min, r->bounds_max, r->width, r->height, fr);
            /* anti-aliased edges: for hard directional, spot and point lights (izb_aa_frame_ok
             * refuses the rest); the keys T and = can make a light an area or soft one while N > 1,
             * and such frames take the path they took before (like a light angle, which spot
             * frames ignore) */
            for (int f = 0; f < n; f++)
                fr[f].shadow_samples = (ls->l[i].type == LIGHT_DIRECTIONAL && !(fr[f].light_angle > 0.0f)) ||
                                               (ls->l[i].type == LIGHT_SPOT && !izb_area_on(&fr[f])) ||
                                               ls->l[i].type == LIGHT_POINT
                                           ? shadow_samples
                                           : 0;
            if (i == 0) { /* the one-light path, unchanged (it sets transfer_ms: keep the others') */
                const float others = r->transfer_ms;
                ok = n == 1 ? render_shade_izb(r, b, fr, s, &st) : render_shade_izb_faces(r, b, fr, n, s, &st);
                r->transfer_ms += others;
            } else {
                ok = render_shade_izb_layer(r, b, fr, n, s, &st, i);
            }
            if (first) { /* one light: the frame's numbers are its own, bit for bit */
                total = st;
                first = false;
            } else {
                add_light_stats(&total, &st);
                total.grid_w = st.grid_w, total.grid_h = st.grid_h, total.bbox = st.bbox;
            }
        }
        if (per_light) per_light[i] = st;
    }
    if (sum) *sum = total;
    return ok;
}
