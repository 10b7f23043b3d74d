/* scene_foliage.c — "foliage" (issue 18): alpha-tested cards, the case the IZB's alpha test is for.
 * N leaf cards (open quads with a generated leaf-shaped alpha, clamped) gathered in bushes, and a
 * fence of three panels with round holes (a repeating texture) over a ground. A leaf card casts a
 * leaf, not a rectangle, only where the alpha test runs. The geometry is built by
 * scene_build_foliage (ground, fence panels, cards: 2 triangles each, in that order) and its
 * materials by scene_dress_foliage, which knows the same order: every card has the UVs of the
 * unit square, every panel the UVs of its tiles. Textures are generated here, at start. */
#include "scene_builtin.h"
#include "scene_rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb_alpha.h"

enum { PANELS = 3, LEAF_SIDE = 64, FENCE_SIDE = 32 };

static const float PI = 3.14159265358979f;

/* the fence panels: centre x, z, yaw (degrees), width, height; one texture tile is TILE wide */
static const float PANEL[PANELS][5] = {{0.0f, -5.0f, 0.0f, 12.0f, 1.6f},
                                       {-5.6f, 0.0f, 90.0f, 9.0f, 1.2f},
                                       {5.6f, 0.5f, -90.0f, 8.0f, 1.4f}};
static const float TILE = 0.4f;

/* the unit card: x in [-0.5, 0.5], y in [0, 1], facing +z; two triangles (0,1,2), (0,2,3) */
static void card_mesh(imesh *m)
{
    const int a = imesh_vert(m, -0.5f, 0, 0, 0, 0, 1), b = imesh_vert(m, 0.5f, 0, 0, 0, 0, 1);
    const int c = imesh_vert(m, 0.5f, 1, 0, 0, 0, 1), d = imesh_vert(m, -0.5f, 1, 0, 0, 0, 1);
    imesh_tri(m, a, b, c);
    imesh_tri(m, a, c, d);
}
/* the card's UVs, triangle by triangle as card_mesh makes them, times (su, sv) */
static void card_uv(float *uv, float su, float sv)
{
    const float q[12] = {0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1};
    for (int k = 0; k < 12; k++) uv[k] = q[k] * (k % 2 ? sv : su);
}

/* a random rotation (unit quaternion) as the columns of m, scaled by s */
static void random_rotation(rng *r, float s, float m[9])
{
    float q[4], n;
    do {
        n = 0;
        for (int k = 0; k < 4; k++) q[k] = rng_range(r, -1, 1), n += q[k] * q[k];
    } while (n > 1.0f || n < 1e-3f);
    n = sqrtf(n);
    const float w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    const float R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
                        2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                        2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)};
    for (int k = 0; k < 9; k++) m[k] = s * R[k];
}

void scene_build_foliage(soup *s, long n, view_desc *v)
{
    const long cards = n < 1 ? 1 : n;
    imesh card = {0};
    card_mesh(&card);
    soup_ground(s, -7.0f, -7.0f, 7.0f, 7.0f, 0.0f);
    for (int p = 0; p < PANELS; p++) {
        const float a = PANEL[p][2] * PI / 180.0f, w = PANEL[p][3], h = PANEL[p][4];
        const xform t = {.m = {w * cosf(a), 0, -w * sinf(a), 0, h, 0, sinf(a), 0, cosf(a)},
                         .t = {PANEL[p][0], 0.0f, PANEL[p][1]}};
        soup_emit(s, &card, &t);
    }
    /* bushes of ~80 cards; a card's size shrinks as the count grows so that 1M cards still fit */
    const long bushes = cards / 80 < 1 ? 1 : cards / 80 > 400 ? 400 : cards / 80;
    const float size = 0.28f * fminf(fmaxf(cbrtf(4000.0f / (float)cards), 0.12f), 1.5f);
    const imesh **mesh = malloc((size_t)cards * sizeof *mesh);
    xform *t = malloc((size_t)cards * sizeof *t);
    rng r = {1818};
    float (*centre)[4] = malloc((size_t)bushes * sizeof *centre);
    for (long b = 0; centre && b < bushes; b++) {
        const float rad = rng_range(&r, 0.6f, 1.3f);
        centre[b][0] = rng_range(&r, -5.0f, 5.0f), centre[b][2] = rng_range(&r, -4.2f, 5.5f);
        centre[b][1] = rad + rng_range(&r, 0.2f, 1.5f), centre[b][3] = rad;
    }
    for (long i = 0; mesh && t && centre && i < cards; i++) {
        const float *c = centre[i % bushes];
        float d[3], dn;
        do {
            dn = 0;
            for (int k = 0; k < 3; k++) d[k] = rng_range(&r, -1, 1), dn += d[k] * d[k];
        } while (dn > 1.0f);
        mesh[i] = &card;
        random_rotation(&r, size * rng_range(&r, 0.7f, 1.3f), t[i].m);
        for (int k = 0; k < 3; k++) t[i].t[k] = c[k] + c[3] * d[k];
    }
    /* Emitted bush by bush (card i is drawn in bush i % bushes, above; the same cards in another
     * order): a bush's cards are neighbours in the scene's order, as a modelled plant's triangles
     * are in a file. Interleaved, every next card lay in another bush, and each of a frame's 2M
     * cards at 1M sent the raster to points and cells that had left the caches. */
    xform *by_bush = mesh && t && centre ? malloc((size_t)cards * sizeof *by_bush) : NULL;
    for (long b = 0, k = 0; by_bush && b < bushes; b++)
        for (long i = b; i < cards; i += bushes)
            by_bush[k++] = t[i];
    if (by_bush)
        soup_emit_batch(s, mesh, by_bush, cards);
    else
        s->oom = true;
    free(by_bush);
    free(mesh);
    free(t);
    free(centre);
    imesh_free(&card);
    *v = (view_desc){.fmin = {-6.0f, 0.0f, -5.5f},
                     .fmax = {6.0f, 3.0f, 6.0f},
                     .yaw = -20.0f,
                     .pitch = -30.0f,
                     .light_dir = {0.45f, -1.0f, -0.35f}};
}

