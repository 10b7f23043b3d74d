/* controls.c — key table, fly camera, light movement. */
#include "controls.h"

#include <math.h>
#include <stdarg.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

static const float DEG = 0.017453292519943295f;

/* What a key does: a toggle (action bit, on press), or while held a camera move (move: right, up,
 * forward) or a light move (light: directional azimuth / elevation, or spot x, y, z). */
typedef struct binding {
    int key;
    const char *name;
    const char *help;
    unsigned action;
    float move[3];
    float light[3];
} binding;

/* THE key table. */
static const binding BINDINGS[] = {
    {GLFW_KEY_W, "W", "move forward", 0, {0, 0, 1}, {0, 0, 0}},
    {GLFW_KEY_S, "S", "move back", 0, {0, 0, -1}, {0, 0, 0}},
    {GLFW_KEY_A, "A", "move left", 0, {-1, 0, 0}, {0, 0, 0}},
    {GLFW_KEY_D, "D", "move right", 0, {1, 0, 0}, {0, 0, 0}},
    {GLFW_KEY_E, "E", "move up", 0, {0, 1, 0}, {0, 0, 0}},
    {GLFW_KEY_Q, "Q", "move down", 0, {0, -1, 0}, {0, 0, 0}},
    {GLFW_KEY_LEFT, "Left", "light: turn left (spot: move left)", 0, {0, 0, 0}, {-1, 0, 0}},
    {GLFW_KEY_RIGHT, "Right", "light: turn right (spot: move right)", 0, {0, 0, 0}, {1, 0, 0}},
    {GLFW_KEY_UP, "Up", "light: higher (spot: move forward)", 0, {0, 0, 0}, {0, 0, 1}},
    {GLFW_KEY_DOWN, "Down", "light: lower (spot: move back)", 0, {0, 0, 0}, {0, 0, -1}},
    {GLFW_KEY_PAGE_UP, "PageUp", "spot light: move up", 0, {0, 0, 0}, {0, 1, 0}},
    {GLFW_KEY_PAGE_DOWN, "PageDown", "spot light: move down", 0, {0, 0, 0}, {0, -1, 0}},
    {GLFW_KEY_K, "K", "rasteriser kernel 1 / 2", CONTROL_KERNEL, {0}, {0}},
    {GLFW_KEY_B, "B", "binning radix / atomic", CONTROL_BINNING, {0}, {0}},
    {GLFW_KEY_U, "U", "unit size auto, 32, 64, 128, 256", CONTROL_UNIT, {0}, {0}},
    {GLFW_KEY_C, "C", "back-face culling auto (exact) / on (all back faces) / off", CONTROL_CULL, {0}, {0}},
    {GLFW_KEY_G, "G", "ground under the scene on / off (on for model files)", CONTROL_GROUND, {0}, {0}},
    {GLFW_KEY_O, "O", "model up axis y, z, x, -y, -z, -x (--up)", CONTROL_UP, {0}, {0}},
    {GLFW_KEY_X, "X", "alpha test of cut-outs on / off (--alpha-test)", CONTROL_ALPHA, {0}, {0}},
    {GLFW_KEY_T, "T", "light directional / spot / area / point", CONTROL_LIGHT_TYPE, {0}, {0}},
    {GLFW_KEY_EQUAL, "=", "light wider: soft shadows (directional: angle x1.5, at most 20 degrees; spot: size x1.25)",
     CONTROL_LIGHT_WIDER, {0}, {0}},
    {GLFW_KEY_MINUS, "-", "light narrower (directional below 0.5 degrees, spot below 1/4 of its first size: hard)",
     CONTROL_LIGHT_NARROWER, {0}, {0}},
    {GLFW_KEY_N, "N", "soft shadows' light samples 16, 32, 64, 128, 256", CONTROL_LIGHT_SAMPLES, {0}, {0}},
    {GLFW_KEY_J, "J", "pick the next light: the one L steers and T, - = N change", CONTROL_LIGHT_NEXT, {0}, {0}},
    {GLFW_KEY_INSERT, "Insert", "add a light (at most 8): a copy of the picked one, picked", CONTROL_LIGHT_ADD,
     {0}, {0}},
    {GLFW_KEY_DELETE, "Delete", "remove the picked light (one stays)", CONTROL_LIGHT_REMOVE, {0}, {0}},
    {GLFW_KEY_I, "I", "anti-aliased shadow edges: sub-samples per pixel 1, 4, 8, 16, 32", CONTROL_SHADOW_SAMPLES,
     {0}, {0}},
    {GLFW_KEY_Y, "Y", "vsync on / off", CONTROL_VSYNC, {0}, {0}},
    {GLFW_KEY_V, "V", "view: shaded, shadow overlay, mask, depth, points, cells", CONTROL_VIEW, {0}, {0}},
    {GLFW_KEY_HOME, "Home", "reset camera and light to the scene's", CONTROL_RESET, {0}, {0}},
    {GLFW_KEY_H, "H", "HUD on / off", CONTROL_HUD, {0}, {0}},
    {GLFW_KEY_F, "F", "start / stop an FPS log (timestamped CSV)", CONTROL_LOG, {0}, {0}},
    {GLFW_KEY_R, "R", "start / stop recording a camera path", CONTROL_RECORD, {0}, {0}},
    {GLFW_KEY_L, "L", "WASD QE and the mouse move the light / the camera", CONTROL_LIGHT_MODE, {0}, {0}},
    {GLFW_KEY_P, "P", "save a PNG screenshot (timestamped)", CONTROL_SCREENSHOT, {0}, {0}},
    {GLFW_KEY_M, "M", "shadows: IZB, shadow map, difference (red: map only, blue: IZB only), none",
     CONTROL_SHADOW_MODE, {0}, {0}},
    {GLFW_KEY_LEFT_BRACKET, "[", "shadow map: halve the resolution", CONTROL_SM_SMALLER, {0}, {0}},
    {GLFW_KEY_RIGHT_BRACKET, "]", "shadow map: double the resolution", CONTROL_SM_LARGER, {0}, {0}},
    {GLFW_KEY_F1, "F1 or ?", "show / hide this list (on screen and the terminal)", CONTROL_HELP, {0}, {0}},
    {GLFW_KEY_ESCAPE, "Esc", "quit", CONTROL_QUIT, {0}, {0}},
};
enum { BINDING_COUNT = sizeof BINDINGS / sizeof BINDINGS[0] };

