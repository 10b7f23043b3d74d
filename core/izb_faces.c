/* izb_faces.c — a light of several frusta (a point light's cube faces) as one mask: each face is an
 * ordinary IZB pass, the masks combine by max. Backend-agnostic: it uses the array path of
 * whichever backend it is given. */
#include "izb.h"

#include <stdio.h>
#include <string.h>

/* the counts and times of one face added to the frame's */
static void add_face_stats(izb_stats *sum, const izb_stats *face)
{
    for (int k = 0; k < IZB_STAGE_COUNT; k++)
        sum->stage_ms[k] += face->stage_ms[k];
    sum->total_ms += face->total_ms;
    sum->points += face->points;
    sum->tris_after_cull += face->tris_after_cull;
    sum->overflows += face->overflows;
    sum->frame_bytes = face->frame_bytes > sum->frame_bytes ? face->frame_bytes : sum->frame_bytes;
}

bool izb_shade_arrays_faces(izb_backend *b, const izb_recon *frames, int count, const izb_settings *s,
                            const float *depth, const uint32_t *ids, uint8_t *mask, uint8_t *scratch,
                            izb_stats *stats)
{
    if (!b || !frames || count < 1 || !depth || !mask || (count > 1 && !scratch)) {
        fprintf(stderr, "izb: shade_arrays_faces: bad arguments (%d frames)\n", count);
        return false;
    }
    izb_stats sum = {0}, face = {0};
    const size_t pixels = (size_t)frames[0].width * (size_t)frames[0].height;
    for (int i = 0; i < count; i++) {
        if (frames[i].width != frames[0].width || frames[i].height != frames[0].height) {
            fprintf(stderr, "izb: shade_arrays_faces: frame %d is %dx%d, frame 0 %dx%d\n", i, frames[i].width,
                    frames[i].height, frames[0].width, frames[0].height);
            return false;
        }
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
