/* test_materials_run.c — a textured model looks as its author made it (issue 12), end to end: the
 * built binary renders assimp's BoxTextured glTF headless into a screenshot, and the PNG holds the
 * texture's colours (the Cesium logo's green hills and white band on the box, which the renderer's
 * own tint never makes); the same model with its texture missing still renders (exit 0) with one
 * warning line, in its plain colour (no green). Suite gl (exits 77 without GL 4.5).
 * usage: test_materials_run PATH-TO-izb-shadows */
#undef NDEBUG
#include <stb_image.h>
#include <sys/stat.h>

#include "run_util.h"
#include "test.h"
#include "test_io.h"

#define BOX_DIR "/usr/share/assimp/models/glTF2/BoxTextured-glTF"

/* pixels of the PNG at path that are the logo's green: green well above red and blue */
static long green_pixels(const char *path, long *covered)
{
    int w = 0, h = 0, n = 0;
    unsigned char *px = stbi_load(path, &w, &h, &n, 3);
    CHECK(px && w == 320 && h == 240, "%s: a 320x240 PNG", path);
    long green = 0;
    *covered = 0;
    for (long i = 0; px && i < (long)w * h; i++) {
        const unsigned char *p = px + 3 * i;
        green += p[1] > p[0] + 25 && p[1] > p[2] + 40;
        *covered += !(p[2] > p[0] + 30); /* the sky is blue; the box is grey, white, green, blue */
    }
    stbi_image_free(px);
    return green;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_materials_run PATH-TO-izb-shadows\n");
        return 1;
    }
    struct stat st;
    if (stat(BOX_DIR "/BoxTextured.gltf", &st) != 0) TEST_SKIP("assimp-testmodels not installed");
    char dir[] = "/tmp/izb-materials-XXXXXX", shot[256], gltf[256], bin[256];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(shot, sizeof shot, "%s/box.png", dir);

    char *argv_tex[] = {argv[1],  BOX_DIR "/BoxTextured.gltf", "--headless", "--frames", "2",  "--width", "320",
                        "--height", "240", "--backend", "cpu", "--screenshot", shot, NULL};
    run_result res;
    run_program(argv_tex, false, &res);
    if (res.code == 1 && strstr(res.err, "EGL")) TEST_SKIP("no headless GL here: %s", res.err);
    CHECK(res.code == 0, "textured box: exit %d", res.code);
    CHECK(res.err[0] == '\0', "textured box: nothing on stderr: %s", res.err);
    long covered = 0, green = green_pixels(shot, &covered);
    /* the box covers about a fifth of the image and green is a third of the logo's area */
    CHECK(covered > 5000 && green > 500, "textured box: %ld green pixels of %ld on the box", green, covered);
    unlink(shot);

    /* the same model without its PNG: one warning line, exit 0, the plain base colour */
    snprintf(gltf, sizeof gltf, "%s/BoxTextured.gltf", dir);
    snprintf(bin, sizeof bin, "%s/BoxTextured0.bin", dir);
    CHECK(test_copy_file(BOX_DIR "/BoxTextured.gltf", gltf) && test_copy_file(BOX_DIR "/BoxTextured0.bin", bin),
          "copy the model without its texture");
    char *argv_missing[] = {argv[1],  gltf,  "--headless", "--frames",     "2",  "--width", "320", "--height",
                            "240",    "--backend", "cpu",  "--screenshot", shot, NULL};
    run_program(argv_missing, false, &res);
    CHECK(res.code == 0, "missing texture: exit %d, want 0", res.code);
    CHECK(count_lines(res.err) == 1 && strstr(res.err, "CesiumLogoFlat.png") && strstr(res.err, "plain colour"),
          "missing texture: one warning line naming it: %s", res.err);
    green = green_pixels(shot, &covered);
    CHECK(covered > 5000 && green == 0, "missing texture: the box is drawn (%ld px) without the logo (%ld green)",
          covered, green);
    unlink(shot);
    unlink(gltf);
    unlink(bin);
    rmdir(dir);
    return test_done();
}
