/* oracle.c — the Embree ray-cast ground truth of tools/oracle.h: primary rays for the camera's
 * linear view depth, occlusion rays toward the light for the shadow mask. Independent of the IZB
 * code: it shares only the camera/light matrices (scene/view.c) and the frame's float parameters,
 * and reconstructs positions in double precision.
 *
 * Bias: an occlusion ray starts at tnear, the distance by which the IZB's bias moves a sample
 * point toward the light (izb_reconstruct). Spot: the biased key -(1 + bias)/w is the point moved
 * toward the light by bias / (1 + bias) of its distance, so with dir = light - point, tnear =
 * bias / (1 + bias). Orthographic: the key moves by `bias`, i.e. by bias / |grad key| along the
 * light direction, where grad key is the z row of the light matrix (|grad| = 1 / scene radius).
 * With the same offset the oracle and the IZB answer the same question exactly, so a mismatch
 * measures rasterisation and rounding error only, not a difference of definitions; the offset
 * (2e-4 of the distance, or of the scene radius) stays well above Embree's float self-hit error.
 */
#include "oracle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <embree3/rtcore.h>

#include "izb_cutouts.h"

struct oracle {
    RTCDevice device;
    RTCScene scene;
    bool skip_self;   /* oracle_skip_self: the point's own triangle (or plane) never occludes it */
    const float *xyz; /* Embree's vertex buffer, 9 floats per triangle (for in_plane) */
    izb_cutout_set cut; /* oracle_set_cutouts: cut_count 0 = every triangle opaque */
};

/* An occlusion query that knows the triangle its ray starts on (Embree passes the context to
 * the filter); RTC_INVALID_GEOMETRY_ID when unknown. */
typedef struct self_context {
    struct RTCIntersectContext ctx; /* first: the filter casts back */
    unsigned self;
    bool near_edge; /* a cut-out candidate hit fell within ORACLE_TEXEL_EDGE of a texel edge */
} self_context;

/* Camera frame in double: view matrix m (world -> view, column-major, as camera_view gives it),
 * the view ray scale at NDC (1, 1), and the clip range of the GL depth pass. */
typedef struct cam_frame {
    double m[16];
    double sx, sy;
    double near, far;
} cam_frame;

static void embree_error(void *user, enum RTCError code, const char *str);
/* the filter of every ray: a hit on the ray's own triangle, or on one in its plane, does not count
 * (oracle_skip_self), nor one where a cut-out's alpha test cuts its triangle away */
static void hit_filter(const struct RTCFilterFunctionNArguments *args);
/* does triangle b lie in triangle a's plane (oracle_skip_self)? */
static bool in_plane(const float *a, const float *b);
/* the primary ray of pixel (px, py), as oracle_depth traces it; returns the depth per unit t */
static double primary_ray(const cam_frame *cf, const double origin[3], int px, int py, int width, int height,
                          struct RTCRayHit *rh);
static cam_frame cam_frame_make(const camera *c, int width, int height);
/* view-space point -> world (inverse of the rigid view matrix) */
static void view_to_world(const double m[16], const double v[3], double w[3]);
/* view-space direction -> world and back (rotation part only) */
static void view_dir_to_world(const cam_frame *cf, const double v[3], double d[3]);
static void world_dir_to_view(const cam_frame *cf, const double d[3], double v[3]);

static void embree_error(void *user, enum RTCError code, const char *str)
{
    (void)user;
    fprintf(stderr, "oracle: embree error %d: %s\n", (int)code, str ? str : "");
}

