/* izb.c — backend selection and dispatch (the seam of izb.h). */
#include "izb_backend.h"

#include <stdio.h>

#include "izb_config.h"
#if IZB_HAVE_CUDA
#include "../cuda/izb_cuda.h"
#endif

const char *const izb_stage_names[IZB_STAGE_COUNT] = {"reconstruct", "binning", "culling", "raster"};

izb_backend *izb_create(const izb_desc *desc)
{
    izb_desc d = desc ? *desc : (izb_desc){0};
    if (d.backend == IZB_BACKEND_CUDA || d.backend == IZB_BACKEND_AUTO) {
#if IZB_HAVE_CUDA
        izb_backend *b = izb_cuda_create(&d); /* prints why when it cannot */
        if (b)
            return b;
#else
        if (d.backend == IZB_BACKEND_CUDA)
            fprintf(stderr, "izb: this build has no CUDA backend (configure with -Dcuda=enabled)\n");
#endif
        if (d.backend == IZB_BACKEND_CUDA)
            return NULL;
        if (!d.quiet && IZB_HAVE_CUDA)
            fprintf(stderr, "izb: no usable CUDA device, using the CPU backend\n");
    }
    return izb_cpu_create(&d);
}

void izb_destroy(izb_backend *b)
{
    if (b)
        b->vt->destroy(b);
}

const char *izb_name(const izb_backend *b) { return b->vt->name; }

izb_settings izb_settings_resolve(izb_settings s)
{
    if (s.kernel == IZB_KERNEL_DEFAULT)
        s.kernel = IZB_KERNEL1;
    if (s.binning == IZB_BINNING_DEFAULT)
        s.binning = IZB_BINNING_RADIX;
    if (!(s.bias > 0.0f))
        s.bias = IZB_DEFAULT_BIAS;
    if (s.grid_w <= 0 || s.grid_h <= 0)
        s.grid_w = s.grid_h = 0;
    return s;
}

bool izb_set_scene(izb_backend *b, const float *xyz, int tri_count)
{
    return b->vt->set_scene(b, xyz, tri_count);
}

bool izb_shade_arrays(izb_backend *b, const izb_recon *frame, const izb_settings *s, const float *depth,
                      uint8_t *mask, izb_stats *stats)
{
    izb_settings r = izb_settings_resolve(s ? *s : (izb_settings){0});
    izb_recon f = *frame;
    f.bias = r.bias;
    return b->vt->shade_arrays(b, &f, &r, depth, mask, stats);
}

bool izb_supports_gl(const izb_backend *b) { return b->vt->shade_gl != NULL; }

bool izb_shade_gl(izb_backend *b, const izb_recon *frame, const izb_settings *s, unsigned depth_tex,
                  unsigned mask_tex, izb_stats *stats)
{
    if (!b->vt->shade_gl)
        return false;
    izb_settings r = izb_settings_resolve(s ? *s : (izb_settings){0});
    izb_recon f = *frame;
    f.bias = r.bias;
    return b->vt->shade_gl(b, &f, &r, depth_tex, mask_tex, stats);
}

bool izb_get_debug(izb_backend *b, izb_debug *out)
{
    return b->vt->get_debug && b->vt->get_debug(b, out);
}
