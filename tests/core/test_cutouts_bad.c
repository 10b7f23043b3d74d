/* test_cutouts_bad.c — izb_set_cutouts on bad input: one warning line per kind and a defined
 * result, never a crash. A card over a ground under a directional light; each bad case is compared
 * with the mask it must equal (the card opaque, or the cut-outs with the fault repaired):
 * NULL / 0x0 / oversized images and unknown wraps make their triangles opaque; an index past the
 * images is opaque; a cutoff outside [0, 1] is clamped, NaN is 0.5; a triangle count that is not the
 * scene's is refused (false) and the scene stays opaque; NaN / Inf / 1e30 UVs give a mask (defined
 * texel); a backend without the alpha test (a stand-in: the CPU and CUDA backends have it) says so
 * and fails, never ignores them. */
#include <math.h>
#include <string.h>

#include "izb.h"
#include "izb_backend.h"
#include "test.h"
#include "test_io.h"
#include "view.h"

#define W 48
#define H 40
#define SIDE 8

/* ground (2 triangles, y = 0) and a horizontal card above it (2 triangles, y = 1) */
static const float xyz[4 * 9] = {
    -4, 0, -4, 4, 0, -4, 4, 0, 4,   -4, 0, -4, 4, 0, 4, -4, 0, 4,
    -1, 1, -1, 1, 1, 1,  1, 1, -1,  -1, 1, -1, -1, 1, 1, 1, 1, 1,
};
static float uv[4 * 6] = {
    0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, /* ground: opaque anyway */
    0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, /* card: the unit square */
};
static uint32_t image_of[4] = {IZB_OPAQUE, IZB_OPAQUE, 0, 0};
static uint8_t checker[SIDE * SIDE];

static izb_backend *b;
static izb_recon f;
static float depth[W * H];

/* the mask of the scene under cut-outs c (NULL: none); the number of stderr lines into *lines */
static void shade(const izb_cutouts *c, bool want_ok, uint8_t *mask, int *lines, const char *what)
{
    char err[2048];
    test_stderr_begin();
    const bool ok = izb_set_cutouts(b, c);
    test_stderr_end(err, sizeof err);
    CHECK(ok == want_ok, "%s: izb_set_cutouts gave %d (stderr: %s)", what, ok, err);
    int n = 0;
    for (const char *p = err; *p; p++) n += *p == '\n';
    *lines = n;
    CHECK(izb_shade_arrays(b, &f, &(izb_settings){.cull = IZB_CULL_OFF}, depth, mask, NULL), "%s: shade", what);
}

static int shadowed(const uint8_t *m)
{
    int n = 0;
    for (int i = 0; i < W * H; i++) n += m[i] == 0;
    return n;
}

/* a backend without the alpha test: set_scene only */
static bool standin_set_scene(izb_backend *x, const float *v, int n, const izb_closed *c)
{
    (void)x, (void)v, (void)n, (void)c;
    return true;
}
static void standin_destroy(izb_backend *x) { (void)x; }

