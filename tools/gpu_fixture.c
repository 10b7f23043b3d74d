/* gpu_fixture.c — see gpu_fixture.h. */
#include "gpu_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "depth_raster.h"
#include "izb_cuda_stages.h"
#include "scene.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

double frand(double lo, double hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

void fixture_require_device(const char *test)
{
    const char *why = "";
    if (!izb_cuda_available(&why)) { /* 77: what Meson counts as skipped */
        fprintf(stderr, "SKIP: %s: no CUDA device answers (%s)\n", test, why);
        exit(77);
    }
}

static void set_lights(fixture *f, const float dir[3], const float spot_pos[3])
{
    memset(&f->sun, 0, sizeof f->sun);
    memset(&f->spot, 0, sizeof f->spot);
    f->sun.type = LIGHT_DIRECTIONAL;
    f->spot.type = LIGHT_SPOT;
    for (int k = 0; k < 3; k++) {
        f->sun.dir[k] = f->spot.dir[k] = dir[k];
        f->spot.pos[k] = spot_pos[k];
    }
    f->spot.cone_deg = 50.0f; /* narrower than the scene: some pixels are outside the cone */
}

bool fixture_builtin(fixture *f, const char *name, long tri_target)
{
    memset(f, 0, sizeof *f);
    scene s;
    char err[256];
    if (!scene_builtin(name, tri_target, &s, err, sizeof err)) {
        fprintf(stderr, "fixture: %s\n", err);
        return false;
    }
    snprintf(f->name, sizeof f->name, "%s:%ld", name, (long)s.tri_count);
    f->tri_count = s.tri_count;
    f->xyz = xmalloc((size_t)s.tri_count * 9 * sizeof(float));
    memcpy(f->xyz, s.xyz, (size_t)s.tri_count * 9 * sizeof(float));
    memcpy(f->bmin, s.bounds_min, sizeof f->bmin);
    memcpy(f->bmax, s.bounds_max, sizeof f->bmax);
    memcpy(f->cam.pos, s.cam_pos, sizeof f->cam.pos);
    f->cam.yaw = s.cam_yaw;
    f->cam.pitch = s.cam_pitch;
    camera_fit_clip(&f->cam, f->bmin, f->bmax);
    set_lights(f, s.light_dir, s.light_pos);
    scene_free(&s);
    return true;
}

/* append triangle (a, b, c) */
static void tri(fixture *f, int *n, const float a[3], const float b[3], const float c[3])
{
    float *p = &f->xyz[9 * (size_t)(*n)++];
    memcpy(p, a, 12);
    memcpy(p + 3, b, 12);
    memcpy(p + 6, c, 12);
}

/* axis-aligned box, faces counter-clockwise seen from outside */
static void box(fixture *f, int *n, const float lo[3], const float hi[3])
{
    static const int faces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
    float v[8][3];
    for (int i = 0; i < 8; i++) {
        v[i][0] = (i & 4) ? hi[0] : lo[0];
        v[i][1] = (i & 2) ? hi[1] : lo[1];
        v[i][2] = (i & 1) ? hi[2] : lo[2];
    }
    for (int k = 0; k < 6; k++) {
        const int *q = faces[k];
        tri(f, n, v[q[0]], v[q[1]], v[q[2]]);
        tri(f, n, v[q[0]], v[q[2]], v[q[3]]);
    }
}

void fixture_synthetic(fixture *f)
{
    memset(f, 0, sizeof *f);
    const int random_tris = 3000, cap = 2 + 12 * 9 + 2 + 2 + random_tris;
    f->xyz = xmalloc((size_t)cap * 9 * sizeof(float));
    int n = 0;
    const float g0[3] = {-10, 0, -10}, g1[3] = {10, 0, -10}, g2[3] = {10, 0, 10}, g3[3] = {-10, 0, 10};
    tri(f, &n, g0, g3, g2); /* ground, facing +y */
    tri(f, &n, g0, g2, g1);
    for (int i = 0; i < 9; i++) {
        const float x = -6.0f + 6.0f * (float)(i % 3), z = -6.0f + 6.0f * (float)(i / 3), y = 0.5f + 0.7f * (float)(i % 4);
        const float lo[3] = {x - 0.8f, y, z - 0.8f}, hi[3] = {x + 0.8f, y + 1.0f + 0.3f * (float)i, z + 0.8f};
        box(f, &n, lo, hi);
    }
    const float s0[3] = {-9, 1, 8}, s1[3] = {-2, 5, 8}, s2[3] = {-9, 1, 2}, s3[3] = {-2, 5, 2};
    tri(f, &n, s0, s1, s3); /* slanted plane */
    tri(f, &n, s0, s3, s2);
    const float d0[3] = {2, 3, 2}, d1[3] = {3, 3, 2}, d2[3] = {4, 3, 2};
    tri(f, &n, d0, d1, d2); /* degenerate: collinear */
    const float l0[3] = {-5, 2, -9}, l1[3] = {5, 2.001f, -9}, l2[3] = {5, 2.002f, -8.999f};
    tri(f, &n, l0, l1, l2); /* sliver */
    for (int i = 0; i < random_tris; i++) {
        float c[3] = {(float)frand(-9, 9), (float)frand(0.2, 6), (float)frand(-9, 9)}, v[3][3];
        const double r = frand(0.05, 0.6);
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++)
                v[k][a] = c[a] + (float)frand(-r, r);
        tri(f, &n, v[0], v[1], v[2]);
    }
    f->tri_count = n;
    snprintf(f->name, sizeof f->name, "synthetic:%d", n);
    const float bmin[3] = {-10, 0, -10}, bmax[3] = {10, 7, 10};
    memcpy(f->bmin, bmin, sizeof bmin);
    memcpy(f->bmax, bmax, sizeof bmax);
    const float cam[3] = {0.0f, 9.0f, 16.0f};
    memcpy(f->cam.pos, cam, sizeof cam);
    f->cam.yaw = 0.0f;
    f->cam.pitch = -30.0f;
    camera_fit_clip(&f->cam, f->bmin, f->bmax);
    const float dir[3] = {0.35f, -1.0f, -0.45f}, spot[3] = {-4.0f, 14.0f, 6.0f};
    set_lights(f, dir, spot);
}

