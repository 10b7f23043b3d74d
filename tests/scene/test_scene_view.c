/* test_scene_view.c — the light's matrices (scene/view.c, light_matrices) cover what they promise:
 * a spot light's image is its cone, the same opening in every direction around the axis, in both
 * the IZB matrix and the GL one, with the IZB depth key z/w = -1/(distance along the axis); a
 * directional light's box holds the scene's bounding sphere, centred, touching its sides. A wrong
 * aspect, angle, extent or depth row in either matrix fails here, whatever the renderer shows. */
#include <math.h>

#include "test.h"
#include "view.h"

#define DEG_TO_RAD 0.017453292519943295f

/* clip = m * (p, 1), m column-major as cglm stores it */
static void xform(const float m[16], const float p[3], float clip[4])
{
    for (int r = 0; r < 4; r++)
        clip[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

static void normalise(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++)
        v[i] /= l;
}

/* two unit vectors perpendicular to the unit d and to each other (independent of how view.c picks
 * its up vector: the checks below hold for every azimuth) */
static void basis(const float d[3], float u[3], float w[3])
{
    const float a[3] = {fabsf(d[0]) < 0.9f ? 1.0f : 0.0f, fabsf(d[0]) < 0.9f ? 0.0f : 1.0f, 0.0f};
    u[0] = d[1] * a[2] - d[2] * a[1], u[1] = d[2] * a[0] - d[0] * a[2], u[2] = d[0] * a[1] - d[1] * a[0];
    normalise(u);
    w[0] = d[1] * u[2] - d[2] * u[1], w[1] = d[2] * u[0] - d[0] * u[2], w[2] = d[0] * u[1] - d[1] * u[0];
}

static void check_spot(const float dir_in[3], float cone_deg)
{
    const float bmin[3] = {-4.0f, 0.0f, -3.0f}, bmax[3] = {5.0f, 2.0f, 6.0f};
    light l = {.type = LIGHT_SPOT, .dir = {dir_in[0], dir_in[1], dir_in[2]}, .pos = {1.0f, 9.0f, 2.0f},
               .cone_deg = cone_deg};
    float izb[16], gl[16], d[3], u[3], w[3];
    light_matrices(&l, bmin, bmax, izb, gl);
    light_direction(&l, d);
    basis(d, u, w);
    const float half = 0.5f * (cone_deg > 0.0f ? cone_deg : 60.0f) * DEG_TO_RAD;
    for (int k = 0; k < 12; k++) {
        const float phi = (float)k * 30.0f * DEG_TO_RAD, dist = 3.0f + (float)k;
        float ray[3], p[3], ci[4], cg[4];
        for (int i = 0; i < 3; i++) {
            ray[i] = cosf(half) * d[i] + sinf(half) * (cosf(phi) * u[i] + sinf(phi) * w[i]);
            p[i] = l.pos[i] + dist * ray[i];
        }
        xform(izb, p, ci);
        xform(gl, p, cg);
        const float ri = hypotf(ci[0] / ci[3], ci[1] / ci[3]), rg = hypotf(cg[0] / cg[3], cg[1] / cg[3]);
        CHECK(fabsf(ri - 1.0f) < 1e-3f && fabsf(rg - 1.0f) < 1e-3f,
              "spot cone %.0f deg, azimuth %d deg: a point on the cone's edge at NDC radius %.4f (izb) / %.4f "
              "(gl), want 1", (double)cone_deg, k * 30, (double)ri, (double)rg);
        const float along = dist * cosf(half); /* distance along the axis */
        CHECK(fabsf(ci[2] / ci[3] + 1.0f / along) < 1e-4f / along,
              "spot IZB key z/w = %g at axial distance %g, want -1/distance", (double)(ci[2] / ci[3]), (double)along);
    }
    /* the scene's far end (the bounding sphere's point farthest from the light) lies inside the GL
     * depth range: a far plane that cuts the scene fails */
    float centre[3], away[3], far_pt[3], c[4], r = 0.0f;
    for (int i = 0; i < 3; i++) {
        centre[i] = 0.5f * (bmin[i] + bmax[i]);
        away[i] = centre[i] - l.pos[i];
        r += 0.25f * (bmax[i] - bmin[i]) * (bmax[i] - bmin[i]);
    }
    r = sqrtf(r);
    normalise(away);
    for (int i = 0; i < 3; i++)
        far_pt[i] = centre[i] + 0.99f * r * away[i];
    xform(gl, far_pt, c);
    CHECK(c[3] > 0.0f && c[2] / c[3] > -1.0f && c[2] / c[3] < 1.0f, "spot: the scene's far end at GL depth %g",
          (double)(c[2] / c[3]));
}

static void check_directional(const float dir_in[3])
{
    const float bmin[3] = {-4.0f, 0.0f, -3.0f}, bmax[3] = {5.0f, 2.0f, 6.0f};
    light l = {.type = LIGHT_DIRECTIONAL, .dir = {dir_in[0], dir_in[1], dir_in[2]}};
    float izb[16], gl[16], d[3], u[3], w[3], centre[3];
    light_matrices(&l, bmin, bmax, izb, gl);
    light_direction(&l, d);
    basis(d, u, w);
    float r = 0.0f;
    for (int i = 0; i < 3; i++) {
        centre[i] = 0.5f * (bmin[i] + bmax[i]);
        r += 0.25f * (bmax[i] - bmin[i]) * (bmax[i] - bmin[i]);
    }
    r = sqrtf(r); /* the bounds' circumscribed sphere: every corner on it */
    for (int i = 0; i < 16; i++)
        CHECK(izb[i] == gl[i], "directional: the IZB and GL matrices differ at %d", i);
    float c[4];
    xform(izb, centre, c);
    CHECK(fabsf(c[0] / c[3]) < 1e-5f && fabsf(c[1] / c[3]) < 1e-5f && fabsf(c[2] / c[3]) < 1.0f,
          "directional: the scene's centre at (%g, %g, %g), want the image's centre inside the depth range",
          (double)(c[0] / c[3]), (double)(c[1] / c[3]), (double)(c[2] / c[3]));
    for (int k = 0; k < 12; k++) { /* the sphere's rim across the light touches the box's sides */
        const float phi = (float)k * 30.0f * DEG_TO_RAD;
        float p[3];
        for (int i = 0; i < 3; i++)
            p[i] = centre[i] + r * (cosf(phi) * u[i] + sinf(phi) * w[i]);
        xform(izb, p, c);
        const float rad = hypotf(c[0] / c[3], c[1] / c[3]);
        CHECK(fabsf(rad - 1.0f) < 1e-3f, "directional: the bounding sphere's rim at NDC radius %.4f, want 1",
              (double)rad);
    }
    for (int s = -1; s <= 1; s += 2) { /* the sphere's ends along the light: inside the depth range, in order */
        float p[3], q[3], cp[4], cq[4];
        for (int i = 0; i < 3; i++)
            p[i] = centre[i] + 0.999f * (float)s * r * d[i], q[i] = centre[i];
        xform(izb, p, cp);
        xform(izb, q, cq);
        const float zp = cp[2] / cp[3], zq = cq[2] / cq[3];
        CHECK(zp > -1.0f && zp < 1.0f && (s > 0 ? zp > zq : zp < zq),
              "directional: the sphere's %s end at depth %g (centre %g): outside the box or out of order",
              s > 0 ? "far" : "near", (double)zp, (double)zq);
    }
}

int main(void)
{
    const float dirs[][3] = {{0.0f, -1.0f, 0.0f}, {0.3f, -1.0f, 0.2f}, {-1.0f, -0.4f, 0.5f}, {0.0f, -0.2f, -1.0f}};
    for (int i = 0; i < 4; i++) {
        check_spot(dirs[i], 0.0f);
        check_spot(dirs[i], 35.0f);
        check_spot(dirs[i], 120.0f);
        check_directional(dirs[i]);
    }
    return test_done();
}
