/* quality_lib.c — counters, images and views of izb-quality (quality_lib.h). */
#include "quality_lib.h"

#include <math.h>
#include <string.h>

#include "izb_area.h"
#include "oracle.h"

const quality_view quality_views[] = {
    {.name = "default", .scene = "builtin:default", .what = "default scene, its camera, directional light"},
    {.name = "default-spot", .scene = "builtin:default", .what = "default scene, its camera, spot light (60 deg)"},
    {.name = "fence-zoom", .scene = "builtin:default", .what = "fence shadow seen from 0.5 m (thesis fig. 6.3)"},
    {.name = "grazing", .scene = "builtin:default", .what = "default scene, light 5 deg above the ground"},
    {.name = "tesseract", .scene = "builtin:tesseract", .what = "tesseract (thesis fig. 6.4), directional light"},
    {.name = "grass", .scene = "builtin:grass:200k", .what = "200K-triangle grass, directional light"},
    {.name = "room-point", .scene = "builtin:room", .what = "room, point light under the ceiling (6 cube faces)"},
    /* cut-outs (issue 18): alpha-tested leaf cards and fence panels; the truth applies the same
     * alpha test in an Embree filter (oracle_set_cutouts) */
    {.name = "foliage-far", .scene = "builtin:foliage", .what = "cut-out leaf cards and fences from 13 m away"},
    {.name = "foliage-near", .scene = "builtin:foliage", .what = "cut-out leaf cards seen from under a bush, 1 m away"},
    {.name = "fence-grazing", .scene = "builtin:foliage", .what = "a cut-out fence's shadow, light 8 deg above the ground"},
    /* per-sample views (issues 19, 20; tools/quality_samples.h): every (point, sample) answer of
     * the IZB against its own ray. Soft: a directional light 2 degrees wide (about four suns),
     * 64 samples: contact shadows hard at the objects' feet, wide from the fence's top. */
    {.name = "soft-default", .scene = "builtin:default", .what = "default scene, directional light 2 deg wide, M = 64",
     .base = "default", .light_angle_deg = 2.0f, .light_samples = 64},
    {.name = "soft-grazing", .scene = "builtin:default",
     .what = "fence and objects, light 5 deg above the ground and 2 deg wide, M = 64", .base = "grazing",
     .light_angle_deg = 2.0f, .light_samples = 64},
    {.name = "soft-spheres", .scene = "builtin:spheres:1000000", .what = "1M-triangle spheres, light 2 deg wide, M = 64",
     .base = "spheres", .light_angle_deg = 2.0f, .light_samples = 64},
    /* area lights (izb_area.h): the default scene's spot with an emitter, each sample its own segment */
    {.name = "area-rect", .scene = "builtin:default", .what = "default scene, spot with a 1.5 x 1 m rectangle, M = 64",
     .base = "default-spot", .light_samples = 64, .light_size = {1.5f, 1.0f}},
    {.name = "area-disk", .scene = "builtin:default", .what = "default scene, spot with a 0.5 m disk, M = 64",
     .base = "default-spot", .light_samples = 64, .light_size = {0.5f, 0.5f}, .light_shape = IZB_AREA_DISK},
    /* anti-aliased edges: the footprints' sub-samples, N = 1, 8, 32 (cut-outs alpha-tested per
     * sub-sample; the truth's Embree filter applies the same test to each sub-sample's ray) */
    {.name = "aa-default", .scene = "builtin:default", .what = "default scene, directional light, N = 1, 8, 32",
     .base = "default", .aa = true},
    {.name = "aa-fence-zoom", .scene = "builtin:default", .what = "picket shadows from 0.5 m, N = 1, 8, 32",
     .base = "fence-zoom", .aa = true},
    {.name = "aa-grazing", .scene = "builtin:default", .what = "light 5 deg above the ground, N = 1, 8, 32",
     .base = "grazing", .aa = true},
    {.name = "aa-spot", .scene = "builtin:default", .what = "default scene, spot light (60 deg), N = 1, 8, 32",
     .base = "default-spot", .aa = true},
    {.name = "aa-foliage-near", .scene = "builtin:foliage", .what = "cut-out leaf cards from 1 m, N = 1, 8, 32",
     .base = "foliage-near", .aa = true},
    {.name = "aa-room-point", .scene = "builtin:room",
     .what = "room, point light under the ceiling (6 cube faces), N = 1, 8, 32", .base = "room-point", .aa = true},
    {.name = "aa-fence-grazing", .scene = "builtin:foliage",
     .what = "a cut-out fence's shadow, light 8 deg above the ground, N = 1, 8, 32", .base = "fence-grazing",
     .aa = true},
};
const int quality_view_count = (int)(sizeof quality_views / sizeof quality_views[0]);

