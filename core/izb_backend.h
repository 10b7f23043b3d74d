/* izb_backend.h — private to backends: the function table behind izb.h. A backend struct starts
 * with `izb_backend base;` and fills in the table; izb.c dispatches. */
#ifndef IZB_BACKEND_H
#define IZB_BACKEND_H

#include "izb.h"
#include "izb_closed.h"
#include "izb_cutouts.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct izb_backend_vtbl {
    const char *name;
    void (*destroy)(izb_backend *b);
    /* closed: the scene's closed meshes (izb_closed.h), found by izb_set_scene; copy what is needed */
    bool (*set_scene)(izb_backend *b, const float *xyz, int tri_count, const izb_closed *closed);
    /* ids: per pixel, the scene triangle drawn there (izb_shade_arrays_ids); NULL: none */
    bool (*shade_arrays)(izb_backend *b, const izb_recon *f, const izb_settings *s, const float *depth,
                         const uint32_t *ids, uint8_t *mask, izb_stats *stats);
    /* NULL when the backend cannot read GL textures itself; ids_tex 0: no primitive ids */
    bool (*shade_gl)(izb_backend *b, const izb_recon *f, const izb_settings *s, unsigned depth_tex,
                     unsigned ids_tex, unsigned mask_tex, unsigned generation, izb_stats *stats);
    bool (*get_debug)(izb_backend *b, izb_debug *out); /* may be NULL */
    /* izb_update_scene after izb.c checked xyz (same count, finite) and recomputed boxes (6 per
     * closed component of the last set_scene, NULL when none); NULL: izb.c calls set_scene */
    bool (*update_scene)(izb_backend *b, const float *xyz, int tri_count, const float *boxes);
    /* izb_set_cutouts, checked by izb.c: the backend takes *s over (frees it in destroy, set_scene or
     * the next set_cutouts) and returns true, or leaves it to the caller and returns false; an
     * empty set (cut_count 0) means none. NULL: the backend cannot alpha-test (izb.c says so). */
    bool (*set_cutouts)(izb_backend *b, izb_cutout_set *s);
    /* izb_shade_arrays_faces of a point light's cube, checked by izb_faces.c: faces[0 .. count) are
     * IZB_LIGHT_CUBE frames (count <= IZB_CUBE_FACES, the bias resolved), each shading exactly the
     * points izb_face_owner gives it, into one mask. NULL: izb_faces.c runs one shade_arrays per
     * face with the other faces' pixels made sky (the same bits, each pixel reconstructed per face),
     * as it always does for anti-aliased faces (shadow_samples > 1: never called with those). */
    bool (*shade_faces)(izb_backend *b, const izb_recon *faces, int count, const izb_settings *s,
                        const float *depth, const uint32_t *ids, uint8_t *mask, izb_stats *stats);
    /* shades frames with light_angle > 0 (izb_soft.h); izb.c refuses them, with one line, to a
     * backend without */
    bool soft;
    /* shades frames with shadow_samples > 1 (izb_aa.h); izb.c refuses them, with one line, to a
     * backend without */
    bool aa;
    /* shades area lights' frames (izb_area_on: a spot with a size, izb_area.h); izb.c refuses them,
     * with one line, to a backend without */
    bool area;
} izb_backend_vtbl;

struct izb_backend {
    const izb_backend_vtbl *vt;
    int tris_cullable; /* of the last izb_set_scene, for izb_stats */
    int tris_cut;      /* cut-out triangles the backend took (izb_set_cutouts), for izb_stats */
    int threads;       /* izb_desc.threads, for izb_update_scene's checking pass */
    int tri_count;     /* of the last successful izb_set_scene; -1 before */
    izb_closed closed; /* of the last izb_set_scene: izb_update_scene keeps its comp, redoes boxes */
    float *box_scratch; /* per-thread boxes of izb_update_scene (malloc) */
    size_t box_scratch_cap;
};

/* izb_update.c: hand checked, moved triangles to b: its update_scene, else its set_scene with the
 * closed analysis c (boxes already recomputed). */
bool izb_update_dispatch(izb_backend *b, const float *xyz, int tri_count, const izb_closed *c);
/* izb_update.c: free what izb_update_scene keeps in b (before the backend's destroy). */
void izb_update_free(izb_backend *b);
/* izb.c: whether b takes frame f: f non-NULL, izb_frame_ok, and b's vtable has the path for f's
 * kind (soft, area, aa). Otherwise one line on stderr and false. izb_shade_arrays_ids, izb_shade_gl
 * and izb_shade_arrays_faces all ask it, so a new frame field is checked in one place. */
bool izb_backend_takes(const izb_backend *b, const izb_recon *f);

/* ---- the registry: which backends this build has -------------------------------------------
 * The seam names no backend. Each backend defines one entry (cpu/backend.c, cuda/backend.cu); the
 * build lists the entries it compiled in a generated file (izb_registry.c, from
 * core/izb_registry.c.in), in the order IZB_BACKEND_AUTO tries them. */
typedef struct izb_backend_entry {
    izb_backend_kind kind;
    bool needs_device; /* auto falls back from it, with one line, when no device answers */
    /* NULL when it cannot run here; a one-line reason only when desc->backend names this kind */
    izb_backend *(*create)(const izb_desc *desc);
} izb_backend_entry;

extern const izb_backend_entry *const izb_backend_registry[]; /* NULL-terminated, generated */

#ifdef __cplusplus
}
#endif
#endif
