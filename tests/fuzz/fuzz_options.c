/* fuzz_options.c — libFuzzer target: the command line. Two ways to read an input:
 *  - text: split at NUL bytes, it is argv[1..] (at most 32 arguments);
 *  - table walk, an input starting with byte 0x01: the bytes after it are (row, choice) pairs,
 *    each an option of options_table with a value built from that row: its min, its max, one
 *    step outside either, its middle, one of its names, a near-miss of a name, NaN, Inf, garbage,
 *    as `--name value` or `--name=value`. The fuzzer then spends its time at the edges the parser
 *    must decide, for every option, instead of rediscovering option names byte by byte.
 * Either way parse_options must return one of its three results; an error is one line; an
 * accepted command line holds, in every field the table names, the default or a value inside the
 * row's range (the rule --help documents). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "options.h"

enum { MAX_ARGS = 32, ARG_LEN = 96 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* argv from the table walk: pairs of bytes into at most MAX_ARGS arguments in args */
static int table_walk(const uint8_t *data, size_t size, char args[MAX_ARGS][ARG_LEN], char **argv);
/* a value for row s, chosen by pick; into buf */
static const char *value_for(const option_spec *s, unsigned pick, char *buf, size_t n);
/* append "a" "b" as the next argument (cut to ARG_LEN) */
static void add_arg(char args[MAX_ARGS][ARG_LEN], char **argv, int *argc, const char *a, const char *b);
/* a float as text that reads back exactly */
static void ftext(char *buf, size_t n, float f);
/* every field the table names holds its default or a value inside the row's range */
static void check_fields(const app_options *o, const app_options *def);

static void ftext(char *buf, size_t n, float f)
{
    snprintf(buf, n, "%.9g", (double)f);
}

static const char *value_for(const option_spec *s, unsigned pick, char *buf, size_t n)
{
    static const char *const junk[] = {"nan", "inf", "-inf", "", "1x", "0x10", "1e99999", "auto", "-"};
    const unsigned njunk = sizeof junk / sizeof junk[0];
    const float lo = (float)s->min, hi = (float)s->max;
    switch (s->kind) {
    case OPTION_INT: {
        const long l = (long)s->min, h = (long)s->max;
        const long v[5] = {l, h, l - 1, h + 1, l + (h - l) / 2};
        if (pick % 8 < 5) snprintf(buf, n, "%ld", v[pick % 8]);
        return pick % 8 < 5 ? buf : junk[pick % njunk];
    }
    case OPTION_FLOAT: {
        const float v[7] = {lo,
                            hi,
                            nextafterf(lo, -INFINITY),
                            nextafterf(hi, INFINITY),
                            nextafterf(lo, hi),
                            nextafterf(hi, lo),
                            lo + 0.5f * (hi - lo)};
        if (pick % 10 < 7) ftext(buf, n, v[pick % 10]);
        return pick % 10 < 7 ? buf : junk[pick % njunk];
    }
    case OPTION_VEC3: { /* each component one of these, by three digits of pick */
        const float v[6] = {lo, hi, 0.0f, 1.0f, nextafterf(hi, INFINITY), NAN};
        char c[3][32];
        for (int k = 0; k < 3; k++, pick /= 6)
            ftext(c[k], sizeof c[k], v[pick % 6]);
        snprintf(buf, n, "%s,%s,%s", c[0], c[1], c[2]);
        return buf;
    }
    case OPTION_FLOAT2: { /* W or W,H, each one of these, by two digits of pick */
        const float v[6] = {lo, hi, nextafterf(lo, -INFINITY), nextafterf(hi, INFINITY), 1.0f, NAN};
        char c[2][32];
        for (int k = 0; k < 2; k++, pick /= 6)
            ftext(c[k], sizeof c[k], v[pick % 6]);
        if (pick % 2)
            snprintf(buf, n, "%s", c[0]);
        else
            snprintf(buf, n, "%s,%s", c[0], c[1]);
        return buf;
    }
    case OPTION_SIZE2: {
        const long l = (long)s->min, h = (long)s->max, v[4] = {l, h, l - 1, h + 1};
        snprintf(buf, n, "%ldx%ld", v[pick % 4], v[(pick / 4) % 4]);
        return buf;
    }
    case OPTION_ENUM: {
        const unsigned k = pick % (unsigned)(s->count + 2);
        if (k < (unsigned)s->count) return s->names[k] ? s->names[k] : "default";
        if (k == (unsigned)s->count && s->names[s->count - 1]) { /* a near miss */
            snprintf(buf, n, "%sx", s->names[s->count - 1]);
            return buf;
        }
        return "";
    }
    case OPTION_SCENE: {
        static const char *const v[] = {"builtin:default",
                                        "builtin:grass:1k",
                                        "builtin:spheres:0",
                                        "builtin:nope",
                                        "/no/such.obj",
                                        "/tmp",
                                        ""};
        return v[pick % (sizeof v / sizeof v[0])];
    }
    case OPTION_OUTPUT: {
        static const char *const v[] = {"/tmp/izb-fuzz-options-no-such-file", "/no/such/dir/x", "", "/tmp"};
        return v[pick % (sizeof v / sizeof v[0])];
    }
    case OPTION_INPUT:
    case OPTION_DIR: {
        static const char *const v[] = {"/dev/null", "/tmp", "/no/such", ""};
        return v[pick % (sizeof v / sizeof v[0])];
    }
    case OPTION_FLAG:
    case OPTION_HELP:
        break;
    }
    return "1";
}

