/* fuzz_izb.c — libFuzzer target: the IZB seam (izb.h) with the CPU backend. The input decodes to a
 * small frame (1..17 pixels a side), up to 8 triangles, a camera, a light (directional, spot or point,
 * anywhere, inside the scene too), settings and a depth image, every number drawn from a palette
 * that favours the awkward ones: NaN, +-Inf, +-0, denormals, +-FLT_MAX, 1e+-30, raw bit patterns;
 * triangles may repeat the previous one or a vertex.
 *
 * Invariant: the backend's mask equals the brute force of tests/izb_brute.h (izb_math.h's predicates
 * alone) — every pixel reconstructed, every sample point tested against every triangle, no grid, no
 * binning, no cell ranges — with the same culling decision per triangle (izb_may_cull over the
 * scene's closed components, izb_closed.h). Equal, not bounded: the inside test is exact at the
 * triangle's bbox (izb_tri_occludes rejects a point outside it), so where a sliver's two nearly
 * collinear edge functions both round to >= 0 far beyond a vertex (fuzzing found a point 0.6 past
 * one, 3e-8 off the long edge's line: tests/fuzz/regressions/izb), the brute force and the
 * backend, which tests only the cells covering the bbox, agree that it is lit. A directional light
 * may have an angular size (the input's last bytes): then the byte must equal the soft brute force
 * (izb_brute_force_soft: every point x triangle x light sample), or, for a size past the maximum
 * or a sample count not in the set, the frame must be refused. Then (the input's last bytes) the
 * triangles may be cut-outs (izb_set_cutouts): one alpha image of 1..8 x 1..8 texels from the input,
 * its wraps (an unknown one too) and cutoff from the palette (NaN, Inf, outside [0, 1]), per
 * triangle the image, opaque or a missing image, and UVs from the palette; the brute force applies
 * the same alpha test (izb_alpha.h; per light sample in soft frames). Then the frame may take N
 * sub-samples per pixel (anti-aliased edges, izb_aa.h): for N in {4, 8, 16, 32} on a directional
 * light without an angle the byte must equal izb_brute_force_aa (every point x triangle x
 * sub-sample, the footprints from the same depth; a cut-out's alpha test per sub-sample at its own
 * position, izb_aa_sample_keeps; for a point light's cube faces izb_brute_force_faces_aa_cut, each
 * face over its own pixels), and N = 2 or 64, or N > 1 with a light angle or a light size, must be
 * refused. Last (the input's last bytes) a spot may be an area light (izb_area.h: a size, M and
 * shape from the input): the byte must equal the brute force's for the area samples, or a bad size,
 * M or shape must be refused. And nothing may crash or read out of bounds (ASan, UBSan). */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "izb.h"