void fixture_free(fixture *f)
{
    free(f->xyz);
    memset(f, 0, sizeof *f);
}

static camera turned(const fixture *f, float yaw_deg)
{
    camera c = f->cam;
    c.yaw += yaw_deg;
    return c;
}

izb_recon fixture_frame(const fixture *f, bool spot, float yaw_deg, int width, int height)
{
    const camera c = turned(f, yaw_deg);
    return izb_frame_make(&c, spot ? &f->spot : &f->sun, f->bmin, f->bmax, width, height);
}

float *fixture_depth(const fixture *f, float yaw_deg, int width, int height)
{
    float *d = xmalloc((size_t)width * (size_t)height * sizeof(float));
    const camera c = turned(f, yaw_deg);
    depth_raster(f->xyz, f->tri_count, &c, width, height, d);
    return d;
}

float *fixture_depth_ids(const fixture *f, float yaw_deg, int width, int height, uint32_t **ids)
{
    float *d = xmalloc((size_t)width * (size_t)height * sizeof(float));
    *ids = xmalloc((size_t)width * (size_t)height * sizeof **ids);
    const camera c = turned(f, yaw_deg);
    depth_raster_ids(f->xyz, f->tri_count, &c, width, height, d, *ids);
    return d;
}

bool feq(float a, float b) { return a == b || (isnan(a) && isnan(b)); }

bool point_eq(const izb_point *a, const izb_point *b)
{
    return feq(a->x, b->x) && feq(a->y, b->y) && feq(a->z, b->z) && a->pixel == b->pixel;
}

bool tri_eq(const izb_tri *a, const izb_tri *b)
{
    float fa[16], fb[16];
    uint32_t wa[16], wb[16];
    _Static_assert(sizeof(izb_tri) == sizeof fa, "izb_tri is 16 floats");
    memcpy(fa, a, sizeof fa), memcpy(fb, b, sizeof fb);
    memcpy(wa, a, sizeof wa), memcpy(wb, b, sizeof wb);
    for (int k = 0; k < 16; k++)
        if (wa[k] != wb[k] && !(isnan(fa[k]) && isnan(fb[k])))
            return false;
    return true;
}

bool grid_eq(const izb_grid *a, const izb_grid *b)
{
    return feq(a->min_x, b->min_x) && feq(a->min_y, b->min_y) && feq(a->inv_cell_w, b->inv_cell_w) &&
           feq(a->inv_cell_h, b->inv_cell_h) && a->w == b->w && a->h == b->h;
}

bool bbox_eq(const izb_bbox *a, const izb_bbox *b)
{
    return feq(a->min_x, b->min_x) && feq(a->min_y, b->min_y) && feq(a->max_x, b->max_x) && feq(a->max_y, b->max_y);
}

int point_by_pixel(const void *a, const void *b)
{
    const uint32_t pa = ((const izb_point *)a)->pixel, pb = ((const izb_point *)b)->pixel;
    return (pa > pb) - (pa < pb);
}
