/* izb.c — backend selection and dispatch (the seam of izb.h). */
#include "izb_backend.h"
#include "izb_aa.h"
#include "izb_soft.h"
#include "izb_area.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>



/* ---- fault injection ----------------------------------------------------------------------
 * A CUDA error or an out-of-memory mid-run must not end the program (DESIGN.md "Bad input and
 * faults"): the app goes on with the CPU backend. No machine fails on demand, so the tests set
 * IZB_FAULT in the environment: `scene` makes set_scene fail, `frame:N` makes every frame after
 * the Nth fail. A backend asked for as auto or cuda is then wrapped and named "faulty" (never
 * "cpu", so the app falls back exactly as from CUDA); one asked for as cpu, like the app's
 * fallback, never is. Unset, nothing is wrapped and nothing costs. */
typedef struct faulty_backend {
    izb_backend base;
    izb_backend_vtbl vt; /* per instance: shade_gl and get_debug exist where the inner ones do */
    izb_backend *inner;
    bool fail_scene;
    long frames_left; /* frames that still succeed */
} faulty_backend;

static void faulty_destroy(izb_backend *b)
{
    faulty_backend *f = (faulty_backend *)b;
    izb_destroy(f->inner);
    free(f);
}

static bool faulty_set_scene(izb_backend *b, const float *xyz, int tri_count, const izb_closed *closed)
{
    faulty_backend *f = (faulty_backend *)b;
    return !f->fail_scene && f->inner->vt->set_scene(f->inner, xyz, tri_count, closed);
}

/* boxes: recomputed by izb_update_scene on f's own base, whose closed analysis it also holds */
static bool faulty_update_scene(izb_backend *b, const float *xyz, int tri_count, const float *boxes)
{
    faulty_backend *f = (faulty_backend *)b;
    (void)boxes;
    return !f->fail_scene && izb_update_dispatch(f->inner, xyz, tri_count, &f->base.closed);
}

static bool faulty_set_cutouts(izb_backend *b, izb_cutout_set *s)
{
    faulty_backend *f = (faulty_backend *)b;
    return f->inner->vt->set_cutouts(f->inner, s);
}

static bool faulty_frame_ok(faulty_backend *f) { return f->frames_left-- > 0; }

static bool faulty_shade_arrays(izb_backend *b, const izb_recon *fr, const izb_settings *s,
                                const float *depth, const uint32_t *ids, uint8_t *mask, izb_stats *stats)
{
    faulty_backend *f = (faulty_backend *)b;
    return faulty_frame_ok(f) && f->inner->vt->shade_arrays(f->inner, fr, s, depth, ids, mask, stats);
}

static bool faulty_shade_gl(izb_backend *b, const izb_recon *fr, const izb_settings *s, unsigned depth_tex,
                            unsigned ids_tex, unsigned mask_tex, unsigned generation, izb_stats *stats)
{
    faulty_backend *f = (faulty_backend *)b;
    return faulty_frame_ok(f) &&
           f->inner->vt->shade_gl(f->inner, fr, s, depth_tex, ids_tex, mask_tex, generation, stats);
}

static bool faulty_get_debug(izb_backend *b, izb_debug *out)
{
    faulty_backend *f = (faulty_backend *)b;
    return f->inner->vt->get_debug(f->inner, out);
}

/* b itself when IZB_FAULT is unset; b wrapped when it names a fault; NULL (b destroyed) when it
 * cannot be parsed, with a message. */
