/* test_scene_foliage.c — builtin:foliage[:N] and scene_cutouts_make: N counts cards, from 1 to
 * SCENE_FOLIAGE_MAX_CARDS (each end built, one past refused with the bounds in the message, 0 is
 * the default); the layout is a ground, three fence panels and N two-triangle cards, every one but
 * the ground a cut-out with UVs; the generated textures cut what they should (the leaf's corners
 * and the fence's hole centres cut, the leaf's middle and the fence's frame kept, read through
 * izb_alpha.h's rule at the UVs the triangles carry); and through the CPU backend the cut-outs
 * make the shadow of a view smaller than the opaque cards' (the IZB reads them). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "izb.h"
#include "scene.h"
#include "scene_check.h"
#include "scene_cutout.h"
#include "test.h"
#include "view.h"

/* keeps texel (u, v) of image i? (izb_alpha.h's rule on the made image) */
static bool keeps(const scene_cutouts *c, int i, float u, float v)
{
    const izb_alpha_image *im = &c->images[i];
    const izb_alpha_tex t = {.offset = 0, .width = im->width, .height = im->height, .wrap_u = (uint8_t)im->wrap_u,
                             .wrap_v = (uint8_t)im->wrap_v, .threshold = izb_alpha_threshold(im->cutoff)};
    return izb_alpha_keeps(im->alpha, &t, u, v);
}

static void check_layout(long n)
{
    char err[512] = "", what[64];
    snprintf(what, sizeof what, "foliage:%ld", n);
    scene s;
    CHECK(scene_builtin("foliage", n, &s, err, sizeof err), "%s: %s", what, err);
    const long cards = n ? n : SCENE_FOLIAGE_DEFAULT_CARDS;
    CHECK(s.tri_count == 2 + 6 + 2 * cards, "%s: %d triangles", what, s.tri_count);
    CHECK(check_scene_valid(&s, what) == 0, "%s: invalid scene", what);
    scene_cutouts c;
    CHECK(scene_cutouts_make(&s, &c, err, sizeof err), "%s: cutouts: %s", what, err);
    CHECK(c.cut_tris == s.tri_count - 2 && c.image_count == 2, "%s: %d cut triangles, %d images", what, c.cut_tris,
          c.image_count);
    CHECK(c.image_of[0] == IZB_OPAQUE && c.image_of[1] == IZB_OPAQUE, "%s: the ground must be opaque", what);
    int bad = 0;
    for (int t = 2; t < s.tri_count; t++) bad += c.image_of[t] != (t < 8 ? 0u : 1u);
    CHECK(bad == 0, "%s: %d triangles with the wrong image", what, bad);
    /* the last card's UVs span the unit square (leaf), the panels' several tiles (fence) */
    const float *uv = c.uv + 6 * (size_t)(s.tri_count - 2);
    CHECK(uv[0] == 0 && uv[1] == 0 && uv[4] == 1 && uv[5] == 1, "%s: card UVs", what);
    CHECK(c.uv[6 * 2 + 4] > 4 && c.uv[6 * 2 + 5] > 2, "%s: fence UVs repeat", what);
    scene_cutouts_free(&c);
    scene_free(&s);
}

/* The cards come bush by bush (scene_build_foliage: the raster's caches, docs/bench-cutouts/
 * card-order-ab.md): consecutive cards lie much nearer each other than a card and one picked by a
 * hash of its index (interleaved bushes, the old order, put consecutive cards in different
 * bushes: 5.4 apart, the hashed pairs 5.2). Card k is triangles 8 + 2k and 9 + 2k; its first
 * vertex stands for it. */
static void check_card_order(long cards)
{
    char err[512] = "";
    scene s;
    CHECK(scene_builtin("foliage", cards, &s, err, sizeof err), "foliage:%ld: %s", cards, err);
    double next = 0, far = 0;
    for (long k = 0; k + 1 < cards; k++) {
        const float *a = s.xyz + 9 * (8 + 2 * k), *b = s.xyz + 9 * (8 + 2 * (k + 1)),
                    *c = s.xyz + 9 * (8 + 2 * ((k * 7919 + 13) % cards));
        next += sqrt((double)(a[0] - b[0]) * (a[0] - b[0]) + (double)(a[2] - b[2]) * (a[2] - b[2]));
        far += sqrt((double)(a[0] - c[0]) * (a[0] - c[0]) + (double)(a[2] - c[2]) * (a[2] - c[2]));
    }
    CHECK(next < 0.5 * far, "foliage:%ld: consecutive cards %.3f apart on average, hashed pairs %.3f",
          cards, next / (double)(cards - 1), far / (double)(cards - 1));
    scene_free(&s);
}

