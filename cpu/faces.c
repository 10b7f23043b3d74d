/* faces.c — a point light's cube faces on the CPU backend (izb_backend_vtbl.shade_faces, called by
 * core/izb_faces.c): every pixel is reconstructed once, into the face izb_face_owner gives it
 * (kernels_faces.h): each chunk of rows first counts the pixels each face owns (face_count_rows,
 * the w rows only), then writes each face's samples, in pixel order, straight into a place of that
 * size (recon_faces_rows, with each face's bbox), and each face with points runs stages 2-4 on
 * its own points only: its grid over its own bbox, its triangles culled and set up against that
 * bbox, its hits cleared in the one mask (the raster only ever writes 0). A face with no points
 * costs nothing. The same bits as one izb_shade_arrays_ids per face with the other faces' pixels
 * made sky (izb_faces.c's path for other backends); nothing depends on the thread count. */
#include "cpu_backend.h"
#include "izb_cpu_isa.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FACE_CHUNKS_PER_THREAD 8 /* as recon.c: sky rows are cheap, so chunks are taken as threads free up */

/* the chunks of rows of a frame (one run of each face's points per chunk) */
static int64_t face_chunks(const cpu_backend *b, const izb_recon *f0)
{
    int64_t chunks = (int64_t)FACE_CHUNKS_PER_THREAD * b->threads;
    chunks = chunks < IZB_CPU_MAX_THREADS ? chunks : IZB_CPU_MAX_THREADS;
    return chunks < f0->height ? chunks : f0->height;
}

/* The points of each face, as runs over the chunks (izb_cpu_runs, in chunk order) */
typedef struct face_parts {
    izb_cpu_runs runs[IZB_CUBE_FACES];
    int n[IZB_CUBE_FACES];
    izb_bbox bbox[IZB_CUBE_FACES];
} face_parts;

/* Room for a face's samples in a chunk, from the last frame's count there: the count and an
 * eighth more, and GUESS_SLACK for a face the chunk did not have. The counts of a chunk are at
 * most its pixels, so its places fit in its pixels, an eighth more and GUESS_SLACK per face
 * (chunk_at): either way, the count pass's places too. */
#define GUESS_SLACK 64u
static uint32_t guess_cap(uint32_t last)
{
    return last + last / 8u + GUESS_SLACK;
}
/* where chunk r, whose first pixel is `before`, starts in face_points (r = chunks, before = all
 * pixels: the points face_points must hold) */
static size_t chunk_at(size_t before, int64_t r)
{
    return before + before / 8u + (size_t)r * GUESS_SLACK * IZB_CUBE_FACES;
}

/* The counts to take the places from for a frame of w x h in `chunks` chunks with the light at
 * origin: those of the nearest light of such a frame kept (the same light in the last frame, still
 * or moved a little, in a frame of up to IZB_FACE_GUESSES lights), NULL when none. */
static izb_face_guess *pick_guess(cpu_backend *b, const float origin[3], int w, int h, int64_t chunks)
{
    izb_face_guess *best = NULL;
    float best_d = INFINITY;
    for (int s = 0; s < IZB_FACE_GUESSES; s++) {
        izb_face_guess *g = &b->face_guess[s];
        if (g->chunks != chunks || g->w != w || g->h != h) continue;
        const float dx = g->origin[0] - origin[0], dy = g->origin[1] - origin[1], dz = g->origin[2] - origin[2];
        const float d = dx * dx + dy * dy + dz * dz;
        if (d < best_d || (!best && d == INFINITY)) best = g, best_d = d; /* NaN: never */
    }
    return best;
}

/* Where this frame's counts are kept: over `last` when it is this light's (at the same place),
 * else over the oldest, so that the other lights of a frame keep theirs. */
static izb_face_guess *keep_guess(cpu_backend *b, const float origin[3], izb_face_guess *last)
{
    if (last && !memcmp(last->origin, origin, sizeof last->origin)) return last;
    izb_face_guess *old = &b->face_guess[0];
    for (int s = 1; s < IZB_FACE_GUESSES; s++)
        if (b->face_guess[s].stamp < old->stamp) old = &b->face_guess[s];
    return old;
}

/* Stage 1: reconstruction into faces and the partition (the mask's sky and unlit pixels set).
 *
 * Each chunk's places come from the counts of the same light's last frame in that chunk when it
 * had the same size and chunks (pick_guess: a still or slowly moving view and light, nearly every
 * frame), and recon_faces_rows
 * then finds each pixel's face as it goes: one pass over the depth. When a face outgrows its room
 * (or there is no last frame) the chunk is done again as before: face_count_rows counts the
 * pixels each face owns, and recon_faces_rows writes into places of that size. The points, their
 * order and the bboxes are the same either way; only where each run starts differs. */