static void hit_filter(const struct RTCFilterFunctionNArguments *args)
{
    self_context *sc = (self_context *)args->context;
    const oracle *o = args->geometryUserPtr;
    const unsigned n = args->N;
    for (unsigned i = 0; i < n; i++) {
        if (!args->valid[i]) continue;
        /* RTCHitN_primID is C++ only: the SOA hit is Ng_x, Ng_y, Ng_z, u, v, primID, ... N each */
        const unsigned prim = ((const unsigned *)args->hit)[5 * n + i];
        if (sc->self != RTC_INVALID_GEOMETRY_ID &&
            (prim == sc->self || in_plane(o->xyz + 9 * (size_t)sc->self, o->xyz + 9 * (size_t)prim)))
            args->valid[i] = 0;
        else if (o->cut.cut_count > 0) {
            const float *h = (const float *)args->hit;
            if (!oracle_cut_keeps(&o->cut, prim, h[3 * n + i], h[4 * n + i], &sc->near_edge)) args->valid[i] = 0;
        }
    }
}

/* Why Embree's barycentrics name the IZB's texel. Embree's hit is (1 - u - v) V0 + u V1 + v V2, the
 * point where the ray meets the triangle, in world barycentrics. The IZB's (izb_alpha_uv) are the
 * edge values of the point's light image-plane position over their sum: the world barycentrics of
 * where the light ray through the point meets the triangle (izb_alpha.h, 1.). The oracle's shadow
 * ray is that light ray (same point, toward the light; the bias offset only moves its start along
 * it), so both are the barycentrics of one point, and the UV and texel rule after them are
 * izb_alpha.h's (izb_alpha_keeps). They differ by float rounding only: Embree's watertight test
 * in world space, the IZB's edge functions in light clip space from a float point, each a few
 * ulps of the UV's magnitude. A texel edge is where that can flip the verdict, so a candidate hit
 * within ORACLE_TEXEL_EDGE of a texel plus 2^-17 of the coordinate's magnitude (64 ulps) of an edge
 * marks its ray unsure (oracle_shadow_unsure): a mismatch there is rounding, not a wrong rule. */
bool oracle_cut_keeps(const izb_cutout_set *c, unsigned prim, float bu, float bv, bool *near_edge)
{
    if (prim >= (unsigned)c->tri_count) return true;
    const uint32_t k = c->tex[prim];
    if (k == IZB_OPAQUE) return true;
    const float *uv = c->uv + 6 * (size_t)prim;
    const double b0 = 1.0 - (double)bu - (double)bv;
    const float u = (float)(b0 * uv[0] + (double)bu * uv[2] + (double)bv * uv[4]);
    const float v = (float)(b0 * uv[1] + (double)bu * uv[3] + (double)bv * uv[5]);
    const izb_alpha_tex *t = &c->textures[k];
    const float s[2] = {u * (float)t->width, v * (float)t->height}; /* izb_alpha_wrap's coordinates */
    for (int a = 0; near_edge && a < 2; a++)
        if (fabsf(s[a] - rintf(s[a])) <= ORACLE_TEXEL_EDGE + fabsf(s[a]) * 0x1p-17f) *near_edge = true;
    return izb_alpha_keeps(c->pool, t, u, v);
}

bool oracle_set_cutouts(oracle *o, const izb_cutouts *c)
{
    izb_cutout_set_free(&o->cut);
    if (!c) return true;
    const int n = o->xyz ? c->tri_count : 0; /* an empty scene: cut-outs for no triangle */
    if (!o->xyz && c->tri_count != 0) {
        fprintf(stderr, "oracle: cut-outs for %d triangles, the scene has none: opaque\n", c->tri_count);
        return false;
    }
    return izb_cutout_set_build(&o->cut, c, n, "oracle");
}

/* Every vertex of b within 1e-6 of the largest coordinate magnitude of the two (where float
 * vertices cannot tell planes apart) of a's plane, in double; a degenerate a has no plane. The
 * rule of izb_same_plane (izb_math.h), written again here so that the truth does not share the
 * IZB's code. */
static bool in_plane(const float *a, const float *b)
{
    double u[3], v[3], m = 0.0;
    for (int k = 0; k < 3; k++)
        u[k] = (double)a[3 + k] - a[k], v[k] = (double)a[6 + k] - a[k];
    for (int k = 0; k < 9; k++)
        m = fmax(m, fmax(fabs((double)a[k]), fabs((double)b[k])));
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0.0) || !isfinite(len)) return false;
    for (int j = 0; j < 3; j++) {
        const double d = n[0] * (b[3 * j] - (double)a[0]) + n[1] * (b[3 * j + 1] - (double)a[1]) +
                         n[2] * (b[3 * j + 2] - (double)a[2]);
        if (!(fabs(d) <= 1e-6 * m * len)) return false;
    }
    return true;
}

