/* test_own.c — primitive ids (izb_shade_arrays_ids, izb_hit_is_own): neither a point's own
 * triangle nor one in its plane shadows it (the ground and the card are two triangles each, so a
 * point by a diagonal is also covered by its coplanar neighbour, by rounding). Scene: that ground
 * and a small card floating over it, seen from above, lit three ways: a sun 0.02 degrees above the
 * ground (grazing: the card's shadow falls far off the ground), a sun 30 degrees up and a spot
 * light low over the ground's far end (the card's shadow on the ground). Depth and ids are
 * computed exactly here (ray/plane in double), as a depth pass with gl_PrimitiveID gives them; the
 * truth is analytic: a ground point is in shadow iff its ray to the light passes through the card.
 *
 * Checked: with ids the mask is the truth on every pixel not within a margin of the shadow's
 * outline (no self-shadow acne on the grazing ground, the card's shadow kept); ids only ever remove
 * shadow (mask with ids >= mask without, pixel by pixel); NULL ids and all-IZB_NO_ID ids give
 * izb_shade_arrays' mask byte for byte, and so do ids past the scene's triangles; kernel1 and kernel2, 1 and
 * 2 threads agree. Without ids the grazing frame shows acne (counted and required, so the test exercises the
 * grazing case); izb_same_plane's cases on their own. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "test.h"
#include "view.h"

#define W 320
#define H 240
#define GROUND 10.0 /* ground [-GROUND, GROUND]^2 at y = 0 */
#define CARD_Y 0.2  /* the card: [CX0, CX1] x [CZ0, CZ1] at y = CARD_Y */
#define CX0 -3.0
#define CX1 -1.0
#define CZ0 -1.0
#define CZ1 1.0
#define MARGIN 0.02 /* world units around the shadow's outline left unjudged */

static const float xyz[4 * 9] = {
    -GROUND, 0,      -GROUND, -GROUND, 0,      GROUND, GROUND, 0,      GROUND, /* ground, facing up */
    -GROUND, 0,      -GROUND, GROUND,  0,      GROUND, GROUND, 0,      -GROUND,
    CX0,     CARD_Y, CZ0,     CX0,     CARD_Y, CZ1,    CX1,    CARD_Y, CZ1, /* card, facing up */
    CX0,     CARD_Y, CZ0,     CX1,     CARD_Y, CZ1,    CX1,    CARD_Y, CZ0,
};

typedef struct frame_data {
    float depth[W * H];
    uint32_t ids[W * H];
    int truth[W * H]; /* 1 lit, 0 shadow, -1 near the outline: not judged */
} frame_data;

/* world position of pixel (px, py) on the view ray with linear depth d (view matrix m) */
static void pixel_point(const float m[16], const izb_recon *f, int px, int py, double d, double p[3])
{
    const double v[3] = {((2.0 * px + 1.0) / W - 1.0) * f->ray_sx * d,
                         ((2.0 * py + 1.0) / H - 1.0) * f->ray_sy * d, -d};
    const double t[3] = {v[0] - m[12], v[1] - m[13], v[2] - m[14]};
    for (int j = 0; j < 3; j++)
        p[j] = m[4 * j] * t[0] + m[4 * j + 1] * t[1] + m[4 * j + 2] * t[2];
}

