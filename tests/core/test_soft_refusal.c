/* test_soft_refusal.c — the seam's guard for soft frames (izb_recon.light_angle > 0, izb_soft.h):
 * a backend without the soft path (izb_backend_vtbl.soft false; both real backends have it now) is never handed one —
 * izb_shade_arrays and izb_shade_gl return false with one line naming the CPU backend, and the
 * backend's function is not called — while hard frames reach it as before; a bad angle or sample
 * count is refused in one line before any backend sees it, whichever backend it is. The same for
 * anti-aliased frames (izb_recon.shadow_samples > 1, izb_aa.h) and izb_backend_vtbl.aa, and for area
 * lights (izb_recon.light_size > 0, izb_area.h: sizes negative, NaN, Inf, huge; M; not a spot) and
 * izb_backend_vtbl.area. The fault-injection wrapper (IZB_FAULT) takes every kind of frame the backend it
 * wraps takes. */
#undef NDEBUG
#include <math.h>
#include <string.h>

#include <stdlib.h>

#include "izb_backend.h"
#include "test.h"
#include "test_io.h"

static int calls; /* frames the fake backend was handed */

static bool fake_shade_arrays(izb_backend *b, const izb_recon *f, const izb_settings *s, const float *depth,
                              const uint32_t *ids, uint8_t *mask, izb_stats *stats)
{
    (void)b, (void)f, (void)s, (void)depth, (void)ids, (void)mask, (void)stats;
    calls++;
    return true;
}

static bool fake_shade_gl(izb_backend *b, const izb_recon *f, const izb_settings *s, unsigned depth_tex,
                          unsigned ids_tex, unsigned mask_tex, unsigned generation, izb_stats *stats)
{
    (void)b, (void)f, (void)s, (void)depth_tex, (void)ids_tex, (void)mask_tex, (void)generation, (void)stats;
    calls++;
    return true;
}

/* shade f on b (arrays, or GL when gl): the result, stderr in out */
static bool shade(izb_backend *b, const izb_recon *f, bool gl, char *out, size_t n)
{
    float depth[1] = {1.0f};
    uint8_t mask[1];
    test_stderr_begin();
    const bool ok = gl ? izb_shade_gl(b, f, NULL, 1, 0, 2, 0, NULL) : izb_shade_arrays(b, f, NULL, depth, mask, NULL);
    test_stderr_end(out, n);
    return ok;
}

static int lines(const char *s)
{
    int k = 0;
    for (; *s; s++)
        k += *s == '\n';
    return k;
}

