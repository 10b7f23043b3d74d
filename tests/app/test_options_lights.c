/* test_options_lights.c — several lights on the command line: `--light` given again starts another
 * light, the --light-* options and --cone describe the latest one (before the first --light: light
 * 0). Random command lines of 1 to IZB_MAX_LIGHTS + 3 lights of random types, each with a random
 * subset of its options (intensity 0 among them), are parsed and options_lights() compared field by
 * field with a model built beside the command line; more than IZB_MAX_LIGHTS lights, an intensity
 * out of 0..LIGHT_MAX_INTENSITY, and an angular size on a light that is not directional are refused
 * with one line naming the option. Catches: a field of one light leaking into the next, a light
 * lost or counted twice, a ninth light taken, a refusal that names nothing. */
#undef NDEBUG
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "test.h"
#include "test_rng.h"

enum { TRIALS = 400, MAX_ARGS = 256 };

static char words[MAX_ARGS][64];
static char *argv_[MAX_ARGS + 1];
static int argc_;

static void arg(const char *fmt, double a, double b, double c)
{
    if (argc_ >= MAX_ARGS) return;
    snprintf(words[argc_], sizeof words[argc_], fmt, a, b, c);
    argv_[argc_] = words[argc_];
    argc_++;
}

static void type_arg(light_type t)
{
    if (argc_ >= MAX_ARGS) return;
    snprintf(words[argc_], sizeof words[argc_], "--light=%s", light_type_names[t]);
    argv_[argc_] = words[argc_];
    argc_++;
}

static bool same_light(const options_light *a, const options_light *b)
{
    return a->light == b->light && a->has_light_dir == b->has_light_dir && a->has_light_pos == b->has_light_pos &&
           a->has_light_intensity == b->has_light_intensity &&
           (!a->has_light_dir || memcmp(a->light_dir, b->light_dir, sizeof a->light_dir) == 0) &&
           (!a->has_light_pos || memcmp(a->light_pos, b->light_pos, sizeof a->light_pos) == 0) &&
           a->cone_deg == b->cone_deg && a->light_angle == b->light_angle && a->light_samples == b->light_samples &&
           (!a->has_light_intensity || a->light_intensity == b->light_intensity);
}

/* a value that prints and parses back exactly */
static float exact(double lo, double hi)
{
    return (float)((int)(rnd_in(lo, hi) * 8.0) / 8.0);
}

