/* test_points.h — test inputs and plain references shared by the CPU stage tests (tests/cpu):
 * random sample points with the adversaries binning and the raster must survive, a plain serial
 * stable counting sort into cells (the binning reference, independent of cpu/binning.c), and a
 * planted pair of points whose verdicts are known (one surely shadowed, one surely lit), so that a
 * mask comparison never passes on an all-lit or all-shadowed case. Include test_rng.h first (the
 * including file's seed drives rnd()). */
#ifndef TEST_POINTS_H
#define TEST_POINTS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "izb_math.h"
#include "test.h"

/* point kinds a case can mix in */
enum { PTS_PLAIN, PTS_CORNERS, PTS_NAN_KEYS, PTS_NAN_POS, PTS_CLUSTER, PTS_KINDS };

/* n points in box b (z in [-1, 1]) with pixel ids a random permutation of 0..n-1; every kind has
 * some exact duplicate positions and points on the box's left and right edges; `kind` adds its
 * adversaries: points on the cell corners of an nx x ny grid over b, NaN keys, NaN x or y, or all
 * but two points in one small corner of the box (the rest of the grid empty). */
static inline void test_points(izb_point *p, int n, izb_bbox b, int kind, int nx, int ny)
{
    const float ex = b.max_x - b.min_x, ey = b.max_y - b.min_y;
    for (int i = 0; i < n; i++) {
        p[i] = (izb_point){(float)rnd_in(b.min_x, b.max_x), (float)rnd_in(b.min_y, b.max_y),
                           (float)rnd_in(-1, 1), (uint32_t)i};
        if (i > 0 && rnd() < 0.05) /* exact duplicate position */
            p[i].x = p[i - 1].x, p[i].y = p[i - 1].y;
        if (rnd() < 0.02) /* on the box's edge */
            p[i].x = rnd() < 0.5 ? b.min_x : b.max_x;
        if (kind == PTS_CORNERS && rnd() < 0.5) {
            p[i].x = b.min_x + ex * (float)(int)(rnd() * (nx + 1)) / (float)nx;
            p[i].y = b.min_y + ey * (float)(int)(rnd() * (ny + 1)) / (float)ny;
        }
        if (kind == PTS_NAN_KEYS && rnd() < 0.2) p[i].z = NAN;
        if (kind == PTS_NAN_POS && rnd() < 0.1) *(rnd() < 0.5 ? &p[i].x : &p[i].y) = NAN;
        if (kind == PTS_CLUSTER && i > 1) /* two points keep the box; the rest crowd one corner */
            p[i].x = b.min_x + 0.025f * (p[i].x - b.min_x), p[i].y = b.min_y + 0.025f * (p[i].y - b.min_y);
    }
    if (kind == PTS_CLUSTER && n > 1) p[0].x = b.min_x, p[0].y = b.min_y, p[1].x = b.max_x, p[1].y = b.max_y;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() * (i + 1));
        uint32_t t = p[i].pixel;
        p[i].pixel = p[j].pixel;
        p[j].pixel = t;
    }
}

/* The binning reference: a serial stable counting sort of in[0..n) by izb_cell_hash into out,
 * cell c's points at out[cs[c] .. ce[c]) in input order (g->w * g->h entries each). */
static inline void test_plain_bin(const izb_point *in, int n, const izb_grid *g, izb_point *out, uint32_t *cs,
                                  uint32_t *ce)
{
    const size_t cells = (size_t)g->w * (size_t)g->h;
    memset(ce, 0, cells * sizeof *ce);
    for (int i = 0; i < n; i++)
        ce[izb_cell_hash(g, in[i].x, in[i].y)]++;
    uint32_t at = 0;
    for (size_t c = 0; c < cells; c++) {
        cs[c] = at;
        at += ce[c];
        ce[c] = cs[c]; /* the cell's next free slot; its end once the scatter is done */
    }
    for (int i = 0; i < n; i++)
        out[ce[izb_cell_hash(g, in[i].x, in[i].y)]++] = in[i];
}

/* Plant a known verdict among n >= 3 points in box b: point (n - 1) / 2 moves to the middle of b
 * with a far key (1; the triangle returned in v lies at depth -1 over it: shadowed whatever else
 * is there) and takes pixel id 2; point n - 1 gets key -inf (nothing is nearer the light: lit)
 * and pixel id 1. Pixel 0 is left alone: it is the one the raster's zeroed padding names.
 * v: a small counter-clockwise triangle in light clip space (w = 1) around the shadowed point. */
static inline void test_plant_verdicts(izb_point *p, int n, izb_bbox b, float v[3][4])
{
    const float cx = 0.5f * (b.min_x + b.max_x), cy = 0.5f * (b.min_y + b.max_y);
    const float r = 0.01f * fmaxf(b.max_x - b.min_x, b.max_y - b.min_y) + 1e-3f;
    const int s = (n - 1) / 2, l = n - 1;
    for (int want = 2; want >= 1; want--) { /* pixel ids 2 and 1 to points s and l (swaps: a permutation) */
        const int to = want == 2 ? s : l;
        for (int i = 0; i < n; i++)
            if (p[i].pixel == (uint32_t)want && i != to) {
                const uint32_t t = p[i].pixel;
                p[i].pixel = p[to].pixel, p[to].pixel = t;
                break;
            }
    }
    p[s].x = cx, p[s].y = cy, p[s].z = 1.0f;
    p[l].z = -INFINITY;
    const float tv[3][4] = {{cx - r, cy - r, -1, 1}, {cx + r, cy - r, -1, 1}, {cx, cy + r, -1, 1}};
    memcpy(v, tv, sizeof tv);
}

#endif
