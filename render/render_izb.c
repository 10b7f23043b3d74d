/* render_izb.c — the bridge between the depth pass and the shading pass: the IZB turns the depth
 * target into the mask texture, on GL textures directly when the backend does interop (CUDA),
 * else through host memory (read-back, izb_shade_arrays_ids, upload) with buffers made at resize.
 * Both paths hand the depth pass's primitive ids to the IZB (no self-shadow acne where light grazes
 * a surface), so a CUDA and a CPU frame of the same view give the same mask. */
#include "render_internal.h"

#include <stdio.h>
#include <time.h>

/* monotonic wall clock in ms */
static double now_ms(void);

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* false, with a message, when frame f does not fit the targets */
static bool frame_fits(const render *r, const izb_recon *f)
{
    if (f->width == r->width && f->height == r->height) return true;
    fprintf(stderr, "render: IZB frame is %dx%d but the targets are %dx%d\n", f->width, f->height, r->width,
            r->height);
    return false;
}

/* depth and ids into host memory (every light of the frame reads them from there) */
static void read_back(render *r)
{
    size_t pixels = (size_t)r->width * (size_t)r->height;
    glGetTextureImage(r->tex_depth, 0, GL_RED, GL_FLOAT, (GLsizei)(pixels * sizeof(float)), r->host_depth);
    glGetTextureImage(r->tex_ids, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, (GLsizei)(pixels * sizeof(uint32_t)),
                      r->host_ids);
    r->host_current = true;
}

/* The array path: read back depth and ids, shade `count` frames into host_mask, upload it. */
static bool shade_through_host(render *r, izb_backend *b, const izb_recon *frames, int count,
                               const izb_settings *s, izb_stats *stats)
{
    double t0 = now_ms();
    read_back(r);
    double t1 = now_ms();
    bool ok = izb_shade_arrays_faces(b, frames, count, s, r->host_depth, r->host_ids, r->host_mask,
                                     r->host_face_mask, stats);
    double t2 = now_ms();
    if (ok)
        glTextureSubImage2D(r->tex_mask, 0, 0, 0, r->width, r->height, GL_RED, GL_UNSIGNED_BYTE,
                            r->host_mask);
    double t3 = now_ms();
    r->transfer_ms = (float)((t1 - t0) + (t3 - t2));
    return ok;
}

bool render_shade_izb_faces(render *r, izb_backend *b, const izb_recon *frames, int count, const izb_settings *s,
                            izb_stats *stats)
{
    for (int i = 0; i < count; i++)
        if (!frame_fits(r, &frames[i])) return false;
    return shade_through_host(r, b, frames, count, s, stats);
}

bool render_shade_izb(render *r, izb_backend *b, const izb_recon *f, const izb_settings *s, izb_stats *stats)
{
    if (!frame_fits(r, f)) return false;
    if (izb_supports_gl(b)) {
        r->transfer_ms = 0.0f;
        if (izb_shade_gl(b, f, s, r->tex_depth, r->tex_ids, r->tex_mask, r->targets_generation, stats))
            return true;
        /* After a sticky CUDA error the textures may stay mapped by CUDA: the redraw that follows
         * (another backend) must not use them. Fresh targets (a new generation) are GL's alone. */
        char err[256];
        if (!render_remake_targets(r, err, sizeof err))
            fprintf(stderr, "render: %s\n", err);
        return false;
    }
    return shade_through_host(r, b, f, 1, s, stats);
}

bool render_shade_izb_layer(render *r, izb_backend *b, const izb_recon *frames, int count, const izb_settings *s,
                            izb_stats *stats, int which)
{
    for (int i = 0; i < count; i++)
        if (!frame_fits(r, &frames[i])) return false;
    if (which < 1 || which > r->masks_layers) {
        fprintf(stderr, "render: light %d has no mask layer (%d made)\n", which, r->masks_layers);
        return false;
    }
    double t0 = now_ms();
    if (!r->host_current) read_back(r);
    double t1 = now_ms();
    bool ok = izb_shade_arrays_faces(b, frames, count, s, r->host_depth, r->host_ids, r->host_mask,
                                     r->host_face_mask, stats);
    double t2 = now_ms();
    if (ok)
        glTextureSubImage3D(r->tex_masks, 0, 0, 0, which - 1, r->width, r->height, 1, GL_RED, GL_UNSIGNED_BYTE,
                            r->host_mask);
    r->transfer_ms += (float)((t1 - t0) + (now_ms() - t2));
    return ok;
}
