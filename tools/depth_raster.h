/* depth_raster.h — a plain CPU z-buffer that renders what the GL depth pass writes (linear view
 * depth, 0 = sky, row 0 at the bottom), so the GPU tests and bench-gpu need neither GL nor Embree.
 * Triangles are clipped at the camera's near plane; depth is interpolated as 1/depth (affine in
 * screen space) and sampled at pixel centres. Not bit-compatible with GL: it only has to give
 * both backends the same realistic input. */
#ifndef DEPTH_RASTER_H
#define DEPTH_RASTER_H

#include "view.h"

/* depth (out): width*height floats. Multi-threaded with OpenMP when available. */
void depth_raster(const float *xyz, int tri_count, const camera *c, int width, int height, float *depth);
/* depth_raster plus ids (out, width*height; NULL: not written): the index of the triangle whose
 * depth each pixel kept, IZB_NO_ID for sky — what a depth pass with primitive ids gives
 * izb_shade_arrays_ids. */
void depth_raster_ids(const float *xyz, int tri_count, const camera *c, int width, int height, float *depth,
                      uint32_t *ids);

#endif