static izb_backend *wrap_fault(izb_backend *b)
{
    const char *spec = getenv("IZB_FAULT");
    if (!b || !spec || !*spec)
        return b;
    long n = 0;
    char end = 0;
    bool scene = strcmp(spec, "scene") == 0;
    if (!scene && (sscanf(spec, "frame:%ld%c", &n, &end) != 1 || n < 0)) {
        fprintf(stderr, "izb: IZB_FAULT '%s': expected 'scene' or 'frame:N' (N >= 0)\n", spec);
        izb_destroy(b);
        return NULL;
    }
    faulty_backend *f = calloc(1, sizeof *f);
    if (!f) {
        izb_destroy(b);
        return NULL;
    }
    f->vt = (izb_backend_vtbl){.name = "faulty",
                               .destroy = faulty_destroy,
                               .set_scene = faulty_set_scene,
                               .shade_arrays = faulty_shade_arrays,
                               .shade_gl = b->vt->shade_gl ? faulty_shade_gl : NULL,
                               .get_debug = b->vt->get_debug ? faulty_get_debug : NULL,
                               .update_scene = faulty_update_scene,
                               .set_cutouts = b->vt->set_cutouts ? faulty_set_cutouts : NULL,
                               .soft = b->vt->soft,
                               .aa = b->vt->aa,
                               .area = b->vt->area};
    f->base.vt = &f->vt;
    f->base.threads = b->threads;
    f->base.tri_count = -1;
    f->inner = b;
    f->fail_scene = scene;
    f->frames_left = scene ? -1 : n;
    fprintf(stderr, "izb: IZB_FAULT=%s: the %s backend will fail on purpose\n", spec, izb_name(b));
    return &f->base;
}

/* The registry's entry of this kind; NULL when the build has none. */
static const izb_backend_entry *entry_of(izb_backend_kind kind)
{
    for (const izb_backend_entry *const *e = izb_backend_registry; *e; e++)
        if ((*e)->kind == kind)
            return *e;
    return NULL;
}

/* A kind asked for by name: that backend or NULL (it explains why). Auto: the registry's entries
 * in order; falling past one that needs a device says one short line, unless the build has none of
 * those (then there is nothing to report: the CPU is all it has) or desc is quiet. */
static izb_backend *create_backend(const izb_desc *d)
{
    if (d->backend != IZB_BACKEND_AUTO) {
        const izb_backend_entry *e = entry_of(d->backend);
        if (e)
            return e->create(d);
        fprintf(stderr, "izb: this build has no %s backend (configure with -D%s=enabled)\n",
                izb_backend_labels[d->backend], izb_backend_names[d->backend]);
        return NULL;
    }
    const izb_backend_entry *missed = NULL;
    for (const izb_backend_entry *const *e = izb_backend_registry; *e; e++) {
        izb_backend *b = (*e)->create(d);
        if (b) {
            if (missed && !d->quiet)
                fprintf(stderr, "izb: no %s device; %s backend\n", izb_backend_labels[missed->kind],
                        izb_backend_labels[(*e)->kind]);
            return b;
        }
        if ((*e)->needs_device && !missed)
            missed = *e;
    }
    return NULL;
}

izb_backend *izb_create(const izb_desc *desc)
{
    izb_desc d = desc ? *desc : (izb_desc){0};
    /* the app's fallback creates its CPU backend with an explicit kind: that one is never wrapped */
    izb_backend *b = create_backend(&d);
    if (b) {
        b->threads = d.threads;
        b->tri_count = -1;
    }
    return d.backend == IZB_BACKEND_CPU ? b : wrap_fault(b);
}

void izb_destroy(izb_backend *b)
{
    if (b) {
        izb_update_free(b);
        b->vt->destroy(b);
    }
}

const char *izb_name(const izb_backend *b) { return b->vt->name; }

izb_settings izb_settings_resolve(izb_settings s)
{
    if (s.kernel == IZB_KERNEL_DEFAULT)
        s.kernel = IZB_KERNEL1;
    if (s.binning == IZB_BINNING_DEFAULT)
        s.binning = IZB_BINNING_RADIX;
    if (!(s.bias > 0.0f))
        s.bias = IZB_DEFAULT_BIAS;
    if (s.grid_w <= 0 || s.grid_h <= 0)
        s.grid_w = s.grid_h = 0;
    if (s.cull != IZB_CULL_ON && s.cull != IZB_CULL_OFF)
        s.cull = IZB_CULL_AUTO;
    return s;
}

