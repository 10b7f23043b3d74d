/* scene_builtin.h — internal to scene/: the builders of the built-in scenes (one file each:
 * scene_default.c, scene_tesseract.c, scene_spheres.c, scene_grass.c, scene_foliage.c), which scene_builtin.c's
 * table calls. */
#ifndef SCENE_BUILTIN_H
#define SCENE_BUILTIN_H

#include "scene_frame.h"
#include "scene_soup.h"

/* Each appends its scene to s, the ground first (triangles 0 and 1), and describes its view.
 * n: target triangle count, > 0. Running out of memory is left in s->oom. */
void scene_build_default(soup *s, long n, view_desc *v);
void scene_build_tesseract(soup *s, long n, view_desc *v);
void scene_build_spheres(soup *s, long n, view_desc *v);
void scene_build_grass(soup *s, long n, view_desc *v);
void scene_build_room(soup *s, long n, view_desc *v);
/* n: cards (SCENE_FOLIAGE_MAX_CARDS at most) */
void scene_build_foliage(soup *s, long n, view_desc *v);
/* The built foliage scene's UVs, materials, textures and ranges (scene_foliage.c); false on OOM. */
bool scene_dress_foliage(scene *s);

#endif
