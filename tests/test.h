/* test.h — the tiny harness every test program uses: CHECK() counts and reports failures without
 * stopping, test_done() prints "N passed, M failed" and gives the exit code; TEST_SKIP exits 77 so
 * Meson reports the test skipped, never passed. */
#ifndef TEST_H
#define TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int test_passed_, test_failed_;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            test_passed_++;                                                                        \
        } else {                                                                                   \
            test_failed_++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define TEST_SKIP(...)                                                                             \
    do {                                                                                           \
        fprintf(stderr, "SKIP: ");                                                                 \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        exit(77);                                                                                  \
    } while (0)

/* calloc that ends the test program with a message when memory runs out (n = 0 allowed) */
static inline void *test_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/* how many of the n bytes of a and b differ; *first: the first index that does, or -1 (the masks'
 * comparison of the random-scene tests) */
static inline int mismatching(const uint8_t *a, const uint8_t *b, int n, int *first)
{
    int bad = 0;
    *first = -1;
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) {
            if (*first < 0) *first = i;
            bad++;
        }
    return bad;
}

static inline int test_done(void)
{
    printf("%d passed, %d failed\n", test_passed_, test_failed_);
    return test_failed_ == 0 && test_passed_ > 0 ? 0 : 1;
}

#endif
