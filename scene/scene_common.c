/* scene_common.c — one-line error messages and freeing: what the dispatcher (scene.c) and every
 * loader share when they refuse a request or give back a half-built scene. A leaf (see
 * scene_common.h). */
#include "scene_common.h"
#include "scene.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool scene_errorf(char *err, size_t err_size, const char *fmt, ...)
{
    if (!err || err_size == 0) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    for (char *c = err; *c; c++)
        if (iscntrl((unsigned char)*c)) *c = ' ';
    return false;
}

void scene_free(scene *s)
{
    if (!s) return;
    free(s->xyz);
    free(s->normals);
    free(s->uv);
    for (int i = 0; i < s->texture_count; i++)
        free(s->textures[i].rgba);
    free(s->textures);
    free(s->materials);
    free(s->ranges);
    memset(s, 0, sizeof *s);
}
