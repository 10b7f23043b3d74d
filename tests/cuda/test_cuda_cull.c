/* test_cuda_cull.c — stage 3 on the GPU (transform, cull, compact, set up) against izb_ref_cull_ids
 * on the same triangles, frame, grid and bbox, every output of the stage compared: the survivor
 * count; the overflow counter; the set-up records (edge functions, depth plane, bbox / cell range)
 * bit for bit (tri_eq: only NaN payloads may differ); the survivors' scene indices (tri_id) in the
 * same order, which is the contract: compaction keeps input order (an exclusive scan of the
 * flags), so the ids are strictly increasing and equal the CPU's one for one; and nothing written
 * past the count (the 0xAB fill of the device buffers intact). Without tri_id asked for (the
 * backend's path without primitive ids) the same records. A buffer too small for the survivors:
 * the first `capacity` survivors stored, the count clamped, the rest counted as overflows. Back-face
 * culling on and off. Triangles: scenes plus special ones (behind the spot light, crossing its
 * w = 0 plane, one enclosing everything, degenerate, tiny); counts 1, 255..257 (scan and block
 * edges) and whole scenes. bbox/grid: from reconstructed depth images, and a small box that culls
 * most triangles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_fixture.h"
#include "izb_cuda_stages.h"
#include "izb_ref.h"
#include "test.h"

/* the stage's fill (izb_cuda_stage_cull): a slot still holding it was not written */
static bool all_fill(const void *p, size_t bytes)
{
    const unsigned char *c = p;
    for (size_t k = 0; k < bytes; k++)
        if (c[k] != 0xAB) return false;
    return true;
}

/* Every output of the GPU stage against izb_ref_cull_ids, with a buffer of `capacity` triangles
 * (0: n, always enough) and tri_id asked for or not. Returns the CPU's survivor count. */
static int compare_cap(const char *what, const float *xyz, int n, const izb_recon *f, const izb_grid *g,
                       const izb_bbox *b, bool cull_back, int capacity, bool with_ids)
{
    const int cap = capacity > 0 ? capacity : n;
    izb_tri *cpu = xmalloc((size_t)n * sizeof *cpu), *gpu = xmalloc((size_t)cap * sizeof *gpu);
    uint32_t *cpu_id = xmalloc((size_t)n * sizeof *cpu_id), *gpu_id = xmalloc((size_t)cap * sizeof *gpu_id);
    const int cn = izb_ref_cull_ids(xyz, n, f, g, b, cull_back, cpu, cpu_id);
    int gn = -1, over = -1;
    const bool ok = izb_cuda_stage_cull(xyz, n, f, g, b, cull_back, cap, gpu, with_ids ? gpu_id : NULL, &gn, &over);
    CHECK(ok, "%s: GPU culling failed", what);
    if (ok) {
        /* the first min(cn, cap) survivors fit, the rest are counted */
        const int fit = cn < cap ? cn : cap;
        CHECK(gn == fit && over == cn - fit,
              "%s (cull_back %d, capacity %d): count %d and %d overflows on the GPU; the CPU keeps %d", what,
              cull_back, cap, gn, over, cn);
        int bad = 0, bad_id = 0, first = -1;
        for (int i = 0; i < fit && i < gn; i++) {
            const bool t_ok = tri_eq(&cpu[i], &gpu[i]), id_ok = !with_ids || cpu_id[i] == gpu_id[i];
            bad += !t_ok, bad_id += !id_ok;
            if ((!t_ok || !id_ok) && first < 0) first = i;
        }
        CHECK(bad == 0, "%s (cull_back %d): %d of %d set-up triangles differ in their bits (first: survivor %d)",
              what, cull_back, bad, fit, first);
        CHECK(bad_id == 0, "%s (cull_back %d): %d of %d triangle ids differ (first: survivor %d, id %u, want %u)",
              what, cull_back, bad_id, fit, first, first >= 0 ? gpu_id[first] : 0u, first >= 0 ? cpu_id[first] : 0u);
        const int from = gn >= 0 && gn <= cap ? gn : cap;
        CHECK(all_fill(gpu + from, (size_t)(cap - from) * sizeof *gpu) &&
                  (!with_ids || all_fill(gpu_id + from, (size_t)(cap - from) * sizeof *gpu_id)),
              "%s (cull_back %d): the stage wrote past its %d survivors", what, cull_back, gn);
    }
    free(cpu), free(gpu), free(cpu_id), free(gpu_id);
    return cn;
}

