/* scene_builtin.c — the table of procedural scenes and scene_builtin(): validate the request,
 * run the scene's builder into a triangle soup, hand the soup over and set the suggested view.
 * The builders live in scene_default.c, scene_tesseract.c, scene_spheres.c and scene_grass.c;
 * the shapes they share in scene_imesh.c, placed by scene_xform.c into scene_soup.c. */
#include "scene.h"
#include "scene_builtin.h"
#include "scene_common.h"
#include "scene_frame.h"
#include "scene_soup.h"

#include <stdio.h>
#include <string.h>

typedef struct builtin {
    const char *name;
    long default_tris; /* N when the caller passes 0 */
    void (*build)(soup *s, long n, view_desc *v);
    scene_motion motion; /* the built scene moves so (scene_animate) */
    long max_n;          /* largest N; 0: SCENE_MAX_TRIANGLES */
    const char *n_means; /* what N counts, for the message: NULL = "triangle count" */
    bool (*dress)(scene *s); /* materials after the geometry, or NULL; false on OOM */
} builtin;

static const builtin BUILTINS[] = {
    {"default", 20000, scene_build_default, SCENE_MOTION_NONE, 0, NULL, NULL},      /* fixed size: N is ignored */
    {"tesseract", 123000, scene_build_tesseract, SCENE_MOTION_NONE, 0, NULL, NULL}, /* thesis figure 6.4: "123K tris" */
    {"spheres", 250000, scene_build_spheres, SCENE_MOTION_NONE, 0, NULL, NULL},
    {"grass", 500000, scene_build_grass, SCENE_MOTION_NONE, 0, NULL, NULL},
    {"wave", 250000, scene_build_spheres, SCENE_MOTION_WAVE, 0, NULL, NULL}, /* every triangle but the ground moves */
    {"foliage", SCENE_FOLIAGE_DEFAULT_CARDS, scene_build_foliage, SCENE_MOTION_NONE, SCENE_FOLIAGE_MAX_CARDS,
     "card count", scene_dress_foliage}, /* alpha-tested cards: N counts cards */
    {"room", 20000, scene_build_room, SCENE_MOTION_NONE, 0, NULL, NULL}, /* for a point light inside (--light point) */
};
#define BUILTIN_COUNT (int)(sizeof BUILTINS / sizeof BUILTINS[0])

/* the table's names, for callers (kept in step by tests/scene/test_scene_builtin.c) */
const char *const scene_builtin_names[] = {"default", "tesseract", "spheres", "grass", "wave", "foliage", "room", NULL};

bool scene_builtin(const char *name, long tri_target, scene *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    const builtin *b = NULL;
    for (int i = 0; i < BUILTIN_COUNT && name; i++)
        if (strcmp(name, BUILTINS[i].name) == 0) b = &BUILTINS[i];
    if (!b) {
        char names[256] = "";
        for (int i = 0; i < BUILTIN_COUNT; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     BUILTINS[i].name);
        return scene_errorf(err, err_size, "scene 'builtin:%s': unknown built-in scene (valid: %s)",
                            name ? name : "(null)", names);
    }
    const long max_n = b->max_n ? b->max_n : SCENE_MAX_TRIANGLES;
    if (tri_target < 0 || tri_target > max_n)
        return scene_errorf(err, err_size, "scene 'builtin:%s': %s %ld outside 1..%ld (0 = default)", name,
                            b->n_means ? b->n_means : "triangle count", tri_target, max_n);

    long n = tri_target ? tri_target : b->default_tris;
    char label[sizeof out->name];
    if (tri_target)
        snprintf(label, sizeof label, "builtin:%s:%ld", b->name, tri_target);
    else
        snprintf(label, sizeof label, "builtin:%s", b->name);

    soup s = {0};
    view_desc v = {0};
    b->build(&s, n, &v);
    if (!soup_finish(&s, out, label, err, err_size)) return false;
    if (b->dress && !b->dress(out)) {
        scene_free(out);
        return scene_errorf(err, err_size, "scene '%s': out of memory for its materials", label);
    }
    snprintf(out->name, sizeof out->name, "%s", label);
    scene_view_focus(out, &v);
    scene_set_motion(out, b->motion);
    return true;
}
