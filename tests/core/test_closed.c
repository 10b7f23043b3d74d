/* test_closed.c — which triangles culling auto may drop (core/izb_closed.h, izb_may_cull): closed,
 * consistently outward-oriented components only, and only while a spot light is outside them.
 * Hand-made cubes with one defect each, then the built-in scenes (every object closed but the
 * ground). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb_closed.h"
#include "scene.h"
#include "test.h"
#include "test_cube.h"

#define MAX_TRIS 64

/* the triangles' closed components, checked for consistency with out->comp */
static izb_closed find(const float *xyz, int n);

static izb_closed find(const float *xyz, int n)
{
    izb_closed c;
    CHECK(izb_closed_find(xyz, n, &c), "izb_closed_find");
    int count = 0;
    for (int i = 0; i < n; i++) {
        count += c.comp[i] != IZB_OPEN;
        CHECK(c.comp[i] == IZB_OPEN || c.comp[i] < (uint32_t)c.comp_count, "component index %u", c.comp[i]);
    }
    CHECK(count == c.cullable, "cullable %d = triangles with a component %d", c.cullable, count);
    return c;
}

int main(void)
{
    float xyz[9 * MAX_TRIS];
    const float o[3] = {0, 0, 0}, far[3] = {5, 0, 0};

    /* a closed cube: one component, all 12 cullable, its box */
    int n = test_add_cube(xyz, 0, o, 1.0f, false);
    izb_closed c = find(xyz, n);
    CHECK(c.comp_count == 1 && c.cullable == 12, "cube: %d components, %d cullable", c.comp_count,
          c.cullable);
    CHECK(c.boxes[0] == -1 && c.boxes[3] == 1 && c.boxes[2] == -1 && c.boxes[5] == 1, "cube box");

    /* izb_may_cull: directional always; spot only from outside the box; on / off */
    izb_cull_view v = {.mode = IZB_CULL_AUTO, .comp = c.comp, .boxes = c.boxes, .light_is_spot = 0};
    CHECK(izb_may_cull(&v, 0), "directional light: cull the closed cube");
    v.light_is_spot = 1;
    memcpy(v.light_origin, (float[3]){0.2f, 0.5f, -0.3f}, sizeof v.light_origin);
    CHECK(!izb_may_cull(&v, 0), "spot inside the cube: keep its back faces");
    memcpy(v.light_origin, (float[3]){1.0005f, 0.0f, 0.0f}, sizeof v.light_origin);
    CHECK(!izb_may_cull(&v, 0), "spot on the box's margin counts as inside");
    memcpy(v.light_origin, (float[3]){0.0f, 3.0f, 0.0f}, sizeof v.light_origin);
    CHECK(izb_may_cull(&v, 0), "spot outside the cube: cull");
    memcpy(v.light_origin, (float[3]){NAN, NAN, NAN}, sizeof v.light_origin);
    CHECK(!izb_may_cull(&v, 0), "a NaN light position counts as inside");
    v.mode = IZB_CULL_OFF;
    CHECK(!izb_may_cull(&v, 0), "off: never");
    v.mode = IZB_CULL_ON;
    v.comp = NULL;
    CHECK(izb_may_cull(&v, 0), "on: always, closed or not");
    v.mode = IZB_CULL_AUTO;
    CHECK(!izb_may_cull(&v, 0), "auto without the analysis: nothing");
    izb_closed_free(&c);

    /* defects, each making the cube open */
    n = test_add_cube(xyz, 0, o, 1.0f, false) - 1; /* one triangle missing: a boundary */
    c = find(xyz, n);
    CHECK(c.comp_count == 0 && c.cullable == 0, "cube with a hole: open (%d cullable)", c.cullable);
    izb_closed_free(&c);
    n = test_add_cube(xyz, 0, o, 1.0f, false); /* one triangle flipped: inconsistent orientation */
    float t[3];
    memcpy(t, xyz + 3, sizeof t), memcpy(xyz + 3, xyz + 6, sizeof t), memcpy(xyz + 6, t, sizeof t);
    c = find(xyz, n);
    CHECK(c.cullable == 0, "cube with a flipped triangle: open (%d cullable)", c.cullable);
    izb_closed_free(&c);
    n = test_add_cube(xyz, 0, o, 1.0f, true); /* inside out: negative volume */
    c = find(xyz, n);
    CHECK(c.cullable == 0, "inside-out cube: not cullable (%d)", c.cullable);
    izb_closed_free(&c);
    n = test_add_cube(xyz, 0, o, 1.0f, false); /* a fin: a third triangle on an edge (non-manifold) */
    memcpy(xyz + 9 * n, xyz, 6 * sizeof(float));
    memcpy(xyz + 9 * n + 6, (float[3]){3.0f, 3.0f, 3.0f}, 3 * sizeof(float));
    c = find(xyz, n + 1);
    CHECK(c.cullable == 0, "cube with a fin: open (%d cullable)", c.cullable);
    izb_closed_free(&c);

    /* two cubes and a single-sided card: two components; the card stays */
    n = test_add_cube(xyz, 0, o, 1.0f, false);
    n = test_add_cube(xyz, n, far, 0.5f, false);
    const float card[9] = {0, 3, 0, 1, 3, 0, 0, 3, 1};
    memcpy(xyz + 9 * n++, card, sizeof card);
    c = find(xyz, n);
    CHECK(c.comp_count == 2 && c.cullable == 24 && c.comp[n - 1] == IZB_OPEN && c.comp[0] != c.comp[12],
          "two cubes and a card: %d components, %d cullable", c.comp_count, c.cullable);
    CHECK(c.boxes[6 * c.comp[12]] == 4.5f && c.boxes[6 * c.comp[12] + 3] == 5.5f, "second cube's box");
    izb_closed_free(&c);

    /* far from the origin: a small cube keeps its orientation's sign (no cancellation) */
    const float distant[3] = {1e5f, -2e5f, 3e5f};
    n = test_add_cube(xyz, 0, distant, 1.0f, false);
    c = find(xyz, n);
    CHECK(c.cullable == 12, "small cube far away: closed and outward (%d cullable)", c.cullable);
    izb_closed_free(&c);
    n = test_add_cube(xyz, 0, distant, 1.0f, true);
    c = find(xyz, n);
    CHECK(c.cullable == 0, "small inside-out cube far away: not cullable (%d)", c.cullable);
    izb_closed_free(&c);

    /* empty scenes */
    CHECK(izb_closed_find(xyz, 0, &c) && c.comp == NULL && c.cullable == 0, "no triangles");

    /* built-in scenes: every object closed, the ground (2 triangles) not */
    static const char *const names[] = {"default", "spheres", "tesseract", "grass"};
    for (int i = 0; i < 4; i++) {
        scene s;
        char err[256];
        if (!scene_builtin(names[i], 20000, &s, err, sizeof err)) {
            CHECK(false, "%s: %s", names[i], err);
            continue;
        }
        c = find(s.xyz, s.tri_count);
        printf("%-9s %7d triangles, %6d closed components, %7d cullable (%.2f%%)\n", names[i], s.tri_count,
               c.comp_count, c.cullable, 100.0 * c.cullable / s.tri_count);
        CHECK(c.cullable == s.tri_count - 2 && c.comp[0] == IZB_OPEN && c.comp[1] == IZB_OPEN,
              "%s: all but the ground cullable (%d of %d)", names[i], c.cullable, s.tri_count);
        izb_closed_free(&c);
        scene_free(&s);
    }
    return test_done();
}
