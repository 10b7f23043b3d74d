/* test_cuda_backend.c — the CUDA backend end to end through izb.h against the CPU backend on the
 * same scene and depth images: the same mask (0 mismatches, see test_cuda_raster.c for why) for
 * kernel1/kernel2 x radix/atomic x every unit size, with adaptive and fixed grids and back-face
 * culling on and off; the same stats (points, triangles after culling, grid, bbox); the same cell
 * ranges and per-cell points from izb_get_debug; frames without points (all sky) and without
 * triangles; resolution changes up and down (buffer growth); bad settings rejected; frames with
 * primitive ids (izb_shade_arrays_ids, ids from the test's z-buffer).
 * The GL path (izb_shade_gl, CUDA-GL interop) is tested with the renderer: render_frame_cuda
 * (tests/render) and app_cuda_mask (tests/app). */
#include <stdlib.h>
#include <string.h>

#include "gpu_fixture.h"
#include "izb.h"
#include "test.h"

static size_t mask_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += a[i] != b[i];
    return d;
}

/* The debug views of both backends: same grid and cell ranges, same points per cell. */
static void compare_debug(const char *what, izb_backend *cpu, izb_backend *gpu)
{
    izb_debug c, g;
    const bool ok = izb_get_debug(cpu, &c) && izb_get_debug(gpu, &g);
    CHECK(ok, "%s: izb_get_debug failed", what);
    if (!ok)
        return;
    CHECK(c.point_count == g.point_count && grid_eq(&c.grid, &g.grid), "%s: debug %d points grid %dx%d vs %d %dx%d",
          what, g.point_count, g.grid.w, g.grid.h, c.point_count, c.grid.w, c.grid.h);
    if (c.point_count != g.point_count || c.point_count == 0 || !grid_eq(&c.grid, &g.grid))
        return;
    const size_t cells = (size_t)c.grid.w * (size_t)c.grid.h, n = (size_t)c.point_count;
    size_t bad_cells = 0;
    for (size_t i = 0; i < cells; i++)
        bad_cells += c.cell_start[i] != g.cell_start[i] || c.cell_end[i] != g.cell_end[i];
    CHECK(bad_cells == 0, "%s: %zu cells differ", what, bad_cells);
    if (bad_cells)
        return;
    izb_point *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
    memcpy(a, c.points, n * sizeof *a);
    memcpy(b, g.points, n * sizeof *b);
    for (size_t i = 0; i < cells; i++) {
        qsort(a + c.cell_start[i], c.cell_end[i] - c.cell_start[i], sizeof *a, point_by_pixel);
        qsort(b + c.cell_start[i], c.cell_end[i] - c.cell_start[i], sizeof *b, point_by_pixel);
    }
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += !point_eq(&a[i], &b[i]);
    CHECK(bad == 0, "%s: %zu binned points differ", what, bad);
    free(a);
    free(b);
}

/* One frame on both backends with settings s; the masks and stats must agree. Returns the CPU
 * mask's zero pixels (shadowed, or outside a spot light's cone). */
