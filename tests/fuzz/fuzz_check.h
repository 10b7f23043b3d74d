/* fuzz_check.h — what the fuzz targets share: FUZZ_ASSERT aborts with the condition and a message
 * (libFuzzer then saves the input as a crash), and fuzz_one_line() checks the project's rule that
 * an error message is one non-empty line. */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(cond, ...)                                                                               \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: FUZZ_ASSERT(%s) failed: ", __FILE__, __LINE__, #cond);                   \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                             \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

static inline bool fuzz_one_line(const char *msg)
{
    return msg[0] != '\0' && strchr(msg, '\n') == NULL;
}

#endif
