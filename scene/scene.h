/* scene.h — a scene as the renderer and the IZB see it: a triangle soup in world space with
 * per-vertex normals, its bounds, and a suggested camera and light. Loaded once through assimp's
 * C API (OBJ+MTL, PLY, glTF, ... : whatever assimp reads) or built procedurally. */
#ifndef SCENE_H
#define SCENE_H

#include <stdbool.h>
#include <stddef.h>

/* ---- materials: render-side, but for the cut-outs (scene_cutout.h gives those to the IZB) ---- */

/* A decoded base-colour image: 4 bytes a texel (sRGB RGBA), row 0 at the top. */
typedef struct scene_texture {
    unsigned char *rgba; /* owned (malloc) */
    int width, height;
} scene_texture;

/* How a material's alpha is read (issue 18, cut-outs): opaque (alpha ignored), mask (cut away
 * where the base colour's alpha, texture times factor, is below alpha_cutoff: glTF MASK, OBJ
 * map_d / map_Kd alpha), blend (glTF BLEND: drawn and cast as a mask at alpha_cutoff 0.5 — the
 * IZB's visibility is binary, so a half-transparent leaf casts where it is at least half opaque). */
typedef enum scene_alpha { SCENE_ALPHA_OPAQUE = 0, SCENE_ALPHA_MASK, SCENE_ALPHA_BLEND } scene_alpha;

/* What a surface looks like: its base colour, times its texture where it has one. */
typedef struct scene_material {
    float base_colour[4]; /* linear RGBA: MTL Kd, glTF baseColorFactor (1 when the file gives none) */
    int texture;          /* index into scene.textures; -1: none, or it could not be read */
    scene_alpha alpha;    /* SCENE_ALPHA_OPAQUE (zero) unless the file cuts */
    float alpha_cutoff;   /* mask: alpha < cutoff is cut away, in [0, 1] */
    int wrap_u, wrap_v;   /* the texture's wrap per axis: izb_wrap (core/izb_alpha.h), 0 = repeat */
    int alpha_texture;    /* OBJ map_d of its own image: its index in scene.textures + 1, read as the
                           * image's alpha where any texel has one below 255, else its grey (first
                           * channel); 0: the base colour's alpha (so zeroed materials need nothing) */
} scene_material;

/* Triangles [first, first + count) use materials[material]. Ranges do not overlap; triangles in
 * no range (built-in scenes, geometry added after loading) keep the renderer's own tint. */
typedef struct scene_range {
    int first, count, material;
} scene_range;

/* How a scene moves over time (scene_animate): not at all, a travelling wave that lifts every
 * object's vertices (builtin:wave), or a turntable about the vertical axis (--animate). */
typedef enum scene_motion { SCENE_MOTION_NONE = 0, SCENE_MOTION_WAVE, SCENE_MOTION_TURNTABLE } scene_motion;

/* Which axis of a model file is up (scene_set_up): it is turned to +y, the renderer's up. */
typedef enum scene_up {
    SCENE_UP_Y = 0,
    SCENE_UP_Z,
    SCENE_UP_X,
    SCENE_UP_NEG_Y,
    SCENE_UP_NEG_Z,
    SCENE_UP_NEG_X,
    SCENE_UP_COUNT
} scene_up;
extern const char *const scene_up_names[SCENE_UP_COUNT]; /* "y", "z", "x", "-y", "-z", "-x" */

typedef struct scene {
    float *xyz;     /* 9 floats per triangle: 3 world-space vertices (owned, malloc) */
    float *normals; /* 9 floats per triangle: a unit normal per vertex (owned) */
    int tri_count;
    float bounds_min[3], bounds_max[3];
    int dropped_nonfinite;  /* faces dropped for NaN/Inf coordinates */
    int dropped_degenerate; /* faces dropped for zero area (or not triangles: points, lines) */
    char name[128];
    /* Suggested view: camera position/orientation (degrees) and light. */
    float cam_pos[3], cam_yaw, cam_pitch;
    float light_dir[3]; /* direction the light travels (directional) */
    float light_pos[3]; /* spot light position; it looks at the bounds' centre */
    int ground_tris;    /* the last ground_tris triangles are an added ground (scene_add_ground) */
    scene_up up;        /* the file's axis that is +y now (scene_set_up); SCENE_UP_Y as loaded */
    scene_motion motion;            /* SCENE_MOTION_NONE: static */
    int motion_first, motion_count; /* the triangles that move (scene_set_motion): not the ground */
    /* Materials of loaded files (all NULL / 0 for built-in scenes; owned, malloc). */
    float *uv;              /* 6 floats per triangle (u, v per vertex; v up, GL's convention) for
                             * triangles [0, uv_tri_count) */
    int uv_tri_count;
    scene_material *materials;
    int material_count;
    scene_texture *textures;
    int texture_count;
    scene_range *ranges;
    int range_count;
} scene;