bool izb_set_scene(izb_backend *b, const float *xyz, int tri_count)
{
    /* Out of memory for the analysis leaves every triangle open: culling auto then culls nothing,
     * which is slower but still exact. Bad arrays are the backend's to refuse. */
    izb_closed closed = {0};
    if (tri_count > 0 && xyz)
        izb_closed_find_threads(xyz, tri_count, b->threads, &closed);
    const bool ok = b->vt->set_scene(b, xyz, tri_count, &closed);
    b->tris_cullable = ok ? closed.cullable : 0;
    /* kept for izb_update_scene, which moves these triangles without redoing the analysis */
    izb_closed_free(&b->closed);
    b->closed = ok ? closed : (izb_closed){0};
    b->tri_count = ok ? tri_count : -1;
    b->tris_cut = 0; /* the backend dropped the previous scene's cut-outs */
    if (!ok)
        izb_closed_free(&closed);
    return ok;
}

bool izb_set_cutouts(izb_backend *b, const izb_cutouts *c)
{
    const bool any = c && c->image_of && c->tri_count > 0;
    if (!b->vt->set_cutouts) {
        b->tris_cut = 0;
        if (!any) return true; /* nothing to ignore */
        fprintf(stderr, "izb %s: this backend cannot alpha-test cut-outs (the CPU and CUDA backends do): the "
                        "IZB treats every triangle as opaque\n", b->vt->name);
        return false;
    }
    izb_cutout_set set;
    char who[64];
    snprintf(who, sizeof who, "izb %s", b->vt->name);
    bool ok = izb_cutout_set_build(&set, c, b->tri_count < 0 ? 0 : b->tri_count, who);
    const int cut = set.cut_count;
    if (!b->vt->set_cutouts(b, &set)) { /* (ok false: an empty set, which drops the old one) */
        izb_cutout_set_free(&set);
        ok = false;
    }
    b->tris_cut = ok ? cut : 0;
    return ok;
}

/* what izb.c knows of the scene, added to the backend's stats */
static void add_scene_stats(const izb_backend *b, izb_stats *stats)
{
    if (stats) {
        stats->tris_cullable = b->tris_cullable;
        stats->tris_cut = b->tris_cut;
    }
}

bool izb_shade_arrays(izb_backend *b, const izb_recon *frame, const izb_settings *s, const float *depth,
                      uint8_t *mask, izb_stats *stats)
{
    return izb_shade_arrays_ids(b, frame, s, depth, NULL, mask, stats);
}

bool izb_soft_frame_ok(const izb_recon *f)
{
    const float max = IZB_SOFT_MAX_ANGLE_DEG * 3.14159265358979f / 180.0f;
    if (!(f->light_angle >= 0.0f) || !(f->light_angle <= max * (1.0f + 1e-6f))) {
        fprintf(stderr, "izb: light angle %g rad: must be within 0 .. %g degrees\n", (double)f->light_angle,
                (double)IZB_SOFT_MAX_ANGLE_DEG);
        return false;
    }
    if (f->light_angle > 0.0f && !izb_soft_samples_ok(f->light_samples)) {
        fprintf(stderr, "izb: %d light samples: must be 16, 32, 64, 128 or 256\n", f->light_samples);
        return false;
    }
    if (f->light_angle > 0.0f && f->light_is_spot) {
        fprintf(stderr, "izb: a light angle is for the directional light only so far (spot and area lights: issue 20)\n");
        return false;
    }
    return true;
}

bool izb_area_frame_ok(const izb_recon *f)
{
    for (int k = 0; k < 2; k++)
        if (!(f->light_size[k] >= 0.0f) || !(f->light_size[k] <= IZB_AREA_MAX_SIZE)) {
            fprintf(stderr, "izb: light size %g: must be within 0 .. %g world units\n", (double)f->light_size[k],
                    (double)IZB_AREA_MAX_SIZE);
            return false;
        }
    if (f->light_disk != IZB_AREA_RECT && f->light_disk != IZB_AREA_DISK) {
        fprintf(stderr, "izb: light shape %d: must be %d (rectangle) or %d (disk)\n", f->light_disk, IZB_AREA_RECT,
                IZB_AREA_DISK);
        return false;
    }
    if (!(f->light_size[0] > 0.0f) && !(f->light_size[1] > 0.0f))
        return true; /* a point: the hard path */
    if (f->light_is_spot != IZB_LIGHT_SPOT) {
        fprintf(stderr, "izb: a light size is for spot (area) lights only\n");
        return false;
    }
    if (!izb_soft_samples_ok(f->light_samples)) {
        fprintf(stderr, "izb: %d light samples: must be 16, 32, 64, 128 or 256\n", f->light_samples);
        return false;
    }
    return true;
}

