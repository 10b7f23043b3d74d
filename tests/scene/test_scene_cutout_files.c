/* test_scene_cutout_files.c — cut-outs read as authors write them (issue 18 E), from files this
 * test writes into a temporary folder: a 4x4 RGBA image (TGA: stb_image reads it, no encoder
 * needed) whose left half has alpha 0; an OBJ quad whose MTL names it in map_Kd and map_d (a mask
 * at 0.5, repeating); glTF quads with alphaMode MASK and alphaCutoff 0.3 and a sampler that clamps
 * u and mirrors v, with BLEND (cast as a mask at 0.5), with OPAQUE, and with alphaCutoff 7 (one
 * warning, clamped to 1); the factor's alpha (times the texture's; alone, untextured, as a 1x1
 * image); an OBJ whose map_d names its own (grey) image, which is the cut; one whose map_d image
 * is missing (one warning, opaque). Each is
 * loaded and turned into the IZB's cut-outs (scene_cutouts_make), whose images, cutoffs, wraps and
 * cut triangles are checked. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scene.h"
#include "scene_cutout.h"
#include "test.h"
#include "test_io.h"

static char dir[] = "/tmp/izb-cutout-files-XXXXXX";

static void put(const char *name, const void *data, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}
static void put_text(const char *name, const char *text) { put(name, text, strlen(text)); }

/* 4x4 BGRA TGA, rows from the bottom: alpha 0 in columns 0-1, 255 in 2-3 */
static void write_image(const char *name)
{
    uint8_t t[18 + 64] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 4, 0, 32, 8};
    for (int i = 0; i < 16; i++) {
        uint8_t *p = t + 18 + 4 * i;
        p[0] = 40, p[1] = 160, p[2] = 60, p[3] = (i % 4) < 2 ? 0 : 255;
    }
    put(name, t, sizeof t);
}

/* 4x4 grey TGA (BGRA, alpha 255 everywhere), rows from the bottom: rows 0-1 black, 2-3 white */
static void write_grey_image(const char *name)
{
    uint8_t t[18 + 64] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 4, 0, 32, 8};
    for (int i = 0; i < 16; i++) {
        uint8_t *p = t + 18 + 4 * i;
        p[0] = p[1] = p[2] = i / 4 < 2 ? 0 : 255, p[3] = 255;
    }
    put(name, t, sizeof t);
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static void base64(const uint8_t *in, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        const uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = B64[v >> 18 & 63], out[o++] = B64[v >> 12 & 63];
        out[o++] = i + 1 < n ? B64[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? B64[v & 63] : '=';
    }
    out[o] = '\0';
}

/* w x h BGRA TGA, rows from the bottom, alpha 255 but texel (0, 0) 0 (1x1: all 0) */
static void write_tga(const char *name, int w, int h)
{
    uint8_t t[18 + 4 * 64] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, (uint8_t)w, 0, (uint8_t)h, 0, 32, 8};
    for (int i = 0; i < w * h && i < 64; i++) {
        uint8_t *p = t + 18 + 4 * i;
        p[0] = 40, p[1] = 160, p[2] = 60, p[3] = i == 0 ? 0 : 255;
    }
    put(name, t, 18 + 4 * (size_t)(w * h));
}

static const char *gltf_image = "leaf.tga"; /* the image write_gltf_tex's texture names */

