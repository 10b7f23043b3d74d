/* izb.h — the backend seam: app/ and render/ see only this. A backend turns a linear view-depth
 * image into a per-pixel shadow mask for one light, given the scene's triangles (uploaded once).
 * Two backends implement it: the CPU reference (cpu/backend.c, multi-threaded, also the test
 * oracle for CUDA) and CUDA (cuda/, with GL interop). izb_create() picks one.
 */
#ifndef IZB_H
#define IZB_H

#include <stdbool.h>
#include <stdint.h>

#include "izb_math.h"
#include "izb_alpha.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum izb_backend_kind {
    IZB_BACKEND_AUTO = 0, /* CUDA when a device answers, else CPU (and say so) */
    IZB_BACKEND_CPU,
    IZB_BACKEND_CUDA,
    IZB_BACKEND_KIND_COUNT
} izb_backend_kind;

typedef enum izb_kernel {
    IZB_KERNEL_DEFAULT = 0, /* kernel1 */
    IZB_KERNEL1,            /* one unit per triangle, loop over the rows it covers (thesis §5.1) */
    IZB_KERNEL2,            /* each unit owns interleaved cells, loops over triangles (§5.2) */
    IZB_KERNEL_COUNT
} izb_kernel;

typedef enum izb_binning {
    IZB_BINNING_DEFAULT = 0, /* radix */
    IZB_BINNING_RADIX,       /* cell hash -> radix sort -> reorder (§4.2.1) */
    IZB_BINNING_ATOMIC,      /* counters, scan, offsets, scatter (§4.2.2) */
    IZB_BINNING_COUNT
} izb_binning;

/* Stages whose time the backend reports (CUDA events on the GPU, wall clock on the CPU). */
typedef enum izb_stage {
    IZB_STAGE_RECONSTRUCT, /* points + bbox reduction + grid size */
    IZB_STAGE_BINNING,     /* points into the grid, cell start/end */
    IZB_STAGE_CULLING,     /* triangle transform, cull, compact, setup */
    IZB_STAGE_RASTER,      /* irregular rasterisation into the mask */
    IZB_STAGE_COUNT
} izb_stage;

/* The modes' names, spelled once (core/izb_names.c): the options parser, --help, the HUD and the FPS
 * log read them. Indexed by the enum value. A zero *_DEFAULT means "use the default", not a mode of
 * its own: its entry is NULL, and izb_*_name() resolves it (izb_settings_resolve) before naming it. */
extern const char *const izb_stage_names[IZB_STAGE_COUNT]; /* "reconstruct", "binning", ... */
extern const char *const izb_backend_names[IZB_BACKEND_KIND_COUNT];  /* "auto", "cpu", "cuda" */
extern const char *const izb_backend_labels[IZB_BACKEND_KIND_COUNT]; /* "auto", "CPU", "CUDA": messages */
extern const char *const izb_kernel_names[IZB_KERNEL_COUNT];   /* NULL, "1", "2" */
extern const char *const izb_binning_names[IZB_BINNING_COUNT]; /* NULL, "radix", "atomic" */
extern const char *const izb_cull_names[IZB_CULL_COUNT];       /* NULL, "auto", "on", "off" */
/* The name of the mode a setting resolves to ("?" for a value outside the enum). */
const char *izb_kernel_name(izb_kernel k);
const char *izb_binning_name(izb_binning b);
const char *izb_cull_name(izb_cull c);

/* Backend creation. Defaults (zero fields): backend = auto, threads = all cores. */
typedef struct izb_desc {
    izb_backend_kind backend;
    int threads; /* CPU backend worker threads */
    bool quiet;  /* no message when auto falls back to the CPU */
} izb_desc;

/* Per-frame choices. Defaults (zero fields): kernel1, radix binning, unit size auto, adaptive
 * grid, back-face culling auto (exact: only closed meshes the light is outside of, izb_closed.h),
 * bias IZB_DEFAULT_BIAS. */
