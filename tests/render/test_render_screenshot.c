/* test_render_screenshot.c — a screenshot of a headless frame is a valid PNG: the signature, an
 * IHDR chunk with the frame's size, 8-bit RGB; decoded (stb_image), its top row is the colour
 * target's last row (GL rows are bottom-up), pixel for pixel. A file in a missing directory fails
 * with a message naming it. */
#undef NDEBUG
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "png_decode.h"

#include "gl_test.h"
#include "render.h"

enum { W = 203, H = 97 }; /* odd sizes: rows are not 4-byte multiples */

static uint8_t rgba[W * H * 4];

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int main(void)
{
    gl_context ctx;
    gl_test_context(&ctx);
    char err[512];
    render *r = render_create(&(render_desc){.width = W, .height = H}, err, sizeof err);
    CHECK(r != NULL, "render_create: %s", err);
    if (!r) return test_done();

    /* a ground quad below the camera and a box-ish quad in front: sky at the top, geometry below */
    const float tris[] = {
        -50, -1, -50, 50, -1, 50, 50, -1, -50, -50, -1, -50, -50, -1, 50, 50, -1, 50, /* ground, facing up */
        -1,  -1, -4,  1,  -1, -4, 1,  1,  -4,  -1,  -1, -4,  1,   1,  -4, -1, 1,  -4, /* wall facing +z */
    };
    scene s = {.xyz = (float *)tris, .tri_count = 4, .bounds_min = {-50, -1, -50}, .bounds_max = {50, 1, 50}};
    CHECK(render_set_scene(r, &s, err, sizeof err), "render_set_scene: %s", err);
    camera cam = {.pos = {0, 0.5f, 0}, .near = 0.05f, .far = 200.0f};
    light l = {.type = LIGHT_DIRECTIONAL, .dir = {0.3f, -1.0f, -0.5f}};
    render_frame(r, &(render_frame_desc){.cam = &cam, .light = &l}); /* no IZB: all lit */
    render_read_colour(r, rgba);

    char path[] = "/tmp/izb-shot-XXXXXX.png";
    int fd = mkstemps(path, 4);
    CHECK(fd >= 0, "mkstemps");
    close(fd);
    CHECK(render_screenshot(r, path, err, sizeof err), "render_screenshot: %s", err);

    FILE *f = fopen(path, "rb");
    uint8_t head[33] = {0};
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f) fclose(f);
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    CHECK(got == sizeof head, "read %zu header bytes", got);
    CHECK(memcmp(head, sig, 8) == 0, "PNG signature");
    CHECK(be32(head + 8) == 13 && memcmp(head + 12, "IHDR", 4) == 0, "IHDR chunk first");
    CHECK(be32(head + 16) == W && be32(head + 20) == H, "IHDR size %ux%u, want %dx%d", be32(head + 16),
          be32(head + 20), W, H);
    CHECK(head[24] == 8 && head[25] == 2, "8-bit RGB (bit depth %d, colour type %d)", head[24], head[25]);

    int w = 0, h = 0, n = 0;
    uint8_t *img = stbi_load(path, &w, &h, &n, 3);
    CHECK(img && w == W && h == H, "decodes to %dx%d", w, h);
    if (img && w == W && h == H) {
        long diff = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < 3; c++)
                    diff += img[3 * (y * W + x) + c] != rgba[4 * ((H - 1 - y) * W + x) + c];
        CHECK(diff == 0, "PNG equals the colour target flipped (%ld bytes differ)", diff);
        /* top-down: sky (blue) in the top row, ground (grey) in the bottom row */
        const uint8_t *top = img + 3 * (W / 2), *bottom = img + 3 * ((H - 1) * W + W / 2);
        CHECK(top[2] > top[0] + 20, "top row is sky: %d %d %d", top[0], top[1], top[2]);
        CHECK(abs(bottom[2] - bottom[0]) < 20, "bottom row is ground: %d %d %d", bottom[0], bottom[1],
              bottom[2]);
    }
    stbi_image_free(img);
    unlink(path);

    CHECK(!render_screenshot(r, "/nonexistent-dir/x.png", err, sizeof err) &&
              strstr(err, "/nonexistent-dir/x.png"),
          "unwritable path fails naming it: '%s'", err);

    render_destroy(r);
    gl_context_shutdown(&ctx);
    return test_done();
}