/* a glTF quad (positions, uvs, indices in one data-URI buffer) with the material's extra JSON */
static void write_gltf_tex(const char *name, const char *material, const char *sampler, bool textured);
static void write_gltf(const char *name, const char *material, const char *sampler)
{
    write_gltf_tex(name, material, sampler, true);
}
static void write_gltf_tex(const char *name, const char *material, const char *sampler, bool textured)
{
    uint8_t buf[48 + 32 + 12];
    const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    memcpy(buf, pos, 48), memcpy(buf + 48, uv, 32), memcpy(buf + 80, idx, 12);
    char b64[200], json[4096];
    base64(buf, sizeof buf, b64);
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1},\"indices\":2,"
             "\"material\":0}]}],"
             "\"materials\":[{\"pbrMetallicRoughness\":{%s}%s}],"
             "\"textures\":[{\"source\":0%s}],\"images\":[{\"uri\":\"%s\"}],%s"
             "\"buffers\":[{\"byteLength\":92,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":48},"
             "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":32},{\"buffer\":0,\"byteOffset\":80,\"byteLength\":12}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\","
             "\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5126,\"count\":4,\"type\":\"VEC2\"},"
             "{\"bufferView\":2,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}]}",
             textured ? "\"baseColorTexture\":{\"index\":0},\"baseColorFactor\":[1,1,1,0.5]"
                      : "\"baseColorFactor\":[1,1,1,0.2]",
             material, sampler ? ",\"sampler\":0" : "", gltf_image, sampler ? sampler : "", b64);
    put_text(name, json);
}