static void make_frame(const camera *cam, const light *l, const izb_recon *f, frame_data *fd)
{
    float m[16];
    camera_view(cam, m);
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            const int i = py * W + px;
            double o[3], q[3]; /* the ray's points at depth 0 and 1 */
            pixel_point(m, f, px, py, 0.0, o);
            pixel_point(m, f, px, py, 1.0, q);
            const double dy = q[1] - o[1];
            double d = (CARD_Y - o[1]) / dy; /* the card first: it is nearer the camera */
            double p[3];
            pixel_point(m, f, px, py, d, p);
            fd->ids[i] = IZB_NO_ID;
            fd->depth[i] = 0.0f;
            fd->truth[i] = 1;
            if (d > 0.0 && p[0] >= CX0 && p[0] <= CX1 && p[2] >= CZ0 && p[2] <= CZ1) {
                fd->depth[i] = (float)d;
                fd->ids[i] = p[2] - CZ0 >= (p[0] - CX0) * (CZ1 - CZ0) / (CX1 - CX0) ? 2u : 3u;
                const double e = fmin(fmin(p[0] - CX0, CX1 - p[0]), fmin(p[2] - CZ0, CZ1 - p[2]));
                fd->truth[i] = e < MARGIN ? -1 : 1; /* nothing above the card */
                continue;
            }
            d = -o[1] / dy;
            pixel_point(m, f, px, py, d, p);
            if (!(d > 0.0) || fabs(p[0]) > GROUND || fabs(p[2]) > GROUND) continue;
            fd->depth[i] = (float)d;
            fd->ids[i] = p[2] + GROUND >= p[0] + GROUND ? 0u : 1u;
            /* toward the light: -dir, or the spot's position */
            double L[3];
            for (int k = 0; k < 3; k++)
                L[k] = l->type == LIGHT_SPOT ? l->pos[k] - p[k] : -l->dir[k];
            const double s = CARD_Y / L[1]; /* where the ray reaches the card's plane */
            const double cx = p[0] + s * L[0], cz = p[2] + s * L[2];
            const double e =
                fmin(fmin(cx - CX0, CX1 - cx), fmin(cz - CZ0, CZ1 - cz)); /* > 0: through the card */
            fd->truth[i] = fabs(e) < MARGIN ? -1 : e > 0.0 && (l->type != LIGHT_SPOT || s < 1.0) ? 0 : 1;
            if (l->type == LIGHT_SPOT && fd->truth[i] == 1) {
                float lm[16], cl[4];
                light_matrices(l, (const float[3]){-GROUND, 0, -GROUND}, (const float[3]){GROUND, 1, GROUND},
                               lm, NULL);
                izb_transform(lm, (const float[3]){(float)p[0], (float)p[1], (float)p[2]}, cl);
                /* outside the round cone (mask 0) or too near its border to judge */
                const double rad = hypot(cl[0] / cl[3], cl[1] / cl[3]);
                if (!(cl[3] > 0.0f) || rad > 0.99)
                    fd->truth[i] = rad > 1.01 || !(cl[3] > 0.0f) ? 0 : -1;
            }
        }
}

static void run(izb_backend *b1, izb_backend *b2, const camera *cam, const light *l, const char *name,
                bool grazing)
{
    static frame_data fd;
    static uint8_t m_plain[W * H], m_ids[W * H], m_x[W * H];
    static uint32_t no_ids[W * H];
    const float bmin[3] = {-GROUND, 0, -GROUND}, bmax[3] = {GROUND, 1, GROUND};
    const izb_recon f = izb_frame_make(cam, l, bmin, bmax, W, H);
    make_frame(cam, l, &f, &fd);

    CHECK(izb_shade_arrays(b1, &f, NULL, fd.depth, m_plain, NULL), "%s: shade", name);
    CHECK(izb_shade_arrays_ids(b1, &f, NULL, fd.depth, fd.ids, m_ids, NULL), "%s: shade with ids", name);
    long judged = 0, wrong = 0, acne = 0, shadow = 0, removed_only = 1, ground_lit = 0;
    for (int i = 0; i < W * H; i++) {
        if (fd.truth[i] < 0 || !(fd.depth[i] > 0.0f)) continue;
        judged++;
        wrong += (m_ids[i] != 0) != (fd.truth[i] == 1);
        acne += fd.truth[i] == 1 && m_plain[i] == 0;
        shadow += fd.truth[i] == 0;
        ground_lit += fd.truth[i] == 1 && fd.ids[i] < 2;
    }
    for (int i = 0; i < W * H; i++)
        removed_only &= m_ids[i] >= m_plain[i];
    printf("%s: %ld judged pixels (%ld in shadow, %ld lit ground); with ids %ld wrong; without ids %ld false "
           "shadow (acne)\n",
           name, judged, shadow, ground_lit, wrong, acne);
    CHECK(judged > W * H / 2 && (grazing || shadow > 200) && ground_lit > W * H / 4,
          "%s: the frame shows ground and shadow", name);
    CHECK(wrong == 0, "%s: with ids %ld pixels differ from the analytic truth", name, wrong);
    CHECK(!grazing || acne > 0,
          "%s: without ids the grazing ground shows no acne: the test does not exercise ids", name);
    CHECK(removed_only, "%s: ids only remove shadow", name);

    /* NULL ids and unknown ids: izb_shade_arrays exactly */
    CHECK(izb_shade_arrays_ids(b1, &f, NULL, fd.depth, NULL, m_x, NULL) &&
              memcmp(m_x, m_plain, sizeof m_x) == 0,
          "%s: NULL ids give izb_shade_arrays' mask", name);
    for (int i = 0; i < W * H; i++)
        no_ids[i] = IZB_NO_ID;
    CHECK(izb_shade_arrays_ids(b1, &f, NULL, fd.depth, no_ids, m_x, NULL) &&
              memcmp(m_x, m_plain, sizeof m_x) == 0,
          "%s: IZB_NO_ID everywhere gives izb_shade_arrays' mask", name);
    /* bad ids: one past the scene, far past it: unknown, never read as a triangle */
    for (int i = 0; i < W * H; i++)
        no_ids[i] = i % 2 ? 4u : 0x7fffffffu;
    CHECK(izb_shade_arrays_ids(b1, &f, NULL, fd.depth, no_ids, m_x, NULL) &&
              memcmp(m_x, m_plain, sizeof m_x) == 0,
          "%s: ids past the scene's triangles count as unknown", name);
    /* every traversal and thread count */
    for (int k = IZB_KERNEL1; k <= IZB_KERNEL2; k++)
        for (int bi = 0; bi < 2; bi++) {
            const izb_settings s = {.kernel = (izb_kernel)k, .binning = IZB_BINNING_ATOMIC};
            CHECK(izb_shade_arrays_ids(bi ? b2 : b1, &f, &s, fd.depth, fd.ids, m_x, NULL) &&
                      memcmp(m_x, m_ids, sizeof m_x) == 0,
                  "%s: kernel%d, %d thread(s): same mask with ids", name, k, bi ? 1 : 2);
        }
}

