/* png_decode.h — stb_image's PNG decoder for tests that read back what the program wrote. Include
 * it in exactly one file of a test program: it carries the implementation, with stb's own warnings
 * silenced so the project's warning flags stay on for our code. */
#ifndef PNG_DECODE_H
#define PNG_DECODE_H

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#endif
#include <stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#endif
