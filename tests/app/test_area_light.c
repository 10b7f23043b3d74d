/* test_area_light.c — the area light's size keys and default (app/area_light.c), against the rule
 * restated here: random key sequences on random scenes' bounds and random starting sizes (NaN,
 * negative, 0, tiny, huge among them) keep every size finite, >= 0 and at most the largest; = on
 * a point starts at the default; each step scales both sides by exactly 1.25 (the aspect kept) but
 * for the clamp, which lands the larger side exactly on the largest (a size past it, from the
 * command line, is fitted first), and for the drop to 0 below a quarter of the default. */
#include <math.h>
#include <stdio.h>

#include "area_light.h"
#include "izb_area.h"
#include "test.h"
#include "test_rng.h"

static float rand_size(void)
{
    const double k = rnd();
    return k < 0.1 ? NAN : k < 0.2 ? -1.0f : k < 0.3 ? 0.0f : k < 0.4 ? 1e-9f : k < 0.5 ? 1e9f : (float)rnd_in(0, 20);
}

int main(void)
{
    int steps = 0, clamped = 0, hard = 0;
    for (int c = 0; c < 2000; c++) {
        float bmin[3], bmax[3];
        for (int k = 0; k < 3; k++) {
            bmin[k] = (float)rnd_in(-100, 0) * (c % 7 == 0 ? 1e5f : 1.0f);
            bmax[k] = bmin[k] + (float)rnd_in(0, 50) * (c % 11 == 0 ? 0.0f : 1.0f);
        }
        const float def = area_light_default(bmin, bmax), max = area_light_max(bmin, bmax);
        CHECK(def > 0.0f && def <= max && max <= IZB_AREA_MAX_SIZE && isfinite(max), "case %d: default %g, max %g", c,
              (double)def, (double)max);
        float s[2] = {rand_size(), rand_size()};
        for (int k = 0; k < 30; k++, steps++) {
            const float w = s[0], h = s[1];
            const bool grow = rnd() < 0.6;
            const area_step r = area_light_step(s, grow, def, max);
            CHECK(isfinite(s[0]) && isfinite(s[1]) && s[0] >= 0.0f && s[1] >= 0.0f && fmaxf(s[0], s[1]) <= max,
                  "case %d step %d: %g x %g -> %g x %g", c, k, (double)w, (double)h, (double)s[0], (double)s[1]);
            const bool empty = !(w > 0.0f || h > 0.0f) || !(w >= 0.0f && h >= 0.0f);
            if (empty) {
                CHECK(grow ? (r == AREA_STEP_SIZED && s[0] == fminf(def, max) && s[1] == s[0])
                           : (r == AREA_STEP_HARD && s[0] == 0.0f && s[1] == 0.0f),
                      "case %d step %d: %g x %g, %s: %g x %g (%d)", c, k, (double)w, (double)h, grow ? "=" : "-",
                      (double)s[0], (double)s[1], r);
            } else if (r == AREA_STEP_CLAMPED) {
                clamped++;
                CHECK(grow && fmaxf(w, h) * 1.25f > max && fmaxf(s[0], s[1]) == max &&
                          fabsf(s[0] * fmaxf(w, h) - w * max) <= 1e-5f * s[0] * fmaxf(w, h),
                      "case %d step %d: clamp of %g x %g to %g x %g (max %g)", c, k, (double)w, (double)h, (double)s[0],
                      (double)s[1], (double)max);
            } else if (r == AREA_STEP_HARD) {
                hard++;
                CHECK(!grow && fminf(fmaxf(w, h), max) / 1.25f < 0.25f * def && s[0] == 0.0f && s[1] == 0.0f,
                      "case %d step %d: %g x %g dropped to 0 (default %g)", c, k, (double)w, (double)h, (double)def);
            } else if (fmaxf(w, h) > max) { /* shrunk from past the range: fitted first */
                CHECK(!grow && fabsf(fmaxf(s[0], s[1]) - max / 1.25f) <= 1e-6f * max, "case %d step %d: %g x %g - -> %g x %g",
                      c, k, (double)w, (double)h, (double)s[0], (double)s[1]);
            } else {
                CHECK(grow ? s[0] == w * 1.25f && s[1] == h * 1.25f : s[0] == w / 1.25f && s[1] == h / 1.25f,
                      "case %d step %d: %g x %g %s -> %g x %g", c, k, (double)w, (double)h, grow ? "=" : "-",
                      (double)s[0], (double)s[1]);
            }
        }
    }
    CHECK(clamped > 100 && hard > 50, "clamped %d, dropped to 0 %d times of %d steps", clamped, hard, steps);
    return test_done();
}
