/* test_options_table.c — every row of options_table, tested from the row itself: a numeric
 * option's documented min and max accepted (and stored), one step outside each refused, NaN, Inf
 * and garbage refused; every name of an enum option accepted, an unknown one refused; flags take
 * no value; each refusal is one line naming the option. Every option is in --help, and README's
 * options table lists exactly the table's options.
 * usage: test_options_table PATH-TO-README.md */
#undef NDEBUG
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "test.h"

static app_options o;
static char err[512];

/* parse `name value` (value NULL: the name alone); eq: as --name=value */
static options_result parse(const char *name, const char *value, bool eq);
/* value refused: OPTIONS_ERROR with one line naming the option */
static void expect_refused(const option_spec *s, const char *value);
/* value accepted; then the stored number (component c) must equal want */
static void expect_number(const option_spec *s, const char *value, int c, double want);
/* float as text that strtof reads back to exactly f */
static const char *ftext(char *buf, size_t n, float f);
/* everything the row's kind promises: range ends, names, malformed values, a missing value */
static void test_row(const option_spec *s);
/* the names in README's options table are exactly the table's */
static void test_readme(const char *path);

static options_result parse(const char *name, const char *value, bool eq)
{
    char joined[512];
    char *argv[4] = {"izb-shadows", (char *)name, NULL, NULL};
    int argc = 2;
    if (value && eq) {
        snprintf(joined, sizeof joined, "%s=%s", name, value);
        argv[1] = joined;
    } else if (value) {
        argv[argc++] = (char *)value;
    }
    return parse_options(argc, argv, &o, err, sizeof err);
}

static void expect_refused(const option_spec *s, const char *value)
{
    /* a scene file's message names the file as "scene file '...'", like the positional argument's */
    const char *needle = s->kind == OPTION_SCENE ? "scene" : s->name;
    for (int eq = 0; eq < 2; eq++) {
        options_result r = parse(s->name, value, eq);
        CHECK(r == OPTIONS_ERROR, "%s%s%s accepted", s->name, eq ? "=" : " ", value);
        CHECK(strstr(err, needle) != NULL && strchr(err, '\n') == NULL, "%s '%s': one line naming it: '%s'",
              s->name, value, err);
    }
}

static void expect_number(const option_spec *s, const char *value, int c, double want)
{
    for (int eq = 0; eq < 2; eq++) {
        options_result r = parse(s->name, value, eq);
        CHECK(r == OPTIONS_OK, "%s%s%s refused: %s", s->name, eq ? "=" : " ", value, err);
        if (r != OPTIONS_OK) continue;
        CHECK(options_value(&o, s, c) == want, "%s %s stored %.10g (component %d), want %.10g", s->name,
              value, options_value(&o, s, c), c, want);
        if (s->has)
            CHECK(*(const bool *)((const char *)&o + s->has - 1), "%s %s: its has flag is set", s->name,
                  value);
    }
}

static const char *ftext(char *buf, size_t n, float f)
{
    snprintf(buf, n, "%.9g", (double)f);
    return buf;
}

/* values no number option takes */
static const char *const not_numbers[] = {"nan",   "NaN", "inf", "-inf", "infinity", "1e99999",
                                          "12abc", "abc", "",    "0x",   "1,",       NULL};

