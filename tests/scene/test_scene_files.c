/* test_scene_files.c — assimp's own test models (Debian assimp-testmodels): every OBJ and PLY either
 * loads into a valid soup or fails with a one-line message naming the file, as this table expects;
 * every file under models/invalid fails that way (one exception, below) and nothing crashes. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "scene.h"
#include "scene_check.h"
#include "test.h"

#define MODELS "/usr/share/assimp/models"

typedef enum { LOADS, FAILS, EITHER } expect;

typedef struct known {
    const char *file;
    expect what;
    int tris;        /* when it loads: exact triangle count, or 0 = any */
    const char *msg; /* when it fails: a phrase the message must hold, or NULL */
} known;

static const known KNOWN[] = {
    {"box.obj", LOADS, 12, NULL},
    {"cube.ply", LOADS, 12, NULL},
    {"cube_binary.ply", LOADS, 12, NULL},
    {"WusonOBJ.obj", LOADS, 0, NULL},
    {"Wuson.ply", LOADS, 0, NULL},
    {"spider.obj", LOADS, 0, NULL},
    {"concave_polygon.obj", LOADS, 0, NULL},
    {"testmixed.obj", LOADS, 0, NULL}, /* faces, lines and points: the faces stay */
    /* points or lines only: assimp rejects meshes without faces, or we find no triangles */
    {"point_cloud.obj", FAILS, 0, "no faces"},
    {"testpoints.obj", FAILS, 0, "no triangles"},
    {"testline.obj", FAILS, 0, "no triangles"},
    {"points.ply", FAILS, 0, "no faces"},
    {"pond.0.ply", FAILS, 0, "no faces"},
    {"issue623.ply", FAILS, 0, "no faces"},
    /* its only face is (0,0,0), (1,2,3), (-1,-2,-3): collinear */
    {"number_formats.obj", FAILS, 0, "1 degenerate"},
    /* assimp 5.2 reads UTF-16 OBJ as an empty scene; a later assimp may read it */
    {"box_UTF16BE.obj", EITHER, 12, NULL},
    {"BoxTextured-glTF/BoxTextured.gltf", LOADS, 12, NULL},
    {"BoxTextured-glTF-Binary/BoxTextured.glb", LOADS, 12, NULL},
    {"MissingBin/BoxTextured.gltf", FAILS, 0, "BoxTextured0.bin"},
    {"BoxWithInfinites.glb", FAILS, 0, "12 faces with NaN/Inf"}, /* every vertex infinite */
    {"OutOfMemory.off", FAILS, 0, "header declares"},            /* 353535235358 vertices */
    {"malformed.obj", FAILS, 0, "index"},
    /* the invalid folder: all fail, except the one whose only fault is a material it names but never
     * defines; assimp substitutes a default material, and materials mean nothing to a shadow
     * renderer, so its geometry (a cube without one face: the face line is empty) loads */
    {"malformed2.obj", LOADS, 10, NULL},
};

/* the entry whose file is the end of path (after a '/') */
static const known *lookup(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof KNOWN / sizeof KNOWN[0]; i++) {
        size_t k = strlen(KNOWN[i].file);
        if (n > k && path[n - k - 1] == '/' && strcmp(path + n - k, KNOWN[i].file) == 0) return &KNOWN[i];
    }
    return NULL;
}

static bool has_ext(const char *name, const char *ext)
{
    size_t n = strlen(name), e = strlen(ext);
    return n > e && strcasecmp(name + n - e, ext) == 0;
}

/* Load one file and check the outcome against `want`; returns 1 when it loaded. */
static int try_file(const char *dir, const char *file, expect want, int want_tris, const char *want_msg)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    memset(err, 0, sizeof err);
    scene s;
    bool ok = scene_load_file(path, &s, err, sizeof err);
    if (ok) {
        printf("%-60s loads: %d triangles, dropped %d non-finite, %d degenerate\n", path, s.tri_count,
               s.dropped_nonfinite, s.dropped_degenerate);
        CHECK(check_scene_valid(&s, file) == 0, "%s loaded an invalid scene", path);
        CHECK(want_tris == 0 || s.tri_count == want_tris, "%s: %d triangles, expected %d", path, s.tri_count,
              want_tris);
        CHECK(strcmp(s.name, file) == 0, "%s: name '%s'", path, s.name);
        scene_free(&s);
        CHECK(s.xyz == NULL && s.tri_count == 0, "scene_free leaves an empty scene");
    } else {
        printf("%-60s fails: %s\n", path, err);
        CHECK(err[0] != '\0', "%s: empty message", path);
        CHECK(strchr(err, '\n') == NULL && strchr(err, '\r') == NULL, "%s: message not one line", path);
        CHECK(strstr(err, path) != NULL, "%s: message does not name the file: %s", path, err);
        CHECK(!want_msg || strstr(err, want_msg), "%s: message lacks '%s'", path, want_msg);
        CHECK(s.xyz == NULL && s.normals == NULL && s.tri_count == 0, "%s: failure leaves arrays behind",
              path);
    }
    CHECK(want == EITHER || ok == (want == LOADS), "%s: %s, expected it to %s", path,
          ok ? "loaded" : "failed", want == LOADS ? "load" : "fail");
    return ok;
}

