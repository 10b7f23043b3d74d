/* test_cpu_point.c — a point light's six cube faces as one mask (izb_frame_make_faces +
 * izb_shade_arrays_faces) on the CPU backend, in random rooms: a closed box seen from inside, the
 * light and the camera inside it, random closed cubes and open quads between them. Per seed:
 * - coverage: the room alone is lit everywhere the camera sees (a gap or a wrong face in the cube —
 *   a face narrower than 90 degrees, an axis missing — leaves unlit pixels);
 * - the backend equals the brute force of izb_math.h per face, each pixel taken from the face
 *   izb_face_owner gives it, bit for bit, for kernel 1/2 x radix/atomic x cull auto/off, with and
 *   without primitive ids;
 * - the ray-traced truth, independent of izb_math.h (double segment tests to the light, tests/
 *   ray_cast.h): every pixel the truth is sure of (not within a band of the bias or of a triangle's
 *   edge) agrees, and many of those lie at the seams between faces (no seam may show).
 * - the same through izb_shade_arrays_faces' path for backends without a partition of their own
 *   (one array pass per face, the other faces' pixels sky; the CPU backend behind core/izb.c's
 *   fault-injection wrapper), on 4 of the configurations: CUDA's frames take that path;
 * - stats: every sample point counted once (in the face izb_face_owner gives it);
 * - the seam rule's tie, made systematic (tie_case): two faces with the same w row and opposite
 *   depth orders, in both orders, on both paths, against the brute force;
 * - the frames after an izb_update_scene and after the light moved (moved_case) against the brute
 *   force: culling's face marks, kept between frames, must not outlive what they were made of.
 * The light inside a closed mesh (the room, inward or outward) also checks that culling auto keeps
 * its faces. */
#include "izb.h"
#include "izb_closed.h"
#include "view.h"

#include "../izb_brute.h"
#include "../ray_cast.h"
#include "../test.h"
#include "../test_rng.h"

#include <stdlib.h>
#include <string.h>

#define W 96
#define H 64
#define MAX_TRIS 512
#define SEEDS 24

#include "../room_gen.h"