/* compare_cap with room for every triangle */
static int compare(const char *what, const float *xyz, int n, const izb_recon *f, const izb_grid *g,
                   const izb_bbox *b, bool cull_back, bool with_ids)
{
    return compare_cap(what, xyz, n, f, g, b, cull_back, 0, with_ids);
}

/* Triangles around the spot light: wholly behind it, crossing its plane both ways, one huge. */
static float *special_tris(const fixture *fx, int *count)
{
    float d[3], u[3] = {1, 0, 0}, v[3], len = 0.0f;
    for (int k = 0; k < 3; k++)
        len += fx->spot.dir[k] * fx->spot.dir[k];
    for (int k = 0; k < 3; k++)
        d[k] = fx->spot.dir[k] / sqrtf(len);
    v[0] = d[1] * u[2] - d[2] * u[1]; /* v = d x u, then u = v x d: an orthonormal frame */
    v[1] = d[2] * u[0] - d[0] * u[2];
    v[2] = d[0] * u[1] - d[1] * u[0];
    u[0] = v[1] * d[2] - v[2] * d[1];
    u[1] = v[2] * d[0] - v[0] * d[2];
    u[2] = v[0] * d[1] - v[1] * d[0];
    /* (along d, along u, along v) offsets from the light, per vertex */
    static const float spec[][3][3] = {
        {{-2, 1, 0}, {-2, -1, 0}, {-3, 0, 1}},      /* behind the light */
        {{3, 1, 0}, {3, -1, 1}, {-1, 0, 0.5f}},     /* crosses w = 0 */
        {{-1, 2, 0}, {5, -2, 1}, {5, 2, -1}},       /* crosses w = 0, other winding */
        {{0.0f, 5, 5}, {30, -40, -40}, {30, 40, -40}}, /* huge, one vertex on w = 0 */
        {{20, -100, -100}, {20, 100, -100}, {20, 0, 100}}, /* encloses the whole view */
        {{10, 0, 0}, {10, 0, 0}, {10, 0, 0}},       /* a point */
        {{10, 0, 0}, {10, 1e-6f, 0}, {10, 0, 1e-6f}}, /* tiny */
    };
    const int ns = (int)(sizeof spec / sizeof spec[0]);
    float *t = xmalloc((size_t)ns * 2 * 9 * sizeof *t);
    for (int i = 0; i < ns; i++)
        for (int w = 0; w < 2; w++) /* both windings */
            for (int j = 0; j < 3; j++) {
                const float *o = spec[i][w ? 2 - j : j];
                for (int k = 0; k < 3; k++)
                    t[(size_t)(2 * i + w) * 9 + 3 * j + k] = fx->spot.pos[k] + o[0] * d[k] + o[1] * u[k] + o[2] * v[k];
            }
    *count = 2 * ns;
    return t;
}

/* the frame's bbox and grid from its reconstructed depth image */
static int frame_grid(const fixture *fx, const izb_recon *f, int req_w, int req_h, izb_grid *g, izb_bbox *b)
{
    const size_t npix = (size_t)f->width * (size_t)f->height;
    float *d = fixture_depth(fx, 0.0f, f->width, f->height);
    izb_point *p = xmalloc(npix * sizeof *p);
    uint8_t *m = xmalloc(npix);
    const int n = izb_ref_reconstruct(f, d, p, m, b);
    *g = izb_grid_make(*b, n, req_w, req_h);
    free(d);
    free(p);
    free(m);
    return n;
}

