/* test_cpu_face_reach.c — culling's pre-test for a point light's cube faces (izb_face_reach,
 * core/izb_math.h; the per-ISA kernels face_reach of cpu/kernels_faces.h, run by cpu/faces.c):
 * - every copy this CPU runs (base, AVX2, AVX-512) gives izb_face_reach's byte for every triangle
 *   of [i0, i1), for ranges that start and end off the 16-triangle blocks, and writes nothing
 *   outside the range;
 * - izb_face_reach against the faces' w rows in double precision (an independent reference): a
 *   triangle given one face alone has every point of it (vertices, edge midpoints, random
 *   barycentric points) in that face's cone in double, shrunk by half the margin (the w
 *   differences are linear, so a triangle whose vertices lead by the margin leads by it everywhere;
 *   the margin is what covers izb_face_owner's rounding, so it may never hide another face's point);
 *   one whose vertices are all one face's by a wide margin in double gets that face alone (the
 *   pre-test must not give up where it is sure).
 * The faces are izb_frame_make_faces' for random lights; the triangles are small ones around the
 * light in every direction (many across a seam), large ones, ones with a vertex exactly on a seam or
 * a corner of the cube and the others a hair off it, degenerate and non-finite ones. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "izb_cpu_isa.h"
#include "test.h"
#include "view.h"

#define TEST_RNG_SEED 0xD1B54A32D192ED03ull
#include "test_rng.h"

#define SEEDS 6
#define TRIS 2000
static const izb_cpu_isa isas[] = {IZB_CPU_ISA_BASE, IZB_CPU_ISA_AVX2, IZB_CPU_ISA_AVX512};

enum { SMALL, LARGE, SEAM, DIAGONAL, DEGENERATE, NONFINITE, KINDS };

/* a random unit vector */
static void rand_dir(double d[3])
{
    double n;
    do {
        for (int c = 0; c < 3; c++)
            d[c] = rnd_in(-1, 1);
        n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    } while (n < 0.1 || n > 1.0);
    for (int c = 0; c < 3; c++)
        d[c] /= n;
}

/* 9 floats of one triangle of kind k around the light at o. SEAM: vertex 0 exactly on a plane
 * between two faces (two coordinates of its direction equal in size), the others a hair to one
 * side of it; DIAGONAL: the same at a corner of the cube (three faces tie at vertex 0). */
static void make_tri(float *t, int k, const float o[3])
{
    double d[3];
    rand_dir(d);
    const double r = rnd_in(0.5, 20.0), s = k == LARGE ? r : 0.05 * r;
    if (k == SEAM || k == DIAGONAL) {
        const int a = (int)(rnd() * 3), b = (a + 1 + (int)(rnd() * 2)) % 3;
        const double m = fmax(fmax(fabs(d[0]), fabs(d[1])), fabs(d[2]));
        d[a] = d[a] < 0 ? -m : m, d[b] = d[b] < 0 ? -m : m;
        if (k == DIAGONAL) d[3 - a - b] = d[3 - a - b] < 0 ? -m : m;
        for (int c = 0; c < 3; c++)
            t[c] = (float)(o[c] + r * d[c]);
        const double h = r * (rnd() < 0.5 ? 1e-6 : 1e-3); /* a hair or a little way off the seam */
        for (int q = 1; q < 3; q++)
            for (int c = 0; c < 3; c++)
                t[3 * q + c] = (float)(o[c] + r * d[c] + h * rnd_in(-1, 1));
        return;
    }
    for (int q = 0; q < 3; q++)
        for (int c = 0; c < 3; c++)
            t[3 * q + c] = (float)(o[c] + r * d[c] + s * rnd_in(-1, 1));
    if (k == DEGENERATE) memcpy(t + 3, t, 3 * sizeof *t);
    if (k == NONFINITE) {
        const float bad[] = {NAN, INFINITY, -INFINITY};
        t[(int)(rnd() * 9)] = bad[(int)(rnd() * 3)];
    }
}

/* face f's w at p, in double */
static double w_at(const float (*w)[4], int f, const double p[3])
{
    return (double)w[f][0] * p[0] + (double)w[f][1] * p[1] + (double)w[f][2] * p[2] + (double)w[f][3];
}

/* the face whose w is largest at p, in double, and by how much it beats the second */
static int face_double(const float (*w)[4], const double p[3], double *lead)
{
    int b = 0;
    double best = -INFINITY, second = -INFINITY;
    for (int f = 0; f < IZB_CUBE_FACES; f++) {
        const double x = w_at(w, f, p);
        if (x > best)
            second = best, best = x, b = f;
        else if (x > second)
            second = x;
    }
    *lead = best - second;
    return b;
}