/* every file in dir (and its subfolders when recurse) whose name ends in one of exts (NULL = every
 * regular file) */
static void run_dir(const char *dir, const char *const *exts, expect default_want, bool recurse, int *seen,
                    int *loaded)
{
    DIR *d = opendir(dir);
    if (!d) TEST_SKIP("%s missing (install assimp-testmodels)", dir);
    struct dirent *de;
    while ((de = readdir(d))) {
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (recurse && de->d_name[0] != '.' && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            run_dir(path, exts, default_want, recurse, seen, loaded);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        bool match = !exts;
        for (int i = 0; exts && exts[i]; i++)
            match |= has_ext(de->d_name, exts[i]);
        if (!match) continue;
        const known *k = lookup(path);
        *loaded += try_file(dir, de->d_name, k ? k->what : default_want, k ? k->tris : 0, k ? k->msg : NULL);
        (*seen)++;
    }
    closedir(d);
}

/* scene_add_ground on a loaded model: two upward triangles on the bottom of its bounds (in the plane
 * of whatever lies there: no gap under a floor of its own, test_render_ground), catching the shadow of every
 * bounds corner along the scene's light, inside the grown bounds; and who gets one by default */
static void check_ground(const char *path)
{
    scene s;
    char err[512] = "";
    if (!scene_load(path, &s, err, sizeof err)) {
        CHECK(false, "%s: %s", path, err);
        return;
    }
    const int n0 = s.tri_count;
    float lo[3], hi[3];
    memcpy(lo, s.bounds_min, sizeof lo), memcpy(hi, s.bounds_max, sizeof hi);
    CHECK(s.ground_tris == 0, "%s: no ground before scene_add_ground", path);
    CHECK(scene_add_ground(&s, err, sizeof err), "%s: scene_add_ground: %s", path, err);
    CHECK(s.tri_count == n0 + 2 && s.ground_tris == 2, "%s: 2 ground triangles (%d -> %d)", path, n0,
          s.tri_count);
    const float *g = s.xyz + 9 * (size_t)n0;
    float gx0 = INFINITY, gx1 = -INFINITY, gz0 = INFINITY, gz1 = -INFINITY;
    bool flat = true, up = true;
    for (int t = 0; t < 2; t++) {
        const float *v = g + 9 * t;
        const float e1[3] = {v[3] - v[0], v[4] - v[1], v[5] - v[2]},
                    e2[3] = {v[6] - v[0], v[7] - v[1], v[8] - v[2]};
        up = up && e1[2] * e2[0] - e1[0] * e2[2] > 0.0f && s.normals[9 * (size_t)(n0 + t) + 1] == 1.0f;
        for (int k = 0; k < 3; k++) {
            flat = flat && v[3 * k + 1] == g[1];
            gx0 = fminf(gx0, v[3 * k]), gx1 = fmaxf(gx1, v[3 * k]);
            gz0 = fminf(gz0, v[3 * k + 2]), gz1 = fmaxf(gz1, v[3 * k + 2]);
        }
    }
    CHECK(flat && up && g[1] == lo[1],
          "%s: a flat, upward ground on the model's bottom (y %g, model from %g)", path, g[1], lo[1]);
    int caught = 0;
    for (int c = 0; c < 8; c++) { /* each bounds corner's shadow along the light lands on the ground */
        const float p[3] = {c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2]};
        const float t = (g[1] - p[1]) / s.light_dir[1];
        const float x = p[0] + t * s.light_dir[0], z = p[2] + t * s.light_dir[2];
        caught += x > gx0 && x < gx1 && z > gz0 && z < gz1;
    }
    CHECK(s.light_dir[1] < 0.0f && caught == 8, "%s: the ground catches %d of 8 corner shadows", path,
          caught);
    CHECK(s.bounds_min[1] == g[1] && s.bounds_min[0] <= gx0 && s.bounds_max[2] >= gz1,
          "%s: bounds hold the ground", path);
    scene_free(&s);
}

/* The ground spans the model's own footprint whatever the light: one from the side or from below
 * casts no shadow on it, yet the model still stands on it. Bounds made lopsided on purpose (x and z
 * extents differ in both ends), so an x bound used for z, or a low end for a high one, shows. */
