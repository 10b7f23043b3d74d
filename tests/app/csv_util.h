/* csv_util.h — read the FPS log CSV in tests: a header row and string cells, looked up by column
 * name. Every row must have the header's column count and end in '\n' (csv_read fails else). */
#ifndef CSV_UTIL_H
#define CSV_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CSV_MAX_COLS = 96, CSV_MAX_ROWS = 4096 };

typedef struct csv_table {
    int cols;
    long rows;
    char *header[CSV_MAX_COLS];
    char **cells; /* rows * cols */
    char *text;
} csv_table;

static inline void csv_free(csv_table *t)
{
    free(t->cells);
    free(t->text);
    memset(t, 0, sizeof *t);
}

static inline int csv_split(char *line, char **out)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n < CSV_MAX_COLS) out[n] = p;
        n++;
        p = strpbrk(p, ",");
        if (!p) break;
        *p = '\0';
    }
    return n;
}

static inline bool csv_read(const char *path, csv_table *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    t->text = malloc((size_t)size + 1);
    t->cells = malloc(sizeof(char *) * CSV_MAX_COLS * CSV_MAX_ROWS);
    bool ok = t->text && t->cells && fread(t->text, 1, (size_t)size, f) == (size_t)size;
    fclose(f);
    if (!ok || size == 0 || t->text[size - 1] != '\n') {
        csv_free(t);
        return false;
    }
    t->text[size] = '\0';
    char *save = NULL;
    for (char *line = strtok_r(t->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!t->cols) {
            t->cols = csv_split(line, t->header);
            if (t->cols > CSV_MAX_COLS) ok = false;
            continue;
        }
        if (t->rows >= CSV_MAX_ROWS || csv_split(line, t->cells + t->rows * CSV_MAX_COLS) != t->cols) {
            ok = false;
            break;
        }
        t->rows++;
    }
    if (!ok || !t->cols) csv_free(t);
    return ok && t->cols;
}

static inline int csv_col(const csv_table *t, const char *name)
{
    for (int c = 0; c < t->cols; c++)
        if (strcmp(t->header[c], name) == 0) return c;
    return -1;
}

static inline const char *csv_str(const csv_table *t, long row, const char *name)
{
    int c = csv_col(t, name);
    return c < 0 || row >= t->rows ? "" : t->cells[row * CSV_MAX_COLS + c];
}

static inline double csv_num(const csv_table *t, long row, const char *name)
{
    const char *s = csv_str(t, row, name);
    char *end = NULL;
    double v = strtod(s, &end);
    return *s && end && *end == '\0' ? v : -1e300;
}

#endif