int main(void)
{
    static float xyz[9 * TRIS];
    static uint8_t want[TRIS], got[TRIS];
    long single = 0, every = 0, sure_cases = 0, checked_points = 0;
    for (int seed = 0; seed < SEEDS; seed++) {
        const float o[3] = {(float)rnd_in(-5, 5), (float)rnd_in(-5, 5), (float)rnd_in(-5, 5)};
        const camera cam = {.pos = {o[0] + 1.0f, o[1] + 0.5f, o[2] + 2.0f}, .yaw = (float)rnd_in(0, 6),
                            .pitch = (float)rnd_in(-1, 1)};
        const light l = {.type = LIGHT_POINT, .pos = {o[0], o[1], o[2]}};
        const float bmin[3] = {o[0] - 30, o[1] - 30, o[2] - 30}, bmax[3] = {o[0] + 30, o[1] + 30, o[2] + 30};
        izb_recon faces[LIGHT_CUBE_FACES];
        const int count = izb_frame_make_faces(&cam, &l, bmin, bmax, 64, 48, faces);
        CHECK(count == IZB_CUBE_FACES, "seed %d: %d faces", seed, count);
        if (count != IZB_CUBE_FACES) continue;
        float w[IZB_CUBE_FACES][4];
        for (int f = 0; f < IZB_CUBE_FACES; f++)
            for (int k = 0; k < 4; k++)
                w[f][k] = faces[f].light[4 * k + 3];
        for (int i = 0; i < TRIS; i++)
            make_tri(xyz + 9 * i, (int)(rnd() * KINDS), o);
        const float margin = 1e-5f * 3.0f * (30.0f + fabsf(o[0]) + fabsf(o[1]) + fabsf(o[2]));
        for (int i = 0; i < TRIS; i++)
            want[i] = (uint8_t)izb_face_reach((const float (*)[4])w, xyz + 9 * i, margin);

        /* the kernels == izb_face_reach, in range only */
        for (size_t a = 0; a < sizeof isas / sizeof *isas; a++) {
            const izb_cpu_kernels *kern = izb_cpu_kernels_get(isas[a]);
            if (!kern) continue; /* a copy this CPU does not run */
            const int64_t ranges[][2] = {{0, TRIS}, {3, TRIS - 5}, {17, 17 + 15}, {32, 33}, {40, 40}};
            for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++) {
                const int64_t i0 = ranges[r][0], i1 = ranges[r][1];
                memset(got, 0xee, sizeof got);
                kern->face_reach((const float (*)[4])w, xyz, i0, i1, margin, got);
                int wrong = 0, outside = 0;
                for (int64_t i = 0; i < TRIS; i++) {
                    if (i >= i0 && i < i1)
                        wrong += got[i] != want[i];
                    else
                        outside += got[i] != 0xee;
                }
                CHECK(wrong == 0 && outside == 0, "seed %d %s [%ld, %ld): %d bytes differ from izb_face_reach, %d "
                      "written outside", seed, kern->name, (long)i0, (long)i1, wrong, outside);
            }
        }

        /* izb_face_reach against the double-precision cones */
        for (int i = 0; i < TRIS; i++) {
            const float *t = xyz + 9 * i;
            double v[3][3], lead[3];
            int fv[3];
            bool finite = true;
            for (int q = 0; q < 3; q++)
                for (int c = 0; c < 3; c++)
                    v[q][c] = t[3 * q + c], finite &= isfinite(t[3 * q + c]) != 0;
            for (int q = 0; q < 3; q++)
                fv[q] = face_double((const float (*)[4])w, v[q], &lead[q]);
            const uint32_t r = want[i];
            if (r == (1u << IZB_CUBE_FACES) - 1u) {
                every++;
            } else {
                single++;
                CHECK(finite && __builtin_popcount(r) == 1, "seed %d tri %d: reach 0x%x (one face or all)", seed, i, r);
                const int f = __builtin_ctz(r);
                for (int s = 0; s < 12; s++) { /* vertices, edge midpoints, random points */
                    double b[3];
                    if (s < 3)
                        b[0] = s == 0, b[1] = s == 1, b[2] = s == 2;
                    else if (s < 6)
                        b[0] = s != 3 ? 0.5 : 0, b[1] = s != 4 ? 0.5 : 0, b[2] = s != 5 ? 0.5 : 0;
                    else {
                        b[0] = rnd(), b[1] = rnd() * (1 - b[0]), b[2] = 1 - b[0] - b[1];
                    }
                    double p[3], l2;
                    for (int c = 0; c < 3; c++)
                        p[c] = b[0] * v[0][c] + b[1] * v[1][c] + b[2] * v[2][c];
                    const int fp = face_double((const float (*)[4])w, p, &l2);
                    CHECK(fp == f && l2 > 0.5 * margin, "seed %d tri %d: reach face %d only, but a point of it is "
                          "face %d's in double, by %g (margin %g)", seed, i, f, fp, l2, margin);
                    checked_points++;
                }
            }
            if (finite && fv[0] == fv[1] && fv[1] == fv[2] && lead[0] > 4 * margin && lead[1] > 4 * margin &&
                lead[2] > 4 * margin) {
                sure_cases++;
                CHECK(r == 1u << fv[0], "seed %d tri %d: every vertex face %d's by > 4 margins, reach 0x%x", seed, i,
                      fv[0], r);
            }
        }
    }
    /* both outcomes often enough that the checks above mean something */
    CHECK(single > SEEDS * TRIS / 4 && every > SEEDS * TRIS / 10 && sure_cases > SEEDS * TRIS / 4,
          "%ld one-face triangles, %ld all-face, %ld sure by a wide margin", single, every, sure_cases);
    printf("face_reach: %ld one-face triangles (%ld of their points checked in double), %ld all-face, %ld sure\n",
           single, checked_points, every, sure_cases);
    return test_done();
}
