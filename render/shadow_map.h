/* shadow_map.h — conventional shadow maps beside the IZB (issue #5): a depth map from the light
 * (light_matrices' `gl` matrix) at 512 .. 16384 texels a side, as far as this GL allows, with
 * slope-scaled polygon offset, normal offset and optional 3x3 PCF, or PCSS for a directional
 * light with an angle or an area light (core/izb_pcss.h, docs/pcss.md); and a "shadow-map mask" pass
 * that looks every visible pixel up in the map and writes a GL_R8 mask (255 lit, 0 shadow or
 * outside the spot) exactly like the IZB mask, so the shading pass, the debug views and
 * mask_compare take either one.
 *
 * The renderer's shadow mode picks which mask the shading pass uses: the IZB's, the shadow map's,
 * both (difference view: pixels where they disagree coloured by which one says shadow), or none.
 * The map (size^2 floats: 1 GiB at 16384) and the screen-sized mask are made when a mode that
 * draws the map is switched on, on a size change and on render_resize, and freed when the mode
 * switches to one that does not — never per frame.
 */
#ifndef SHADOW_MAP_H
#define SHADOW_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render.h"

typedef enum shadow_mode {
    SHADOW_MODE_IZB = 0, /* the IZB mask (default) */
    SHADOW_MODE_MAP,     /* the shadow-map mask */
    SHADOW_MODE_DIFF,    /* the IZB mask; red where only the map says shadow, blue where only the IZB */
    SHADOW_MODE_NONE,    /* every pixel lit */
    SHADOW_MODE_COUNT
} shadow_mode;

extern const char *const shadow_mode_names[SHADOW_MODE_COUNT]; /* "izb", "map", "diff", "none" */

#define SHADOW_MAP_MIN_SIZE 512
#define SHADOW_MAP_MAX_SIZE 16384

/* Shadow-map settings. Defaults (zero fields): 2048 texels a side, polygon offset factor 2 and
 * units 4, normal offset 1 texel, no PCF. A negative normal_offset means none. */
typedef struct shadow_map_desc {
    int size;            /* texels a side: SHADOW_MAP_MIN_SIZE .. render_shadow_map_max_size() */
    float slope_factor;  /* glPolygonOffset factor (slope-scaled) */
    float offset_units;  /* glPolygonOffset units */
    float normal_offset; /* receiver offset along its normal, in texels (scaled by sin(N, L)) */
    bool pcf;            /* 3x3 bilinear compares: fractional mask (soft edges) */
    bool pcss;           /* a directional light with an angle (light.angle_deg > 0), or an area light
                          * (a spot with a size), is filtered with PCSS (core/izb_pcss.h: blocker
                          * search, PCF over the penumbra) instead of the hard compare or PCF; other
                          * lights as without it (shadow_map_uses_pcss) */
} shadow_map_desc;

/* Whether settings d draw light l with PCSS: d->pcss, and l a directional light with an angle in
 * (0, IZB_SOFT_MAX_ANGLE_DEG] or a spot with a size (an area light: sides in [0, IZB_AREA_MAX_SIZE],
 * one > 0). Angle 0 and size 0, 0 keep the hard map, or PCF, bit for bit; so do a negative, NaN or
 * too large angle or side (bad input the app and the IZB refuse). */
bool shadow_map_uses_pcss(const shadow_map_desc *d, const light *l);

/* Fill the zero fields with the defaults above. */
shadow_map_desc shadow_map_desc_resolve(shadow_map_desc d);

/* The largest map this GL can render to (min of GL_MAX_TEXTURE_SIZE, GL_MAX_RENDERBUFFER_SIZE, the
 * viewport limit and SHADOW_MAP_MAX_SIZE). Needs a current context. */
int render_shadow_map_max_size(void);

/* Switch the shadow mode; allocates the map and the mask target when the mode needs them and they
 * are not there. False (mode unchanged) with a one-line reason when that fails. */
bool render_set_shadow_mode(render *r, shadow_mode mode, char *err, size_t err_size);
shadow_mode render_shadow_mode(const render *r);

