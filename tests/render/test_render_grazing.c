/* test_render_grazing.c — grazing light through the whole GL path (render_frame): the depth pass's
 * primitive ids (R32UI, gl_PrimitiveID) reach the IZB, so a ground lit 0.02 degrees above the
 * horizon shows no self-shadow acne. Scene (as tests/core/test_own.c, analytically there): a ground
 * quad (triangles 0, 1) and a small card floating over it (2, 3), seen from above; lights: that
 * grazing sun (the card's shadow falls far off the ground, which is lit everywhere) and a sun 30
 * degrees up (the card's shadow on the ground must stay).
 *  - the ids texture: IZB_NO_ID exactly on sky, else the triangle the oracle's primary ray (Embree)
 *    hits at the pixel, but for pixel centres on the quads' diagonals (at most 0.5% of the
 *    pixels); on the grazing frame the lit ground's ids are 0 or 1;
 *  - the GL mask equals izb_shade_arrays_ids on the depth and ids read back (the bridge);
 *  - the GL mask matches the exact-plane oracle (oracle_skip_self: a point's own plane never
 *    shadows it) on all but 0.01% of the covered pixels: no acne on the grazing ground, the card's
 *    shadow kept under the 30-degree sun;
 *  - without ids (izb_shade_arrays on the same depth) the grazing frame does show acne on most of
 *    the ground, so the test exercises what the ids fix.
 * Run with "cuda" it checks the CUDA-GL interop path instead (skipped without a CUDA device), and
 * izb_shade_gl's ids_tex on textures of the test's own: the grazing frame's depth and ids give the
 * renderer's mask, ids_tex 0 gives izb_shade_arrays' (acne), an ids texture of another format
 * (R32F) or size is refused, and the next frame with the right one works.
 * Skipped (77) without a GL 4.5 context or without Embree. */
#undef NDEBUG
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "gl_test.h"
#include "izb.h"
#include "izb_config.h"
#include "render.h"
#include "scene.h"

#if IZB_HAVE_EMBREE
#include "oracle.h"
#endif

enum { W = 321, H = 241 };
#define MAX_MISMATCH 1e-4 /* fraction of covered pixels, as test_render_frame */
#define GROUND 10.0f
#define CARD_Y 0.2f

#if IZB_HAVE_EMBREE
static float depth[W * H], ray_depth[W * H];
static uint32_t ids[W * H], ray_ids[W * H];
static uint8_t mask[W * H], arr_mask[W * H], plain_mask[W * H], truth[W * H];

/* the ground and the card, two upward-facing quads (normals +y), in a scene render_set_scene takes */
static bool make_scene(scene *s)
{
    static const float xyz[4 * 9] = {
        -GROUND, 0,      -GROUND, -GROUND, 0,      GROUND, GROUND, 0,      GROUND, /* ground */
        -GROUND, 0,      -GROUND, GROUND,  0,      GROUND, GROUND, 0,      -GROUND,
        -3.0f,   CARD_Y, -1.0f,   -3.0f,   CARD_Y, 1.0f,   -1.0f,  CARD_Y, 1.0f, /* card */
        -3.0f,   CARD_Y, -1.0f,   -1.0f,   CARD_Y, 1.0f,   -1.0f,  CARD_Y, -1.0f,
    };
    *s = (scene){.tri_count = 4,
                 .bounds_min = {-GROUND, 0, -GROUND},
                 .bounds_max = {GROUND, CARD_Y, GROUND},
                 .name = "ground and card"};
    s->xyz = malloc(sizeof xyz);
    s->normals = malloc(sizeof xyz);
    if (!s->xyz || !s->normals) return false;
    memcpy(s->xyz, xyz, sizeof xyz);
    for (int v = 0; v < 12; v++) {
        s->normals[3 * v] = s->normals[3 * v + 2] = 0.0f;
        s->normals[3 * v + 1] = 1.0f;
    }
    return true;
}