typedef struct izb_settings {
    izb_kernel kernel;
    izb_binning binning;
    int unit_size;       /* threads per unit: 32, 64, 128, 256; 0 = auto */
    int grid_w, grid_h;  /* 0 = adaptive (izb_grid_make) */
    izb_cull cull;       /* which back faces to drop: auto (exact), on (all), off (none) */
    float bias;          /* 0 = IZB_DEFAULT_BIAS */
} izb_settings;

/* What the last frame did. */
typedef struct izb_stats {
    float stage_ms[IZB_STAGE_COUNT];
    float total_ms;
    int points;          /* sample points (covered pixels inside the light) */
    int tris_in;         /* scene triangles */
    int tris_after_cull; /* triangles left for the rasteriser */
    int tris_cullable;   /* triangles on closed meshes: what auto may cull (izb_closed.h) */
    int tris_cut;        /* cut-out triangles of the scene the backend alpha-tests (izb_set_cutouts) */
    int grid_w, grid_h;
    int unit_size; /* resolved unit size (CPU backend: 0) */
    izb_kernel kernel;
    izb_binning binning;
    izb_bbox bbox;  /* points' bbox on the light image plane */
    int overflows;  /* capacity overflows detected (and recovered from) this frame */
    /* Memory the backend's buffers hold after this frame: those sized by the frame (pixels,
     * points, cells, scratch) and those sized by the scene (triangles). CPU backend; 0 where a
     * backend does not count them (CUDA). */
    size_t frame_bytes, scene_bytes;
    /* Soft frames (light_angle > 0): point tests the raster would visit with one
     * global penumbra bound (the farthest receiver), the tests it visited with per-cell bounds,
     * and the (point, triangle) pairs that passed the per-point box and plane side and ran their
     * samples (izb_soft.h). 0 in hard frames. */
    double soft_tests_global, soft_tests, soft_pairs;
    /* Anti-aliased frames (shadow_samples > 1, izb_aa.h; CPU backend): the same three counts, with
     * the triangles' ranges grown by the footprints' extent (frame-wide, per cell), and the pairs
     * that ran their sub-samples. 0 otherwise. */
    double aa_tests_global, aa_tests, aa_pairs;
} izb_stats;

typedef struct izb_backend izb_backend;

/* Create a backend; NULL (with a message on stderr) when the asked-for one cannot run. */
izb_backend *izb_create(const izb_desc *desc);
void izb_destroy(izb_backend *b);
const char *izb_name(const izb_backend *b); /* "cpu" or "cuda" */

/* Fill the zero fields of s with the defaults listed above. */
izb_settings izb_settings_resolve(izb_settings s);

/* Give the backend the scene: tri_count triangles as 9 floats each (3 world-space xyz vertices).
 * The backend copies what it needs; the caller keeps ownership of `xyz`. Also finds the scene's
 * closed meshes (izb_closed.h), which culling auto needs: linear time, on the backend's threads
 * (izb_desc.threads), about 0.25 s of one core per 1M triangles (bench-cpu --load). */
bool izb_set_scene(izb_backend *b, const float *xyz, int tri_count);

/* Move the scene's triangles (animation): tri_count must equal the last izb_set_scene's, xyz holds
 * them at their new positions, and the connectivity must be the one izb_set_scene saw (a vertex
 * shared before is shared after, every component keeps its orientation: a rigid motion, or a
 * deformation that is a function of the rest position). The closed-mesh analysis is kept, only its
 * boxes are recomputed, so an update costs a read of the triangles plus one copy of them (CUDA: an
 * asynchronous upload ordered before the next frame). The next frame's mask is the one a fresh
 * izb_set_scene of the moved triangles would give. False, with a message and the previous scene
 * kept, when the count differs, xyz is NULL, a vertex is NaN or Inf, or no scene was set. */
bool izb_update_scene(izb_backend *b, const float *xyz, int tri_count);

/* Cut-outs (alpha-tested triangles, core/izb_alpha.h has the rule). One texture as given: alpha
 * width*height bytes, row 0 at v = 0; a wrap per axis; cutoff in [0, 1] (alpha < cutoff * 255 is
 * cut away). */