static void key_callback(GLFWwindow *w, int key, int scancode, int action, int mods);
static void char_callback(GLFWwindow *w, unsigned codepoint);
static void scroll_callback(GLFWwindow *w, double dx, double dy);
/* queue one press of toggle `action` */
static void push(controls *c, unsigned action);

static void key_callback(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode;
    (void)mods;
    controls *c = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS || !c) return;
    controls_key(c, key);
}

_Static_assert(BINDING_COUNT <= 64, "controls.taps has one bit per binding");

static void push(controls *c, unsigned action)
{
    if (c->queue_len == CONTROLS_QUEUE) {
        if (c->dropped++ == 0)
            fprintf(stderr, "izb-shadows: more than %d key presses in one frame: the rest are dropped\n",
                    CONTROLS_QUEUE);
        return;
    }
    c->queue[(c->queue_first + c->queue_len++) % CONTROLS_QUEUE] = action;
}

void controls_key(controls *c, int key)
{
    for (int i = 0; i < BINDING_COUNT; i++) {
        if (BINDINGS[i].key != key) continue;
        if (BINDINGS[i].action)
            push(c, BINDINGS[i].action);
        else
            c->taps |= 1ull << i;
    }
}

unsigned controls_next(controls *c)
{
    if (c->queue_len == 0) return 0;
    unsigned action = c->queue[c->queue_first];
    c->queue_first = (c->queue_first + 1) % CONTROLS_QUEUE;
    c->queue_len--;
    if (action == CONTROL_LIGHT_MODE) c->light_mode = !c->light_mode;
    return action;
}

static void char_callback(GLFWwindow *w, unsigned codepoint)
{
    controls *c = glfwGetWindowUserPointer(w);
    if (c && codepoint == '?') push(c, CONTROL_HELP);
}

static void scroll_callback(GLFWwindow *w, double dx, double dy)
{
    (void)dx;
    controls *c = glfwGetWindowUserPointer(w);
    if (!c) return;
    c->speed *= powf(1.25f, (float)dy);
    float lo = 0.01f * c->radius, hi = 20.0f * c->radius;
    c->speed = c->speed < lo ? lo : c->speed > hi ? hi : c->speed;
}

void controls_init(controls *c, GLFWwindow *window, const float bmin[3], const float bmax[3])
{
    *c = (controls){.window = window};
    float d2 = 0.0f;
    for (int i = 0; i < 3; i++) {
        c->centre[i] = 0.5f * (bmin[i] + bmax[i]);
        d2 += (bmax[i] - bmin[i]) * (bmax[i] - bmin[i]);
    }
    c->radius = fmaxf(0.5f * sqrtf(d2), 1e-3f);
    c->speed = 0.25f * c->radius;
    if (window) {
        glfwSetWindowUserPointer(window, c);
        glfwSetKeyCallback(window, key_callback);
        glfwSetCharCallback(window, char_callback);
        glfwSetScrollCallback(window, scroll_callback);
    }
}

