/* view.c — fly camera, light matrices, and the per-frame IZB parameters. */
#include "view.h"
#include "izb_soft.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

static const float DEG = 0.017453292519943295f;

const char *const light_type_names[LIGHT_TYPE_COUNT] = {"directional", "spot", "point"};

const char *light_kind_name(const light *l)
{
    if ((unsigned)l->type >= LIGHT_TYPE_COUNT) return "?";
    return l->type == LIGHT_SPOT && (l->size[0] > 0.0f || l->size[1] > 0.0f) ? "area" : light_type_names[l->type];
}

light_set light_set_one(const light *l)
{
    light_set s = {.count = 1, .l = {*l}, .intensity = {1.0f}};
    return s;
}

/* centre and radius of the bounds' bounding sphere (radius at least a small positive value) */
static float bounds_sphere(const float bmin[3], const float bmax[3], vec3 centre)
{
    vec3 d;
    for (int i = 0; i < 3; i++) {
        centre[i] = 0.5f * (bmin[i] + bmax[i]);
        d[i] = bmax[i] - bmin[i];
    }
    float r = 0.5f * glm_vec3_norm(d);
    return r > 1e-6f ? r : 1e-6f;
}

void camera_forward(const camera *c, float out[3])
{
    float cy = cosf(c->yaw * DEG), sy = sinf(c->yaw * DEG);
    float cp = cosf(c->pitch * DEG), sp = sinf(c->pitch * DEG);
    out[0] = cp * sy;
    out[1] = sp;
    out[2] = -cp * cy;
}

bool light_dir_usable(const float dir[3])
{
    float sum = fabsf(dir[0]) + fabsf(dir[1]) + fabsf(dir[2]);
    return isfinite(sum) && sum > 1e-6f;
}

void light_direction(const light *l, float out[3])
{
    vec3 d = {l->dir[0], l->dir[1], l->dir[2]};
    if (glm_vec3_norm(d) < 1e-12f)
        glm_vec3_copy((vec3){0.0f, -1.0f, 0.0f}, d);
    glm_vec3_normalize(d);
    glm_vec3_copy(d, out);
}

void camera_right(const camera *c, float out[3])
{
    out[0] = cosf(c->yaw * DEG);
    out[1] = 0.0f;
    out[2] = sinf(c->yaw * DEG);
}

/* A view matrix looking along dir. glm_lookat(eye, eye + dir) loses dir to rounding once |eye| is
 * large (a unit step is quantised to ulp(|eye|), and vanishes from 1.7e7 on): the camera of a
 * huge or far-off model then looked anywhere, often at nothing (issue 22, defect 6). Beyond
 * EXACT_FROM the matrix is built from dir itself; nearer, glm_lookat's construction is kept, whose
 * error there is under 1.2e-4 radians and whose bits the renderer's tests and recorded paths know. */
static const float EXACT_FROM = 1024.0f;
static void look_along(const vec3 eye, const vec3 dir, const vec3 up, mat4 dest)
{
    if (fabsf(eye[0]) < EXACT_FROM && fabsf(eye[1]) < EXACT_FROM && fabsf(eye[2]) < EXACT_FROM) {
        vec3 centre;
        glm_vec3_add((float *)eye, (float *)dir, centre);
        glm_lookat((float *)eye, centre, (float *)up, dest);
        return;
    }
    vec3 f, s, u;
    glm_vec3_normalize_to((float *)dir, f);
    glm_vec3_crossn(f, (float *)up, s);
    glm_vec3_cross(s, f, u);
    dest[0][0] = s[0], dest[0][1] = u[0], dest[0][2] = -f[0], dest[0][3] = 0.0f;
    dest[1][0] = s[1], dest[1][1] = u[1], dest[1][2] = -f[1], dest[1][3] = 0.0f;
    dest[2][0] = s[2], dest[2][1] = u[2], dest[2][2] = -f[2], dest[2][3] = 0.0f;
    dest[3][0] = -glm_vec3_dot(s, (float *)eye);
    dest[3][1] = -glm_vec3_dot(u, (float *)eye);
    dest[3][2] = glm_vec3_dot(f, (float *)eye);
    dest[3][3] = 1.0f;
}

