/* controls.h — the window's keys and mouse: fly camera (WASD + QE, right-drag to look, Shift
 * faster, wheel sets the speed), light movement (arrows, PageUp/PageDown), and toggles (kernel,
 * binning, unit size, culling, light type, vsync, view, help, quit). All bindings live in one table
 * in controls.c; controls_print_keys() prints it. Movement is scaled by the frame time while a key
 * is held; a tap that begins and ends between two frames (low frame rates) moves one step,
 * CONTROLS_TAP_S seconds' worth. */
#ifndef CONTROLS_H
#define CONTROLS_H

#include <stdio.h>

#include "view.h"

struct GLFWwindow;

/* Toggles, one bit each; the key callbacks queue every press (controls_next). */
enum {
    CONTROL_KERNEL = 1u << 0,     /* K: kernel1 <-> kernel2 */
    CONTROL_BINNING = 1u << 1,    /* B: radix <-> atomic */
    CONTROL_UNIT = 1u << 2,       /* U: auto -> 32 -> 64 -> 128 -> 256 -> auto */
    CONTROL_CULL = 1u << 3,       /* C: back-face culling auto -> on -> off */
    CONTROL_LIGHT_TYPE = 1u << 4, /* T: directional -> spot -> area (a spot with a size) -> point */
    CONTROL_VSYNC = 1u << 5,      /* Y */
    CONTROL_VIEW = 1u << 6,       /* V: shaded -> overlay -> mask -> depth -> points -> cells */
    CONTROL_RESET = 1u << 7,      /* Home: camera and light back to the scene's */
    CONTROL_HELP = 1u << 8,       /* F1 or ? */
    CONTROL_QUIT = 1u << 9,       /* Esc */
    /* shadow maps beside the IZB (render/shadow_map.h) */
    CONTROL_SHADOW_MODE = 1u << 10, /* M: IZB -> shadow map -> difference -> no shadows */
    CONTROL_SM_SMALLER = 1u << 11,  /* [: halve the shadow map */
    CONTROL_SM_LARGER = 1u << 12,   /* ]: double the shadow map */
    CONTROL_GROUND = 1u << 13,      /* G: the added ground on/off (scene_add_ground) */
    CONTROL_UP = 1u << 14,          /* O: the model's up axis y -> z -> x -> -y -> -z -> -x (scene_set_up) */
    CONTROL_ALPHA = 1u << 15,       /* X: the alpha test of cut-outs on/off (--alpha-test) */
    /* the directional light's size (soft shadows, izb_soft.h) */
    CONTROL_LIGHT_WIDER = 1u << 16,    /* =: angular size x1.5 (from 0: the sun's 0.53 degrees), at most 20; a spot's size x1.25 */
    CONTROL_LIGHT_NARROWER = 1u << 17, /* -: angular size / 1.5; below 0.5 degrees: 0, hard shadows; a spot's size / 1.25 */
    CONTROL_LIGHT_SAMPLES = 1u << 18,  /* N: light samples 16 -> 32 -> 64 -> 128 -> 256 -> 16 */
    /* several lights (view.h light_set) */
    CONTROL_LIGHT_NEXT = 1u << 19,   /* J: pick the next light: the one L steers and T, - = N change */
    CONTROL_LIGHT_ADD = 1u << 25,    /* Insert: add a light (a copy of the picked one), pick it */
    CONTROL_LIGHT_REMOVE = 1u << 26, /* Delete: remove the picked light (not the last) */
    CONTROL_SHADOW_SAMPLES = 1u << 27, /* I: sub-samples per pixel 1 -> 4 -> 8 -> 16 -> 32 -> 1 (izb_aa.h) */
    /* the demo tools (app/session.c) */
    CONTROL_HUD = 1u << 20,        /* H: HUD on/off */
    CONTROL_LOG = 1u << 21,        /* F: start/stop an FPS log */
    CONTROL_RECORD = 1u << 22,     /* R: start/stop recording a camera path */
    CONTROL_LIGHT_MODE = 1u << 23, /* L: keys and mouse move the light instead of the camera */
    CONTROL_SCREENSHOT = 1u << 24, /* P: PNG screenshot */
};

/* Presses a frame can hold: far more than a hand types between two frames at 1 fps. */
enum { CONTROLS_QUEUE = 64 };

typedef struct controls {
    struct GLFWwindow *window;
    float speed;     /* camera speed, scene units per second (wheel scales it) */
    float centre[3]; /* scene centre: the spot light keeps looking at it */
    float radius;    /* scene bounding-sphere radius: scales speeds */
    bool looking;    /* right button held */
    double last_x, last_y;
    /* toggles pressed since they were last taken, in order, one CONTROL_* bit per press: a frame
     * slower than the keys must not merge two presses of a key into one */
    unsigned queue[CONTROLS_QUEUE];
    int queue_first, queue_len;
    long dropped;            /* presses lost to a full queue (said on stderr when it happens) */
    unsigned long long taps; /* movement keys pressed since the last update, by binding index */
    bool light_mode;  /* L: movement keys and mouse steer the light */
} controls;

/* Install the callbacks on `window` (its user pointer becomes c). Speeds follow the scene size. */
void controls_init(controls *c, struct GLFWwindow *window, const float bmin[3], const float bmax[3]);

/* Apply held keys and the mouse to the camera and light for a frame of dt seconds. */
void controls_update(controls *c, float dt, camera *cam, light *l);

/* The next toggle pressed (one CONTROL_* bit), in the order pressed; 0 when none is left. Every
 * press comes out once: K pressed four times between two frames gives four CONTROL_KERNEL. Taking
 * CONTROL_LIGHT_MODE flips light_mode. Call until 0 once a frame, before controls_update(). */
unsigned controls_next(controls *c);

/* What the key callback does on a press of GLFW key `key`: queue its toggle, or remember a
 * movement key's press so a tap released before the next frame still moves (tests call it; the
 * callback installed by controls_init() is the window's way in). */
void controls_key(controls *c, int key);

/* Seconds of movement one tap of a movement key is worth (one step). */
#define CONTROLS_TAP_S 0.1f

/* The key table, one binding a line: into f, or into out (the HUD's F1 overlay; returns the
 * length, truncated to out_size). */
void controls_print_keys(FILE *f);
size_t controls_keys_text(char *out, size_t out_size);

#endif
