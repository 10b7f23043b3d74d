/* gl_shader.h — GLSL programs from the shaders embedded at build time (shaders/, by file name), or
 * from a directory (--shader-dir, or the IZB_SHADER_DIR environment variable) so shaders can be
 * edited without rebuilding and broken ones can be tested. Needs a current GL context.
 */
#ifndef GL_SHADER_H
#define GL_SHADER_H

#include <stddef.h>

/* Compile and link vs_name + fs_name (file names such as "depth.vert"), read from `dir` when it is
 * non-NULL and non-empty, else from the embedded copies. On failure writes a one-line reason
 * naming the file into err and returns 0; compile and link errors also print the file name and
 * the GL info log to stderr first. */
unsigned gl_program_load(const char *vs_name, const char *fs_name, const char *dir, char *err,
                         size_t err_size);

/* gl_program_load with a second fragment shader object linked in: lib_fs ("alpha_test.frag"),
 * whose functions fs declares and calls. lib_fs NULL: gl_program_load. */
unsigned gl_program_load_lib(const char *vs_name, const char *fs_name, const char *lib_fs, const char *dir,
                             char *err, size_t err_size);

/* The embedded source of `name`, or NULL. */
const char *gl_shader_embedded(const char *name);

#endif