/* A ground (shadow catcher) for scenes that have none: auto adds one under model files only, the
 * built-in scenes having their own. */
typedef enum scene_ground { SCENE_GROUND_AUTO = 0, SCENE_GROUND_ON, SCENE_GROUND_OFF, SCENE_GROUND_COUNT } scene_ground;
extern const char *const scene_ground_names[SCENE_GROUND_COUNT]; /* "auto", "on", "off" */

/* builtin:NAME[:N]'s N, the approximate triangle count: digits, an optional suffix letter of
 * scene_count_suffixes (k 1000, M 1000000), from SCENE_MIN_TRIANGLES to SCENE_MAX_TRIANGLES.
 * scene_builtin_parse (scene_spec.c) is the one reader; --help and the tests take the range from
 * here. */
#define SCENE_MIN_TRIANGLES 1
#define SCENE_MAX_TRIANGLES 20000000
typedef struct scene_count_suffix {
    char letter; /* '\0': the last entry, no suffix (mul 1) */
    long mul;
} scene_count_suffix;
extern const scene_count_suffix scene_count_suffixes[];
/* a built-in scene's name fits in this many bytes with its '\0' */
#define SCENE_NAME_MAX 64
/* Read "builtin:NAME[:N]": NAME a built-in scene, N (when given) a count in range. name gets NAME,
 * *n N (0 without one). False with one line naming spec in err. */
bool scene_builtin_parse(const char *spec, char name[SCENE_NAME_MAX], long *n, char *err, size_t err_size);

/* Load `spec`: a file path, or "builtin:NAME[:N]" (N = approximate triangle count, 1 ..
 * SCENE_MAX_TRIANGLES, "k"/"M" suffixes allowed: builtin:grass:2M).
 * On failure returns false and writes a one-line reason naming the file into err. */
bool scene_load(const char *spec, scene *out, char *err, size_t err_size);

/* Load a file through assimp. Same contract as scene_load. Materials come along: the base colour
 * (MTL Kd, glTF baseColorFactor) and base-colour texture (map_Kd, glTF baseColorTexture, files
 * beside the model or images embedded in it, decoded with stb_image) with texture coordinates; a
 * texture that is missing or cannot be decoded costs one warning line on stderr and leaves the
 * plain colour, never a failure. Vertex normals are the file's where it has them. Faces with NaN/Inf coordinates and
 * degenerate faces (points, lines, height < 1e-6 of the longest edge) are skipped and counted;
 * normals the file lacks are generated (smooth), unusable ones (NaN, zero) become the face normal.
 * Fails when no triangle is left. A model whose bounds' centre lies farther from the origin than
 * its diagonal (geographic coordinates) is moved to the origin, an OBJ in double before assimp
 * rounds it to float; one line on stderr says by how much, another how many faces float rounding
 * still made degenerate. A size float arithmetic cannot frame (coordinates beyond 2^60, or under
 * 2^-20 across) is scaled by a power of two (exact; one line). The view comes from
 * scene_frame_view. On any failure *out is left zeroed (nothing to free). */
bool scene_load_file(const char *path, scene *out, char *err, size_t err_size);