void camera_view(const camera *c, float out[16])
{
    vec3 eye = {c->pos[0], c->pos[1], c->pos[2]}, fwd, up = {0.0f, 1.0f, 0.0f};
    camera_forward(c, fwd);
    look_along(eye, fwd, up, (vec4 *)out);
}

void camera_proj(const camera *c, float aspect, float out[16])
{
    float fovy = c->fovy > 0.0f ? c->fovy : 60.0f;
    float n = c->near > 0.0f ? c->near : 0.01f, f = c->far > n ? c->far : n * 1e4f;
    glm_perspective(fovy * DEG, aspect > 0.0f ? aspect : 1.0f, n, f, (vec4 *)out);
}

void camera_fit_clip(camera *c, const float bmin[3], const float bmax[3])
{
    vec3 centre, eye = {c->pos[0], c->pos[1], c->pos[2]};
    float r = bounds_sphere(bmin, bmax, centre);
    c->near = 2e-3f * r;
    c->far = glm_vec3_distance(eye, centre) + 1.5f * r;
    if (isfinite(c->near) && isfinite(c->far)) return;
    /* squares of extents beyond 1.8e19 overflow a float: the same in double */
    double d2 = 0.0, e2 = 0.0;
    for (int i = 0; i < 3; i++) {
        double side = (double)bmax[i] - bmin[i], to = 0.5 * ((double)bmin[i] + bmax[i]) - c->pos[i];
        d2 += side * side;
        e2 += to * to;
    }
    double rd = fmax(0.5 * sqrt(d2), 1e-6);
    c->near = (float)fmin(2e-3 * rd, FLT_MAX / 4);
    c->far = (float)fmin(sqrt(e2) + 1.5 * rd, FLT_MAX);
}

/* an up vector not parallel to dir */
static void pick_up(const vec3 dir, vec3 up)
{
    if (fabsf(dir[1]) > 0.99f)
        glm_vec3_copy((vec3){0.0f, 0.0f, -1.0f}, up);
    else
        glm_vec3_copy((vec3){0.0f, 1.0f, 0.0f}, up);
}

/* A light at pos looking along dir through a square frustum of cone_deg (full angle). */
static void perspective_light(const float pos[3], const vec3 dir, const vec3 up, float cone_deg,
                              const float bmin[3], const float bmax[3], float izb[16], float gl[16])
{
    vec3 centre, eye = {pos[0], pos[1], pos[2]};
    float r = bounds_sphere(bmin, bmax, centre);
    mat4 view, proj, m;
    look_along(eye, (float *)dir, (float *)up, view);
    float far = glm_vec3_distance(eye, centre) + r;
    glm_perspective(cone_deg * DEG, 1.0f, 1e-3f * far, far, proj);
    if (gl)
        glm_mat4_mul(proj, view, (vec4 *)gl);
    /* IZB depth key: clip z = -1 for every point, so z/w = -1/w grows with distance and is
     * affine on the light's image plane. No near/far: nothing between the light and the
     * scene is clipped away. */
    proj[0][2] = proj[1][2] = proj[2][2] = 0.0f;
    proj[3][2] = -1.0f;
    glm_mat4_mul(proj, view, m);
    if (izb)
        memcpy(izb, m, sizeof(mat4));
}