static size_t compare_frame(const char *what, izb_backend *cpu, izb_backend *gpu, const izb_recon *f,
                            const float *depth, const uint32_t *ids, const izb_settings *s, bool debug)
{
    const size_t npix = (size_t)f->width * (size_t)f->height;
    uint8_t *cm = xmalloc(npix), *gm = xmalloc(npix);
    memset(gm, 77, npix); /* every pixel must be written */
    size_t zeros = 0;
    izb_stats cs, gs;
    const bool cok = izb_shade_arrays_ids(cpu, f, s, depth, ids, cm, &cs);
    const bool gok = izb_shade_arrays_ids(gpu, f, s, depth, ids, gm, &gs);
    CHECK(cok && gok, "%s: shade failed (cpu %d, cuda %d)", what, cok, gok);
    if (cok && gok) {
        const size_t diff = mask_diff(cm, gm, npix);
        CHECK(diff == 0, "%s: %zu of %zu pixels differ", what, diff, npix);
        CHECK(gs.points == cs.points && gs.tris_in == cs.tris_in && gs.tris_after_cull == cs.tris_after_cull,
              "%s: stats points %d/%d tris %d/%d after cull %d/%d", what, gs.points, cs.points, gs.tris_in,
              cs.tris_in, gs.tris_after_cull, cs.tris_after_cull);
        CHECK(gs.grid_w == cs.grid_w && gs.grid_h == cs.grid_h, "%s: grid %dx%d vs %dx%d", what, gs.grid_w, gs.grid_h,
              cs.grid_w, cs.grid_h);
        CHECK(gs.points == 0 || bbox_eq(&gs.bbox, &cs.bbox), "%s: bbox differs", what);
        CHECK(gs.overflows == 0, "%s: %d overflows", what, gs.overflows);
        CHECK(gs.kernel == cs.kernel && gs.binning == cs.binning, "%s: kernel/binning stats", what);
        CHECK(s->unit_size == 0 ? (gs.unit_size == 32 || gs.unit_size == 64 || gs.unit_size == 128 ||
                                   gs.unit_size == 256)
                                : gs.unit_size == s->unit_size,
              "%s: unit size %d", what, gs.unit_size);
        float sum = 0.0f;
        for (int i = 0; i < IZB_STAGE_COUNT; i++)
            sum += gs.stage_ms[i] >= 0.0f ? gs.stage_ms[i] : 1e9f;
        CHECK(gs.total_ms >= 0.0f && sum <= gs.total_ms * 1.01f + 0.01f, "%s: stage times %g > total %g", what, sum,
              gs.total_ms);
        if (debug)
            compare_debug(what, cpu, gpu);
        for (size_t i = 0; i < npix; i++)
            zeros += cm[i] == 0;
    }
    free(cm);
    free(gm);
    return zeros;
}

/* full: a 640x360 frame between two smaller ones (buffers grow, then shrink) and every unit size.
 * The synthetic scene runs it; the built-in scenes (30K triangles, minutes each on the emulator)
 * keep to 331x199 and 1x1 and the automatic unit, which prove the same code on their triangles.
 * The frames are small: 320x180 and 331x199 (odd: partial blocks and tiles) run every kernel x
 * binning x unit; the growth frame was 1280x720 until CI ran out of time (4x the pixels, no new
 * path, and no planted bug in cuda/simt/mutants.py needs it). */
