/* area_light.h — the area light's size in the app (izb_area.h: a spot light with an emitter): the
 * default of --light area and the - and = keys' steps, as pure functions the tests can drive. */
#ifndef AREA_LIGHT_H
#define AREA_LIGHT_H

#include <stdbool.h>

/* --light area without --light-size, and = on a point spot: 2% of the scene's bounds diagonal
 * (world units vary by scene; a fixed size would be a pinhole in one and a wall in another).
 * Never 0, never past IZB_AREA_MAX_SIZE (a huge or flat scene still gets a usable light). */
float area_light_default(const float bmin[3], const float bmax[3]);

/* The largest size the keys grow to: the scene's bounds diagonal, within [default, IZB_AREA_MAX_SIZE]. */
float area_light_max(const float bmin[3], const float bmax[3]);

typedef enum area_step {
    AREA_STEP_SIZED,   /* a size > 0 */
    AREA_STEP_HARD,    /* shrunk past a quarter of the default: 0, the hard spot shadow */
    AREA_STEP_CLAMPED, /* grown past max: kept at it (the caller warns) */
} area_step;

/* One step of the = (grow) or - (shrink) key on size (W, H): times or over 1.25, the aspect kept;
 * = on 0 (or a NaN or negative size) starts at def x def; - on such a size gives 0; a larger side
 * past max is brought to max first (AREA_STEP_CLAMPED when growing); 0 once the larger side drops
 * below def / 4. The result's larger side is at most max. */
area_step area_light_step(float size[2], bool grow, float def, float max);

#endif