static void run_scene(fixture *fx)
{
    int ns;
    float *spec = special_tris(fx, &ns);
    const int total = fx->tri_count + ns;
    float *all = xmalloc((size_t)total * 9 * sizeof *all);
    memcpy(all, spec, (size_t)ns * 9 * sizeof *all); /* specials first: they are in every prefix */
    memcpy(all + (size_t)ns * 9, fx->xyz, (size_t)fx->tri_count * 9 * sizeof *all);
    static const int counts[] = {1, 255, 256, 257};
    char what[512];
    for (int spot = 0; spot < 2; spot++) {
        const izb_recon f = fixture_frame(fx, spot, 0.0f, 320, 240);
        static const int req[][2] = {{0, 0}, {5, 3}, {IZB_GRID_MAX_DIM, IZB_GRID_MAX_DIM}};
        for (int r = 0; r < 3; r++) {
            izb_grid g;
            izb_bbox b;
            const int np = frame_grid(fx, &f, req[r][0], req[r][1], &g, &b);
            CHECK(np > 0, "%s: no points", fx->name);
            if (np == 0)
                continue;
            for (int cull = 0; cull < 2; cull++) {
                for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                    const int n = counts[c] < total ? counts[c] : total;
                    snprintf(what, sizeof what, "%s %s grid %dx%d first %d", fx->name, spot ? "spot" : "sun", g.w, g.h, n);
                    compare(what, all, n, &f, &g, &b, cull, c != 1); /* 255: without tri_id */
                }
                snprintf(what, sizeof what, "%s %s grid %dx%d all %d", fx->name, spot ? "spot" : "sun", g.w, g.h, total);
                const int kept = compare(what, all, total, &f, &g, &b, cull, true);
                if (r == 0 && kept >= 2) { /* a buffer for half the survivors: the overflow path */
                    snprintf(what, sizeof what, "%s %s all %d, room for %d", fx->name, spot ? "spot" : "sun", total,
                             kept / 2);
                    compare_cap(what, all, total, &f, &g, &b, cull, kept / 2, true);
                }
                /* equal counts of 0 (or of everything) would pass without testing the
                 * setup or the compaction; a whole scene must keep some and lose some (the
                 * degenerate specials are always culled) */
                CHECK(kept > 0 && kept < total, "%s (cull_back %d): %d of %d survive on the CPU", what, cull, kept, total);
            }
            /* a small box in the middle of the bbox: most triangles are outside */
            const float cx = 0.5f * (b.min_x + b.max_x), cy = 0.5f * (b.min_y + b.max_y);
            const float ex = 0.05f * (b.max_x - b.min_x), ey = 0.05f * (b.max_y - b.min_y);
            const izb_bbox small = {cx - ex, cy - ey, cx + ex, cy + ey};
            const izb_grid sg = izb_grid_make(small, np / 100 + 1, req[r][0], req[r][1]);
            snprintf(what, sizeof what, "%s %s small bbox grid %dx%d", fx->name, spot ? "spot" : "sun", sg.w, sg.h);
            compare(what, all, total, &f, &sg, &small, true, true);
        }
    }
    free(spec);
    free(all);
}

int main(void)
{
    fixture_require_device("cuda_cull");
    fixture fx;
    fixture_synthetic(&fx);
    run_scene(&fx);
    fixture_free(&fx);
    static const char *const names[] = {"default", "tesseract", "spheres"};
    for (int i = 0; i < 3; i++) {
        const bool ok = fixture_builtin(&fx, names[i], i == 0 ? 0 : 100000);
        CHECK(ok, "builtin:%s unavailable", names[i]);
        if (ok) {
            run_scene(&fx);
            fixture_free(&fx);
        }
    }
    return test_done();
}