static cam_frame cam_frame_make(const camera *c, int width, int height)
{
    cam_frame cf;
    float view[16], proj[16];
    camera_view(c, view);
    camera_proj(c, (float)width / (float)(height > 0 ? height : 1), proj);
    for (int i = 0; i < 16; i++)
        cf.m[i] = view[i];
    cf.sx = 1.0 / (double)proj[0];
    cf.sy = 1.0 / (double)proj[5];
    /* the same defaults as camera_proj */
    cf.near = c->near > 0.0f ? c->near : 0.01f;
    cf.far = c->far > (float)cf.near ? c->far : (float)cf.near * 1e4f;
    return cf;
}

static void view_to_world(const double m[16], const double v[3], double w[3])
{
    double d[3] = {v[0] - m[12], v[1] - m[13], v[2] - m[14]};
    for (int j = 0; j < 3; j++)
        w[j] = m[4 * j + 0] * d[0] + m[4 * j + 1] * d[1] + m[4 * j + 2] * d[2];
}

static void view_dir_to_world(const cam_frame *cf, const double v[3], double d[3])
{
    const double *m = cf->m;
    for (int j = 0; j < 3; j++)
        d[j] = m[4 * j + 0] * v[0] + m[4 * j + 1] * v[1] + m[4 * j + 2] * v[2];
}

static void world_dir_to_view(const cam_frame *cf, const double d[3], double v[3])
{
    const double *m = cf->m;
    for (int i = 0; i < 3; i++)
        v[i] = m[i] * d[0] + m[4 + i] * d[1] + m[8 + i] * d[2];
}

oracle *oracle_create(const float *xyz, int tri_count)
{
    if (tri_count < 0 || (tri_count > 0 && !xyz)) {
        fprintf(stderr, "oracle: bad triangle array (%d triangles)\n", tri_count);
        return NULL;
    }
    oracle *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->device = rtcNewDevice(NULL);
    if (!o->device) {
        fprintf(stderr, "oracle: rtcNewDevice failed (error %d)\n", (int)rtcGetDeviceError(NULL));
        free(o);
        return NULL;
    }
    rtcSetDeviceErrorFunction(o->device, embree_error, NULL);
    o->scene = rtcNewScene(o->device);
    rtcSetSceneFlags(o->scene, RTC_SCENE_FLAG_ROBUST);
    rtcSetSceneBuildQuality(o->scene, RTC_BUILD_QUALITY_HIGH);
    if (tri_count > 0) {
        RTCGeometry geom = rtcNewGeometry(o->device, RTC_GEOMETRY_TYPE_TRIANGLE);
        float *vb = rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                            3 * sizeof(float), 3 * (size_t)tri_count);
        unsigned *ib = rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                               3 * sizeof(unsigned), (size_t)tri_count);
        if (!vb || !ib) {
            rtcReleaseGeometry(geom);
            oracle_destroy(o);
            return NULL;
        }
        memcpy(vb, xyz, 9 * (size_t)tri_count * sizeof(float));
        o->xyz = vb;
        rtcSetGeometryUserData(geom, o);
        for (size_t i = 0; i < 3 * (size_t)tri_count; i++)
            ib[i] = (unsigned)i;
        rtcSetGeometryOccludedFilterFunction(geom, hit_filter);
        rtcSetGeometryIntersectFilterFunction(geom, hit_filter);
        rtcCommitGeometry(geom);
        rtcAttachGeometry(o->scene, geom);
        rtcReleaseGeometry(geom);
    }
    rtcCommitScene(o->scene);
    if (rtcGetDeviceError(o->device) != RTC_ERROR_NONE) {
        oracle_destroy(o);
        return NULL;
    }
    return o;
}

