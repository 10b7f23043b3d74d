/* test_scene_models.c — models as users bring them (issue 22, defects 5 and 6): texture names that
 * differ from the files beside the model in case or are Windows paths; standing a model up
 * (scene_set_up: a rotation, never a mirror); far-off and huge models (re-centred before their
 * precision is lost, framed whatever their extent). Every model is written by the test into a
 * temporary folder, except Wuson (assimp's test models), moved far off. */
#undef NDEBUG
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scene.h"
#include "scene_check.h"
#include "test.h"
#include "test_io.h"
#include "view.h"

#define WUSON "/usr/share/assimp/models/OBJ/WusonOBJ.obj"

static char dir[] = "/tmp/izb_models_XXXXXX";
static char made[32][600]; /* what the test wrote, removed at the end */
static int made_count;

static const char *in_dir(const char *name)
{
    static char path[4][600];
    static int slot;
    char *p = path[slot++ % 4];
    snprintf(p, 600, "%s/%s", dir, name);
    return p;
}

static const char *write_file(const char *name, const void *data, size_t size)
{
    const char *p = in_dir(name);
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror(p);
        exit(1);
    }
    if (made_count < 32) snprintf(made[made_count++], 600, "%s", p);
    return p;
}

static const char *write_text(const char *name, const char *text)
{
    return write_file(name, text, strlen(text));
}

/* a 2x2 binary PPM of one colour (stb_image reads it whatever the file's extension says) */
static void write_image(const char *name, unsigned char r, unsigned char g, unsigned char b)
{
    unsigned char data[64];
    int n = snprintf((char *)data, sizeof data, "P6\n2 2\n255\n");
    for (int i = 0; i < 4; i++)
        data[n++] = r, data[n++] = g, data[n++] = b;
    write_file(name, data, (size_t)n);
}

/* scene_load with stderr captured into warn */
static bool load_captured(const char *path, scene *s, char *warn, size_t warn_size)
{
    char err[512];
    test_stderr_begin();
    bool ok = scene_load(path, s, err, sizeof err);
    test_stderr_end(warn, warn_size);
    if (!ok) fprintf(stderr, "%s: %s\n", path, err);
    fprintf(stderr, "%s", warn);
    return ok;
}

/* the texel colour of the material triangle t is drawn with (-1: none) */
static int texture_red(const scene *s, int t)
{
    for (int i = 0; i < s->range_count; i++) {
        const scene_range *r = &s->ranges[i];
        if (t < r->first || t >= r->first + r->count) continue;
        int tex = s->materials[r->material].texture;
        return tex >= 0 ? s->textures[tex].rgba[0] : -1;
    }
    return -1;
}

/* Defect 5: IMAGE1.JPG asked, IMAGE1.jpg on disk; a Windows path with a drive letter whose file
 * lies beside the model (in another case, too); a subfolder named in another case than its file. */