void controls_update(controls *c, float dt, camera *cam, light *l)
{
    unsigned long long taps = c->taps;
    c->taps = 0;
    GLFWwindow *w = c->window;

    bool fast = w && (glfwGetKey(w, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS ||
                      glfwGetKey(w, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS);
    float boost = fast ? 4.0f : 1.0f;
    /* seconds of movement along each axis: dt while held; one step for a key pressed and released
     * between two polls (the poll alone never sees it at low frame rates) */
    float move[3] = {0, 0, 0}, lmove[3] = {0, 0, 0};
    for (int i = 0; i < BINDING_COUNT; i++) {
        if (BINDINGS[i].action) continue;
        float secs = w && glfwGetKey(w, BINDINGS[i].key) == GLFW_PRESS ? dt
                     : (taps >> i) & 1                                 ? CONTROLS_TAP_S
                                                                       : 0.0f;
        for (int k = 0; k < 3; k++) {
            move[k] += secs * BINDINGS[i].move[k];
            lmove[k] += secs * BINDINGS[i].light[k];
        }
    }
    if (c->light_mode) { /* L: the movement keys steer the light; the camera stays */
        for (int k = 0; k < 3; k++) {
            lmove[k] += move[k];
            move[k] = 0.0f;
        }
    }

    /* camera: right, world up, forward */
    float fwd[3], right[3], step = c->speed * boost;
    camera_forward(cam, fwd);
    camera_right(cam, right);
    for (int k = 0; k < 3; k++)
        cam->pos[k] += step * (move[0] * right[k] + move[2] * fwd[k]) + (k == 1 ? step * move[1] : 0.0f);

    /* mouse look while the right button is held */
    double mx = c->last_x, my = c->last_y;
    if (w) glfwGetCursorPos(w, &mx, &my);
    bool held = w && glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS;
    float look_x = 0.0f, look_y = 0.0f; /* light mode: mouse drag turns the light (degrees) */
    if (held && c->looking && c->light_mode) {
        look_x = 0.15f * (float)(mx - c->last_x);
        look_y = -0.15f * (float)(my - c->last_y);
    } else if (held && c->looking) {
        const float sens = 0.15f; /* degrees per screen unit */
        cam->yaw += sens * (float)(mx - c->last_x);
        cam->pitch -= sens * (float)(my - c->last_y);
        cam->pitch = fminf(fmaxf(cam->pitch, -CAMERA_PITCH_MAX), CAMERA_PITCH_MAX);
        cam->yaw = fmodf(cam->yaw, 360.0f);
    }
    c->looking = held;
    c->last_x = mx;
    c->last_y = my;

    /* light */
    if (lmove[0] != 0.0f || lmove[1] != 0.0f || lmove[2] != 0.0f || look_x != 0.0f || look_y != 0.0f) {
        if (l->type != LIGHT_DIRECTIONAL) {
            float lstep = 0.5f * c->radius * boost;
            float fx = fwd[0], fz = fwd[2], n = sqrtf(fx * fx + fz * fz);
            if (n > 1e-6f) fx /= n, fz /= n;
            l->pos[0] += lstep * (lmove[0] * right[0] + lmove[2] * fx);
            l->pos[1] += lstep * lmove[1];
            l->pos[2] += lstep * (lmove[0] * right[2] + lmove[2] * fz);
            float d[3], len = 0.0f;
            for (int k = 0; k < 3; k++) {
                d[k] = c->centre[k] - l->pos[k];
                len += d[k] * d[k];
            }
            len = sqrtf(len);
            if (len > 1e-6f)
                for (int k = 0; k < 3; k++)
                    l->dir[k] = d[k] / len;
        } else {
            /* azimuth about +Y and elevation above the horizon of the direction light comes from */
            float from[3] = {-l->dir[0], -l->dir[1], -l->dir[2]};
            float n = sqrtf(from[0] * from[0] + from[1] * from[1] + from[2] * from[2]);
            if (n < 1e-6f) from[1] = n = 1.0f;
            float az = atan2f(from[0], from[2]);
            float el = asinf(fminf(fmaxf(from[1] / n, -1.0f), 1.0f));
            float rate = 45.0f * DEG * boost;
            az += rate * lmove[0] + DEG * look_x;
            el = fminf(fmaxf(el + rate * lmove[2] + DEG * look_y, 2.0f * DEG), 89.5f * DEG);
            l->dir[0] = -cosf(el) * sinf(az);
            l->dir[1] = -sinf(el);
            l->dir[2] = -cosf(el) * cosf(az);
        }
    }
}

/* append to out[*n..], keeping it terminated and *n within out_size - 1 */
static void append(char *out, size_t out_size, size_t *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void append(char *out, size_t out_size, size_t *n, const char *fmt, ...)
{
    if (*n + 1 >= out_size) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(out + *n, out_size - *n, fmt, ap);
    va_end(ap);
    *n += k > 0 ? (size_t)k : 0;
    if (*n >= out_size) *n = out_size - 1;
}

size_t controls_keys_text(char *out, size_t out_size)
{
    size_t n = 0;
    if (out_size) out[0] = '\0';
    append(out, out_size, &n, "keys:\n");
    for (int i = 0; i < BINDING_COUNT; i++)
        append(out, out_size, &n, "  %-9s %s\n", BINDINGS[i].name, BINDINGS[i].help);
    append(out, out_size, &n, "  %-9s %s\n", "Shift", "hold: 4x faster camera and light");
    append(out, out_size, &n, "  %-9s %s\n", "RMB drag", "look around");
    append(out, out_size, &n, "  %-9s %s\n", "wheel", "camera speed");
    return n;
}

void controls_print_keys(FILE *f)
{
    char text[4096];
    controls_keys_text(text, sizeof text);
    fputs(text, f);
}
