/* izb_update.c — izb_update_scene (izb.h): moving the scene's triangles every frame.
 *
 * The IZB builds no acceleration structure over the triangles, so a moved scene costs it only the
 * new positions: one read pass here (every vertex finite, and the boxes of the closed components
 * that culling auto tests a spot light against, izb_closed.h) and one copy into the backend. The
 * closed-mesh analysis of izb_set_scene (~0.3 s per 1M triangles) is not redone: the caller
 * promises the connectivity is unchanged (izb.h), and a component's closedness depends only on
 * that. Nothing is written before the whole array has been checked, so a refused update leaves
 * the previous scene in place.
 */
#include "izb_backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "izb_parallel.h"

/* per-thread box arrays: threads x comp_count x 6 floats in b->box_scratch; false on OOM */
static bool reserve_box_scratch(izb_backend *b, int threads);
/* one pass over xyz: non-finite triangles counted, closed components' boxes into the first
 * thread's slot of b->box_scratch */
static long check_and_bound(izb_backend *b, const float *xyz, long n, int threads);

static bool reserve_box_scratch(izb_backend *b, int threads)
{
    const size_t need = (size_t)threads * 6 * (size_t)b->closed.comp_count;
    if (need <= b->box_scratch_cap)
        return true;
    free(b->box_scratch);
    b->box_scratch = malloc(need * sizeof(float));
    b->box_scratch_cap = b->box_scratch ? need : 0;
    return b->box_scratch != NULL;
}

static long check_and_bound(izb_backend *b, const float *xyz, long n, int threads)
{
    const uint32_t *comp = b->closed.comp;
    const size_t nb = 6 * (size_t)(comp ? b->closed.comp_count : 0);
    long bad = 0;
#pragma omp parallel num_threads(threads) reduction(+ : bad)
    {
        const int t = THREAD_NUM();
        float *box = nb ? b->box_scratch + (size_t)t * nb : NULL;
        for (size_t k = 0; k < nb; k += 6)
            box[k] = box[k + 1] = box[k + 2] = INFINITY, box[k + 3] = box[k + 4] = box[k + 5] = -INFINITY;
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) {
            /* in locals: through box (a float * like xyz) every compare would be a load and a store */
            float v[9];
            memcpy(v, xyz + 9 * (size_t)i, sizeof v);
            /* NaN and Inf have every exponent bit set: nine independent tests, no float chain */
            uint32_t u[9], nonfinite = 0;
            memcpy(u, v, sizeof u);
            for (int k = 0; k < 9; k++)
                nonfinite |= (u[k] & 0x7f800000u) == 0x7f800000u;
            const bool finite = !nonfinite;
            bad += !finite;
            const uint32_t c = comp ? comp[i] : IZB_OPEN;
            if (c == IZB_OPEN || !finite)
                continue;
            float *bx = box + 6 * (size_t)c;
            for (int a = 0; a < 3; a++) {
                /* finite here: plain compares (fminf would be a libm call, izb_math.h) */
                float lo = v[a] < v[3 + a] ? v[a] : v[3 + a], hi = v[a] > v[3 + a] ? v[a] : v[3 + a];
                lo = v[6 + a] < lo ? v[6 + a] : lo;
                hi = v[6 + a] > hi ? v[6 + a] : hi;
                bx[a] = lo < bx[a] ? lo : bx[a];
                bx[3 + a] = hi > bx[3 + a] ? hi : bx[3 + a];
            }
        }
    }
    /* the union over threads; a thread that saw none of a component leaves +-inf, which min/max skip */
    for (size_t k = 0; k < nb; k++) {
        float m = b->box_scratch[k];
        for (int t = 1; t < threads; t++) {
            const float v = b->box_scratch[(size_t)t * nb + k];
            m = (k % 6) < 3 ? (v < m ? v : m) : (v > m ? v : m);
        }
        b->box_scratch[k] = m;
    }
    return bad;
}

bool izb_update_dispatch(izb_backend *b, const float *xyz, int tri_count, const izb_closed *c)
{
    if (b->vt->update_scene)
        return b->vt->update_scene(b, xyz, tri_count, c->comp ? c->boxes : NULL);
    return b->vt->set_scene(b, xyz, tri_count, c);
}

bool izb_update_scene(izb_backend *b, const float *xyz, int tri_count)
{
    if (b->tri_count < 0) {
        fprintf(stderr, "izb: update_scene: no scene set (izb_set_scene first)\n");
        return false;
    }
    if (tri_count != b->tri_count) {
        fprintf(stderr, "izb: update_scene: %d triangles, but the scene has %d (a new count needs izb_set_scene)\n",
                tri_count, b->tri_count);
        return false;
    }
    if (tri_count > 0 && !xyz) {
        fprintf(stderr, "izb: update_scene: NULL triangle array\n");
        return false;
    }
    const int threads = izb_threads_resolve(b->threads);
    if (b->closed.comp && !reserve_box_scratch(b, threads)) {
        fprintf(stderr, "izb: update_scene: out of memory for %d closed-mesh boxes\n", b->closed.comp_count);
        return false;
    }
    const long bad = check_and_bound(b, xyz, tri_count, threads);
    if (bad) {
        fprintf(stderr, "izb: update_scene: %ld of %d triangles have NaN or Inf vertices; scene not moved\n", bad,
                tri_count);
        return false;
    }
    if (b->closed.comp)
        memcpy(b->closed.boxes, b->box_scratch, 6 * (size_t)b->closed.comp_count * sizeof(float));
    return izb_update_dispatch(b, xyz, tri_count, &b->closed);
}

void izb_update_free(izb_backend *b)
{
    izb_closed_free(&b->closed);
    free(b->box_scratch);
    b->box_scratch = NULL;
    b->box_scratch_cap = 0;
}