typedef struct izb_alpha_image {
    const uint8_t *alpha;
    int width, height; /* each in [1, IZB_ALPHA_MAX_DIM]; any size, power of two or not */
    izb_wrap wrap_u, wrap_v;
    float cutoff;
} izb_alpha_image;

/* The scene's cut-outs: per triangle of izb_set_scene's order, 3 UV pairs (uv[6 * t .. 6 * t + 5]:
 * u0 v0 u1 v1 u2 v2) and an image index, IZB_OPAQUE for an opaque triangle. tri_count must equal
 * the scene's. The backend copies what it needs. */
typedef struct izb_cutouts {
    const izb_alpha_image *images;
    int image_count;
    const float *uv;
    const uint32_t *image_of;
    int tri_count;
} izb_cutouts;

/* Give the backend the scene's cut-outs, after izb_set_scene (which drops the previous ones;
 * izb_update_scene keeps them). A point is then shadowed by a cut-out triangle only where the
 * alpha test keeps the triangle at the point's projection along the light ray; opaque triangles
 * keep their path and cost. NULL, or no cut-out triangle: none. Bad data gives one warning line per
 * kind and a defined result: an image that is NULL, 0 wide, larger than IZB_ALPHA_MAX_DIM or has an
 * unknown wrap makes its triangles opaque; a triangle naming no image is opaque; a cutoff outside
 * [0, 1] is clamped (NaN: 0.5); NaN/Inf UVs name a defined texel (izb_alpha.h). The CPU and CUDA
 * backends alpha-test, bit for bit alike. False, with a message, when the backend cannot
 * alpha-test, tri_count differs from the scene's or the backend runs out of memory; the scene is
 * then opaque for the IZB. */
bool izb_set_cutouts(izb_backend *b, const izb_cutouts *c);

/* Whether a frame's light extent is one the backends take (izb_soft.h): light_angle within 0 ..
 * IZB_SOFT_MAX_ANGLE_DEG, and when it is > 0, light_samples in {16, 32, 64, 128, 256} and a
 * directional light. Otherwise one line on stderr and false; izb_shade_* refuse such frames, and
 * frames with light_angle > 0 on a backend without soft shadows. */
bool izb_soft_frame_ok(const izb_recon *f);

/* Whether a frame's area light is one the backends take (izb_area.h): light_size[0] and [1] each
 * within 0 .. IZB_AREA_MAX_SIZE world units (NaN, Inf, negative: no), light_disk IZB_AREA_RECT or
 * IZB_AREA_DISK, and when a size is > 0, a spot light (IZB_LIGHT_SPOT) with light_samples in
 * {16, 32, 64, 128, 256}. Otherwise one line on stderr and false; izb_shade_* refuse such frames,
 * and area frames on a backend without area lights (izb_backend_vtbl.area). Sizes 0, 0: the hard spot. */
bool izb_area_frame_ok(const izb_recon *f);

/* Whether a frame's shadow_samples is one the backends take (izb_aa.h): 0 or 1 (the hard path), or
 * 4, 8, 16, 32 with a directional light and no light angle. Otherwise one line on stderr and
 * false; izb_shade_* refuse such frames, and frames with shadow_samples > 1 on a backend without
 * anti-aliased edges (izb_backend_vtbl.aa). */
bool izb_aa_frame_ok(const izb_recon *f);

/* izb_soft_frame_ok, izb_area_frame_ok and izb_aa_frame_ok together: whether any backend takes
 * this frame's light extent and sample counts (one line on stderr for the first that fails). */
bool izb_frame_ok(const izb_recon *f);

/* Array path (tests, CPU fallback). depth: width*height linear view depths (0 = sky), row 0 at the
 * bottom. mask (out): width*height bytes, 255 = lit, 0 = in shadow or outside the light; sky
 * pixels get 255. stats may be NULL. */
