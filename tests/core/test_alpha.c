/* test_alpha.c — core/izb_alpha.h's texel rule and cutoff against references written here another
 * way (the exact double product, GL's mirror() formula, the cutoff compare in exact rationals):
 * generated UVs on texel centres and edges for every wrap mode and power-of-two and other sides,
 * negative and huge UVs, Inf and NaN; and the UV step at a triangle's vertices and centroid. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "izb_alpha.h"
#include "test.h"
#include "test_rng.h"

/* The wrap written as the GL spec writes it (§8.14.2: mirror(a) = a >= 0 ? a : -(1 + a)), from the
 * float product formed in double (exact: 24-bit float times a side below 2^15 fits 53 bits, so the
 * single rounding to float is that of the float multiply). */
static int ref_wrap(float c, int size, int wrap)
{
    float s = (float)((double)c * (double)size);
    if (isnan(s)) s = -IZB_ALPHA_COORD_MAX;
    if (s > IZB_ALPHA_COORD_MAX) s = IZB_ALPHA_COORD_MAX;
    if (s < -IZB_ALPHA_COORD_MAX) s = -IZB_ALPHA_COORD_MAX;
    const int64_t i = (int64_t)floor((double)s);
    switch (wrap) {
    case IZB_WRAP_CLAMP:
        return (int)(i < 0 ? 0 : i > size - 1 ? size - 1 : i);
    case IZB_WRAP_MIRROR: {
        const int64_t m = ((i % (2 * size)) + 2 * size) % (2 * size) - size;
        return (int)((size - 1) - (m >= 0 ? m : -(1 + m)));
    }
    default:
        return (int)(((i % size) + size) % size);
    }
}

/* texel k wrapped, from the integer alone */
static int direct_wrap(int k, int size, int wrap)
{
    const int m2 = ((k % (2 * size)) + 2 * size) % (2 * size);
    if (wrap == IZB_WRAP_CLAMP) return k < 0 ? 0 : k >= size ? size - 1 : k;
    if (wrap == IZB_WRAP_MIRROR) return m2 < size ? m2 : 2 * size - 1 - m2;
    return ((k % size) + size) % size;
}

static const int sides[] = {1, 2, 3, 5, 7, 16, 64, 100, 255, 256, 1000, 1024, 4096, 16384};
#define NSIDES ((int)(sizeof sides / sizeof sides[0]))

/* centres (k + 0.5) / size and edges k / size for k over several periods either side of 0: the
 * centre is texel k, the edge (where the float product is exactly k) texel k — the texel above it */
static void test_centres_and_edges(void)
{
    int bad = 0, edges_exact = 0;
    for (int si = 0; si < NSIDES; si++)
        for (int wrap = 0; wrap < IZB_WRAP_COUNT; wrap++) {
            const int size = sides[si];
            for (int k = -3 * size - 2; k <= 3 * size + 2; k += size > 64 ? 1 + size / 64 : 1) {
                const float centre = (float)((k + 0.5) / size), edge = (float)k / (float)size;
                bad += izb_alpha_wrap(centre, size, wrap) != ref_wrap(centre, size, wrap);
                bad += izb_alpha_wrap(centre, size, wrap) != direct_wrap(k, size, wrap);
                bad += izb_alpha_wrap(edge, size, wrap) != ref_wrap(edge, size, wrap);
                if (edge * (float)size == (float)k) { /* the edge is exact: texel k, wrapped */
                    edges_exact++;
                    bad += izb_alpha_wrap(edge, size, wrap) != direct_wrap(k, size, wrap);
                }
            }
        }
    CHECK(bad == 0, "%d texel indices differ at centres and edges", bad);
    CHECK(edges_exact > 1000, "only %d exact edges generated", edges_exact);
}

/* random UVs over a wide range, huge ones, and the non-finite values: the index is in range and
 * equals the reference */
static void test_wide_and_special(void)
{
    const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN, -NAN,
                             3.0e38f, -3.0e38f, 1e-45f, -1e-45f, 0.99999994f, -0.99999994f, 1e9f, -1e9f};
    int bad = 0, out = 0;
    for (int si = 0; si < NSIDES; si++)
        for (int wrap = 0; wrap < IZB_WRAP_COUNT; wrap++) {
            const int size = sides[si];
            for (int i = 0; i < 4000; i++) {
                const float c = i < (int)(sizeof special / sizeof special[0])
                                    ? special[i]
                                    : (float)(rnd_in(-1.0, 1.0) * pow(10.0, rnd_in(-3.0, 12.0)));
                const int got = izb_alpha_wrap(c, size, wrap);
                out += got < 0 || got >= size;
                bad += got != ref_wrap(c, size, wrap);
            }
        }
    CHECK(out == 0, "%d texel indices outside the texture", out);
    CHECK(bad == 0, "%d texel indices differ from the reference on wide UVs", bad);
    /* the documented special cases */
    CHECK(izb_alpha_wrap(NAN, 16, IZB_WRAP_CLAMP) == 0, "NaN clamps to texel 0");
    CHECK(izb_alpha_wrap(INFINITY, 16, IZB_WRAP_CLAMP) == 15, "+Inf clamps to the last texel");
    CHECK(izb_alpha_wrap(1e30f, 16, IZB_WRAP_REPEAT) == 0, "1e30 repeats to texel 2^30 mod 16 = 0");
}

/* the cutoff compare: keep iff alpha >= cutoff * 255 in exact arithmetic, for cutoffs k / 255
 * (exact thresholds), decimal cutoffs (k / 100, glTF's way) and random ones */
