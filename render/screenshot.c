/* screenshot.c — PNG writing; the one translation unit with the stb_image_write implementation. */
#include "screenshot.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wshadow"
#endif
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

bool render_png_write(const char *path, const uint8_t *pixels, int width, int height, int channels, char *err,
                      size_t err_size)
{
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 4)) {
        snprintf(err, err_size, "screenshot '%s': bad image %dx%dx%d", path, width, height, channels);
        return false;
    }
    stbi_flip_vertically_on_write(1); /* GL rows are bottom-up, PNG rows top-down */
    errno = 0;
    if (!stbi_write_png(path, width, height, channels, pixels, width * channels)) {
        snprintf(err, err_size, "screenshot '%s': cannot write: %s", path,
                 errno ? strerror(errno) : "stb_image_write failed");
        return false;
    }
    return true;
}
