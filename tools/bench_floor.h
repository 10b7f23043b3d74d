/* bench_floor.h — what each IZB stage cannot beat on this machine, timed on the same threads:
 * - reconstruction and binning: a memcpy of as many bytes as the stage reads and writes, each
 *   thread its slice (bench_cpu.c says which bytes);
 * - culling: what any culling must do — read every triangle's 36 bytes and transform its three
 *   vertices by the light matrix (izb_transform) — and nothing more: the transformed values are
 *   summed, not stored (the stage writes 64 bytes only for its survivors), and the loop is built
 *   for AVX-512, AVX2 and FMA like the stage, so the floor is a true lower bound;
 * - raster: no floor, its work in point-triangle tests (bench_raster_tests). */
#ifndef BENCH_FLOOR_H
#define BENCH_FLOOR_H

#include <stddef.h>
#include <stdint.h>

#include "izb.h"

/* ms to copy `bytes` from src to dst, each thread its contiguous slice. */
double bench_floor_memcpy(void *dst, const void *src, size_t bytes, int threads);

/* ms to transform tri_count triangles (9 floats each) by the column-major 4x4 m, izb_transform per
 * vertex, on `threads` threads; the sum of the clip coordinates goes to *checksum (so no compiler
 * can skip the work; its value means nothing). */
double bench_floor_transform(const float *xyz, int tri_count, const float m[16], float *checksum, int threads);

/* Point-triangle tests kernel1 makes: for each triangle, the points of every cell in its range. */
double bench_raster_tests(const izb_tri *tris, int nt, const uint32_t *cell_start, const uint32_t *cell_end,
                          const izb_grid *g);

#endif
