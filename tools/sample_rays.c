/* sample_rays.c — see sample_rays.h. */
#include "sample_rays.h"

#include <math.h>

#include "izb_aa.h"
#include "izb_area.h"
#include "izb_soft.h"

/* inv = a^-1 (3x3, row-major) */
static void invert3(const double a[3][3], double inv[3][3])
{
    const double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                       a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                       a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            const int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
            inv[r][c] = (a[r1][c1] * a[r2][c2] - a[r1][c2] * a[r2][c1]) / det;
        }
}

void sample_rays_soft_dirs(const izb_recon *f, float *dirs)
{
    izb_soft_light L;
    izb_soft_light_make(f, &L);
    /* world direction of clip direction d: A^-1 d, A the light matrix's upper 3x3 (column-major) */
    double a[3][3], inv[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            a[r][c] = f->light[4 * c + r];
    invert3(a, inv);
    for (int j = 0; j < L.m; j++) {
        const double d[3] = {L.dx[j], L.dy[j], -1.0};
        double w[3], n = 0.0;
        for (int k = 0; k < 3; k++)
            w[k] = inv[k][0] * d[0] + inv[k][1] * d[1] + inv[k][2] * d[2], n += w[k] * w[k];
        for (int k = 0; k < 3; k++)
            dirs[3 * j + k] = (float)(w[k] / sqrt(n));
    }
}

void sample_rays_area_points(const izb_recon *f, double *pts)
{
    izb_soft_light L;
    izb_area_light_make(f, &L);
    /* A-space rows x, y, w of the column-major light matrix: (x, y, w) = a P + t */
    static const int rows[3] = {0, 1, 3};
    double a[3][3], t[3], inv[3][3];
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            a[r][c] = f->light[4 * c + rows[r]];
        t[r] = f->light[12 + rows[r]];
    }
    invert3(a, inv);
    for (int j = 0; j < L.m; j++) {
        const double q[3] = {(double)L.dx[j] - t[0], (double)L.dy[j] - t[1], 0.0 - t[2]};
        for (int k = 0; k < 3; k++)
            pts[3 * j + k] = inv[k][0] * q[0] + inv[k][1] * q[1] + inv[k][2] * q[2];
    }
}

/* pixel i's axes (view space, izb_aa_axes on frame f with neighbours nb) turned to world space by
 * the view matrix m's rotation */
static void axes_at(const izb_recon *f, const izb_aa_view *V, const float m[16], int px, int py, float d,
                    const float nb[4], const uint32_t *ids, const float *xyz, int tri_count, float *out)
{
    const int i = py * f->width + px;
    float A[3] = {0, 0, 0}, B[3] = {0, 0, 0};
    if (!izb_depth_is_sky(d)) {
        float nv[3];
        const bool facet = ids && ids[i] < (uint32_t)tri_count;
        if (facet) izb_aa_facet_normal(V, xyz + 9 * (size_t)ids[i], nv);
        izb_aa_axes(f, px, py, d, nb, facet ? nv : NULL, A, B);
    }
    for (int k = 0; k < 3; k++) {
        out[k] = m[4 * k] * A[0] + m[4 * k + 1] * A[1] + m[4 * k + 2] * A[2];
        out[3 + k] = m[4 * k] * B[0] + m[4 * k + 1] * B[1] + m[4 * k + 2] * B[2];
    }
}

void sample_rays_aa_axes(const izb_recon *f, const camera *cam, const float *depth, const uint32_t *ids,
                         const float *xyz, int tri_count, float *axes)
{
    const int W = f->width, H = f->height;
    /* izb_aa_axes works in view space; the camera's rotation turns the axes to world space */
    float m[16];
    camera_view(cam, m);
    izb_aa_view V;
    izb_aa_view_make(f, &V);
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            const int i = py * W + px;
            const float nb[4] = {px > 0 ? depth[i - 1] : 0.0f, px + 1 < W ? depth[i + 1] : 0.0f,
                                 py > 0 ? depth[i - W] : 0.0f, py + 1 < H ? depth[i + W] : 0.0f};
            axes_at(f, &V, m, px, py, depth[i], nb, ids, xyz, tri_count, axes + 6 * i);
        }
}

void sample_rays_aa_axes_faces(const izb_recon *faces, int count, const camera *cam, const float *depth,
                               const uint32_t *ids, const float *xyz, int tri_count, float *axes)
{
    if (count <= 1 || faces[0].light_is_spot != IZB_LIGHT_FACE) {
        sample_rays_aa_axes(&faces[0], cam, depth, ids, xyz, tri_count, axes);
        return;
    }
    const int W = faces[0].width, H = faces[0].height;
    float m[16];
    camera_view(cam, m);
    izb_aa_view V[IZB_CUBE_FACES];
    for (int f = 0; f < count; f++)
        izb_aa_view_make(&faces[f], &V[f]);
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            const int i = py * W + px;
            const float d = depth[i];
            int o = 0;
            if (!izb_depth_is_sky(d)) {
                float vx, vy, vz;
                izb_view_point(&faces[0], px, py, d, &vx, &vy, &vz);
                o = izb_face_owner(faces, count, vx, vy, vz);
            }
            float nb[4];
            izb_aa_face_neighbours(faces, count, o, depth, px, py, nb);
            axes_at(&faces[o], &V[o], m, px, py, d, nb, ids, xyz, tri_count, axes + 6 * i);
        }
}