bool izb_shade_arrays(izb_backend *b, const izb_recon *frame, const izb_settings *s, const float *depth,
                      uint8_t *mask, izb_stats *stats);

/* izb_shade_arrays with primitive ids: ids[pixel] is the index (in izb_set_scene's order) of the
 * triangle the depth pass drew at the pixel, IZB_NO_ID where unknown. Neither a point's own
 * triangle nor one in its plane shadows it (izb_hit_is_own in izb_math.h): no self-shadow acne
 * where light grazes a surface, without a larger bias. ids NULL: izb_shade_arrays exactly. */
bool izb_shade_arrays_ids(izb_backend *b, const izb_recon *frame, const izb_settings *s, const float *depth,
                          const uint32_t *ids, uint8_t *mask, izb_stats *stats);

/* A light made of several frusta on the array path. A point light's cube faces (IZB_LIGHT_FACE, the
 * six of izb_frame_make_faces in scene/view.h) partition the points: each pixel is shaded by the
 * one face izb_face_owner gives it (the major axis of its direction from the light; a tie to the
 * lower index), so a seam point is answered once and never dropped, and a face that owns no point
 * costs nothing. The CPU backend reconstructs each pixel once and culls each face's triangles
 * against its own points only (cpu/faces.c); other backends run one pass per face with the other
 * faces' pixels as sky (the same bits). Frames that are not all cube faces (several lights) are
 * each shaded whole and combined by max (lit where any lights it). scratch: width*height bytes
 * the caller owns. stats: each point counted once; stage times and triangle set-ups summed over
 * the faces; the grid and bbox are those of the face with the most points (several lights: the
 * last frame's). count 1 is izb_shade_arrays_ids. */
bool izb_shade_arrays_faces(izb_backend *b, const izb_recon *frames, int count, const izb_settings *s,
                            const float *depth, const uint32_t *ids, uint8_t *mask, uint8_t *scratch,
                            izb_stats *stats);

/* GL path: depth_tex is the depth pass's GL_R32F texture, mask_tex a GL_R8 texture, both
 * frame->width x frame->height. ids_tex: the depth pass's GL_R32UI primitive ids (as
 * izb_shade_arrays_ids' ids, IZB_NO_ID where unknown), same size; 0 = none (izb_shade_arrays).
 * generation: the caller changes it whenever it deletes or re-creates these textures (render/
 * counts its target rebuilds): a backend that registers the textures (CUDA interop) keys its
 * registration on (name, size, generation), since a name deleted and handed out again at the same
 * size (a resize that failed back to the old size) is another texture that a kept registration
 * would not see. Only backends that can read GL textures directly (CUDA interop) implement it;
 * render/ falls back to read-back + izb_shade_arrays_ids otherwise. */
bool izb_supports_gl(const izb_backend *b);
bool izb_shade_gl(izb_backend *b, const izb_recon *frame, const izb_settings *s, unsigned depth_tex,
                  unsigned ids_tex, unsigned mask_tex, unsigned generation, izb_stats *stats);

/* Intermediate results of the last frame, for debug views and tests (NULL where not kept).
 * Pointers stay valid until the next frame. points: binned, grouped by cell; cell_start/cell_end:
 * grid_w*grid_h entries each. */
typedef struct izb_debug {
    const izb_point *points;
    int point_count;
    const uint32_t *cell_start, *cell_end;
    izb_grid grid;
    const izb_tri *tris; /* the set-up triangles the rasteriser got; NULL where not kept on the host */
    int tri_count;
    /* A soft or anti-aliased frame's visibility masks (izb_mask.h: bit k set = sample k hidden),
     * sample_words words per point in the order of points, for tools that check each sample against
     * its own ray (izb-quality); NULL (sample_bits 0) after a hard frame or where not kept on the host. */
    const uint32_t *sample_masks;
    int sample_bits, sample_words;
} izb_debug;
bool izb_get_debug(izb_backend *b, izb_debug *out);

#ifdef __cplusplus
}
#endif
#endif
