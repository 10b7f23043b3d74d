/* test_render_alpha.c — shaders/alpha_test.frag, the GLSL mirror of core/izb_alpha.h, against the C
 * rule on the same cut-outs: images of several sides (1x1, odd, power of two, wider than tall)
 * with random alpha, every wrap on each axis, cutoffs 0, 0.2, 0.5, 1 and random, some triangles
 * opaque; UVs on texel centres, on exact texel edges, random over several periods either side of
 * 0, huge (1e9, 1e30), Inf and NaN. Each pixel of a full-screen pass reads one (triangle, UV) case
 * from buffer textures, calls alpha_cut with the buffers render_set_cutouts uploaded (the
 * renderer's own packing) and writes the verdict; it must equal izb_alpha.h's on
 * izb_cutout_set_build's copy, case for case. Also checked: --alpha-test off (u_alpha_on 0) cuts
 * nothing, and a triangle count that is not the scene's is refused. Then the depth pass itself: a
 * fronto-parallel card whose UVs span several periods of a random texture (mirror x repeat) leaves
 * sky exactly at the pixels whose centre's UV (affine there, computed in double) the C rule cuts,
 * away from texel edges (1/50 texel: interpolation rounding) and the card's border. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gl_shader.h"
#include "gl_test.h"
#include "izb_cutouts.h"
#include "render.h"
#include "render_internal.h"
#include "test_rng.h"

enum { W = 256, H = 256, N = W * H, IMAGES = 6, TRIS = 64 };

static const char *const TEST_FRAG =
    "#version 450 core\n"
    "layout(binding = 0) uniform samplerBuffer u_case_uv; // RG32F\n"
    "layout(binding = 1) uniform usamplerBuffer u_case_tri; // R32UI\n"
    "layout(location = 0) out uint o_cut;\n"
    "bool alpha_cut(uint tri, vec2 uv);\n"
    "void main() {\n"
    "    int i = int(gl_FragCoord.y) * " "256" " + int(gl_FragCoord.x);\n"
    "    o_cut = alpha_cut(texelFetch(u_case_tri, i).r, texelFetch(u_case_uv, i).rg) ? 1u : 2u;\n"
    "}\n";

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

/* the depth pass on a card: see the header */
static void depth_pass_card(void)
{
    enum { CW = 160, CH = 120, SIDE = 16 };
    char err[512];
    render *r = render_create(&(render_desc){.width = CW, .height = CH}, err, sizeof err);
    CHECK(r != NULL, "render_create: %s", err);
    if (!r) return;
    /* quad [-1,1]^2 at z = -2 before a camera at the origin looking down -Z (the view is the
     * identity: world = view space), uv from (u0, v0) at (-1, -1) to (u0 + su, v0 + sv) */
    const double u0 = -1.3, v0 = 0.4, su = 3.7, sv = -2.9;
    static float quad[18] = {-1, -1, -2, 1, -1, -2, 1, 1, -2, -1, -1, -2, 1, 1, -2, -1, 1, -2};
    static float quv[12];
    for (int k = 0; k < 6; k++)
        quv[2 * k] = (float)(u0 + su * (quad[3 * k] + 1) / 2), quv[2 * k + 1] = (float)(v0 + sv * (quad[3 * k + 1] + 1) / 2);
    scene s = {.xyz = quad, .tri_count = 2, .uv = quv, .uv_tri_count = 2,
               .bounds_min = {-10, -10, -10}, .bounds_max = {10, 10, 10}};
    CHECK(render_set_scene(r, &s, err, sizeof err), "render_set_scene: %s", err);
    static uint8_t a[SIDE * SIDE];
    for (int k = 0; k < SIDE * SIDE; k++) a[k] = (uint8_t)(rnd() * 256);
    izb_alpha_image im = {.alpha = a, .width = SIDE, .height = SIDE, .wrap_u = IZB_WRAP_MIRROR,
                          .wrap_v = IZB_WRAP_REPEAT, .cutoff = 0.5f};
    uint32_t image_of[2] = {0, 0};
    scene_cutouts c = {.images = &im, .image_count = 1, .image_of = image_of, .uv = quv, .tri_count = 2, .cut_tris = 2};
    CHECK(render_set_cutouts(r, &c, err, sizeof err), "render_set_cutouts: %s", err);
    izb_alpha_tex t = {.offset = 0, .width = SIDE, .height = SIDE, .wrap_u = IZB_WRAP_MIRROR,
                       .wrap_v = IZB_WRAP_REPEAT, .threshold = izb_alpha_threshold(0.5f)};
    camera cam = {.near = 0.1f, .far = 100.0f};
    render_depth_pass(r, &cam);
    static float depth[CW * CH];
    render_read_depth(r, depth);
    const double sy = tan(30.0 * 0.017453292519943295), sx = sy * CW / CH; /* fovy 60 */
    int checked = 0, bad = 0, cut = 0;
    for (int py = 0; py < CH; py++)
        for (int px = 0; px < CW; px++) {
            const double x = ((2.0 * px + 1) / CW - 1) * sx * 2, y = ((2.0 * py + 1) / CH - 1) * sy * 2;
            if (fabs(x) > 0.98 || fabs(y) > 0.98) continue; /* the card's border: rasterisation's call */
            const double u = u0 + su * (x + 1) / 2, v = v0 + sv * (y + 1) / 2;
            const double fu = u * SIDE - floor(u * SIDE), fv = v * SIDE - floor(v * SIDE);
            if (fu < 0.02 || fu > 0.98 || fv < 0.02 || fv > 0.98) continue; /* near a texel edge */
            checked++;
            const bool want_cut = !izb_alpha_keeps(a, &t, (float)u, (float)v);
            cut += want_cut;
            bad += (depth[py * CW + px] == 0.0f) != want_cut;
        }
    CHECK(checked > 4000 && cut > checked / 8 && cut < checked - checked / 8, "checked %d pixels, %d cut", checked,
          cut);
    CHECK(bad == 0, "the depth pass differs from the C rule on %d of %d pixels", bad, checked);
    render_destroy(r);
}