/* Change the map's settings. The size must be a power of two in SHADOW_MAP_MIN_SIZE ..
 * render_shadow_map_max_size(); above the limit the reason names it. Re-allocates only when the
 * size changes and a mode uses the map (else at the next switch). False (settings unchanged) with
 * a one-line reason. */
bool render_set_shadow_map(render *r, const shadow_map_desc *d, char *err, size_t err_size);
shadow_map_desc render_shadow_map_settings(const render *r);

/* Render the map from light l and the mask for camera c (after render_depth_pass with the same
 * camera). Needs a mode that uses the map (else it does nothing and returns false). Timed with a
 * GL timer query: render_get_timings().shadow_map_ms. */
bool render_shadow_map_pass(render *r, const camera *c, const light *l);

/* The same for the first `count` lights of ls (at most ls->count), one timer bracket for all:
 * light 0's mask stays in the mask target (render_read_shadow_map_mask, the difference view);
 * light i > 0's is copied into layer i - 1 of the renderer's mask array (render_lights.c), which
 * must have that many layers. A light of zero intensity other than light 0 is skipped. */
bool render_shadow_map_pass_lights(render *r, const camera *c, const light_set *ls, int count);

/* The demo's keys: next_mode cycles izb -> map -> diff -> none (M); step -1 halves, +1 doubles the
 * map (keys [ and ]), refusing to go below SHADOW_MAP_MIN_SIZE or above the GL limit. Writes one
 * line into msg: the new state, or why it did not change (then returns false). */
bool render_shadow_keys(render *r, bool next_mode, int step, char *msg, size_t msg_size);

/* Read back the shadow-map mask: width*height bytes, row 0 at the bottom (255 lit; with PCSS or
 * PCF the lit fraction, 0 .. 255). Waits. */
void render_read_shadow_map_mask(render *r, uint8_t *mask);

/* --- inside render/ only (render.c) ----------------------------------------------------------- */

typedef struct shadow_map shadow_map;

/* Compile the programs (no textures yet). NULL with a reason. */
shadow_map *shadow_map_create(const char *shader_dir, char *err, size_t err_size);
void shadow_map_destroy(shadow_map *sm);
/* Its programs that draw the scene (which 0: the map's depth pass, 1: the mask), for the cut-outs'
 * uniform (render_cutout.c); 0 for a NULL sm. */
unsigned shadow_map_program(const shadow_map *sm, int which);
/* The screen-sized targets follow the renderer's (call after its targets are re-made). */
bool shadow_map_targets_changed(render *r, char *err, size_t err_size);
/* The shadow-map mask texture (0 when not made): the shading pass reads it in the map mode, and
 * beside the IZB's in the difference view. */
unsigned shadow_map_mask_texture(const render *r);
/* The last completed timer result. */
void shadow_map_timing(shadow_map *sm, float *ms, long *frame);

/* --- for tests (test_shadow_pcss.c): what the mask pass filtered, to run the C reference on ----- */

struct izb_pcss;
/* The PCSS parameters the pass uses for light l (shadow_map_uses_pcss true) at the current size. */
void shadow_map_pcss_params(const render *r, const light *l, struct izb_pcss *out);
/* on: from now on (through resizes and mode switches) the mask pass also writes each covered
 * pixel's map coordinate s and receiver-plane slope into float targets; off frees them. False
 * with a reason when they cannot be made. */
bool shadow_map_set_probe(render *r, bool on, char *err, size_t err_size);
/* The last pass's probe (light 0's): coord 4 floats a pixel (s.u, s.v, s.z, 1 where PCSS
 * filtered the pixel, else 0; all 0 where the pass returned early or drew nothing), slope 2 floats
 * a pixel; row 0 at the bottom. False (nothing written) without a probe. Waits. */
bool shadow_map_read_probe(render *r, float *coord, float *slope);
/* The map the last light drawn left: size*size floats (the depths, row 0 at v = 0); returns the
 * size, 0 (nothing written) when no map is made. Waits. */
int shadow_map_read_depths(render *r, float *map);

#endif
