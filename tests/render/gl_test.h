/* gl_test.h — what the gl-suite tests share: a headless GL 4.5 context or exit 77 (skipped), and
 * stderr captured into a string (to check messages such as shader info logs). */
#ifndef GL_TEST_H
#define GL_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gl_context.h"
#include "test.h"

/* A headless context, or skip the test when this machine has none. */
static inline void gl_test_context(gl_context *ctx)
{
    char err[256];
    if (!gl_context_init(ctx, &(gl_context_desc){.headless = true, .debug = true}, err, sizeof err))
        TEST_SKIP("%s", err);
    fprintf(stderr, "GL renderer: %s\n", ctx->renderer);
}

/* Redirect stderr into a temporary file until gl_test_capture_end(), which returns what was
 * written (static buffer, NUL-terminated) and restores stderr. Not nestable. */
static int gl_test_saved_fd_ = -1;
static FILE *gl_test_tmp_;
static char gl_test_captured_[65536];

static inline void gl_test_capture_begin(void)
{
    fflush(stderr);
    gl_test_tmp_ = tmpfile();
    if (!gl_test_tmp_) {
        perror("tmpfile");
        exit(1);
    }
    gl_test_saved_fd_ = dup(fileno(stderr));
    dup2(fileno(gl_test_tmp_), fileno(stderr));
}

static inline const char *gl_test_capture_end(void)
{
    fflush(stderr);
    dup2(gl_test_saved_fd_, fileno(stderr));
    close(gl_test_saved_fd_);
    rewind(gl_test_tmp_);
    size_t n = fread(gl_test_captured_, 1, sizeof gl_test_captured_ - 1, gl_test_tmp_);
    gl_test_captured_[n] = '\0';
    fclose(gl_test_tmp_);
    fputs(gl_test_captured_, stderr); /* still visible in the test log */
    return gl_test_captured_;
}

#endif