static void run_scene(const fixture *fx, izb_backend *cpu, izb_backend *gpu, bool full)
{
    CHECK(izb_set_scene(cpu, fx->xyz, fx->tri_count) && izb_set_scene(gpu, fx->xyz, fx->tri_count),
          "%s: set_scene failed", fx->name);
    static const int sizes[][2] = {{320, 180}, {640, 360}, {331, 199}, {1, 1}};
    static const int units[] = {0, 32, 64, 128, 256};
    char what[512];
    size_t sun_shadow = 0; /* masks equal but all lit on both sides would test nothing */
    for (int s = 0; s < 4; s++)
        for (int spot = 0; spot < 2; spot++) {
            const int w = sizes[s][0], h = sizes[s][1];
            const bool big = w * h > 331 * 199;
            if (!full && s < 2) continue; /* the built-in scenes: 331x199 and 1x1 */
            const float yaw = -15.0f + 15.0f * (float)s;
            uint32_t *ids;
            float *depth = fixture_depth_ids(fx, yaw, w, h, &ids);
            const izb_recon f = fixture_frame(fx, spot, yaw, w, h);
            for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2; kernel++)
                for (int bin = IZB_BINNING_RADIX; bin <= IZB_BINNING_ATOMIC; bin++)
                    for (int u = 0; u < 5; u++) {
                        /* the unit sizes prove the same at any frame size; at 640x360 (the growth
                         * frame) the automatic one only */
                        if ((big || !full) && u > 0) continue;
                        const izb_settings st = {.kernel = (izb_kernel)kernel, .binning = (izb_binning)bin,
                                                 .unit_size = units[u]};
                        snprintf(what, sizeof what, "%s %dx%d %s kernel%d %s unit %d", fx->name, w, h,
                                 spot ? "spot" : "sun", kernel, bin == IZB_BINNING_ATOMIC ? "atomic" : "radix", units[u]);
                        const size_t z = compare_frame(what, cpu, gpu, &f, depth, NULL, &st, u == 0);
                        sun_shadow += spot ? 0 : z; /* the sun leaves nothing unlit: zeros are shadow */
                    }
            if (big) { /* the settings below are size-independent: the small frames cover them */
                free(ids);
                free(depth);
                continue;
            }
            const izb_settings fixed = {.grid_w = 16, .grid_h = 9, .binning = IZB_BINNING_ATOMIC};
            snprintf(what, sizeof what, "%s %dx%d %s grid 16x9", fx->name, w, h, spot ? "spot" : "sun");
            compare_frame(what, cpu, gpu, &f, depth, NULL, &fixed, true);
            const izb_settings nocull = {.cull = IZB_CULL_OFF, .kernel = IZB_KERNEL2, .bias = 1e-3f};
            snprintf(what, sizeof what, "%s %dx%d %s no cull, bias 1e-3", fx->name, w, h, spot ? "spot" : "sun");
            compare_frame(what, cpu, gpu, &f, depth, NULL, &nocull, true);
            /* primitive ids: a point's own triangle (or plane) never shadows it (izb_hit_is_own) */
            for (int kernel = IZB_KERNEL1; kernel <= IZB_KERNEL2; kernel++) {
                const izb_settings st = {.kernel = (izb_kernel)kernel};
                snprintf(what, sizeof what, "%s %dx%d %s kernel%d with ids", fx->name, w, h,
                         spot ? "spot" : "sun", kernel);
                compare_frame(what, cpu, gpu, &f, depth, ids, &st, kernel == IZB_KERNEL1);
            }
            /* bad ids (past the scene, IZB_NO_ID) mixed with right and wrong ones: unknown ids
             * are never read as triangles, on both backends alike */
            for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
                ids[i] = (uint32_t)(frand(0.0, 2.0 * fx->tri_count + 2.0));
            for (size_t i = 0; i < (size_t)w * (size_t)h; i += 7)
                ids[i] = IZB_NO_ID;
            snprintf(what, sizeof what, "%s %dx%d %s random ids", fx->name, w, h, spot ? "spot" : "sun");
            compare_frame(what, cpu, gpu, &f, depth, ids, &(izb_settings){0}, false);
            free(ids);
            free(depth);
        }
    CHECK(sun_shadow > 0, "%s: no shadowed pixel in any sun frame: the mask comparison tests nothing", fx->name);
}

/* A point light at the spot's position: each cube face (IZB_LIGHT_FACE) and the faces combined
 * (izb_shade_arrays_faces) equal on both backends. */
static void run_point_light(const fixture *fx, izb_backend *cpu, izb_backend *gpu)
{
    CHECK(izb_set_scene(cpu, fx->xyz, fx->tri_count) && izb_set_scene(gpu, fx->xyz, fx->tri_count),
          "%s: set_scene failed", fx->name);
    const int w = 320, h = 180;
    light pl = fx->spot;
    pl.type = LIGHT_POINT;
    izb_recon faces[LIGHT_CUBE_FACES];
    const int count = izb_frame_make_faces(&fx->cam, &pl, fx->bmin, fx->bmax, w, h, faces);
    CHECK(count == LIGHT_CUBE_FACES, "a point light has %d faces", count);
    uint32_t *ids;
    float *depth = fixture_depth_ids(fx, 0.0f, w, h, &ids);
    char what[256];
    size_t zeros = 0;
    for (int k = IZB_KERNEL1; k <= IZB_KERNEL2; k++)
        for (int bin = IZB_BINNING_RADIX; bin <= IZB_BINNING_ATOMIC; bin++) {
            /* the diagonal (kernel1 radix, kernel2 atomic): run_scene covers every pair on the same
             * code; a face differs from a spot only in its frustum, which both combos see */
            if ((k == IZB_KERNEL1) != (bin == IZB_BINNING_RADIX)) continue;
            const izb_settings st = {.kernel = (izb_kernel)k, .binning = (izb_binning)bin};
            for (int i = 0; i < count; i++) {
                snprintf(what, sizeof what, "%s point light face %d kernel%d %s", fx->name, i, k,
                         bin == IZB_BINNING_ATOMIC ? "atomic" : "radix");
                zeros += compare_frame(what, cpu, gpu, &faces[i], depth, k == IZB_KERNEL2 ? ids : NULL, &st, i == 0);
            }
            uint8_t *cm = xmalloc((size_t)w * h), *gm = xmalloc((size_t)w * h), *scratch = xmalloc((size_t)w * h);
            const bool ok = izb_shade_arrays_faces(cpu, faces, count, &st, depth, ids, cm, scratch, NULL) &&
                            izb_shade_arrays_faces(gpu, faces, count, &st, depth, ids, gm, scratch, NULL);
            CHECK(ok, "%s point light: faces failed", fx->name);
            CHECK(!ok || mask_diff(cm, gm, (size_t)w * h) == 0, "%s point light kernel%d: the combined masks differ",
                  fx->name, k);
            free(cm), free(gm), free(scratch);
        }
    /* every face leaves most pixels unlit (they are another face's), so zeros prove little; the
     * combined mask's equality above is the point */
    CHECK(zeros > 0, "%s point light: no zero pixel in any face", fx->name);
    free(ids);
    free(depth);
}

