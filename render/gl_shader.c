/* gl_shader.c — shader sources (embedded or from a directory), compile and link with the GL info
 * log on failure. */
#include "gl_shader.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "shaders_embedded.h"

/* read the whole file dir/name into a malloc'd NUL-terminated buffer; NULL with a message */
static char *read_file(const char *dir, const char *name, char *err, size_t n);
/* compile one stage; 0 after printing the info log */
static GLuint compile(GLenum stage, const char *label, const char *src, char *err, size_t n);

const char *gl_shader_embedded(const char *name)
{
    for (int i = 0; i < shaders_embedded_count; i++)
        if (strcmp(shaders_embedded[i].name, name) == 0) return shaders_embedded[i].source;
    return NULL;
}

static char *read_file(const char *dir, const char *name, char *err, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, n, "shader: cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)size + 1)) != NULL && fread(buf, 1, (size_t)size, f) == (size_t)size) {
        buf[size] = '\0';
    } else {
        snprintf(err, n, "shader: cannot read '%s'", path);
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static GLuint compile(GLenum stage, const char *label, const char *src, char *err, size_t n)
{
    GLuint s = glCreateShader(stage);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (ok) return s;
    char log[4096] = "";
    glGetShaderInfoLog(s, (GLsizei)sizeof log, NULL, log);
    fprintf(stderr, "shader: %s: compile error:\n%s%s", label, log,
            (log[0] && log[strlen(log) - 1] == '\n') ? "" : "\n");
    snprintf(err, n, "shader: %s failed to compile (GL info log above)", label);
    glDeleteShader(s);
    return 0;
}

unsigned gl_program_load(const char *vs_name, const char *fs_name, const char *dir, char *err,
                         size_t err_size)
{
    return gl_program_load_lib(vs_name, fs_name, NULL, dir, err, err_size);
}

unsigned gl_program_load_lib(const char *vs_name, const char *fs_name, const char *lib_fs, const char *dir,
                             char *err, size_t err_size)
{
    const char *names[3] = {vs_name, fs_name, lib_fs};
    const GLenum stages[3] = {GL_VERTEX_SHADER, GL_FRAGMENT_SHADER, GL_FRAGMENT_SHADER};
    char labels[3][4096];
    GLuint shaders[3] = {0, 0, 0};
    const int count = lib_fs ? 3 : 2;
    bool from_dir = dir && dir[0];
    GLuint prog = 0;

    for (int i = 0; i < count; i++) {
        char *owned = NULL;
        const char *src;
        if (from_dir) {
            snprintf(labels[i], sizeof labels[i], "%s/%s", dir, names[i]);
            src = owned = read_file(dir, names[i], err, err_size);
        } else {
            snprintf(labels[i], sizeof labels[i], "%s", names[i]);
            src = gl_shader_embedded(names[i]);
            if (!src) {
                snprintf(err, err_size, "shader: '%s' is not among the embedded shaders", names[i]);
            }
        }
        if (src) shaders[i] = compile(stages[i], labels[i], src, err, err_size);
        free(owned);
        if (!shaders[i]) goto done;
    }

    prog = glCreateProgram();
    for (int i = 0; i < count; i++)
        glAttachShader(prog, shaders[i]);
    glLinkProgram(prog);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[4096] = "";
        glGetProgramInfoLog(prog, (GLsizei)sizeof log, NULL, log);
        fprintf(stderr, "shader: %s + %s: link error:\n%s%s", labels[0], labels[1], log,
                (log[0] && log[strlen(log) - 1] == '\n') ? "" : "\n");
        snprintf(err, err_size, "shader: %s + %s failed to link (GL info log above)", labels[0], labels[1]);
        glDeleteProgram(prog);
        prog = 0;
    }
done:
    for (int i = 0; i < count; i++)
        if (shaders[i]) glDeleteShader(shaders[i]);
    return prog;
}
