/* cpu_backend.h — private to the CPU backend: its state, shared by backend.c (one frame of one
 * frustum) and faces.c (a point light's cube faces, izb_backend_vtbl.shade_faces). */
#ifndef CPU_BACKEND_H
#define CPU_BACKEND_H

#include "izb_backend.h"
#include "izb_cpu_stages.h"

/* A growable array: `cap` elements allocated. */
typedef struct buffer {
    void *data;
    size_t cap;   /* elements */
    size_t bytes; /* allocated */
} buffer;

/* A point light's samples per chunk of rows and cube face in a frame of w x h in `chunks` chunks (0:
 * none) with the light at `origin`, kept so that the next frame of that light finds room for its
 * samples without a count pass (faces.c). One per light of a frame (IZB_MAX_LIGHTS, scene/view.h);
 * stamp: when it was written (the oldest makes room). */
#define IZB_FACE_GUESSES 8
typedef struct izb_face_guess {
    float origin[3];
    int w, h, chunks;
    uint64_t stamp;
    uint32_t count[IZB_CPU_MAX_THREADS][IZB_CUBE_FACES];
} izb_face_guess;

typedef struct cpu_backend {
    izb_backend base;
    int threads;
    int tri_count;
    bool have_closed; /* comp and boxes hold the scene's closed meshes */
    buffer xyz;        /* float, 9 per triangle: the scene */
    buffer points;     /* izb_point, one per pixel: reconstructed, pixel order, in runs */
    izb_cpu_points binned; /* one per pixel: grouped by cell, structure of arrays (stage 2 -> 4) */
    buffer debug_points;   /* izb_point, point_count: binned as an array, made by izb_get_debug */
    buffer cell_start; /* uint32_t, one per cell */
    buffer cell_end;   /* uint32_t, one per cell */
    buffer scratch;    /* uint32_t, izb_cpu_bin_scratch() */
    buffer hits;       /* uint64_t, izb_cpu_raster_scratch(): the raster's per-thread hit bitmaps */
    buffer tris;       /* izb_tri, one per triangle: compacted survivors */
    buffer tri_id;     /* uint32_t, one per triangle: the survivors' scene indices (frames with ids) */
    buffer soft_tris;  /* izb_soft_tri, one per triangle: soft frames' survivors (their ids in tri_id) */
    buffer soft_masks; /* uint32_t, izb_mask_words(M) per point: soft frames' visibility masks */
    buffer cell_zmax;  /* float, one per cell: soft frames' farthest receiver per cell */
    buffer aa_foot;    /* float, IZB_CPU_AA_FEET_FLOATS(n): anti-aliased frames' footprints (izb_cpu_aa_feet) */
    buffer aa_masks;   /* uint32_t, one per point: anti-aliased frames' sub-sample masks */
    buffer cell_ext;   /* float, four per cell: anti-aliased frames' footprint box per cell (izb_cpu_aa_cell_boxes) */
    buffer comp;       /* uint32_t, one per triangle: closed component (izb_closed.h) */
    buffer boxes;      /* float, 6 per closed component */
    size_t box_floats; /* in use in boxes */
    izb_cutout_set cut; /* the scene's cut-outs (izb_set_cutouts); cut.cut_count 0: none */
    buffer face_points; /* izb_point, one per pixel: a cube frame's points grouped by face per chunk */
    buffer face_blocks; /* int8_t, one per 16 pixels of a row: the one face of a cube frame's block, or -1 */
    buffer reach;       /* uint8_t, one per triangle: the cube faces it may shadow (izb_face_reach) */
    izb_face_guess face_guess[IZB_FACE_GUESSES]; /* faces.c: the last cube frames' counts */
    uint64_t guess_clock;                         /* face_guess' stamps */
    float xyz_maxabs;   /* the largest |coordinate| of the scene's vertices (NaN ignored), faces.c's
                         * scale; < 0 until a point light's frame measures it after a set/update */
    bool reach_ok;      /* reach holds izb_face_reach of these triangles for reach_w, reach_margin */
    float reach_w[IZB_CUBE_FACES][4], reach_margin; /* faces.c's mark_reach: the w rows and margin reach was made with */
    /* the last frame, for izb_get_debug */
    bool have_frame;
    int point_count, tris_after_cull;
    /* the last frame's samples per point (izb_debug.sample_masks): 0 hard, else M in soft_masks
     * (soft_samples) or N in aa_masks */
    int sample_bits;
    bool soft_samples;
    izb_grid grid;
} cpu_backend;

/* make buf hold at least `need` elements of `size` bytes; false (with a message) on OOM */
bool izb_cpu_reserve(buffer *buf, size_t need, size_t size, const char *what);
/* the monotonic wall clock, ms */
double izb_cpu_now_ms(void);
/* the frame's bookkeeping for izb_get_debug and its stats (t: the stage boundaries) */
void izb_cpu_finish_frame(cpu_backend *b, const izb_settings *s, izb_stats *stats, int n, int nt,
                          const izb_grid *gp, const izb_bbox *bbox, const double *t);
/* izb_backend_vtbl.shade_faces (faces.c) */
bool izb_cpu_shade_faces(izb_backend *base, const izb_recon *faces, int count, const izb_settings *s,
                         const float *depth, const uint32_t *ids, uint8_t *mask, izb_stats *stats);

#endif
