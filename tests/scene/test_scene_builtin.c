/* test_scene_builtin.c — the procedural scenes: each builds valid geometry with a ground quad first
 * and closed, outward-wound objects after it; scalable scenes land within 30% of N from 10K to 1M
 * (10M is left to the benchmark: memory and time); building is deterministic. */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scene.h"
#include "scene_check.h"
#include "test.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* triangles 0 and 1: one upward quad at the bottom of the bounds, under everything */
static int check_ground(const scene *s, const char *what)
{
    int bad = 0;
    for (int t = 0; t < 2; t++) {
        const float *p = s->xyz + 9 * t, *n = s->normals + 9 * t;
        float e1[3], e2[3];
        for (int k = 0; k < 3; k++)
            e1[k] = p[3 + k] - p[k], e2[k] = p[6 + k] - p[k];
        float up = e1[2] * e2[0] - e1[0] * e2[2]; /* y of the geometric normal */
        if (!(up > 0.0f) || p[1] != s->bounds_min[1] || p[4] != p[1] || p[7] != p[1] || n[1] != 1.0f)
            bad++, fprintf(stderr, "  %s: triangle %d is not an upward ground quad at the bottom\n", what, t);
    }
    return bad;
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The median triangle's longest edge over its shortest (the ground quad left out), over at most
 * 4096 triangles spread through the scene */
static float median_edge_ratio(const scene *s)
{
    static float r[4096];
    const int n = s->tri_count - 2, step = n > 4096 ? n / 4096 : 1;
    int m = 0;
    for (int t = 2; t < s->tri_count && m < 4096; t += step) {
        const float *p = s->xyz + 9 * (size_t)t;
        float e[3];
        for (int k = 0; k < 3; k++) {
            const float *a = p + 3 * k, *b = p + 3 * ((k + 1) % 3);
            e[k] = sqrtf((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
        }
        r[m++] = fmaxf(e[0], fmaxf(e[1], e[2])) / fminf(e[0], fminf(e[1], e[2]));
    }
    qsort(r, (size_t)m, sizeof *r, cmp_float);
    return m ? r[m / 2] : 0.0f;
}

static float last_edge_ratio; /* build()'s scene's median_edge_ratio */

/* Build, time, validate; closedness too when `closed`. Returns the triangle count (0 on failure). */
static int build(const char *name, long n, bool closed)
{
    char err[512] = "", what[96];
    snprintf(what, sizeof what, "%s:%ld", name, n);
    scene s;
    double t0 = now();
    bool ok = scene_builtin(name, n, &s, err, sizeof err);
    double t1 = now();
    CHECK(ok, "%s: %s", what, err);
    if (!ok) return 0;
    last_edge_ratio = median_edge_ratio(&s);
    printf("%-18s %9d triangles (target %ld) in %.3f s, median edge ratio %.2f\n", what, s.tri_count, n, t1 - t0,
           (double)last_edge_ratio);
    CHECK(s.dropped_nonfinite == 0 && s.dropped_degenerate == 0, "%s: drop counters set", what);
    CHECK(strncmp(s.name, "builtin:", 8) == 0, "%s: name '%s'", what, s.name);
    CHECK(check_scene_valid(&s, what) == 0, "%s: invalid scene", what);
    CHECK(check_ground(&s, what) == 0, "%s: no ground quad first", what);
    if (closed) CHECK(check_closed(&s, 2, what) == 0, "%s: objects not closed/outward", what);
    /* the camera sits above the ground */
    CHECK(s.cam_pos[1] > s.bounds_min[1], "%s: camera below the ground", what);
    int count = s.tri_count;
    scene_free(&s);
    return count;
}

/* heap bytes in use (glibc: the main arena plus mmapped blocks; the scene builders allocate on
 * the calling thread) */
static size_t heap_in_use(void)
{
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/* scene_free gives back everything a build took: a buffer it forgets (positions, normals, names)
 * shows as heap still in use after build + free. One warm-up cycle first, for what stdio and the
 * allocator keep for good; a sixteenth of the build's heap is slack for the runtime's own (about a
 * kilobyte of thread state), far below any scene buffer (positions alone are a third of it). */
static void check_free_returns_all(const char *name)
{
    for (int pass = 0; pass < 2; pass++) {
        const size_t before = heap_in_use();
        char err[512] = "";
        scene s;
        CHECK(scene_builtin(name, 0, &s, err, sizeof err), "%s: %s", name, err);
        const size_t held = heap_in_use() - before;
        scene_free(&s);
        const size_t after = heap_in_use();
        /* a sanitizer's allocator reports no glibc heap (mallinfo2 all zero): there the leak
         * checker (ASan's detect_leaks) catches a forgotten buffer instead */
        if (pass == 1 && held == 0 && after == before) {
            printf("%s: the heap is not measurable here (sanitizer allocator): left to the leak checker\n", name);
            continue;
        }
        if (pass == 1)
            CHECK(after < before + held / 16, "%s: %zu of the %zu bytes a build took are still in use after scene_free",
                  name, after - before, held);
    }
}

int main(void)
{
    /* every listed name builds at its default size, closed but for foliage's open cards
     * (test_scene_foliage.c) */
    int names = 0;
    for (int i = 0; scene_builtin_names[i]; i++, names++)
        CHECK(build(scene_builtin_names[i], 0, strcmp(scene_builtin_names[i], "foliage") != 0) > 0,
              "%s does not build", scene_builtin_names[i]);
    CHECK(names >= 4, "only %d built-in scenes", names);
    /* the names list and the table behind the error message agree */
    {
        char err[512] = "", want[512] = "";
        scene s;
        for (int i = 0; scene_builtin_names[i]; i++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s",
                     i ? ", " : "(valid: ", scene_builtin_names[i]);
        strcat(want, ")");
        CHECK(!scene_builtin("nope", 0, &s, err, sizeof err) && strstr(err, want), "'%s' lacks '%s'", err,
              want);
    }

    for (int i = 0; scene_builtin_names[i]; i++)
        check_free_returns_all(scene_builtin_names[i]);

    int def = build("default", 0, false);
    CHECK(def >= 10000 && def <= 50000, "default has %d triangles, expected 10K..50K", def);

    /* scalable scenes: within 30% of N; closed at the small sizes (the check is O(N log N)) */
    static const char *const scalable[] = {"tesseract", "spheres", "grass"};
    static const long sizes[] = {10000, 100000, 1000000};
    for (int i = 0; i < 3; i++) {
        /* and N refines the shapes in every direction, not only along one: the triangles keep their
         * proportions from 10K to 1M (median longest/shortest edge within a factor 2), where a
         * resolution stuck at its minimum turns them into slivers as N grows */
        float lo = INFINITY, hi = 0.0f;
        for (int j = 0; j < 3; j++) {
            int got = build(scalable[i], sizes[j], sizes[j] <= 100000);
            CHECK(got >= 0.7 * (double)sizes[j] && got <= 1.3 * (double)sizes[j], "%s:%ld gave %d triangles",
                  scalable[i], sizes[j], got);
            lo = fminf(lo, last_edge_ratio), hi = fmaxf(hi, last_edge_ratio);
        }
        CHECK(hi <= 2.0f * lo, "%s: the median triangle's edge ratio ranges %.2f..%.2f over 10K..1M", scalable[i],
              (double)lo, (double)hi);
    }

    /* deterministic: the same request gives the same bits */
    for (int i = 0; i < names; i++) {
        scene a, b;
        char err[256];
        bool ok = scene_builtin(scene_builtin_names[i], 20000, &a, err, sizeof err) &&
                  scene_builtin(scene_builtin_names[i], 20000, &b, err, sizeof err);
        CHECK(ok && a.tri_count == b.tri_count &&
                  memcmp(a.xyz, b.xyz, (size_t)a.tri_count * 9 * sizeof(float)) == 0 &&
                  memcmp(a.normals, b.normals, (size_t)a.tri_count * 9 * sizeof(float)) == 0 &&
                  memcmp(a.cam_pos, b.cam_pos, sizeof a.cam_pos) == 0,
              "%s is not deterministic", scene_builtin_names[i]);
        scene_free(&a);
        scene_free(&b);
    }

    /* scene_frame_view on a built scene keeps the bounds and gives a valid view */
    scene s;
    char err[256];
    if (scene_builtin("tesseract", 10000, &s, err, sizeof err)) {
        float lo[3], hi[3];
        memcpy(lo, s.bounds_min, sizeof lo);
        memcpy(hi, s.bounds_max, sizeof hi);
        s.bounds_min[0] = 1e9f; /* recomputed */
        scene_frame_view(&s);
        CHECK(memcmp(lo, s.bounds_min, sizeof lo) == 0 && memcmp(hi, s.bounds_max, sizeof hi) == 0,
              "scene_frame_view changed the bounds");
        CHECK(check_scene_valid(&s, "frame_view") == 0, "scene_frame_view gave an invalid view");
        scene_free(&s);
    }
    return test_done();
}