/* load name; its cut-outs into *c; the stderr lines into *lines */
static bool load(const char *name, scene *s, scene_cutouts *c, int *lines)
{
    char path[512], err[512], captured[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    test_stderr_begin();
    const bool ok = scene_load_file(path, s, err, sizeof err);
    test_stderr_end(captured, sizeof captured);
    CHECK(ok, "%s: %s", name, err);
    *lines = 0;
    for (const char *p = captured; *p; p++) *lines += *p == '\n';
    if (!ok) return false;
    CHECK(scene_cutouts_make(s, c, err, sizeof err), "%s: cutouts: %s", name, err);
    return true;
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    write_image("leaf.tga");
    write_grey_image("other.tga");
    put_text("card.obj", "mtllib card.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                         "usemtl leaf\nf 1/1 2/2 3/3\nf 1/1 3/3 4/4\n");
    put_text("card.mtl", "newmtl leaf\nKd 1 1 1\nmap_Kd leaf.tga\nmap_d leaf.tga\n");
    put_text("other.obj", "mtllib other.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\n"
                          "usemtl leaf\nf 1/1 2/2 3/3\n");
    put_text("other.mtl", "newmtl leaf\nKd 1 1 1\nmap_Kd leaf.tga\nmap_d other.tga\n");
    put_text("gone.obj", "mtllib gone.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\n"
                         "usemtl leaf\nf 1/1 2/2 3/3\n");
    put_text("gone.mtl", "newmtl leaf\nKd 1 1 1\nmap_Kd leaf.tga\nmap_d nothere.tga\n");
    write_gltf("mask.gltf", ",\"alphaMode\":\"MASK\",\"alphaCutoff\":0.3",
               "\"samplers\":[{\"wrapS\":33071,\"wrapT\":33648}],");
    write_gltf("blend.gltf", ",\"alphaMode\":\"BLEND\"", NULL);
    write_gltf("opaque.gltf", "", NULL);
    write_gltf("cutoff7.gltf", ",\"alphaMode\":\"MASK\",\"alphaCutoff\":7", NULL);
    write_gltf_tex("plain.gltf", ",\"alphaMode\":\"MASK\"", NULL, false);
    write_gltf("cutoffneg.gltf", ",\"alphaMode\":\"MASK\",\"alphaCutoff\":-0.5", NULL);
    gltf_image = "nothere.tga";
    write_gltf("notex.gltf", ",\"alphaMode\":\"MASK\"", NULL);
    gltf_image = "leaf.tga";
    write_tga("npot.tga", 3, 5);
    write_tga("one.tga", 1, 1);
    put_text("npot.obj", "mtllib npot.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nusemtl a\nf 1/1 2/2 3/3\n");
    put_text("npot.mtl", "newmtl a\nKd 1 1 1\nmap_Kd npot.tga\nmap_d npot.tga\n");
    put_text("one.obj", "mtllib one.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nusemtl a\nf 1/1 2/2 3/3\n");
    put_text("one.mtl", "newmtl a\nKd 1 1 1\nmap_Kd one.tga\nmap_d one.tga\n");

    scene s;
    scene_cutouts c;
    int lines;
    /* OBJ map_d = map_Kd: a mask at 0.5 from the image's alpha, repeating, both triangles cut */
    if (load("card.obj", &s, &c, &lines)) {
        CHECK(c.image_count == 1 && c.cut_tris == 2, "obj: %d images, %d cut triangles", c.image_count, c.cut_tris);
        if (c.image_count == 1) {
            const izb_alpha_image *im = &c.images[0];
            CHECK(im->width == 4 && im->height == 4 && im->cutoff == 0.5f && im->wrap_u == IZB_WRAP_REPEAT &&
                      im->wrap_v == IZB_WRAP_REPEAT,
                  "obj image %dx%d cutoff %g wraps %d %d", im->width, im->height, (double)im->cutoff, im->wrap_u,
                  im->wrap_v);
            CHECK(im->alpha[0] == 0 && im->alpha[3] == 255 && im->alpha[12] == 0 && im->alpha[15] == 255,
                  "obj alpha: left half cut, right half kept");
        }
        CHECK(lines == 0, "obj: %d warning lines", lines);
        scene_cutouts_free(&c);
        scene_free(&s);
    }
    /* glTF MASK, alphaCutoff 0.3, clamp x mirror */
    if (load("mask.gltf", &s, &c, &lines)) {
        CHECK(c.image_count == 1 && c.cut_tris == 2, "mask: %d images, %d cut", c.image_count, c.cut_tris);
        if (c.image_count == 1)
            CHECK(c.images[0].cutoff == 0.3f && c.images[0].wrap_u == IZB_WRAP_CLAMP &&
                      c.images[0].wrap_v == IZB_WRAP_MIRROR,
                  "mask: cutoff %g wraps %d %d", (double)c.images[0].cutoff, c.images[0].wrap_u, c.images[0].wrap_v);
        CHECK(lines == 0, "mask: %d warning lines", lines);
        scene_cutouts_free(&c);
        scene_free(&s);
    }
    /* the factor's alpha: textured (factor 0.5: 255 -> 128) and alone (0.2: a 1x1 image of 51) */
    if (load("mask.gltf", &s, &c, &lines)) {
        CHECK(c.image_count == 1 && c.images[0].alpha[3] == 128 && c.images[0].alpha[0] == 0,
              "the texture's alpha times the factor's");
        scene_cutouts_free(&c);
        scene_free(&s);
    }
    if (load("plain.gltf", &s, &c, &lines)) {
        CHECK(c.image_count == 1 && c.cut_tris == 2 && c.images[0].width == 1 && c.images[0].alpha[0] == 51,
              "a masked material without texture: %d images", c.image_count);
        scene_cutouts_free(&c);
        scene_free(&s);
    }
    /* BLEND: cast as a mask at 0.5; OPAQUE: nothing cut */
    if (load("blend.gltf", &s, &c, &lines)) {
        CHECK(c.image_count == 1 && c.cut_tris == 2 && c.images[0].cutoff == 0.5f, "blend: %d images, %d cut",
              c.image_count, c.cut_tris);
        scene_cutouts_free(&c);
        scene_free(&s);
    }
    if (load("opaque.gltf", &s, &c, &lines)) {
        CHECK(c.image_count == 0 && c.cut_tris == 0, "opaque: %d images, %d cut", c.image_count, c.cut_tris);
        scene_cutouts_free(&c);
        scene_free(&s);
    }
    /* bad input: alphaCutoff 7 (clamped to 1, one line); map_d of another image (opaque, one line) */
    if (load("cutoff7.gltf", &s, &c, &lines)) {
        CHECK(lines == 1 && c.image_count == 1 && c.images[0].cutoff == 1.0f, "cutoff 7: %d lines, cutoff %g", lines,
              c.image_count ? (double)c.images[0].cutoff : -1.0);
        scene_cutouts_free(&c);
        scene_free(&s);
    }
    /* map_d of its own image (grey, no alpha below 255): its grey is the cut, flipped to v up */
    if (load("other.obj", &s, &c, &lines)) {
        CHECK(lines == 0 && c.cut_tris == 1 && c.image_count == 1, "map_d of another image: %d lines, %d cut",
              lines, c.cut_tris);
        if (c.image_count == 1) {
            const izb_alpha_image *im = &c.images[0];
            int wrong = 0;
            for (int y = 0; im->width == 4 && im->height == 4 && y < 4; y++)
                for (int x = 0; x < 4; x++) wrong += im->alpha[y * 4 + x] != (y < 2 ? 0 : 255); /* v < 0.5 black */
            CHECK(im->width == 4 && im->height == 4 && wrong == 0 && im->cutoff == 0.5f,
                  "map_d's own image: %dx%d, %d texels wrong", im->width, im->height, wrong);
        }
        scene_cutouts_free(&c);
        scene_free(&s);
    }
    /* bad input: alphaCutoff -0.5 (one line, clamped to 0: nothing cut) */
    if (load("cutoffneg.gltf", &s, &c, &lines)) {
        CHECK(lines == 1 && c.image_count == 1 && c.images[0].cutoff == 0.0f, "cutoff -0.5: %d lines, cutoff %g",
              lines, c.image_count ? (double)c.images[0].cutoff : -1.0);
        scene_cutouts_free(&c);
        scene_free(&s);
    }
    /* bad input: a MASK whose texture is missing: the texture's one line, the factor alone (alpha
     * 0.5 -> 128, kept at cutoff 0.5) as a 1x1 image */
    if (load("notex.gltf", &s, &c, &lines)) {
        CHECK(lines == 1 && c.image_count == 1 && c.cut_tris == 2 && c.images[0].width == 1 &&
                  c.images[0].height == 1 && c.images[0].alpha[0] == 128,
              "missing MASK texture: %d lines, %d images, %d cut", lines, c.image_count, c.cut_tris);
        scene_cutouts_free(&c);
        scene_free(&s);
    }
    /* a non-power-of-two (3x5) and a 1x1 image: read as they are, no warning, their one transparent
     * texel still one (izb_alpha.h wraps any side; core_alpha tests its texel rule on such sides) */
    const char *small[2] = {"npot.obj", "one.obj"};
    const int sw[2] = {3, 1}, sh[2] = {5, 1};
    for (int k = 0; k < 2; k++)
        if (load(small[k], &s, &c, &lines)) {
            const bool shape = c.image_count == 1 && c.images[0].width == sw[k] && c.images[0].height == sh[k];
            int zeros = 0;
            for (int i = 0; shape && i < sw[k] * sh[k]; i++) zeros += c.images[0].alpha[i] == 0;
            CHECK(lines == 0 && shape && c.cut_tris == 1 && zeros == 1, "%s: %d lines, %d images, %d zero texels",
                  small[k], lines, c.image_count, zeros);
            scene_cutouts_free(&c);
            scene_free(&s);
        }
    /* bad input: a map_d image that is not there: one line (the texture's), opaque */
    if (load("gone.obj", &s, &c, &lines)) {
        CHECK(lines == 1 && c.cut_tris == 0, "missing map_d image: %d lines, %d cut", lines, c.cut_tris);
        scene_cutouts_free(&c);
        scene_free(&s);
    }
    const char *files[] = {"leaf.tga", "other.tga", "card.obj", "card.mtl", "other.obj", "other.mtl", "gone.obj", "gone.mtl",
                           "cutoffneg.gltf", "notex.gltf", "npot.tga", "one.tga", "npot.obj", "npot.mtl", "one.obj",
                           "one.mtl",
                           "mask.gltf", "blend.gltf", "opaque.gltf", "cutoff7.gltf", "plain.gltf"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    return test_done();
}
