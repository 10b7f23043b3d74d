/* izb_faces.c — a light of several frusta as one mask. A point light's cube faces (IZB_LIGHT_FACE)
 * partition the points: each point belongs to the one face izb_face_owner gives it (the major axis
 * of its direction from the light) and is shaded there only, so a face with no points costs
 * nothing and no seam point is answered twice or dropped. A backend with a partition of its own
 * (izb_backend_vtbl.shade_faces: the CPU backend reconstructs once) gets the faces whole; any other,
 * and every anti-aliased light (shadow_samples > 1: a face's footprints are those of its own pixels,
 * izb_aa.h "Point lights"), runs one ordinary pass per face that has points, the other faces'
 * pixels made sky. Frames that
 * are not cube faces keep the rule of several lights: one pass each, combined by max. */
#include "izb.h"
#include "izb_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the counts and times of one pass added to the frame's */
static void add_face_stats(izb_stats *sum, const izb_stats *face)
{
    for (int k = 0; k < IZB_STAGE_COUNT; k++)
        sum->stage_ms[k] += face->stage_ms[k];
    sum->total_ms += face->total_ms;
    sum->points += face->points;
    sum->tris_after_cull += face->tris_after_cull;
    sum->overflows += face->overflows;
    sum->frame_bytes = face->frame_bytes > sum->frame_bytes ? face->frame_bytes : sum->frame_bytes;
    /* an anti-aliased point light's faces: every face's work */
    sum->aa_tests_global += face->aa_tests_global;
    sum->aa_tests += face->aa_tests;
    sum->aa_pairs += face->aa_pairs;
}

/* one pass per frame, combined by max: a point is lit when any frame lights it (several lights) */
static bool shade_max(izb_backend *b, const izb_recon *frames, int count, const izb_settings *s, const float *depth,
                      const uint32_t *ids, uint8_t *mask, uint8_t *scratch, izb_stats *stats)
{
    izb_stats sum = {0}, face = {0};
    const size_t pixels = (size_t)frames[0].width * (size_t)frames[0].height;
    for (int i = 0; i < count; i++) {
        uint8_t *out = i == 0 ? mask : scratch;
        if (!izb_shade_arrays_ids(b, &frames[i], s, depth, ids, out, &face))
            return false;
        if (i > 0)
            for (size_t p = 0; p < pixels; p++)
                mask[p] = scratch[p] > mask[p] ? scratch[p] : mask[p];
        if (i == 0) {
            sum = face;
        } else {
            add_face_stats(&sum, &face);
            sum.grid_w = face.grid_w, sum.grid_h = face.grid_h, sum.bbox = face.bbox;
        }
    }
    if (stats) *stats = sum;
    return true;
}

/* The partition through the public array path, for backends without shade_faces: the owner of
 * every pixel, then per face with points one izb_shade_arrays_ids of a depth image where the other
 * faces' pixels are sky; each owned pixel takes its face's answer. Stats: each point once. */
static bool shade_cube_passes(izb_backend *b, const izb_recon *cube, int count, const izb_settings *s,
                              const float *depth, const uint32_t *ids, uint8_t *mask, uint8_t *scratch,
                              izb_stats *stats)
{
    const izb_recon *f0 = &cube[0];
    const size_t pixels = (size_t)f0->width * (size_t)f0->height;
    uint8_t *owner = malloc(pixels);
    float *face_depth = malloc(pixels * sizeof *face_depth);
    if (!owner || !face_depth) {
        fprintf(stderr, "izb: shade_arrays_faces: out of memory for %zu pixels\n", pixels);
        free(owner), free(face_depth);
        return false;
    }
    size_t points[IZB_CUBE_FACES] = {0};
    for (int py = 0; py < f0->height; py++)
        for (int px = 0; px < f0->width; px++) {
            const size_t p = (size_t)py * (size_t)f0->width + (size_t)px;
            mask[p] = 255; /* sky; every other pixel is set by its face */
            if (izb_depth_is_sky(depth[p])) {
                owner[p] = 0xff;
                continue;
            }
            float vx, vy, vz;
            izb_view_point(f0, px, py, depth[p], &vx, &vy, &vz);
            owner[p] = (uint8_t)izb_face_owner(cube, count, vx, vy, vz);
            points[owner[p]]++;
        }
    izb_stats sum = {0}, face = {0};
    bool ok = true, first = true;
    int most = 0;
    for (int i = 0; i < count && ok; i++) {
        if (!points[i]) continue; /* a face without points costs nothing */
        for (size_t p = 0; p < pixels; p++)
            face_depth[p] = owner[p] == i ? depth[p] : 0.0f;
        ok = izb_shade_arrays_ids(b, &cube[i], s, face_depth, ids, scratch, &face);
        for (size_t p = 0; ok && p < pixels; p++)
            if (owner[p] == i) mask[p] = scratch[p];
        if (first) {
            sum = face, first = false, most = face.points;
        } else {
            add_face_stats(&sum, &face);
            if (face.points > most) /* the grid and bbox of the face with the most points */
                most = face.points, sum.grid_w = face.grid_w, sum.grid_h = face.grid_h, sum.bbox = face.bbox;
        }
    }
    free(owner), free(face_depth);
    if (ok && stats) *stats = sum; /* all sky: zeros */
    return ok;
}