void light_face_matrices(const light *l, int face, const float bmin[3], const float bmax[3], float izb[16],
                         float gl[16])
{
    /* the cube map's axes and up vectors (any choice covers every direction once: 90-degree
     * square frusta along the six axes tile the sphere of directions) */
    static const float axis[LIGHT_CUBE_FACES][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0},
                                                    {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    static const float upv[LIGHT_CUBE_FACES][3] = {{0, -1, 0}, {0, -1, 0}, {0, 0, 1},
                                                   {0, 0, -1}, {0, -1, 0}, {0, -1, 0}};
    const int f = face >= 0 && face < LIGHT_CUBE_FACES ? face : 0;
    vec3 dir = {axis[f][0], axis[f][1], axis[f][2]}, up = {upv[f][0], upv[f][1], upv[f][2]};
    perspective_light(l->pos, dir, up, 90.0f, bmin, bmax, izb, gl);
}

void light_matrices(const light *l, const float bmin[3], const float bmax[3], float izb[16], float gl[16])
{
    vec3 centre, dir, up;
    float r = bounds_sphere(bmin, bmax, centre);
    mat4 view, proj, m;
    light_direction(l, dir);
    pick_up(dir, up);
    if (l->type == LIGHT_SPOT || l->type == LIGHT_POINT) {
        float cone = l->type == LIGHT_POINT ? 90.0f : l->cone_deg > 0.0f ? l->cone_deg : 60.0f;
        perspective_light(l->pos, dir, up, cone, bmin, bmax, izb, gl);
        return;
    }
    vec3 eye;
    glm_vec3_scale(dir, -2.0f * r, eye);
    glm_vec3_add(eye, centre, eye);
    glm_lookat(eye, centre, up, view);
    glm_ortho(-r, r, -r, r, r, 3.0f * r, proj);
    glm_mat4_mul(proj, view, m);
    if (gl)
        glm_mat4_copy(m, (vec4 *)gl);
    if (izb)
        memcpy(izb, m, sizeof(mat4));
}

/* The frame for the light matrix world_to_light (world -> light clip). */
static izb_recon frame_for(const camera *c, const float world_to_light[16], int light_is_spot, int width,
                           int height)
{
    izb_recon f;
    memset(&f, 0, sizeof f);
    mat4 view, inv_view, proj, m;
    camera_view(c, (float *)view);
    camera_proj(c, (float)width / (float)(height > 0 ? height : 1), (float *)proj);
    glm_mat4_inv(view, inv_view);
    memcpy(f.light, world_to_light, sizeof f.light);
    glm_mat4_mul((vec4 *)f.light, inv_view, m);
    memcpy(f.cam_to_light, m, sizeof m);
    /* the view ray through NDC (1, 1) at unit depth: taken from the matrix the depth pass uses */
    f.ray_sx = 1.0f / proj[0][0];
    f.ray_sy = 1.0f / proj[1][1];
    f.width = width;
    f.height = height;
    f.light_is_spot = light_is_spot;
    f.bias = IZB_DEFAULT_BIAS;
    return f;
}

izb_recon izb_frame_make(const camera *c, const light *l, const float bmin[3], const float bmax[3],
                         int width, int height)
{
    float m[16];
    light_matrices(l, bmin, bmax, m, NULL);
    izb_recon f = frame_for(c, m, l->type == LIGHT_DIRECTIONAL ? 0 : l->type == LIGHT_POINT ? IZB_LIGHT_FACE : IZB_LIGHT_SPOT,
                            width, height);
    if (l->type == LIGHT_DIRECTIONAL && l->angle_deg > 0.0f) { /* NaN: hard, and izb.c never sees it */
        f.light_angle = l->angle_deg * DEG;
        f.light_samples = l->samples > 0 ? l->samples : IZB_SOFT_DEFAULT_SAMPLES;
    }
    if (l->type == LIGHT_SPOT && (l->size[0] != 0.0f || l->size[1] != 0.0f)) { /* bad sizes: izb.c refuses them */
        f.light_size[0] = l->size[0], f.light_size[1] = l->size[1];
        f.light_disk = l->shape;
        f.light_samples = l->samples > 0 ? l->samples : IZB_SOFT_DEFAULT_SAMPLES;
    }
    return f;
}

int izb_frame_make_faces(const camera *c, const light *l, const float bmin[3], const float bmax[3], int width,
                         int height, izb_recon out[LIGHT_CUBE_FACES])
{
    if (l->type != LIGHT_POINT) {
        out[0] = izb_frame_make(c, l, bmin, bmax, width, height);
        return 1;
    }
    for (int i = 0; i < LIGHT_CUBE_FACES; i++) {
        float m[16];
        light_face_matrices(l, i, bmin, bmax, m, NULL);
        out[i] = frame_for(c, m, IZB_LIGHT_FACE, width, height);
    }
    return LIGHT_CUBE_FACES;
}