int main(void)
{
    fixture_require_device("cuda_backend");
    izb_backend *gpu = izb_create(&(izb_desc){.backend = IZB_BACKEND_CUDA});
    izb_backend *cpu = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU});
    CHECK(gpu && strcmp(izb_name(gpu), "cuda") == 0, "izb_create(CUDA) failed with a device present");
    CHECK(cpu != NULL, "izb_create(CPU) failed");
    if (!gpu || !cpu)
        return test_done();
    CHECK(izb_supports_gl(gpu), "the CUDA backend must implement shade_gl");

    fixture fx;
    fixture_synthetic(&fx);
    run_scene(&fx, cpu, gpu, true);
    run_point_light(&fx, cpu, gpu);

    /* no points: all sky */
    const izb_recon f = fixture_frame(&fx, false, 0.0f, 300, 200);
    float *sky = calloc(300 * 200, sizeof *sky);
    const izb_settings def = {0};
    compare_frame("all sky", cpu, gpu, &f, sky, NULL, &def, true);
    free(sky);
    /* no triangles */
    float *depth = fixture_depth(&fx, 0.0f, 300, 200);
    CHECK(izb_set_scene(cpu, NULL, 0) && izb_set_scene(gpu, NULL, 0), "empty set_scene failed");
    compare_frame("no triangles", cpu, gpu, &f, depth, NULL, &def, true);
    /* bad settings: a grid side over the maximum is refused, like on the CPU */
    uint8_t *m = xmalloc(300 * 200);
    const izb_settings huge = {.grid_w = IZB_GRID_MAX_DIM + 1, .grid_h = 4};
    CHECK(!izb_shade_arrays(gpu, &f, &huge, depth, m, NULL), "a %dx4 grid must be refused", IZB_GRID_MAX_DIM + 1);
    /* the backend still works after refusing */
    CHECK(izb_set_scene(cpu, fx.xyz, fx.tri_count) && izb_set_scene(gpu, fx.xyz, fx.tri_count), "set_scene failed");
    compare_frame("after a refused frame", cpu, gpu, &f, depth, NULL, &def, false);
    free(m);
    free(depth);
    fixture_free(&fx);

    static const char *const names[] = {"default", "tesseract", "spheres"};
    for (int i = 0; i < 3; i++) {
        /* 30,000 triangles, not 60,000: the emulator's cost per frame goes with the triangles */
        const bool ok = fixture_builtin(&fx, names[i], i == 0 ? 0 : 30000);
        CHECK(ok, "builtin:%s unavailable", names[i]);
        if (ok) {
            run_scene(&fx, cpu, gpu, false);
            fixture_free(&fx);
        }
    }
    izb_destroy(gpu);
    izb_destroy(cpu);
    return test_done();
}