static void run(render *r, izb_backend *b, oracle *o, const scene *s, const camera *cam, const light *l,
                const char *what, bool grazing)
{
    izb_stats st;
    CHECK(render_frame(r, &(render_frame_desc){.cam = cam, .light = l, .backend = b, .stats = &st}),
          "%s: render_frame", what);
    render_read_depth(r, depth);
    render_read_ids(r, ids);
    render_read_mask(r, mask);
    const izb_recon f = izb_frame_make(cam, l, s->bounds_min, s->bounds_max, W, H);

    /* the ids against the primary rays */
    oracle_depth_ids(o, cam, W, H, ray_depth, ray_ids);
    long both = 0, id_diff = 0, id_bad = 0, covered = 0, lit_ground_bad_id = 0;
    for (int i = 0; i < W * H; i++) {
        const bool a = depth[i] > 0.0f, c = ray_depth[i] > 0.0f;
        covered += a;
        id_bad += a ? ids[i] >= (uint32_t)s->tri_count : ids[i] != IZB_NO_ID;
        if (a && c) {
            both++;
            id_diff += ids[i] != ray_ids[i];
        }
    }
    /* a few pixels by name: the image's centre and its bottom corners see the ground */
    const int probe[3] = {(H / 2) * W + W / 2, 2 * W + 2, 2 * W + W - 3};
    for (int k = 0; k < 3; k++)
        CHECK(depth[probe[k]] > 0.0f && ids[probe[k]] == ray_ids[probe[k]],
              "%s: pixel %d: id %u, the primary ray hits %u", what, probe[k], ids[probe[k]],
              ray_ids[probe[k]]);
    printf("%s: %ld covered pixels; ids differ from the primary rays' at %ld of %ld\n", what, covered,
           id_diff, both);
    CHECK(covered > W * H / 2, "%s: the view shows the ground (%ld covered pixels)", what, covered);
    CHECK(id_bad == 0, "%s: %ld pixels with an id that is neither a scene triangle nor IZB_NO_ID on sky",
          what, id_bad);
    CHECK(id_diff < both / 200, "%s: ids differ from the primary rays' at %ld of %ld pixels", what, id_diff,
          both);

    /* the bridge */
    CHECK(izb_shade_arrays_ids(b, &f, NULL, depth, ids, arr_mask, NULL), "%s: izb_shade_arrays_ids", what);
    long bridge = 0;
    for (int i = 0; i < W * H; i++)
        bridge += mask[i] != arr_mask[i];
    CHECK(bridge == 0, "%s: GL mask differs from izb_shade_arrays_ids at %ld pixels", what, bridge);

    /* the exact-plane truth; the plain mask (no ids) for the acne count */
    oracle_skip_self(o, true);
    oracle_shadow(o, &f, cam, l, depth, truth);
    oracle_skip_self(o, false);
    CHECK(izb_shade_arrays(b, &f, NULL, depth, plain_mask, NULL), "%s: izb_shade_arrays", what);
    const mask_diff d = mask_compare(depth, mask, truth, (long)W * H);
    long shadowed = 0, lit = 0, acne = 0;
    for (int i = 0; i < W * H; i++) {
        if (!(depth[i] > 0.0f)) continue;
        shadowed += truth[i] == 0;
        lit += truth[i] == 255;
        acne += truth[i] == 255 && plain_mask[i] == 0;
        lit_ground_bad_id += grazing && truth[i] == 255 && ids[i] > 3u;
    }
    const double frac = d.covered ? (double)d.mismatched / (double)d.covered : 1.0;
    printf(
        "%s: with ids %ld of %ld covered mismatched (%.4f%%: %ld false shadow, %ld false light); truth %ld "
        "in shadow, %ld lit; without ids %ld lit pixels in shadow (acne)\n",
        what, d.mismatched, d.covered, 100.0 * frac, d.false_shadow, d.false_light, shadowed, lit, acne);
    CHECK(frac < MAX_MISMATCH, "%s: mismatch %.4f%% of covered pixels (bound %.4f%%)", what, 100.0 * frac,
          100.0 * MAX_MISMATCH);
    CHECK(lit_ground_bad_id == 0, "%s: %ld lit pixels without a scene id", what, lit_ground_bad_id);
    if (grazing) {
        CHECK(shadowed < covered / 100 && lit > covered / 2,
              "%s: the grazing sun lights the ground (%ld in shadow)", what, shadowed);
        CHECK(acne > lit / 2, "%s: without ids the grazing ground shows acne (%ld of %ld lit px)", what, acne,
              lit);
    } else {
        CHECK(shadowed > 200, "%s: the card's shadow is on the ground (%ld px)", what, shadowed);
    }
}

static GLuint make_texture(GLenum internal, int w, int h, GLenum format, GLenum type, const void *data)
{
    GLuint t;
    glCreateTextures(GL_TEXTURE_2D, 1, &t);
    glTextureStorage2D(t, 1, internal, w, h);
    if (data) glTextureSubImage2D(t, 0, 0, 0, w, h, format, type, data);
    return t;
}

