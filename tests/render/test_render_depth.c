/* test_render_depth.c — the depth pass writes linear view depth (-z_view) as float32, 0 for sky:
 * a fronto-parallel quad gives its distance at every covered pixel, a tilted plane gives the
 * analytic ray-plane depth at each pixel centre, and the nearer of two surfaces wins. */
#undef NDEBUG
#include <math.h>
#include <stdlib.h>

#include <cglm/cglm.h>

#include "gl_test.h"
#include "render.h"

enum { W = 160, H = 120 };

static float depth[W * H];

/* tri_count triangles (9 floats each) in view space -> world space through the inverse view */
static void view_to_world(const camera *c, const float *in, float *out, int tri_count);
/* upload tri_count triangles (flat normals) */
static void set_tris(render *r, const float *xyz, int tri_count);
/* NDC of the centre of pixel (px, py): the convention of core/izb_math.h */
static void pixel_ndc(int px, int py, float *nx, float *ny);

static void view_to_world(const camera *c, const float *in, float *out, int tri_count)
{
    mat4 view, inv;
    camera_view(c, (float *)view);
    glm_mat4_inv(view, inv);
    for (int i = 0; i < tri_count * 3; i++) {
        vec4 p = {in[3 * i], in[3 * i + 1], in[3 * i + 2], 1.0f}, q;
        glm_mat4_mulv(inv, p, q);
        for (int k = 0; k < 3; k++)
            out[3 * i + k] = q[k];
    }
}

static void set_tris(render *r, const float *xyz, int tri_count)
{
    scene s = {.xyz = (float *)xyz, .tri_count = tri_count};
    for (int k = 0; k < 3; k++) {
        s.bounds_min[k] = -10.0f;
        s.bounds_max[k] = 10.0f;
    }
    char err[256];
    bool ok = render_set_scene(r, &s, err, sizeof err);
    CHECK(ok, "render_set_scene: %s", err);
}

static void pixel_ndc(int px, int py, float *nx, float *ny)
{
    *nx = (float)(2 * px + 1) / (float)W - 1.0f;
    *ny = (float)(2 * py + 1) / (float)H - 1.0f;
}

