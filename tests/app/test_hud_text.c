/* test_hud_text.c — the HUD and the title say what is on (issue 12), and a tap moves (suite cpu):
 *  - the HUD names the shadow mode (IZB, shadow map with its size and time, difference, none);
 *    in modes map and none it shows no IZB stage times (they would be an older frame's);
 *  - the title's shadow text shows a map size and time only where a map is drawn (never
 *    "map 2048: 0.00 ms" in IZB mode);
 *  - every number true in every mode (issue 22): the scene's triangle count always, the IZB's
 *    counts only where it ran (HUD and title), n/a for a GL time with no result yet, unit n/a on
 *    the CPU backend, vsync shown;
 *  - F1 or ? puts the key list on the HUD (every key of the table) and takes it off again; it
 *    prints the list when showing it, not when hiding it;
 *  - a tap of an arrow key or W that begins and ends between two frames moves one step
 *    (CONTROLS_TAP_S seconds' worth), however long the frame; no tap, no movement. */
#undef NDEBUG
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "controls.h"
#include "session.h"
#include "test.h"

static const float DEG = 0.017453292519943295f;

static const light LIGHT = {.type = LIGHT_DIRECTIONAL, .dir = {0.0f, -1.0f, 0.0f}};

/* what main.c passes: the scene's 1234 triangles, z only where the IZB ran on the last frame */
static session_hud_info info_for(shadow_mode m, const izb_stats *z)
{
    return (session_hud_info){.fps = 30.0,
                              .frame_ms = 33.0,
                              .gl = {.depth_ms = 1.0f, .shade_ms = 2.0f, .shadow_map_ms = 3.5f},
                              .izb = z,
                              .scene_tris = 1234,
                              .backend = "cpu",
                              .light = &LIGHT,
                              .width = 320,
                              .height = 180,
                              .shadows = m,
                              .sm_size = 2048};
}

static void hud_for(const session *s, shadow_mode m, const izb_stats *z, char *out, size_t n)
{
    session_hud_info i = info_for(m, z);
    session_hud_text(s, &i, out, n);
}