/* izb_shade_gl's ids_tex with the last run's depth, ids and masks (the grazing frame) */
static void shade_gl_inputs(izb_backend *b, const scene *s, const camera *cam, const light *l)
{
    static uint8_t got[W * H];
    const izb_recon f = izb_frame_make(cam, l, s->bounds_min, s->bounds_max, W, H);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    const GLuint t_depth = make_texture(GL_R32F, W, H, GL_RED, GL_FLOAT, depth);
    const GLuint t_ids = make_texture(GL_R32UI, W, H, GL_RED_INTEGER, GL_UNSIGNED_INT, ids);
    const GLuint t_float = make_texture(GL_R32F, W, H, GL_RED, GL_FLOAT, depth);
    const GLuint t_narrow = make_texture(GL_R32UI, W - 1, H, GL_RED_INTEGER, GL_UNSIGNED_INT, NULL);
    const GLuint t_mask = make_texture(GL_R8, W, H, GL_RED, GL_UNSIGNED_BYTE, NULL);
    const unsigned gen = 1000; /* these textures live until the end of this function */
    CHECK(glGetError() == GL_NO_ERROR, "test textures");

    CHECK(izb_shade_gl(b, &f, NULL, t_depth, t_ids, t_mask, gen, NULL), "izb_shade_gl with ids");
    glGetTextureImage(t_mask, 0, GL_RED, GL_UNSIGNED_BYTE, W * H, got);
    CHECK(!memcmp(got, mask, W * H), "izb_shade_gl with the frame's ids gives the renderer's mask");
    CHECK(izb_shade_gl(b, &f, NULL, t_depth, 0, t_mask, gen, NULL), "izb_shade_gl without ids");
    glGetTextureImage(t_mask, 0, GL_RED, GL_UNSIGNED_BYTE, W * H, got);
    CHECK(!memcmp(got, plain_mask, W * H) && memcmp(got, mask, W * H),
          "ids_tex 0 gives izb_shade_arrays' mask (with the acne)");
    gl_test_capture_begin();
    const bool float_ok = izb_shade_gl(b, &f, NULL, t_depth, t_float, t_mask, gen, NULL);
    const bool narrow_ok = izb_shade_gl(b, &f, NULL, t_depth, t_narrow, t_mask, gen, NULL);
    const char *said = gl_test_capture_end();
    CHECK(!float_ok && !narrow_ok, "an R32F ids texture (%d) or one of another size (%d) is refused", float_ok,
          narrow_ok);
    CHECK(strstr(said, "GL_R32UI") != NULL, "the refusal names the expected format");
    memset(got, 1, sizeof got);
    glTextureSubImage2D(t_mask, 0, 0, 0, W, H, GL_RED, GL_UNSIGNED_BYTE, got);
    CHECK(izb_shade_gl(b, &f, NULL, t_depth, t_ids, t_mask, gen, NULL), "izb_shade_gl after the refusals");
    glGetTextureImage(t_mask, 0, GL_RED, GL_UNSIGNED_BYTE, W * H, got);
    CHECK(!memcmp(got, mask, W * H), "the mask after the refusals");
    const GLuint all[5] = {t_depth, t_ids, t_float, t_narrow, t_mask};
    glDeleteTextures(5, all);
    CHECK(glGetError() == GL_NO_ERROR, "no GL error left behind");
}
#endif

int main(int argc, char **argv)
{
#if !IZB_HAVE_EMBREE
    (void)argc, (void)argv;
    TEST_SKIP("built without Embree: no oracle");
#else
    const bool want_cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
    gl_context ctx;
    gl_test_context(&ctx);
    char err[512];
    scene s;
    CHECK(make_scene(&s), "scene: out of memory");
    render *r = render_create(&(render_desc){.width = W, .height = H}, err, sizeof err);
    CHECK(r && render_set_scene(r, &s, err, sizeof err), "renderer: %s", err);
    izb_backend *b =
        izb_create(&(izb_desc){.backend = want_cuda ? IZB_BACKEND_CUDA : IZB_BACKEND_CPU, .quiet = true});
    if (!b && want_cuda) TEST_SKIP("no CUDA device answers");
    CHECK(b && izb_set_scene(b, s.xyz, s.tri_count), "backend %s", want_cuda ? "cuda" : "cpu");
    if (want_cuda && b) CHECK(izb_supports_gl(b), "the CUDA backend shades GL textures directly (interop)");
    oracle *o = oracle_create(s.xyz, s.tri_count);
    CHECK(o != NULL, "oracle_create");
    if (r && b && o) {
        printf("backend %s, %dx%d\n", izb_name(b), W, H);
        camera cam = {.pos = {0.0f, 9.0f, 7.0f}, .yaw = 0.0f, .pitch = -50.0f, .fovy = 60.0f};
        camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
        const float a = 0.02f * 3.14159265f / 180.0f, c = 30.0f * 3.14159265f / 180.0f;
        const light graze = {.type = LIGHT_DIRECTIONAL, .dir = {cosf(a), -sinf(a), 0.1f * cosf(a)}};
        const light sun = {.type = LIGHT_DIRECTIONAL, .dir = {cosf(c), -sinf(c), 0.1f}};
        run(r, b, o, &s, &cam, &graze, "sun 0.02 degrees above the ground", true);
        if (want_cuda)
            shade_gl_inputs(b, &s, &cam, &graze);
        else
            CHECK(!izb_shade_gl(b, &(izb_recon){.width = W, .height = H}, NULL, 1, 1, 1, 1, NULL),
                  "the CPU backend has no GL path");
        run(r, b, o, &s, &cam, &sun, "sun 30 degrees above the ground", false);
    }
    oracle_destroy(o);
    izb_destroy(b);
    render_destroy(r);
    scene_free(&s);
    gl_context_shutdown(&ctx);
    return test_done();
#endif
}