int main(void)
{
    for (int soft = 0; soft < 2; soft++) {
        const izb_backend_vtbl vt = {.name = soft ? "soft" : "hard-only", .shade_arrays = fake_shade_arrays,
                                     .shade_gl = fake_shade_gl, .soft = soft};
        izb_backend b = {.vt = &vt, .tri_count = -1};
        char out[1024];
        for (int gl = 0; gl < 2; gl++) {
            const izb_recon hard = {.width = 1, .height = 1, .light_samples = 48}; /* M unread at angle 0 */
            calls = 0;
            CHECK(shade(&b, &hard, gl, out, sizeof out) && calls == 1 && !out[0], "%s, gl %d: a hard frame: '%s'",
                  vt.name, gl, out);
            izb_recon f = {.width = 1, .height = 1, .light_angle = 0.1f, .light_samples = 64};
            calls = 0;
            const bool ok = shade(&b, &f, gl, out, sizeof out);
            if (soft)
                CHECK(ok && calls == 1 && !out[0], "%s, gl %d: a soft frame: '%s'", vt.name, gl, out);
            else
                CHECK(!ok && calls == 0 && lines(out) == 1 && strstr(out, "no path for") && strstr(out, vt.name),
                      "%s, gl %d: a soft frame: %d, %d calls, '%s'", vt.name, gl, ok, calls, out);
            /* bad values: refused before any backend, one line each */
            const float angles[3] = {-0.1f, NAN, 1.0f};
            for (int k = 0; k < 3; k++) {
                f = (izb_recon){.width = 1, .height = 1, .light_angle = angles[k], .light_samples = 64};
                calls = 0;
                CHECK(!shade(&b, &f, gl, out, sizeof out) && calls == 0 && lines(out) == 1,
                      "%s, gl %d: angle %g: '%s'", vt.name, gl, (double)angles[k], out);
            }
            f = (izb_recon){.width = 1, .height = 1, .light_angle = 0.1f, .light_samples = 100};
            calls = 0;
            CHECK(!shade(&b, &f, gl, out, sizeof out) && calls == 0 && lines(out) == 1 && strstr(out, "100"),
                  "%s, gl %d: M 100: '%s'", vt.name, gl, out);
        }
    }
    for (int aa = 0; aa < 2; aa++) {
        const izb_backend_vtbl vt = {.name = aa ? "aa" : "no-aa", .shade_arrays = fake_shade_arrays,
                                     .shade_gl = fake_shade_gl, .aa = aa};
        izb_backend b = {.vt = &vt, .tri_count = -1};
        char out[1024];
        for (int gl = 0; gl < 2; gl++) {
            for (int n = 0; n < 2; n++) { /* 0 and 1: the hard path, on every backend */
                const izb_recon hard = {.width = 1, .height = 1, .shadow_samples = n};
                calls = 0;
                CHECK(shade(&b, &hard, gl, out, sizeof out) && calls == 1 && !out[0], "%s, gl %d: N %d: '%s'", vt.name,
                      gl, n, out);
            }
            izb_recon f = {.width = 1, .height = 1, .shadow_samples = 8};
            calls = 0;
            const bool ok = shade(&b, &f, gl, out, sizeof out);
            if (aa)
                CHECK(ok && calls == 1 && !out[0], "%s, gl %d: N 8: '%s'", vt.name, gl, out);
            else
                CHECK(!ok && calls == 0 && lines(out) == 1 && strstr(out, "no path for") && strstr(out, vt.name),
                      "%s, gl %d: N 8: %d, %d calls, '%s'", vt.name, gl, ok, calls, out);
            const int bad[4] = {2, 3, 64, -4};
            for (int k = 0; k < 4; k++) {
                f = (izb_recon){.width = 1, .height = 1, .shadow_samples = bad[k]};
                calls = 0;
                CHECK(!shade(&b, &f, gl, out, sizeof out) && calls == 0 && lines(out) == 1,
                      "%s, gl %d: N %d: '%s'", vt.name, gl, bad[k], out);
            }
            /* a spot, a point light's face and its cube frame: taken, as a directional frame above; a
             * light kind out of range: refused on every backend */
            const int kinds[3] = {IZB_LIGHT_SPOT, IZB_LIGHT_FACE, IZB_LIGHT_CUBE};
            for (int k = 0; k < 3; k++) {
                f = (izb_recon){.width = 1, .height = 1, .shadow_samples = 8, .light_is_spot = kinds[k]};
                calls = 0;
                const bool kind_ok = shade(&b, &f, gl, out, sizeof out);
                CHECK(aa ? kind_ok && calls == 1 && !out[0] : !kind_ok && calls == 0 && lines(out) == 1,
                      "%s, gl %d: N 8, light kind %d: %d, '%s'", vt.name, gl, kinds[k], kind_ok, out);
            }
            f = (izb_recon){.width = 1, .height = 1, .shadow_samples = 8, .light_is_spot = 9};
            calls = 0;
            CHECK(!shade(&b, &f, gl, out, sizeof out) && calls == 0 && lines(out) == 1,
                  "%s, gl %d: N 8, light kind 9: '%s'", vt.name, gl, out);
        }
    }
    /* area lights (izb_recon.light_size > 0 on a spot, izb_area.h) and izb_backend_vtbl.area */
    for (int area = 0; area < 2; area++) {
        const izb_backend_vtbl vt = {.name = area ? "area" : "no-area", .shade_arrays = fake_shade_arrays,
                                     .shade_gl = fake_shade_gl, .area = area};
        izb_backend b = {.vt = &vt, .tri_count = -1};
        char out[1024];
        for (int gl = 0; gl < 2; gl++) {
            /* size 0: the hard spot, on every backend, whatever M says */
            const izb_recon hard = {.width = 1, .height = 1, .light_is_spot = 1, .light_samples = 48};
            calls = 0;
            CHECK(shade(&b, &hard, gl, out, sizeof out) && calls == 1 && !out[0], "%s, gl %d: size 0: '%s'", vt.name,
                  gl, out);
            izb_recon f = {.width = 1, .height = 1, .light_is_spot = 1, .light_size = {0.5f, 0.25f},
                           .light_samples = 64};
            calls = 0;
            const bool ok = shade(&b, &f, gl, out, sizeof out);
            if (area)
                CHECK(ok && calls == 1 && !out[0], "%s, gl %d: an area frame: '%s'", vt.name, gl, out);
            else
                CHECK(!ok && calls == 0 && lines(out) == 1 && strstr(out, "no path for") && strstr(out, vt.name),
                      "%s, gl %d: an area frame: %d, %d calls, '%s'", vt.name, gl, ok, calls, out);
            /* bad values: refused before any backend, one line each */
            const float sizes[5] = {-0.1f, NAN, INFINITY, 2e6f, -INFINITY};
            for (int k = 0; k < 10; k++) {
                f = (izb_recon){.width = 1, .height = 1, .light_is_spot = 1, .light_size = {0.5f, 0.5f},
                                .light_samples = 64};
                f.light_size[k % 2] = sizes[k / 2];
                calls = 0;
                CHECK(!shade(&b, &f, gl, out, sizeof out) && calls == 0 && lines(out) == 1,
                      "%s, gl %d: size %d = %g: '%s'", vt.name, gl, k % 2, (double)sizes[k / 2], out);
            }
            const izb_recon others[4] = {
                {.width = 1, .height = 1, .light_is_spot = 1, .light_size = {0.5f, 0.5f}, .light_samples = 100},
                {.width = 1, .height = 1, .light_is_spot = 0, .light_size = {0.5f, 0.5f}, .light_samples = 64},
                {.width = 1, .height = 1, .light_is_spot = 2, .light_size = {0.5f, 0.5f}, .light_samples = 64},
                {.width = 1, .height = 1, .light_is_spot = 1, .light_size = {0.5f, 0.5f}, .light_samples = 64,
                 .light_disk = 2}};
            for (int k = 0; k < 4; k++) {
                calls = 0;
                CHECK(!shade(&b, &others[k], gl, out, sizeof out) && calls == 0 && lines(out) == 1,
                      "%s, gl %d: bad area frame %d (M 100, directional, a cube face, shape 2): '%s'", vt.name, gl, k,
                      out);
            }
        }
    }
    /* IZB_FAULT wraps the backend auto picks (an explicit CPU backend is never wrapped): every frame
     * kind that backend shades, the wrapper shades too (a capability flag it forgot to pass on would
     * refuse it); the CPU backend, which auto picks here, has them all */
    const float tri[9] = {-1, -1, 0.5f, 1, -1, 0.5f, 0, 1, 0.5f};
    izb_backend *plain = izb_create(&(izb_desc){.backend = IZB_BACKEND_AUTO, .threads = 1, .quiet = true});
    setenv("IZB_FAULT", "frame:1000000", 1);
    test_stderr_begin();
    izb_backend *wrapped = izb_create(&(izb_desc){.backend = IZB_BACKEND_AUTO, .threads = 1, .quiet = true});
    char out[1024];
    test_stderr_end(out, sizeof out);
    unsetenv("IZB_FAULT");
    CHECK(plain && wrapped && wrapped != plain && strcmp(izb_name(wrapped), "faulty") == 0,
          "IZB_FAULT: no wrapper");
    if (plain && wrapped) {
        CHECK(izb_set_scene(plain, tri, 1) && izb_set_scene(wrapped, tri, 1), "set_scene");
        const izb_recon kinds[4] = {
            {.width = 1, .height = 1},
            {.width = 1, .height = 1, .light_angle = 0.05f, .light_samples = 16},
            {.width = 1, .height = 1, .shadow_samples = 8},
            {.width = 1, .height = 1, .light_is_spot = 1, .light_size = {0.5f, 0.5f}, .light_samples = 16}};
        for (int k = 0; k < 4; k++) {
            const bool p = shade(plain, &kinds[k], false, out, sizeof out);
            const bool w = shade(wrapped, &kinds[k], false, out, sizeof out);
            CHECK(p == w && (p || strcmp(izb_name(plain), "cpu") != 0), "frame kind %d (hard, soft, aa, area): %s %d, wrapped %d: '%s'",
                  k, izb_name(plain), p, w, out);
        }
    }
    izb_destroy(plain);
    izb_destroy(wrapped);
    return test_done();
}
