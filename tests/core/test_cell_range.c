/* test_cell_range.c — the cell range izb_tri_setup gives a triangle must hold every point the
 * occlusion test accepts, to the last ulp (suite cpu). A point outside its triangle's range is never
 * tested against it: a silent hole in the shadow.
 *
 * The hard case is a triangle crossing a spot light's w = 0 plane: its front part is unbounded on
 * the image plane, so the range comes from the points' bbox clipped by its edges (izb_clip_rect),
 * whose rounding is covered by a small margin. A coarse lattice of points never comes close enough
 * to the clipped box's edges to see a missing margin, so here the triangles are built with a vertex
 * projecting onto a grid cell corner (the apex of the front wedge sits on a cell boundary) and the
 * points are the 13 x 13 float neighbours of that corner, a few ulps either way, plus points a few
 * ulps around where the edges leave the points' bbox. Every accepted point's cell must lie in the
 * triangle's range. Triangles wholly in front are checked the same way. */
#undef NDEBUG
#include <float.h>
#include <math.h>

#include "izb_math.h"
#include "test.h"
#include "test_rng.h"

enum { GRID = 8, ULPS = 6 };

static float step_ulps(float v, int n)
{
    for (; n > 0; n--)
        v = nextafterf(v, INFINITY);
    for (; n < 0; n++)
        v = nextafterf(v, -INFINITY);
    return v;
}

/* every float neighbour (within ULPS) of (cx, cy) the triangle accepts must be in its range;
 * returns how many were accepted */
static long check_around(const izb_tri *t, const izb_grid *g, const izb_bbox *pb, float cx, float cy,
                         long *outside)
{
    long accepted = 0;
    for (int i = -ULPS; i <= ULPS; i++)
        for (int j = -ULPS; j <= ULPS; j++) {
            float x = step_ulps(cx, i), y = step_ulps(cy, j);
            /* the points' bbox holds every point there is: nothing outside it to miss */
            if (!(x >= pb->min_x && x <= pb->max_x && y >= pb->min_y && y <= pb->max_y)) continue;
            if (!izb_tri_occludes(t, x, y, FLT_MAX)) continue;
            accepted++;
            int ix = izb_cell_x(g, x), iy = izb_cell_y(g, y), cx0, cy0, cx1, cy1;
            izb_tri_cells(t, g, &cx0, &cy0, &cx1, &cy1);
            if (ix < cx0 || ix > cx1 || iy < cy0 || iy > cy1) {
                if (*outside < 5)
                    fprintf(stderr, "point (%.9g, %.9g) in cell (%d, %d) outside range x %d..%d y %d..%d\n",
                            (double)x, (double)y, ix, iy, cx0, cx1, cy0, cy1);
                (*outside)++;
            }
        }
    return accepted;
}

int main(void)
{
    const izb_bbox pb = {-1.0f, -1.0f, 1.0f, 1.0f};
    const izb_grid g = izb_grid_make(pb, 0, GRID, GRID); /* corners at multiples of 0.25: exact */
    long crossing = 0, front = 0, accepted = 0, outside = 0, outside_front = 0;
    for (int n = 0; n < 20000; n++) {
        const bool want_crossing = n % 4 != 0;
        /* the apex on a cell corner, in front of the light */
        const float cx = -1.0f + 0.25f * (float)(1 + (int)(rnd() * (GRID - 1)));
        const float cy = -1.0f + 0.25f * (float)(1 + (int)(rnd() * (GRID - 1)));
        float v[3][4];
        const float w0 = (float)rnd_in(0.3f, 3.0f);
        v[0][0] = cx * w0, v[0][1] = cy * w0, v[0][2] = (float)rnd_in(-1.0f, 1.0f), v[0][3] = w0;
        for (int k = 1; k < 3; k++) {
            /* crossing: at least vertex 1 behind the light; else everything in front */
            const bool behind = want_crossing && (k == 1 || rnd() < 0.5);
            const float w = behind ? -(float)rnd_in(0.05f, 3.0f) : (float)rnd_in(0.3f, 3.0f);
            const float qx = (float)rnd_in(-3.0f, 3.0f), qy = (float)rnd_in(-3.0f, 3.0f);
            v[k][0] = qx * w, v[k][1] = qy * w, v[k][2] = (float)rnd_in(-1.0f, 1.0f), v[k][3] = w;
        }
        izb_tri t;
        if (!izb_tri_setup(v, &g, &pb, false, &t)) continue;
        want_crossing ? crossing++ : front++;
        long before = outside;
        accepted += check_around(&t, &g, &pb, cx, cy, &outside);
        /* where each edge leaves the points' bbox: the clipped polygon's other vertices */
        for (int e = 0; e < 3; e++) {
            const float a = t.e[e][0], b = t.e[e][1], c = t.e[e][2];
            const float xs[2] = {pb.min_x, pb.max_x}, ys[2] = {pb.min_y, pb.max_y};
            for (int s = 0; s < 2; s++) {
                if (fabsf(b) > 1e-6f)
                    accepted += check_around(&t, &g, &pb, xs[s], -(a * xs[s] + c) / b, &outside);
                if (fabsf(a) > 1e-6f)
                    accepted += check_around(&t, &g, &pb, -(b * ys[s] + c) / a, ys[s], &outside);
            }
        }
        if (!want_crossing) outside_front += outside - before;
    }
    printf("%ld crossing and %ld front triangles, %ld accepted points near corners and exits\n", crossing,
           front, accepted);
    CHECK(crossing > 5000 && front > 2000, "enough triangles set up: %ld crossing, %ld front", crossing,
          front);
    CHECK(accepted > 100000, "enough accepted points: %ld", accepted);
    CHECK(outside == 0, "%ld accepted points outside their triangle's cell range (%ld of front triangles)",
          outside, outside_front);
    return test_done();
}
