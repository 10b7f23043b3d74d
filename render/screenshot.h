/* screenshot.h — PNG files from bottom-up GL pixel rows (stb_image_write). */
#ifndef SCREENSHOT_H
#define SCREENSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Write width x height pixels of `channels` bytes each (3 RGB or 4 RGBA), rows packed, row 0 at
 * the bottom (as glReadPixels gives them), to `path` top row first. False with a reason naming
 * the file. */
bool render_png_write(const char *path, const uint8_t *pixels, int width, int height, int channels, char *err,
                      size_t err_size);

#endif
