/* scene_material.c — what a loaded model looks like: each assimp material's base colour (MTL Kd,
 * glTF baseColorFactor) and base-colour texture (map_Kd, glTF baseColorTexture), the image read
 * from a file beside the model or from the model itself (glb, data URIs) and decoded with
 * stb_image. Render-side data only: the IZB never sees it.
 *
 * A texture that is missing or cannot be decoded is not a failure (issue 12): one warning line on
 * stderr, and the material keeps its plain colour. Each image is decoded once however many
 * materials use it. */
#include "scene.h"
#include "scene_common.h"
#include "scene_material.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/material.h>
#include <assimp/scene.h>
#include <assimp/texture.h>
#include <stb_image.h>

/* The GL's guaranteed texture size is smaller, but every GL 4.5 we target takes 16384. */
enum { MAX_TEXTURE_SIDE = 16384 };

/* Images decoded so far, by the name the material gives (so two materials share one image). */
typedef struct texture_cache {
    char (*keys)[1024];
    int count;
} texture_cache;

/* The material's base-colour texture name ("" when it has none). */
static void texture_name(const struct aiMaterial *m, char out[1024]);
/* Decode the image `name` refers to: embedded ("*N", or an embedded image's file name) or a file
 * relative to the model's folder. False with the reason in why. */
static bool decode_texture(const struct aiScene *ai, const char *model_path, const char *name, scene_texture *t,
                           char *why, size_t why_size);
/* The texture index for `name` in s, decoding it on first use; -1 (after one warning) when it
 * cannot be read. */
static int texture_for(const struct aiScene *ai, const char *model_path, const char *name, scene *s,
                       texture_cache *cache);

static void texture_name(const struct aiMaterial *m, char out[1024])
{
    struct aiString str;
    out[0] = '\0';
    /* glTF's importer fills BASE_COLOR (and DIFFUSE in older versions); OBJ's map_Kd is DIFFUSE */
    const enum aiTextureType types[2] = {aiTextureType_BASE_COLOR, aiTextureType_DIFFUSE};
    for (int i = 0; i < 2; i++) {
        if (aiGetMaterialTextureCount(m, types[i]) > 0 &&
            aiGetMaterialTexture(m, types[i], 0, &str, NULL, NULL, NULL, NULL, NULL, NULL) == aiReturn_SUCCESS &&
            str.length > 0) {
            snprintf(out, 1024, "%s", str.data);
            return;
        }
    }
}

/* the embedded image `name` names: "*N", or one whose mFilename ends like name; NULL if none */
static const struct aiTexture *embedded(const struct aiScene *ai, const char *name)
{
    if (name[0] == '*') {
        char *end;
        long i = strtol(name + 1, &end, 10);
        return !*end && i >= 0 && (unsigned long)i < ai->mNumTextures ? ai->mTextures[i] : NULL;
    }
    size_t n = strlen(name);
    for (unsigned i = 0; i < ai->mNumTextures; i++) {
        const struct aiTexture *t = ai->mTextures[i];
        size_t k = t ? t->mFilename.length : 0;
        if (k > 0 && k <= n && strcmp(name + n - k, t->mFilename.data) == 0) return t;
    }
    return NULL;
}

static bool decode_texture(const struct aiScene *ai, const char *model_path, const char *name, scene_texture *t,
                           char *why, size_t why_size)
{
    int w = 0, h = 0, channels = 0;
    unsigned char *rgba = NULL;
    const struct aiTexture *e = embedded(ai, name);
    if (e && e->mHeight == 0) { /* compressed (PNG, JPEG): mWidth is its size in bytes */
        rgba = stbi_load_from_memory((const unsigned char *)e->pcData, (int)e->mWidth, &w, &h, &channels, 4);
    } else if (e) { /* raw texels, BGRA */
        if (e->mWidth > MAX_TEXTURE_SIDE || e->mHeight > MAX_TEXTURE_SIDE) {
            snprintf(why, why_size, "%ux%u texels, more than %d a side", e->mWidth, e->mHeight, MAX_TEXTURE_SIDE);
            return false;
        }
        w = (int)e->mWidth, h = (int)e->mHeight;
        rgba = malloc((size_t)w * (size_t)h * 4);
        for (size_t i = 0; rgba && i < (size_t)w * (size_t)h; i++) {
            const struct aiTexel *x = &e->pcData[i];
            rgba[4 * i] = x->r, rgba[4 * i + 1] = x->g, rgba[4 * i + 2] = x->b, rgba[4 * i + 3] = x->a;
        }
        if (!rgba) {
            snprintf(why, why_size, "out of memory");
            return false;
        }
    } else if (name[0] == '*') {
        snprintf(why, why_size, "no such embedded image");
        return false;
    } else {
        /* a file beside the model; MTL files written on Windows say ".\wood.jpg" */
        char rel[1024], file[2048];
        snprintf(rel, sizeof rel, "%s", name);
        for (char *c = rel; *c; c++)
            if (*c == '\\') *c = '/';
        const char *r = rel;
        while (r[0] == '.' && r[1] == '/')
            r += 2;
        const char *slash = strrchr(model_path, '/');
        if (r[0] == '/' || !slash)
            snprintf(file, sizeof file, "%s", r);
        else
            snprintf(file, sizeof file, "%.*s/%s", (int)(slash - model_path), model_path, r);
        FILE *f = fopen(file, "rb");
        if (!f) {
            snprintf(why, why_size, "cannot open %s", file);
            return false;
        }
        rgba = stbi_load_from_file(f, &w, &h, &channels, 4);
        fclose(f);
    }
    if (!rgba) {
        snprintf(why, why_size, "cannot decode it (%s)", stbi_failure_reason() ? stbi_failure_reason() : "stb_image");
        return false;
    }
    if (w <= 0 || h <= 0 || w > MAX_TEXTURE_SIDE || h > MAX_TEXTURE_SIDE) {
        snprintf(why, why_size, "%dx%d texels, more than %d a side", w, h, MAX_TEXTURE_SIDE);
        stbi_image_free(rgba);
        return false;
    }
    *t = (scene_texture){.rgba = rgba, .width = w, .height = h};
    return true;
}

