/* test_scene_models.c — models as users bring them (issue 22, defect 5): texture names that
 * differ from the files beside the model in case or are Windows paths. Every model is written by
 * the test into a temporary folder. */
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

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    texture_names();
    for (int i = made_count - 1; i >= 0; i--)
        unlink(made[i]);
    rmdir(in_dir("tex"));
    rmdir(dir);
    return test_done();
}