static void texture_names(void)
{
    write_image("IMAGE1.jpg", 10, 0, 0);
    write_image("drkwood2.jpg", 20, 0, 0);
    write_image("Grass.PNG", 30, 0, 0);
    mkdir(in_dir("tex"), 0755);
    write_image("tex/leaf.png", 40, 0, 0);
    write_text("names.mtl", "newmtl case\nKd 1 1 1\nmap_Kd IMAGE1.JPG\n"
                            "newmtl windows\nKd 1 1 1\nmap_Kd D:\\models\\wood\\drkwood2.jpg\n"
                            "newmtl windows_case\nKd 1 1 1\nmap_Kd C:\\Art\\grass.png\n"
                            "newmtl sub_case\nKd 1 1 1\nmap_Kd .\\tex\\LEAF.PNG\n");
    const char *obj = write_text("names.obj", "mtllib names.mtl\n"
                                              "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\nvt 1 0\nvt 0 1\n"
                                              "usemtl case\nf 1/1 2/2 3/3\n"
                                              "usemtl windows\nf 1/1 2/2 4/3\n"
                                              "usemtl windows_case\nf 1/1 3/2 4/3\n"
                                              "usemtl sub_case\nf 2/1 3/2 4/3\n");
    scene s;
    char warn[4096];
    bool ok = load_captured(obj, &s, warn, sizeof warn);
    CHECK(ok && s.tri_count == 4, "names.obj loads its 4 triangles");
    CHECK(warn[0] == '\0', "every texture found, no warning: %s", warn);
    if (ok) {
        static const int want[4] = {10, 20, 30, 40};
        static const char *const what[4] = {"IMAGE1.JPG for IMAGE1.jpg", "D:\\models\\wood\\drkwood2.jpg",
                                            "C:\\Art\\grass.png for Grass.PNG",
                                            ".\\tex\\LEAF.PNG for tex/leaf.png"};
        for (int t = 0; t < 4; t++) {
            int red = texture_red(&s, t);
            CHECK(red == want[t], "%s: texel red %d, want %d (-1: drawn untextured)", what[t], red, want[t]);
        }
        scene_free(&s);
    }
    /* a name that matches nothing in any case still warns once and names what was tried */
    write_text("missing.mtl", "newmtl m\nKd 1 1 1\nmap_Kd D:\\nowhere\\NOPE.jpg\n");
    obj = write_text("missing.obj", "mtllib missing.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\n"
                                    "usemtl m\nf 1/1 2/2 3/3\n");
    ok = load_captured(obj, &s, warn, sizeof warn);
    CHECK(ok && s.tri_count == 1 && texture_red(&s, 0) == -1, "missing texture: loads untextured");
    CHECK(strstr(warn, "NOPE.jpg") && strstr(warn, "plain colour") &&
              strchr(warn, '\n') == warn + strlen(warn) - 1,
          "missing texture: one warning line naming it: %s", warn);
    if (ok) scene_free(&s);
}

/* ---- --up: scene_set_up ---------------------------------------------------------------------- */

/* A closed tetrahedron with a different length along each axis (x 3, y 2, z 1), counter-clockwise
 * from outside: no turn maps it onto itself, and a mirror would turn it inside out. */
static const char TETRA[] = "v 0 0 0\nv 3 0 0\nv 0 2 0\nv 0 0 1\n"
                            "vn 0 0 -1\nvn 0 -1 0\nvn -1 0 0\nvn 2 3 6\n" /* flat: the faces' own */
                            "f 1//1 3//1 2//1\nf 1//2 2//2 4//2\nf 1//3 4//3 3//3\nf 2//4 3//4 4//4\n";

/* signed volume of the closed soup (positive: outward winding) */
static double volume(const scene *s, int n)
{
    double v = 0.0;
    for (int t = 0; t < n; t++) {
        const float *a = s->xyz + 9 * t, *b = a + 3, *c = a + 6;
        v += (a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) -
              a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
              a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0])) /
             6.0;
    }
    return v;
}