/* the scene's suggested directional light */
static light scene_light(const scene *s);

quality_counts quality_count(const float *depth, const uint8_t *test, const uint8_t *truth, long n)
{
    mask_diff d = mask_compare(depth, test, truth, n);
    quality_counts c = {.covered = d.covered,
                        .mismatched = d.mismatched,
                        .false_shadow = d.false_shadow,
                        .false_light = d.false_light};
    for (long i = 0; i < n; i++) {
        if (!(depth[i] > 0.0f) || !(depth[i] <= 3.0e38f)) continue;
        c.truth_shadow += truth[i] == 0;
        c.test_shadow += test[i] == 0;
    }
    return c;
}

long quality_count_unsure(const float *depth, const uint8_t *test, const uint8_t *truth, const uint8_t *unsure,
                          long n)
{
    long u = 0;
    for (long i = 0; i < n; i++)
        u += depth[i] > 0.0f && depth[i] <= 3.0e38f && unsure[i] && (test[i] != 0) != (truth[i] != 0);
    return u;
}

double quality_mismatch_pct(const quality_counts *c)
{
    return c->covered > 0 ? 100.0 * (double)c->mismatched / (double)c->covered : 0.0;
}

void quality_mask_image(const float *depth, const uint8_t *mask, long n, uint8_t *rgb)
{
    for (long i = 0; i < n; i++) {
        uint8_t *p = rgb + 3 * i;
        if (!(depth[i] > 0.0f)) {
            p[0] = 50, p[1] = 75, p[2] = 150;
        } else {
            p[0] = p[1] = p[2] = mask[i] ? 255 : 0;
        }
    }
}

void quality_diff_image(const float *depth, const uint8_t *test, const uint8_t *truth, long n, uint8_t *rgb)
{
    for (long i = 0; i < n; i++) {
        uint8_t *p = rgb + 3 * i;
        bool lt = test[i] != 0, lr = truth[i] != 0;
        if (!(depth[i] > 0.0f)) {
            p[0] = 50, p[1] = 75, p[2] = 150;
        } else if (lt == lr) {
            p[0] = p[1] = p[2] = lr ? 200 : 70;
        } else if (lr) { /* false shadow */
            p[0] = 240, p[1] = 30, p[2] = 20;
        } else { /* false light */
            p[0] = 30, p[1] = 130, p[2] = 255;
        }
    }
}

static light scene_light(const scene *s)
{
    light l = {.type = LIGHT_DIRECTIONAL, .cone_deg = 60.0f};
    memcpy(l.dir, s->light_dir, sizeof l.dir);
    memcpy(l.pos, s->light_pos, sizeof l.pos);
    return l;
}

bool quality_view_per_sample(const quality_view *v)
{
    return v->light_angle_deg > 0.0f || v->light_size[0] > 0.0f || v->aa;
}