int main(void)
{
    check_card_order(20000);
    check_layout(0);
    check_layout(1);
    check_layout(25000);
    check_layout(SCENE_FOLIAGE_MAX_CARDS);
    /* one past the end, and negative: refused, naming the bounds */
    char err[512] = "";
    scene s;
    CHECK(!scene_builtin("foliage", SCENE_FOLIAGE_MAX_CARDS + 1, &s, err, sizeof err) && strstr(err, "card count") &&
              strstr(err, "1000000"),
          "N past the maximum: '%s'", err);
    CHECK(!scene_builtin("foliage", -1, &s, err, sizeof err), "negative N accepted");
    CHECK(!scene_load("builtin:foliage:2M", &s, err, sizeof err), "builtin:foliage:2M accepted");

    /* the textures: leaf middle kept, its corners cut; the fence's frame kept, its holes cut */
    CHECK(scene_builtin("foliage", 200, &s, err, sizeof err), "foliage:200: %s", err);
    scene_cutouts c;
    CHECK(scene_cutouts_make(&s, &c, err, sizeof err), "cutouts: %s", err);
    CHECK(keeps(&c, 1, 0.5f, 0.5f) && !keeps(&c, 1, 0.02f, 0.98f) && !keeps(&c, 1, 0.98f, 0.02f) &&
              !keeps(&c, 1, 0.95f, 0.5f) && keeps(&c, 1, 0.5f, 0.05f),
          "the leaf's alpha is not leaf-shaped");
    int holes = 0, frames = 0;
    for (int k = 0; k < 8; k++) {
        holes += !keeps(&c, 0, (float)k + 0.5f, 2.0f * (float)k - 5.5f); /* tile centres, repeated both ways */
        frames += keeps(&c, 0, (float)k + 0.02f, 0.02f);
    }
    CHECK(holes == 8 && frames == 8, "fence: %d of 8 hole centres cut, %d of 8 frame corners kept", holes, frames);

    /* through the CPU backend: the cut-outs shrink the shadow of the suggested view */
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1, .quiet = true});
    CHECK(b && izb_set_scene(b, s.xyz, s.tri_count), "backend");
    const camera cam = {.pos = {0, 12, 0.01f}, .pitch = -89, .fovy = 60};
    const light l = {.type = LIGHT_DIRECTIONAL, .dir = {s.light_dir[0], s.light_dir[1], s.light_dir[2]}};
    enum { W = 96, H = 96 };
    const izb_recon f = izb_frame_make(&cam, &l, s.bounds_min, s.bounds_max, W, H);
    static float depth[W * H];
    static uint8_t opaque[W * H], cut[W * H];
    for (int i = 0; i < W * H; i++) depth[i] = 12.0f; /* the ground under a camera looking straight down */
    CHECK(izb_shade_arrays(b, &f, &(izb_settings){0}, depth, opaque, NULL), "shade opaque");
    const izb_cutouts v = scene_cutouts_view(&c);
    CHECK(izb_set_cutouts(b, &v), "set_cutouts");
    izb_stats st;
    CHECK(izb_shade_arrays(b, &f, &(izb_settings){0}, depth, cut, &st), "shade cut");
    int n_opaque = 0, n_cut = 0, only_cut = 0;
    for (int i = 0; i < W * H; i++) n_opaque += !opaque[i], n_cut += !cut[i], only_cut += !cut[i] && opaque[i];
    CHECK(n_cut > 0 && n_cut < n_opaque && only_cut == 0,
          "shadowed pixels: opaque %d, cut %d, shadowed only with cut-outs %d", n_opaque, n_cut, only_cut);
    CHECK(st.tris_cut == c.cut_tris, "tris_cut %d, want %d", st.tris_cut, c.cut_tris);
    printf("foliage:200 at %dx%d: %d shadowed pixels opaque, %d with cut-outs\n", W, H, n_opaque, n_cut);
    izb_destroy(b);
    scene_cutouts_free(&c);
    scene_free(&s);
    return test_done();
}
