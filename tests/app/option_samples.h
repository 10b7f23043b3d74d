/* option_samples.h — for the pairwise tests: a valid value of each options_table row that is not
 * its default, derived from the row (its min, its second mode, ...), so a row added to the table is
 * in the pairs at once; and the defaults README documents as depending on other options. */
#ifndef OPTION_SAMPLES_H
#define OPTION_SAMPLES_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/* the files the samples of file options name */
typedef struct sample_files {
    const char *dir;        /* --log, --screenshot write under it (fresh names) */
    const char *path_file;  /* --path: a short camera path */
    const char *shader_dir; /* --shader-dir: the source tree's shaders */
} sample_files;

/* Row s set to its sample as argv words into out[0..1] (texts in buf, 256 bytes); the count of
 * words, 0 for a row with no sample (--help ends the parse). tag makes output names unique. */
static inline int option_sample(const option_spec *s, const sample_files *f, const char *tag, char buf[256],
                                char *out[2])
{
    out[0] = (char *)s->name;
    out[1] = buf;
    switch (s->kind) {
    case OPTION_HELP:
        return 0;
    case OPTION_FLAG:
        return 1;
    case OPTION_INT: /* the smallest value: cheap to run (1 frame, 1 thread, 1 pixel wide); with a
                      * further rule the smallest it takes above min (min is that row's default) */
        if (s->check_int) {
            int v = (int)s->min + 1;
            while (v < (int)s->max && !s->check_int(v))
                v++;
            snprintf(buf, 256, "%d", v);
        } else {
            snprintf(buf, 256, "%.0f", s->min);
        }
        break;
    case OPTION_FLOAT: /* min, or the middle of an open range or of one from 0 (0 is the usual "off"
                        * default: --light-angle) */
        snprintf(buf, 256, "%.9g", s->open || s->min == 0.0 ? (s->min + s->max) / 2 : s->min);
        break;
    case OPTION_VEC3:
        snprintf(buf, 256, "1,2,3");
        break;
    case OPTION_SIZE2:
        snprintf(buf, 256, "%.0fx%.0f", s->min, s->min);
        break;
    case OPTION_FLOAT2: /* a small W,H inside the range (0 is the usual "off" default: --light-size) */
        snprintf(buf, 256, "%.9g,%.9g", s->min + 0.5, s->min + 0.25);
        break;
    case OPTION_ENUM: { /* the second mode: the first is the default (index 0, or 1 after a NULL 0) */
        int k = s->names[0] ? 1 : 2;
        snprintf(buf, 256, "%s", k < s->count && s->names[k] ? s->names[k] : "?");
        break;
    }
    case OPTION_SCENE:
        snprintf(buf, 256, "builtin:grass:1k");
        break;
    case OPTION_OUTPUT:
        snprintf(buf, 256, "%s/%s%s.out", f->dir, tag, s->name + 1);
        break;
    case OPTION_INPUT:
        snprintf(buf, 256, "%s", f->path_file);
        break;
    case OPTION_DIR:
        snprintf(buf, 256, "%s", f->shader_dir);
        break;
    }
    return 2;
}

static inline const option_spec *option_named(const char *name)
{
    for (int k = 0; k < options_count; k++)
        if (strcmp(options_table[k].name, name) == 0) return &options_table[k];
    return NULL;
}

/* --frames' documented default (README, --help): "until the window closes; headless 60", and
 * "--path: headless runs stop at its end unless --frames is given" (0: to the path's end), unless
 * the path loops. given[k]: row k is on the command line. The 60 is read from the row's help. */
static inline double documented_frames(const bool given[])
{
    const option_spec *frames = option_named("--frames");
    const char *h = frames && frames->deflt ? strstr(frames->deflt, "headless ") : NULL;
    const double headless_frames = h ? atof(h + 9) : -1.0;
    const bool headless = given[option_named("--headless") - options_table],
               path = given[option_named("--path") - options_table],
               loop = given[option_named("--path-loop") - options_table];
    return headless && (!path || loop) ? headless_frames : 0.0;
}

/* Pairs the options refuse together, as documented, with a word of the refusal: their samples
 * conflict by design (checked to be refused, not skipped). */
static const char *const option_refused_pairs[][3] = {
    {"--light-angle", "--light", "directional light only"}, /* soft shadows: directional so far */
    {"--shadow-samples", "--light-angle", "not with --light-angle"},
};

/* the refusal's words when rows a and b may not be combined, else NULL */
static inline const char *option_refused_pair(int a, int b)
{
    for (size_t i = 0; i < sizeof option_refused_pairs / sizeof option_refused_pairs[0]; i++) {
        const char *x = options_table[a].name, *y = options_table[b].name;
        if ((!strcmp(x, option_refused_pairs[i][0]) && !strcmp(y, option_refused_pairs[i][1])) ||
            (!strcmp(y, option_refused_pairs[i][0]) && !strcmp(x, option_refused_pairs[i][1])))
            return option_refused_pairs[i][2];
    }
    return NULL;
}

#endif