static double dist3(const double a[3], const float b[3])
{
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* A room of half size R around the origin, the light and camera inside, `objects` occluders. */
static void gen_room(room *r, int objects)
{
    memset(r, 0, sizeof *r);
    const double R = rnd_in(4, 8);
    const double id[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, zero[3] = {0, 0, 0}, half[3] = {R, 0.6 * R, R};
    /* inward, as a room should be, or outward, as a modeller's box often is: then every wall faces
     * away from the light inside, and culling auto must still keep them (the light is inside) */
    add_box(r, zero, half, id, rnd() < 0.5);
    r->light = (light){.type = LIGHT_POINT, .dir = {0, -1, 0}};
    for (int k = 0; k < 3; k++)
        r->light.pos[k] = (float)rnd_in(-0.6 * half[k], 0.6 * half[k]);
    if (objects > 0 && rnd() < 0.25) { /* the light shut in a closed cube: culling auto must keep it */
        double c[3], h[3], rot[3][3];
        rand_rotation(rot);
        for (int k = 0; k < 3; k++)
            h[k] = rnd_in(0.08, 0.2) * R, c[k] = r->light.pos[k] + rnd_in(-0.5, 0.5) * h[k] / sqrt(3.0);
        add_box(r, c, h, rot, false);
    }
    for (int i = 0; i < objects; i++) {
        double c[3], h[3], rot[3][3];
        do
            for (int k = 0; k < 3; k++)
                c[k] = rnd_in(-0.85 * half[k], 0.85 * half[k]);
        while (dist3(c, r->light.pos) < 0.35 * R);
        rand_rotation(rot);
        if (i == 0 || rnd() < 0.6) { /* a closed cube (at least one) */
            for (int k = 0; k < 3; k++)
                h[k] = rnd_in(0.03, 0.12) * R;
            add_box(r, c, h, rot, false);
        } else { /* an open quad: one face of a flat box */
            const double a = rnd_in(0.05, 0.2) * R, b = rnd_in(0.05, 0.2) * R; /* (a, then b: one draw order) */
            add_quad(r, c, a, b, rot);
        }
    }
    for (int k = 0; k < 3; k++)
        r->bmin[k] = (float)-half[k], r->bmax[k] = (float)half[k];
    r->cam = (camera){.fovy = (float)rnd_in(60, 100), .yaw = (float)rnd_in(-180, 180),
                      .pitch = (float)rnd_in(-60, 60)};
    for (int k = 0; k < 3; k++)
        r->cam.pos[k] = (float)rnd_in(-0.8 * half[k], 0.8 * half[k]);
    camera_fit_clip(&r->cam, r->bmin, r->bmax);
}

/* The truth at pixel i: 0 sure in shadow, 255 sure lit, 1 not sure (the segment from the point to
 * the light meets a triangle between 1e-5 and 2e-3 of the way — about the depth bias, 2e-4 — or
 * passes within 1e-4 (barycentric) of a triangle's edge). own: the pixel's triangle, never its own
 * occluder. */
static int truth_at(const room *r, const izb_recon *f, const float *depth, int px, int py, uint32_t own)
{
    double o[3], dir[3], p[3], seg[3];
    ray_of_pixel(&r->cam, f, px, py, o, dir);
    const double d = depth[py * f->width + px];
    for (int k = 0; k < 3; k++) {
        p[k] = o[k] + d * dir[k];
        seg[k] = r->light.pos[k] - p[k];
    }
    bool unsure = false;
    for (int i = 0; i < r->nt; i++) {
        if ((uint32_t)i == own) continue;
        double t, u, v;
        if (!ray_plane_bary(p, seg, r->xyz + 9 * i, &t, &u, &v)) continue;
        const double in = fmin(fmin(u, v), 1 - u - v); /* > 0 inside, < 0 outside */
        if (t > 2e-3 && t < 1 - 1e-4 && in > 1e-4) return 0;
        /* nearer than 1e-5 of the way: the point's own surface, which the bias (2e-4 of the
         * distance) always skips */
        if (t > 1e-5 && t < 1 + 1e-4 && in > -1e-4) unsure = true;
    }
    return unsure ? 1 : 255;
}

/* Is the direction from the light to pixel i's point within 2 degrees of a seam between faces
 * (its two largest components nearly equal in size)? */
static bool near_seam(const room *r, const izb_recon *f, const float *depth, int px, int py)
{
    double o[3], dir[3], a[3];
    ray_of_pixel(&r->cam, f, px, py, o, dir);
    const double d = depth[py * f->width + px];
    for (int k = 0; k < 3; k++)
        a[k] = fabs(o[k] + d * dir[k] - r->light.pos[k]);
    double hi = fmax(fmax(a[0], a[1]), a[2]), mid = a[0] + a[1] + a[2] - hi - fmin(fmin(a[0], a[1]), a[2]);
    return mid > hi * tan(43.0 * M_PI / 180);
}

/* the brute force of the partition: each pixel shaded by the face izb_face_owner gives it, and by
 * that face alone (what izb_shade_arrays_faces promises) */
static void brute_faces(const izb_recon *faces, int count, const float *depth, const uint32_t *ids, const room *r,
                        const izb_closed *cl, izb_cull mode, uint8_t *mask)
{
    static izb_point pts[W * H];
    static int pix[W * H];
    static uint8_t face_mask[W * H];
    static float face_depth[W * H];
    const izb_settings rs = izb_settings_resolve((izb_settings){.cull = mode});
    izb_recon f[LIGHT_CUBE_FACES];
    for (int i = 0; i < count; i++)
        f[i] = faces[i], f[i].bias = rs.bias;
    izb_cull_view cv = {.mode = rs.cull, .comp = cl->comp, .boxes = cl->boxes, .light_is_spot = IZB_LIGHT_CUBE};
    izb_light_origin(f[0].light, cv.light_origin);
    izb_brute_force_faces(f, count, depth, ids, r->xyz, r->nt, &cv, mask, pts, pix, face_depth, face_mask);
}

static int ties_decided; /* seeds where the tie's order changed the mask */
static long moved_shadowed; /* moved_case's shadowed pixels after the update: the clusters must cast some */

static int count_diff(const uint8_t *a, const uint8_t *b)
{
    int n = 0;
    for (int i = 0; i < W * H; i++)
        n += (a[i] == 0) != (b[i] == 0);
    return n;
}

/* The sample points the frame has: sky and points behind the light excluded, each point once, in
 * the face izb_face_owner gives it (what izb_stats.points must say). */
static int owned_samples(const izb_recon *faces, int count, const float *depth)
{
    int n = 0;
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            const float d = depth[py * W + px];
            float vx, vy, vz;
            izb_view_point(&faces[0], px, py, d, &vx, &vy, &vz);
            izb_recon f = faces[izb_face_owner(faces, count, vx, vy, vz)];
            f.light_is_spot = IZB_LIGHT_CUBE;
            izb_point p;
            n += izb_reconstruct(&f, px, py, d, &p) == IZB_SAMPLE;
        }
    return n;
}

/* The seam rule's tie, made systematic: face 1 is face 0 with its depth key's row negated (the same
 * w row, so every point ties, and the opposite depth order, so the face that takes a point changes
 * its answer). Lowest index wins: {A, A'} must be A's answers and {A', A} A''s, on the backend's own
 * partition (b) and on the path through one array pass per face (g); and the two must differ, or
 * the tie decided nothing. */
static void tie_case(izb_backend *b, izb_backend *g, const room *r, const izb_recon *face, const float *depth,
                     int seed)
{
    static uint8_t m[4][W * H], brute[W * H], scratch[W * H];
    izb_recon pair[2][2];
    izb_recon neg = *face;
    for (int k = 0; k < 4; k++)
        neg.light[4 * k + 2] = -neg.light[4 * k + 2], neg.cam_to_light[4 * k + 2] = -neg.cam_to_light[4 * k + 2];
    pair[0][0] = *face, pair[0][1] = neg, pair[1][0] = neg, pair[1][1] = *face;
    izb_closed none = {0};
    for (int o = 0; o < 2; o++) {
        izb_stats st = {0};
        CHECK(izb_shade_arrays_faces(b, pair[o], 2, &(izb_settings){.cull = IZB_CULL_OFF}, depth, NULL, m[o], scratch,
                                     &st) &&
                  izb_shade_arrays_faces(g, pair[o], 2, &(izb_settings){.cull = IZB_CULL_OFF}, depth, NULL, m[2 + o],
                                         scratch, NULL),
              "seed %d tie %d: shade", seed, o);
        brute_faces(pair[o], 2, depth, NULL, r, &none, IZB_CULL_OFF, brute);
        CHECK(count_diff(m[o], brute) == 0 && count_diff(m[2 + o], brute) == 0,
              "seed %d: a tie between faces taken by the wrong one (order %d: %d, %d pixels differ)", seed, o,
              count_diff(m[o], brute), count_diff(m[2 + o], brute));
        CHECK(st.points == owned_samples(pair[o], 2, depth), "seed %d tie %d: %d points, %d owned samples", seed, o,
              st.points, owned_samples(pair[o], 2, depth));
    }
    ties_decided += count_diff(m[0], m[1]) > 0;
}

/* Culling's face marks are kept from frame to frame while the scene, the faces' w rows and the
 * margin hold (cpu/faces.c's mark_reach). A scene made to show stale marks: the room's walls and
 * six clusters of 32 separate small triangles near the light, one along each axis (so every bundle
 * of 16 triangles inside a cluster is marked for that cluster's face alone), with big shadows on
 * the walls. An izb_update_scene moves each cluster to the next axis (separate triangles: any
 * motion keeps the connectivity; the walls, hence the vertices' largest coordinate and the margin,
 * kept), then the light moves; each frame must equal the brute force. Stale marks would skip the
 * clusters in the faces they now shadow. */
#define CLUSTER 32
static void moved_case(izb_backend *b, const room *r, const izb_recon *faces, int count, int seed)
{
    static room m;
    static float depth[W * H];
    static uint32_t ids[W * H];
    static uint8_t mask[W * H], scratch[W * H], brute[W * H];
    const izb_settings off = {.cull = IZB_CULL_OFF};
    izb_closed none = {0};
    m = *r;
    m.nt = 0;
    const double *lp = (double[3]){r->light.pos[0], r->light.pos[1], r->light.pos[2]};
    const double R = r->bmax[0], dist = 0.12 * R, size = 0.04 * R;
    double jitter[6][CLUSTER][3][3];
    for (int c = 0; c < 6; c++)
        for (int t = 0; t < CLUSTER; t++)
            for (int q = 0; q < 3; q++)
                for (int k = 0; k < 3; k++)
                    jitter[c][t][q][k] = rnd_in(-size, size);
    for (int pass = 0; pass < 2; pass++) { /* pass 1: cluster c at axis c + 1 */
        m.nt = 0;
        for (int c = 0; c < 6; c++) {
            const int a = (c + pass) % 6; /* axis a / 2, sign a % 2 */
            for (int t = 0; t < CLUSTER; t++) {
                double v[3][3];
                for (int q = 0; q < 3; q++)
                    for (int k = 0; k < 3; k++)
                        v[q][k] = lp[k] + (k == a / 2 ? (a % 2 ? -dist : dist) : 0.0) + jitter[c][t][q][k];
                add_tri(&m, v[0], v[1], v[2]);
            }
        }
        for (int i = 0; i < 12; i++) { /* the room's walls: gen_room adds them first */
            const float *w = r->xyz + 9 * i;
            add_tri(&m, (double[3]){w[0], w[1], w[2]}, (double[3]){w[3], w[4], w[5]}, (double[3]){w[6], w[7], w[8]});
        }
        CHECK(pass ? izb_update_scene(b, m.xyz, m.nt) : izb_set_scene(b, m.xyz, m.nt), "seed %d: scene %d", seed,
              pass);
        ray_cast_depth(&m.cam, &faces[0], m.xyz, m.nt, depth, ids);
        CHECK(izb_shade_arrays_faces(b, faces, count, &off, depth, NULL, mask, scratch, NULL), "seed %d: shade %d",
              seed, pass);
        brute_faces(faces, count, depth, NULL, &m, &none, IZB_CULL_OFF, brute);
        CHECK(count_diff(mask, brute) == 0, "seed %d: clusters %s: %d pixels differ from the brute force", seed,
              pass ? "moved by izb_update_scene" : "set", count_diff(mask, brute));
        for (int i = 0; pass && i < W * H; i++)
            moved_shadowed += depth[i] > 0 && brute[i] == 0;
    }
    izb_recon moved[LIGHT_CUBE_FACES];
    for (int k = 0; k < 3; k++) /* the light moved, the scene and the camera kept */
        m.light.pos[k] += (float)rnd_in(-0.15 * R, 0.15 * R);
    const int n = izb_frame_make_faces(&m.cam, &m.light, m.bmin, m.bmax, W, H, moved);
    CHECK(izb_shade_arrays_faces(b, moved, n, &off, depth, NULL, mask, scratch, NULL), "seed %d: light moved", seed);
    brute_faces(moved, n, depth, NULL, &m, &none, IZB_CULL_OFF, brute);
    CHECK(count_diff(mask, brute) == 0, "seed %d: the light moved: %d pixels differ from the brute force", seed,
          count_diff(mask, brute));
}

/* A smaller frame of the same light right after frames of W x H on the same backend: the backend
 * keeps each light's samples per chunk and face to place the next frame's without a count pass
 * (cpu/faces.c), and counts of a larger frame's chunks would give places past a small chunk's room.
 * The mask must equal the brute force. */
static void resized_case(izb_backend *b, const room *r, int seed)
{
    static float depth[W * H];
    static uint32_t ids[W * H];
    static uint8_t mask[W * H], scratch[W * H], brute[W * H];
    const int w = W / 2 + 8 * (seed % 3), h = H / 2 + 5 * (seed % 4); /* rows per chunk: 2 or 3, not 4 */
    izb_recon f[LIGHT_CUBE_FACES];
    const int n = izb_frame_make_faces(&r->cam, &r->light, r->bmin, r->bmax, w, h, f);
    ray_cast_depth(&r->cam, &f[0], r->xyz, r->nt, depth, ids);
    memset(mask, 0, sizeof mask), memset(brute, 0, sizeof brute); /* the pixels past w * h: equal */
    izb_closed none = {0};
    CHECK(izb_shade_arrays_faces(b, f, n, &(izb_settings){.cull = IZB_CULL_OFF}, depth, NULL, mask, scratch, NULL),
          "seed %d: %dx%d", seed, w, h);
    brute_faces(f, n, depth, NULL, r, &none, IZB_CULL_OFF, brute);
    CHECK(count_diff(mask, brute) == 0, "seed %d: %dx%d after %dx%d: %d pixels differ from the brute force", seed, w,
          h, W, H, count_diff(mask, brute));
}

int main(void)
{
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 2});
    CHECK(b != NULL, "CPU backend");
    if (!b) return test_done();
    /* the same CPU backend seen through the fault-injection wrapper (core/izb.c), which has no
     * shade_faces of its own: izb_shade_arrays_faces then runs the path every other backend (CUDA)
     * takes, one array pass per face with the other faces' pixels sky — it must give the same bits */
    setenv("IZB_FAULT", "frame:2000000000", 1);
    izb_backend *g = izb_create(&(izb_desc){.backend = IZB_BACKEND_AUTO, .threads = 2, .quiet = true});
    unsetenv("IZB_FAULT");
    CHECK(g != NULL && strcmp(izb_name(g), "cpu") != 0, "the wrapped backend (%s)", g ? izb_name(g) : "none");
    if (!g) return test_done();
    static room r;
    static float depth[W * H];
    static uint32_t ids[W * H];
    static uint8_t mask[W * H], scratch[W * H], brute[W * H], passes[W * H];
    long sure = 0, seam_sure = 0, covered = 0;
    for (int seed = 0; seed < SEEDS; seed++) {
        rng_state = 0x9E3779B97F4A7C15ull ^ (uint64_t)(seed + 1) * 0xBF58476D1CE4E5B9ull;
        /* coverage: the room alone, lit everywhere */
        gen_room(&r, 0);
        izb_recon faces[LIGHT_CUBE_FACES];
        int count = izb_frame_make_faces(&r.cam, &r.light, r.bmin, r.bmax, W, H, faces);
        CHECK(count == LIGHT_CUBE_FACES, "a point light has %d faces", count);
        ray_cast_depth(&r.cam, &faces[0], r.xyz, r.nt, depth, ids);
        CHECK(izb_set_scene(b, r.xyz, r.nt), "seed %d: set_scene", seed);
        CHECK(izb_shade_arrays_faces(b, faces, count, &(izb_settings){.cull = IZB_CULL_OFF}, depth, NULL, mask,
                                     scratch, NULL),
              "seed %d: shade", seed);
        int unlit = 0;
        for (int i = 0; i < W * H; i++)
            unlit += depth[i] > 0 && mask[i] == 0;
        CHECK(unlit == 0, "seed %d: the empty room has %d unlit pixels (a gap between cube faces)", seed, unlit);

        /* the room with occluders */
        gen_room(&r, 6 + seed % 8);
        count = izb_frame_make_faces(&r.cam, &r.light, r.bmin, r.bmax, W, H, faces);
        ray_cast_depth(&r.cam, &faces[0], r.xyz, r.nt, depth, ids);
        CHECK(izb_set_scene(b, r.xyz, r.nt) && izb_set_scene(g, r.xyz, r.nt), "seed %d: set_scene", seed);
        izb_closed cl = {0};
        izb_closed_find(r.xyz, r.nt, &cl);
        CHECK(cl.cullable > 0, "seed %d: the room and cubes are closed (%d cullable)", seed, cl.cullable);
        for (int cfg = 0; cfg < 16; cfg++) {
            const izb_settings s = {.kernel = cfg & 1 ? IZB_KERNEL2 : IZB_KERNEL1,
                                    .binning = cfg & 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                                    .cull = cfg & 4 ? IZB_CULL_OFF : IZB_CULL_AUTO};
            const uint32_t *pid = cfg & 8 ? ids : NULL;
            izb_stats st = {0};
            /* the path of one pass per face on 4 of the 16 configurations (each of kernel, binning, cull
             * and ids both ways): its passes are many small parallel regions */
            const bool paths = cfg % 5 == 0;
            CHECK(izb_shade_arrays_faces(b, faces, count, &s, depth, pid, mask, scratch, &st) &&
                      (!paths || izb_shade_arrays_faces(g, faces, count, &s, depth, pid, passes, scratch, NULL)),
                  "seed %d cfg %d", seed, cfg);
            brute_faces(faces, count, depth, pid, &r, &cl, s.cull, brute);
            const int nb = count_diff(mask, brute), ng = paths ? count_diff(passes, brute) : 0;
            CHECK(nb == 0, "seed %d cfg %d: %d pixels differ from the brute force", seed, cfg, nb);
            CHECK(ng == 0, "seed %d cfg %d: one pass per face: %d pixels differ from the brute force", seed, cfg, ng);
            if (cfg == 0)
                CHECK(st.points == owned_samples(faces, count, depth), "seed %d: %d points, %d samples (each once)",
                      seed, st.points, owned_samples(faces, count, depth));
            int wrong = 0;
            for (int py = 0; py < H; py++)
                for (int px = 0; px < W; px++) {
                    const int i = py * W + px;
                    if (!(depth[i] > 0)) continue;
                    const int t = truth_at(&r, &faces[0], depth, px, py, pid ? ids[i] : IZB_NO_ID);
                    if (cfg == 0) covered++;
                    if (t == 1) continue;
                    if (cfg == 0) {
                        sure++;
                        seam_sure += near_seam(&r, &faces[0], depth, px, py);
                    }
                    if ((t == 0) != (mask[i] == 0)) {
                        if (wrong++ == 0)
                            fprintf(stderr, "seed %d cfg %d: pixel (%d, %d): truth %s, IZB %s\n", seed, cfg, px, py,
                                    t == 0 ? "shadow" : "lit", mask[i] == 0 ? "shadow" : "lit");
                    }
                }
            CHECK(wrong == 0, "seed %d cfg %d: %d pixels disagree with the ray-traced truth", seed, cfg, wrong);
        }
        izb_closed_free(&cl);
        if (seed == 0) { /* bad input: more cube faces than a cube has, a light angle on a face */
            izb_recon seven[LIGHT_CUBE_FACES + 1];
            for (int i = 0; i < LIGHT_CUBE_FACES + 1; i++)
                seven[i] = faces[i % count];
            CHECK(!izb_shade_arrays_faces(b, seven, LIGHT_CUBE_FACES + 1, NULL, depth, NULL, mask, scratch, NULL),
                  "7 cube faces accepted");
            seven[2].light_angle = 0.01f, seven[2].light_samples = 32;
            CHECK(!izb_shade_arrays_faces(b, seven, count, NULL, depth, NULL, mask, scratch, NULL),
                  "a cube face with a light angle accepted");
        }
        /* the tie rule, on this room without culling (the same triangles in both orders) */
        tie_case(b, g, &r, &faces[seed % count], depth, seed);
        resized_case(b, &r, seed);
        if (seed % 3 == 0) moved_case(b, &r, faces, count, seed); /* 8 of the seeds: ~0.1 s each */
    }
    CHECK(moved_shadowed > (SEEDS / 3) * W * H / 20, "the moved clusters shadow only %ld pixels", moved_shadowed);
    CHECK(ties_decided > SEEDS / 2, "the tie's order changed the mask in only %d of %d rooms", ties_decided, SEEDS);
    /* the truth must be sure of most pixels, and of many at the seams, or the test proves little */
    CHECK(sure > 0.9 * covered, "the truth is sure of %ld of %ld covered pixels", sure, covered);
    CHECK(seam_sure > 200, "only %ld sure pixels within 2 degrees of a seam", seam_sure);
    printf("%ld covered pixels, truth sure of %ld, %ld of them at seams\n", covered, sure, seam_sure);
    izb_destroy(b);
    izb_destroy(g);
    return test_done();
}