int main(void)
{
    gl_context ctx;
    gl_test_context(&ctx);
    char err[512];
    render *r = render_create(&(render_desc){.width = 8, .height = 8}, err, sizeof err);
    CHECK(r != NULL, "render_create: %s", err);
    if (!r) return test_done();

    /* a scene of TRIS tiny triangles (only their count matters here) */
    static float xyz[9 * TRIS];
    for (int t = 0; t < TRIS; t++)
        for (int k = 0; k < 9; k++) xyz[9 * t + k] = (float)t + (k == 3 || k == 7 ? 1.0f : 0.0f);
    scene s = {.xyz = xyz, .tri_count = TRIS, .bounds_max = {TRIS, 1, 1}};
    CHECK(render_set_scene(r, &s, err, sizeof err), "render_set_scene: %s", err);

    /* the cut-outs: IMAGES random images, each triangle one of them or opaque */
    static const int sides[IMAGES][2] = {{1, 1}, {3, 5}, {16, 16}, {17, 9}, {64, 32}, {8, 128}};
    static const float cutoffs[IMAGES] = {0.5f, 0.2f, 0.0f, 1.0f, 0.5f, 0.73f};
    static uint8_t alpha[IMAGES][64 * 128];
    izb_alpha_image images[IMAGES];
    for (int i = 0; i < IMAGES; i++) {
        for (int k = 0; k < sides[i][0] * sides[i][1]; k++) alpha[i][k] = (uint8_t)(rnd() * 256);
        images[i] = (izb_alpha_image){.alpha = alpha[i], .width = sides[i][0], .height = sides[i][1],
                                      .wrap_u = (izb_wrap)(i % 3), .wrap_v = (izb_wrap)((i / 3 + i) % 3),
                                      .cutoff = cutoffs[i]};
    }
    static uint32_t image_of[TRIS];
    static float uv[6 * TRIS];
    for (int t = 0; t < TRIS; t++) image_of[t] = t % 9 == 8 ? IZB_OPAQUE : (uint32_t)(t % IMAGES);
    scene_cutouts c = {.images = images, .image_count = IMAGES, .image_of = image_of, .uv = uv,
                       .tri_count = TRIS, .cut_tris = TRIS};
    CHECK(render_set_cutouts(r, &c, err, sizeof err), "render_set_cutouts: %s", err);
    izb_cutout_set set;
    const izb_cutouts view = {.images = images, .image_count = IMAGES, .uv = uv, .image_of = image_of,
                              .tri_count = TRIS};
    CHECK(izb_cutout_set_build(&set, &view, TRIS, "test"), "cutout set");

    /* the cases */
    static float case_uv[2 * N];
    static uint32_t case_tri[N];
    const float special[] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 1e9f, -1e9f, 0.0f, -0.0f, 1.0f};
    int edges = 0, centres = 0;
    for (int i = 0; i < N; i++) {
        const uint32_t t = (uint32_t)(rnd() * TRIS);
        case_tri[i] = t;
        const int img = t % IMAGES;
        for (int a = 0; a < 2; a++) {
            const int size = sides[img][a];
            const int k = (int)floor(rnd_in(-3.0 * size - 2, 3.0 * size + 2));
            const double pick = rnd();
            float v;
            if (pick < 0.3) v = (float)((k + 0.5) / size), centres++;           /* texel centre */
            else if (pick < 0.6) v = (float)k / (float)size, edges++;            /* texel edge */
            else if (pick < 0.95) v = (float)rnd_in(-4, 4);                      /* anywhere */
            else v = special[(int)(rnd() * (sizeof special / sizeof special[0]))];
            case_uv[2 * i + a] = v;
        }
    }

    /* the program: fullscreen.vert + the case reader + alpha_test.frag, from a directory */
    char dir[] = "/tmp/izb-alpha-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    write_file(dir, "fullscreen.vert", gl_shader_embedded("fullscreen.vert"));
    write_file(dir, "alpha_test.frag", gl_shader_embedded("alpha_test.frag"));
    write_file(dir, "cases.frag", TEST_FRAG);
    GLuint prog = gl_program_load_lib("fullscreen.vert", "cases.frag", "alpha_test.frag", dir, err, sizeof err);
    CHECK(prog != 0, "test program: %s", err);
    const char *names[] = {"fullscreen.vert", "alpha_test.frag", "cases.frag"};
    for (int i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    if (!prog) return test_done();

    GLuint bufs[2], texs[3], fbo;
    glCreateBuffers(2, bufs);
    glNamedBufferStorage(bufs[0], sizeof case_uv, case_uv, 0);
    glNamedBufferStorage(bufs[1], sizeof case_tri, case_tri, 0);
    glCreateTextures(GL_TEXTURE_BUFFER, 2, texs);
    glTextureBuffer(texs[0], GL_RG32F, bufs[0]);
    glTextureBuffer(texs[1], GL_R32UI, bufs[1]);
    glCreateTextures(GL_TEXTURE_2D, 1, &texs[2]);
    glTextureStorage2D(texs[2], 1, GL_R32UI, W, H);
    glCreateFramebuffers(1, &fbo);
    glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT0, texs[2], 0);
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    static uint32_t got[N];
    for (int on = 1; on >= 0; on--) {
        glProgramUniform1i(prog, glGetUniformLocation(prog, "u_alpha_on"), on);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glViewport(0, 0, W, H);
        glDisable(GL_DEPTH_TEST);
        glUseProgram(prog);
        glBindTextureUnit(0, texs[0]);
        glBindTextureUnit(1, texs[1]);
        render_cutouts_bind(r);
        glBindVertexArray(vao);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        memset(got, 0, sizeof got);
        glGetTextureImage(texs[2], 0, GL_RED_INTEGER, GL_UNSIGNED_INT, sizeof got, got);
        int bad = 0, cut = 0, unwritten = 0;
        for (int i = 0; i < N; i++) {
            const uint32_t t = case_tri[i], k = set.tex[t];
            const bool want = on && k != IZB_OPAQUE &&
                              !izb_alpha_keeps(set.pool, &set.textures[k], case_uv[2 * i], case_uv[2 * i + 1]);
            unwritten += got[i] == 0;
            cut += want;
            if ((got[i] == 1) != want && got[i] != 0) {
                if (bad++ < 5)
                    fprintf(stderr, "case %d: tri %u image %u uv (%.9g, %.9g): GLSL %s, C %s\n", i, t, k,
                            (double)case_uv[2 * i], (double)case_uv[2 * i + 1], got[i] == 1 ? "cut" : "kept",
                            want ? "cut" : "kept");
            }
        }
        CHECK(unwritten == 0, "alpha %s: %d cases not written", on ? "on" : "off", unwritten);
        CHECK(bad == 0, "alpha %s: %d of %d cases differ from izb_alpha.h", on ? "on" : "off", bad, N);
        if (on) CHECK(cut > N / 8 && cut < N - N / 8, "only %d of %d cases cut: the cases do not bite", cut, N);
        else CHECK(cut == 0, "alpha off must cut nothing");
    }
    CHECK(edges > N / 4 && centres > N / 4, "edges %d, centres %d", edges, centres);

    /* a count that is not the scene's: refused, nothing cut */
    scene_cutouts wrong = c;
    wrong.tri_count = TRIS - 1;
    CHECK(!render_set_cutouts(r, &wrong, err, sizeof err) && strstr(err, "triangles"), "wrong count: '%s'", err);
    CHECK(!r->alpha_on, "a refused set must leave the alpha test off");

    izb_cutout_set_free(&set);
    glDeleteProgram(prog);
    render_destroy(r);
    depth_pass_card();
    gl_context_shutdown(&ctx);
    return test_done();
}
