/* test_app_run.c — headless runs of the built binary (suite gl; exit 77 without a GL 4.5
 * context):
 *  - --frames N --screenshot --log: exit 0, a PNG of the requested size, a CSV with a header of
 *    unit-named columns and N complete rows with the run's settings;
 *  - logs of runs started in modes izb, map and none: tris_in the scene's, kernel and binning as
 *    asked, the map's size only where one is drawn, frame 0's GL times empty (no result yet);
 *  - SIGINT in the middle of a long run: exits 0 soon, every log row complete;
 *  - --shader-dir with a broken shader: exit 1, the file name and the GL info log on stderr;
 *    with a shader missing: exit 1, one line naming the path.
 * usage: test_app_run PATH-TO-izb-shadows */
#undef NDEBUG
#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "gl_context.h"
#include "gl_shader.h"
#include "csv_util.h"
#include "png_decode.h"
#include "run_util.h"
#include "test.h"

static char *exe;
static run_result res;
static char tmpdir[] = "/tmp/izb-app-run-XXXXXX";

/* the CSV: header columns, and per data row the column count; returns rows, -1 on error */
static long check_csv(const char *path, int *columns, char *header, size_t header_size, char *last,
                      size_t last_size);
static uint32_t be32(const uint8_t *p);
static unsigned char *read_file(const char *path, long *size);

