/* scene_material.c — what a loaded model looks like: each assimp material's base colour (MTL Kd,
 * glTF baseColorFactor) and base-colour texture (map_Kd, glTF baseColorTexture), the image read
 * from a file beside the model or from the model itself (glb, data URIs) and decoded with
 * stb_image; and its cut-out (alpha mode, cutoff, wraps: material_alpha), which scene_cutout.c gives
 * the IZB.
 *
 * A texture that is missing or cannot be decoded is not a failure (issue 12): one warning line on
 * stderr, and the material keeps its plain colour. Each image is decoded once however many
 * materials use it. */
#include "scene.h"
#include "scene_common.h"
#include "scene_material.h"
#include "izb_alpha.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <assimp/GltfMaterial.h>
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

/* Open the image file a material names, relative to the model's folder: the path as given
 * (backslashes read as slashes, "./" dropped), that path with its file name in any case, then its
 * last component beside the model in any case (MTL files written on Windows name
 * D:\art\drkwood2.jpg, or IMAGE1.JPG for the IMAGE1.jpg shipped beside the model). NULL when
 * none opens; tried names the first candidate (for the message). */
static FILE *open_beside(const char *model_path, const char *name, char *tried, size_t tried_size);
/* The material's base-colour texture name ("" when it has none); *type (may be NULL): the texture
 * type it came from. */
static void texture_name_type(const struct aiMaterial *m, char out[1024], enum aiTextureType *type);
static void texture_name(const struct aiMaterial *m, char out[1024]);
/* The material's cut-out (issue 18): glTF alphaMode MASK with alphaCutoff (default 0.5) or BLEND,
 * OBJ map_d naming the map_Kd image (its alpha channel) or its own image (map_d: its index in
 * s->textures, -1 when unreadable, which texture_for has warned about: opaque); the wraps of its
 * base-colour texture (type) as the file gives them (glTF samplers; OBJ repeats). Bad values: one
 * warning line naming the material, a defined result (cutoff clamped, NaN 0.5). */
static void material_alpha(const struct aiMaterial *m, const char *path, unsigned index, const char *tex,
                           enum aiTextureType type, int map_d, scene_material *out);
/* OBJ map_d's image name when it names another image than tex (map_Kd's), else "" */
static void own_map_d(const struct aiMaterial *m, const char *tex, char out[1024]);
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
    texture_name_type(m, out, NULL);
}

static void texture_name_type(const struct aiMaterial *m, char out[1024], enum aiTextureType *type)
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
            if (type) *type = types[i];
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

/* fopen(dir/file), or else the entry of dir whose name equals file in any case (the first in
 * strcmp order, so the choice does not hang on the directory's order); path gets what was opened */
static FILE *open_any_case(const char *dir, const char *file, char *path, size_t path_size)
{
    snprintf(path, path_size, "%s/%s", dir, file);
    FILE *f = fopen(path, "rb");
    if (f || !*file) return f;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char best[256] = "";
    for (struct dirent *e; (e = readdir(d));)
        if (strcasecmp(e->d_name, file) == 0 && (!best[0] || strcmp(e->d_name, best) < 0))
            snprintf(best, sizeof best, "%s", e->d_name);
    closedir(d);
    if (!best[0]) return NULL;
    snprintf(path, path_size, "%s/%s", dir, best);
    return fopen(path, "rb");
}

