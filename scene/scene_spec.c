/* scene_spec.c — reading "builtin:NAME[:N]": the one place that knows N's range and suffixes, for
 * scene_load and the command line's check (app/options.c), so the two cannot disagree. */
#include "scene.h"
#include "scene_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const scene_count_suffix scene_count_suffixes[] = {
    {'k', 1000L}, {'K', 1000L}, {'m', 1000000L}, {'M', 1000000L}, {'\0', 1L},
};

/* "a, b, c": the built-in names, for messages */
static void builtin_names(char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; scene_builtin_names[i]; i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? ", " : "", scene_builtin_names[i]);
}

/* N: digits, then at most one suffix letter; *out = digits x suffix, within the range */
static bool read_count(const char *s, long *out)
{
    if (*s < '0' || *s > '9') return false; /* no sign, no space, not empty */
    char *end = NULL;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno) return false;
    long mul = 0;
    for (const scene_count_suffix *x = scene_count_suffixes;; x++) { /* up to the '\0' entry: no suffix */
        if (x->letter == *end) mul = x->mul;
        if (!x->letter) break;
    }
    if (!mul || (*end && end[1])) return false; /* an unknown suffix, or something after it */
    if (v < SCENE_MIN_TRIANGLES || v > SCENE_MAX_TRIANGLES / mul) return false;
    *out = v * mul;
    return true;
}

bool scene_builtin_parse(const char *spec, char name[SCENE_NAME_MAX], long *n, char *err, size_t err_size)
{
    static const char prefix[] = "builtin:";
    char names[256];
    *n = 0;
    name[0] = '\0';
    if (!spec || strncmp(spec, prefix, sizeof prefix - 1) != 0) {
        return scene_errorf(err, err_size, "scene '%s': expected builtin:NAME[:N]", spec ? spec : "(null)");
    }
    const char *nm = spec + sizeof prefix - 1, *colon = strchr(nm, ':');
    const size_t len = colon ? (size_t)(colon - nm) : strlen(nm);
    bool known = false;
    for (int i = 0; scene_builtin_names[i] && !known; i++)
        known = strlen(scene_builtin_names[i]) == len && strncmp(scene_builtin_names[i], nm, len) == 0;
    if (!known || len >= SCENE_NAME_MAX) {
        builtin_names(names, sizeof names);
        return scene_errorf(err, err_size, "scene '%s': unknown builtin scene (one of %s)", spec, names);
    }
    memcpy(name, nm, len);
    name[len] = '\0';
    if (colon && !read_count(colon + 1, n)) {
        builtin_names(names, sizeof names);
        return scene_errorf(err, err_size,
                            "scene '%s': N must be a triangle count from %d to %d (k/M suffixes allowed); "
                            "builtin scenes: %s",
                            spec, SCENE_MIN_TRIANGLES, SCENE_MAX_TRIANGLES, names);
    }
    return true;
}
