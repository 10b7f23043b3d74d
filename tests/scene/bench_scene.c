/* bench_scene.c — how long scenes take to load or build: each spec given (default: every built-in
 * scene at 10M triangles) is loaded 3 times; prints the triangle count and min/median/max seconds.
 * Not a test: `meson test -C BUILD --benchmark scene_build -v`, or run it with specs, e.g.
 * bench_scene builtin:grass:1M model.obj */
#include <stdio.h>
#include <time.h>

#include "scene.h"

enum { RUNS = 3 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = {"builtin:default", "builtin:tesseract:10M", "builtin:spheres:10M",
                                           "builtin:grass:10M"};
    int n = argc > 1 ? argc - 1 : (int)(sizeof defaults / sizeof defaults[0]);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        const char *spec = argc > 1 ? argv[i + 1] : defaults[i];
        double t[RUNS];
        int tris = 0;
        for (int r = 0; r < RUNS; r++) {
            char err[512];
            scene s;
            double t0 = now();
            bool ok = scene_load(spec, &s, err, sizeof err);
            t[r] = now() - t0;
            if (!ok) {
                fprintf(stderr, "%s\n", err);
                failed = 1;
                break;
            }
            tris = s.tri_count;
            scene_free(&s);
        }
        if (failed) continue;
        for (int a = 0; a < RUNS; a++) /* sort the three times */
            for (int b = a + 1; b < RUNS; b++)
                if (t[b] < t[a]) {
                    double x = t[a];
                    t[a] = t[b], t[b] = x;
                }
        printf("%-28s %10d triangles  min %.3f  median %.3f  max %.3f s\n", spec, tris, t[0], t[RUNS / 2],
               t[RUNS - 1]);
    }
    return failed;
}
