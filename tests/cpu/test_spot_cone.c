/* test_spot_cone.c — a spot light's cone is round (izb_spot_outside, core/izb_math.h): a point is
 * lit iff it is in front of the light and its angle to the spot's axis is at most half the cone
 * angle. Generated views, many seeds: a random spot (position, direction, cone 1 to 170 degrees,
 * the ends and the default 60 among them), a camera beside the light aimed at a random point of
 * the cone's border or at a corner of the light's square clip space (which the round cone leaves
 * unlit), random depths per pixel. The truth comes from the light's definition alone (position,
 * direction, cone_deg), in double: so a projection that is not square or whose fov is not the cone
 * angle fails here as surely as a square inside test does. Checked through izb_reconstruct and
 * through the CPU backend's mask (one far-away triangle: nothing shadows, so mask 255 iff lit),
 * with a band of BAND radians around the border left unjudged (float rounding of the camera and
 * light matrices moves a point's angle by ~1e-6 at most here). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "test.h"
#include "view.h"

#define TEST_RNG_SEED 0xC0DEC0DE5EEDull
#include "test_rng.h"

#define W 48
#define H 32
#define SEEDS 300
#define BAND 1e-5 /* radians either side of the cone's border not judged */

static const double DEG = 0.017453292519943295;

static void normalise(double v[3])
{
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++)
        v[k] /= n;
}

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* a random light of seed s: cone 1, 170 and 60 (the default, as 0) first, then random */
static light random_spot(int s)
{
    light l = {.type = LIGHT_SPOT};
    for (int k = 0; k < 3; k++)
        l.pos[k] = (float)rnd_in(-3.0, 3.0), l.dir[k] = (float)rnd_in(-1.0, 1.0);
    l.cone_deg = s == 0 ? 1.0f : s == 1 ? 170.0f : s == 2 ? 0.0f : (float)rnd_in(1.0, 170.0);
    if (s == 3) l.dir[0] = 0.0f, l.dir[1] = -1.0f, l.dir[2] = 0.0f; /* straight down: the other up vector */
    return l;
}

/* The light matrix's clip x and y rows, as directions: the axes of its square image plane. */
static void image_axes(const float m[16], double u[3], double v[3])
{
    for (int k = 0; k < 3; k++)
        u[k] = m[4 * k], v[k] = m[4 * k + 1];
    normalise(u), normalise(v);
}

/* The light's clip space is square with fovy the cone angle: its x and y rows have the same
 * length, 1 / tan(half cone) times the w row's. */
static void check_square(const light *l, const float m[16], int s)
{
    double r[3] = {0};
    for (int row = 0; row < 4; row++) {
        if (row == 2) continue;
        r[row == 3 ? 2 : row] =
            sqrt((double)m[row] * m[row] + (double)m[4 + row] * m[4 + row] + (double)m[8 + row] * m[8 + row]);
    }
    const double half = 0.5 * (l->cone_deg > 0.0f ? l->cone_deg : 60.0) * DEG, want = r[2] / tan(half);
    CHECK(fabs(r[0] / want - 1.0) < 1e-5 && fabs(r[1] / want - 1.0) < 1e-5,
          "seed %d cone %g: clip x, y rows %g, %g, want %g (square, fov = cone)", s, (double)l->cone_deg,
          r[0], r[1], want);
}