/* The whole file, malloc'd; NULL when it cannot be read. */
static unsigned char *read_file(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    rewind(f);
    unsigned char *buf = *size > 0 ? malloc((size_t)*size) : NULL;
    if (buf && fread(buf, 1, (size_t)*size, f) != (size_t)*size) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static long check_csv(const char *path, int *columns, char *header, size_t header_size, char *last,
                      size_t last_size)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    static char line[4000];
    long rows = 0;
    int bad = 0;
    *columns = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        int cols = 1;
        for (size_t i = 0; i < len; i++)
            cols += line[i] == ',';
        if (len == 0 || line[len - 1] != '\n') bad++; /* a torn last line */
        if (*columns == 0) {
            *columns = cols;
            snprintf(header, header_size, "%s", line);
            continue;
        }
        if (cols != *columns) bad++;
        snprintf(last, last_size, "%s", line);
        rows++;
    }
    fclose(f);
    return bad ? -1 : rows;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_app_run PATH-TO-izb-shadows\n");
        return 1;
    }
    exe = argv[1];
    {
        gl_context ctx;
        char err[256];
        if (!gl_context_init(&ctx, &(gl_context_desc){.headless = true}, err, sizeof err))
            TEST_SKIP("%s", err);
        gl_context_shutdown(&ctx);
    }
    CHECK(mkdtemp(tmpdir) != NULL, "mkdtemp");
    char png[256], csv[256], csv2[256], csvg[256], header[4096], last[4096];
    snprintf(png, sizeof png, "%s/shot.png", tmpdir);
    snprintf(csv, sizeof csv, "%s/log.csv", tmpdir);
    snprintf(csv2, sizeof csv2, "%s/log2.csv", tmpdir);
    snprintf(csvg, sizeof csvg, "%s/log-ground.csv", tmpdir);

    /* 1. a short headless run with screenshot and log */
    {
        char *args[] = {exe,         "--headless", "--frames",
                        "4",         "--width",    "320",
                        "--height",  "200",        "--screenshot",
                        png,         "--log",      csv,
                        "--backend", "cpu",        "--kernel",
                        "2",         "--binning",  "atomic",
                        "--threads", "2",          NULL};
        run_program(args, false, &res);
        CHECK(res.code == 0, "headless run: exit %d: %s", res.code, res.err);
        FILE *f = fopen(png, "rb");
        uint8_t head[24] = {0};
        CHECK(f && fread(head, 1, sizeof head, f) == sizeof head, "screenshot written");
        if (f) fclose(f);
        CHECK(memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(head + 12, "IHDR", 4) == 0,
              "PNG signature + IHDR");
        CHECK(be32(head + 16) == 320 && be32(head + 20) == 200, "PNG is %ux%u", be32(head + 16),
              be32(head + 20));

        int cols = 0;
        long rows = check_csv(csv, &cols, header, sizeof header, last, sizeof last);
        CHECK(rows == 4, "4 complete rows, got %ld", rows);
        static const char *const named[] = {
            "frame",      "wall_s",      "frame_ms",     "depth_pass_ms", "reconstruct_ms", "binning_ms",
            "culling_ms", "raster_ms",   "izb_total_ms", "shading_ms",    "tris_in",        "tris_after_cull",
            "points",     "backend",     "kernel",       "binning",       "unit_size",      "grid_w",
            "grid_h",     "width_px",    "height_px",    "cam_x",         "cam_yaw_deg",    "cam_pitch_deg",
            "light_type", "light_dir_x", "light_pos_z"};
        for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
            char key[64], row[4200];
            snprintf(key, sizeof key, ",%s,", named[i]);
            snprintf(row, sizeof row, ",%s", header);
            CHECK(strstr(row, key) != NULL, "header has %s: %s", named[i], header);
        }
        CHECK(cols >= 30, "%d columns", cols);
        CHECK(strncmp(last, "3,", 2) == 0, "last row is frame 3: %s", last);
        CHECK(strstr(last, ",cpu,2,atomic,") != NULL, "row records backend, kernel, binning: %s", last);
        CHECK(strstr(last, ",320,200,") != NULL, "row records the size: %s", last);
        CHECK(strstr(last, ",directional,") != NULL, "row records the light: %s", last);
        /* the counts are real: points > 0, triangles after culling <= triangles in */
        long frame, tris_in = -1, tris_cull = -1, points = -1;
        double wall, fms, dms, st[4], tot, xfer, sms;
        int n =
            sscanf(last, "%ld,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%ld,%ld,%ld", &frame, &wall, &fms, &dms,
                   &st[0], &st[1], &st[2], &st[3], &tot, &xfer, &sms, &tris_in, &tris_cull, &points);
        CHECK(n == 14, "parsed %d fields of %s", n, last);
        CHECK(fms > 0.0 && tot > 0.0 && tris_in > 0 && tris_cull > 0 && tris_cull <= tris_in && points > 0,
              "frame %g ms, izb %g ms, tris %ld -> %ld, points %ld", fms, tot, tris_in, tris_cull, points);
    }

    /* 1b. the ground: added under a model file (12 triangles + 2), not under a built-in scene; the
     * options turn it on and off; culling auto is the default and logged */
    {
        static const struct {
            const char *scene, *ground;
            long tris;
        } cases[] = {{"/usr/share/assimp/models/OBJ/box.obj", NULL, 14},
                     {"/usr/share/assimp/models/OBJ/box.obj", "off", 12},
                     {"builtin:default", NULL, 20002},
                     {"builtin:default", "on", 20004}};
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            struct stat sb;
            if (stat(cases[i].scene, &sb) != 0 && cases[i].scene[0] == '/') continue; /* no test models */
            char *args[] = {exe,
                            "--headless",
                            "--frames",
                            "1",
                            "--width",
                            "160",
                            "--height",
                            "100",
                            "--backend",
                            "cpu",
                            "--log",
                            csvg,
                            "--force",
                            "--scene",
                            (char *)cases[i].scene,
                            cases[i].ground ? "--ground" : NULL,
                            (char *)cases[i].ground,
                            NULL};
            run_program(args, false, &res);
            CHECK(res.code == 0, "%s --ground %s: exit %d: %s", cases[i].scene, cases[i].ground, res.code,
                  res.err);
            csv_table t;
            CHECK(csv_read(csvg, &t) && t.rows == 1, "%s: one log row", cases[i].scene);
            if (t.rows == 1) {
                CHECK((long)csv_num(&t, 0, "tris_in") == cases[i].tris,
                      "%s --ground %s: %g triangles, want %ld", cases[i].scene,
                      cases[i].ground ? cases[i].ground : "auto", csv_num(&t, 0, "tris_in"), cases[i].tris);
                CHECK(strcmp(csv_str(&t, 0, "culling"), "auto") == 0, "culling auto logged: %s",
                      csv_str(&t, 0, "culling"));
            }
            csv_free(&t);
        }
    }

    /* 2. Ctrl-C: the run stops at the next frame, the log is complete */
    {
        char *args[] = {exe,        "--headless", "--frames", "100000", "--width", "160",
                        "--height", "100",        "--log",    csv2,     NULL};
        run_proc p;
        CHECK(run_start(args, false, &p), "start");
        /* wait for a few rows */
        int cols = 0;
        long rows = 0;
        for (int i = 0; i < 600 && rows < 3; i++) {
            nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
            rows = check_csv(csv2, &cols, header, sizeof header, last, sizeof last);
            if (rows < 0) rows = 0; /* caught mid-write: read again */
        }
        CHECK(rows >= 3, "rows appear while running (%ld)", rows);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        kill(p.pid, SIGINT);
        run_wait(&p, &res);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        CHECK(res.code == 0, "exit %d after SIGINT: %s", res.code, res.err);
        CHECK(secs < 10.0, "stopped %.2f s after SIGINT", secs);
        CHECK(strstr(res.out, "interrupted") != NULL, "says it was interrupted: %s", res.out);
        long after = check_csv(csv2, &cols, header, sizeof header, last, sizeof last);
        CHECK(after >= rows && after < 100000, "log complete after SIGINT: %ld rows, none torn", after);
    }

    /* 3. shader directory with a broken shader, then with one missing */
    {
        char sdir[256];
        snprintf(sdir, sizeof sdir, "%s/shaders", tmpdir);
        CHECK(mkdir(sdir, 0755) == 0, "mkdir %s", sdir);
        static const char *const files[] = {"depth.vert",      "depth.frag", "shade.vert", "shade.frag",
                                            "fullscreen.vert", "sky.frag",   "debug.frag", "alpha_test.frag"};
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", sdir, files[i]);
            FILE *f = fopen(path, "w");
            const char *src =
                strcmp(files[i], "shade.frag") == 0
                    ? "#version 450 core\nout vec4 c;\nvoid main() { c = vec4(undefined_thing); }\n"
                    : gl_shader_embedded(files[i]);
            CHECK(f && src && fputs(src, f) >= 0, "write %s", path);
            if (f) fclose(f);
        }
        char *args[] = {exe,        "--headless", "--frames",     "1",  "--width", "64",
                        "--height", "64",         "--shader-dir", sdir, NULL};
        run_program(args, false, &res);
        CHECK(res.code == 1, "broken shader: exit %d, want 1", res.code);
        CHECK(strstr(res.err, "shade.frag") != NULL, "stderr names shade.frag: %s", res.err);
        CHECK(strstr(res.err, "undefined_thing") != NULL, "stderr holds the GL info log: %s", res.err);

        char missing[512];
        snprintf(missing, sizeof missing, "%s/shade.frag", sdir);
        unlink(missing);
        run_program(args, false, &res);
        CHECK(res.code == 1, "missing shader: exit %d, want 1", res.code);
        CHECK(strstr(res.err, missing) != NULL && count_lines(res.err) == 1, "one line naming %s: %s",
              missing, res.err);
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", sdir, files[i]);
            unlink(path);
        }
        rmdir(sdir);
    }

    /* 3b. outputs that cannot be written: said on stderr, exit 1, never "wrote". Tests run as root,
     *     for whom a chmod'ed read-only directory is writable: /dev/full and /proc stand in. */
    {
        char *full_args[] = {exe, "--headless", "--frames", "2", "--width", "64", "--height", "64",
                             "--screenshot", "/dev/full", "--force", NULL};
        run_program(full_args, false, &res);
        CHECK(res.code == 1 && strstr(res.err, "/dev/full") && strstr(res.err, "No space") &&
                  !strstr(res.out, "wrote"),
              "--screenshot /dev/full: exit %d, stderr '%s', stdout '%s'", res.code, res.err, res.out);
        /* an unwritable place is found before the first frame, like --log's */
        char *proc_args[] = {exe, "--headless", "--frames", "2", "--width", "64", "--height", "64",
                             "--screenshot", "/proc/izb-shot.png", NULL};
        run_program(proc_args, false, &res);
        CHECK(res.code == 2 && strstr(res.err, "--screenshot '/proc/izb-shot.png': cannot create") &&
                  !strstr(res.out, "frames"),
              "--screenshot into /proc: exit %d, '%s'", res.code, res.err);
        char *log_args[] = {exe, "--headless", "--frames", "2", "--width", "64", "--height", "64",
                            "--log", "/dev/full", "--force", NULL};
        run_program(log_args, false, &res);
        CHECK(res.code == 2 && strstr(res.err, "--log '/dev/full': cannot write: No space"),
              "--log /dev/full: exit %d, '%s'", res.code, res.err);

        /* the disk fills mid-run (a file size limit, inherited by the child, with SIGXFSZ ignored
         * so the write fails instead): the failed frame is said at once, the run ends with exit 1,
         * and the log holds only whole rows */
        char csv4[256];
        snprintf(csv4, sizeof csv4, "%s/full.csv", tmpdir);
        char *mid_args[] = {exe, "--headless", "--frames", "30", "--width", "64", "--height", "64",
                            "--backend", "cpu", "--log", csv4, NULL};
        struct rlimit old, lim = {.rlim_cur = 3000, .rlim_max = RLIM_INFINITY};
        signal(SIGXFSZ, SIG_IGN);
        getrlimit(RLIMIT_FSIZE, &old);
        setrlimit(RLIMIT_FSIZE, &lim);
        run_program(mid_args, false, &res);
        setrlimit(RLIMIT_FSIZE, &old);
        signal(SIGXFSZ, SIG_DFL);
        int cols = 0;
        long rows = check_csv(csv4, &cols, header, sizeof header, last, sizeof last);
        CHECK(res.code == 1 && strstr(res.err, "cannot write frame") && strstr(res.err, "incomplete"),
              "log filling up: exit %d, '%s'", res.code, res.err);
        CHECK(rows >= 1 && rows < 30, "only whole rows (%ld) before the limit", rows);
        long size = 0;
        unsigned char *bytes = read_file(csv4, &size);
        CHECK(bytes && size > 0 && size <= 3000 && bytes[size - 1] == '\n', "the log ends with a whole row");
        free(bytes);
    }

    /* 3c. --bias reaches the frame: a plate 0.5 above a ground quad, seen from above in the mask
     *     view (black shadow, white lit): shadowed with the default bias, lit with --bias 0.09,
     *     which moves the ground's points along the light past the plate (test_render_bias.c
     *     works the numbers out for the same scene) */
    {
        char obj[256], shot_default[256], shot_big[256];
        snprintf(obj, sizeof obj, "%s/plate.obj", tmpdir);
        snprintf(shot_default, sizeof shot_default, "%s/bias-default.png", tmpdir);
        snprintf(shot_big, sizeof shot_big, "%s/bias-big.png", tmpdir);
        FILE *f = fopen(obj, "w");
        CHECK(f != NULL, "write %s", obj);
        if (f) {
            fputs("v -10 0 -10\nv -10 0 10\nv 10 0 10\nv 10 0 -10\n"
                  "v -2 0.5 -2\nv -2 0.5 2\nv 2 0.5 2\nv 2 0.5 -2\n"
                  "f 1 2 3\nf 1 3 4\nf 5 6 7\nf 5 7 8\n",
                  f);
            fclose(f);
        }
        long dark[2] = {-1, -1};
        const char *shots[2] = {shot_default, shot_big};
        for (int i = 0; i < 2; i++) {
            char *args[] = {exe,           obj,           "--headless",   "--frames", "1",        "--width",
                            "161",         "--height",    "121",          "--backend", "cpu",
                            "--view",      "mask",        "--cam-pos",    "0.3,10,1", "--cam-yaw",
                            "0",           "--cam-pitch", "-85",          "--light",  "directional",
                            "--light-dir", "1,-1,0.3",    "--screenshot", (char *)shots[i],
                            i ? "--bias" : NULL, "0.09", NULL};
            run_program(args, false, &res);
            CHECK(res.code == 0, "bias run %d: exit %d: %s", i, res.code, res.err);
            int w = 0, h = 0, n = 0;
            unsigned char *img = stbi_load(shots[i], &w, &h, &n, 3);
            CHECK(img && w == 161 && h == 121, "screenshot %s", shots[i]);
            if (!img) continue;
            dark[i] = 0;
            for (int p = 0; p < w * h; p++)
                dark[i] += img[3 * p] < 40 && img[3 * p + 1] < 40 && img[3 * p + 2] < 40;
            stbi_image_free(img);
        }
        CHECK(dark[0] > 200 && dark[1] == 0, "--bias reaches the frame: %ld shadowed pixels by default, %ld with 0.09",
              dark[0], dark[1]);
    }

    /* 4. the IZB backend fails (IZB_FAULT stands in for a CUDA error): the run goes on with the CPU
     *    backend, says so, and the failed frame is drawn again, the same as a plain CPU run's */
    {
        char plain[256], faulty[256], csv3[256];
        snprintf(plain, sizeof plain, "%s/plain.png", tmpdir);
        snprintf(faulty, sizeof faulty, "%s/faulty.png", tmpdir);
        snprintf(csv3, sizeof csv3, "%s/log3.csv", tmpdir);
        char *plain_args[] = {exe,      "--headless", "--frames", "3",   "--width", "160", "--height",
                              "100",    "--backend",  "cpu",      "--screenshot", plain,   NULL};
        run_program(plain_args, false, &res);
        CHECK(res.code == 0, "plain run: exit %d: %s", res.code, res.err);

        /* frames 0 and 1 succeed, frame 2 (the last, in the screenshot) fails */
        setenv("IZB_FAULT", "frame:2", 1);
        char *args[] = {exe,   "--headless", "--frames", "3",   "--width", "160",  "--height",
                        "100", "--backend",  "auto",     "--screenshot", faulty, "--log",    csv3, NULL};
        run_program(args, false, &res);
        CHECK(res.code == 0, "backend failing on frame 2: exit %d: %s", res.code, res.err);
        CHECK(strstr(res.err, "failed on frame 2; continuing on the CPU backend") != NULL, "says so: %s",
              res.err);
        int cols = 0;
        long rows = check_csv(csv3, &cols, header, sizeof header, last, sizeof last);
        CHECK(rows == 3, "3 log rows, got %ld", rows);
        CHECK(strncmp(last, "2,", 2) == 0 && strstr(last, ",cpu,") != NULL, "frame 2 ran on the CPU: %s", last);
        long plain_size = 0, faulty_size = 0;
        unsigned char *a = read_file(plain, &plain_size), *b = read_file(faulty, &faulty_size);
        CHECK(a && b && plain_size > 0 && plain_size == faulty_size && memcmp(a, b, (size_t)plain_size) == 0,
              "the failed frame, drawn again, equals the plain CPU run's (%ld and %ld bytes)", plain_size,
              faulty_size);
        free(a), free(b);

        /* the backend cannot take the scene: the CPU backend takes it before the first frame */
        setenv("IZB_FAULT", "scene", 1);
        char *scene_args[] = {exe, "--headless", "--frames", "2", "--width", "64", "--height", "64", NULL};
        run_program(scene_args, false, &res);
        CHECK(res.code == 0, "scene refused: exit %d: %s", res.code, res.err);
        CHECK(strstr(res.err, "cannot take the scene on frame 0; continuing on the CPU backend") != NULL,
              "says so: %s", res.err);
        CHECK(strstr(res.out, "IZB backend: cpu") != NULL, "runs on the CPU: %s", res.out);

        /* --backend cpu (what the fallback asks for) is never wrapped */
        setenv("IZB_FAULT", "frame:0", 1);
        char *cpu_args[] = {exe,      "--headless", "--frames", "2",  "--width", "64",
                            "--height", "64",       "--backend", "cpu", NULL};
        run_program(cpu_args, false, &res);
        CHECK(res.code == 0 && strstr(res.err, "IZB_FAULT") == NULL && strstr(res.out, "IZB backend: cpu") != NULL,
              "--backend cpu ignores IZB_FAULT: exit %d: %s", res.code, res.err);

        /* a malformed IZB_FAULT is an error, not ignored */
        setenv("IZB_FAULT", "frame:x", 1);
        run_program(scene_args, false, &res);
        CHECK(res.code == 1 && strstr(res.err, "IZB_FAULT 'frame:x'") != NULL, "bad IZB_FAULT: exit %d: %s",
              res.code, res.err);
        unsetenv("IZB_FAULT");
        unlink(plain), unlink(faulty), unlink(csv3);
    }

    /* 5. moving scenes: builtin:wave moves by itself, --animate turns any scene; each frame's shot
     * differs from the last (the triangles and their shadows moved), and the run ends cleanly */
    {
        const char *const scenes[][2] = {{"builtin:wave:5k", NULL}, {"builtin:default", "--animate"}};
        for (int k = 0; k < 2; k++) {
            char shot[2][256];
            for (int f = 0; f < 2; f++) {
                snprintf(shot[f], sizeof shot[f], "%s/move%d.png", tmpdir, f);
                char *args[] = {exe, "--headless", "--frames", f ? "12" : "2", "--width", "160", "--height", "100",
                                "--backend", "cpu", "--scene", (char *)scenes[k][0], "--screenshot", shot[f],
                                (char *)scenes[k][1], NULL};
                run_program(args, false, &res);
                CHECK(res.code == 0, "%s %s: exit %d: %s", scenes[k][0], scenes[k][1] ? scenes[k][1] : "", res.code,
                      res.err);
            }
            FILE *a = fopen(shot[0], "rb"), *b = fopen(shot[1], "rb");
            static uint8_t da[1 << 16], db[1 << 16];
            size_t na = a ? fread(da, 1, sizeof da, a) : 0, nb = b ? fread(db, 1, sizeof db, b) : 0;
            CHECK(na > 0 && nb > 0 && (na != nb || memcmp(da, db, na) != 0), "%s: frame 2 and frame 12 differ",
                  scenes[k][0]);
            if (a) fclose(a);
            if (b) fclose(b);
            unlink(shot[0]), unlink(shot[1]);
        }
    }

    /* every number true in every mode (issue 22, defect 2): a run started with --shadows map or
     * none logs the scene's triangles (not 0), the kernel and binning asked for (not the defaults of
     * an IZB frame that never ran), a map size only where a map is drawn, and frame 0's GL times
     * (no timer result yet) empty, not 0.0000 */
    {
        char csvm[300];
        snprintf(csvm, sizeof csvm, "%s/modes.csv", tmpdir);
        static const char *const modes[] = {"izb", "map", "none"};
        double izb_tris = -1;
        for (int m = 0; m < 3; m++) {
            char *args[] = {
                exe,         "--headless",     "--frames", "3",        "--width", "160",       "--height",
                "100",       "--backend",      "cpu",      "--kernel", "2",       "--binning", "atomic",
                "--shadows", (char *)modes[m], "--log",    csvm,       "--force", NULL};
            run_program(args, false, &res);
            CHECK(res.code == 0, "--shadows %s: exit %d: %s", modes[m], res.code, res.err);
            csv_table t;
            CHECK(csv_read(csvm, &t) && t.rows == 3, "--shadows %s: 3 rows", modes[m]);
            for (long r = 0; r < t.rows; r++) {
                if (m == 0 && r == 0) izb_tris = csv_num(&t, r, "tris_in");
                CHECK(csv_num(&t, r, "tris_in") == izb_tris && izb_tris > 0,
                      "--shadows %s row %ld: tris_in %s, the scene's %g", modes[m], r,
                      csv_str(&t, r, "tris_in"), izb_tris);
                CHECK(strcmp(csv_str(&t, r, "kernel"), "2") == 0 &&
                          strcmp(csv_str(&t, r, "binning"), "atomic") == 0,
                      "--shadows %s row %ld: kernel %s binning %s, as asked", modes[m], r,
                      csv_str(&t, r, "kernel"), csv_str(&t, r, "binning"));
                CHECK((m == 1) == (csv_str(&t, r, "sm_size_px")[0] != '\0'),
                      "--shadows %s row %ld: sm_size_px '%s'", modes[m], r, csv_str(&t, r, "sm_size_px"));
            }
            static const char *const untimed[] = {"depth_pass_ms", "shading_ms", "sm_ms", NULL};
            for (int k = 0; untimed[k] && t.rows > 0; k++)
                CHECK(csv_str(&t, 0, untimed[k])[0] == '\0', "--shadows %s frame 0: %s '%s', want empty",
                      modes[m], untimed[k], csv_str(&t, 0, untimed[k]));
            csv_free(&t);
        }
        unlink(csvm);
    }

    unlink(png);
    unlink(csv);
    unlink(csv2);
    unlink(csvg);
    rmdir(tmpdir);
    return test_done();
}