static void test_int(const option_spec *s)
{
    char a[64];
    const long lo = (long)s->min, hi = (long)s->max;
    CHECK(lo == s->min && hi == s->max && lo <= hi, "%s: whole-number range", s->name);
    snprintf(a, sizeof a, "%ld", lo), expect_number(s, a, 0, (double)lo);
    snprintf(a, sizeof a, "%ld", hi), expect_number(s, a, 0, (double)hi);
    snprintf(a, sizeof a, "%ld", lo - 1), expect_refused(s, a);
    snprintf(a, sizeof a, "%ld", hi + 1), expect_refused(s, a);
    snprintf(a, sizeof a, "%ld.5", lo), expect_refused(s, a);
    if (s->pow2 && lo * 2 < hi) /* inside the range, not a power of two */
        snprintf(a, sizeof a, "%ld", lo * 3), expect_refused(s, a);
    if (s->check_int) /* the further rule: every value in range it refuses is refused, the rest taken */
        for (long v = lo; v <= hi && v < lo + 4096; v++) {
            snprintf(a, sizeof a, "%ld", v);
            if (s->check_int((int)v)) expect_number(s, a, 0, (double)v);
            else expect_refused(s, a);
        }
    if (s->auto_zero)
        expect_number(s, "auto", 0, 0.0);
    else
        expect_refused(s, "auto");
}

static void test_float(const option_spec *s)
{
    char a[64];
    const float lo = (float)s->min, hi = (float)s->max;
    if (s->open) {
        /* the bounds refused, the floats next to them inside accepted (not a subnormal next to 0: strtof
         * reports those as a range error, so FLT_MIN is the smallest positive float anyone types) */
        float in_lo = nextafterf(lo, hi), in_hi = nextafterf(hi, lo);
        if (fabsf(in_lo) < FLT_MIN) in_lo = FLT_MIN;
        expect_refused(s, ftext(a, sizeof a, lo));
        expect_refused(s, ftext(a, sizeof a, hi));
        expect_number(s, ftext(a, sizeof a, in_lo), 0, in_lo);
        expect_number(s, ftext(a, sizeof a, in_hi), 0, in_hi);
    } else {
        expect_number(s, ftext(a, sizeof a, lo), 0, lo);
        expect_number(s, ftext(a, sizeof a, hi), 0, hi);
        expect_refused(s, ftext(a, sizeof a, nextafterf(lo, -INFINITY)));
        expect_refused(s, ftext(a, sizeof a, nextafterf(hi, INFINITY)));
    }
}

static void test_vec3(const option_spec *s)
{
    char a[128], x[32];
    const float lo = (float)s->min, hi = (float)s->max;
    for (int c = 0; c < 3; c++) { /* each component at each end, the others 1 */
        const float ends[4] = {lo, hi, nextafterf(lo, -INFINITY), nextafterf(hi, INFINITY)};
        for (int e = 0; e < 4; e++) {
            snprintf(a, sizeof a, "%s,%s,%s", c == 0 ? ftext(x, sizeof x, ends[e]) : "1",
                     c == 1 ? ftext(x, sizeof x, ends[e]) : "1", c == 2 ? ftext(x, sizeof x, ends[e]) : "1");
            if (e < 2)
                expect_number(s, a, c, ends[e]);
            else
                expect_refused(s, a);
        }
        snprintf(a, sizeof a, "%s,%s,%s", c == 0 ? "nan" : "1", c == 1 ? "nan" : "1", c == 2 ? "nan" : "1");
        expect_refused(s, a);
    }
    static const char *const malformed[] = {"1,2", "1,2,3,4", "1,,3", ",1,2", "1;2;3", NULL};
    for (int k = 0; malformed[k]; k++)
        expect_refused(s, malformed[k]);
    if (s->check && !s->check((const float[3]){0.0f, 0.0f, 0.0f})) expect_refused(s, "0,0,0");
}

static void test_size2(const option_spec *s)
{
    char a[64];
    const long lo = (long)s->min, hi = (long)s->max;
    snprintf(a, sizeof a, "%ldx%ld", lo, hi), expect_number(s, a, 0, (double)lo),
        expect_number(s, a, 1, (double)hi);
    snprintf(a, sizeof a, "%ldx%ld", hi, lo), expect_number(s, a, 0, (double)hi),
        expect_number(s, a, 1, (double)lo);
    snprintf(a, sizeof a, "%ldx%ld", lo - 1, lo), expect_refused(s, a);
    snprintf(a, sizeof a, "%ldx%ld", lo, lo - 1), expect_refused(s, a);
    snprintf(a, sizeof a, "%ldx%ld", hi + 1, lo), expect_refused(s, a);
    snprintf(a, sizeof a, "%ldx%ld", lo, hi + 1), expect_refused(s, a);
    static const char *const malformed[] = {"1", "1x", "x1", "1x1x1", "nanx1", "1xinf", NULL};
    for (int k = 0; malformed[k]; k++)
        expect_refused(s, malformed[k]);
}