static void add_arg(char args[MAX_ARGS][ARG_LEN], char **argv, int *argc, const char *a, const char *b)
{
    if (snprintf(args[*argc], ARG_LEN, "%s%s", a, b) >= ARG_LEN) args[*argc][ARG_LEN - 1] = '\0';
    argv[*argc] = args[*argc];
    (*argc)++;
}

static int table_walk(const uint8_t *data, size_t size, char args[MAX_ARGS][ARG_LEN], char **argv)
{
    int argc = 1;
    for (size_t i = 0; i + 1 < size && argc + 2 <= MAX_ARGS; i += 2) {
        const option_spec *s = &options_table[data[i] % options_count];
        const unsigned choice = data[i + 1], eq = choice & 1, pick = choice >> 1;
        const char *name = s->alias && (pick & 64) ? s->alias : s->name;
        char val[ARG_LEN];
        if (s->kind == OPTION_FLAG || s->kind == OPTION_HELP) {
            add_arg(args, argv, &argc, name, eq ? "=1" : ""); /* =1: a value it must refuse */
            continue;
        }
        const char *v = value_for(s, pick, val, sizeof val);
        if (eq) {
            char joined[ARG_LEN];
            snprintf(joined, sizeof joined, "%s=", name);
            add_arg(args, argv, &argc, joined, v);
        } else {
            add_arg(args, argv, &argc, name, "");
            add_arg(args, argv, &argc, v, "");
        }
    }
    argv[argc] = NULL;
    return argc;
}

