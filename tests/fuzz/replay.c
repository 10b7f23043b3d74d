/* replay.c — runs a fuzz target's LLVMFuzzerTestOneInput on every file of the given folders (the
 * seed corpus and the regression inputs of what fuzzing found), without libFuzzer: so every build,
 * gcc and the ASan one included, replays them as a test. usage: replay DIR-OR-FILE... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 1;
    }
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    uint8_t *copy = malloc(n ? n : 1); /* its own allocation: ASan sees reads past the end */
    if (!copy) return 1;
    memcpy(copy, buf, n);
    LLVMFuzzerTestOneInput(copy, n);
    free(copy);
    return 0;
}

int main(int argc, char **argv)
{
    int inputs = 0, errors = 0;
    for (int a = 1; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) != 0) { /* a regressions folder removed since configuring: nothing to replay */
            fprintf(stderr, "replay: no such file or folder (skipped): %s\n", argv[a]);
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            errors += run_file(argv[a]);
            inputs++;
            continue;
        }
        DIR *d = opendir(argv[a]);
        for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[a], e->d_name);
            errors += run_file(path);
            inputs++;
        }
        if (d) closedir(d);
    }
    printf("replayed %d inputs, %d unreadable\n", inputs, errors);
    return inputs > 0 && errors == 0 ? 0 : 1;
}
