/* izb_closed.h — which triangles back-face culling may drop without changing the answer.
 *
 * Culling a triangle that faces away from the light is exact only where something nearer the
 * light covers the same rays: on a closed, consistently outward-oriented surface every ray from a
 * light outside it enters through a front face before it can leave through a back face. On open
 * or single-sided geometry (cards, planes, leaves) the back face is the only caster, and culling
 * it removes a real shadow. izb_set_scene (izb.c) runs this once per scene and gives the result
 * to the backend; the per-triangle, per-frame decision is izb_may_cull (izb_math.h).
 *
 * A component is a set of triangles connected through shared edges, vertices welded by exact
 * position. It is closed when every one of its edges is used by exactly two of its triangles, once
 * in each direction (a consistently oriented 2-manifold without boundary), and its signed volume
 * is positive (normals point out; an inside-out closed mesh is left open, since culling would drop
 * its entering faces).
 */
#ifndef IZB_CLOSED_H
#define IZB_CLOSED_H

#include <stdbool.h>
#include <stdint.h>

#include "izb_math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct izb_closed {
    uint32_t *comp; /* tri_count entries: the triangle's closed component, or IZB_OPEN (malloc) */
    float *boxes;   /* 6 floats per closed component: min xyz, max xyz (malloc) */
    int comp_count; /* closed components */
    int cullable;   /* triangles in closed components */
} izb_closed;

/* Find the closed components of n triangles (9 floats each), on up to `threads` OpenMP threads
 * (0 = omp_get_max_threads()) but no more than one per 64K triangles; the result never depends on
 * the thread count. Components are numbered in the order of their first triangle. *out is zeroed
 * first; false (with a message) when out of memory, and then *out holds nothing to free. n == 0
 * gives an empty result. Linear time; about 70 bytes of scratch per triangle (izb_closed.c). */
bool izb_closed_find_threads(const float *xyz, int n, int threads, izb_closed *out);
/* izb_closed_find_threads on all threads */
bool izb_closed_find(const float *xyz, int n, izb_closed *out);
/* The same on exactly `threads` threads however few the triangles: for tests, which show on small
 * inputs that the result does not depend on the thread count. */
bool izb_closed_find_exact_threads(const float *xyz, int n, int threads, izb_closed *out);
void izb_closed_free(izb_closed *c);

#ifdef __cplusplus
}
#endif
#endif