/* izb_same_plane on its own: in the plane, off it, degenerate */
static void same_plane_cases(void)
{
    const float a[9] = {0, 0, 0, 1, 0, 0, 0, 0, 1};                 /* y = 0 */
    const float far_in[9] = {100, 0, 100, 101, 0, 100, 100, 0, 99}; /* y = 0, elsewhere */
    const float up[9] = {0, 1e-3f, 0, 1, 1e-3f, 0, 0, 1e-3f, 1};    /* y = 1e-3: parallel, apart */
    const float tilt[9] = {0, 0, 0, 1, 0, 0, 0, 1e-3f, 1};          /* 1e-3 rad about x */
    const float degen[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
    const float vert[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}; /* z = 0 */
    CHECK(izb_same_plane(a, a) && izb_same_plane(a, far_in) && izb_same_plane(far_in, a),
          "coplanar triangles");
    CHECK(!izb_same_plane(a, up) && !izb_same_plane(a, tilt) && !izb_same_plane(a, vert), "other planes");
    CHECK(!izb_same_plane(degen, a), "a degenerate triangle has no plane");
    /* a triangle a rounding away: 1 ulp of its coordinate */
    const float big[9] = {1000, 0, 1000, 1001, 0, 1000, 1000, 0, 1001};
    float nudged[9];
    memcpy(nudged, big, sizeof big);
    nudged[1] = nextafterf(0.0f, 1.0f) * 1e30f; /* ~1.4e-15 */
    nudged[4] = 1e-4f;                          /* 1e-7 of the coordinates: within the tolerance */
    CHECK(izb_same_plane(big, nudged), "a vertex 1e-7 of the coordinates off the plane counts as in it");
    nudged[4] = 1e-2f; /* 1e-5 of the coordinates: another plane */
    CHECK(!izb_same_plane(big, nudged), "a vertex 1e-5 of the coordinates off the plane does not");
}

int main(void)
{
    same_plane_cases();
    izb_backend *b1 = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 2});
    izb_backend *b2 = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1});
    CHECK(b1 && b2, "CPU backend");
    if (!b1 || !b2) return test_done();
    CHECK(izb_set_scene(b1, xyz, 4) && izb_set_scene(b2, xyz, 4), "set_scene");
    camera cam = {.pos = {0.0f, 9.0f, 7.0f}, .yaw = 0.0f, .pitch = -50.0f, .fovy = 60.0f};
    camera_fit_clip(&cam, (const float[3]){-GROUND, 0, -GROUND}, (const float[3]){GROUND, 1, GROUND});
    /* grazing: the card's shadow falls far off the ground, which is lit everywhere */
    const float a = 0.02f * 3.14159265f / 180.0f, c = 30.0f * 3.14159265f / 180.0f;
    const light graze = {.type = LIGHT_DIRECTIONAL, .dir = {cosf(a), -sinf(a), 0.1f * cosf(a)}};
    run(b1, b2, &cam, &graze, "sun 0.02 degrees above the ground", true);
    /* the card's shadow on the ground is kept */
    const light sun = {.type = LIGHT_DIRECTIONAL, .dir = {cosf(c), -sinf(c), 0.1f}};
    run(b1, b2, &cam, &sun, "sun 30 degrees above the ground", false);
    const light spot = {
        .type = LIGHT_SPOT, .pos = {-9.5f, 0.45f, 0.0f}, .dir = {1.0f, -0.04f, 0.0f}, .cone_deg = 100};
    run(b1, b2, &cam, &spot, "spot low over the ground", false);
    izb_destroy(b1);
    izb_destroy(b2);
    return test_done();
}
