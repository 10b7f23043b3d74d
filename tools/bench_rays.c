/* bench_rays.c — see bench_rays.h. */
#include "bench_rays.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <embree3/rtcore.h>

#include "izb_cutouts.h"
#include "oracle.h"

struct bench_bvh {
    RTCDevice device;
    RTCScene scene;
    RTCGeometry geom;
    float *vb; /* Embree's vertex buffer: 3 floats per vertex, 3 vertices per triangle */
    int tri_count;
    izb_cutout_set cut; /* bench_bvh_set_cutouts; cut_count 0: no filter */
};

/* occlusion filter: a hit the alpha test cuts away does not count */
static void cut_filter(const struct RTCFilterFunctionNArguments *args)
{
    const bench_bvh *b = args->geometryUserPtr;
    const float *h = (const float *)args->hit; /* SOA: Ng_x, Ng_y, Ng_z, u, v, primID, ... N each */
    const unsigned n = args->N;
    for (unsigned i = 0; i < n; i++)
        if (args->valid[i] && !oracle_cut_keeps(&b->cut, ((const unsigned *)h)[5 * n + i], h[3 * n + i],
                                                h[4 * n + i], NULL))
            args->valid[i] = 0;
}

bool bench_bvh_set_cutouts(bench_bvh *b, const izb_cutouts *c)
{
    izb_cutout_set_free(&b->cut);
    const bool ok = !c || izb_cutout_set_build(&b->cut, c, b->tri_count, "bench-cpu");
    rtcSetGeometryUserData(b->geom, b);
    rtcSetGeometryOccludedFilterFunction(b->geom, b->cut.cut_count > 0 ? cut_filter : NULL);
    rtcCommitGeometry(b->geom);
    rtcCommitScene(b->scene);
    return ok;
}

bench_bvh *bench_bvh_create(const float *xyz, int tri_count, bool refit, int threads)
{
    bench_bvh *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    char config[64] = "";
    if (threads > 0) snprintf(config, sizeof config, "threads=%d", threads);
    b->device = rtcNewDevice(config[0] ? config : NULL);
    if (!b->device) {
        free(b);
        return NULL;
    }
    b->scene = rtcNewScene(b->device);
    if (refit) {
        rtcSetSceneFlags(b->scene, RTC_SCENE_FLAG_DYNAMIC);
        rtcSetSceneBuildQuality(b->scene, RTC_BUILD_QUALITY_LOW);
    }
    b->geom = rtcNewGeometry(b->device, RTC_GEOMETRY_TYPE_TRIANGLE);
    if (refit) rtcSetGeometryBuildQuality(b->geom, RTC_BUILD_QUALITY_REFIT);
    b->vb = rtcSetNewGeometryBuffer(b->geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float),
                                    3 * (size_t)tri_count);
    unsigned *ib = rtcSetNewGeometryBuffer(b->geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                           3 * sizeof(unsigned), (size_t)tri_count);
    if (!b->vb || !ib) {
        bench_bvh_destroy(b);
        return NULL;
    }
    for (unsigned i = 0; i < 3u * (unsigned)tri_count; i++)
        ib[i] = i;
    b->tri_count = tri_count;
    memcpy(b->vb, xyz, 9 * (size_t)tri_count * sizeof(float));
    rtcCommitGeometry(b->geom);
    rtcAttachGeometry(b->scene, b->geom);
    rtcCommitScene(b->scene);
    return b;
}

void bench_bvh_update(bench_bvh *b, const float *xyz)
{
    memcpy(b->vb, xyz, 9 * (size_t)b->tri_count * sizeof(float));
    rtcUpdateGeometryBuffer(b->geom, RTC_BUFFER_TYPE_VERTEX, 0);
    rtcCommitGeometry(b->geom);
    rtcCommitScene(b->scene);
}

void bench_bvh_destroy(bench_bvh *b)
{
    if (!b) return;
    if (b->geom) rtcReleaseGeometry(b->geom);
    if (b->scene) rtcReleaseScene(b->scene);
    rtcReleaseDevice(b->device);
    izb_cutout_set_free(&b->cut);
    free(b);
}

bool bench_rays_make(bench_rays *r, const izb_recon *f, const camera *c, const light *l, const float *depth)
{
    memset(r, 0, sizeof *r);
    const size_t n = (size_t)f->width * (size_t)f->height;
    float **arrays[] = {&r->ox, &r->oy, &r->oz, &r->dx, &r->dy, &r->dz, &r->tnear, &r->tfar};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        if (!(*arrays[k] = malloc(n * sizeof(float)))) return false;
    if (!(r->valid = malloc(n * sizeof(int32_t)))) return false;
    r->width = f->width, r->height = f->height;
    const oracle_ray_setup rs = oracle_ray_setup_make(f, c, l);
    long count = 0;
    for (int py = 0; py < f->height; py++)
        for (int px = 0; px < f->width; px++) {
            const size_t i = (size_t)py * f->width + px;
            oracle_ray ray;
            memset(&ray, 0, sizeof ray);
            const bool valid = oracle_pixel_ray(&rs, px, py, depth[i], &ray) == ORACLE_PIXEL_RAY;
            r->ox[i] = ray.org[0], r->oy[i] = ray.org[1], r->oz[i] = ray.org[2];
            r->dx[i] = ray.dir[0], r->dy[i] = ray.dir[1], r->dz[i] = ray.dir[2];
            r->tnear[i] = ray.tnear, r->tfar[i] = ray.tfar;
            r->valid[i] = valid ? -1 : 0; /* Embree's packet convention: -1 active */
            count += valid;
        }
    r->count = count;
    r->spot = rs.spot;
    return true;
}

