/* test_options_pairs.c — the defaults matrix at parse level: every option alone and every ordered
 * pair of options, each set to a valid value that is not its default (option_samples.h, derived
 * from its row), parses, keeps the values given, and leaves every OTHER option at its documented
 * default: the no-option default, except --frames, whose default README documents as depending on
 * --headless, --path and --path-loop (documented_frames). Two rows may write one field only as an
 * enum and its shortcut flag (--cull, --no-cull). Catches a handler that writes another option's
 * field (an option setting frames = 0, "forever") or a default lost when two combine. */
#undef NDEBUG
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "izb_config.h"
#include "option_samples.h"
#include "test.h"

enum { MAX_ROWS = 128 };
static char err[512];
static app_options defaults, single[MAX_ROWS];
static sample_files files;
static char dir[] = "/tmp/izb-options-pairs-XXXXXX";

static const char *string_field(const app_options *o, const option_spec *s)
{
    const char *v;
    memcpy(&v, (const char *)o + s->dest, sizeof v);
    return v;
}

static bool is_string(const option_spec *s)
{
    return s->kind == OPTION_SCENE || s->kind == OPTION_OUTPUT || s->kind == OPTION_INPUT ||
           s->kind == OPTION_DIR;
}

/* row s holds the same in a and b (every component; its has flag) */
static bool row_same(const app_options *a, const app_options *b, const option_spec *s)
{
    if (is_string(s)) {
        const char *x = string_field(a, s), *y = string_field(b, s);
        return (!x && !y) || (x && y && strcmp(x, y) == 0);
    }
    const int parts = s->kind == OPTION_VEC3 ? 3 : s->kind == OPTION_SIZE2 || s->kind == OPTION_FLOAT2 ? 2 : 1;
    for (int c = 0; c < parts; c++)
        if (options_value(a, s, c) != options_value(b, s, c)) return false;
    return !s->has || *((const char *)a + s->has - 1) == *((const char *)b + s->has - 1);
}

/* rows a and b may write one field only as a documented shortcut: a flag that stores a value
 * (.value) of an enum option's field (--no-cull: "the same as --cull off"); any other sharing is a
 * row writing another option's field */
static bool shortcut_pair(const option_spec *a, const option_spec *b)
{
    return (a->kind == OPTION_FLAG && a->value != 0 && b->kind == OPTION_ENUM) ||
           (b->kind == OPTION_FLAG && b->value != 0 && a->kind == OPTION_ENUM);
}

/* rows given on the command line write row c's field (it is one of them, or its shortcut) */
static bool written(int c, const int *rows, int n)
{
    for (int i = 0; i < n; i++)
        if (rows[i] == c || (options_table[rows[i]].dest == options_table[c].dest &&
                             shortcut_pair(&options_table[rows[i]], &options_table[c])))
            return true;
    return false;
}

/* a copy of s that lives to the end (parse_options' strings point into argv, and single[] keeps
 * them) */
static char *kept(const char *s)
{
    static char pool[1 << 20];
    static size_t used;
    const size_t n = strlen(s) + 1;
    if (used + n > sizeof pool) {
        fprintf(stderr, "test_options_pairs: out of pool\n");
        exit(1);
    }
    char *p = memcpy(pool + used, s, n);
    used += n;
    return p;
}

/* parse the samples of rows[0..n-1], in that order */
static options_result parse_rows(const int *rows, int n, app_options *o)
{
    char buf[256], *argv[16] = {"izb-shadows"};
    int argc = 1;
    for (int i = 0; i < n; i++) {
        char *w[2];
        const int words = option_sample(&options_table[rows[i]], &files, "p", buf, w);
        for (int j = 0; j < words; j++)
            argv[argc++] = kept(w[j]);
    }
    argv[argc] = NULL;
    return parse_options(argc, argv, o, err, sizeof err);
}

