/* test_scene_materials.c — materials of loaded files (scene/scene_material.c, issue 12): glTF's
 * baseColorTexture from a file beside the model, from a .glb and from a data URI decode to the
 * same 211x211 Cesium logo; its texture coordinates lie on the logo; OBJ's Kd and map_Kd (written
 * with Windows paths) come along; a missing or undecodable texture is one warning line and a plain
 * colour, never a failure; built-in scenes and files without materials have none (the renderer's
 * own tint). Needs assimp's test models (Debian assimp-testmodels). */
#undef NDEBUG
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scene.h"
#include "test.h"
#include "test_io.h"

#define GLTF "/usr/share/assimp/models/glTF2"
#define OBJ "/usr/share/assimp/models/OBJ"

/* scene_load with stderr captured into warn */
static bool load_captured(const char *path, scene *s, char *warn, size_t warn_size)
{
    char err[512];
    test_stderr_begin();
    bool ok = scene_load(path, s, err, sizeof err);
    test_stderr_end(warn, warn_size);
    if (!ok) fprintf(stderr, "%s: %s\n", path, err);
    fprintf(stderr, "%s", warn);
    return ok;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The Cesium logo box: one textured material covering all 12 triangles, uv within [0, 1]. */
static void check_box(const char *path)
{
    scene s;
    char warn[4096];
    if (!load_captured(path, &s, warn, sizeof warn)) {
        CHECK(false, "%s loads", path);
        return;
    }
    CHECK(warn[0] == '\0', "%s: no warning: %s", path, warn);
    CHECK(s.tri_count == 12 && s.uv && s.uv_tri_count == 12, "%s: 12 triangles with uv (%d, %d)", path, s.tri_count,
          s.uv_tri_count);
    CHECK(s.range_count == 1 && s.ranges[0].first == 0 && s.ranges[0].count == 12, "%s: one range over the box", path);
    int m = s.range_count == 1 ? s.ranges[0].material : -1;
    CHECK(m >= 0 && m < s.material_count, "%s: range names a material", path);
    if (m < 0 || m >= s.material_count) {
        scene_free(&s);
        return;
    }
    const scene_material *mat = &s.materials[m];
    CHECK(mat->texture >= 0 && mat->texture < s.texture_count, "%s: material has its texture", path);
    CHECK(mat->base_colour[0] == 1.0f && mat->base_colour[3] == 1.0f, "%s: base colour factor 1 (the file's default)",
          path);
    if (mat->texture >= 0) {
        const scene_texture *t = &s.textures[mat->texture];
        CHECK(t->width == 211 && t->height == 211 && t->rgba, "%s: 211x211 logo, got %dx%d", path, t->width,
              t->height);
        /* the logo: a blue sky (top) over green hills (bottom), white between */
        if (t->rgba && t->width == 211) {
            const unsigned char *top = t->rgba + 4 * (size_t)(40 * 211 + 60);
            const unsigned char *bottom = t->rgba + 4 * (size_t)(180 * 211 + 105);
            CHECK(top[2] > top[0] + 40 && top[2] > top[1], "%s: row 40 is sky blue (%d,%d,%d)", path, top[0], top[1],
                  top[2]);
            CHECK(bottom[1] > bottom[0] && bottom[1] > bottom[2] + 40, "%s: row 180 is green (%d,%d,%d)", path,
                  bottom[0], bottom[1], bottom[2]);
        }
    }
    bool in_range = true; /* the file's TEXCOORD_0 spans u 0..6 (repeat), v 0..1 */
    float umax = 0.0f;
    for (int i = 0; i < 12 * 6; i += 2) {
        in_range &= s.uv[i] >= -1e-6f && s.uv[i] <= 6.0f + 1e-6f && s.uv[i + 1] >= -1e-6f && s.uv[i + 1] <= 1.0f + 1e-6f;
        umax = s.uv[i] > umax ? s.uv[i] : umax;
    }
    CHECK(in_range && umax == 6.0f, "%s: uv within the file's bounds (u up to %g)", path, (double)umax);
    scene_free(&s);
}

int main(void)
{
    struct stat st;
    if (stat(GLTF "/BoxTextured-glTF/BoxTextured.gltf", &st) != 0) TEST_SKIP("assimp-testmodels not installed");

    check_box(GLTF "/BoxTextured-glTF/BoxTextured.gltf");          /* PNG beside the model */
    check_box(GLTF "/BoxTextured-glTF-Binary/BoxTextured.glb");    /* PNG inside the .glb */
    check_box(GLTF "/BoxTextured-glTF-Embedded/BoxTextured.gltf"); /* data URI */

    /* OBJ + MTL: Kd and map_Kd with Windows paths (".\SpiderTex.jpg") */
    scene s;
    char warn[4096];
    CHECK(load_captured(OBJ "/spider.obj", &s, warn, sizeof warn), "spider.obj loads");
    CHECK(warn[0] == '\0', "spider: every texture found: %s", warn);
    int textured = 0, covered = 0;
    bool kd_seen = false;
    for (int i = 0; i < s.range_count; i++) {
        const scene_material *m = &s.materials[s.ranges[i].material];
        textured += m->texture >= 0;
        covered += s.ranges[i].count;
        kd_seen |= m->base_colour[0] > 0.82f && m->base_colour[0] < 0.83f; /* Skin: Kd 0.827451 */
    }
    CHECK(s.range_count >= 4 && textured == s.range_count && covered == s.tri_count,
          "spider: %d ranges, %d textured, %d of %d triangles covered", s.range_count, textured, covered, s.tri_count);
    CHECK(kd_seen, "spider: Skin's Kd 0.827451 read");
    CHECK(s.texture_count == 5, "spider: 5 images, each decoded once (%d)", s.texture_count);
    scene_free(&s);

    /* a model without materials (assimp's default stand-in): no ranges, the renderer's tint */
    CHECK(load_captured(OBJ "/WusonOBJ.obj", &s, warn, sizeof warn), "WusonOBJ.obj loads");
    CHECK(s.range_count == 0 && warn[0] == '\0', "WusonOBJ.obj: no material ranges (%d)", s.range_count);
    scene_free(&s);
    CHECK(load_captured("builtin:default", &s, warn, sizeof warn), "builtin:default");
    CHECK(s.range_count == 0 && s.material_count == 0 && !s.uv, "built-in scenes carry no materials");
    scene_free(&s);

    /* missing texture: the .gltf and its .bin copied without the PNG; then a PNG that is garbage */
    char dir[] = "/tmp/izb-mat-XXXXXX", gltf[256], bin[256], png[256];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(gltf, sizeof gltf, "%s/BoxTextured.gltf", dir);
    snprintf(bin, sizeof bin, "%s/BoxTextured0.bin", dir);
    snprintf(png, sizeof png, "%s/CesiumLogoFlat.png", dir);
    CHECK(test_copy_file(GLTF "/BoxTextured-glTF/BoxTextured.gltf", gltf) &&
              test_copy_file(GLTF "/BoxTextured-glTF/BoxTextured0.bin", bin),
          "copy the model");
    for (int pass = 0; pass < 2; pass++) {
        const char *what = pass == 0 ? "missing" : "undecodable";
        if (pass == 1) {
            FILE *f = fopen(png, "wb");
            CHECK(f && fputs("not a PNG at all\n", f) >= 0 && fclose(f) == 0, "write garbage PNG");
        }
        bool ok = load_captured(gltf, &s, warn, sizeof warn);
        CHECK(ok, "%s texture: the model still loads", what);
        CHECK(lines(warn) == 1 && strstr(warn, "CesiumLogoFlat.png") && strstr(warn, "plain colour"),
              "%s texture: one warning line naming it: %s", what, warn);
        CHECK(strstr(warn, pass == 0 ? "cannot open" : "cannot decode") != NULL, "%s: the reason: %s", what, warn);
        CHECK(ok && s.tri_count == 12 && s.range_count == 1 && s.materials[s.ranges[0].material].texture == -1,
              "%s texture: the material keeps its plain colour", what);
        scene_free(&s);
    }
    unlink(png);
    unlink(bin);
    unlink(gltf);
    rmdir(dir);
    return test_done();
}