static FILE *open_beside(const char *model_path, const char *name, char *tried, size_t tried_size)
{
    char rel[1024], dir[1024], sub[2100], path[2400];
    snprintf(rel, sizeof rel, "%s", name);
    for (char *c = rel; *c; c++)
        if (*c == '\\') *c = '/';
    const char *r = rel;
    while (r[0] == '.' && r[1] == '/')
        r += 2;
    const char *slash = strrchr(model_path, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - model_path) > 0 ? (int)(slash - model_path) : 1,
                 model_path);
    else
        snprintf(dir, sizeof dir, ".");
    /* 1. the path as given (absolute, or relative to the model's folder) */
    if (r[0] == '/' || !slash)
        snprintf(tried, tried_size, "%s", r);
    else
        snprintf(tried, tried_size, "%s/%s", dir, r);
    FILE *f = fopen(tried, "rb");
    if (f) return f;
    /* 2. the same folder, the file name in any case */
    const char *last = strrchr(r, '/');
    const char *file = last ? last + 1 : r;
    if (last) {
        if (r[0] == '/')
            snprintf(sub, sizeof sub, "%.*s", (int)(last - r) > 0 ? (int)(last - r) : 1, r);
        else
            snprintf(sub, sizeof sub, "%s/%.*s", dir, (int)(last - r), r);
    } else {
        snprintf(sub, sizeof sub, "%s", dir);
    }
    if ((f = open_any_case(sub, file, path, sizeof path))) return f;
    /* 3. the last component beside the model, in any case (a Windows path: "D:/art/wood.jpg") */
    if (last && (f = open_any_case(dir, file, path, sizeof path))) return f;
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
        char file[2048];
        FILE *f = open_beside(model_path, name, file, sizeof file);
        if (!f) {
            snprintf(why, why_size, "cannot open %s (nor a file of that name in any case beside the model)",
                     file);
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
    texture_cache cache = {.keys = calloc(2 * (size_t)n, sizeof *cache.keys)};
    s->materials = calloc(n, sizeof *s->materials);
    /* at most two images per material: the base colour's and an OBJ map_d's own */
    s->textures = calloc(2 * (size_t)n, sizeof *s->textures);
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
        enum aiTextureType type = aiTextureType_DIFFUSE;
        texture_name_type(m, name, &type);
        if (name[0]) out->texture = texture_for(ai, path, name, s, &cache);
        char d[1024];
        own_map_d(m, name, d);
        const int map_d = d[0] ? texture_for(ai, path, d, s, &cache) : -1;
        material_alpha(m, path, i, name, type, map_d, out);
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

/* izb_wrap of an assimp mapping mode (aiTextureMapMode): wrap, clamp, mirror; others repeat */
static int wrap_of(int mode)
{
    return mode == aiTextureMapMode_Clamp ? IZB_WRAP_CLAMP : mode == aiTextureMapMode_Mirror ? IZB_WRAP_MIRROR
                                                                                              : IZB_WRAP_REPEAT;
}

static void own_map_d(const struct aiMaterial *m, const char *tex, char out[1024])
{
    struct aiString d;
    out[0] = '\0';
    if (aiGetMaterialString(m, AI_MATKEY_GLTF_ALPHAMODE, &d) == aiReturn_SUCCESS) return; /* glTF: no map_d */
    if (aiGetMaterialTextureCount(m, aiTextureType_OPACITY) > 0 &&
        aiGetMaterialTexture(m, aiTextureType_OPACITY, 0, &d, NULL, NULL, NULL, NULL, NULL, NULL) == aiReturn_SUCCESS &&
        d.length > 0 && !(tex[0] && strcmp(d.data, tex) == 0))
        snprintf(out, 1024, "%s", d.data);
}

static void material_alpha(const struct aiMaterial *m, const char *path, unsigned index, const char *tex,
                           enum aiTextureType type, int map_d, scene_material *out)
{
    struct aiString mode, opacity;
    float cutoff = 0.5f;
    bool has_cutoff = false;
    if (aiGetMaterialString(m, AI_MATKEY_GLTF_ALPHAMODE, &mode) == aiReturn_SUCCESS) {
        if (strcmp(mode.data, "MASK") == 0) out->alpha = SCENE_ALPHA_MASK;
        else if (strcmp(mode.data, "BLEND") == 0) out->alpha = SCENE_ALPHA_BLEND;
        ai_real c;
        if (aiGetMaterialFloatArray(m, AI_MATKEY_GLTF_ALPHACUTOFF, &c, NULL) == aiReturn_SUCCESS)
            cutoff = (float)c, has_cutoff = true;
    } else if (aiGetMaterialTextureCount(m, aiTextureType_OPACITY) > 0 &&
               aiGetMaterialTexture(m, aiTextureType_OPACITY, 0, &opacity, NULL, NULL, NULL, NULL, NULL, NULL) ==
                   aiReturn_SUCCESS &&
               opacity.length > 0) {
        if (tex[0] && strcmp(opacity.data, tex) == 0) {
            out->alpha = SCENE_ALPHA_MASK; /* OBJ map_d: the map_Kd image's alpha, cut at 0.5 */
        } else if (map_d >= 0) {
            out->alpha = SCENE_ALPHA_MASK; /* OBJ map_d of its own image, cut at 0.5 */
            out->alpha_texture = map_d + 1;
        } /* else its image could not be read: texture_for said so, the material stays opaque */
    }
    if (has_cutoff && !(cutoff >= 0.0f && cutoff <= 1.0f)) {
        fprintf(stderr, "scene '%s': material %u: alphaCutoff %g outside [0, 1]: %s\n", path, index, (double)cutoff,
                cutoff == cutoff ? "clamped" : "0.5");
        cutoff = cutoff == cutoff ? (cutoff < 0.0f ? 0.0f : 1.0f) : 0.5f;
    }
    out->alpha_cutoff = cutoff;
    int u = aiTextureMapMode_Wrap, v = aiTextureMapMode_Wrap;
    if (tex[0]) {
        aiGetMaterialIntegerArray(m, AI_MATKEY_MAPPINGMODE_U(type, 0), &u, NULL);
        aiGetMaterialIntegerArray(m, AI_MATKEY_MAPPINGMODE_V(type, 0), &v, NULL);
    }
    out->wrap_u = wrap_of(u), out->wrap_v = wrap_of(v);
}
