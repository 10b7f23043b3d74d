/* bench_lights.c — what several lights cost (issue 21, item 5: 8 lights at most 8.5x one light, no
 * per-light overhead that grows with the count). Headless frames (EGL, the renderer's render_frame,
 * the CPU backend) of one scene and view, side by side in one process: each timed round draws, in
 * turn, the frame of light 0 alone, the frame of all N lights, and each of the N lights alone.
 * Interleaving keeps a busy machine's slow moments fair to every case.
 *
 *   bench-lights [--scene SPEC] [--size WxH] [--lights N] [--frames N] [--warmup N] [--threads N]
 *                [--mixed | --point]
 *
 * The lights are the scene's directional light and N - 1 copies of it turned about the vertical
 * (the same elevation: lights of about the same cost); --mixed makes every other one a spot light
 * above the scene aimed at its middle (no point lights in a mix: a point light is six cube faces,
 * which would make "one light" mean different work); --point makes them all point lights, around
 * the scene's light position (issue 21: 8 point lights against one).
 * Reports, for the whole frame (wall clock of render_frame plus glFinish) and for the IZB alone
 * (the sum of the lights' izb_stats.total_ms), min and median over the timed rounds of: light 0
 * alone, N lights, the sum of the N lights each alone; and the ratios N lights / light 0, N lights
 * / the mean light (the sum / N: the lights differ in cost, light 0 is not the typical one), and N
 * lights / the sum (1.0: no cost beyond the passes themselves). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glad/gl.h>

#include "gl_context.h"
#include "izb.h"
#include "render.h"
#include "scene.h"
#include "stats.h"
#include "view.h"

enum { MAX_ROUNDS = 1000 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench-lights [--scene SPEC] [--size WxH] [--lights N (2..%d)] [--frames N] "
                    "[--warmup N] [--threads N] [--mixed | --point]\n",
            IZB_MAX_LIGHTS);
    exit(2);
}

/* light i of the set: 0 the scene's sun; odd ones directional, turned about y by 360 i / n; even
 * ones spots above the scene, on a circle, aimed at its middle. point: every light a point light,
 * 0 at the scene's light position, the others on a level circle around it (radius 0.1 of the
 * scene's largest extent: inside builtin:room) */
static light bench_light(const scene *s, int i, int n, bool mixed, bool point)
{
    light l = {.type = LIGHT_DIRECTIONAL, .dir = {s->light_dir[0], s->light_dir[1], s->light_dir[2]}};
    const float a = 6.2831853f * (float)i / (float)n, c = cosf(a), sn = sinf(a);
    if (point) {
        float e = 0.0f;
        for (int k = 0; k < 3; k++)
            e = fmaxf(e, s->bounds_max[k] - s->bounds_min[k]);
        l = (light){.type = LIGHT_POINT, .pos = {s->light_pos[0], s->light_pos[1], s->light_pos[2]}};
        if (i > 0) l.pos[0] += 0.1f * e * c, l.pos[2] += 0.1f * e * sn;
        return l;
    }
    if (i == 0) return l;
    if (!mixed || i % 2 == 1) {
        l.dir[0] = c * s->light_dir[0] - sn * s->light_dir[2];
        l.dir[2] = sn * s->light_dir[0] + c * s->light_dir[2];
        return l;
    }
    float mid[3], r = 0.0f;
    for (int k = 0; k < 3; k++) {
        mid[k] = 0.5f * (s->bounds_min[k] + s->bounds_max[k]);
        const float e = s->bounds_max[k] - s->bounds_min[k];
        r = e > r ? e : r;
    }
    l = (light){.type = LIGHT_SPOT, .cone_deg = 70.0f,
                .pos = {mid[0] + 0.6f * r * c, s->bounds_max[1] + 0.5f * r, mid[2] + 0.6f * r * sn}};
    for (int k = 0; k < 3; k++) l.dir[k] = mid[k] - l.pos[k];
    return l;
}

/* one frame of ls: wall ms (render_frame to glFinish) and the IZB's ms (summed over the lights) */
static bool timed_frame(render *r, izb_backend *b, const camera *cam, const light_set *ls, double *wall,
                        double *izb)
{
    izb_stats per[IZB_MAX_LIGHTS];
    const double t0 = now_ms();
    bool ok = render_frame(r, &(render_frame_desc){.cam = cam, .lights = ls, .backend = b, .light_stats = per});
    glFinish();
    *wall = now_ms() - t0;
    *izb = 0.0;
    for (int i = 0; i < ls->count; i++) *izb += per[i].total_ms;
    return ok;
}

