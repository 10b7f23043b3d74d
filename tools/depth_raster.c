/* depth_raster.c — see depth_raster.h. Triangles are set up once (view space, near clip, screen
 * space); bands of rows are then rasterised in parallel, each band owning its rows of the z-buffer,
 * so no two threads write the same pixel. */
#include "depth_raster.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAND_ROWS 16

typedef struct screen_tri {
    float x[3], y[3];   /* pixel units: pixel (px, py) has its centre at (px + 0.5, py + 0.5) */
    float inv_d[3];     /* 1 / linear depth */
    float y0, y1;       /* rows covered */
    uint32_t src;       /* the scene triangle it comes from */
} screen_tri;

/* Clip the view-space triangle v (z < 0 in front) at z = -near; up to 2 triangles into out. */
static int clip_near(const double v[3][3], double near, double out[2][3][3])
{
    double poly[4][3];
    int n = 0;
    for (int i = 0; i < 3; i++) {
        const double *a = v[i], *b = v[(i + 1) % 3];
        const double da = -a[2] - near, db = -b[2] - near; /* >= 0: in front of the near plane */
        if (da >= 0.0)
            memcpy(poly[n++], a, sizeof poly[0]);
        if ((da >= 0.0) != (db >= 0.0)) {
            const double t = da / (da - db);
            for (int k = 0; k < 3; k++)
                poly[n][k] = a[k] + t * (b[k] - a[k]);
            n++;
        }
    }
    if (n < 3)
        return 0;
    for (int t = 0; t + 2 < n; t++) {
        memcpy(out[t][0], poly[0], sizeof poly[0]);
        memcpy(out[t][1], poly[t + 1], sizeof poly[0]);
        memcpy(out[t][2], poly[t + 2], sizeof poly[0]);
    }
    return n - 2;
}

static void raster_band(const screen_tri *tris, long nt, int width, int height, int row0, int row1,
                        float *depth, uint32_t *ids)
{
    (void)height;
    for (long t = 0; t < nt; t++) {
        const screen_tri *s = &tris[t];
        if (s->y1 < (float)row0 || s->y0 > (float)row1)
            continue;
        const double x0 = fmin(s->x[0], fmin(s->x[1], s->x[2])), x1 = fmax(s->x[0], fmax(s->x[1], s->x[2]));
        int px0 = (int)fmax(0.0, floor(x0 - 0.5)), px1 = (int)fmin(width - 1.0, ceil(x1 - 0.5));
        int py0 = (int)fmax((double)row0, floor(s->y0 - 0.5)), py1 = (int)fmin((double)row1, ceil(s->y1 - 0.5));
        const double area = ((double)s->x[1] - s->x[0]) * ((double)s->y[2] - s->y[0]) -
                            ((double)s->x[2] - s->x[0]) * ((double)s->y[1] - s->y[0]);
        if (!(fabs(area) > 0.0))
            continue;
        for (int py = py0; py <= py1; py++)
            for (int px = px0; px <= px1; px++) {
                const double cx = px + 0.5, cy = py + 0.5;
                double b[3];
                for (int i = 0; i < 3; i++) {
                    const int j = (i + 1) % 3, k = (i + 2) % 3;
                    b[i] = (((double)s->x[k] - s->x[j]) * (cy - s->y[j]) - ((double)s->y[k] - s->y[j]) * (cx - s->x[j])) /
                           area;
                }
                if (b[0] < 0.0 || b[1] < 0.0 || b[2] < 0.0)
                    continue;
                const double inv = b[0] * s->inv_d[0] + b[1] * s->inv_d[1] + b[2] * s->inv_d[2];
                if (!(inv > 0.0))
                    continue;
                const float d = (float)(1.0 / inv);
                float *z = &depth[(size_t)py * (size_t)width + (size_t)px];
                if (*z == 0.0f || d < *z) {
                    *z = d;
                    if (ids) ids[z - depth] = s->src;
                }
            }
    }
}

void depth_raster(const float *xyz, int tri_count, const camera *c, int width, int height, float *depth)
{
    depth_raster_ids(xyz, tri_count, c, width, height, depth, NULL);
}

void depth_raster_ids(const float *xyz, int tri_count, const camera *c, int width, int height, float *depth,
                      uint32_t *ids)
{
    float view[16], proj[16];
    camera_view(c, view);
    camera_proj(c, (float)width / (float)height, proj);
    const double near = c->near > 0.0f ? c->near : 0.01;
    memset(depth, 0, (size_t)width * (size_t)height * sizeof *depth);
    if (ids) memset(ids, 0xff, (size_t)width * (size_t)height * sizeof *ids); /* IZB_NO_ID */

    screen_tri *tris = malloc(2 * (size_t)(tri_count > 0 ? tri_count : 1) * sizeof *tris);
    if (!tris) {
        fprintf(stderr, "depth_raster: out of memory\n");
        exit(1);
    }
    long nt = 0;
    for (int t = 0; t < tri_count; t++) {
        double v[3][3], clipped[2][3][3];
        for (int i = 0; i < 3; i++) {
            const float *p = &xyz[9 * (size_t)t + 3 * (size_t)i];
            for (int k = 0; k < 3; k++)
                v[i][k] = view[k] * p[0] + view[4 + k] * p[1] + view[8 + k] * p[2] + view[12 + k];
        }
        const int parts = clip_near(v, near, clipped);
        for (int q = 0; q < parts; q++) {
            screen_tri *s = &tris[nt++];
            s->src = (uint32_t)t;
            for (int i = 0; i < 3; i++) {
                const double *p = clipped[q][i], d = -p[2];
                s->x[i] = (float)((p[0] * proj[0] / d + 1.0) * 0.5 * width);
                s->y[i] = (float)((p[1] * proj[5] / d + 1.0) * 0.5 * height);
                s->inv_d[i] = (float)(1.0 / d);
            }
            s->y0 = fminf(s->y[0], fminf(s->y[1], s->y[2]));
            s->y1 = fmaxf(s->y[0], fmaxf(s->y[1], s->y[2]));
        }
    }
    const int bands = (height + BAND_ROWS - 1) / BAND_ROWS;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic)
#endif
    for (int band = 0; band < bands; band++) {
        const int r0 = band * BAND_ROWS, r1 = r0 + BAND_ROWS - 1 < height - 1 ? r0 + BAND_ROWS - 1 : height - 1;
        raster_band(tris, nt, width, height, r0, r1, depth, ids);
    }
    free(tris);
}