void oracle_destroy(oracle *o)
{
    if (!o)
        return;
    if (o->scene)
        rtcReleaseScene(o->scene);
    if (o->device)
        rtcReleaseDevice(o->device);
    izb_cutout_set_free(&o->cut);
    free(o);
}

void oracle_skip_self(oracle *o, bool skip)
{
    o->skip_self = skip;
}

static double primary_ray(const cam_frame *cf, const double origin[3], int px, int py, int width, int height,
                          struct RTCRayHit *rh)
{
    /* GL pixel centre, row 0 at the bottom; view ray with z = -1 */
    double v[3] = {((2.0 * px + 1.0) / width - 1.0) * cf->sx, ((2.0 * py + 1.0) / height - 1.0) * cf->sy,
                   -1.0};
    double d[3], vd[3];
    view_dir_to_world(cf, v, d);
    memset(rh, 0, sizeof *rh);
    rh->ray.org_x = (float)origin[0];
    rh->ray.org_y = (float)origin[1];
    rh->ray.org_z = (float)origin[2];
    rh->ray.dir_x = (float)d[0];
    rh->ray.dir_y = (float)d[1];
    rh->ray.dir_z = (float)d[2];
    /* depth per unit t of the float direction actually traced */
    const double fd[3] = {rh->ray.dir_x, rh->ray.dir_y, rh->ray.dir_z};
    world_dir_to_view(cf, fd, vd);
    const double along = -vd[2];
    rh->ray.tnear = (float)(cf->near / along);
    rh->ray.tfar = (float)(cf->far / along);
    rh->ray.mask = 0xFFFFFFFFu;
    rh->hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh->hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
    return along;
}

void oracle_depth(oracle *o, const camera *c, int width, int height, float *depth)
{
    oracle_depth_ids(o, c, width, height, depth, NULL);
}

void oracle_depth_ids(oracle *o, const camera *c, int width, int height, float *depth, uint32_t *ids)
{
    const cam_frame cf = cam_frame_make(c, width, height);
    const double zero[3] = {0.0, 0.0, 0.0};
    double origin[3];
    view_to_world(cf.m, zero, origin);

#pragma omp parallel for schedule(dynamic, 4)
    for (int py = 0; py < height; py++) {
        self_context sc; /* the filters read it: nothing to skip */
        rtcInitIntersectContext(&sc.ctx);
        sc.self = RTC_INVALID_GEOMETRY_ID;
        sc.near_edge = false;
        for (int px = 0; px < width; px++) {
            struct RTCRayHit rh;
            const double along = primary_ray(&cf, origin, px, py, width, height, &rh);
            rtcIntersect1(o->scene, &sc.ctx, &rh);
            const bool hit = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
            depth[(size_t)py * width + px] = hit ? (float)((double)rh.ray.tfar * along) : 0.0f;
            if (ids) ids[(size_t)py * width + px] = hit ? rh.hit.primID : IZB_NO_ID;
        }
    }
}

oracle_ray_setup oracle_ray_setup_make(const izb_recon *f, const camera *c, const light *l)
{
    oracle_ray_setup rs = {.width = f->width,
                           .height = f->height,
                           .spot = f->light_is_spot != 0,
                           .all_around = l->type == LIGHT_POINT};
    const cam_frame cf = cam_frame_make(c, f->width, f->height);
    for (int i = 0; i < 16; i++)
        rs.view[i] = cf.m[i], rs.light[i] = f->light[i];
    rs.sx = f->ray_sx, rs.sy = f->ray_sy;
    const double bias = f->bias;
    const float *L = f->light;
    double to_light[3] = {-l->dir[0], -l->dir[1], -l->dir[2]}; /* directional: toward the light */
    double len = sqrt(to_light[0] * to_light[0] + to_light[1] * to_light[1] + to_light[2] * to_light[2]);
    if (len < 1e-12) { /* light_matrices' default direction (0, -1, 0) */
        to_light[0] = 0.0, to_light[1] = 1.0, to_light[2] = 0.0, len = 1.0;
    }
    for (int k = 0; k < 3; k++)
        rs.to_light[k] = to_light[k] / len, rs.light_pos[k] = l->pos[k];
    const double key_grad = sqrt((double)L[2] * L[2] + (double)L[6] * L[6] + (double)L[10] * L[10]);
    rs.tnear_spot = (float)(bias / (1.0 + bias));
    rs.tnear_dir = key_grad > 0.0 ? (float)(bias / key_grad) : 0.0f;
    return rs;
}