static void partition(cpu_backend *b, const izb_recon *faces, int count, const float *depth, uint8_t *mask,
                      const izb_cpu_kernels *kern, face_parts *fp)
{
    const izb_recon *f0 = &faces[0];
    float m[IZB_CUBE_FACES][16] = {{0}};
    for (int i = 0; i < IZB_CUBE_FACES; i++) {
        if (i < count)
            memcpy(m[i], faces[i].cam_to_light, sizeof m[i]);
        else
            m[i][15] = -INFINITY; /* w = -inf: a missing face never takes a point */
    }
    const int T = b->threads, w = f0->width;
    const int64_t chunks = face_chunks(b, f0);
    float origin[3];
    izb_light_origin(f0->light, origin);
    izb_face_guess *last = pick_guess(b, origin, w, f0->height, chunks), *keep = keep_guess(b, origin, last);
    const uint32_t (*guess)[IZB_CUBE_FACES] = last ? (const uint32_t (*)[IZB_CUBE_FACES])last->count : NULL;
    keep->chunks = 0; /* until this frame's counts are in (keep may be last: chunk r reads then writes row r) */
    uint32_t (*cnt)[IZB_CUBE_FACES] = keep->count;
    izb_bbox box[IZB_CPU_MAX_THREADS][IZB_CUBE_FACES]; /* per chunk and face (24 KB) */
    uint32_t place[IZB_CPU_MAX_THREADS][IZB_CUBE_FACES]; /* where each face's samples start in its chunk */
    izb_point *grouped = b->face_points.data;
    int8_t *blocks = b->face_blocks.data; /* per block of 16 pixels: its one face, or -1 */
    const int row_blocks = (w + 15) / 16;
#pragma omp parallel for num_threads(T) schedule(dynamic, 1)
    for (int64_t r = 0; r < chunks; r++) {
        int64_t y0, y1;
        izb_cpu_chunk(f0->height, (int)r, (int)chunks, &y0, &y1);
        const size_t at = chunk_at((size_t)y0 * (size_t)w, r);
        uint32_t room[IZB_CUBE_FACES];
        izb_point *out[IZB_CUBE_FACES];
        if (guess) {
            for (int i = 0; i < IZB_CUBE_FACES; i++)
                room[i] = guess_cap(guess[r][i]);
            for (uint32_t i = 0, o = 0; i < IZB_CUBE_FACES; o += room[i], i++)
                place[r][i] = o, out[i] = grouped + at + o;
            if (kern->recon_faces_rows(f0, (const float (*)[16])m, depth, (int)y0, (int)y1, NULL, mask, out, room,
                                       cnt[r], box[r]))
                continue;
        }
        /* room for each face's samples, in face order where the chunk's room starts: a face's
         * samples are at most the pixels it owns (the count), so the places do not overlap */
        int8_t *bf = blocks + (size_t)y0 * (size_t)row_blocks;
        kern->face_count_rows(f0, (const float (*)[16])m, depth, (int)y0, (int)y1, room, bf);
        for (uint32_t i = 0, o = 0; i < IZB_CUBE_FACES; o += room[i], i++)
            place[r][i] = o, out[i] = grouped + at + o;
        kern->recon_faces_rows(f0, (const float (*)[16])m, depth, (int)y0, (int)y1, bf, mask, out, room, cnt[r],
                               box[r]);
    }
    memcpy(keep->origin, origin, sizeof origin);
    keep->w = w, keep->h = f0->height, keep->chunks = (int)chunks, keep->stamp = ++b->guess_clock;
    for (int i = 0; i < count; i++) {
        izb_bbox bb = {INFINITY, INFINITY, -INFINITY, -INFINITY};
        int n = 0, runs = 0;
        for (int64_t r = 0; r < chunks; r++) { /* in chunk order, whichever thread took each */
            int64_t y0, y1;
            izb_cpu_chunk(f0->height, (int)r, (int)chunks, &y0, &y1);
            if (!cnt[r][i]) continue;
            fp->runs[i].at[runs] = grouped + chunk_at((size_t)y0 * (size_t)w, r) + place[r][i];
            fp->runs[i].len[runs++] = cnt[r][i];
            n += (int)cnt[r][i];
            bb.min_x = izb_minf(bb.min_x, box[r][i].min_x);
            bb.min_y = izb_minf(bb.min_y, box[r][i].min_y);
            bb.max_x = izb_maxf(bb.max_x, box[r][i].max_x);
            bb.max_y = izb_maxf(bb.max_y, box[r][i].max_y);
        }
        fp->runs[i].count = runs;
        fp->n[i] = n;
        fp->bbox[i] = bb;
    }
}