int main(int argc, char **argv)
{
    const char *spec = "builtin:default";
    int W = 1280, H = 720, n = IZB_MAX_LIGHTS, frames = 5, warmup = 1, threads = 0;
    bool mixed = false, point = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--mixed") == 0 || strcmp(a, "--point") == 0) {
            mixed |= strcmp(a, "--mixed") == 0, point |= strcmp(a, "--point") == 0;
            continue;
        }
        if (!v) usage();
        if (strcmp(a, "--scene") == 0)
            spec = v;
        else if (strcmp(a, "--size") == 0 && sscanf(v, "%dx%d", &W, &H) == 2 && W > 0 && H > 0 && W <= 16384 &&
                 H <= 16384)
            ;
        else if (strcmp(a, "--lights") == 0 && (n = atoi(v)) >= 2 && n <= IZB_MAX_LIGHTS)
            ;
        else if (strcmp(a, "--frames") == 0 && (frames = atoi(v)) >= 1 && frames <= MAX_ROUNDS)
            ;
        else if (strcmp(a, "--warmup") == 0 && (warmup = atoi(v)) >= 0 && warmup <= MAX_ROUNDS)
            ;
        else if (strcmp(a, "--threads") == 0 && (threads = atoi(v)) >= 0)
            ;
        else
            usage();
        i++;
    }
    char err[512];
    gl_context ctx;
    if (!gl_context_init(&ctx, &(gl_context_desc){.headless = true}, err, sizeof err)) {
        fprintf(stderr, "bench-lights: %s\n", err);
        return 1;
    }
    scene s;
    if (!scene_load(spec, &s, err, sizeof err)) {
        fprintf(stderr, "bench-lights: %s\n", err);
        return 1;
    }
    render *r = render_create(&(render_desc){.width = W, .height = H}, err, sizeof err);
    izb_backend *b = izb_create(&(izb_desc){.backend = IZB_BACKEND_CPU, .threads = threads, .quiet = true});
    if (!r || !render_set_scene(r, &s, err, sizeof err) || !b || !izb_set_scene(b, s.xyz, s.tri_count)) {
        fprintf(stderr, "bench-lights: set-up failed: %s\n", err);
        return 1;
    }
    camera cam = {.pos = {s.cam_pos[0], s.cam_pos[1], s.cam_pos[2]}, .yaw = s.cam_yaw, .pitch = s.cam_pitch};
    camera_fit_clip(&cam, s.bounds_min, s.bounds_max);
    light_set all = {.count = n};
    for (int i = 0; i < n; i++)
        all.l[i] = bench_light(&s, i, n, mixed, point), all.intensity[i] = 1.0f / (float)n;
    const light_set one = light_set_one(&all.l[0]);

    static double w1[MAX_ROUNDS], wn[MAX_ROUNDS], ws[MAX_ROUNDS], z1[MAX_ROUNDS], zn[MAX_ROUNDS], zs[MAX_ROUNDS];
    int k = 0;
    for (int round = 0; round < warmup + frames; round++) {
        double a, za, c, zc, sw = 0.0, sz = 0.0;
        bool ok = timed_frame(r, b, &cam, &one, &a, &za) && timed_frame(r, b, &cam, &all, &c, &zc);
        for (int i = 0; i < n && ok; i++) {
            const light_set alone = light_set_one(&all.l[i]);
            double x, zx;
            ok = timed_frame(r, b, &cam, &alone, &x, &zx);
            sw += x, sz += zx;
        }
        if (!ok) {
            fprintf(stderr, "bench-lights: a frame failed\n");
            return 1;
        }
        if (round < warmup) continue;
        w1[k] = a, wn[k] = c, ws[k] = sw, z1[k] = za, zn[k] = zc, zs[k] = sz;
        k++;
    }
    const stats_summary sw1 = stats_summarize(w1, (size_t)k), swn = stats_summarize(wn, (size_t)k),
                        sws = stats_summarize(ws, (size_t)k), sz1 = stats_summarize(z1, (size_t)k),
                        szn = stats_summarize(zn, (size_t)k), szs = stats_summarize(zs, (size_t)k);
    FILE *la = fopen("/proc/loadavg", "r");
    char load[64] = "?";
    if (la) {
        if (!fgets(load, sizeof load, la)) snprintf(load, sizeof load, "?");
        fclose(la);
        load[strcspn(load, "\n")] = '\0';
    }
    printf("bench-lights: %s, %dx%d, CPU backend, threads %d (0: all), %d %s lights, %d rounds after %d warm-up; "
           "load average %s\n",
           spec, W, H, threads, n, point ? "point" : mixed ? "mixed (directional, spot)" : "directional", k, warmup,
           load);
    /* "one light" two ways: light 0 alone, and the mean light (the sum of each alone / n) */
    printf("| ms | light 0 alone | %d lights | %d lights each alone, summed | %d lights / light 0 | %d lights / mean "
           "light | %d lights / summed |\n",
           n, n, n, n, n);
    printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    const struct {
        const char *what;
        double one, all, sum;
    } rows[4] = {{"frame, min", sw1.min, swn.min, sws.min},
                 {"frame, median", sw1.median, swn.median, sws.median},
                 {"IZB, min", sz1.min, szn.min, szs.min},
                 {"IZB, median", sz1.median, szn.median, szs.median}};
    for (int i = 0; i < 4; i++)
        printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f |\n", rows[i].what, rows[i].one, rows[i].all,
               rows[i].sum, rows[i].all / rows[i].one, rows[i].all / (rows[i].sum / n), rows[i].all / rows[i].sum);
    izb_destroy(b);
    render_destroy(r);
    scene_free(&s);
    gl_context_shutdown(&ctx);
    return 0;
}
