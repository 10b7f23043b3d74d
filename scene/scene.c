/* scene.c — the dispatcher: "builtin:NAME[:N]" goes to scene_builtin.c, anything else is a file
 * for scene_assimp.c. What the loaders share (error messages, freeing, bounds, the suggested view)
 * lives in the leaves scene_common.c and scene_frame.c, so no loader calls back into this file. */
#include "scene.h"
#include "scene_common.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool scene_load(const char *spec, scene *out, char *err, size_t err_size)
{
    static const char prefix[] = "builtin:";
    memset(out, 0, sizeof *out);
    if (!spec || !*spec) return scene_errorf(err, err_size, "scene: no file name or builtin:NAME given");
    if (strncmp(spec, prefix, sizeof prefix - 1) != 0) return scene_load_file(spec, out, err, err_size);

    char names[256] = "";
    for (int i = 0; scene_builtin_names[i]; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                 scene_builtin_names[i]);

    const char *name = spec + sizeof prefix - 1, *colon = strchr(name, ':');
    size_t len = colon ? (size_t)(colon - name) : strlen(name);
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return scene_errorf(err, err_size, "scene '%s': expected builtin:NAME[:N] with NAME one of %s", spec,
                            names);
    memcpy(buf, name, len);
    buf[len] = '\0';

    long n = 0;
    if (colon) {
        /* N: a positive integer, optionally with a k or M suffix (builtin:grass:2M) */
        const char *s = colon + 1;
        char *end = NULL;
        errno = 0;
        long v = isdigit((unsigned char)*s) ? strtol(s, &end, 10) : -1;
        long mul = 1;
        if (end && (*end == 'k' || *end == 'K'))
            mul = 1000, end++;
        else if (end && (*end == 'm' || *end == 'M'))
            mul = 1000000, end++;
        if (v <= 0 || errno || !end || *end || v > SCENE_MAX_TRIANGLES / mul)
            return scene_errorf(err, err_size,
                                "scene '%s': N must be a triangle count from 1 to %d (k/M suffixes allowed); "
                                "builtin scenes: %s",
                                spec, SCENE_MAX_TRIANGLES, names);
        n = v * mul;
    }
    return scene_builtin(buf, n, out, err, err_size);
}