void quality_view_setup(const quality_view *qv, const scene *s, camera *cam, light *l)
{
    const quality_view *v = &(quality_view){.name = qv->base ? qv->base : qv->name};
    *cam = (camera){
        .pos = {s->cam_pos[0], s->cam_pos[1], s->cam_pos[2]}, .yaw = s->cam_yaw, .pitch = s->cam_pitch};
    *l = scene_light(s);
    if (strcmp(v->name, "foliage-far") == 0) {
        /* the whole garden from 13 m, filling the frame */
        cam->pos[0] = 0.0f, cam->pos[1] = 7.0f, cam->pos[2] = 11.0f;
        cam->yaw = 0.0f, cam->pitch = -32.0f;
    } else if (strcmp(v->name, "default-spot") == 0) {
        l->type = LIGHT_SPOT;
        for (int k = 0; k < 3; k++) /* as izb-shadows does: the spot looks at the scene's centre */
            l->dir[k] = 0.5f * (s->bounds_min[k] + s->bounds_max[k]) - s->light_pos[k];
    } else if (strcmp(v->name, "fence-zoom") == 0) {
        /* Picket 16 of the default scene's fence (x = -4.875, z = -4.95, 4 cm wide, 5 cm to 1.35 m
         * high): the shadow of its middle (y = 0.7) falls on the ground at t = 0.7 / |dir.y| along
         * the light. The camera looks down at that point from 0.5 m, across the picket shadows. */
        float d[3] = {l->dir[0], l->dir[1], l->dir[2]};
        float t = 0.7f / -d[1];
        float target[3] = {-4.875f + t * d[0], 0.0f, -4.95f + t * d[2]};
        cam->yaw = -42.0f;
        cam->pitch = -50.0f;
        float fwd[3];
        camera_forward(cam, fwd);
        for (int k = 0; k < 3; k++)
            cam->pos[k] = target[k] - 0.5f * fwd[k];
    } else if (strcmp(v->name, "room-point") == 0) {
        l->type = LIGHT_POINT; /* at the scene's light position, inside the room */
    } else if (strcmp(v->name, "foliage-near") == 0) {
        /* a bush's cards (builtin:foliage's first bushes lie near x = 0..1, z = 0..1.5) and their
         * shadows on the ground, from 2 m up */
        cam->pos[0] = 0.6f, cam->pos[1] = 2.0f, cam->pos[2] = 3.0f;
        cam->yaw = -15.0f, cam->pitch = -40.0f;
    } else if (strcmp(v->name, "fence-grazing") == 0) {
        /* the back fence (z = -5, holes in a repeating texture) lit from behind it, 8 degrees above
         * the ground: its shadow stretches ~11 m toward +z, the holes long ellipses on the ground.
         * The camera stands behind the fence, on its lit side, and looks over it along the light
         * (the fence's far side faces away from the light: no shadow ray defines its shading). */
        const float e = 8.0f * 0.017453292519943295f, az = 10.0f * 0.017453292519943295f;
        l->dir[0] = cosf(e) * sinf(az), l->dir[1] = -sinf(e), l->dir[2] = cosf(e) * cosf(az);
        cam->pos[0] = -1.0f, cam->pos[1] = 2.4f, cam->pos[2] = -6.6f;
        cam->yaw = 170.0f, cam->pitch = -24.0f;
    } else if (strcmp(v->name, "grazing") == 0) {
        /* the scene light's azimuth, 5 degrees above the horizon */
        float h = sqrtf(l->dir[0] * l->dir[0] + l->dir[2] * l->dir[2]);
        float e = 5.0f * 0.017453292519943295f;
        l->dir[0] = cosf(e) * l->dir[0] / h;
        l->dir[2] = cosf(e) * l->dir[2] / h;
        l->dir[1] = -sinf(e);
    }
    float n = sqrtf(l->dir[0] * l->dir[0] + l->dir[1] * l->dir[1] + l->dir[2] * l->dir[2]);
    for (int k = 0; k < 3; k++)
        l->dir[k] /= n;
    l->angle_deg = qv->light_angle_deg;
    l->samples = qv->light_samples;
    l->size[0] = qv->light_size[0], l->size[1] = qv->light_size[1];
    l->shape = qv->light_shape;
    camera_fit_clip(cam, s->bounds_min, s->bounds_max);
}
