/* session.c — HUD text, F/R/P files and camera-path replay around the frame loop (session.h). */
#include "session.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "controls.h"

enum { NOTICE_S = 4 }; /* seconds a notice stays on the HUD */

/* print a line on stdout and keep it as the HUD notice */
static void notice(session *s, double now, const char *fmt, ...);
static void toggle_log(session *s, double now);
static void toggle_record(session *s, double now, const camera *c, const light *l);
static void screenshot(session *s, double now, render *r);

static void notice_to(FILE *to, session *s, double now, const char *fmt, va_list ap)
{
    vsnprintf(s->notice, sizeof s->notice, fmt, ap);
    s->notice_until = now + NOTICE_S;
    fprintf(to, "izb-shadows: %s\n", s->notice);
    fflush(to);
}

static void notice(session *s, double now, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    notice_to(stdout, s, now, fmt, ap);
    va_end(ap);
}

/* a file that could not be written: on stderr and counted, so the run ends with exit 1 */
static void write_failed(session *s, double now, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    notice_to(stderr, s, now, fmt, ap);
    va_end(ap);
    s->write_failures++;
}

bool session_unique_name(char *out, size_t out_size, const char *dir, const char *prefix, const char *ext)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int i = 1; i < 1000; i++) {
        char num[16] = "";
        if (i > 1) snprintf(num, sizeof num, "-%d", i);
        int n = snprintf(out, out_size, "%s/%s-%s%s.%s", dir && *dir ? dir : ".", prefix, stamp, num, ext);
        if (n < 0 || (size_t)n >= out_size) return false;
        struct stat st;
        if (stat(out, &st) != 0 && errno == ENOENT) return true;
    }
    return false;
}

bool session_init(session *s, const session_desc *d, char *err, size_t err_size)
{
    memset(s, 0, sizeof *s);
    s->desc = *d;
    if (!(s->desc.path_fps > 0.0)) s->desc.path_fps = 60.0;
    if (!s->desc.out_dir || !*s->desc.out_dir) s->desc.out_dir = ".";
    s->hud = d->hud;
    if (d->path_file) {
        if (!camera_path_load(&s->play, d->path_file, err, err_size)) return false;
        s->playing = true;
    }
    return true;
}

void session_shutdown(session *s, double now)
{
    if (s->recording) toggle_record(s, now, NULL, NULL);
    camera_path_free(&s->rec);
    camera_path_free(&s->play);
}

static void toggle_log(session *s, double now)
{
    fps_log *log = s->desc.log;
    if (!log) return;
    if (log->f) {
        long rows = log->rows;
        if (fps_log_close(log))
            notice(s, now, "FPS log %s: %ld rows, closed", s->log_path[0] ? s->log_path : "(--log)", rows);
        else
            write_failed(s, now, "FPS log %s: incomplete (%ld rows), closed",
                         s->log_path[0] ? s->log_path : "(--log)", rows);
        s->log_path[0] = '\0';
        return;
    }
    char name[512], err[640] = "no free file name";
    bool ok = false;
    for (int tries = 0; tries < 3 && !ok; tries++) /* "wx" loses a race only to another writer */
        ok = session_unique_name(name, sizeof name, s->desc.out_dir, "izb-log", "csv") &&
             fps_log_open(log, name, false, err, sizeof err);
    if (!ok) {
        write_failed(s, now, "FPS log: cannot start one in %s: %s", s->desc.out_dir, err);
        return;
    }
    snprintf(s->log_path, sizeof s->log_path, "%s", name);
    notice(s, now, "FPS log: recording to %s", name);
}

static void toggle_record(session *s, double now, const camera *c, const light *l)
{
    if (!s->recording) {
        camera_path_free(&s->rec);
        if (!session_unique_name(s->rec_path, sizeof s->rec_path, s->desc.out_dir, "izb-path", "path")) {
            notice(s, now, "camera path: no free file name in %s", s->desc.out_dir);
            return;
        }
        s->recording = true;
        s->rec_t0 = now;
        if (c && l) camera_path_add(&s->rec, 0.0, c, l);
        notice(s, now, "camera path: recording (R stops, saves to %s)", s->rec_path);
        return;
    }
    s->recording = false;
    char err[640];
    if (s->rec.count == 0) {
        notice(s, now, "camera path: nothing recorded");
    } else if (!camera_path_save(&s->rec, s->rec_path, err, sizeof err)) {
        write_failed(s, now, "camera path %s", err);
    } else {
        notice(s, now, "camera path: wrote %s (%d poses, %.1f s)", s->rec_path, s->rec.count,
               camera_path_duration(&s->rec));
    }
}