static void up_axis(void)
{
    const char *obj = write_text("tetra.obj", TETRA);
    /* bounds after the turn: the file's box [0,3] x [0,2] x [0,1] with its `up` axis as +y */
    static const float want_lo[SCENE_UP_COUNT][3] = {{0, 0, 0},   {0, 0, -2}, {-2, 0, 0},
                                                     {0, -2, -1}, {0, -1, 0}, {0, -3, 0}};
    static const float want_hi[SCENE_UP_COUNT][3] = {{3, 2, 1}, {3, 1, 0}, {0, 3, 1},
                                                     {3, 0, 0}, {3, 0, 2}, {2, 0, 1}};
    /* where the file's apex (0, 0, 1) and its x tip (3, 0, 0) go */
    static const float want_apex[SCENE_UP_COUNT][3] = {{0, 0, 1},  {0, 1, 0},  {0, 0, 1},
                                                       {0, 0, -1}, {0, -1, 0}, {0, 0, 1}};
    static const float want_tip[SCENE_UP_COUNT][3] = {{3, 0, 0}, {3, 0, 0}, {0, 3, 0},
                                                      {3, 0, 0}, {3, 0, 0}, {0, -3, 0}};
    char err[512];
    scene s0;
    if (!scene_load(obj, &s0, err, sizeof err)) {
        CHECK(false, "tetra.obj: %s", err);
        return;
    }
    CHECK(s0.up == SCENE_UP_Y && s0.tri_count == 4, "tetra.obj: loaded y-up, 4 triangles");
    const double v0 = volume(&s0, 4);
    for (int up = 0; up < SCENE_UP_COUNT; up++) {
        scene s;
        if (!scene_load(obj, &s, err, sizeof err)) continue;
        const char *name = scene_up_names[up];
        CHECK(scene_set_up(&s, (scene_up)up, err, sizeof err), "--up %s: %s", name, err);
        CHECK(s.up == (scene_up)up && s.tri_count == 4, "--up %s: 4 triangles, up recorded", name);
        for (int k = 0; k < 3; k++)
            CHECK(s.bounds_min[k] == want_lo[up][k] && s.bounds_max[k] == want_hi[up][k],
                  "--up %s: axis %d bounds [%g, %g], want [%g, %g]", name, k, s.bounds_min[k],
                  s.bounds_max[k], want_lo[up][k], want_hi[up][k]);
        bool apex = false, tip = false;
        for (int i = 0; i < 12; i++) {
            const float *p = s.xyz + 3 * i;
            apex |= p[0] == want_apex[up][0] && p[1] == want_apex[up][1] && p[2] == want_apex[up][2];
            tip |= p[0] == want_tip[up][0] && p[1] == want_tip[up][1] && p[2] == want_tip[up][2];
        }
        CHECK(apex && tip, "--up %s: the apex and the x tip where the turn puts them", name);
        /* a rotation: the same volume, still closed and outward (a mirror flips the sign) */
        CHECK(fabs(volume(&s, 4) - v0) < 1e-6 && v0 > 0.0, "--up %s: volume %g, want %g", name, volume(&s, 4),
              v0);
        CHECK(check_closed(&s, 0, name) == 0, "--up %s: closed and outward", name);
        CHECK(check_scene_valid(&s, name) == 0, "--up %s: a valid scene (bounds, view)", name);
        /* with a ground: laid again under the turned model */
        CHECK(scene_add_ground(&s, err, sizeof err), "--up %s: ground", name);
        const scene_up next = (scene_up)((up + 1) % SCENE_UP_COUNT);
        CHECK(scene_set_up(&s, next, err, sizeof err), "--up %s -> %s: %s", name, scene_up_names[next], err);
        float top = -INFINITY, bottom = INFINITY;
        for (int i = 0; i < 12; i++) {
            top = fmaxf(top, s.xyz[3 * i + 1]);
            bottom = fminf(bottom, s.xyz[3 * i + 1]);
        }
        const float *g = s.xyz + 9 * 4;
        /* at the model's lowest point (scene_add_ground: coplanar with a floor there, never below it) */
        CHECK(s.tri_count == 6 && s.ground_tris == 2 && g[1] == bottom && g[4] == g[1] && g[7] == g[1] &&
                  s.normals[9 * 4 + 1] == 1.0f && s.bounds_min[1] == g[1],
              "--up %s -> %s: the ground lies under the model again (%d triangles)", name,
              scene_up_names[next], s.tri_count);
        CHECK(top - bottom == want_hi[next][1] - want_lo[next][1], "--up %s -> %s: the model's height %g",
              name, scene_up_names[next], top - bottom);
        /* and back: the file as loaded, to the bit */
        CHECK(scene_set_up(&s, SCENE_UP_Y, err, sizeof err), "back to y: %s", err);
        CHECK(memcmp(s.xyz, s0.xyz, 36 * sizeof(float)) == 0 &&
                  memcmp(s.normals, s0.normals, 36 * sizeof(float)) == 0,
              "--up %s, %s, then y: the loaded triangles and normals exactly", name, scene_up_names[next]);
        scene_free(&s);
    }
    scene_free(&s0);
    /* built-in scenes stand y-up: another axis is refused, y changes nothing */
    scene b;
    if (scene_load("builtin:default", &b, err, sizeof err)) {
        const int n = b.tri_count;
        float first = b.xyz[0], cam = b.cam_pos[1];
        CHECK(scene_set_up(&b, SCENE_UP_Y, err, sizeof err) && b.cam_pos[1] == cam,
              "builtin: --up y is a no-op");
        CHECK(!scene_set_up(&b, SCENE_UP_Z, err, sizeof err) && strstr(err, "builtin:default") &&
                  !strchr(err, '\n'),
              "builtin: --up z refused in one line naming it: %s", err);
        CHECK(b.tri_count == n && b.xyz[0] == first && b.up == SCENE_UP_Y,
              "builtin: unchanged after the refusal");
        scene_free(&b);
    }
}

