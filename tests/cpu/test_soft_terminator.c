/* test_soft_terminator.c — soft shadows where the light grazes a curved mesh (issue 20's terminator
 * bug): every (point, sample) answer of the CPU backend against a double-precision ray truth that
 * shares nothing with izb_soft.h but the frame's matrices.
 *
 * The bug this catches: the receiver's depth bias applied along the light's CENTRE direction. For a
 * facet that faces slightly away from the centre while some samples are above its horizon, that
 * puts the point under its own surface, and its own facet (or, with primitive ids, a neighbour)
 * hides samples the truth's rays reach. The truth here starts each sample's ray at the receiver,
 * unbiased, and counts hits past tnear = bias / |grad key| along that ray (tools/oracle.c's
 * definition); izb_soft.h must give the same answers.
 *
 * Seeded: a UV sphere (6..14 rings, 8..24 segments, radius 0.5..1.2, so facets 7..45 degrees
 * apart) over a ground; one of its facets picked at random and the light's centre put within
 * 0.6 angle of that facet's horizon (angle 1..8 degrees, M 32 or 64, the light at least 10
 * degrees above the ground); the camera looks at that facet from 0..60 degrees off its normal,
 * 2..3 radii away; depth and primitive ids from ray_cast.h; frames with and without ids. An
 * answer is decided where the truth is sure: every crossing at least 2e-5 world units inside or
 * outside the triangle's edges and from tnear (the IZB computes in float: about 100 ulps at this
 * scale). Checked: no decided answer differs, and the seeds decide enough answers at pixels whose
 * facet has the light straddling its horizon (else the test proves nothing).
 * IZB_TERMINATOR_SEEDS=N runs N seeds. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "izb_mask.h"
#include "ray_cast.h"
#include "test.h"
#include "test_rng.h"
#include "view.h"

#define DEFAULT_SEEDS 16
#define MAX_TRIS (2 * 24 * 13 + 2)
#define W 32
#define H 24
#define MARGIN 2e-5
/* how far the IZB's float receiver may lie from the truth's (world units): a crossing's t moves by
 * that over |cos| of the ray's angle to the plane, which is large for a sample grazing a facet */
#define PERR 4e-6

typedef struct mesh {
    float xyz[9 * MAX_TRIS];
    double bc[MAX_TRIS][4]; /* each triangle's bounding sphere: centre, radius (a quick reject) */
    int nt, first_sphere;
    float bmin[3], bmax[3];
} mesh;

static void put_tri(mesh *g, const double a[3], const double b[3], const double c[3])
{
    float *o = g->xyz + 9 * g->nt;
    for (int k = 0; k < 3; k++)
        o[k] = (float)a[k], o[3 + k] = (float)b[k], o[6 + k] = (float)c[k];
    double *s = g->bc[g->nt++];
    s[3] = 0;
    for (int k = 0; k < 3; k++)
        s[k] = ((double)o[k] + o[3 + k] + o[6 + k]) / 3;
    for (int v = 0; v < 3; v++) {
        double d = 0;
        for (int k = 0; k < 3; k++)
            d += (o[3 * v + k] - s[k]) * (o[3 * v + k] - s[k]);
        s[3] = fmax(s[3], sqrt(d) * 1.001 + 1e-6);
    }
}

/* a ground and a closed UV sphere (rings x segs, shared vertices computed once: closed for
 * izb_closed, so culling auto culls its back faces) */
