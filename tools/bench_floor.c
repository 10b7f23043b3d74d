/* bench_floor.c — see bench_floor.h. */
#include "bench_floor.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

double bench_floor_memcpy(void *dst, const void *src, size_t bytes, int threads)
{
    const double t0 = now_ms();
#pragma omp parallel num_threads(threads)
    {
        int id = 0, nth = 1;
#ifdef _OPENMP
        id = omp_get_thread_num(), nth = omp_get_num_threads();
#endif
        const size_t lo = bytes * (size_t)id / (size_t)nth, hi = bytes * (size_t)(id + 1) / (size_t)nth;
        memcpy((char *)dst + lo, (const char *)src + lo, hi - lo);
    }
    return now_ms() - t0;
}

/* The transform floor is compiled like the culling stage's hot loop (cpu/cull.c): clones for
 * AVX-512, AVX2 and FMA beside the baseline, picked at run time; built for baseline x86-64 alone,
 * every fmaf would be a libm call and the "floor" slower than the stage it bounds. */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && !defined(IZB_NO_CLONES)
#if __has_attribute(target_clones)
#define FLOOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "fma", "default")))
#endif
#endif
#ifndef FLOOR_CLONES
#define FLOOR_CLONES
#endif

/* the sum of triangles [i0, i1)'s clip coordinates: a vector loop, nothing stored */
FLOOR_CLONES static float transform_sum(const float *xyz, int64_t i0, int64_t i1, const float m[16])
{
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = i0; i < i1; i++) {
        float c[3][4];
        for (int v = 0; v < 3; v++)
            izb_transform(m, xyz + 9 * i + 3 * v, c[v]);
        for (int v = 0; v < 3; v++)
            sum += (c[v][0] + c[v][1]) + (c[v][2] + c[v][3]);
    }
    return sum;
}

double bench_floor_transform(const float *xyz, int tri_count, const float m[16], float *checksum, int threads)
{
    float total = 0.0f;
    const double t0 = now_ms();
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
        int id = 0, nth = 1;
#ifdef _OPENMP
        id = omp_get_thread_num(), nth = omp_get_num_threads();
#endif
        const int64_t lo = (int64_t)tri_count * id / nth, hi = (int64_t)tri_count * (id + 1) / nth;
        total += transform_sum(xyz, lo, hi, m);
    }
    const double ms = now_ms() - t0;
    *checksum = total;
    return ms;
}

double bench_raster_tests(const izb_tri *tris, int nt, const uint32_t *cell_start, const uint32_t *cell_end,
                          const izb_grid *g)
{
    /* per row, prefix sums of the cells' point counts: a range's points in O(rows) */
    const size_t w = (size_t)g->w;
    uint64_t *pre = malloc(sizeof *pre * (w + 1) * (size_t)g->h);
    if (!pre) return -1.0;
    for (int y = 0; y < g->h; y++) {
        uint64_t *row = pre + (size_t)y * (w + 1);
        row[0] = 0;
        for (size_t x = 0; x < w; x++) {
            const size_t c = (size_t)y * w + x;
            row[x + 1] = row[x] + (cell_end[c] - cell_start[c]);
        }
    }
    double tests = 0.0;
    for (int i = 0; i < nt; i++) {
        int cx0, cy0, cx1, cy1;
        izb_tri_cells(&tris[i], g, &cx0, &cy0, &cx1, &cy1);
        for (int y = cy0; y <= cy1; y++) {
            const uint64_t *row = pre + (size_t)y * (w + 1);
            tests += (double)(row[cx1 + 1] - row[cx0]);
        }
    }
    free(pre);
    return tests;
}
