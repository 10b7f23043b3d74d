/* test_scene_cutout_assets.c — the cut-out models of assets/ (scripts/make-cutout-assets, issue 18)
 * read through the app's scene loader: an OBJ whose map_d names its own grey image, an OBJ whose
 * map_Kd PNG carries alpha, a glTF with alphaMode MASK and alphaCutoff 0.3. Each must load as its
 * 4 triangles (ground, card), with one cut-out image of the expected size, cutoff and wraps on the
 * card's 2 triangles. Then, headless: ground points seen from straight above (the ground's depth,
 * ray cast without the card), a light straight
 * down, the CPU backend with the file's cut-outs must equal the brute force of tests/izb_brute.h
 * bit for bit, and the card's shadow must have holes: the fraction of its opaque footprint that
 * stays in shadow must match the fraction of the image's texels the cutoff keeps (the card maps
 * the texture, or whole repeats of it, over its square once; within 5%). argv[1]: assets/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_brute.h"
#include "izb_closed.h"
#include "ray_cast.h"
#include "scene.h"
#include "scene_cutout.h"
#include "test.h"
#include "view.h"

enum { W = 96, H = 96 };

typedef struct asset {
    const char *file;
    int side;      /* the cut-out image's width and height */
    float cutoff;  /* as the file gives it */
    izb_wrap wrap; /* both axes */
} asset;

static const asset ASSETS[] = {
    {"cutout-mapd.obj", 32, 0.5f, IZB_WRAP_REPEAT},
    {"cutout-kd-alpha.obj", 16, 0.5f, IZB_WRAP_REPEAT},
    {"cutout-mask.gltf", 64, 0.3f, IZB_WRAP_CLAMP},
};

static void check_asset(const char *dir, const asset *a, izb_backend *b)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, a->file);
    scene s;
    if (!scene_load(path, &s, err, sizeof err)) {
        CHECK(0, "%s: %s", a->file, err);
        return;
    }
    scene_cutouts c;
    CHECK(scene_cutouts_make(&s, &c, err, sizeof err), "%s: cut-outs: %s", a->file, err);
    CHECK(s.tri_count == 4 && c.cut_tris == 2 && c.image_count == 1, "%s: %d triangles, %d cut, %d images",
          a->file, s.tri_count, c.cut_tris, c.image_count);
    if (c.image_count != 1 || s.tri_count != 4) {
        scene_cutouts_free(&c);
        scene_free(&s);
        return;
    }
    const izb_alpha_image *im = &c.images[0];
    CHECK(im->width == a->side && im->height == a->side && im->cutoff == a->cutoff && im->wrap_u == a->wrap &&
              im->wrap_v == a->wrap,
          "%s: image %dx%d cutoff %g wraps %d %d", a->file, im->width, im->height, (double)im->cutoff,
          im->wrap_u, im->wrap_v);
    const uint8_t threshold = izb_alpha_threshold(im->cutoff);
    long kept = 0;
    for (int i = 0; i < im->width * im->height; i++)
        kept += im->alpha[i] >= threshold;
    const double kept_frac = (double)kept / (double)(im->width * im->height);

    /* ground points from 6 m straight above (constant view depth: the plane y ~ 0), light straight down */
    const camera cam = {
        .pos = {0.0f, 6.0f, 0.0f}, .pitch = -89.9f, .fovy = 45.0f, .near = 0.1f, .far = 20.0f};
    const light l = {.type = LIGHT_DIRECTIONAL, .dir = {0.0f, -1.0f, 0.0f}};
    izb_recon f = izb_frame_make(&cam, &l, s.bounds_min, s.bounds_max, W, H);
    f.bias = izb_settings_resolve((izb_settings){0}).bias;
    static float depth[W * H];
    static uint8_t mask[W * H], want[W * H], opaque[W * H];
    static izb_point pts[W * H];
    static int pix[W * H];
    /* the depth of the ground alone (the opaque triangles), as if the camera saw through the card */
    float ground[4 * 9];
    int ng = 0;
    for (int t = 0; t < s.tri_count; t++)
        if (c.image_of[t] == IZB_OPAQUE && ng < 4)
            memcpy(ground + 9 * ng++, s.xyz + 9 * t, 9 * sizeof(float));
    ray_cast_depth(&cam, &f, ground, ng, depth, NULL);
    const izb_cutouts cv = scene_cutouts_view(&c);
    izb_cutout_set set;
    izb_closed cl;
    CHECK(izb_closed_find(s.xyz, s.tri_count, &cl), "%s: closed analysis", a->file);
    CHECK(izb_cutout_set_build(&set, &cv, s.tri_count, "test") && izb_set_scene(b, s.xyz, s.tri_count) &&
              izb_set_cutouts(b, &cv),
          "%s: set up", a->file);
    CHECK(izb_shade_arrays(b, &f, &(izb_settings){0}, depth, mask, NULL), "%s: IZB", a->file);
    const izb_settings rs = izb_settings_resolve((izb_settings){0});
    const izb_cull_view cull = {.mode = rs.cull, .comp = cl.comp, .boxes = cl.boxes};
    izb_brute_force_cut(&f, depth, NULL, s.xyz, s.tri_count, &cull, &set, want, pts, pix);
    izb_brute_force_cut(&f, depth, NULL, s.xyz, s.tri_count, &cull, NULL, opaque, pts, pix);
    long differ = 0, footprint = 0, shadow = 0;
    for (int i = 0; i < W * H; i++) {
        differ += mask[i] != want[i];
        footprint += opaque[i] == 0;
        shadow += want[i] == 0;
    }
    const double frac = footprint ? (double)shadow / (double)footprint : 0.0;
    CHECK(differ == 0, "%s: the IZB differs from the brute force on %ld pixels", a->file, differ);
    CHECK(footprint > W * H / 10 && fabs(frac - kept_frac) < 0.05,
          "%s: %ld of the card's %ld shadow pixels stay shadowed (%.3f), the image keeps %.3f", a->file,
          shadow, footprint, frac, kept_frac);
    CHECK(kept_frac > 0.1 && kept_frac < 0.9, "%s: the image keeps %.3f of its texels: it has holes", a->file,
          kept_frac);
    printf("%s: %d triangles, image %dx%d cutoff %g, keeps %.3f; shadow %ld of footprint %ld (%.3f)\n",
           a->file, s.tri_count, im->width, im->height, (double)im->cutoff, kept_frac, shadow, footprint,
           frac);
    izb_cutout_set_free(&set);
    izb_closed_free(&cl);
    scene_cutouts_free(&c);
    scene_free(&s);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_scene_cutout_assets ASSETS_DIR\n");
        return 2;
    }
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .quiet = true});
    CHECK(b != NULL, "CPU backend");
    for (size_t i = 0; b && i < sizeof ASSETS / sizeof ASSETS[0]; i++)
        check_asset(argv[1], &ASSETS[i], b);
    izb_destroy(b);
    return test_done();
}
