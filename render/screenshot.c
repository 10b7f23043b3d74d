/* screenshot.c — PNG writing; the one translation unit with the stb_image_write implementation. */
#include "screenshot.h"

#include <stdio.h>
#include <stdlib.h>

#include "file_out.h"

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
    /* encoded in memory, then written through file_out: stbi_write_png ignores fwrite's and
     * fclose's results, so a full disk would pass for a written file */
    int png_size = 0;
    unsigned char *png = stbi_write_png_to_mem(pixels, width * channels, width, height, channels, &png_size);
    if (!png) {
        snprintf(err, err_size, "screenshot '%s': cannot encode the PNG (out of memory)", path);
        return false;
    }
    char why[1400];
    bool ok = file_out_write_all(path, png, (size_t)png_size, why, sizeof why);
    free(png);
    if (!ok) snprintf(err, err_size, "screenshot %s", why);
    return ok;
}