/* ---- far-off and huge models ------------------------------------------------------------------ */

/* Wuson with every vertex moved by (off, 0, off), written as the text a GIS export would hold */
static const char *moved_wuson(const char *name, double off)
{
    FILE *in = fopen(WUSON, "rb");
    const char *path = in_dir(name);
    FILE *out = fopen(path, "wb");
    if (!in || !out) {
        perror(WUSON);
        exit(1);
    }
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        double x, y, z;
        if (line[0] == 'v' && line[1] == ' ' && sscanf(line + 2, "%lf %lf %lf", &x, &y, &z) == 3)
            fprintf(out, "v %.6f %.6f %.6f\n", x + off, y, z + off);
        else
            fputs(line, out);
    }
    fclose(in);
    if (fclose(out) != 0) exit(1);
    if (made_count < 32) snprintf(made[made_count++], 600, "%s", path);
    return path;
}

static void far_off(void)
{
    struct stat st;
    if (stat(WUSON, &st) != 0) {
        printf("far_off: %s missing (assimp-testmodels), skipped\n", WUSON);
        return;
    }
    scene home, far;
    char warn[4096];
    CHECK(load_captured(WUSON, &home, warn, sizeof warn) && warn[0] == '\0', "Wuson at the origin, quietly");
    const char *obj = moved_wuson("wuson_far.obj", 5e6);
    bool ok = load_captured(obj, &far, warn, sizeof warn);
    CHECK(ok, "Wuson 5e6 off loads");
    if (!ok) return;
    printf("Wuson: %d triangles at the origin, %d (%d degenerate) at 5e6\n", home.tri_count, far.tri_count,
           far.dropped_degenerate);
    CHECK(far.tri_count == home.tri_count && far.dropped_degenerate == 0,
          "Wuson 5e6 off keeps all %d triangles: %d, %d degenerate", home.tri_count, far.tri_count,
          far.dropped_degenerate);
    CHECK(strstr(warn, "far from the origin: moved by (-5000000") &&
              strchr(warn, '\n') == warn + strlen(warn) - 1,
          "one line says it was moved, and by how much: %s", warn);
    /* the same shape: read in double and moved, the sizes match the origin's to float rounding */
    for (int k = 0; k < 3 && far.tri_count == home.tri_count; k++) {
        double a = (double)home.bounds_max[k] - home.bounds_min[k],
               b = (double)far.bounds_max[k] - far.bounds_min[k];
        CHECK(fabs(a - b) < 1e-5, "axis %d: size %.7f at the origin, %.7f moved back", k, a, b);
    }
    CHECK(check_scene_valid(&far, "wuson_far") == 0, "Wuson 5e6 off: a valid scene");
    /* every triangle is the origin's, moved by the centre */
    double move[3];
    for (int k = 0; k < 3; k++)
        move[k] = (double)home.xyz[k] - far.xyz[k];
    double worst = 0.0;
    for (size_t i = 0; far.tri_count == home.tri_count && i < 9 * (size_t)home.tri_count; i++)
        worst = fmax(worst, fabs((double)home.xyz[i] - far.xyz[i] - move[i % 3]));
    CHECK(worst < 1e-5, "Wuson 5e6 off: every vertex the origin's, moved (worst %g)", worst);
    scene_free(&far);

    /* a PLY: assimp reads it in float; what rounding collapses is said in one line */
    const char *ply = in_dir("wuson_far.ply");
    FILE *f = fopen(ply, "wb");
    CHECK(f != NULL, "write %s", ply);
    if (!f) return;
    snprintf(made[made_count++], 600, "%s", ply);
    fprintf(f,
            "ply\nformat ascii 1.0\nelement vertex %d\nproperty float x\nproperty float y\nproperty float z\n"
            "element face %d\nproperty list uchar int vertex_indices\nend_header\n",
            3 * home.tri_count, home.tri_count);
    for (int i = 0; i < 3 * home.tri_count; i++)
        fprintf(f, "%.6f %.6f %.6f\n", home.xyz[3 * i] + 5e6, home.xyz[3 * i + 1], home.xyz[3 * i + 2] + 5e6);
    for (int t = 0; t < home.tri_count; t++)
        fprintf(f, "3 %d %d %d\n", 3 * t, 3 * t + 1, 3 * t + 2);
    fclose(f);
    ok = load_captured(ply, &far, warn, sizeof warn);
    CHECK(ok, "Wuson PLY 5e6 off loads");
    if (ok) {
        char want[256];
        snprintf(want, sizeof want,
                 "%d triangles degenerate after conversion to float (coordinates up to 5e+06)",
                 far.dropped_degenerate);
        CHECK(far.dropped_degenerate > 0 && strstr(warn, want), "PLY: the precision loss said: '%s' in: %s",
              want, warn);
        CHECK(far.tri_count + far.dropped_degenerate == home.tri_count, "PLY: %d kept + %d dropped = %d",
              far.tri_count, far.dropped_degenerate, home.tri_count);
        CHECK(far.bounds_max[0] < 10.0f && far.bounds_min[0] > -10.0f,
              "PLY: moved to the origin too (x %g .. %g)", far.bounds_min[0], far.bounds_max[0]);
        scene_free(&far);
    }
    scene_free(&home);
}