int main(void)
{
    for (int i = 0; i < SIDE * SIDE; i++) checker[i] = ((i % SIDE + i / SIDE) % 2) ? 255 : 0;
    b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1, .quiet = true});
    CHECK(b && izb_set_scene(b, xyz, 4), "backend and scene");
    if (!b) return test_done();
    /* camera straight above, light straight down: the ground's pixels under the card */
    const camera cam = {.pos = {0, 10, 0.001f}, .pitch = -89.0f, .fovy = 50};
    const light l = {.type = LIGHT_DIRECTIONAL, .dir = {0.001f, -1, 0.002f}};
    const float bmin[3] = {-4, 0, -4}, bmax[3] = {4, 1, 4};
    f = izb_frame_make(&cam, &l, bmin, bmax, W, H);
    /* depth: every pixel on the ground (the card is not in the camera's depth: only its shadow counts) */
    float vw[16];
    camera_view(&cam, vw);
    for (int i = 0; i < W * H; i++) depth[i] = 10.0f; /* ~ the ground's distance straight below */

    static uint8_t opaque[W * H], good[W * H], m[W * H];
    int lines;
    const izb_alpha_image img = {.alpha = checker, .width = SIDE, .height = SIDE, .cutoff = 0.5f};
    izb_cutouts c = {.images = &img, .image_count = 1, .uv = uv, .image_of = image_of, .tri_count = 4};
    shade(NULL, true, opaque, &lines, "none");
    shade(&c, true, good, &lines, "good");
    CHECK(lines == 0, "good cut-outs printed %d lines", lines);
    CHECK(shadowed(opaque) > 0 && shadowed(good) > 0 && shadowed(good) < shadowed(opaque),
          "the checker must cut part of the card's shadow: opaque %d, checker %d", shadowed(opaque), shadowed(good));

    /* images that cannot be used: one line, the card opaque */
    const struct { izb_alpha_image im; const char *what; } bad_images[] = {
        {{.alpha = NULL, .width = SIDE, .height = SIDE, .cutoff = 0.5f}, "NULL alpha"},
        {{.alpha = checker, .width = 0, .height = 0, .cutoff = 0.5f}, "0x0"},
        {{.alpha = checker, .width = -3, .height = SIDE, .cutoff = 0.5f}, "negative width"},
        {{.alpha = checker, .width = IZB_ALPHA_MAX_DIM + 1, .height = 1, .cutoff = 0.5f}, "too wide"},
        {{.alpha = checker, .width = SIDE, .height = SIDE, .wrap_u = (izb_wrap)7, .cutoff = 0.5f}, "bad wrap"},
    };
    for (size_t i = 0; i < sizeof bad_images / sizeof bad_images[0]; i++) {
        izb_cutouts bc = c;
        bc.images = &bad_images[i].im;
        shade(&bc, true, m, &lines, bad_images[i].what);
        CHECK(lines == 1, "%s: %d lines, want 1", bad_images[i].what, lines);
        CHECK(memcmp(m, opaque, sizeof m) == 0, "%s: the card must be opaque", bad_images[i].what);
    }
    /* an index past the images: opaque, one line */
    uint32_t past[4] = {IZB_OPAQUE, IZB_OPAQUE, 3, 3};
    izb_cutouts pc = c;
    pc.image_of = past;
    shade(&pc, true, m, &lines, "index past the images");
    CHECK(lines == 1 && memcmp(m, opaque, sizeof m) == 0, "index past: %d lines, opaque %d", lines,
          memcmp(m, opaque, sizeof m) == 0);
    /* cutoffs: 7 clamps to 1 (only 255 kept: the checker's 255s stay), -2 to 0 (nothing cut), NaN is 0.5 */
    const float cutoffs[] = {7.0f, -2.0f, NAN};
    const uint8_t *want_for[] = {good, opaque, good};
    for (int i = 0; i < 3; i++) {
        izb_alpha_image ci = img;
        ci.cutoff = cutoffs[i];
        izb_cutouts cc = c;
        cc.images = &ci;
        shade(&cc, true, m, &lines, "bad cutoff");
        CHECK(lines == 1 && memcmp(m, want_for[i], sizeof m) == 0, "cutoff %g: %d lines, mask as expected %d",
              cutoffs[i], lines, memcmp(m, want_for[i], sizeof m) == 0);
    }
    /* a triangle count that is not the scene's: refused, opaque */
    izb_cutouts tc = c;
    tc.tri_count = 3;
    shade(&tc, false, m, &lines, "wrong count");
    CHECK(lines == 1 && memcmp(m, opaque, sizeof m) == 0, "wrong count: %d lines", lines);
    /* non-finite and huge UVs: accepted, no line, a mask (each names a defined texel) */
    const float wild[] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f};
    for (int i = 0; i < 5; i++) {
        float wuv[24];
        memcpy(wuv, uv, sizeof wuv);
        for (int k = 12; k < 24; k += 2) wuv[k] = wild[i];
        izb_cutouts wc = c;
        wc.uv = wuv;
        shade(&wc, true, m, &lines, "wild UVs");
        CHECK(lines == 0, "wild UV %g: %d lines", wild[i], lines);
    }
    /* a new scene drops the cut-outs */
    CHECK(izb_set_cutouts(b, &c) && izb_set_scene(b, xyz, 4), "re-set");
    CHECK(izb_shade_arrays(b, &f, &(izb_settings){.cull = IZB_CULL_OFF}, depth, m, NULL) &&
              memcmp(m, opaque, sizeof m) == 0, "izb_set_scene must drop the previous cut-outs");
    izb_destroy(b);

    /* a backend that cannot alpha-test: false and one line naming it; NULL is fine */
    static const izb_backend_vtbl vt = {.name = "standin", .destroy = standin_destroy, .set_scene = standin_set_scene};
    izb_backend s = {.vt = &vt, .tri_count = 4};
    char err[512];
    test_stderr_begin();
    const bool ok = izb_set_cutouts(&s, &c);
    test_stderr_end(err, sizeof err);
    CHECK(!ok && strstr(err, "standin") && strstr(err, "cannot alpha-test"), "no alpha test: %d, '%s'", ok, err);
    CHECK(izb_set_cutouts(&s, NULL), "NULL cut-outs on a backend without the test");
    return test_done();
}
