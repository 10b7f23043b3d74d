/* scene.c — the dispatcher: "builtin:NAME[:N]" goes to scene_builtin.c, anything else is a file
 * for scene_assimp.c. What the loaders share (error messages, freeing, bounds, the suggested view)
 * lives in the leaves scene_common.c and scene_frame.c, so no loader calls back into this file. */
#include "scene.h"
#include "scene_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool scene_load(const char *spec, scene *out, char *err, size_t err_size)
{
    static const char prefix[] = "builtin:";
    memset(out, 0, sizeof *out);
    if (!spec || !*spec) return scene_errorf(err, err_size, "scene: no file name or builtin:NAME given");
    if (strncmp(spec, prefix, sizeof prefix - 1) != 0) return scene_load_file(spec, out, err, err_size);

    char name[SCENE_NAME_MAX];
    long n = 0;
    if (!scene_builtin_parse(spec, name, &n, err, err_size)) return false;
    return scene_builtin(name, n, out, err, err_size);
}