static void test_cutoff(void)
{
    int bad = 0;
    for (int i = 0; i < 3000; i++) {
        double c; /* the intended real cutoff */
        if (i < 256) c = i / 255.0;
        else if (i < 357) c = (i - 256) / 100.0;
        else {
            c = rnd(); /* away from the 1/1024 zone above an integer, where decimal intent rules */
            if (c * 255.0 - floor(c * 255.0) < 2.0 / 1024.0) continue;
        }
        const float cf = (float)c;
        const uint8_t t = izb_alpha_threshold(cf);
        izb_alpha_tex tex = {.offset = 0, .width = 1, .height = 1, .threshold = t};
        for (int a = 0; a < 256; a++) {
            const uint8_t px = (uint8_t)a;
            const bool keep = izb_alpha_keeps(&px, &tex, 0.5f, 0.5f);
            /* a < c * 255 exactly, c the decimal/rational intended (not its float rounding) */
            const bool want_keep = !((double)a * 1.0 < c * 255.0 - 1e-9);
            bad += keep != want_keep;
        }
    }
    CHECK(bad == 0, "%d cutoff decisions differ from alpha >= cutoff * 255", bad);
    CHECK(izb_alpha_threshold(0.5f) == 128, "default cutoff threshold %d", izb_alpha_threshold(0.5f));
    CHECK(izb_alpha_threshold(0.0f) == 0, "cutoff 0 cuts nothing");
    CHECK(izb_alpha_threshold(1.0f) == 255, "cutoff 1 keeps only 255");
    CHECK(izb_alpha_threshold(-3.0f) == 0 && izb_alpha_threshold(7.0f) == 255, "cutoffs clamp to [0, 1]");
    CHECK(izb_alpha_threshold(NAN) == 128, "NaN cutoff is the default");
}

/* the texel read: a generated texture (alpha = a hash of row and column) read at every texel's
 * centre through each wrap gives that texel's value, row 0 at v = 0 */
static void test_texel_read(void)
{
    int bad = 0;
    for (int si = 0; si < NSIDES - 3; si++)
        for (int sj = 0; sj < NSIDES - 3; sj += 2) {
            const int w = sides[si], h = sides[sj];
            uint8_t *pool = test_xcalloc((size_t)w * h + 7, 1);
            for (int i = 0; i < w * h; i++)
                pool[7 + i] = (uint8_t)(i * 2654435761u >> 13);
            for (int wrap = 0; wrap < IZB_WRAP_COUNT; wrap++) {
                izb_alpha_tex t = {.offset = 7, .width = w, .height = h, .wrap_u = (uint8_t)wrap,
                                   .wrap_v = (uint8_t)((wrap + 1) % IZB_WRAP_COUNT), .threshold = 128};
                for (int r = 0; r < h; r += 1 + h / 17)
                    for (int c = 0; c < w; c += 1 + w / 13) {
                        const float u = (float)((c + 0.5) / w), v = (float)((r + 0.5) / h);
                        bad += izb_alpha_texel(pool, &t, u, v) != pool[7 + r * w + c];
                        bad += izb_alpha_keeps(pool, &t, u, v) != (pool[7 + r * w + c] >= 128);
                    }
            }
            free(pool);
        }
    CHECK(bad == 0, "%d texel reads differ", bad);
}

/* the UV step: at a vertex the UV is the vertex's, at the centroid the mean (within float
 * rounding), for random triangles in light clip space with w > 0 (spot) and w = 1 (ortho) */
static void test_uv_vertices(void)
{
    int bad = 0, tried = 0;
    for (int i = 0; i < 2000; i++) {
        float v[3][4], uv[6];
        const bool spot = i & 1;
        for (int k = 0; k < 3; k++) {
            const float w = spot ? (float)rnd_in(0.5, 4.0) : 1.0f;
            v[k][0] = (float)rnd_in(-1, 1) * w, v[k][1] = (float)rnd_in(-1, 1) * w, v[k][2] = 0.0f, v[k][3] = w;
            uv[2 * k] = (float)rnd_in(-2, 2), uv[2 * k + 1] = (float)rnd_in(-2, 2);
        }
        const izb_bbox pb = {-1, -1, 1, 1};
        const izb_grid g = izb_grid_make(pb, 1, 1, 1);
        izb_tri t;
        if (!izb_tri_setup(v, &g, &pb, false, &t)) continue;
        float E[3];
        if (fabsf(izb_tri_det(v, E)) < 1e-2f) continue; /* well-conditioned only */
        tried++;
        double cx = 0, cy = 0;
        for (int k = 0; k < 3; k++) {
            float u, vv;
            izb_alpha_uv(&t, v[k][0] / v[k][3], v[k][1] / v[k][3], uv, &u, &vv);
            bad += fabsf(u - uv[2 * k]) > 1e-3f || fabsf(vv - uv[2 * k + 1]) > 1e-3f;
        }
        /* the world centroid projects to (sum X / sum W, sum Y / sum W) and has the mean UV */
        double sw = 0;
        for (int k = 0; k < 3; k++) cx += v[k][0], cy += v[k][1], sw += v[k][3];
        float u, vv;
        izb_alpha_uv(&t, (float)(cx / sw), (float)(cy / sw), uv, &u, &vv);
        bad += fabsf(u - (uv[0] + uv[2] + uv[4]) / 3) > 1e-3f || fabsf(vv - (uv[1] + uv[3] + uv[5]) / 3) > 1e-3f;
    }
    CHECK(tried > 500, "only %d triangles tried", tried);
    CHECK(bad == 0, "%d UVs at vertices or centroids off", bad);
}

int main(void)
{
    test_centres_and_edges();
    test_wide_and_special();
    test_cutoff();
    test_texel_read();
    test_uv_vertices();
    return test_done();
}