int oracle_pixel_ray(const oracle_ray_setup *rs, int px, int py, float depth, oracle_ray *ray)
{
    const double d = depth;
    if (!(d > 0.0) || !(d <= 3.0e38))
        return ORACLE_PIXEL_SKY;
    const double v[3] = {((2.0 * px + 1.0) / rs->width - 1.0) * rs->sx * d,
                         ((2.0 * py + 1.0) / rs->height - 1.0) * rs->sy * d, -d};
    double p[3];
    view_to_world(rs->view, v, p);
    if (rs->spot && !rs->all_around) {
        const double *L = rs->light;
        double q[4];
        for (int r = 0; r < 4; r++)
            q[r] = L[r] * p[0] + L[4 + r] * p[1] + L[8 + r] * p[2] + L[12 + r];
        /* izb_spot_outside's rule (core/izb_math.h), in double: the round cone */
        const double x = q[0] / q[3], y = q[1] / q[3];
        if (!(q[3] > 0.0) || !(x * x + y * y <= 1.0))
            return ORACLE_PIXEL_UNLIT;
    }
    for (int k = 0; k < 3; k++)
        ray->org[k] = (float)p[k];
    if (rs->spot) {
        for (int k = 0; k < 3; k++)
            ray->dir[k] = (float)(rs->light_pos[k] - p[k]);
        ray->tnear = rs->tnear_spot;
        ray->tfar = 1.0f - 1e-4f;
    } else {
        for (int k = 0; k < 3; k++)
            ray->dir[k] = (float)rs->to_light[k];
        ray->tnear = rs->tnear_dir;
        ray->tfar = INFINITY;
    }
    return ORACLE_PIXEL_RAY;
}

void oracle_shadow(oracle *o, const izb_recon *f, const camera *c, const light *l, const float *depth,
                   uint8_t *mask)
{
    oracle_shadow_unsure(o, f, c, l, depth, mask, NULL);
}

void oracle_shadow_unsure(oracle *o, const izb_recon *f, const camera *c, const light *l, const float *depth,
                          uint8_t *mask, uint8_t *unsure)
{
    const int width = f->width, height = f->height;
    const oracle_ray_setup rs = oracle_ray_setup_make(f, c, l);
    /* skip_self: the camera's primary rays find the triangle each pixel lies on */
    const cam_frame cf = cam_frame_make(c, width, height);
    const double zero[3] = {0.0, 0.0, 0.0};
    double origin[3];
    view_to_world(cf.m, zero, origin);
#pragma omp parallel for schedule(dynamic, 4)
    for (int py = 0; py < height; py++) {
        self_context sc;
        rtcInitIntersectContext(&sc.ctx);
        for (int px = 0; px < width; px++) {
            const size_t i = (size_t)py * width + px;
            oracle_ray r;
            const int kind = oracle_pixel_ray(&rs, px, py, depth[i], &r);
            if (unsure) unsure[i] = 0;
            if (kind != ORACLE_PIXEL_RAY) {
                mask[i] = kind == ORACLE_PIXEL_SKY ? 255 : 0;
                continue;
            }
            struct RTCRay ray;
            memset(&ray, 0, sizeof ray);
            ray.org_x = r.org[0], ray.org_y = r.org[1], ray.org_z = r.org[2];
            ray.dir_x = r.dir[0], ray.dir_y = r.dir[1], ray.dir_z = r.dir[2];
            ray.tnear = r.tnear;
            ray.tfar = r.tfar;
            ray.mask = 0xFFFFFFFFu;
            sc.self = RTC_INVALID_GEOMETRY_ID;
            if (o->skip_self) { /* the triangle the camera sees at this pixel */
                struct RTCRayHit rh;
                primary_ray(&cf, origin, px, py, width, height, &rh);
                rtcIntersect1(o->scene, &sc.ctx, &rh);
                sc.self = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID ? rh.hit.primID : RTC_INVALID_GEOMETRY_ID;
            }
            sc.near_edge = false; /* (the primary ray's verdicts are not this pixel's shadow) */
            rtcOccluded1(o->scene, &sc.ctx, &ray);
            mask[i] = ray.tfar < 0.0f ? 0 : 255; /* Embree sets tfar = -inf when occluded */
            if (unsure) unsure[i] = sc.near_edge;
        }
    }
}

