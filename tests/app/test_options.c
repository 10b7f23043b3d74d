/* test_options.c — parse_options(): defaults, every option's accepted forms, and the rejections
 * (unknown options, bad and absurd numbers, bad names, missing files, existing --log) with a
 * one-line message naming the option. */
#undef NDEBUG
#include <stdarg.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

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

    /* everything at once, both --opt value and --opt=value */
    char log_path[] = "/tmp/izb-opt-log-XXXXXX";
    int fd = mkstemp(log_path);
    close(fd);
    unlink(log_path); /* a name that does not exist */
    options_result res =
        parse("builtin:spheres:20k", "--width=800", "--height", "600", "--headless", "--frames", "7",
              "--screenshot", "/tmp/x.png", "--log", log_path, "--backend", "cpu", "--kernel", "2",
              "--binning=atomic", "--unit", "64", "--grid", "64x32", "--no-cull", "--bias", "0.001",
              "--threads", "3", "--light", "spot", "--light-dir", "0,-1,0.5", "--light-pos", "-1.5,10,2e1",
              "--cone", "45", "--cam-pos", "1,2,3", "--cam-yaw", "-30", "--cam-pitch", "-20.5", "--vsync",
              "on", "--view", "mask", "--shader-dir", "/tmp", NULL);
    CHECK(res == OPTIONS_OK, "all options: %s", err);
    CHECK(strcmp(o.scene, "builtin:spheres:20k") == 0, "positional scene");
    CHECK(o.width == 800 && o.height == 600 && o.headless && o.frames == 7, "size/frames");
    CHECK(strcmp(o.screenshot, "/tmp/x.png") == 0 && strcmp(o.log_path, log_path) == 0, "outputs");
    CHECK(o.backend == IZB_BACKEND_CPU && o.kernel == IZB_KERNEL2 && o.binning == IZB_BINNING_ATOMIC, "izb");
    CHECK(o.unit_size == 64 && o.grid_w == 64 && o.grid_h == 32 && o.cull == IZB_CULL_OFF && o.threads == 3, "izb 2");
    CHECK(o.bias > 0.00099f && o.bias < 0.00101f, "bias %g", (double)o.bias);
    CHECK(o.light == LIGHT_SPOT && o.has_light_dir && o.light_dir[2] == 0.5f, "light dir");
    CHECK(o.has_light_pos && o.light_pos[0] == -1.5f && o.light_pos[2] == 20.0f && o.cone_deg == 45.0f,
          "light pos");
    CHECK(o.has_cam_pos && o.cam_pos[1] == 2.0f && o.cam_yaw == -30.0f && o.cam_pitch == -20.5f, "camera");
    CHECK(o.vsync && o.view == RENDER_VIEW_MASK && strcmp(o.shader_dir, "/tmp") == 0, "display");
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
    REJECT("--cam-pitch", "--cam-pitch", "95");
    REJECT("--cam-pos", "--cam-pos", "1,2");
    REJECT("--cam-pos", "--cam-pos", "1,2,3,4");
    REJECT("--cam-pos", "--cam-pos", "1,nan,3");
    REJECT("--light-dir", "--light-dir", "0,0,0");
    REJECT("--light-pos", "--light-pos", "1,,3");

    /* bad names */
    REJECT("--backend", "--backend", "opencl");
    REJECT("--binning", "--binning", "bucket");
    REJECT("--light", "--light", "point");
    REJECT("--vsync", "--vsync", "maybe");
    REJECT("--view", "--view", "normals");
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
    unlink(log_path);

    return test_done();
}