/* the largest |v| of v[0 .. n) (NaN ignored; 0 when none) */
static float maxabs(const float *v, size_t n, int threads)
{
    float m = 0.0f;
#pragma omp parallel for simd num_threads(threads) reduction(max : m)
    for (size_t i = 0; i < n; i++)
        m = izb_maxf(m, fabsf(v[i]));
    return m;
}

/* Culling's pre-test (izb_face_reach) for every triangle into b->reach. The margin: 1e-5 of the
 * scale of the coordinates izb_face_owner's choice is computed from (the scene's vertices, the
 * light, the camera relative to the light): its rounding is ~1e-7 of that, so a triangle marked
 * for one face alone can never hide another face's point.
 *
 * Kept from frame to frame while they hold: the marks depend on the triangles, the faces' w rows
 * (world space: the light's position, not the camera) and the margin only (a power of two, so a
 * moving camera seldom changes it), and marks made with a larger margin are a superset (fewer
 * vertices are sure), still safe. A set or update of the scene clears reach_ok (backend.c). On
 * spheres:1M (1M triangles, 36 MB of vertices) the marks cost about a third of the culling stage;
 * a static light (and scene) pays them once. The masks never depend on the marks (a face's pass
 * skips only triangles that cannot reach its points); the survivors' count does (the stats'
 * tris_after_cull). */
static void mark_reach(cpu_backend *b, const izb_recon *faces, int count, const izb_cpu_kernels *kern)
{
    float w[IZB_CUBE_FACES][4] = {{0}}, origin[3];
    for (int f = 0; f < IZB_CUBE_FACES; f++) {
        for (int k = 0; k < 4; k++)
            w[f][k] = f < count ? faces[f].light[4 * k + 3] : 0.0f;
        if (f >= count) w[f][3] = -INFINITY; /* a missing face never takes a vertex */
    }
    izb_light_origin(faces[0].light, origin);
    if (b->xyz_maxabs < 0.0f) /* once per izb_set_scene / izb_update_scene, only for point lights */
        b->xyz_maxabs = maxabs(b->xyz.data, 9 * (size_t)b->tri_count, b->threads);
    const float *m = faces[0].cam_to_light; /* its column 3: the camera in the face's clip space */
    const float scale = 3.0f * (b->xyz_maxabs + izb_maxf(izb_maxf(fabsf(origin[0]), fabsf(origin[1])), fabsf(origin[2]))) +
                        fabsf(m[12]) + fabsf(m[13]) + fabsf(m[14]) + fabsf(m[15]);
    /* rounded up to a power of two: still a bound, and the marks then outlive a camera that moves
     * a little (the scale's camera term changes every frame) */
    int e = 0;
    const float raw = 1e-5f * scale, mant = frexpf(raw, &e);
    const float margin = isfinite(raw) && raw > 0.0f ? ldexpf(mant > 0.5f ? 1.0f : 0.5f, e) : raw; /* inf, NaN: none sure */
    if (b->reach_ok && !memcmp(w, b->reach_w, sizeof w) && b->reach_margin >= margin)
        return; /* the marks of an earlier frame still hold (see above) */
    b->reach_ok = false;
    const float *xyz = b->xyz.data;
    uint8_t *reach = b->reach.data;
    const int64_t n = b->tri_count;
#pragma omp parallel num_threads(b->threads)
    {
        int64_t i0, i1;
        izb_cpu_chunk(n, THREAD_NUM(), NUM_THREADS(), &i0, &i1);
        kern->face_reach((const float (*)[4])w, xyz, i0, i1, margin, reach);
    }
    memcpy(b->reach_w, w, sizeof w);
    b->reach_margin = margin;
    b->reach_ok = true;
}