static void screenshot(session *s, double now, render *r)
{
    char name[512], err[640];
    if (!session_unique_name(name, sizeof name, s->desc.out_dir, "izb-shot", "png")) {
        notice(s, now, "screenshot: no free file name in %s", s->desc.out_dir);
        return;
    }
    if (render_screenshot(r, name, err, sizeof err))
        notice(s, now, "screenshot: wrote %s", name);
    else
        write_failed(s, now, "%s", err);
}

void session_keys(session *s, unsigned toggles, double now, render *r, const camera *c, const light *l)
{
    if (toggles & CONTROL_HUD) s->hud = !s->hud;
    if (toggles & CONTROL_HELP) {
        s->keys_shown = !s->keys_shown;
        if (s->keys_shown) { /* on the terminal too, once: hiding the list prints nothing */
            controls_print_keys(stdout);
            fflush(stdout);
        }
    }
    if (toggles & CONTROL_LOG) toggle_log(s, now);
    if (toggles & CONTROL_RECORD) toggle_record(s, now, c, l);
    if ((toggles & CONTROL_SCREENSHOT) && r) screenshot(s, now, r);
}

void session_replay(session *s, double wall_dt, camera *c, light *l)
{
    if (!s->playing || s->play.count == 0) return;
    /* the path holds pose and light; the lens and clip planes stay the app's, and so does the
     * light's extent (cone, angle, samples, size, shape) when a version-1 path has none */
    camera keep_c = *c;
    light keep_l = *l;
    camera_path_sample(&s->play, s->play_t, s->desc.path_loop, c, l);
    c->fovy = keep_c.fovy;
    c->near = keep_c.near;
    c->far = keep_c.far;
    if (s->play.version < 2) {
        l->cone_deg = keep_l.cone_deg;
        l->angle_deg = keep_l.angle_deg;
        l->samples = keep_l.samples;
        l->size[0] = keep_l.size[0];
        l->size[1] = keep_l.size[1];
        l->shape = keep_l.shape;
    }
    double dur = camera_path_duration(&s->play);
    if (!s->desc.path_loop && s->play_t >= dur - 1e-9) s->path_done = true;
    if (s->desc.headless) /* a count, not a sum: no drift over long paths */
        s->play_t = (double)++s->play_frame / s->desc.path_fps;
    else
        s->play_t += wall_dt;
}

double session_anim_time(const session *s, long frame, double wall_s)
{
    return s->desc.headless ? (double)frame / s->desc.path_fps : wall_s;
}

void session_record(session *s, double now, const camera *c, const light *l)
{
    if (s->recording) camera_path_add(&s->rec, now - s->rec_t0, c, l);
}

/* session_shadow_text, with " PCSS" after the map's size where the map filters a soft light */
static void shadow_text(char *out, size_t out_size, shadow_mode m, int sm_size, float sm_ms, bool pcss)
{
    char ms[32] = "n/a"; /* no result yet */
    if (sm_ms >= 0.0f) snprintf(ms, sizeof ms, "%.2f ms", (double)sm_ms);
    const char *filter = pcss ? " PCSS" : "";
    switch (m) {
    case SHADOW_MODE_MAP:
        snprintf(out, out_size, "shadow map %d%s: %s", sm_size, filter, ms);
        break;
    case SHADOW_MODE_DIFF:
        snprintf(out, out_size, "difference IZB / map %d%s: %s", sm_size, filter, ms);
        break;
    case SHADOW_MODE_NONE:
        snprintf(out, out_size, "none");
        break;
    default:
        snprintf(out, out_size, "IZB");
        break;
    }
}

void session_shadow_text(char *out, size_t out_size, shadow_mode m, int sm_size, float sm_ms)
{
    shadow_text(out, out_size, m, sm_size, sm_ms, false);
}

