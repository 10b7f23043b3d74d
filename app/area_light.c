/* area_light.c — the area light's default size and the keys' steps (area_light.h). */
#include "area_light.h"

#include <math.h>

#include "izb_area.h"

static float diagonal(const float bmin[3], const float bmax[3])
{
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        const double e = (double)bmax[k] - bmin[k];
        d2 += isfinite(e) ? e * e : 0.0;
    }
    return (float)fmin(sqrt(d2), (double)IZB_AREA_MAX_SIZE);
}

float area_light_default(const float bmin[3], const float bmax[3])
{
    const float d = 0.02f * diagonal(bmin, bmax);
    return d > 1e-6f ? d : 1e-6f;
}

float area_light_max(const float bmin[3], const float bmax[3])
{
    const float d = diagonal(bmin, bmax), def = area_light_default(bmin, bmax);
    return d > def ? d : def;
}

/* (w, h) scaled so that its larger side is exactly max, the aspect kept (w, h > 0 finite); the
 * smaller side's rounding never past max (a square's would be, by an ulp) */
static void fit(float *w, float *h, float max)
{
    if (*w >= *h)
        *h = fminf(*h * (max / *w), max), *w = max;
    else
        *w = fminf(*w * (max / *h), max), *h = max;
}

area_step area_light_step(float size[2], bool grow, float def, float max)
{
    float w = size[0], h = size[1];
    const bool empty = !(w > 0.0f || h > 0.0f) || !(w >= 0.0f && h >= 0.0f);
    if (grow && empty) {
        size[0] = size[1] = def <= max ? def : max;
        return AREA_STEP_SIZED;
    }
    if (empty) {
        size[0] = size[1] = 0.0f;
        return AREA_STEP_HARD;
    }
    if ((w > h ? w : h) > max) { /* a size from the command line past the keys' range: brought into it */
        fit(&w, &h, max);
        if (grow) {
            size[0] = w, size[1] = h;
            return AREA_STEP_CLAMPED;
        }
    }
    const float side = w > h ? w : h;
    if (grow) {
        if (side * 1.25f > max) {
            fit(&w, &h, max);
            size[0] = w, size[1] = h;
            return AREA_STEP_CLAMPED;
        }
        size[0] = w * 1.25f, size[1] = h * 1.25f;
        return AREA_STEP_SIZED;
    }
    if (side / 1.25f < 0.25f * def) {
        size[0] = size[1] = 0.0f;
        return AREA_STEP_HARD;
    }
    size[0] = w / 1.25f, size[1] = h / 1.25f;
    return AREA_STEP_SIZED;
}