/* stdout of session_keys(toggles), captured */
static void keys_stdout(session *s, unsigned toggles, char *out, size_t n)
{
    fflush(stdout);
    FILE *tmp = tmpfile();
    int keep = dup(1);
    dup2(fileno(tmp), 1);
    session_keys(s, toggles, 0.0, NULL, NULL, NULL);
    fflush(stdout);
    dup2(keep, 1);
    close(keep);
    rewind(tmp);
    size_t got = fread(out, 1, n - 1, tmp);
    out[got] = '\0';
    fclose(tmp);
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
        hud_for(&s, modes[i].m, modes[i].izb ? &z : NULL, text, sizeof text);
        CHECK(strstr(text, modes[i].want) != NULL, "HUD in mode %s says '%s': %s", shadow_mode_names[modes[i].m],
              modes[i].want, text);
        CHECK(modes[i].izb == (strstr(text, "reconstruct+bbox") != NULL && strstr(text, "points 999") != NULL),
              "mode %s: IZB stage lines %s: %s", shadow_mode_names[modes[i].m], modes[i].izb ? "shown" : "hidden", text);
        CHECK(modes[i].izb || strstr(text, "(IZB off)"), "mode %s says the IZB is off", shadow_mode_names[modes[i].m]);
    }

    /* a soft light in the map: HUD and title say PCSS in the map modes, nothing in the others */
    for (int m = 0; m < SHADOW_MODE_COUNT; m++) {
        session_hud_info i = info_for((shadow_mode)m, NULL);
        i.sm_pcss = true;
        char title[512];
        session_hud_text(&s, &i, text, sizeof text);
        session_title_text(&i, title, sizeof title);
        const bool map = m == SHADOW_MODE_MAP || m == SHADOW_MODE_DIFF;
        CHECK(map == (strstr(text, "2048 PCSS: 3.50 ms") != NULL) &&
                  map == (strstr(title, "2048 PCSS: 3.50 ms") != NULL),
              "PCSS in mode %s: HUD '%s', title '%s'", shadow_mode_names[m], text, title);
    }

    /* the title's text: a map's size and time only where one is drawn */
    session_shadow_text(text, sizeof text, SHADOW_MODE_IZB, 2048, 0.0f);
    CHECK(strcmp(text, "IZB") == 0 && !strstr(text, "0.00 ms"), "title in IZB mode: '%s'", text);
    session_shadow_text(text, sizeof text, SHADOW_MODE_NONE, 2048, 1.0f);
    CHECK(strcmp(text, "none") == 0, "title with no shadows: '%s'", text);
    session_shadow_text(text, sizeof text, SHADOW_MODE_MAP, 4096, 1.5f);
    CHECK(strcmp(text, "shadow map 4096: 1.50 ms") == 0, "title in map mode: '%s'", text);

    /* numbers true in every mode (issue 22, defect 2): the scene's triangles always; the IZB's
     * counts only where it ran — not "0 of 0" before it ever ran, not the last IZB frame's after M */
    for (int m = 0; m < SHADOW_MODE_COUNT; m++) {
        bool izb = m == SHADOW_MODE_IZB || m == SHADOW_MODE_DIFF;
        session_hud_info i = info_for((shadow_mode)m, izb ? &z : NULL);
        hud_for(&s, (shadow_mode)m, izb ? &z : NULL, text, sizeof text);
        CHECK(!strstr(text, "0 of 0") && !strstr(text, "triangles 0"), "mode %s: no invented zeros: %s",
              shadow_mode_names[m], text);
        CHECK(strstr(text, izb ? "triangles 1234 -> 50 after culling   points 999" : "triangles 1234\n") !=
                  NULL,
              "mode %s: the scene's 1234 triangles%s: %s", shadow_mode_names[m],
              izb ? ", the IZB's counts" : "", text);
        CHECK(izb == (strstr(text, "of 1234 triangles on closed meshes") != NULL),
              "mode %s: closed-mesh count only where the IZB ran: %s", shadow_mode_names[m], text);
        char title[512];
        session_title_text(&i, title, sizeof title);
        CHECK(strstr(title, izb ? "| tris 1234 / 50 after cull | points 999 |"
                                : "| tris 1234 | points n/a |") != NULL,
              "mode %s: title '%s'", shadow_mode_names[m], title);
        CHECK(strstr(title, "30.0 fps") && strstr(title, "kernel1") && strstr(title, "shadows: "),
              "the title keeps fps, settings and shadows: %s", title);
    }
    /* the IZB stats of an older frame are not shown: after IZB -> map the title and HUD say n/a
     * (main.c passes izb = NULL once a frame has run without it) */
    session_hud_info after = info_for(SHADOW_MODE_MAP, NULL);
    session_title_text(&after, text, sizeof text);
    CHECK(!strstr(text, "999") && !strstr(text, "after cull"), "after a switch to map: no IZB counts: %s",
          text);
    /* frame 0: no GL timer result yet (depth_frame -1): n/a, not 0.00 */
    session_hud_info f0 = info_for(SHADOW_MODE_MAP, NULL);
    f0.gl = (render_timings){.depth_frame = -1, .shade_frame = -1, .shadow_map_frame = -1};
    session_hud_text(&s, &f0, text, sizeof text);
    CHECK(strstr(text, "depth pass    n/a ms   shading    n/a ms") && strstr(text, "shadow map 2048: n/a") &&
              !strstr(text, "0.00 ms"),
          "frame 0: n/a for the GL times: %s", text);
    f0.shadows = SHADOW_MODE_IZB;
    session_hud_text(&s, &f0, text, sizeof text);
    CHECK(strstr(text, "(IZB: no frame yet)") && !strstr(text, "IZB off"), "frame 0 in IZB mode: %s", text);
    /* the unit size does nothing on the CPU backend: n/a there; vsync shown */
    session_hud_info u = info_for(SHADOW_MODE_IZB, &z);
    u.settings.unit_size = 32;
    u.vsync = true;
    session_hud_text(&s, &u, text, sizeof text);
    CHECK(strstr(text, "unit n/a") && !strstr(text, "unit 32"), "CPU backend, U pressed: unit n/a: %s", text);
    CHECK(strstr(text, "vsync on"), "the HUD shows vsync: %s", text);
    session_title_text(&u, text, sizeof text);
    CHECK(strstr(text, "unit n/a"), "title on the CPU: unit n/a: %s", text);
    u.backend = "cuda";
    z.unit_size = 0; /* before its first frame: the setting */
    session_hud_text(&s, &u, text, sizeof text);
    CHECK(strstr(text, "unit 32") && strstr(text, "vsync on"), "CUDA backend: unit 32: %s", text);
    u.vsync = false;
    session_hud_text(&s, &u, text, sizeof text);
    CHECK(strstr(text, "vsync off"), "vsync off: %s", text);

    /* several lights: the count, the picked one (from 1) and each light's IZB time, "off" for one at
     * intensity 0, n/a where the IZB did not run; one light: no such line (the HUD of before) */
    CHECK(!strstr(text, "lights "), "one light: no light list: %s", text);
    for (int k = 0; k < 3; k++) {
        const int n = 2 + k * 3, picked = (k * 5) % n; /* 2, 5, 8 lights */
        light_set ls = {.count = n};
        izb_stats per[IZB_MAX_LIGHTS];
        memset(per, 0, sizeof per);
        char want[256];
        int w = snprintf(want, sizeof want, "lights %d, %d picked: IZB", n, picked + 1);
        for (int i = 0; i < n; i++) {
            ls.l[i] = LIGHT;
            ls.intensity[i] = i % 3 == 1 ? 0.0f : 1.0f;
            per[i].total_ms = 1.5f + 2.25f * (float)i;
            w += ls.intensity[i] > 0.0f ? snprintf(want + w, sizeof want - (size_t)w, " %.2f", (double)per[i].total_ms)
                                        : snprintf(want + w, sizeof want - (size_t)w, " off");
        }
        snprintf(want + w, sizeof want - (size_t)w, " ms");
        session_hud_info m = info_for(SHADOW_MODE_IZB, &z);
        m.lights = &ls, m.picked = picked, m.light_stats = per;
        session_hud_text(&s, &m, text, sizeof text);
        CHECK(strstr(text, want), "HUD of %d lights has '%s': %s", n, want, text);
        session_title_text(&m, text, sizeof text);
        CHECK(strstr(text, want), "title of %d lights has '%s': %s", n, want, text);
        m.izb = NULL, m.light_stats = NULL, m.shadows = SHADOW_MODE_MAP;
        session_hud_text(&s, &m, text, sizeof text);
        CHECK(strstr(text, "IZB n/a") && !strstr(text, "1.50"), "%d lights, no IZB: n/a: %s", n, text);
    }

    /* F1 or ?: the key list on the HUD, every key of the table, until pressed again; printed on
     * the terminal when shown, not again when hidden */
    char keys[4096], printed[8192];
    size_t klen = controls_keys_text(keys, sizeof keys);
    CHECK(klen > 500 && klen == strlen(keys), "key list %zu chars", klen);
    keys_stdout(&s, CONTROL_HELP, printed, sizeof printed);
    CHECK(s.keys_shown, "F1 shows the keys");
    CHECK(strcmp(printed, keys) == 0, "F1 prints the key list: '%s'", printed);
    hud_for(&s, SHADOW_MODE_IZB, &z, text, sizeof text);
    CHECK(strncmp(text, keys, klen) == 0 && strstr(text, "F1 or ? hides this"), "HUD holds the key list: %s", text);
    static const char *const names[] = {"W ", "Left", "PageUp", "K ", "M ", "[ ", "Home", "Esc", "Shift", NULL};
    for (int i = 0; names[i]; i++)
        CHECK(strstr(text, names[i]) != NULL, "key list names '%s'", names[i]);
    keys_stdout(&s, CONTROL_HELP, printed, sizeof printed);
    CHECK(printed[0] == '\0', "F1 hiding the list prints nothing: '%s'", printed);
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