bool izb_aa_frame_ok(const izb_recon *f)
{
    const int n = f->shadow_samples;
    if (n == 0 || n == 1)
        return true;
    if (!izb_aa_samples_ok(n)) {
        fprintf(stderr, "izb: %d shadow samples: must be 1, 4, 8, 16 or 32\n", n);
        return false;
    }
    /* every light kind: directional, spot, and a point light's cube faces (IZB_LIGHT_FACE, and the
     * IZB_LIGHT_CUBE frames izb_shade_arrays_faces makes of them), each face a projective frame like
     * a spot's (izb_aa.h, "Point lights") */
    if (f->light_is_spot < 0 || f->light_is_spot > IZB_LIGHT_CUBE) {
        fprintf(stderr, "izb: light kind %d: must be 0 .. %d\n", f->light_is_spot, IZB_LIGHT_CUBE);
        return false;
    }
    if (f->light_angle > 0.0f) {
        fprintf(stderr, "izb: shadow samples and a light angle together are not supported yet (issue 19)\n");
        return false;
    }
    if (izb_area_on(f)) {
        fprintf(stderr, "izb: shadow samples and a light size (area light) together are not supported yet (issue 19)\n");
        return false;
    }
    return true;
}

bool izb_frame_ok(const izb_recon *f)
{
    return izb_soft_frame_ok(f) && izb_area_frame_ok(f) && izb_aa_frame_ok(f);
}

/* The one capability check of the seam (izb_shade_arrays_ids, izb_shade_gl and izb_faces.c): a
 * frame whose values izb_frame_ok takes, of a kind b has the path for. */
bool izb_backend_takes(const izb_backend *b, const izb_recon *f)
{
    if (!f) {
        fprintf(stderr, "izb %s: shade: NULL frame\n", b->vt->name);
        return false;
    }
    if (!izb_frame_ok(f))
        return false;
    const char *missing = f->light_angle > 0.0f && !b->vt->soft    ? "soft shadows (a light angle)"
                          : izb_area_on(f) && !b->vt->area         ? "area lights (a light size)"
                          : f->shadow_samples > 1 && !b->vt->aa    ? "anti-aliased shadow edges (shadow samples)"
                                                                   : NULL;
    if (missing)
        fprintf(stderr, "izb %s: this backend has no path for %s; --backend cpu has\n", b->vt->name, missing);
    return !missing;
}

bool izb_shade_arrays_ids(izb_backend *b, const izb_recon *frame, const izb_settings *s, const float *depth,
                          const uint32_t *ids, uint8_t *mask, izb_stats *stats)
{
    if (!izb_backend_takes(b, frame))
        return false;
    izb_settings r = izb_settings_resolve(s ? *s : (izb_settings){0});
    izb_recon f = *frame;
    f.bias = r.bias;
    const bool ok = b->vt->shade_arrays(b, &f, &r, depth, ids, mask, stats);
    add_scene_stats(b, stats);
    return ok;
}

bool izb_supports_gl(const izb_backend *b) { return b->vt->shade_gl != NULL; }

bool izb_shade_gl(izb_backend *b, const izb_recon *frame, const izb_settings *s, unsigned depth_tex,
                  unsigned ids_tex, unsigned mask_tex, unsigned generation, izb_stats *stats)
{
    if (!b->vt->shade_gl || !izb_backend_takes(b, frame))
        return false;
    izb_settings r = izb_settings_resolve(s ? *s : (izb_settings){0});
    izb_recon f = *frame;
    f.bias = r.bias;
    const bool ok = b->vt->shade_gl(b, &f, &r, depth_tex, ids_tex, mask_tex, generation, stats);
    add_scene_stats(b, stats);
    return ok;
}

bool izb_get_debug(izb_backend *b, izb_debug *out)
{
    *out = (izb_debug){0}; /* fields a backend does not keep stay NULL */
    return b->vt->get_debug && b->vt->get_debug(b, out);
}