bool izb_shade_arrays_faces(izb_backend *b, const izb_recon *frames, int count, const izb_settings *s,
                            const float *depth, const uint32_t *ids, uint8_t *mask, uint8_t *scratch,
                            izb_stats *stats)
{
    if (!b || !frames || count < 1 || !depth || !mask || (count > 1 && !scratch)) {
        fprintf(stderr, "izb: shade_arrays_faces: bad arguments (%d frames)\n", count);
        return false;
    }
    bool cube = count > 1;
    for (int i = 0; i < count; i++) {
        if (frames[i].width != frames[0].width || frames[i].height != frames[0].height) {
            fprintf(stderr, "izb: shade_arrays_faces: frame %d is %dx%d, frame 0 %dx%d\n", i, frames[i].width,
                    frames[i].height, frames[0].width, frames[0].height);
            return false;
        }
        cube &= frames[i].light_is_spot == IZB_LIGHT_FACE;
    }
    if (!cube)
        return shade_max(b, frames, count, s, depth, ids, mask, scratch, stats);
    if (count > IZB_CUBE_FACES) {
        fprintf(stderr, "izb: shade_arrays_faces: %d cube faces (a cube has %d)\n", count, IZB_CUBE_FACES);
        return false;
    }
    if (frames[0].width <= 0 || frames[0].height <= 0 || (int64_t)frames[0].width * frames[0].height > INT32_MAX) {
        fprintf(stderr, "izb: shade_arrays_faces: bad frame size %dx%d\n", frames[0].width, frames[0].height);
        return false;
    }
    for (int i = 0; i < count; i++) /* the frame checks of izb_shade_arrays_ids, for shade_faces too */
        if (!izb_backend_takes(b, &frames[i]))
            return false;
    izb_recon faces[IZB_CUBE_FACES];
    const izb_settings r = izb_settings_resolve(s ? *s : (izb_settings){0});
    for (int i = 0; i < count; i++) {
        faces[i] = frames[i];
        faces[i].light_is_spot = IZB_LIGHT_CUBE;
        faces[i].bias = r.bias;
    }
    /* anti-aliased faces (shadow_samples > 1) take one pass per face on every backend: a backend's
     * own partition (the CPU's single pass, cpu/faces.c) has no footprints yet, and a face's pass
     * is an ordinary projective aa frame whose culling and cell ranges are already grown by its
     * points' footprints, so a sub-sample whose ray leaves the face's square still meets every
     * triangle, whichever face that triangle lies in (izb_aa.h, "Point lights") */
    bool aa = false;
    for (int i = 0; i < count; i++)
        aa |= frames[i].shadow_samples > 1;
    if (!b->vt->shade_faces || aa)
        return shade_cube_passes(b, faces, count, &r, depth, ids, mask, scratch, stats);
    const bool ok = b->vt->shade_faces(b, faces, count, &r, depth, ids, mask, stats);
    if (ok && stats) { /* what izb.c knows of the scene (izb_shade_arrays_ids adds the same) */
        stats->tris_cullable = b->tris_cullable;
        stats->tris_cut = b->tris_cut;
    }
    return ok;
}
