/* test_hud_text.c — the HUD and the title say what is on (issue 12), and a tap moves (suite cpu):
 *  - the HUD names the shadow mode (IZB, shadow map with its size and time, difference, none);
 *    in modes map and none it shows no IZB stage times (they would be an older frame's);
 *  - the title's shadow text shows a map size and time only where a map is drawn (never
 *    "map 2048: 0.00 ms" in IZB mode);
 *  - F1 or ? puts the key list on the HUD (every key of the table) and takes it off again;
 *  - a tap of an arrow key or W that begins and ends between two frames moves one step
 *    (CONTROLS_TAP_S seconds' worth), however long the frame; no tap, no movement. */
#undef NDEBUG
#include <math.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "controls.h"
#include "session.h"
#include "test.h"

static const float DEG = 0.017453292519943295f;

static void hud_for(const session *s, shadow_mode m, const izb_stats *z, char *out, size_t n)
{
    light l = {.type = LIGHT_DIRECTIONAL, .dir = {0.0f, -1.0f, 0.0f}};
    session_hud_text(s,
                     &(session_hud_info){.fps = 30.0,
                                         .frame_ms = 33.0,
                                         .gl = {.depth_ms = 1.0f, .shade_ms = 2.0f, .shadow_map_ms = 3.5f},
                                         .izb = z,
                                         .backend = "cpu",
                                         .light = &l,
                                         .width = 320,
                                         .height = 180,
                                         .shadows = m,
                                         .sm_size = 2048},
                     out, n);
}

/* azimuth of the direction a directional light comes from, degrees */
static float azimuth(const light *l)
{
    return atan2f(-l->dir[0], -l->dir[2]) / DEG;
}

int main(void)
{
    char err[256], text[4096];
    session s;
    CHECK(session_init(&s, &(session_desc){.headless = true, .hud = true}, err, sizeof err), "session_init: %s", err);
    izb_stats z = {.tris_in = 100, .tris_after_cull = 50, .points = 999, .grid_w = 8, .grid_h = 8};
    z.stage_ms[IZB_STAGE_RECONSTRUCT] = 1.25f;

    static const struct {
        shadow_mode m;
        const char *want;
        bool izb;
    } modes[] = {
        {SHADOW_MODE_IZB, "shadows: IZB\n", true},
        {SHADOW_MODE_MAP, "shadows: shadow map 2048: 3.50 ms\n", false},
        {SHADOW_MODE_DIFF, "shadows: difference IZB / map 2048: 3.50 ms\n", true},
        {SHADOW_MODE_NONE, "shadows: none\n", false},
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        hud_for(&s, modes[i].m, &z, text, sizeof text);
        CHECK(strstr(text, modes[i].want) != NULL, "HUD in mode %s says '%s': %s", shadow_mode_names[modes[i].m],
              modes[i].want, text);
        CHECK(modes[i].izb == (strstr(text, "reconstruct+bbox") != NULL && strstr(text, "points 999") != NULL),
              "mode %s: IZB stage lines %s: %s", shadow_mode_names[modes[i].m], modes[i].izb ? "shown" : "hidden", text);
        CHECK(modes[i].izb || strstr(text, "(IZB off)"), "mode %s says the IZB is off", shadow_mode_names[modes[i].m]);
    }

    /* the title's text: a map's size and time only where one is drawn */
    session_shadow_text(text, sizeof text, SHADOW_MODE_IZB, 2048, 0.0f);
    CHECK(strcmp(text, "IZB") == 0 && !strstr(text, "0.00 ms"), "title in IZB mode: '%s'", text);
    session_shadow_text(text, sizeof text, SHADOW_MODE_NONE, 2048, 1.0f);
    CHECK(strcmp(text, "none") == 0, "title with no shadows: '%s'", text);
    session_shadow_text(text, sizeof text, SHADOW_MODE_MAP, 4096, 1.5f);
    CHECK(strcmp(text, "shadow map 4096: 1.50 ms") == 0, "title in map mode: '%s'", text);

    /* F1 or ?: the key list on the HUD, every key of the table, until pressed again */
    char keys[4096];
    size_t klen = controls_keys_text(keys, sizeof keys);
    CHECK(klen > 500 && klen == strlen(keys), "key list %zu chars", klen);
    session_keys(&s, CONTROL_HELP, 0.0, NULL, NULL, NULL);
    CHECK(s.keys_shown, "F1 shows the keys");
    hud_for(&s, SHADOW_MODE_IZB, &z, text, sizeof text);
    CHECK(strncmp(text, keys, klen) == 0 && strstr(text, "F1 or ? hides this"), "HUD holds the key list: %s", text);
    static const char *const names[] = {"W ", "Left", "PageUp", "K ", "M ", "[ ", "Home", "Esc", "Shift", NULL};
    for (int i = 0; names[i]; i++)
        CHECK(strstr(text, names[i]) != NULL, "key list names '%s'", names[i]);
    session_keys(&s, CONTROL_HELP, 0.0, NULL, NULL, NULL);
    hud_for(&s, SHADOW_MODE_IZB, &z, text, sizeof text);
    CHECK(!s.keys_shown && strstr(text, "shadows: IZB") && !strstr(text, "F1 or ? hides this"), "F1 again: the HUD is back");
    session_shutdown(&s, 0.0);

    /* taps: the key callback saw a press, the key is up again by the next frame (a 0.5 s frame) */
    const float bmin[3] = {-10, 0, -10}, bmax[3] = {10, 5, 10};
    controls c;
    controls_init(&c, NULL, bmin, bmax);
    camera cam = {.pos = {0, 2, 20}};
    light l = {.type = LIGHT_DIRECTIONAL, .dir = {0.0f, -0.7071068f, -0.7071068f}};
    float az0 = azimuth(&l);
    controls_key(&c, GLFW_KEY_RIGHT);
    CHECK(controls_next(&c) == 0, "a movement key queues no toggle");
    controls_update(&c, 0.5f, &cam, &l);
    float turned = azimuth(&l) - az0;
    CHECK(fabsf(turned - 45.0f * CONTROLS_TAP_S) < 1e-3f, "a tap of Right turns the light one step: %g deg, want %g",
          (double)turned, (double)(45.0f * CONTROLS_TAP_S));
    float az1 = azimuth(&l);
    controls_update(&c, 0.5f, &cam, &l);
    CHECK(azimuth(&l) == az1, "no tap, no turn");

    float fwd[3], z0 = cam.pos[2];
    camera_forward(&cam, fwd);
    controls_key(&c, GLFW_KEY_W);
    controls_update(&c, 0.5f, &cam, &l);
    float moved = (cam.pos[2] - z0) / fwd[2];
    CHECK(fabsf(moved - c.speed * CONTROLS_TAP_S) < 1e-4f, "a tap of W moves one step: %g, want %g", (double)moved,
          (double)(c.speed * CONTROLS_TAP_S));
    return test_done();
}
