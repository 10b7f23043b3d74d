/* test_scene_bad_input.c — faces with NaN/Inf coordinates and degenerate faces are dropped and
 * counted exactly; unusable normals fall back to the face normal; missing, empty, directory and
 * garbage files and malformed "builtin:" specs fail with a one-line message naming the input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scene.h"
#include "scene_check.h"
#include "test.h"

static char dir[] = "/tmp/izb_scene_test_XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[4][512];
    static int slot;
    char *p = path[slot++ % 4];
    snprintf(p, 512, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f) {
        perror(p);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
    return p;
}

/* must fail with a one-line message that contains `name` (and, if given, `also`) */
static void expect_fail(const char *spec, const char *name, const char *also)
{
    char err[512] = "";
    scene s;
    bool ok = scene_load(spec, &s, err, sizeof err);
    printf("%-50s -> %s\n", spec, ok ? "LOADED" : err);
    CHECK(!ok, "%s loaded (%d triangles)", spec, s.tri_count);
    if (ok) {
        scene_free(&s);
        return;
    }
    CHECK(err[0] && !strchr(err, '\n') && !strchr(err, '\r'), "%s: message empty or not one line", spec);
    CHECK(strstr(err, name) != NULL, "%s: message does not name '%s': %s", spec, name, err);
    CHECK(!also || strstr(err, also) != NULL, "%s: message lacks '%s': %s", spec, also, err);
    CHECK(s.xyz == NULL && s.normals == NULL && s.tri_count == 0, "%s: failure leaves arrays", spec);
}

/* Four good triangles (a tetrahedron), faces with NaN/Inf, and degenerate faces of every kind. */
static void test_counts(void)
{
    const char *path =
        write_file("mixed.obj", "# tetrahedron: vertices 1-4\n"
                                "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                                "# 5: NaN, 6: +Inf, 7: -Inf, 8: overflows float to Inf, 9: NaN in y\n"
                                "v nan 0 0\nv inf 0 0\nv 0 -inf 0\nv 1e39 1 1\nv 0 nan 1\n"
                                "# 10, 11: collinear with 1 up to float rounding, 12: a sliver\n"
                                "v 0.1 0.2 0.3\nv 0.3 0.6 0.9\nv 0.5 1e-9 0\n"
                                "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
                                "# 5 non-finite faces, one also degenerate (non-finite wins)\n"
                                "f 1 2 5\nf 5 6 7\nf 2 3 6\nf 1 7 3\nf 8 8 9\n"
                                "# 4 zero-area triangles\n"
                                "f 1 2 2\nf 1 10 11\nf 3 3 3\nf 1 2 12\n"
                                "# 2 lines and 1 point: not triangles\n"
                                "l 1 2\nl 3 4\np 1\n");
    char err[512] = "";
    scene s;
    bool ok = scene_load(path, &s, err, sizeof err);
    CHECK(ok, "mixed.obj failed: %s", err);
    if (!ok) return;
    printf("mixed.obj: %d triangles, %d non-finite, %d degenerate\n", s.tri_count, s.dropped_nonfinite,
           s.dropped_degenerate);
    CHECK(s.tri_count == 4, "kept %d triangles, expected 4", s.tri_count);
    CHECK(s.dropped_nonfinite == 5, "dropped %d non-finite, expected 5", s.dropped_nonfinite);
    CHECK(s.dropped_degenerate == 7, "dropped %d degenerate, expected 7 (4 zero-area, 2 lines, 1 point)",
          s.dropped_degenerate);
    CHECK(check_scene_valid(&s, "mixed.obj") == 0, "mixed.obj invalid");
    CHECK(check_closed(&s, 0, "mixed.obj") == 0, "the tetrahedron is not closed and outward");
    /* the bad vertices must not leak into the bounds */
    CHECK(s.bounds_min[0] == 0 && s.bounds_max[0] == 1 && s.bounds_max[1] == 1 && s.bounds_max[2] == 1,
          "bounds (%g %g %g)..(%g %g %g)", s.bounds_min[0], s.bounds_min[1], s.bounds_min[2], s.bounds_max[0],
          s.bounds_max[1], s.bounds_max[2]);
    scene_free(&s);
}