/* the unit size as it applies: the resolved one (CUDA), else the setting; n/a on the CPU backend,
 * which has no units of threads */
static void unit_text(char out[16], const session_hud_info *i, const izb_settings *st)
{
    if (i->backend && strcmp(i->backend, "cpu") == 0) {
        snprintf(out, 16, "n/a");
        return;
    }
    int u = i->izb && i->izb->unit_size > 0 ? i->izb->unit_size : st->unit_size;
    if (u > 0)
        snprintf(out, 16, "%d", u);
    else
        snprintf(out, 16, "auto");
}

/* a GL pass time, or n/a before its timer's first result */
static const char *ms_text(char out[16], float ms, long frame)
{
    if (frame < 0)
        snprintf(out, 16, "   n/a");
    else
        snprintf(out, 16, "%6.2f", (double)ms);
    return out;
}

/* Several lights: "lights 3, 2 picked: IZB 1.20 2.31 off ms" (off: zero intensity, no pass; n/a:
 * the IZB did not run this frame). Empty for one light: its title and HUD are as they were. */
static void lights_text(const session_hud_info *i, char *out, size_t out_size)
{
    out[0] = '\0';
    const int count = i->lights ? i->lights->count : 1;
    if (count <= 1 || out_size == 0) return;
    size_t n = (size_t)snprintf(out, out_size, "lights %d, %d picked: IZB", count, i->picked + 1);
    for (int k = 0; k < count && n < out_size; k++) {
        int w;
        if (i->lights->intensity[k] <= 0.0f)
            w = snprintf(out + n, out_size - n, " off");
        else if (i->light_stats && i->izb)
            w = snprintf(out + n, out_size - n, " %.2f", (double)i->light_stats[k].total_ms);
        else
            w = snprintf(out + n, out_size - n, " n/a");
        n += w > 0 ? (size_t)w : 0;
    }
    if (n < out_size) snprintf(out + n, out_size - n, " ms");
}

void session_title_text(const session_hud_info *i, char *out, size_t out_size)
{
    izb_settings st = izb_settings_resolve(i->settings);
    char unit[16], counts[128], shadows[96];
    unit_text(unit, i, &st);
    if (i->izb)
        snprintf(counts, sizeof counts, "tris %d / %d after cull | points %d", i->scene_tris,
                 i->izb->tris_after_cull, i->izb->points);
    else /* no IZB on this frame: the scene's count, nothing of the IZB's */
        snprintf(counts, sizeof counts, "tris %d | points n/a", i->scene_tris);
    shadow_text(shadows, sizeof shadows, i->shadows, i->sm_size,
                i->gl.shadow_map_frame >= 0 ? i->gl.shadow_map_ms : -1.0f, i->sm_pcss);
    char lights[160];
    lights_text(i, lights, sizeof lights);
    snprintf(out, out_size, "izb-shadows | %.1f fps %.2f ms | %s kernel%s %s unit %s | %s | %s | shadows: %s%s%s",
             i->fps, i->frame_ms, i->backend ? i->backend : "none", izb_kernel_name(st.kernel),
             izb_binning_name(st.binning), unit, counts, render_view_names[i->view], shadows, lights[0] ? " | " : "",
             lights);
}