/* Built-in procedural scenes. NAME: "default" (ground, fence, lattice, slanted plate, torus knot,
 * bumpy blob, boxes, spheres: ~20K triangles, N ignored), "tesseract" (thesis figure 6.4, default
 * 123K), "spheres" (default 250K), "grass" (many thin blades, default 500K), "wave" (the spheres'
 * field, every sphere lifted by a travelling wave: motion SCENE_MOTION_WAVE, default 250K),
 * "foliage" (alpha-tested cards; N counts cards: see SCENE_FOLIAGE_MAX_CARDS below).
 * N: approximate triangle count where the scene scales (10K .. 10M, within ~30%), 0 = the scene's
 * default. Every object is closed, counter-clockwise seen from outside with outward normals,
 * except the ground: triangles 0 and 1, one upward-facing quad at the bottom of the bounds, y up.
 * Deterministic (fixed seeds). Builds in parallel with OpenMP where available. */
bool scene_builtin(const char *name, long tri_target, scene *out, char *err, size_t err_size);

/* "foliage" (issue 18's cut-out scene): N alpha-tested leaf cards (quads with a generated
 * leaf-shaped alpha, 1 .. SCENE_FOLIAGE_MAX_CARDS, default SCENE_FOLIAGE_DEFAULT_CARDS) in bushes
 * and a fence with round holes over a ground; N counts cards, not triangles (2 per card). Its
 * cards are open quads seen from both sides; it carries UVs, two masked materials and their
 * generated textures (scene_cutouts_make reads them). */
#define SCENE_FOLIAGE_DEFAULT_CARDS 4000
#define SCENE_FOLIAGE_MAX_CARDS 1000000

/* Names of the built-in scenes, NULL-terminated. */
extern const char *const scene_builtin_names[];

/* Free what s owns and zero it (a zeroed scene or NULL is fine). */
void scene_free(scene *s);

/* Make s move: the triangles that move are all but the ground (built-in scenes: triangles 0 and 1;
 * files: the last ground_tris). The bounds stay the rest pose's. Call after any scene_add_ground
 * (its ground is then fixed). */
void scene_set_motion(scene *s, scene_motion m);

/* Bounds that hold every pose of s (the light and the clip planes are framed on them): the rest
 * bounds, grown by the wave's crest or to the turntable's circle. */
void scene_motion_bounds(const scene *s, float bmin[3], float bmax[3]);

/* The scene's triangles at time t seconds (deterministic in t; t = frame / 60 for frame numbers):
 * s->xyz is the rest pose, xyz (out, 9 * tri_count floats, not s->xyz) the moved one; normals
 * (out, NULL ok) likewise. Ground triangles are copied unchanged. Every vertex moves as a function
 * of its rest position and t only, so vertices shared at rest stay shared and closed meshes stay
 * closed (what izb_update_scene needs); orientation is kept (rotation, small smooth lift). */
void scene_animate(const scene *s, double t, float *xyz, float *normals);

/* Is a ground wanted for the scene `spec` (as scene_load takes it)? auto: for files, not for
 * "builtin:" scenes. */
bool scene_ground_wanted(scene_ground g, const char *spec);

/* Append a ground to s: one upward-facing quad (2 triangles, normals +y) on the bottom of the
 * bounds along the up axis (+y), in the plane of any floor the scene has there, large enough to
 * catch the shadows the scene's directional light casts (its footprint and the bounds' shadow
 * along light_dir, with a margin). Sets ground_tris = 2 and grows the bounds to hold it; the
 * camera and light stay the model's. Drawing the first tri_count - ground_tris triangles shows the
 * scene without it (then pass ground_tris = 0 too). False (s unchanged) on OOM. */
bool scene_add_ground(scene *s, char *err, size_t err_size);

/* Stand a model up: turn it so that its axis `up` (as the file has it, whatever turn s had before)
 * becomes +y. A rotation (a signed permutation of the axes: exact, never a mirror, so winding and
 * outward normals are kept), then the bounds, camera and light are framed again
 * (scene_frame_view) and an added ground is laid again under the turned model. Built-in scenes
 * stand y-up: anything but SCENE_UP_Y is refused for them (false, message in err, s unchanged).
 * False on OOM for the ground (s turned, without its ground). */
bool scene_set_up(scene *s, scene_up up, char *err, size_t err_size);

/* Recompute bounds and a default camera and light from the geometry (used after loading files):
 * the camera frames the bounds from above at 30 degrees, the light slants down over its shoulder.
 * Assumes +y is up (OBJ, glTF). */
void scene_frame_view(scene *s);

#endif