/* Normals given in the file: a zero and a NaN normal fall back to the face normal, a long one is
 * normalised, a good one is kept. */
static void test_normals(void)
{
    const char *path = write_file("normals.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                                                 "vn 0 0 0\nvn nan 0 0\nvn 0 0 5\nvn 0.6 0 0.8\n"
                                                 "f 1//1 2//2 3//3\nf 1//4 2//4 3//4\n");
    char err[512] = "";
    scene s;
    bool ok = scene_load(path, &s, err, sizeof err);
    CHECK(ok && s.tri_count == 2, "normals.obj: %s (%d triangles)", err, s.tri_count);
    if (!ok || s.tri_count != 2) {
        if (ok) scene_free(&s);
        return;
    }
    const float *n = s.normals;
    for (int k = 0; k < 3; k++) /* triangle 0: all three become (0, 0, 1) */
        CHECK(n[3 * k] == 0.0f && n[3 * k + 1] == 0.0f && fabsf(n[3 * k + 2] - 1.0f) < 1e-6f,
              "vertex %d normal (%g %g %g), expected (0 0 1)", k, n[3 * k], n[3 * k + 1], n[3 * k + 2]);
    CHECK(fabsf(n[9] - 0.6f) < 1e-6f && fabsf(n[11] - 0.8f) < 1e-6f, "kept normal (%g %g %g)", n[9], n[10],
          n[11]);
    CHECK(check_scene_valid(&s, "normals.obj") == 0, "normals.obj invalid");
    scene_free(&s);
}

/* A PLY with the same kinds of faces: the counts do not depend on the format. */
static void test_ply(void)
{
    const char *path = write_file("bad.ply", "ply\nformat ascii 1.0\nelement vertex 5\n"
                                             "property float x\nproperty float y\nproperty float z\n"
                                             "element face 4\nproperty list uchar int vertex_indices\n"
                                             "end_header\n"
                                             "0 0 0\n1 0 0\n0 1 0\nnan 0 0\n2 0 0\n"
                                             "3 0 1 2\n3 0 1 3\n3 0 1 4\n4 0 1 2 2\n");
    char err[512] = "";
    scene s;
    bool ok = scene_load(path, &s, err, sizeof err);
    CHECK(ok, "bad.ply: %s", err);
    if (!ok) return;
    printf("bad.ply: %d triangles, %d non-finite, %d degenerate\n", s.tri_count, s.dropped_nonfinite,
           s.dropped_degenerate);
    /* the quad 0 1 2 2 triangulates into one good and one zero-area triangle */
    CHECK(s.tri_count == 2 && s.dropped_nonfinite == 1 && s.dropped_degenerate == 2,
          "bad.ply: %d kept, %d non-finite, %d degenerate; expected 2, 1, 2", s.tri_count,
          s.dropped_nonfinite, s.dropped_degenerate);
    scene_free(&s);
}