static void check_ground_footprint(const char *path)
{
    static const float lights[][3] = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.2f, -1.0f, 0.1f}};
    for (int i = 0; i < 3; i++) {
        scene s;
        char err[512] = "";
        if (!scene_load(path, &s, err, sizeof err)) {
            CHECK(false, "%s: %s", path, err);
            return;
        }
        const float lo[3] = {-1.0f, 0.0f, 2.0f}, hi[3] = {3.0f, 1.0f, 7.5f};
        memcpy(s.bounds_min, lo, sizeof lo), memcpy(s.bounds_max, hi, sizeof hi);
        memcpy(s.light_dir, lights[i], sizeof lights[i]);
        const int n0 = s.tri_count;
        CHECK(scene_add_ground(&s, err, sizeof err), "%s: scene_add_ground: %s", path, err);
        float gx0 = INFINITY, gx1 = -INFINITY, gz0 = INFINITY, gz1 = -INFINITY;
        for (int v = 0; v < 6; v++) {
            const float *q = s.xyz + 9 * (size_t)n0 + 3 * v;
            gx0 = fminf(gx0, q[0]), gx1 = fmaxf(gx1, q[0]), gz0 = fminf(gz0, q[2]), gz1 = fmaxf(gz1, q[2]);
        }
        CHECK(gx0 < lo[0] && gx1 > hi[0] && gz0 < lo[2] && gz1 > hi[2],
              "%s, light (%g, %g, %g): ground x %g..%g z %g..%g does not span the footprint x %g..%g z %g..%g", path,
              (double)lights[i][0], (double)lights[i][1], (double)lights[i][2], (double)gx0, (double)gx1, (double)gz0,
              (double)gz1, (double)lo[0], (double)hi[0], (double)lo[2], (double)hi[2]);
        scene_free(&s);
    }
}

int main(void)
{
    /* the ground: on for files, off for built-in scenes (which have their own), as asked otherwise */
    CHECK(scene_ground_wanted(SCENE_GROUND_AUTO, MODELS "/OBJ/box.obj") &&
              !scene_ground_wanted(SCENE_GROUND_AUTO, "builtin:default") &&
              !scene_ground_wanted(SCENE_GROUND_AUTO, "builtin:grass:1M") &&
              scene_ground_wanted(SCENE_GROUND_ON, "builtin:default") &&
              !scene_ground_wanted(SCENE_GROUND_OFF, MODELS "/OBJ/box.obj"),
          "scene_ground_wanted");
    check_ground(MODELS "/OBJ/box.obj");
    check_ground(MODELS "/OBJ/spider.obj");
    check_ground(MODELS "/OBJ/WusonOBJ.obj");
    check_ground_footprint(MODELS "/OBJ/box.obj");

    static const char *const obj[] = {".obj", NULL}, *const ply[] = {".ply", NULL};
    int seen = 0, loaded = 0;
    /* files not in the table are plain models: expected to load */
    run_dir(MODELS "/OBJ", obj, LOADS, false, &seen, &loaded);
    run_dir(MODELS "/PLY", ply, LOADS, false, &seen, &loaded);
    CHECK(seen >= 20 && loaded >= 12, "only %d model files seen, %d loaded", seen, loaded);

    int bad_seen = 0, bad_loaded = 0;
    run_dir(MODELS "/invalid", NULL, FAILS, false, &bad_seen, &bad_loaded);
    CHECK(bad_seen >= 10, "only %d invalid files seen", bad_seen);
    CHECK(bad_loaded <= 1, "%d invalid files loaded", bad_loaded);

    /* glTF 2: assimp's regression files include broken ones (wrong JSON types, indices out of range,
     * missing buffers, infinite coordinates); each must load validly or fail cleanly */
    static const char *const gltf[] = {".gltf", ".glb", NULL};
    int gl_seen = 0, gl_loaded = 0;
    run_dir(MODELS "/glTF2", gltf, EITHER, true, &gl_seen, &gl_loaded);
    CHECK(gl_seen >= 20 && gl_loaded >= 10, "glTF: %d seen, %d loaded", gl_seen, gl_loaded);

    /* a few other formats assimp reads, through scene_load (the path a user types) */
    static const char *const other[] = {MODELS "/STL/Spider_ascii.stl", MODELS "/OFF/Cube.off"};
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (stat(other[i], &st) != 0) continue;
        char err[512] = "";
        scene s;
        bool ok = scene_load(other[i], &s, err, sizeof err);
        printf("%-60s %s: %d triangles %s\n", other[i], ok ? "loads" : "fails", s.tri_count, err);
        CHECK(ok && check_scene_valid(&s, other[i]) == 0, "%s: %s", other[i], err);
        scene_free(&s);
    }
    return test_done();
}