void session_hud_text(const session *s, const session_hud_info *i, char *out, size_t out_size)
{
    if (s->keys_shown) { /* F1: the key list replaces the HUD until F1 again (it needs the room) */
        size_t k = controls_keys_text(out, out_size);
        snprintf(out + k, k < out_size ? out_size - k : 0, "F1 or ? hides this");
        return;
    }
    izb_settings st = izb_settings_resolve(i->settings);
    const izb_stats *z = i->izb;
    char unit[16], t1[16], t2[16];
    unit_text(unit, i, &st);
    size_t n = 0;
#define ADD(...)                                                                                        \
    do {                                                                                                \
        if (n < out_size) {                                                                             \
            int k_ = snprintf(out + n, out_size - n, __VA_ARGS__);                                      \
            n += k_ > 0 ? (size_t)k_ : 0;                                                               \
        }                                                                                               \
    } while (0)
    ADD("%.1f fps  %.2f ms/frame  %dx%d  view %s  vsync %s\n", i->fps, i->frame_ms, i->width, i->height,
        render_view_names[i->view], i->vsync ? "on" : "off");
    ADD("%s backend  kernel%s  %s binning  unit %s\n", i->backend ? i->backend : "none", izb_kernel_name(st.kernel),
        izb_binning_name(st.binning), unit);
    if (z) /* what auto may cull is the IZB's finding: only where it ran */
        ADD("culling %s (%d of %d triangles on closed meshes)  ground %s\n", izb_cull_name(st.cull),
            z->tris_cullable, i->scene_tris, i->ground ? "on" : "off");
    else
        ADD("culling %s  ground %s\n", izb_cull_name(st.cull), i->ground ? "on" : "off");
    if (i->cut_tris > 0) /* scenes with cut-outs only: the count the issue asks the HUD for */
        ADD("alpha test %s: %d cut-out triangles\n", i->alpha_test ? "on" : "off", i->cut_tris);
    char shadows[96];
    shadow_text(shadows, sizeof shadows, i->shadows, i->sm_size,
                i->gl.shadow_map_frame >= 0 ? i->gl.shadow_map_ms : -1.0f, i->sm_pcss);
    ADD("shadows: %s\n", shadows);
    bool izb_mode = i->shadows == SHADOW_MODE_IZB || i->shadows == SHADOW_MODE_DIFF;
    if (z && izb_mode) {
        ADD("depth pass %s ms   reconstruct+bbox %6.2f ms\n", ms_text(t1, i->gl.depth_ms, i->gl.depth_frame),
            (double)z->stage_ms[IZB_STAGE_RECONSTRUCT]);
        ADD("binning    %6.2f ms   culling+compact  %6.2f ms\n", (double)z->stage_ms[IZB_STAGE_BINNING],
            (double)z->stage_ms[IZB_STAGE_CULLING]);
        ADD("raster     %6.2f ms   shading          %s ms\n", (double)z->stage_ms[IZB_STAGE_RASTER],
            ms_text(t2, i->gl.shade_ms, i->gl.shade_frame));
        ADD("triangles %d -> %d after culling   points %d   grid %dx%d\n", i->scene_tris, z->tris_after_cull,
            z->points, z->grid_w, z->grid_h);
    } else { /* the IZB's numbers would be an older frame's, or none */
        ADD("depth pass %s ms   shading %s ms   (%s)\n", ms_text(t1, i->gl.depth_ms, i->gl.depth_frame),
            ms_text(t2, i->gl.shade_ms, i->gl.shade_frame), izb_mode ? "IZB: no frame yet" : "IZB off");
        ADD("triangles %d\n", i->scene_tris);
    }
    char lights[160];
    lights_text(i, lights, sizeof lights);
    if (lights[0]) ADD("%s\n", lights);
    if (i->light) {
        const light *l = i->light;
        if (l->type == LIGHT_POINT)
            ADD("point light at (%.1f, %.1f, %.1f), 6 cube faces", (double)l->pos[0], (double)l->pos[1],
                (double)l->pos[2]);
        else if (l->type == LIGHT_SPOT)
            ADD("spot light at (%.1f, %.1f, %.1f), cone %.0f deg", (double)l->pos[0], (double)l->pos[1],
                (double)l->pos[2], (double)(l->cone_deg > 0.0f ? l->cone_deg : 60.0f));
        else
            ADD("directional light (%.2f, %.2f, %.2f)", (double)l->dir[0], (double)l->dir[1],
                (double)l->dir[2]);
        ADD("%s\n", i->light_mode ? "   [L: keys move the LIGHT]" : "");
    }
    if (s->desc.log && s->desc.log->f)
        ADD("LOG %s (%ld rows)\n", s->log_path[0] ? s->log_path : "--log", s->desc.log->rows);
    if (s->recording) ADD("REC %s (%d poses)\n", s->rec_path, s->rec.count);
    if (s->playing)
        ADD("PLAY %s %.1f / %.1f s%s\n", s->desc.path_file, s->play_t, camera_path_duration(&s->play),
            s->desc.path_loop ? " (loop)" : "");
    if (s->notice[0] && i->now < s->notice_until) ADD("%s\n", s->notice);
    ADD("H hides this, F1 or ? shows the keys");
#undef ADD
}