static void test_failures(void)
{
    char missing[600];
    snprintf(missing, sizeof missing, "%s/does_not_exist.obj", dir);
    expect_fail(missing, missing, "No such file");
    expect_fail(write_file("empty.obj", ""), "empty.obj", "empty");
    expect_fail(dir, dir, "directory");
    expect_fail(write_file("only_nan.obj", "v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), "only_nan.obj",
                "no triangles");
    expect_fail(write_file("only_degenerate.obj", "v 0 0 0\nv 1 1 1\nv 2 2 2\nf 1 2 3\nl 1 2\n"),
                "only_degenerate.obj", "no triangles");
    expect_fail(write_file("garbage.obj", "this is not\x01 an obj file\n\n\n"), "garbage.obj", NULL);
    expect_fail(write_file("bad_index.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n"), "bad_index.obj", NULL);
    expect_fail(write_file("binary.xyz", "\x7f\x45\x4c\x46\x02\x01\x01\x00\xff\xfe"), "binary.xyz", NULL);
    /* a binary PLY whose header promises more than the file holds */
    expect_fail(write_file("truncated.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 1000\n"
                                            "property float x\nproperty float y\nproperty float z\n"
                                            "element face 1000\nproperty list uchar int vertex_indices\n"
                                            "end_header\n\x01\x02\x03"),
                "truncated.ply", NULL);
    /* a binary PLY cut short, though its header is plausible: assimp reads garbage indices */
    expect_fail(write_file("short.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 10\n"
                                        "property float x\nproperty float y\nproperty float z\n"
                                        "element face 2\nproperty list uchar int vertex_indices\n"
                                        "end_header\n0123456789abcdefghijklmn"),
                "short.ply", NULL);
    /* headers that declare far more than the file holds (assimp would allocate it all) */
    expect_fail(write_file("huge.ply", "ply\nformat ascii 1.0\nelement vertex 1500000000\n"
                                       "property float x\nproperty float y\nproperty float z\n"
                                       "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
                                       "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"),
                "huge.ply", "header declares 1500000001 elements");
    expect_fail(write_file("huge.off", "OFF\n# comment\n1000000000 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"),
                "huge.off", "header declares 1000000000 vertices");
    /* a file name with a newline: the message must still be one line */
    expect_fail(write_file("new\nline.obj", ""), "new line.obj", NULL);
    expect_fail("", "scene", NULL);
}

static void test_specs(void)
{
    /* every bad name or N lists the valid names */
    expect_fail("builtin:nope", "builtin:nope", "default, tesseract, spheres, grass");
    expect_fail("builtin:", "builtin:", "tesseract");
    expect_fail("builtin:default:abc", "builtin:default:abc", "tesseract");
    expect_fail("builtin:default:0", "builtin:default:0", "tesseract");
    expect_fail("builtin:default:-5", "builtin:default:-5", "tesseract");
    expect_fail("builtin:default:1.5", "builtin:default:1.5", "tesseract");
    expect_fail("builtin:default:20000001", "builtin:default:20000001", "tesseract");
    expect_fail("builtin:default:21M", "builtin:default:21M", "tesseract");
    expect_fail("builtin:default:99999999999999999999999", "builtin:default:9999", "tesseract");
    expect_fail("builtin:default:10x", "builtin:default:10x", "tesseract");
    expect_fail("builtin:default:", "builtin:default:", "tesseract");

    char err[512];
    scene s;
    CHECK(!scene_builtin("nope", 0, &s, err, sizeof err) && strstr(err, "grass"), "scene_builtin(nope): %s",
          err);
    CHECK(!scene_builtin("grass", -1, &s, err, sizeof err) && !strchr(err, '\n'), "N = -1 accepted");
    CHECK(!scene_builtin("grass", SCENE_MAX_TRIANGLES + 1L, &s, err, sizeof err), "N = max + 1 accepted");
    CHECK(!scene_builtin(NULL, 0, &s, err, sizeof err), "NULL name accepted");

    /* suffixes */
    bool ok = scene_load("builtin:spheres:20k", &s, err, sizeof err);
    CHECK(ok && s.tri_count > 14000 && s.tri_count < 26000, "builtin:spheres:20k: %s %d", err, s.tri_count);
    if (ok) {
        CHECK(strcmp(s.name, "builtin:spheres:20000") == 0, "name '%s'", s.name);
        scene_free(&s);
    }
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_counts();
    test_normals();
    test_ply();
    test_failures();
    test_specs();

    /* clean up the temp dir (names as written above) */
    static const char *const files[] = {"mixed.obj",    "normals.obj",         "bad.ply",     "empty.obj",
                                        "only_nan.obj", "only_degenerate.obj", "garbage.obj", "bad_index.obj",
                                        "binary.xyz",   "truncated.ply",       "short.ply",   "huge.ply",
                                        "huge.off",     "new\nline.obj"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
    return test_done();
}
