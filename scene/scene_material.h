/* scene_material.h — internal to scene/: materials of loaded files (scene_material.c), for the
 * assimp loader. */
#ifndef SCENE_MATERIAL_H
#define SCENE_MATERIAL_H

#include <stdbool.h>
#include <stddef.h>

#include "scene.h"

struct aiScene;
/* Fill s->materials (one per assimp material) and s->textures from ai; path is the model's file
 * (textures are looked up beside it). Unreadable textures warn on stderr and are left out; false
 * (message in err) only when out of memory. */
bool scene_materials_load(const struct aiScene *ai, const char *path, scene *s, char *err, size_t err_size);
/* True for assimp's stand-in material (a file with none): such triangles keep the renderer's tint. */
bool scene_material_is_default(const struct aiScene *ai, unsigned material);

#endif
