/* test_scene_spec.c — builtin:NAME[:N], generated from where its bounds are written down
 * (scene.h: SCENE_MIN_TRIANGLES, SCENE_MAX_TRIANGLES, scene_count_suffixes; scene_builtin_names):
 * for every built-in scene and every suffix, the smallest and largest N accepted (and read as the
 * count it means), one step outside each end refused; garbage N and unknown names refused. Each
 * value goes through the three doors a scene comes in by: scene_builtin_parse, the command line
 * (--scene and the positional argument) and, for refusals and the smallest N, scene_load (the
 * largest would build 20M triangles: scene_load reads N with scene_builtin_parse, tested at the
 * max here). --help and README state the range from the same constants.
 * usage: test_scene_spec PATH-TO-README.md */
#undef NDEBUG
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "scene.h"
#include "test.h"

static char err[1024];

/* spec refused everywhere: parse, --scene, positional, scene_load; one line naming spec each */
static void expect_refused(const char *spec)
{
    char name[SCENE_NAME_MAX];
    long n = -7;
    CHECK(!scene_builtin_parse(spec, name, &n, err, sizeof err), "scene_builtin_parse accepts '%s'", spec);
    char shown[160]; /* as the message quotes it: control bytes as spaces */
    snprintf(shown, sizeof shown, "%s", spec);
    for (char *c = shown; *c; c++)
        if ((unsigned char)*c < 0x20) *c = ' ';
    CHECK(strstr(err, shown) && !strchr(err, '\n'), "parse '%s': one line naming it: '%s'", spec, err);
    app_options o;
    char *as_option[] = {"izb-shadows", "--scene", (char *)spec, NULL};
    char *as_positional[] = {"izb-shadows", (char *)spec, NULL};
    CHECK(parse_options(3, as_option, &o, err, sizeof err) == OPTIONS_ERROR, "--scene '%s' accepted", spec);
    CHECK(strstr(err, "--scene '") && !strchr(err, '\n'), "--scene '%s': one line naming it: '%s'", spec,
          err);
    CHECK(parse_options(2, as_positional, &o, err, sizeof err) == OPTIONS_ERROR, "positional '%s' accepted",
          spec);
    scene s;
    CHECK(!scene_load(spec, &s, err, sizeof err), "scene_load '%s' loaded", spec);
    CHECK(strstr(err, "scene") && !strchr(err, '\n'), "scene_load '%s': one line: '%s'", spec, err);
}

/* spec accepted by the parser and the command line, meaning `want` triangles (0: the default) */
static void expect_accepted(const char *spec, const char *want_name, long want)
{
    char name[SCENE_NAME_MAX];
    long n = -7;
    const bool ok = scene_builtin_parse(spec, name, &n, err, sizeof err);
    CHECK(ok && strcmp(name, want_name) == 0 && n == want, "'%s': %s (%s, %ld; want %s, %ld)", spec,
          ok ? "read" : err, ok ? name : "", n, want_name, want);
    app_options o;
    char *as_option[] = {"izb-shadows", "--scene", (char *)spec, NULL};
    char *as_positional[] = {"izb-shadows", (char *)spec, NULL};
    CHECK(parse_options(3, as_option, &o, err, sizeof err) == OPTIONS_OK && strcmp(o.scene, spec) == 0,
          "--scene '%s': %s", spec, err);
    CHECK(parse_options(2, as_positional, &o, err, sizeof err) == OPTIONS_OK && strcmp(o.scene, spec) == 0,
          "positional '%s': %s", spec, err);
}

/* N texts that are no count, whatever the bounds */
static const char *const not_counts[] = {"",    "-1",   "+1",  " 1",   "1 ",  "1.5", "1e3", "nan", "inf",
                                         "abc", "k",    "1kk", "1kM",  "1x",  "0x10", "1k\n", "1,5", "1_000",
                                         "99999999999999999999999", "-0", NULL};

static void test_name(const char *nm)
{
    char spec[160];
    snprintf(spec, sizeof spec, "builtin:%s", nm);
    expect_accepted(spec, nm, 0);
    for (const scene_count_suffix *x = scene_count_suffixes;; x++) {
        const char suf[2] = {x->letter, '\0'};
        /* the smallest and largest digits this suffix allows, and a step past each */
        const long lo = (SCENE_MIN_TRIANGLES + x->mul - 1) / x->mul, hi = SCENE_MAX_TRIANGLES / x->mul;
        snprintf(spec, sizeof spec, "builtin:%s:%ld%s", nm, lo, suf), expect_accepted(spec, nm, lo * x->mul);
        snprintf(spec, sizeof spec, "builtin:%s:%ld%s", nm, hi, suf), expect_accepted(spec, nm, hi * x->mul);
        snprintf(spec, sizeof spec, "builtin:%s:%ld%s", nm, lo - 1, suf), expect_refused(spec);
        snprintf(spec, sizeof spec, "builtin:%s:%ld%s", nm, hi + 1, suf), expect_refused(spec);
        if (!x->letter) break;
    }
    for (int k = 0; not_counts[k]; k++) {
        snprintf(spec, sizeof spec, "builtin:%s:%s", nm, not_counts[k]);
        expect_refused(spec);
    }
    snprintf(spec, sizeof spec, "builtin:%sx", nm), expect_refused(spec);
    snprintf(spec, sizeof spec, "builtin:%sx:5", nm), expect_refused(spec);
    /* the smallest N builds (scene_load takes what the parser takes) */
    snprintf(spec, sizeof spec, "builtin:%s:%d", nm, SCENE_MIN_TRIANGLES);
    scene s;
    CHECK(scene_load(spec, &s, err, sizeof err) && s.tri_count > 0, "scene_load '%s': %s", spec, err);
    scene_free(&s);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_scene_spec PATH-TO-README.md\n");
        return 1;
    }
    CHECK(SCENE_MIN_TRIANGLES >= 1 && SCENE_MIN_TRIANGLES <= SCENE_MAX_TRIANGLES, "range");
    int names = 0;
    for (int i = 0; scene_builtin_names[i]; i++, names++)
        test_name(scene_builtin_names[i]);
    CHECK(names >= 5, "%d built-in scenes", names);
    expect_refused("builtin:");
    expect_refused("builtin::5");
    expect_refused("builtin:nope");

    /* the range as --help and README state it, from the same constants */
    char *help = NULL;
    size_t len = 0;
    FILE *h = open_memstream(&help, &len);
    options_usage(h);
    fclose(h);
    char want[96];
    snprintf(want, sizeof want, "N: %d to %d", SCENE_MIN_TRIANGLES, SCENE_MAX_TRIANGLES);
    CHECK(strstr(help, want) != NULL, "--help states '%s'", want);
    free(help);
    FILE *r = fopen(argv[1], "r");
    CHECK(r != NULL, "cannot read %s", argv[1]);
    static char readme[1 << 18];
    const size_t got = r ? fread(readme, 1, sizeof readme - 1, r) : 0;
    readme[got] = '\0';
    if (r) fclose(r);
    if (SCENE_MAX_TRIANGLES % 1000000 == 0)
        snprintf(want, sizeof want, "count from %d to %dM", SCENE_MIN_TRIANGLES,
                 SCENE_MAX_TRIANGLES / 1000000);
    else
        snprintf(want, sizeof want, "count from %d to %d", SCENE_MIN_TRIANGLES, SCENE_MAX_TRIANGLES);
    for (char *c = readme; *c; c++) /* the sentence may wrap there */
        if (*c == '\n') *c = ' ';
    CHECK(strstr(readme, want) != NULL, "%s states N's range as '%s'", argv[1], want);
    return test_done();
}