/* texel (x, y) of a side x side image, row 0 at the top (scene_texture's convention), at (u, v)
 * with v up */
static unsigned char *texel(scene_texture *t, int x, int y) { return t->rgba + 4 * ((size_t)(t->height - 1 - y) * t->width + x); }

/* a leaf: a pointed oval along v with a stem below, soft-edged so that the cutoff matters */
static void leaf_image(scene_texture *t)
{
    for (int y = 0; y < t->height; y++)
        for (int x = 0; x < t->width; x++) {
            const float u = (x + 0.5f) / t->width - 0.5f, v = (y + 0.5f) / t->height;
            const float k = (v - 0.12f) / 0.84f; /* 0 at the leaf's base, 1 at its tip */
            const float half = k > 0.0f && k < 1.0f ? 0.42f * sinf(PI * powf(k, 0.8f)) * (1.0f - 0.3f * k) : -1.0f;
            float inside = (half - fabsf(u)) * 40.0f; /* > 0 inside, ramps over 1/40 of the card */
            if (v < 0.14f && fabsf(u) < 0.025f) inside = 1.0f; /* the stem */
            const float a = fminf(fmaxf(0.5f + inside, 0.0f), 1.0f);
            unsigned char *p = texel(t, x, y);
            p[0] = (unsigned char)(40 + 50 * v), p[1] = (unsigned char)(110 + 90 * (1 - fabsf(u))), p[2] = 35;
            p[3] = (unsigned char)lrintf(255.0f * a);
        }
}

/* one fence tile: a frame with a round hole */
static void fence_image(scene_texture *t)
{
    for (int y = 0; y < t->height; y++)
        for (int x = 0; x < t->width; x++) {
            const float u = (x + 0.5f) / t->width - 0.5f, v = (y + 0.5f) / t->height - 0.5f;
            unsigned char *p = texel(t, x, y);
            p[0] = 150, p[1] = 120, p[2] = 90;
            p[3] = u * u + v * v < 0.36f * 0.36f ? 0 : 255;
        }
}

bool scene_dress_foliage(scene *s)
{
    const int nt = s->tri_count;
    s->uv = calloc((size_t)nt * 6, sizeof *s->uv);
    s->materials = calloc(2, sizeof *s->materials);
    s->textures = calloc(2, sizeof *s->textures);
    s->ranges = calloc(2, sizeof *s->ranges);
    if (!s->uv || !s->materials || !s->textures || !s->ranges) return false;
    s->uv_tri_count = nt;
    s->material_count = s->texture_count = s->range_count = 2;
    const int side[2] = {FENCE_SIDE, LEAF_SIDE};
    for (int i = 0; i < 2; i++) {
        s->textures[i] = (scene_texture){.rgba = malloc((size_t)side[i] * side[i] * 4), .width = side[i],
                                         .height = side[i]};
        if (!s->textures[i].rgba) return false;
    }
    fence_image(&s->textures[0]);
    leaf_image(&s->textures[1]);
    s->materials[0] = (scene_material){.base_colour = {1, 1, 1, 1}, .texture = 0, .alpha = SCENE_ALPHA_MASK,
                                       .alpha_cutoff = 0.5f, .wrap_u = IZB_WRAP_REPEAT, .wrap_v = IZB_WRAP_REPEAT};
    s->materials[1] = (scene_material){.base_colour = {1, 1, 1, 1}, .texture = 1, .alpha = SCENE_ALPHA_MASK,
                                       .alpha_cutoff = 0.5f, .wrap_u = IZB_WRAP_CLAMP, .wrap_v = IZB_WRAP_CLAMP};
    const int first_card = 2 + 2 * PANELS;
    s->ranges[0] = (scene_range){.first = 2, .count = 2 * PANELS, .material = 0};
    s->ranges[1] = (scene_range){.first = first_card, .count = nt - first_card, .material = 1};
    for (int p = 0; p < PANELS; p++) card_uv(s->uv + 6 * (2 + 2 * p), PANEL[p][3] / TILE, PANEL[p][4] / TILE);
    for (int t = first_card; t < nt; t += 2) card_uv(s->uv + 6 * t, 1.0f, 1.0f);
    return true;
}