int main(void)
{
    static app_options o;
    char err[512];
    int refused_count = 0, refused_value = 0, refused_angle = 0, taken = 0, taken_zero = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
        const int n = 1 + (int)(rnd() * (IZB_MAX_LIGHTS + 3));
        options_light want[IZB_MAX_LIGHTS + 3];
        memset(want, 0, sizeof want);
        argc_ = 0;
        arg("izb-shadows", 0, 0, 0);
        int bad = 0; /* 1: an out-of-range intensity, 2: an angle on a light not directional */
        const int bad_at = (int)(rnd() * n);
        const bool want_bad = rnd() < 0.2;
        for (int i = 0; i < n; i++) {
            options_light *w = &want[i];
            w->light = (light_type)(int)(rnd() * LIGHT_TYPE_COUNT);
            /* light 0's options may come before its --light */
            const bool type_first = i > 0 || rnd() < 0.5;
            if (type_first) type_arg(w->light);
            if (rnd() < 0.5) {
                w->has_light_pos = true;
                for (int k = 0; k < 3; k++) w->light_pos[k] = exact(-20, 20);
                arg("--light-pos", 0, 0, 0);
                arg("%.9g,%.9g,%.9g", w->light_pos[0], w->light_pos[1], w->light_pos[2]);
            }
            if (rnd() < 0.5) {
                w->has_light_dir = true;
                w->light_dir[0] = exact(-1, 1), w->light_dir[1] = -1.0f, w->light_dir[2] = exact(-1, 1);
                arg("--light-dir=%.9g,%.9g,%.9g", w->light_dir[0], w->light_dir[1], w->light_dir[2]);
            }
            if (rnd() < 0.4) {
                w->cone_deg = exact(1, 170);
                arg("--cone", 0, 0, 0);
                arg("%.9g", w->cone_deg, 0, 0);
            }
            if (rnd() < 0.5) {
                w->has_light_intensity = true;
                w->light_intensity = rnd() < 0.3 ? 0.0f : exact(0, LIGHT_MAX_INTENSITY);
                if (want_bad && i == bad_at && rnd() < 0.5) {
                    bad = bad ? bad : 1;
                    w->light_intensity = rnd() < 0.5 ? -0.5f : LIGHT_MAX_INTENSITY + 1.0f;
                }
                arg("--light-intensity", 0, 0, 0);
                arg("%.9g", w->light_intensity, 0, 0);
            }
            if (w->light == LIGHT_DIRECTIONAL && rnd() < 0.3) {
                w->light_angle = exact(0.5, 10);
                w->light_samples = 64;
                arg("--light-angle", 0, 0, 0);
                arg("%.9g", w->light_angle, 0, 0);
                arg("--light-samples=64", 0, 0, 0);
            } else if (w->light != LIGHT_DIRECTIONAL && want_bad && i == bad_at && !bad) {
                bad = 2;
                arg("--light-angle", 0, 0, 0);
                arg("2", 0, 0, 0);
            }
            if (!type_first) type_arg(w->light);
        }
        argv_[argc_] = NULL;
        /* the first refusal the parser meets, in command-line order: a bad value is met where it
         * is; a ninth light when its --light comes; an angle when its light ends */
        const options_result res = parse_options(argc_, argv_, &o, err, sizeof err);
        if (n > IZB_MAX_LIGHTS || bad) {
            CHECK(res == OPTIONS_ERROR, "trial %d: %d lights (bad %d) taken", trial, n, bad);
            const bool names = strstr(err, "--light") != NULL && strchr(err, '\n') == NULL;
            CHECK(names, "trial %d: the refusal names the option, on one line: '%s'", trial, err);
            if (bad == 0) {
                CHECK(strstr(err, "at most 8 lights") != NULL, "trial %d: '%s'", trial, err);
                refused_count++;
            } else if (bad == 1 && n <= IZB_MAX_LIGHTS) {
                CHECK(strstr(err, "--light-intensity") != NULL, "trial %d: '%s'", trial, err);
                refused_value++;
            } else if (bad == 2 && n <= IZB_MAX_LIGHTS) {
                CHECK(strstr(err, "--light-angle") != NULL, "trial %d: '%s'", trial, err);
                refused_angle++;
            }
            continue;
        }
        CHECK(res == OPTIONS_OK, "trial %d: %d lights: %s", trial, n, err);
        if (res != OPTIONS_OK) continue;
        options_light got[IZB_MAX_LIGHTS];
        const int count = options_lights(&o, got);
        CHECK(count == n, "trial %d: %d lights given, %d parsed", trial, n, count);
        for (int i = 0; i < n && i < count; i++) {
            CHECK(same_light(&got[i], &want[i]), "trial %d: light %d of %d: type %d/%d pos %d cone %g/%g intensity %g/%g",
                  trial, i, n, got[i].light, want[i].light, got[i].has_light_pos, (double)got[i].cone_deg,
                  (double)want[i].cone_deg, (double)got[i].light_intensity, (double)want[i].light_intensity);
            taken_zero += want[i].has_light_intensity && want[i].light_intensity == 0.0f;
        }
        taken++;
    }
    /* the generator reached every case */
    CHECK(taken > 50 && taken_zero > 10 && refused_count > 20 && refused_value > 3 && refused_angle > 3,
          "cases: %d taken (%d lights at intensity 0), refused: %d too many, %d bad intensity, %d angle", taken,
          taken_zero, refused_count, refused_value, refused_angle);
    printf("%d taken (%d lights at intensity 0); refused: %d too many, %d intensity, %d angle\n", taken, taken_zero,
           refused_count, refused_value, refused_angle);
    return test_done();
}