static void gen_mesh(mesh *g, const double c[3], double r, int rings, int segs)
{
    g->nt = 0;
    const double G = 6;
    const double q[4][3] = {{-G, 0, -G}, {-G, 0, G}, {G, 0, G}, {G, 0, -G}};
    put_tri(g, q[0], q[1], q[2]);
    put_tri(g, q[0], q[2], q[3]);
    g->first_sphere = g->nt;
    static double v[14 + 1][24][3];
    for (int i = 0; i <= rings; i++)
        for (int j = 0; j < segs; j++) {
            const double th = M_PI * i / rings, ph = 2 * M_PI * j / segs;
            v[i][j][0] = (float)(c[0] + r * sin(th) * cos(ph));
            v[i][j][1] = (float)(c[1] + r * cos(th));
            v[i][j][2] = (float)(c[2] + r * sin(th) * sin(ph));
        }
    for (int i = 0; i < rings; i++)
        for (int j = 0; j < segs; j++) {
            const int j1 = (j + 1) % segs;
            if (i > 0) put_tri(g, v[i][j], v[i][j1], v[i + 1][j]);
            if (i < rings - 1) put_tri(g, v[i][j1], v[i + 1][j1], v[i + 1][j]);
        }
    for (int k = 0; k < 3; k++)
        g->bmin[k] = INFINITY, g->bmax[k] = -INFINITY;
    for (int i = 0; i < 3 * g->nt; i++)
        for (int k = 0; k < 3; k++)
            g->bmin[k] = fminf(g->bmin[k], g->xyz[3 * i + k]),
            g->bmax[k] = fmaxf(g->bmax[k], g->xyz[3 * i + k]);
}

static void normal_of(const float *q, double n[3])
{
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++)
        e1[k] = (double)q[3 + k] - q[k], e2[k] = (double)q[6 + k] - q[k];
    n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2],
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    const double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++)
        n[k] /= l;
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* a random unit vector perpendicular to unit n */
static void perp(const double n[3], double u[3])
{
    double len;
    do {
        double r[3] = {rnd_in(-1, 1), rnd_in(-1, 1), rnd_in(-1, 1)};
        const double d = dot3(r, n);
        for (int k = 0; k < 3; k++)
            u[k] = r[k] - d * n[k];
        len = sqrt(dot3(u, u));
    } while (len < 0.1);
    for (int k = 0; k < 3; k++)
        u[k] /= len;
}

/* The ray p + t w (w unit) against triangle q: +1 sure hit past tnear, -1 sure not, 0 too close to
 * call (within MARGIN of an edge, within MARGIN + PERR / |cos| of tnear, or nearly parallel). */
static int ray_vs(const double p[3], const double w[3], double tnear, const float *q)
{
    double t, u, v;
    if (!ray_plane_bary(p, w, q, &t, &u, &v)) return 0;
    double e[3][3], len[3];
    for (int k = 0; k < 3; k++) {
        const int a = (k + 1) % 3, b = (k + 2) % 3; /* the edge opposite vertex k */
        len[k] = 0;
        for (int c = 0; c < 3; c++)
            e[k][c] = (double)q[3 * b + c] - q[3 * a + c], len[k] += e[k][c] * e[k][c];
        len[k] = sqrt(len[k]);
    }
    const double cx = e[2][1] * e[1][2] - e[2][2] * e[1][1], cy = e[2][2] * e[1][0] - e[2][0] * e[1][2],
                 cz = e[2][0] * e[1][1] - e[2][1] * e[1][0];
    const double area2 = sqrt(cx * cx + cy * cy + cz * cz);
    const double bw[3] = {1 - u - v, u, v};
    double in = INFINITY; /* the crossing's signed distance to the nearest edge, > 0 inside */
    for (int k = 0; k < 3; k++)
        in = fmin(in, len[k] > 0 ? bw[k] * area2 / len[k] : -INFINITY);
    const double cosang = fabs(cx * w[0] + cy * w[1] + cz * w[2]) / area2;
    const double mt = MARGIN + PERR / fmax(cosang, 1e-30);
    if (t < tnear - mt || in < -MARGIN) return -1;
    if (t > tnear + mt && in > MARGIN) return 1;
    return 0;
}

static long decided, decided_band, wrong, wrong_band;