#include "izb_brute.h"
#include "izb_closed.h"
#include "izb_cutouts.h"
#include "view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_SIDE = 17, MAX_TRIS = 8 };

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint8_t next_u8(reader *r)
{
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

/* a float from the palette, or a small multiple of 1/16, or raw bits */
static float next_float(reader *r)
{
    const uint8_t b = next_u8(r);
    switch (b) {
    case 0:
        return 0.0f;
    case 1:
        return -0.0f;
    case 2:
        return NAN;
    case 3:
        return INFINITY;
    case 4:
        return -INFINITY;
    case 5:
        return FLT_MIN / 4.0f; /* denormal */
    case 6:
        return -FLT_MIN / 4.0f;
    case 7:
        return FLT_MAX;
    case 8:
        return -FLT_MAX;
    case 9:
        return 1e30f;
    case 10:
        return 1e-30f;
    case 11:
        return -1e30f;
    case 12: {
        uint32_t u = 0;
        for (int i = 0; i < 4; i++)
            u = u << 8 | next_u8(r);
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    default:
        return (float)((int)b - 134) / 16.0f; /* -7.6 .. 7.6 */
    }
}

/* a depth: mostly in front of the camera, sometimes the palette's worst */
static float next_depth(reader *r)
{
    const uint8_t b = next_u8(r);
    if (b < 64) return next_float(r);
    return (float)b / 16.0f; /* 4 .. 16 */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static izb_backend *b;
    if (!b) b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = 1, .quiet = true});
    FUZZ_ASSERT(b != NULL, "no CPU backend");
    reader r = {data, size};

    const int W = 1 + next_u8(&r) % MAX_SIDE, H = 1 + next_u8(&r) % MAX_SIDE;
    const int nt = next_u8(&r) % (MAX_TRIS + 1);
    float xyz[9 * MAX_TRIS];
    for (int t = 0; t < nt; t++) {
        const uint8_t how = next_u8(&r);
        if (t > 0 && how % 8 == 0) { /* a duplicate of the previous triangle */
            memcpy(xyz + 9 * t, xyz + 9 * (t - 1), 9 * sizeof(float));
            continue;
        }
        for (int k = 0; k < 9; k++)
            xyz[9 * t + k] = next_float(&r);
        if (how % 8 == 1) memcpy(xyz + 9 * t + 3, xyz + 9 * t, 3 * sizeof(float)); /* degenerate */
    }
    /* bounds: of the finite vertices, or straight from the input */
    float bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (next_u8(&r) % 4 == 0) {
        for (int k = 0; k < 3; k++)
            bmin[k] = next_float(&r), bmax[k] = next_float(&r);
    } else {
        for (int i = 0; i < 3 * nt; i++)
            for (int k = 0; k < 3; k++)
                if (isfinite(xyz[3 * i + k])) {
                    bmin[k] = fminf(bmin[k], xyz[3 * i + k]);
                    bmax[k] = fmaxf(bmax[k], xyz[3 * i + k]);
                }
        for (int k = 0; k < 3; k++)
            if (!(bmin[k] <= bmax[k])) bmin[k] = -1.0f, bmax[k] = 1.0f;
    }
    light l = {.type = next_u8(&r) % 2 ? LIGHT_SPOT : LIGHT_DIRECTIONAL};
    for (int k = 0; k < 3; k++)
        l.dir[k] = next_float(&r), l.pos[k] = next_float(&r);
    l.cone_deg = next_u8(&r) % 2 ? next_float(&r) : 60.0f;
    camera c = {.yaw = next_float(&r), .pitch = next_float(&r)};
    for (int k = 0; k < 3; k++)
        c.pos[k] = next_float(&r);
    if (next_u8(&r) % 2)
        camera_fit_clip(&c, bmin, bmax);
    else
        c.fovy = next_float(&r), c.near = next_float(&r), c.far = next_float(&r);
    const uint8_t flags = next_u8(&r);
    izb_settings s = {.kernel = flags & 1 ? IZB_KERNEL2 : IZB_KERNEL1,
                      .binning = flags & 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                      .cull = flags & 4 ? IZB_CULL_OFF : flags & 32 ? IZB_CULL_ON : IZB_CULL_AUTO,
                      .bias = flags & 8 ? next_float(&r) : 0.0f};
    if (flags & 16) s.grid_w = 1 + next_u8(&r) % 40, s.grid_h = 1 + next_u8(&r) % 40;
    if (flags & 64 && l.type == LIGHT_SPOT) l.type = LIGHT_POINT; /* six cube faces at l.pos */
    float depth[MAX_SIDE * MAX_SIDE];
    for (int i = 0; i < W * H; i++)
        depth[i] = next_depth(&r);
    /* the light's angular size (soft shadows, izb_soft.h): read last, so older inputs stay hard */
    const uint8_t soft = next_u8(&r);
    if (soft & 1) {
        static const int sample_counts[6] = {16, 32, 64, 128, 256, 48}; /* 48: refused */
        l.angle_deg = soft & 2 ? next_float(&r) : (float)(next_u8(&r) % 21);
        l.samples = sample_counts[next_u8(&r) % 6];
    }
    /* cut-outs: read after the soft bytes, so older inputs stay opaque */
    const bool cut = next_u8(&r) & 1;
    uint8_t alpha[64];
    float uv[6 * MAX_TRIS];
    uint32_t image_of[MAX_TRIS];
    izb_alpha_image img = {.alpha = alpha, .width = 1 + next_u8(&r) % 8, .height = 1 + next_u8(&r) % 8};
    if (cut) {
        img.wrap_u = (izb_wrap)(next_u8(&r) % (IZB_WRAP_COUNT + 1)); /* IZB_WRAP_COUNT: unknown */
        img.wrap_v = (izb_wrap)(next_u8(&r) % (IZB_WRAP_COUNT + 1));
        img.cutoff = next_u8(&r) % 2 ? next_float(&r) : 0.5f;
        /* the texels, as next_u8 would read them (0 past the input's end) */
        const size_t texels = (size_t)(img.width * img.height), take = r.n < texels ? r.n : texels;
        memset(alpha, 0, sizeof alpha);
        memcpy(alpha, r.p, take);
        r.p += take, r.n -= take;
        for (int t = 0; t < nt; t++) {
            const uint8_t k = next_u8(&r) % 3;
            image_of[t] = k == 0 ? 0u : k == 1 ? IZB_OPAQUE : 1u; /* 1: no such image */
            for (int i = 0; i < 6; i++)
                uv[6 * t + i] = next_float(&r);
        }
    }
    const izb_cutouts co = {.images = &img, .image_count = 1, .uv = uv, .image_of = image_of, .tri_count = nt};
    /* sub-samples per pixel: read after the cut-out bytes, so older inputs keep one */
    static const int aa_counts[8] = {0, 1, 4, 8, 16, 32, 2, 64}; /* 2, 64: refused */
    const uint8_t aa = next_u8(&r);
    const int shadow_samples = aa & 1 ? aa_counts[(aa >> 1) % 8] : 0;
    /* an area light (a spot with a size, izb_area.h): read after the sub-sample byte, so older inputs
     * stay as they were; sizes from the palette (NaN, Inf, negative, huge: refused) or small multiples of
     * 1/8, M 48 and shape 2 refused */
    const uint8_t area = next_u8(&r);
    if ((area & 1) && l.type == LIGHT_SPOT) {
        static const int sample_counts[6] = {16, 32, 64, 128, 256, 48};
        for (int k = 0; k < 2; k++)
            l.size[k] = area & 2 ? next_float(&r) : (float)(next_u8(&r) % 32) / 8.0f;
        l.samples = sample_counts[next_u8(&r) % 6];
        l.shape = next_u8(&r) % 3;
    }

    FUZZ_ASSERT(izb_set_scene(b, xyz, nt), "set_scene with %d triangles", nt);
    izb_cutout_set cset = {0};
    if (cut) {
        FUZZ_ASSERT(izb_set_cutouts(b, &co), "set_cutouts for %d triangles", nt);
        FUZZ_ASSERT(izb_cutout_set_build(&cset, &co, nt, "fuzz_izb"), "the brute force's cut-out set");
    }
    izb_recon faces[LIGHT_CUBE_FACES];
    const int count = izb_frame_make_faces(&c, &l, bmin, bmax, W, H, faces);
    for (int i = 0; i < count; i++)
        faces[i].shadow_samples = shadow_samples;
    uint8_t mask[MAX_SIDE * MAX_SIDE], want[MAX_SIDE * MAX_SIDE], scratch[MAX_SIDE * MAX_SIDE];
    izb_stats st;
    const izb_recon f = faces[0]; /* soft frames are directional, area frames spots: one face */
    const bool soft_frame = f.light_angle > 0.0f || izb_area_on(&f);
    /* soft: past the maximum, M not in the set, not directional; area: a bad size, M or shape;
     * anti-aliased: N not in the set, with a light angle or size */
    if ((f.light_angle > 0.0f && !izb_soft_frame_ok(&f)) || !izb_area_frame_ok(&f) || !izb_aa_frame_ok(&f)) {
        FUZZ_ASSERT(!izb_shade_arrays_faces(b, faces, count, &s, depth, NULL, mask, scratch, &st),
                    "a bad frame (%g rad, size %g x %g, shape %d, M %d, N %d) accepted", (double)f.light_angle,
                    (double)f.light_size[0], (double)f.light_size[1], f.light_disk, f.light_samples,
                    f.shadow_samples);
        izb_cutout_set_free(&cset);
        return 0;
    }
    FUZZ_ASSERT(izb_shade_arrays_faces(b, faces, count, &s, depth, NULL, mask, scratch, &st), "shade_arrays %dx%d",
                W, H);

    /* the brute force sees what the backend sees: the resolved settings' bias in the frame; a point
     * light's faces as a partition (each pixel shaded by the face izb_face_owner gives it), as
     * izb_shade_arrays_faces promises */
    const izb_settings rs = izb_settings_resolve(s);
    izb_point pts[MAX_SIDE * MAX_SIDE];
    int pix[MAX_SIDE * MAX_SIDE];
    /* the culling decision of izb_set_scene + the backend: closed components, the light's origin */
    izb_closed closed;
    FUZZ_ASSERT(izb_closed_find(xyz, nt, &closed), "closed-mesh analysis of %d triangles", nt);
    izb_recon fb[LIGHT_CUBE_FACES];
    for (int i = 0; i < count; i++)
        fb[i] = faces[i], fb[i].bias = rs.bias;
    izb_cull_view cv = {.mode = rs.cull, .comp = closed.comp, .boxes = closed.boxes,
                        .light_is_spot = fb[0].light_is_spot, .light_reach = izb_area_reach(&fb[0])};
    if (fb[0].light_is_spot) izb_light_origin(fb[0].light, cv.light_origin);
    if (count > 1 && fb[0].shadow_samples > 1) { /* a point light's anti-aliased faces: the byte */
        float face_depth[MAX_SIDE * MAX_SIDE];
        izb_brute_force_faces_aa_cut(fb, count, depth, NULL, xyz, nt, &cv, true, &cset, want, pts, pix, face_depth,
                                     scratch);
    } else if (count > 1) {
        float face_depth[MAX_SIDE * MAX_SIDE];
        izb_brute_force_faces_cut(fb, count, depth, NULL, xyz, nt, &cv, &cset, want, pts, pix, face_depth, scratch);
    } else if (soft_frame) { /* soft (angle or area): the byte itself, the lit fraction, must be equal */
        izb_brute_force_soft_cut(&fb[0], depth, NULL, xyz, nt, &cv, true, &cset, want, pts, pix);
    } else if (fb[0].shadow_samples > 1) { /* anti-aliased: the byte, the sub-samples' lit fraction */
        izb_brute_force_aa_cut(&fb[0], depth, NULL, xyz, nt, &cv, true, &cset, want, pts, pix);
    } else {
        izb_brute_force_cut(&fb[0], depth, NULL, xyz, nt, &cv, &cset, want, pts, pix);
    }
    izb_closed_free(&closed);
    izb_cutout_set_free(&cset);
    const bool bytes = soft_frame || f.shadow_samples > 1; /* a lit fraction, not two values */
    for (int i = 0; i < W * H; i++)
        FUZZ_ASSERT(bytes ? mask[i] == want[i] : (mask[i] == 0) == (want[i] == 0),
                    "pixel %d (%d, %d) of %dx%d (cull %s, light angle %g rad, size %g x %g, M %d, N %d): backend %d, "
                    "brute force %d", i, i % W, i / W, W, H, izb_cull_names[rs.cull], (double)f.light_angle,
                    (double)f.light_size[0], (double)f.light_size[1], f.light_samples, f.shadow_samples, mask[i],
                    want[i]);
    /* every point belongs to one face, a point light's too: the points are the sampled pixels, each
     * once (a seam point counted by two faces, or lost by both, fails); a triangle is set up at most
     * once per face */
    int sampled = 0;
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            const float d = depth[py * W + px];
            float vx, vy, vz;
            izb_view_point(&fb[0], px, py, d, &vx, &vy, &vz);
            izb_recon fo = fb[count > 1 ? izb_face_owner(fb, count, vx, vy, vz) : 0];
            if (count > 1) fo.light_is_spot = IZB_LIGHT_CUBE;
            izb_point p;
            sampled += izb_reconstruct(&fo, px, py, d, &p) == IZB_SAMPLE;
        }
    FUZZ_ASSERT(st.points == sampled && st.tris_after_cull <= count * nt,
                "stats: %d points (%d sampled pixels), %d tris (%d faces)", st.points, sampled, st.tris_after_cull,
                count);
    return 0;
}