static void test_float2(const option_spec *s)
{
    char a[128], x[32], y[32];
    const float lo = (float)s->min, hi = (float)s->max;
    const float ends[4] = {lo, hi, nextafterf(lo, -INFINITY), nextafterf(hi, INFINITY)};
    for (int e = 0; e < 4; e++) { /* one value: both components; two: each at each end, the other lo */
        ftext(x, sizeof x, ends[e]);
        if (e < 2)
            expect_number(s, x, 0, ends[e]), expect_number(s, x, 1, ends[e]);
        else
            expect_refused(s, x);
        for (int c = 0; c < 2; c++) {
            ftext(y, sizeof y, lo);
            snprintf(a, sizeof a, "%s,%s", c == 0 ? x : y, c == 1 ? x : y);
            if (e < 2)
                expect_number(s, a, c, ends[e]), expect_number(s, a, 1 - c, lo);
            else
                expect_refused(s, a);
        }
    }
    static const char *const malformed[] = {"1,", ",1", "1,2,3", "1,,2", "nan,1", "1,inf", "1;2", NULL};
    for (int k = 0; malformed[k]; k++)
        expect_refused(s, malformed[k]);
}

static void test_enum(const option_spec *s)
{
    int named = 0;
    for (int k = 0; k < s->count; k++) {
        if (!s->names[k]) continue;
        named++;
        expect_number(s, s->names[k], 0, k);
        char longer[64];
        snprintf(longer, sizeof longer, "%sx", s->names[k]);
        expect_refused(s, longer);
    }
    CHECK(named >= 2, "%s: %d names", s->name, named);
    expect_refused(s, "no-such-mode");
    CHECK(parse(s->name, "no-such-mode", false) == OPTIONS_ERROR, "%s refuses an unknown name", s->name);
    for (int k = 0; k < s->count; k++) /* the message lists what is accepted */
        CHECK(!s->names[k] || strstr(err, s->names[k]), "%s: message lists '%s': %s", s->name, s->names[k],
              err);
    expect_refused(s, "");
}

static void test_row(const option_spec *s)
{
    switch (s->kind) {
    case OPTION_INT:
        test_int(s);
        break;
    case OPTION_FLOAT:
        test_float(s);
        break;
    case OPTION_VEC3:
        test_vec3(s);
        break;
    case OPTION_SIZE2:
        test_size2(s);
        break;
    case OPTION_FLOAT2:
        test_float2(s);
        break;
    case OPTION_ENUM:
        test_enum(s);
        break;
    case OPTION_FLAG:
        CHECK(parse(s->name, NULL, false) == OPTIONS_OK, "%s: %s", s->name, err);
        CHECK(options_value(&o, s, 0) == (s->value ? s->value : 1), "%s stores %d", s->name,
              s->value ? s->value : 1);
        CHECK(parse(s->name, "1", true) == OPTIONS_ERROR && strstr(err, s->name) &&
                  strstr(err, "takes no value"),
              "%s=1: '%s'", s->name, err);
        break;
    case OPTION_HELP:
        CHECK(parse(s->name, NULL, false) == OPTIONS_HELP, "%s", s->name);
        CHECK(!s->alias || parse(s->alias, NULL, false) == OPTIONS_HELP, "%s", s->alias);
        break;
    case OPTION_SCENE:
        CHECK(parse(s->name, "builtin:spheres:1k", false) == OPTIONS_OK &&
                  strcmp(o.scene, "builtin:spheres:1k") == 0,
              "%s: %s", s->name, err);
        expect_refused(s, "/no/such/scene.obj");
        break;
    case OPTION_OUTPUT:
        CHECK(parse(s->name, "/tmp/izb-options-table-no-such-file", false) == OPTIONS_OK, "%s: %s", s->name,
              err);
        expect_refused(s, "/no/such/dir/file");
        expect_refused(s, "");
        break;
    case OPTION_INPUT:
        CHECK(parse(s->name, "/dev/null", false) == OPTIONS_OK, "%s /dev/null: %s", s->name, err);
        expect_refused(s, "/no/such/file");
        expect_refused(s, "");
        break;
    case OPTION_DIR:
        CHECK(parse(s->name, "/tmp", false) == OPTIONS_OK, "%s /tmp: %s", s->name, err);
        expect_refused(s, "/no/such/dir");
        break;
    }
    if (s->kind == OPTION_INT || s->kind == OPTION_FLOAT || s->kind == OPTION_SIZE2 || s->kind == OPTION_FLOAT2)
        for (int k = 0; not_numbers[k]; k++)
            expect_refused(s, not_numbers[k]);
    if (s->kind != OPTION_FLAG && s->kind != OPTION_HELP) { /* a value it needs, missing */
        CHECK(parse(s->name, NULL, false) == OPTIONS_ERROR && strstr(err, s->name) &&
                  strstr(err, "needs a value"),
              "%s alone: '%s'", s->name, err);
    }
}

