/* test_render_shaders.c — shader programs: the embedded set builds; loading from a directory
 * works with good copies; a missing file, a compile error and a link error each fail render_create
 * (NULL) with a message that names the file — for compile/link errors followed by the GL info log
 * (checked by the undeclared identifier, which only the driver's log can contain). */
#undef NDEBUG
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gl_shader.h"
#include "gl_test.h"
#include "render.h"

static const char *const FILES[] = {"depth.vert",        "depth.frag",        "shade.vert",
                                    "shade.frag",        "fullscreen.vert",   "sky.frag",
                                    "debug.frag",        "shadow_depth.vert", "shadow_depth.frag",
                                    "shadow_mask.frag",  "hud.vert",          "hud.frag",
                                    "points.vert",       "points.frag",       "cells.frag",
                                    "alpha_test.frag"};
enum { FILE_COUNT = sizeof FILES / sizeof FILES[0] };

static char dir[256];

/* write the embedded copies of every shader into dir, with `name` replaced by `text` (or left out
 * when text is NULL and name is given) */
static void write_dir(const char *name, const char *text);
/* render_create from dir: NULL expected; returns the captured stderr and err */
static const char *create_fails(char *err, size_t n);

static void write_dir(const char *name, const char *text)
{
    for (int i = 0; i < FILE_COUNT; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, FILES[i]);
        unlink(path);
        const char *src = gl_shader_embedded(FILES[i]);
        if (name && strcmp(name, FILES[i]) == 0) src = text;
        if (!src) continue;
        FILE *f = fopen(path, "w");
        if (!f || fputs(src, f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
            exit(1);
        }
    }
}

static const char *create_fails(char *err, size_t n)
{
    err[0] = '\0';
    gl_test_capture_begin();
    render *r = render_create(&(render_desc){.width = 32, .height = 32, .shader_dir = dir}, err, n);
    const char *out = gl_test_capture_end();
    CHECK(r == NULL, "render_create succeeded with a broken shader directory");
    render_destroy(r);
    return out;
}

int main(void)
{
    gl_context ctx;
    gl_test_context(&ctx);
    char err[1024];

    /* every embedded file is there and the whole set builds */
    for (int i = 0; i < FILE_COUNT; i++)
        CHECK(gl_shader_embedded(FILES[i]) != NULL, "%s is embedded", FILES[i]);
    CHECK(gl_shader_embedded("nope.frag") == NULL, "unknown names are not found");
    render *r = render_create(&(render_desc){.width = 32, .height = 32}, err, sizeof err);
    CHECK(r != NULL, "embedded shaders: %s", err);
    render_destroy(r);

    snprintf(dir, sizeof dir, "/tmp/izb-shaders-XXXXXX");
    CHECK(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));

    /* good copies in a directory */
    write_dir(NULL, NULL);
    r = render_create(&(render_desc){.width = 32, .height = 32, .shader_dir = dir}, err, sizeof err);
    CHECK(r != NULL, "shaders from %s: %s", dir, err);
    render_destroy(r);

    /* a missing file: one line naming the path */
    {
        write_dir("shade.vert", NULL);
        const char *out = create_fails(err, sizeof err);
        char path[512];
        snprintf(path, sizeof path, "%s/shade.vert", dir);
        CHECK(strstr(err, path) && strstr(err, "cannot open"), "missing file message: '%s'", err);
        CHECK(out[0] == '\0', "nothing on stderr (the caller prints err): '%s'", out);
        CHECK(strchr(err, '\n') == NULL, "one line: '%s'", err);
    }

    /* a compile error: the file name and the GL info log */
    {
        write_dir("depth.frag", "#version 450 core\n"
                                "in float v_depth;\n"
                                "layout(location = 0) out float o_depth;\n"
                                "void main() { o_depth = v_depth_misspelt; }\n");
        const char *out = create_fails(err, sizeof err);
        CHECK(strstr(out, "depth.frag") != NULL, "stderr names depth.frag: '%s'", out);
        CHECK(strstr(out, "compile error") != NULL, "stderr says compile error: '%s'", out);
        CHECK(strstr(out, "v_depth_misspelt") != NULL, "stderr holds the GL info log: '%s'", out);
        CHECK(strstr(err, "depth.frag") != NULL, "err names depth.frag: '%s'", err);
    }

    /* a link error: the fragment shader reads a varying nothing writes */
    {
        write_dir("sky.frag", "#version 450 core\n"
                              "in vec3 v_never_written;\n"
                              "layout(location = 0) out vec4 o_colour;\n"
                              "void main() { o_colour = vec4(v_never_written, 1.0); }\n");
        const char *out = create_fails(err, sizeof err);
        CHECK(strstr(out, "sky.frag") != NULL && strstr(out, "link error") != NULL,
              "link error names sky.frag: '%s'", out);
        CHECK(strstr(out, "v_never_written") != NULL, "stderr holds the GL link log: '%s'", out);
    }

    /* a shadow_mask.frag whose PCSS tap arrays are not core/izb_pcss.h's sizes: refused, one line */
    {
        const char *src = gl_shader_embedded("shadow_mask.frag"), *at = strstr(src, "PCSS_FILTER_TAPS = 64;");
        CHECK(at != NULL, "shadow_mask.frag declares PCSS_FILTER_TAPS = 64");
        if (at) {
            static char text[65536];
            snprintf(text, sizeof text, "%.*sPCSS_FILTER_TAPS = 32;%s", (int)(at - src), src,
                     at + strlen("PCSS_FILTER_TAPS = 64;"));
            write_dir("shadow_mask.frag", text);
            create_fails(err, sizeof err);
            CHECK(strstr(err, "u_pcss_filter must have 64 entries") && !strchr(err, '\n'),
                  "PCSS taps of the wrong count: '%s'", err);
        }
    }

    /* a missing directory (render_create: the app refuses it earlier, at option parsing) */
    {
        char gone[300];
        snprintf(gone, sizeof gone, "%s/missing", dir);
        gl_test_capture_begin();
        r = render_create(&(render_desc){.width = 32, .height = 32, .shader_dir = gone}, err, sizeof err);
        gl_test_capture_end();
        CHECK(r == NULL && strstr(err, gone), "missing directory: '%s'", err);
        render_destroy(r);
    }

    for (int i = 0; i < FILE_COUNT; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, FILES[i]);
        unlink(path);
    }
    rmdir(dir);
    gl_context_shutdown(&ctx);
    return test_done();
}