/* The view of a model `size` units across: the scene's camera, clip planes from the bounds, and
 * every corner of the bounds in front of the camera, between near and far, finite, the centre on
 * screen. */
static void huge(double size)
{
    char name[64], text[1024], label[64];
    snprintf(name, sizeof name, "huge_%g.obj", size);
    snprintf(label, sizeof label, "%g units", size);
    const double h = size / 2;
    /* a slab and a block on it (closed), size across */
    snprintf(text, sizeof text,
             "v %.9g 0 %.9g\nv %.9g 0 %.9g\nv %.9g 0 %.9g\nv %.9g 0 %.9g\n"
             "v %.9g %.9g %.9g\nv %.9g %.9g %.9g\nv %.9g %.9g %.9g\n"
             "f 1 3 2\nf 1 4 3\nf 5 6 7\n",
             -h, -h, h, -h, h, h, -h, h, -h / 5, h / 5, 0.0, h / 5, h / 5, 0.0, 0.0, h / 5, h / 5);
    const char *obj = write_text(name, text);
    scene s;
    char warn[4096];
    bool ok = load_captured(obj, &s, warn, sizeof warn);
    CHECK(ok && s.tri_count == 3, "%s: loads", label);
    if (!ok) return;
    CHECK(check_scene_valid(&s, label) == 0, "%s: a valid scene", label);
    const double side = (double)s.bounds_max[0] - s.bounds_min[0];
    if (size > 0x1p60 || size < 0x1p-20)
        CHECK(strstr(warn, "scaled by 2^") && fmax(fabs(s.bounds_min[0]), s.bounds_max[0]) <= 0x1p60 &&
                  side >= 0x1p-20,
              "%s: brought into float's range by a power of two, and said so (%g across now): %s", label,
              side, warn);
    else
        CHECK(side == (float)size, "%s: kept as it is (%g across)", label, side);
    camera c = {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    camera_fit_clip(&c, s.bounds_min, s.bounds_max);
    float view[16], proj[16];
    camera_view(&c, view);
    camera_proj(&c, 16.0f / 9.0f, proj);
    CHECK(isfinite(c.near) && isfinite(c.far) && c.near > 0.0f && c.far > c.near, "%s: near %g far %g", label,
          c.near, c.far);
    int bad = 0;
    for (int corner = 0; corner < 9; corner++) { /* 8 corners, then the centre */
        double p[3], e[4], q[4];
        for (int k = 0; k < 3; k++)
            p[k] = corner == 8 ? 0.5 * ((double)s.bounds_min[k] + s.bounds_max[k])
                               : (corner >> k & 1 ? s.bounds_max[k] : s.bounds_min[k]);
        for (int r = 0; r < 4; r++)
            e[r] = view[r] * p[0] + view[4 + r] * p[1] + view[8 + r] * p[2] + view[12 + r];
        for (int r = 0; r < 4; r++)
            q[r] = proj[r] * e[0] + proj[4 + r] * e[1] + proj[8 + r] * e[2] + proj[12 + r] * e[3];
        bool finite = isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]) && isfinite(q[3]);
        bool between = finite && q[3] > 0.0 && -e[2] >= c.near && -e[2] <= c.far;
        bool centred = corner < 8 || (fabs(q[0] / q[3]) < 0.25 && fabs(q[1] / q[3]) < 0.25);
        if (!between || !centred) {
            bad++;
            fprintf(stderr, "%s: corner %d: depth %g (near %g, far %g), ndc %g %g\n", label, corner, -e[2],
                    c.near, c.far, q[0] / q[3], q[1] / q[3]);
        }
    }
    CHECK(bad == 0, "%s: the bounds lie between near and far, the centre mid-screen (%d wrong)", label, bad);
    /* and big enough to see: the block's top corner (size/10 above the slab) well off the centre */
    double top[3] = {0.0, s.bounds_max[1], 0.0}, e[4], q[4], cy;
    for (int r = 0; r < 4; r++)
        e[r] = view[r] * top[0] + view[4 + r] * top[1] + view[8 + r] * top[2] + view[12 + r];
    for (int r = 0; r < 4; r++)
        q[r] = proj[r] * e[0] + proj[4 + r] * e[1] + proj[8 + r] * e[2] + proj[12 + r] * e[3];
    for (int r = 0; r < 4; r++) /* the centre's screen height */
        e[r] = view[r] * 0.5 * ((double)s.bounds_min[0] + s.bounds_max[0]) +
               view[4 + r] * 0.5 * ((double)s.bounds_min[1] + s.bounds_max[1]) +
               view[8 + r] * 0.5 * ((double)s.bounds_min[2] + s.bounds_max[2]) + view[12 + r];
    cy = (proj[1] * e[0] + proj[5] * e[1] + proj[9] * e[2] + proj[13] * e[3]) /
         (proj[3] * e[0] + proj[7] * e[1] + proj[11] * e[2] + proj[15] * e[3]);
    CHECK(q[1] / q[3] - cy > 0.05, "%s: the block stands %g of the screen's half-height above the centre",
          label, q[1] / q[3] - cy);
    scene_free(&s);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    texture_names();
    up_axis();
    far_off();
    static const double sizes[] = {1.0, 1e7, 1e10, 1e15, 1e19, 1e30, 3e38, 1e-9};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        huge(sizes[i]);
    for (int i = made_count - 1; i >= 0; i--)
        unlink(made[i]);
    rmdir(in_dir("tex"));
    rmdir(dir);
    return test_done();
}