/* after rows[0..n-1], every row they do not write holds its documented default */
static void check_others(const app_options *o, const int *rows, int n, const char *what)
{
    bool given[MAX_ROWS] = {false};
    for (int i = 0; i < n; i++)
        given[rows[i]] = true;
    for (int c = 0; c < options_count; c++) {
        const option_spec *s = &options_table[c];
        if (s->kind == OPTION_HELP || written(c, rows, n)) continue;
        if (strcmp(s->name, "--frames") == 0) {
            const double want = documented_frames(given);
            CHECK(options_value(o, s, 0) == want, "%s: --frames is %g, its documented default %g", what,
                  options_value(o, s, 0), want);
        } else {
            CHECK(row_same(o, &defaults, s), "%s: %s lost its default", what, s->name);
        }
    }
}

static bool has_sample(int k)
{
    char buf[256], *w[2];
    return option_sample(&options_table[k], &files, "p", buf, w) > 0;
}

int main(void)
{
    CHECK(options_count <= MAX_ROWS, "%d rows", options_count);
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path_file[300];
    snprintf(path_file, sizeof path_file, "%s/short.path", dir);
    FILE *pf = fopen(path_file, "w");
    CHECK(pf != NULL, "write %s", path_file);
    if (pf) {
        fprintf(pf, "izb-path 1\n0 0 3 8 0 -20 0 0.3 -1 0.2 0 0 0\n0.25 0.5 3 8 5 -20 0 0.3 -1 0.2 0 0 0\n");
        fclose(pf);
    }
    files = (sample_files){.dir = dir, .path_file = path_file, .shader_dir = IZB_SOURCE_DIR "/shaders"};

    /* two rows on one field: only an enum and its shortcut flag */
    for (int a = 0; a < options_count; a++)
        for (int b = 0; b < a; b++)
            if (options_table[a].kind != OPTION_HELP && options_table[b].kind != OPTION_HELP &&
                options_table[a].dest == options_table[b].dest)
                CHECK(shortcut_pair(&options_table[a], &options_table[b]), "%s and %s write one field",
                      options_table[b].name, options_table[a].name);

    char *argv0[] = {"izb-shadows", NULL};
    CHECK(parse_options(1, argv0, &defaults, err, sizeof err) == OPTIONS_OK, "no options: %s", err);
    check_others(&defaults, NULL, 0, "no options");

    int singles = 0, pairs = 0;
    for (int a = 0; a < options_count; a++) {
        if (!has_sample(a)) continue;
        const option_spec *s = &options_table[a];
        CHECK(parse_rows(&a, 1, &single[a]) == OPTIONS_OK, "%s alone: %s", s->name, err);
        CHECK(!row_same(&single[a], &defaults, s), "%s's sample is its default: it tests nothing", s->name);
        char what[96];
        snprintf(what, sizeof what, "%s alone", s->name);
        check_others(&single[a], &a, 1, what);
        singles++;
    }
    for (int a = 0; a < options_count; a++)
        for (int b = 0; b < options_count; b++) {
            if (a == b || !has_sample(a) || !has_sample(b)) continue;
            const int rows[2] = {a, b};
            app_options o;
            char what[128];
            snprintf(what, sizeof what, "%s then %s", options_table[a].name, options_table[b].name);
            const options_result r = parse_rows(rows, 2, &o);
            const char *why = option_refused_pair(a, b);
            if (why) {
                CHECK(r == OPTIONS_ERROR && strstr(err, why), "%s: refused with '%s'? '%s'", what, why, err);
                pairs++;
                continue;
            }
            CHECK(r == OPTIONS_OK, "%s: %s", what, err);
            if (r != OPTIONS_OK) continue;
            /* each keeps its own value, unless the other writes the same field */
            if (options_table[a].dest != options_table[b].dest) {
                CHECK(row_same(&o, &single[a], &options_table[a]), "%s: %s's value lost", what,
                      options_table[a].name);
                CHECK(row_same(&o, &single[b], &options_table[b]), "%s: %s's value lost", what,
                      options_table[b].name);
            }
            check_others(&o, rows, 2, what);
            pairs++;
        }
    CHECK(singles >= 30 && pairs == singles * (singles - 1), "%d options alone, %d ordered pairs", singles,
          pairs);
    fprintf(stderr, "%d options alone, %d ordered pairs parsed\n", singles, pairs);

    unlink(path_file);
    rmdir(dir);
    return test_done();
}