int main(void)
{
    gl_context ctx;
    gl_test_context(&ctx);
    char err[512];
    render *r = render_create(&(render_desc){.width = W, .height = H}, err, sizeof err);
    CHECK(r != NULL, "render_create: %s", err);
    if (!r) return test_done();

    const float sy = tanf(30.0f * 0.017453292519943295f), sx = sy * (float)W / (float)H; /* fovy 60 */

    /* 1. Quad [-1,1]^2 at z_view = -5 (camera at the origin, looking down -Z): depth 5 where the
     * pixel centre's ray hits the quad, 0 (sky) elsewhere. Pixels whose centre is within 1e-3
     * of the edge may go either way (rasteriser snapping). */
    {
        camera cam = {.near = 0.1f, .far = 100.0f};
        const float quad[18] = {-1, -1, -5, 1, -1, -5, 1, 1, -5, -1, -1, -5, 1, 1, -5, -1, 1, -5};
        set_tris(r, quad, 2);
        render_depth_pass(r, &cam);
        render_read_depth(r, depth);
        int covered = 0, bad_depth = 0, bad_cover = 0;
        for (int py = 0; py < H; py++)
            for (int px = 0; px < W; px++) {
                float nx, ny;
                pixel_ndc(px, py, &nx, &ny);
                float hx = fabsf(nx * sx * 5.0f), hy = fabsf(ny * sy * 5.0f); /* hit point on z=-5 */
                float d = depth[py * W + px];
                bool inside = hx < 1.0f - 1e-3f && hy < 1.0f - 1e-3f;
                bool outside = hx > 1.0f + 1e-3f || hy > 1.0f + 1e-3f;
                if (d != 0.0f) {
                    covered++;
                    if (!(fabsf(d - 5.0f) <= 5.0f * 1e-5f)) bad_depth++;
                }
                if ((inside && d == 0.0f) || (outside && d != 0.0f)) bad_cover++;
            }
        CHECK(covered > 100, "quad covers %d pixels", covered);
        CHECK(bad_depth == 0, "%d covered pixels not at depth 5 (e.g. centre %g)", bad_depth,
              depth[(H / 2) * W + W / 2]);
        CHECK(bad_cover == 0, "%d pixels covered where the quad is not, or not where it is", bad_cover);
        CHECK(depth[0] == 0.0f && depth[W * H - 1] == 0.0f, "corners are sky: %g %g", depth[0],
              depth[W * H - 1]);
    }

    /* 2. A tilted plane filling the view, camera at an arbitrary pose. In view space the plane is
     * n . p = k; the pixel-centre ray p = t * (nx*sx, ny*sy, -1) has depth t = k / (n . dir).
     * Tolerance: 1e-5 relative (float32 interpolation) plus the depth change over 1/256 pixel
     * (the rasteriser snaps vertices to 8 sub-pixel bits, which tilts the plane by that much). */
    {
        camera cam = {.pos = {1.0f, 2.0f, 3.0f}, .yaw = 30.0f, .pitch = -10.0f, .near = 0.1f, .far = 100.0f};
        const float n[3] = {0.3f, -0.4f, 0.866f}, k = -6.0f; /* n.p = k, about 6-10 units away */
        float view_tris[18];
        /* two big triangles on the plane: pick 4 points by solving z from x, y */
        const float corners[4][2] = {{-40, -40}, {40, -40}, {40, 40}, {-40, 40}};
        float pts[4][3];
        for (int i = 0; i < 4; i++) {
            pts[i][0] = corners[i][0];
            pts[i][1] = corners[i][1];
            pts[i][2] = (k - n[0] * pts[i][0] - n[1] * pts[i][1]) / n[2];
        }
        const int idx[6] = {0, 1, 2, 0, 2, 3};
        for (int i = 0; i < 6; i++)
            for (int c = 0; c < 3; c++)
                view_tris[3 * i + c] = pts[idx[i]][c];
        float world[18];
        view_to_world(&cam, view_tris, world, 2);
        set_tris(r, world, 2);
        render_depth_pass(r, &cam);
        render_read_depth(r, depth);
        int bad = 0, sky = 0;
        double worst = 0.0;
        for (int py = 0; py < H; py++)
            for (int px = 0; px < W; px++) {
                float nx, ny;
                pixel_ndc(px, py, &nx, &ny);
                double dx = nx * sx, dy = ny * sy;
                double t = k / (n[0] * dx + n[1] * dy - n[2]);
                /* d t / d pixel, numerically, for the snapping term */
                double dx1 = (nx + 2.0 / W) * sx, dy1 = (ny + 2.0 / H) * sy;
                double tx = k / (n[0] * dx1 + n[1] * dy - n[2]), ty = k / (n[0] * dx + n[1] * dy1 - n[2]);
                double tol = 1e-5 * t + (fabs(tx - t) + fabs(ty - t)) / 256.0;
                float d = depth[py * W + px];
                if (d == 0.0f) {
                    sky++;
                    continue;
                }
                double e = fabs(d - t);
                if (e / t > worst) worst = e / t;
                if (e > tol) bad++;
            }
        printf("tilted plane: worst relative depth error %.3g\n", worst);
        CHECK(sky == 0, "%d pixels of the plane came out as sky", sky);
        CHECK(bad == 0, "%d pixels off the analytic depth (worst relative error %g)", bad, worst);
    }

    /* 3. Two quads, the nearer (z = -3) over half the farther (z = -5): the depth test keeps the
     * nearer, whichever is drawn first. */
    {
        camera cam = {.near = 0.1f, .far = 100.0f};
        const float two[36] = {
            -1, -1, -5, 1, -1, -5, 1, 1, -5, -1, -1, -5, 1, 1, -5, -1, 1, -5, /* far, drawn first */
            0,  -1, -3, 1, -1, -3, 1, 1, -3, 0,  -1, -3, 1, 1, -3, 0,  1, -3, /* near, right half */
        };
        set_tris(r, two, 4);
        render_depth_pass(r, &cam);
        render_read_depth(r, depth);
        float left = depth[(H / 2) * W + W / 2 - 5], right = depth[(H / 2) * W + W / 2 + 5];
        CHECK(fabsf(left - 5.0f) <= 5e-5f, "left of centre sees the far quad: %g", left);
        CHECK(fabsf(right - 3.0f) <= 3e-5f, "right of centre sees the near quad: %g", right);
    }

    /* 4. Resize re-makes the targets at the new size. */
    {
        bool ok = render_resize(r, 64, 32, err, sizeof err);
        CHECK(ok && render_width(r) == 64 && render_height(r) == 32, "resize to 64x32: %s", ok ? "" : err);
        CHECK(!render_resize(r, 0, 32, err, sizeof err), "resize to 0x32 is refused");
    }

    render_destroy(r);
    gl_context_shutdown(&ctx);
    return test_done();
}
