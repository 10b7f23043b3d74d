/* scene_common.h — internal to scene/: what the dispatcher (scene.c) and every loader share to
 * refuse a request. A leaf: it calls nothing else in scene/, so no loader calls back into the
 * dispatcher. Freeing a scene (scene_free, also in scene_common.c) is public: scene.h. */
#ifndef SCENE_COMMON_H
#define SCENE_COMMON_H

#include <stdbool.h>
#include <stddef.h>

/* printf into err (if any), with control characters (newlines from paths or assimp) turned into
 * spaces so the message stays on one line. Always returns false, for `return scene_errorf(...)`. */
bool scene_errorf(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