static int texture_for(const struct aiScene *ai, const char *model_path, const char *name, scene *s,
                       texture_cache *cache)
{
    for (int i = 0; i < cache->count; i++) /* keys[i] belongs to textures[i] (or a failed read: -1) */
        if (strcmp(cache->keys[i], name) == 0) return s->textures[i].rgba ? i : -1;
    int i = cache->count;
    scene_texture t = {0};
    char why[2200];
    if (!decode_texture(ai, model_path, name, &t, why, sizeof why)) {
        for (char *c = why; *c; c++) /* one line: a name from the file could hold a newline */
            if (*c == '\n' || *c == '\r') *c = ' ';
        char shown[1024];
        snprintf(shown, sizeof shown, "%s", name);
        for (char *c = shown; *c; c++)
            if (*c == '\n' || *c == '\r') *c = ' ';
        fprintf(stderr, "scene '%s': texture '%s': %s; drawn in its plain colour\n", model_path, shown, why);
    }
    snprintf(cache->keys[i], sizeof cache->keys[i], "%s", name);
    s->textures[i] = t; /* a failed read stays in the cache as an empty image: warned once */
    cache->count++;
    s->texture_count = cache->count;
    return t.rgba ? i : -1;
}

bool scene_materials_load(const struct aiScene *ai, const char *path, scene *s, char *err, size_t err_size)
{
    unsigned n = ai->mNumMaterials;
    if (n == 0) return true;
    texture_cache cache = {.keys = calloc(n, sizeof *cache.keys)};
    s->materials = calloc(n, sizeof *s->materials);
    s->textures = calloc(n, sizeof *s->textures); /* at most one image per material */
    if (!cache.keys || !s->materials || !s->textures) {
        free(cache.keys);
        return scene_errorf(err, err_size, "scene '%s': out of memory for %u materials", path, n);
    }
    for (unsigned i = 0; i < n; i++) {
        const struct aiMaterial *m = ai->mMaterials[i];
        scene_material *out = &s->materials[i];
        *out = (scene_material){.base_colour = {1.0f, 1.0f, 1.0f, 1.0f}, .texture = -1};
        s->material_count = (int)i + 1;
        if (!m) continue;
        struct aiColor4D c;
        if (aiGetMaterialColor(m, AI_MATKEY_BASE_COLOR, &c) == aiReturn_SUCCESS ||
            aiGetMaterialColor(m, AI_MATKEY_COLOR_DIFFUSE, &c) == aiReturn_SUCCESS) {
            const float rgba[4] = {c.r, c.g, c.b, c.a};
            for (int k = 0; k < 4; k++) /* clamp what a file may hold (NaN, negative, HDR) */
                out->base_colour[k] = rgba[k] >= 0.0f ? (rgba[k] <= 1.0f ? rgba[k] : 1.0f) : 0.0f;
        }
        char name[1024];
        texture_name(m, name);
        if (name[0]) out->texture = texture_for(ai, path, name, s, &cache);
    }
    free(cache.keys);
    return true;
}

bool scene_material_is_default(const struct aiScene *ai, unsigned material)
{
    if (material >= ai->mNumMaterials || !ai->mMaterials[material]) return true;
    const struct aiMaterial *m = ai->mMaterials[material];
    struct aiString name;
    char tex[1024];
    texture_name(m, tex);
    return !tex[0] && aiGetMaterialString(m, AI_MATKEY_NAME, &name) == aiReturn_SUCCESS &&
           strcmp(name.data, AI_DEFAULT_MATERIAL_NAME) == 0;
}
