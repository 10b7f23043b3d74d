/* bench_floor.h — what each IZB stage cannot beat on this machine, timed on the same threads:
 * moving its bytes (memcpy split over the threads) and, for culling, a plain transform of the
 * triangles by the light matrix; and the raster's work in point-triangle tests. */
#ifndef BENCH_FLOOR_H
#define BENCH_FLOOR_H

#include <stddef.h>
#include <stdint.h>

#include "izb.h"

/* ms to copy `bytes` from src to dst, each thread its contiguous slice. */
double bench_floor_memcpy(void *dst, const void *src, size_t bytes, int threads);

/* ms to transform tri_count triangles (9 floats each) by the column-major 4x4 m into out (12
 * floats each: 3 clip-space vertices), izb_transform per vertex, on `threads` threads. */
double bench_floor_transform(const float *xyz, int tri_count, const float m[16], float *out, int threads);

/* Point-triangle tests kernel1 makes: for each triangle, the points of every cell in its range. */
double bench_raster_tests(const izb_tri *tris, int nt, const uint32_t *cell_start, const uint32_t *cell_end,
                          const izb_grid *g);

#endif