static void check_fields(const app_options *o, const app_options *def)
{
    for (int k = 0; k < options_count; k++) {
        const option_spec *s = &options_table[k];
        const bool given = s->has ? *(const bool *)((const char *)o + s->has - 1) : true;
        if (!given) continue;
        const double v = options_value(o, s, 0), d = options_value(def, s, 0);
        switch (s->kind) {
        case OPTION_INT:
            FUZZ_ASSERT(v == d ||
                            (v >= s->min && v <= s->max && (!s->pow2 || ((long)v & ((long)v - 1)) == 0)) ||
                            (s->auto_zero && v == 0),
                        "%s holds %.10g: neither its default %.10g nor in its range", s->name, v, d);
            break;
        case OPTION_FLOAT: {
            const float f = (float)v, lo = (float)s->min, hi = (float)s->max;
            FUZZ_ASSERT(v == d || (isfinite(v) && (s->open ? f > lo && f < hi : f >= lo && f <= hi)),
                        "%s holds %.10g: neither its default %.10g nor in its range", s->name, v, d);
            break;
        }
        case OPTION_VEC3: {
            float c[3];
            for (int i = 0; i < 3; i++) {
                c[i] = (float)options_value(o, s, i);
                FUZZ_ASSERT(isfinite(c[i]) && c[i] >= (float)s->min && c[i] <= (float)s->max, "%s[%d] %g",
                            s->name, i, (double)c[i]);
            }
            FUZZ_ASSERT(!s->check || s->check(c), "%s %g,%g,%g fails its rule", s->name, (double)c[0],
                        (double)c[1], (double)c[2]);
            break;
        }
        case OPTION_FLOAT2:
            for (int i = 0; i < 2; i++) {
                const double c = options_value(o, s, i);
                FUZZ_ASSERT(c == options_value(def, s, i) || (isfinite(c) && c >= (float)s->min && c <= (float)s->max),
                            "%s[%d] %g", s->name, i, c);
            }
            break;
        case OPTION_SIZE2: {
            const double h = options_value(o, s, 1), dh = options_value(def, s, 1);
            FUZZ_ASSERT((v == d && h == dh) || (v >= s->min && v <= s->max && h >= s->min && h <= s->max),
                        "%s %gx%g", s->name, v, h);
            break;
        }
        case OPTION_ENUM:
            FUZZ_ASSERT(v == d || (v >= 0 && v < s->count && s->names[(int)v]), "%s holds %g", s->name, v);
            break;
        case OPTION_SCENE:
        case OPTION_OUTPUT:
        case OPTION_INPUT:
        case OPTION_DIR: {
            const char *str;
            memcpy(&str, (const char *)o + s->dest, sizeof str);
            FUZZ_ASSERT(!str || *str, "%s is an empty string", s->name);
            break;
        }
        case OPTION_FLAG: /* its field belongs to a flag (a bool) or to an enum row checked above */
        case OPTION_HELP:
            break;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static app_options def; /* what no option gives */
    static bool have_def;
    char err[1024] = "";
    if (!have_def) {
        char *none[] = {"izb-shadows", NULL};
        FUZZ_ASSERT(parse_options(1, none, &def, err, sizeof err) == OPTIONS_OK, "no options: %s", err);
        have_def = true;
    }

    char *argv[MAX_ARGS + 2] = {"izb-shadows"};
    int argc = 1;
    char *buf = NULL;
    static char args[MAX_ARGS][ARG_LEN];
    if (size > 0 && data[0] == 0x01) {
        argc = table_walk(data + 1, size - 1, args, argv);
    } else {
        buf = malloc(size + 1); /* its own copy: libFuzzer's buffer is read-only */
        if (!buf) return 0;
        memcpy(buf, data, size);
        buf[size] = '\0';
        for (size_t i = 0; i <= size && argc <= MAX_ARGS;) {
            argv[argc++] = buf + i;
            i += strlen(buf + i) + 1;
        }
        argv[argc] = NULL;
        if (size == 0) argc = 1;
    }

    app_options o;
    options_result r = parse_options(argc, argv, &o, err, sizeof err);
    FUZZ_ASSERT(r == OPTIONS_OK || r == OPTIONS_HELP || r == OPTIONS_ERROR, "result %d", (int)r);
    if (r == OPTIONS_ERROR) FUZZ_ASSERT(fuzz_one_line(err), "error message '%s'", err);
    if (r == OPTIONS_OK) {
        check_fields(&o, &def);
        /* several lights (a --light given again): each earlier light holds what the rows allow too,
         * checked as the latest light's fields of a copy */
        options_light lights[IZB_MAX_LIGHTS];
        const int count = options_lights(&o, lights);
        FUZZ_ASSERT(count >= 1 && count <= IZB_MAX_LIGHTS, "%d lights accepted", count);
        for (int i = 0; i + 1 < count; i++) {
            static app_options c;
            c = o;
            const options_light *l = &lights[i];
            c.light = l->light;
            c.has_light_dir = l->has_light_dir, c.has_light_pos = l->has_light_pos;
            c.has_light_intensity = l->has_light_intensity;
            memcpy(c.light_dir, l->light_dir, sizeof c.light_dir);
            memcpy(c.light_pos, l->light_pos, sizeof c.light_pos);
            c.cone_deg = l->cone_deg, c.light_angle = l->light_angle, c.light_intensity = l->light_intensity;
            c.light_samples = l->light_samples;
            check_fields(&c, &def);
        }
        FUZZ_ASSERT(o.scene && *o.scene, "scene");
        FUZZ_ASSERT(!o.headless || o.frames > 0 || (o.path && !o.path_loop), "headless runs end: frames %ld",
                    o.frames);
    }
    free(buf);
    return 0;
}
