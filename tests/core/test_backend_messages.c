/* test_backend_messages.c — what izb_create says on stderr (issue 12: no noise without a GPU):
 * `auto` says at most one short line, and only where CUDA was built but no device answers
 * ("izb: no CUDA device; CPU backend"); an explicit `cuda` that cannot start explains why; `cpu`
 * says nothing. Holds with and without a CUDA build and with and without a device. */
#undef NDEBUG
#include <stdbool.h>
#include <string.h>

#include "izb.h"
#include "izb_config.h"
#include "test.h"
#include "test_io.h"

/* izb_create(kind) with stderr captured into out; returns the backend (may be NULL) */
static izb_backend *create_captured(izb_backend_kind kind, char *out, size_t out_size)
{
    test_stderr_begin();
    izb_backend *b = izb_create(&(izb_desc){.backend = kind});
    test_stderr_end(out, out_size);
    return b;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (const char *c = s; *c; c++)
        n += *c == '\n';
    return n;
}

int main(void)
{
    char msg[4096];

    izb_backend *b = create_captured(IZB_BACKEND_CPU, msg, sizeof msg);
    CHECK(b && strcmp(izb_name(b), "cpu") == 0, "cpu backend");
    CHECK(msg[0] == '\0', "cpu says nothing: '%s'", msg);
    izb_destroy(b);

    b = create_captured(IZB_BACKEND_AUTO, msg, sizeof msg);
    CHECK(b != NULL, "auto always gives a backend");
    bool on_cpu = b && strcmp(izb_name(b), "cpu") == 0;
    if (!on_cpu || !IZB_HAVE_CUDA)
        CHECK(msg[0] == '\0', "auto on %s (CUDA built: %d) says nothing: '%s'", b ? izb_name(b) : "-",
              IZB_HAVE_CUDA, msg);
    else
        CHECK(strcmp(msg, "izb: no CUDA device; CPU backend\n") == 0, "auto without a device: one short line, got '%s'",
              msg);
    CHECK(count_lines(msg) <= 1, "auto: at most one line: '%s'", msg);
    izb_destroy(b);

    b = create_captured(IZB_BACKEND_CUDA, msg, sizeof msg);
    if (!b) {
        /* asked for by name: the reason is given (no device and why, or no CUDA in this build) */
        CHECK(count_lines(msg) >= 1 && (strstr(msg, "no CUDA device") || strstr(msg, "no CUDA backend")),
              "explicit cuda explains: '%s'", msg);
    } else {
        CHECK(strcmp(izb_name(b), "cuda") == 0 && msg[0] == '\0', "cuda backend starts silently: '%s'", msg);
        izb_destroy(b);
    }
    return test_done();
}
