/* test_keys_readme.c — README's keys table names every key of the F1 list (controls.c's table),
 * so a key added to one is not missing from the other (PageUp / PageDown were, issue 22). Spaces
 * are ignored ("Page Up" is PageUp); the four arrows are the table's "arrow keys" row.
 * usage: test_keys_readme PATH-TO-README.md */
#undef NDEBUG
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controls.h"
#include "test.h"

/* s without spaces, in out */
static void squeeze(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (; *s && k + 1 < n; s++)
        if (!isspace((unsigned char)*s)) out[k++] = *s;
    out[k] = '\0';
}

/* c is where a whole key w ends (before: starts) in the squeezed cells: a separator (| , /), the
 * words "and" / "or" between keys, or for a one-letter key the next letter key ("WASD") */
static bool key_edge(const char *c, const char *w, bool before)
{
    if (strchr("|,/", *c)) return true;
    if (before ? strncmp(c - 2, "and", 3) == 0 || strncmp(c - 1, "or", 2) == 0
               : strncmp(c, "and", 3) == 0 || strncmp(c, "or", 2) == 0)
        return true;
    return strlen(w) == 1 && isupper((unsigned char)*c);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_keys_readme PATH-TO-README.md\n");
        return 1;
    }
    FILE *f = fopen(argv[1], "r");
    CHECK(f != NULL, "open %s", argv[1]);
    if (!f) return test_done();
    /* the first cells of the table under "## Keys", spaces squeezed out, joined by '|' */
    static char cells[8192];
    char line[1024];
    size_t used = 0;
    bool in_keys = false;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "## ", 3) == 0) in_keys = strncmp(line, "## Keys", 7) == 0;
        if (!in_keys || line[0] != '|') continue;
        char *end = strchr(line + 1, '|');
        if (!end) continue;
        *end = '\0';
        char cell[512];
        squeeze(line + 1, cell, sizeof cell);
        used += (size_t)snprintf(cells + used, sizeof cells - used, "|%s|", cell);
    }
    fclose(f);
    CHECK(used > 100, "README has a keys table (%zu chars of keys)", used);

    /* the F1 list: "  NAME      help", NAME padded to 9 columns; "keys:" first */
    char list[4096];
    controls_keys_text(list, sizeof list);
    int names = 0;
    for (char *l = strchr(list, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        char name[16];
        snprintf(name, sizeof name, "%.9s", l + 3);
        for (char *e = name + strlen(name); e > name && e[-1] == ' ';)
            *--e = '\0';
        if (strcmp(name, "Shift") == 0 || strcmp(name, "RMB drag") == 0 || strcmp(name, "wheel") == 0)
            continue; /* not table keys: the README says them in words */
        names++;
        bool arrow = strcmp(name, "Left") == 0 || strcmp(name, "Right") == 0 || strcmp(name, "Up") == 0 ||
                     strcmp(name, "Down") == 0;
        /* each key of the name ("F1 or ?": F1 and ?) as a word of a first cell */
        char copy[16];
        snprintf(copy, sizeof copy, "%s", arrow ? "arrowkeys" : name);
        for (char *w = strtok(copy, " "); w; w = strtok(NULL, " ")) {
            if (strcmp(w, "or") == 0) continue;
            bool found = false;
            for (const char *c = strstr(cells, w); c && !found; c = strstr(c + 1, w))
                found = key_edge(c - 1, w, true) && key_edge(c + strlen(w), w, false);
            CHECK(found, "README's keys table has '%s' (F1 list: '%s')", w, name);
        }
    }
    CHECK(names >= 25, "%d keys in the F1 list", names);
    return test_done();
}
