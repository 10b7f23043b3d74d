/* frame_fixture.h — the set-up the whole-frame gl tests share (render_frame, shadow_map): a
 * headless context, the default scene in a renderer, an IZB backend holding the scene and the
 * Embree oracle. Only for tests built with Embree (IZB_HAVE_EMBREE). */
#ifndef FRAME_FIXTURE_H
#define FRAME_FIXTURE_H

#include "gl_test.h"
#include "izb.h"
#include "oracle.h"
#include "render.h"
#include "scene.h"

typedef struct frame_fixture {
    gl_context ctx;
    scene s;
    render *r;
    izb_backend *b;
    oracle *o;
} frame_fixture;

/* Skips (exit 77) without GL, or without a CUDA device when `backend` is IZB_BACKEND_CUDA; false
 * (with a failed CHECK) when anything else cannot be set up. */
static inline bool frame_fixture_init(frame_fixture *f, int width, int height, izb_backend_kind backend)
{
    char err[512];
    *f = (frame_fixture){0};
    gl_test_context(&f->ctx);
    if (!scene_load("builtin:default", &f->s, err, sizeof err)) {
        CHECK(false, "scene_load: %s", err);
        return false;
    }
    f->r = render_create(&(render_desc){.width = width, .height = height}, err, sizeof err);
    CHECK(f->r != NULL, "render_create: %s", err);
    if (!f->r) return false;
    CHECK(render_set_scene(f->r, &f->s, err, sizeof err), "render_set_scene: %s", err);
    f->b = izb_create(&(izb_desc){.backend = backend, .quiet = true});
    if (!f->b && backend == IZB_BACKEND_CUDA)
        TEST_SKIP("no CUDA device answers");
    CHECK(f->b != NULL, "izb_create");
    f->o = oracle_create(f->s.xyz, f->s.tri_count);
    CHECK(f->o != NULL, "oracle_create");
    if (!f->b || !f->o) return false;
    CHECK(izb_set_scene(f->b, f->s.xyz, f->s.tri_count), "izb_set_scene");
    return true;
}

static inline void frame_fixture_free(frame_fixture *f)
{
    oracle_destroy(f->o);
    izb_destroy(f->b);
    render_destroy(f->r);
    scene_free(&f->s);
    gl_context_shutdown(&f->ctx);
}

/* The scene's directional light, and its spot light aimed at the middle of the scene. */
static inline light fixture_sun(const scene *s)
{
    return (light){.type = LIGHT_DIRECTIONAL, .dir = {s->light_dir[0], s->light_dir[1], s->light_dir[2]}};
}
static inline light fixture_spot(const scene *s)
{
    light l = {.type = LIGHT_SPOT, .pos = {s->light_pos[0], s->light_pos[1], s->light_pos[2]}, .cone_deg = 60.0f};
    for (int k = 0; k < 3; k++)
        l.dir[k] = 0.5f * (s->bounds_min[k] + s->bounds_max[k]) - s->light_pos[k];
    return l;
}

#endif