long oracle_pixel_prim(oracle *o, const camera *c, int width, int height, int px, int py)
{
    const cam_frame cf = cam_frame_make(c, width, height);
    const double zero[3] = {0.0, 0.0, 0.0};
    double origin[3];
    view_to_world(cf.m, zero, origin);
    self_context sc;
    rtcInitIntersectContext(&sc.ctx);
    sc.self = RTC_INVALID_GEOMETRY_ID;
    sc.near_edge = false;
    struct RTCRayHit rh;
    primary_ray(&cf, origin, px, py, width, height, &rh);
    rtcIntersect1(o->scene, &sc.ctx, &rh);
    return rh.hit.geomID != RTC_INVALID_GEOMETRY_ID ? (long)rh.hit.primID : -1;
}

long oracle_ray_first_hit(oracle *o, const oracle_ray *r, long skip, float *t)
{
    self_context sc;
    rtcInitIntersectContext(&sc.ctx);
    sc.self = skip >= 0 ? (unsigned)skip : RTC_INVALID_GEOMETRY_ID;
    sc.near_edge = false;
    struct RTCRayHit rh;
    memset(&rh, 0, sizeof rh);
    rh.ray.org_x = r->org[0], rh.ray.org_y = r->org[1], rh.ray.org_z = r->org[2];
    rh.ray.dir_x = r->dir[0], rh.ray.dir_y = r->dir[1], rh.ray.dir_z = r->dir[2];
    rh.ray.tnear = r->tnear;
    rh.ray.tfar = r->tfar;
    rh.ray.mask = 0xFFFFFFFFu;
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(o->scene, &sc.ctx, &rh);
    *t = rh.ray.tfar;
    return rh.hit.geomID != RTC_INVALID_GEOMETRY_ID ? (long)rh.hit.primID : -1;
}

bool oracle_occluded(oracle *o, const oracle_ray *r, long skip)
{
    self_context sc;
    rtcInitIntersectContext(&sc.ctx);
    sc.self = skip >= 0 ? (unsigned)skip : RTC_INVALID_GEOMETRY_ID;
    sc.near_edge = false;
    struct RTCRay ray;
    memset(&ray, 0, sizeof ray);
    ray.org_x = r->org[0], ray.org_y = r->org[1], ray.org_z = r->org[2];
    ray.dir_x = r->dir[0], ray.dir_y = r->dir[1], ray.dir_z = r->dir[2];
    ray.tnear = r->tnear;
    ray.tfar = r->tfar;
    ray.mask = 0xFFFFFFFFu;
    rtcOccluded1(o->scene, &sc.ctx, &ray);
    return ray.tfar < 0.0f; /* Embree sets tfar = -inf when occluded */
}

mask_diff mask_compare(const float *depth, const uint8_t *test, const uint8_t *truth, long n)
{
    mask_diff r = {0, 0, 0, 0};
    for (long i = 0; i < n; i++) {
        if (!(depth[i] > 0.0f) || !(depth[i] <= 3.0e38f))
            continue;
        r.covered++;
        bool lit_test = test[i] != 0, lit_truth = truth[i] != 0;
        if (lit_test != lit_truth) {
            r.mismatched++;
            if (lit_truth)
                r.false_shadow++;
            else
                r.false_light++;
        }
    }
    return r;
}