static void run_seed(izb_backend *b, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!rng_state) rng_state = 1;
    static mesh g;
    const double r = rnd_in(0.5, 1.2), c[3] = {rnd_in(-1, 1), r + rnd_in(0.05, 0.5), rnd_in(-1, 1)};
    const int rings = 6 + (int)(rnd() * 9), segs = 8 + (int)(rnd() * 17);
    gen_mesh(&g, c, r, rings, segs);
    const double angle = rnd_in(1.0, 8.0) * M_PI / 180;
    /* a facet, and the light's centre (toward the light) within 0.6 angle of its horizon, from at
     * least 10 degrees above the ground */
    double n[3], to_light[3];
    int facet;
    for (;;) {
        facet = g.first_sphere + (int)(rnd() * (g.nt - g.first_sphere));
        normal_of(g.xyz + 9 * facet, n);
        const float *q = g.xyz + 9 * facet;
        const double out[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]};
        if (dot3(n, out) < 0) /* outward, whatever the winding: the camera looks at it from outside */
            for (int k = 0; k < 3; k++)
                n[k] = -n[k];
        double u[3];
        perp(n, u);
        const double e = rnd_in(-0.6, 0.6) * angle;
        for (int k = 0; k < 3; k++)
            to_light[k] = cos(e) * u[k] + sin(e) * n[k];
        if (to_light[1] > sin(10 * M_PI / 180)) break;
    }
    light l = {.type = LIGHT_DIRECTIONAL};
    for (int k = 0; k < 3; k++)
        l.dir[k] = (float)-to_light[k];
    /* the camera: 0..60 degrees off the facet's normal, 2..3 radii from its centroid */
    double fc[3], side[3], eye[3];
    for (int k = 0; k < 3; k++)
        fc[k] = ((double)g.xyz[9 * facet + k] + g.xyz[9 * facet + 3 + k] + g.xyz[9 * facet + 6 + k]) / 3;
    perp(n, side);
    const double off = rnd_in(0, 60) * M_PI / 180, dist = rnd_in(2, 3) * r;
    for (int k = 0; k < 3; k++)
        eye[k] = fc[k] + dist * (cos(off) * n[k] + sin(off) * side[k]);
    const double fw[3] = {fc[0] - eye[0], fc[1] - eye[1], fc[2] - eye[2]};
    const double fl = sqrt(dot3(fw, fw));
    camera cam = {.pos = {(float)eye[0], (float)eye[1], (float)eye[2]}, .fovy = (float)rnd_in(25, 45)};
    cam.pitch = (float)(asin(fw[1] / fl) * 180 / M_PI);
    cam.yaw = (float)(atan2(fw[0], -fw[2]) * 180 / M_PI);
    camera_fit_clip(&cam, g.bmin, g.bmax);
    izb_recon f = izb_frame_make(&cam, &l, g.bmin, g.bmax, W, H);
    f.light_angle = (float)angle;
    f.light_samples = rnd() < 0.5 ? 32 : 64;
    const int m = f.light_samples;
    static float depth[W * H];
    static uint32_t ids[W * H];
    ray_cast_depth(&cam, &f, g.xyz, g.nt, depth, ids);
    CHECK(izb_set_scene(b, g.xyz, g.nt), "seed %llu: set_scene", (unsigned long long)seed);

    /* the truth's sample directions, unit, toward the light: the light's axis (-row z of its
     * matrix) tilted along rows x and y by the golden spiral's offsets times tan(angle / 2), and
     * its tnear: the bias in key units over |grad key| */
    double A[3][3], nrm[3], dirs[IZB_MASK_MAX_BITS][3];
    for (int rr = 0; rr < 3; rr++) {
        nrm[rr] = 0;
        for (int k = 0; k < 3; k++)
            A[rr][k] = f.light[4 * k + rr], nrm[rr] += A[rr][k] * A[rr][k];
        nrm[rr] = sqrt(nrm[rr]);
    }
    const double th = tan(0.5 * angle), golden = M_PI * (3 - sqrt(5.0));
    for (int j = 0; j < m; j++) {
        const double rj = sqrt((j + 0.5) / m), ox = rj * cos(j * golden) * th, oy = rj * sin(j * golden) * th;
        double len = 0;
        for (int k = 0; k < 3; k++)
            dirs[j][k] = -A[2][k] / nrm[2] + ox * A[0][k] / nrm[0] + oy * A[1][k] / nrm[1],
            len += dirs[j][k] * dirs[j][k];
        for (int k = 0; k < 3; k++)
            dirs[j][k] /= sqrt(len);
    }
    const double tnear = (double)izb_settings_resolve((izb_settings){0}).bias / nrm[2];

    static int8_t truth[W * H][IZB_MASK_MAX_BITS]; /* +1 hidden, -1 lit, 0 undecided, per sample */
    static bool band[W * H], covered[W * H];
    for (int i = 0; i < W * H; i++) {
        covered[i] = ids[i] != IZB_NO_ID;
        if (!covered[i]) continue;
        double o[3], dir[3], p[3], pn[3];
        ray_of_pixel(&cam, &f, i % W, i / W, o, dir);
        for (int k = 0; k < 3; k++)
            p[k] = o[k] + depth[i] * dir[k];
        normal_of(g.xyz + 9 * (size_t)ids[i], pn);
        bool above = false, below = false;
        for (int j = 0; j < m; j++) {
            above |= dot3(pn, dirs[j]) > 0, below |= dot3(pn, dirs[j]) < 0;
            int verdict = -1;
            for (int t = 0; t < g.nt && verdict != 1; t++) {
                const double *s = g.bc[t], cp[3] = {s[0] - p[0], s[1] - p[1], s[2] - p[2]};
                const double tc = dot3(cp, dirs[j]);
                if (tc < -s[3] || dot3(cp, cp) - tc * tc > s[3] * s[3]) continue; /* misses its sphere */
                const int v = ray_vs(p, dirs[j], tnear, g.xyz + 9 * t);
                verdict = v == 1 ? 1 : v == 0 ? 0 : verdict;
            }
            truth[i][j] = (int8_t)verdict;
        }
        band[i] = above && below;
    }

    for (int with_ids = 0; with_ids < 2; with_ids++) {
        static uint8_t mask[W * H];
        izb_debug d;
        const bool ok =
            izb_shade_arrays_ids(b, &f, &(izb_settings){0}, depth, with_ids ? ids : NULL, mask, NULL) &&
            izb_get_debug(b, &d) && d.sample_masks && d.sample_bits == m;
        CHECK(ok, "seed %llu: the soft frame and its sample masks", (unsigned long long)seed);
        if (!ok) continue;
        static bool seen[W * H];
        memset(seen, 0, sizeof seen);
        int shown = 0;
        for (int k = 0; k < d.point_count; k++) {
            const uint32_t i = d.points[k].pixel;
            if (i >= W * H || !covered[i]) continue;
            seen[i] = true;
            const uint32_t *bits = d.sample_masks + (size_t)k * d.sample_words;
            for (int j = 0; j < m; j++) {
                if (!truth[i][j]) continue;
                const bool hidden = bits[j / 32] >> (j % 32) & 1;
                const bool bad = hidden != (truth[i][j] > 0);
                decided++, wrong += bad;
                decided_band += band[i], wrong_band += bad && band[i];
                if (bad && shown++ < 3)
                    fprintf(stderr,
                            "seed %llu (%s ids, %d x %d sphere, %.2f deg, M %d): pixel %u sample %d: IZB %s, "
                            "truth %s%s\n",
                            (unsigned long long)seed, with_ids ? "with" : "no", rings, segs,
                            angle * 180 / M_PI, m, i, j, hidden ? "hidden" : "lit",
                            truth[i][j] > 0 ? "hidden" : "lit",
                            band[i] ? " (the light straddles the facet's horizon)" : "");
            }
        }
        int missing = 0;
        for (int i = 0; i < W * H; i++)
            missing += covered[i] && !seen[i];
        CHECK(missing == 0, "seed %llu: %d covered pixels have no point", (unsigned long long)seed, missing);
    }
}

int main(void)
{
    const char *env = getenv("IZB_TERMINATOR_SEEDS");
    const int seeds = env ? atoi(env) : DEFAULT_SEEDS;
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 2, .quiet = true});
    CHECK(b != NULL, "CPU backend");
    if (!b) return test_done();
    for (int s = 1; s <= seeds; s++)
        run_seed(b, (uint64_t)s);
    izb_destroy(b);
    printf("%d seeds: %ld answers decided (%ld where the light straddles the facet's horizon), %ld wrong "
           "(%ld there)\n",
           seeds, decided, decided_band, wrong, wrong_band);
    CHECK(wrong == 0,
          "%ld of %ld decided answers differ from the ray truth (%ld of %ld in the terminator band)", wrong,
          decided, wrong_band, decided_band);
    CHECK(decided_band >= 1000 * (long)seeds, "only %ld decided answers in the terminator band",
          decided_band);
    return test_done();
}
