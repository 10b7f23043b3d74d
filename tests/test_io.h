/* test_io.h — file helpers the cpu and gl tests share: copy a small file (to build a model folder
 * with a file missing or broken) and capture what a call writes on stderr. */
#ifndef TEST_IO_H
#define TEST_IO_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Copy src to dst; false when either cannot be opened or a write fails. */
static inline bool test_copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    bool ok = in && out;
    char buf[65536];
    for (size_t n; ok && (n = fread(buf, 1, sizeof buf, in)) > 0;)
        ok = fwrite(buf, 1, n, out) == n;
    if (in) fclose(in);
    if (out) ok = fclose(out) == 0 && ok;
    return ok;
}

/* stderr goes into a temporary file from test_stderr_begin() until test_stderr_end(), which puts
 * what was written into out (NUL-terminated, cut at out_size - 1) and restores stderr. Not
 * nestable. */
static int test_stderr_fd_ = -1;
static FILE *test_stderr_tmp_;

static inline void test_stderr_begin(void)
{
    fflush(stderr);
    test_stderr_fd_ = dup(2);
    test_stderr_tmp_ = tmpfile();
    if (test_stderr_fd_ < 0 || !test_stderr_tmp_) {
        perror("test_stderr_begin");
        exit(1);
    }
    dup2(fileno(test_stderr_tmp_), 2);
}

static inline void test_stderr_end(char *out, size_t out_size)
{
    fflush(stderr);
    dup2(test_stderr_fd_, 2);
    close(test_stderr_fd_);
    rewind(test_stderr_tmp_);
    size_t n = fread(out, 1, out_size - 1, test_stderr_tmp_);
    out[n] = '\0';
    fclose(test_stderr_tmp_);
}

#endif
