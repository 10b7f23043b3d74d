/* test_options.c — parse_options(): defaults, every option's accepted forms, and the rejections
 * (unknown options, bad and absurd numbers, bad names, missing files, existing --log) with a
 * one-line message naming the option; an existing output that is not a regular file said as such;
 * the memory check against a fake /proc/meminfo. */
#undef NDEBUG
#include <stdarg.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "izb_area.h"
#include "options.h"
#include "test.h"

static app_options o;
static char err[512];

/* parse a NULL-terminated list of arguments (argv[0] added) */
static options_result parse(const char *first, ...);

static options_result parse(const char *first, ...)
{
    char *argv[64] = {"izb-shadows"};
    int argc = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    return parse_options(argc, argv, &o, err, sizeof err);
}

/* the argument list must be rejected with a message containing `needle` */
#define REJECT(needle, ...)                                                                                  \
    do {                                                                                                     \
        options_result res_ = parse(__VA_ARGS__, NULL);                                                      \
        CHECK(res_ == OPTIONS_ERROR, "accepted: %s", #__VA_ARGS__);                                          \
        CHECK(strstr(err, needle) != NULL, "message for %s names '%s': '%s'", #__VA_ARGS__, needle, err);    \
        CHECK(strchr(err, '\n') == NULL, "one line: '%s'", err);                                             \
    } while (0)

int main(void)
{
    /* defaults */
    CHECK(parse(NULL) == OPTIONS_OK, "no arguments: %s", err);
    CHECK(strcmp(o.scene, "builtin:default") == 0 && o.width == 1280 && o.height == 720, "defaults");
    CHECK(!o.headless && o.frames == 0 && o.backend == IZB_BACKEND_AUTO && o.unit_size == 0 && !o.vsync,
          "defaults");
    CHECK(parse("--headless", NULL) == OPTIONS_OK && o.frames == 60, "headless defaults to 60 frames");
    CHECK(parse("--help", NULL) == OPTIONS_HELP && parse("-h", NULL) == OPTIONS_HELP, "--help");
    CHECK(parse(NULL) == OPTIONS_OK && !o.animate, "not animated by default");
    CHECK(parse("--animate", NULL) == OPTIONS_OK && o.animate, "--animate: %s", err);
    CHECK(parse("--animate=yes", NULL) == OPTIONS_ERROR && strstr(err, "--animate"), "--animate=yes: %s", err);

    /* the light's angular size: directional only so far (a spot with one: one line, exit 2) */
    CHECK(parse("--light-angle", "8", "--light-samples", "64", NULL) == OPTIONS_OK && o.light_angle == 8.0f &&
              o.light_samples == 64,
          "--light-angle 8 --light-samples 64: %s", err);
    CHECK(parse("--light", "spot", "--light-angle", "0", NULL) == OPTIONS_OK, "a spot with angle 0: %s", err);
    REJECT("--light-angle", "--light", "spot", "--light-angle", "2");
    REJECT("--light-angle", "--light-angle", "0.5", "--light=spot");
    REJECT("--light-samples", "--light-samples", "48");

    /* area lights: --light area is a spot with a size (the scene's where --light-size gives none);
     * sizes negative, NaN, Inf or huge: one line, exit 2; 0 the hard spot */
    CHECK(parse("--light", "area", NULL) == OPTIONS_OK && o.light == LIGHT_SPOT && o.light_area && !o.has_light_size,
          "--light area: %s", err);
    CHECK(parse("--light", "area", "--light-size", "0.5,0.25", "--light-shape", "disk", "--light-samples", "16", NULL) ==
                  OPTIONS_OK &&
              o.light == LIGHT_SPOT && o.light_size[0] == 0.5f && o.light_size[1] == 0.25f &&
              o.light_shape == IZB_AREA_DISK && o.light_samples == 16,
          "--light area --light-size 0.5,0.25 --light-shape disk: %s", err);
    CHECK(parse("--light-size", "2", "--light", "spot", NULL) == OPTIONS_OK && o.light_size[0] == 2.0f &&
              o.light_size[1] == 2.0f && !o.light_area,
          "--light-size 2 --light spot: %s", err);
    CHECK(parse("--light", "area", "--light-size", "0", NULL) == OPTIONS_OK && o.light_size[0] == 0.0f,
          "--light area --light-size 0 (the hard spot): %s", err);
    { /* a second --light starts again: no size, no area */
        CHECK(parse("--light", "area", "--light-size", "1", "--light", "spot", NULL) == OPTIONS_OK, "two lights: %s", err);
        options_light ls[IZB_MAX_LIGHTS];
        const int n = options_lights(&o, ls);
        CHECK(n == 2 && ls[0].light_area && ls[0].light_size[0] == 1.0f && !ls[1].light_area && !ls[1].has_light_size &&
                  ls[1].light_size[0] == 0.0f,
              "two lights: %d, area %d %d, size %g %g", n, ls[0].light_area, ls[1].light_area, (double)ls[0].light_size[0],
              (double)ls[1].light_size[0]);
    }
    REJECT("--light-size", "--light", "area", "--light-size", "-1");
    REJECT("--light-size", "--light", "area", "--light-size", "nan");
    REJECT("--light-size", "--light", "area", "--light-size", "1,inf");
    REJECT("--light-size", "--light", "area", "--light-size", "1e7");
    REJECT("--light-size", "--light", "area", "--light-size", "1,2,3");
    REJECT("--light-size", "--light", "area", "--light-size", "");
    REJECT("--light-shape", "--light", "area", "--light-shape", "square");
    REJECT("--light-samples", "--light", "area", "--light-samples", "100");

    /* anti-aliased edges: N in {1, 4, 8, 16, 32}, directional and hard light only so far */
    CHECK(parse("--shadow-samples", "8", NULL) == OPTIONS_OK && o.shadow_samples == 8, "--shadow-samples 8: %s", err);
    CHECK(parse("--shadow-samples=1", NULL) == OPTIONS_OK && o.shadow_samples == 1, "--shadow-samples=1: %s", err);
    CHECK(parse(NULL) == OPTIONS_OK && o.shadow_samples == 0, "--shadow-samples: 0 (one sample) by default");
    REJECT("--shadow-samples", "--shadow-samples", "3");
    REJECT("--shadow-samples", "--shadow-samples", "2");
    REJECT("--shadow-samples", "--shadow-samples", "0");
    REJECT("--shadow-samples", "--shadow-samples", "64");
    REJECT("--shadow-samples", "--shadow-samples", "8x");
    REJECT("--shadow-samples", "--shadow-samples", "-4");
    CHECK(parse("--light", "spot", "--shadow-samples", "4", NULL) == OPTIONS_OK && o.shadow_samples == 4,
          "--light spot --shadow-samples 4: %s", err);
    CHECK(parse("--light", "point", "--shadow-samples", "32", NULL) == OPTIONS_OK && o.shadow_samples == 32,
          "--light point --shadow-samples 32: %s", err);
    REJECT("--shadow-samples", "--light", "point", "--shadow-samples", "3");
    REJECT("--shadow-samples", "--light", "area", "--shadow-samples", "4");
    REJECT("--shadow-samples", "--shadow-samples", "4", "--light-angle", "2");

    /* everything at once, both --opt value and --opt=value */
    char log_path[] = "/tmp/izb-opt-log-XXXXXX";
    int fd = mkstemp(log_path);
    close(fd);
    unlink(log_path);   /* a name that does not exist */
    char shot_path[64]; /* also free: an existing --screenshot is refused without --force */
    snprintf(shot_path, sizeof shot_path, "%s.png", log_path);
    options_result res =
        parse("builtin:spheres:20k", "--width=800", "--height", "600", "--headless", "--frames", "7",
              "--screenshot", shot_path, "--log", log_path, "--backend", "cpu", "--kernel", "2",
              "--binning=atomic", "--unit", "64", "--grid", "64x32", "--no-cull", "--bias", "0.001",
              "--threads", "3", "--light", "spot", "--light-dir", "0,-1,0.5", "--light-pos", "-1.5,10,2e1",
              "--cone", "45", "--cam-pos", "1,2,3", "--cam-yaw", "-30", "--cam-pitch", "-20.5", "--vsync",
              "on", "--view", "mask", "--shader-dir", "/tmp", NULL);
    CHECK(res == OPTIONS_OK, "all options: %s", err);
    CHECK(strcmp(o.scene, "builtin:spheres:20k") == 0, "positional scene");
    CHECK(o.width == 800 && o.height == 600 && o.headless && o.frames == 7, "size/frames");
    CHECK(strcmp(o.screenshot, shot_path) == 0 && strcmp(o.log_path, log_path) == 0, "outputs");
    CHECK(o.backend == IZB_BACKEND_CPU && o.kernel == IZB_KERNEL2 && o.binning == IZB_BINNING_ATOMIC, "izb");
    CHECK(o.unit_size == 64 && o.grid_w == 64 && o.grid_h == 32 && o.cull == IZB_CULL_OFF && o.threads == 3,
          "izb 2");
    CHECK(o.bias > 0.00099f && o.bias < 0.00101f, "bias %g", (double)o.bias);
    CHECK(o.light == LIGHT_SPOT && o.has_light_dir && o.light_dir[2] == 0.5f, "light dir");
    CHECK(o.has_light_pos && o.light_pos[0] == -1.5f && o.light_pos[2] == 20.0f && o.cone_deg == 45.0f,
          "light pos");
    CHECK(o.has_cam_pos && o.cam_pos[1] == 2.0f && o.cam_yaw == -30.0f && o.cam_pitch == -20.5f, "camera");
    CHECK(o.vsync && o.view == RENDER_VIEW_MASK && strcmp(o.shader_dir, "/tmp") == 0, "display");
    /* culling and ground: auto by default, each of auto / on / off */
    CHECK(parse(NULL) == OPTIONS_OK && o.cull == IZB_CULL_DEFAULT && o.ground == SCENE_GROUND_AUTO, "defaults");
    CHECK(parse("--cull", "on", "--ground", "off", NULL) == OPTIONS_OK && o.cull == IZB_CULL_ON &&
              o.ground == SCENE_GROUND_OFF,
          "--cull on --ground off: %s", err);
    CHECK(parse("--cull=auto", "--ground=on", NULL) == OPTIONS_OK && o.cull == IZB_CULL_AUTO &&
              o.ground == SCENE_GROUND_ON,
          "--cull=auto --ground=on: %s", err);
    CHECK(parse("--cull", "off", NULL) == OPTIONS_OK && o.cull == IZB_CULL_OFF, "--cull off: %s", err);
    CHECK(parse("--scene", "builtin:grass:2M", "--unit", "auto", "--vsync", "off", NULL) == OPTIONS_OK &&
              o.unit_size == 0 && !o.vsync,
          "--scene, unit auto: %s", err);

    /* unknown options and missing values */
    REJECT("--bogus", "--bogus");
    REJECT("-x", "-x");
    REJECT("--width", "--width");
    REJECT("--headless", "--headless=yes");
    REJECT("unexpected argument", "builtin:default", "builtin:spheres");

    /* bad numbers: non-numeric, trailing junk, negative, zero, absurd */
    REJECT("--width", "--width", "abc");
    REJECT("--width", "--width", "800px");
    REJECT("--width", "--width", "-800");
    REJECT("--height", "--height", "0");
    REJECT("--width", "--width", "16385");
    REJECT("--width", "--width", "99999999999999999999");
    REJECT("--frames", "--frames", "0");
    REJECT("--frames", "--frames", "-3");
    REJECT("--threads", "--threads", "0");
    REJECT("--grid", "--grid", "64");
    REJECT("--grid", "--grid", "0x10");
    REJECT("--grid", "--grid", "2000x10");
    REJECT("--unit", "--unit", "48");
    REJECT("--kernel", "--kernel", "3");
    REJECT("--cone", "--cone", "0");
    REJECT("--cone", "--cone", "180");
    REJECT("--bias", "--bias", "-1");
    REJECT("--bias '0'", "--bias", "0");
    REJECT("unknown option '--fro?bnicate'", "--fro\nbnicate"); /* one line even when the argument is not */
    REJECT("scene file 'a?b.obj'", "a\nb.obj");
    REJECT("--switch-every", "--switch-every", "0");
    CHECK(parse("--switch-every", "250", NULL) == OPTIONS_OK && o.switch_every == 250, "--switch-every: %s", err); /* 0 < B < 0.1 (--help): 0 would mean the default, silently */
    REJECT("--bias '0.1'", "--bias", "0.1");
    CHECK(parse("--bias", "0.0999", NULL) == OPTIONS_OK && o.bias > 0.0998f, "--bias just under 0.1: %s", err);
    REJECT("--cam-pitch", "--cam-pitch", "95");
    REJECT("--cam-pos", "--cam-pos", "1,2");
    REJECT("--cam-pos", "--cam-pos", "1,2,3,4");
    REJECT("--cam-pos", "--cam-pos", "1,nan,3");
    REJECT("--light-dir", "--light-dir", "0,0,0");
    REJECT("--light-pos", "--light-pos", "1,,3");

    /* bad names */
    REJECT("--backend", "--backend", "opencl");
    REJECT("--binning", "--binning", "bucket");
    REJECT("--light", "--light", "areas");
    REJECT("--vsync", "--vsync", "maybe");
    REJECT("--view", "--view", "normals");
    REJECT("--cull", "--cull", "back");
    REJECT("--cull", "--cull", "");
    REJECT("--ground", "--ground", "yes");
    REJECT("--ground", "--ground");
    REJECT("unknown builtin scene", "builtin:nope");
    REJECT("N must be", "builtin:grass:abc");
    REJECT("N must be", "builtin:grass:0");
    REJECT("N must be", "builtin:grass:999M");

    /* files */
    REJECT("/no/such/scene.obj", "/no/such/scene.obj");
    REJECT("No such file", "--scene", "/no/such/scene.obj");
    REJECT("--shader-dir", "--shader-dir", "/no/such/dir");
    REJECT("--screenshot", "--screenshot", "/no/such/dir/x.png");
    REJECT("--log", "--log", "/no/such/dir/x.csv");
    fd = open(log_path, O_CREAT | O_WRONLY, 0644);
    close(fd);
    REJECT("file exists", "--log", log_path);
    CHECK(parse("--log", log_path, "--force", NULL) == OPTIONS_OK, "--force allows an existing log: %s", err);
    /* the same policy for --screenshot (it used to overwrite silently) */
    REJECT("--screenshot '", "--screenshot", log_path);
    REJECT("add --force", "--screenshot", log_path);
    CHECK(parse("--screenshot", log_path, "--force", NULL) == OPTIONS_OK,
          "--force allows an existing screenshot: %s", err);
    unlink(log_path);

    /* an existing path that is not a regular file is named for what it is (issue 22): "file
     * exists" about /dev/full sent the user looking for a file */
    REJECT("a character device, not a regular file (add --force", "--screenshot", "/dev/full");
    CHECK(!strstr(err, "file exists"), "/dev/full is no 'file': '%s'", err);
    REJECT("a character device, not a regular file", "--log", "/dev/null");
    REJECT("is a directory", "--screenshot", "/tmp");
    char fifo[64];
    snprintf(fifo, sizeof fifo, "/tmp/izb-opt-fifo-%d", (int)getpid());
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
    REJECT("a named pipe, not a regular file", "--screenshot", fifo);
    unlink(fifo);

    /* the memory check counts what the machine has free (a fake /proc/meminfo), not only the RAM and
     * ulimit: 16384^2 took 17 GB of a machine with 23 GB, 22 of them free, and drew nothing */
    static const char meminfo_6g[] = "MemTotal:       24000000 kB\nMemFree:          500000 kB\n"
                                     "MemAvailable:    6000000 kB\nBuffers:           10000 kB\n";
    CHECK(options_mem_available(meminfo_6g) == 6000000ull * 1024, "MemAvailable read: %llu",
          options_mem_available(meminfo_6g));
    CHECK(options_mem_available("MemTotal: 1 kB\n") == 0 && options_mem_available("") == 0,
          "no MemAvailable line: 0");
    options_memory m = options_memory_budget(meminfo_6g);
    CHECK(m.bytes <= 6000000ull * 1024 && strstr(m.what, "MemAvailable"),
          "the free memory bounds it: %llu (%s)", m.bytes, m.what);
    CHECK(!options_check_memory(16384, 16384, meminfo_6g, err, sizeof err),
          "16384^2 with 6 GB free is refused");
    CHECK(strstr(err, "--width 16384 --height 16384: needs about 17.4 GB") &&
              strstr(err, "more than the 6.1 GB free") && strstr(err, "MemAvailable in /proc/meminfo") &&
              !strchr(err, '\n'),
          "the refusal names the need and the free memory, in one line: '%s'", err);
    CHECK(options_check_memory(4096, 4096, meminfo_6g, err, sizeof err),
          "4096^2 (1.1 GB) fits in 6 GB free: %s", err);
    /* plenty free: the RAM or a ulimit bounds it, never a free figure above the RAM */
    options_memory big = options_memory_budget("MemAvailable: 999999999999 kB\n");
    CHECK(big.bytes < 999999999999ull * 1024 && !strstr(big.what, "MemAvailable"),
          "more free than RAM: %llu (%s)", big.bytes, big.what);
    /* the parser uses the real one: a size that fits anywhere passes */
    CHECK(parse("--width", "64", "--height", "64", NULL) == OPTIONS_OK, "64x64: %s", err);

    return test_done();
}