void bench_rays_free(bench_rays *r)
{
    float *arrays[] = {r->ox, r->oy, r->oz, r->dx, r->dy, r->dz, r->tnear, r->tfar};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    free(r->valid);
    memset(r, 0, sizeof *r);
}

void bench_rays_occluded1(bench_bvh *b, const bench_rays *r, uint8_t *mask, int threads)
{
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads)
    for (int py = 0; py < r->height; py++) {
        struct RTCIntersectContext ctx;
        rtcInitIntersectContext(&ctx);
        for (int px = 0; px < r->width; px++) {
            const size_t i = (size_t)py * r->width + px;
            if (!r->valid[i]) continue;
            struct RTCRay ray = {.org_x = r->ox[i],
                                 .org_y = r->oy[i],
                                 .org_z = r->oz[i],
                                 .tnear = r->tnear[i],
                                 .dir_x = r->dx[i],
                                 .dir_y = r->dy[i],
                                 .dir_z = r->dz[i],
                                 .tfar = r->tfar[i],
                                 .mask = 0xFFFFFFFFu};
            rtcOccluded1(b->scene, &ctx, &ray);
            mask[i] = ray.tfar < 0.0f ? 0 : 255;
        }
    }
}

/* What each lane of a packet casts for sample j of m: the pixel's own ray (none set), a soft
 * light's direction j (dirs), the segment to an area light's sample j (targets) or the ray from
 * footprint sub-sample j (axes, u, v). */
typedef struct packet_samples {
    int m;
    const float *dirs;              /* 3 per sample */
    const float *targets;           /* 3 per sample */
    const float *axes, *u, *v;      /* 6 per pixel; u, v per sample */
} packet_samples;

/* Lanes 0 .. len of pixels i0 ..; lanes past len repeat pixel i0, invalid */
static void fill_packet(const bench_rays *r, size_t i0, int len, const packet_samples *s, int j, int valid[16],
                        struct RTCRay16 *ray)
{
    for (int k = 0; k < 16; k++) {
        const size_t i = i0 + (k < len ? k : 0);
        valid[k] = k < len ? r->valid[i] : 0;
        float o[3] = {r->ox[i], r->oy[i], r->oz[i]}, d[3] = {r->dx[i], r->dy[i], r->dz[i]};
        if (s->dirs)
            for (int c = 0; c < 3; c++) d[c] = s->dirs[3 * j + c];
        if (s->targets)
            for (int c = 0; c < 3; c++) d[c] = s->targets[3 * j + c] - o[c];
        if (s->axes) {
            const float *a = s->axes + 6 * i;
            for (int c = 0; c < 3; c++) {
                const float step = s->u[j] * a[c] + s->v[j] * a[3 + c];
                o[c] = o[c] + step;
                if (r->spot) d[c] = d[c] - step; /* still ending at the light (the segment's end) */
            }
        }
        ray->org_x[k] = o[0], ray->org_y[k] = o[1], ray->org_z[k] = o[2];
        ray->dir_x[k] = d[0], ray->dir_y[k] = d[1], ray->dir_z[k] = d[2];
        ray->tnear[k] = r->tnear[i], ray->tfar[k] = r->tfar[i];
        ray->time[k] = 0.0f, ray->mask[k] = 0xFFFFFFFFu, ray->id[k] = 0, ray->flags[k] = 0;
    }
}

/* Packets of 16 pixels along each row, m samples each: a pixel's byte is its lit share of the m,
 * rounded (m = 1: 255 lit, 0 hidden) */
static void occluded16_samples(bench_bvh *b, const bench_rays *r, const packet_samples *s, uint8_t *mask,
                               int threads)
{
    const int m = s->m;
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads)
    for (int py = 0; py < r->height; py++) {
        struct RTCIntersectContext ctx;
        rtcInitIntersectContext(&ctx);
        for (int px0 = 0; px0 < r->width; px0 += 16) {
            const size_t i0 = (size_t)py * r->width + px0;
            const int len = r->width - px0 < 16 ? r->width - px0 : 16;
            int any = 0, lit[16] = {0};
            for (int k = 0; k < len; k++)
                any |= r->valid[i0 + k];
            if (!any) continue;
            for (int j = 0; j < m; j++) {
                _Alignas(64) int valid[16];
                _Alignas(64) struct RTCRay16 ray;
                fill_packet(r, i0, len, s, j, valid, &ray);
                rtcOccluded16(valid, b->scene, &ctx, &ray);
                for (int k = 0; k < len; k++)
                    lit[k] += valid[k] && !(ray.tfar[k] < 0.0f);
            }
            for (int k = 0; k < len; k++)
                if (r->valid[i0 + k]) mask[i0 + k] = (uint8_t)((510 * lit[k] + m) / (2 * m));
        }
    }
}

void bench_rays_occluded16(bench_bvh *b, const bench_rays *r, uint8_t *mask, int threads)
{
    occluded16_samples(b, r, &(packet_samples){.m = 1}, mask, threads);
}

void bench_rays_occluded16_soft(bench_bvh *b, const bench_rays *r, const float *dirs, int m, uint8_t *mask,
                                int threads)
{
    occluded16_samples(b, r, &(packet_samples){.m = m, .dirs = dirs}, mask, threads);
}

void bench_rays_occluded16_area(bench_bvh *b, const bench_rays *r, const float *targets, int m, uint8_t *mask,
                                int threads)
{
    occluded16_samples(b, r, &(packet_samples){.m = m, .targets = targets}, mask, threads);
}

void bench_rays_occluded16_aa(bench_bvh *b, const bench_rays *r, const float *axes, const float *u, const float *v,
                              int n, uint8_t *mask, int threads)
{
    occluded16_samples(b, r, &(packet_samples){.m = n, .axes = axes, .u = u, .v = v}, mask, threads);
}