bool izb_cpu_shade_faces(izb_backend *base, const izb_recon *faces, int count, const izb_settings *s,
                         const float *depth, const uint32_t *ids, uint8_t *mask, izb_stats *stats)
{
    cpu_backend *b = (cpu_backend *)base;
    b->have_frame = false;
    if (s->grid_w > IZB_GRID_MAX_DIM || s->grid_h > IZB_GRID_MAX_DIM) {
        fprintf(stderr, "izb cpu: grid %dx%d: each side must be at most %d cells\n", s->grid_w, s->grid_h,
                IZB_GRID_MAX_DIM);
        return false;
    }
    const izb_cpu_kernels *kern = izb_cpu_kernels_get(IZB_CPU_ISA_AUTO);
    const size_t npix = (size_t)faces[0].width * (size_t)faces[0].height;
    if (!kern || !izb_cpu_reserve(&b->face_points, chunk_at(npix, face_chunks(b, &faces[0])), sizeof(izb_point),
                                  "points by face") ||
        !izb_cpu_reserve(&b->face_blocks, (size_t)faces[0].height * (size_t)((faces[0].width + 15) / 16), 1,
                         "blocks' faces") ||
        !izb_cpu_points_reserve(&b->binned, npix, "binned points") ||
        !izb_cpu_reserve(&b->reach, (size_t)b->tri_count, 1, "triangles' faces") ||
        ((ids || b->cut.cut_count) && !izb_cpu_reserve(&b->tri_id, (size_t)b->tri_count, sizeof(uint32_t), "triangle ids")))
        return false;
    const int T = b->threads;
    double ms[IZB_STAGE_COUNT] = {0};
    const double t0 = izb_cpu_now_ms();
    face_parts fp;
    partition(b, faces, count, depth, mask, kern, &fp);
    double t = izb_cpu_now_ms();
    ms[IZB_STAGE_RECONSTRUCT] = t - t0;

    int points = 0, tris = 0, big = -1; /* big: the face with the most points, for the stats' grid */
    bool marked = false; /* the triangles' faces, once the first face with points needs them */
    izb_grid g_big = {0}, g_last = {0};
    int n_last = 0, nt_last = 0;
    for (int i = 0; i < count; i++) {
        const int n = fp.n[i];
        if (n == 0) continue; /* a face without points costs nothing */
        const izb_grid g = izb_grid_make(fp.bbox[i], n, s->grid_w, s->grid_h);
        const size_t cells = (size_t)g.w * (size_t)g.h;
        if (!izb_cpu_reserve(&b->cell_start, cells, sizeof(uint32_t), "cell starts") ||
            !izb_cpu_reserve(&b->cell_end, cells, sizeof(uint32_t), "cell ends") ||
            !izb_cpu_reserve(&b->scratch, izb_cpu_bin_scratch(n, &g, T), sizeof(uint32_t), "binning scratch") ||
            !izb_cpu_reserve(&b->hits, izb_cpu_raster_scratch(n, T), sizeof(uint64_t), "raster hit bitmaps"))
            return false;
        izb_cpu_bin_runs(&fp.runs[i], &g, &b->binned, b->cell_start.data, b->cell_end.data, T, b->scratch.data,
                         IZB_CPU_ISA_AUTO);
        double u = izb_cpu_now_ms();
        ms[IZB_STAGE_BINNING] += u - t, t = u;

        izb_cull_view cv = {.mode = s->cull, .comp = b->have_closed ? b->comp.data : NULL,
                            .boxes = b->boxes.data, .light_is_spot = faces[i].light_is_spot};
        izb_light_origin(faces[i].light, cv.light_origin);
        if (!marked) mark_reach(b, faces, count, kern), marked = true;
        const int nt = izb_cpu_cull_reach(b->xyz.data, b->tri_count, &faces[i], &g, &fp.bbox[i], &cv, b->tris.data,
                                          ids || b->cut.cut_count ? b->tri_id.data : NULL, T, IZB_CPU_ISA_AUTO,
                                          b->reach.data, (uint8_t)(1u << i));
        u = izb_cpu_now_ms();
        ms[IZB_STAGE_CULLING] += u - t, t = u;

        if (nt > 0)
            izb_cpu_raster_cut(b->tris.data, nt, &b->binned, n, b->cell_start.data, b->cell_end.data, &g, s->kernel,
                               ids ? &(izb_own){b->tri_id.data, ids, b->xyz.data, (uint32_t)b->tri_count} : NULL,
                               b->cut.cut_count ? &(izb_cut){b->tri_id.data, b->cut.tex, b->cut.uv,
                                                             b->cut.textures, b->cut.pool}
                                                : NULL,
                               mask, T, b->hits.data, IZB_CPU_ISA_AUTO);
        u = izb_cpu_now_ms();
        ms[IZB_STAGE_RASTER] += u - t, t = u;
        points += n, tris += nt;
        n_last = n, nt_last = nt, g_last = g;
        if (big < 0 || n > fp.n[big]) big = i, g_big = g;
    }
    double tt[IZB_STAGE_COUNT + 1] = {t0};
    for (int k = 0; k < IZB_STAGE_COUNT; k++)
        tt[k + 1] = tt[k] + ms[k];
    const izb_bbox none = {0};
    izb_cpu_finish_frame(b, s, stats, points, tris, &g_big, big >= 0 ? &fp.bbox[big] : &none, tt);
    /* izb_get_debug: the binned points, cells and set-ups of the last face shaded */
    b->point_count = n_last, b->tris_after_cull = nt_last, b->grid = g_last;
    return true;
}