int main(void)
{
    const float far_tri[9] = {1000, 1000, 1000, 1000.5f, 1000, 1000, 1000, 1000.5f, 1000};
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU});
    CHECK(b && izb_set_scene(b, far_tri, 1), "CPU backend with one far-away triangle");
    if (!b) return test_done();
    static float depth[W * H];
    static uint8_t mask[W * H];
    long judged = 0, in_band = 0, lit = 0, corners = 0, masked = 0;
    for (int s = 0; s < SEEDS; s++) {
        const light l = random_spot(s);
        const double half = 0.5 * (l.cone_deg > 0.0f ? l.cone_deg : 60.0) * DEG;
        float dirf[3], lm[16];
        light_direction(&l, dirf);
        const double axis[3] = {dirf[0], dirf[1], dirf[2]};
        const float bmin[3] = {-20, -20, -20}, bmax[3] = {20, 20, 20};
        light_matrices(&l, bmin, bmax, lm, NULL);
        check_square(&l, lm, s);

        /* aim: odd seeds at a corner of the square (+-u +-v at tan(half)), even ones at a random
         * point of the circle, both nudged a little either way */
        double u[3], v[3], t[3];
        image_axes(lm, u, v);
        const double phi = rnd_in(0.0, 2.0 * M_PI), su = (rnd() < 0.5 ? -1 : 1), sv = (rnd() < 0.5 ? -1 : 1);
        const double cu = s % 2 ? su : cos(phi), cv = s % 2 ? sv : sin(phi),
                     th = tan(half) * rnd_in(0.97, 1.03);
        for (int k = 0; k < 3; k++)
            t[k] = axis[k] + th * (cu * u[k] + cv * v[k]);
        normalise(t);
        camera cam = {.near = 0.01f, .far = 100.0f};
        cam.pitch = (float)fmax(fmin(asin(t[1]) / DEG, 85.0), -85.0);
        cam.yaw = (float)(atan2(t[0], -t[2]) / DEG);
        cam.fovy = (float)fmin(fmax(2.0 * half / DEG * rnd_in(0.3, 1.0), 0.5), 90.0);
        const double off = 0.2 * fmin(1.0, half); /* beside the light: parallax under the view's size */
        for (int k = 0; k < 3; k++)
            cam.pos[k] = l.pos[k] + (float)rnd_in(-off, off);

        const izb_recon f = izb_frame_make(&cam, &l, bmin, bmax, W, H);
        float view[16];
        camera_view(&cam, view);
        for (int i = 0; i < W * H; i++)
            depth[i] = rnd() < 0.05 ? 0.0f : (float)rnd_in(1.0, 10.0);
        CHECK(izb_shade_arrays(b, &f, NULL, depth, mask, NULL), "seed %d: shade", s);
        long wrong_recon = 0, wrong_mask = 0;
        int first = -1;
        for (int py = 0; py < H; py++)
            for (int px = 0; px < W; px++) {
                const int i = py * W + px;
                const double d = depth[i];
                izb_point pt;
                const izb_sample_kind k = izb_reconstruct(&f, px, py, depth[i], &pt);
                if (d == 0.0) {
                    wrong_recon += k != IZB_SKY;
                    wrong_mask += mask[i] != 255;
                    continue;
                }
                /* the world point in double: view ray from the camera's fov, inverse rigid view */
                const double vv[3] = {((2.0 * px + 1.0) / W - 1.0) * f.ray_sx * d,
                                      ((2.0 * py + 1.0) / H - 1.0) * f.ray_sy * d, -d};
                double p[3], a[3], c[3];
                for (int j = 0; j < 3; j++)
                    p[j] = view[4 * j] * (vv[0] - view[12]) + view[4 * j + 1] * (vv[1] - view[13]) +
                           view[4 * j + 2] * (vv[2] - view[14]);
                for (int j = 0; j < 3; j++)
                    a[j] = p[j] - l.pos[j];
                cross(a, axis, c);
                const double angle = atan2(sqrt(dot(c, c)), dot(a, axis));
                if (fabs(angle - half) < BAND) {
                    in_band++;
                    continue;
                }
                const bool want_lit = angle < half;
                judged++;
                lit += want_lit;
                /* inside the square clip space |x|, |y| <= 1 but outside the circle: a corner */
                const double ux = dot(a, u), uy = dot(a, v), uz = dot(a, axis);
                corners += !want_lit && uz > 0.0 && fabs(ux) <= uz * tan(half) && fabs(uy) <= uz * tan(half);
                const bool bad = (k == IZB_SAMPLE) != want_lit || (mask[i] == 255) != want_lit;
                wrong_recon += (k == IZB_SAMPLE) != want_lit;
                wrong_mask += (mask[i] == 255) != want_lit;
                masked += mask[i] == 0;
                if (bad && first < 0) first = i;
                if (bad && first == i)
                    fprintf(stderr,
                            "seed %d pixel (%d, %d): angle %.9g, half cone %.9g, reconstruct %d, mask %d\n",
                            s, px, py, angle, half, (int)k, mask[i]);
            }
        CHECK(wrong_recon == 0, "seed %d cone %g: izb_reconstruct wrong on %ld pixels", s, (double)l.cone_deg,
              wrong_recon);
        CHECK(wrong_mask == 0, "seed %d cone %g: the CPU mask wrong on %ld pixels", s, (double)l.cone_deg,
              wrong_mask);
    }
    izb_destroy(b);
    printf("%d spots: %ld judged points, %ld lit, %ld unlit in the mask, %ld in the square's corners, %ld "
           "within "
           "%g rad of the border\n",
           SEEDS, judged, lit, masked, corners, in_band, BAND);
    /* the views straddle the border: both sides and the corners are well represented */
    CHECK(lit > judged / 5 && judged - lit > judged / 5, "lit %ld of %ld: the views straddle the cone", lit,
          judged);
    CHECK(corners > judged / 40, "%ld points in the square's corners: the test exercises them", corners);
    return test_done();
}