/* README's options table: the rows whose first cell starts with `--, under a heading that says
 * "option" or "command line" (other sections have tables of script flags). Every backticked span in
 * that cell is read word by word; each word that starts with "--" names an option (up to a '='), so
 * a row may list one option or several (`--width W --height H`, `--kernel 1\|2`, `--binning ...`). */
static void test_readme(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot read %s", path);
    if (!f) return;
    static char names[8192] = "\n"; /* "\n--a\n--b\n": what the table lists */
    size_t len = 1;
    char line[4096];
    int rows = 0;
    bool in_section = false;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            for (char *l = line; *l; l++)
                *l = (char)tolower((unsigned char)*l);
            in_section = strstr(line, "option") || strstr(line, "command line");
            continue;
        }
        const char *c = line + strspn(line, " ");
        if (!in_section || *c != '|') continue;
        c += 1 + strspn(c + 1, " ");
        if (strncmp(c, "`--", 3) != 0) continue;
        rows++;
        const char *end = c; /* the first cell ends at the first '|' not escaped as '\|' */
        while (*end && !(*end == '|' && end[-1] != '\\'))
            end++;
        bool in_span = false;
        for (const char *p = c; p < end; p++) {
            if (*p == '`') {
                in_span = !in_span;
                continue;
            }
            if (!in_span || !(p[0] == '-' && p[1] == '-' && (p == c || p[-1] == '`' || p[-1] == ' ')))
                continue;
            size_t n = strcspn(p, " =`");
            if (p + n > end) n = (size_t)(end - p);
            if (len + n + 2 < sizeof names) {
                memcpy(names + len, p, n);
                len += n;
                names[len++] = '\n';
                names[len] = '\0';
            }
            p += n - 1;
        }
    }
    fclose(f);
    CHECK(rows > 0, "%s: no options table (rows whose first cell starts with `--)", path);
    char key[96];
    for (int k = 0; k < options_count; k++) {
        snprintf(key, sizeof key, "\n%s\n", options_table[k].name);
        CHECK(strstr(names, key) != NULL, "%s: the options table does not list %s", path,
              options_table[k].name);
    }
    for (const char *n = names + 1; *n; n = strchr(n, '\n') + 1) {
        const size_t l = (size_t)(strchr(n, '\n') - n);
        bool known = false;
        for (int k = 0; k < options_count; k++)
            known |= strlen(options_table[k].name) == l && strncmp(n, options_table[k].name, l) == 0;
        CHECK(known, "%s: its options table lists %.*s, which is no option", path, (int)l, n);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_options_table PATH-TO-README.md\n");
        return 1;
    }
    CHECK(options_count >= 30, "%d options", options_count);

    /* --help lists every option (and alias) at the start of a line */
    char *help = NULL;
    size_t help_len = 0;
    FILE *h = open_memstream(&help, &help_len);
    CHECK(h != NULL, "open_memstream");
    if (!h) return test_done();
    options_usage(h);
    fclose(h);
    for (int k = 0; k < options_count; k++) {
        const option_spec *s = &options_table[k];
        char key[96];
        snprintf(key, sizeof key, "\n  %s%s%s", s->name, s->alias ? ", " : "", s->alias ? s->alias : "");
        const char *at = strstr(help, key);
        CHECK(at && (at[strlen(key)] == ' ' || at[strlen(key)] == '\n'), "--help lists %s: %s", key + 3,
              help);
        for (int j = 0; j < k; j++)
            CHECK(strcmp(s->name, options_table[j].name) != 0, "%s is in the table twice", s->name);
    }
    free(help);

    /* a zero *_DEFAULT is not a mode: no name, and it is named as the mode it resolves to, the first
     * one (what --help prints as the default) */
    CHECK(izb_kernel_names[IZB_KERNEL_DEFAULT] == NULL &&
              strcmp(izb_kernel_name(IZB_KERNEL_DEFAULT), izb_kernel_names[IZB_KERNEL1]) == 0,
          "kernel default: %s", izb_kernel_name(IZB_KERNEL_DEFAULT));
    CHECK(izb_binning_names[IZB_BINNING_DEFAULT] == NULL &&
              strcmp(izb_binning_name(IZB_BINNING_DEFAULT), izb_binning_names[IZB_BINNING_RADIX]) == 0,
          "binning default: %s", izb_binning_name(IZB_BINNING_DEFAULT));
    /* zero is default (izb.h: "Defaults (zero fields)"): a zeroed izb_settings, as every caller's
     * {0} makes, resolves to each field's default mode; a *_DEFAULT that drifts off 0 leaves a {0}
     * resolving to no mode at all */
    const izb_settings zero = izb_settings_resolve((izb_settings){0});
    CHECK(zero.kernel == IZB_KERNEL1 && zero.binning == IZB_BINNING_RADIX && zero.cull == IZB_CULL_AUTO &&
              zero.unit_size == 0 && zero.grid_w == 0 && zero.grid_h == 0 && zero.bias == IZB_DEFAULT_BIAS,
          "a zeroed izb_settings resolves to kernel %d, binning %d, cull %d, bias %g", (int)zero.kernel,
          (int)zero.binning, (int)zero.cull, (double)zero.bias);
    CHECK(strcmp(izb_kernel_name((izb_kernel)0), "1") == 0 && strcmp(izb_binning_name((izb_binning)0), "radix") == 0 &&
              strcmp(izb_cull_name((izb_cull)0), "auto") == 0,
          "a zero setting is named %s / %s / %s, want 1 / radix / auto", izb_kernel_name((izb_kernel)0),
          izb_binning_name((izb_binning)0), izb_cull_name((izb_cull)0));
    CHECK(izb_cull_names[IZB_CULL_DEFAULT] == NULL &&
              strcmp(izb_cull_name(IZB_CULL_DEFAULT), izb_cull_names[IZB_CULL_AUTO]) == 0,
          "cull default: %s", izb_cull_name(IZB_CULL_DEFAULT));
    CHECK(strcmp(izb_cull_name(IZB_CULL_OFF), "off") == 0 &&
              strcmp(izb_cull_name((izb_cull)99), "auto") == 0 &&
              strcmp(izb_kernel_name((izb_kernel)99), "?") == 0,
          "names of values");

    for (int k = 0; k < options_count; k++)
        test_row(&options_table[k]);

    test_readme(argv[1]);
    return test_done();
}
