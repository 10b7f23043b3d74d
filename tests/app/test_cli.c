/* test_cli.c — the built binary's exit codes and messages for a bad command line: exit 2 with
 * exactly one error line naming the option, then the usage line; --help exits 0 with the option
 * list on stdout; no display without --headless: exit 1 with the hint. Needs no GL.
 * usage: test_cli PATH-TO-izb-shadows */
#undef NDEBUG
#include <dirent.h>
#include <sys/resource.h>

#include "run_util.h"
#include "test.h"

/* Debian's assimp-testmodels: malformed files assimp must refuse */
#define INVALID_DIR "/usr/share/assimp/models/invalid"

static char *exe;
static run_result res;

/* run exe with up to 8 arguments (NULL-terminated) */
#define RUN(no_display, ...)                                                                                 \
    do {                                                                                                     \
        char *argv_[] = {exe, __VA_ARGS__, NULL};                                                            \
        run_program(argv_, no_display, &res);                                                                \
    } while (0)

/* exit 2, two lines on stderr: "izb-shadows: ...needle..." and the usage line */
#define EXPECT_USAGE(needle, ...)                                                                            \
    do {                                                                                                     \
        RUN(false, __VA_ARGS__);                                                                             \
        CHECK(res.code == 2, "%s: exit %d, want 2", #__VA_ARGS__, res.code);                                 \
        CHECK(strncmp(res.err, "izb-shadows: ", 13) == 0 && strstr(res.err, needle) != NULL,                 \
              "%s: message names '%s': %s", #__VA_ARGS__, needle, res.err);                                  \
        CHECK(count_lines(res.err) == 2 && strstr(res.err, "\nusage: izb-shadows") != NULL,                  \
              "%s: one message line + usage: %s", #__VA_ARGS__, res.err);                                    \
        CHECK(res.out[0] == '\0', "%s: nothing on stdout: %s", #__VA_ARGS__, res.out);                       \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli PATH-TO-izb-shadows\n");
        return 1;
    }
    exe = argv[1];

    RUN(false, "--help");
    CHECK(res.code == 0 && strstr(res.out, "usage: izb-shadows") && strstr(res.out, "--shader-dir"),
          "--help: exit %d", res.code);

    EXPECT_USAGE("unknown option '--frobnicate'", "--frobnicate");
    EXPECT_USAGE("--width 'wide'", "--width", "wide");
    EXPECT_USAGE("--width '-5'", "--width", "-5");
    EXPECT_USAGE("--height '0'", "--height", "0");
    EXPECT_USAGE("--width '100000'", "--width", "100000");
    EXPECT_USAGE("--frames 'x'", "--frames", "x");
    EXPECT_USAGE("--kernel '7'", "--kernel", "7");
    EXPECT_USAGE("--grid", "--grid", "0x0");
    EXPECT_USAGE("needs a value", "--scene");
    EXPECT_USAGE("/no/such/file.obj", "/no/such/file.obj");
    EXPECT_USAGE("--shader-dir", "--headless", "--shader-dir", "/no/such/dir");
    EXPECT_USAGE("unknown builtin scene", "builtin:nothing");

    /* an existing --log is refused (exit 2) and left alone */
    char path[] = "/tmp/izb-cli-log-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, "keep\n", 5) == 5, "temp log");
    close(fd);
    EXPECT_USAGE("file exists", "--headless", "--frames", "1", "--log", path);
    FILE *f = fopen(path, "r");
    char line[16] = "";
    CHECK(f && fgets(line, sizeof line, f) && strcmp(line, "keep\n") == 0, "the existing file is untouched");
    if (f) fclose(f);
    unlink(path);
    /* an existing output that is not a regular file: said for what it is, not "file exists" */
    EXPECT_USAGE("--screenshot '/dev/full': exists and is a character device, not a regular file",
                 "--headless", "--frames", "1", "--screenshot", "/dev/full");

    /* a camera path whose light direction is 0,0,0: refused like --light-dir 0,0,0, naming file:line */
    EXPECT_USAGE("--light-dir '0,0,0'", "--light-dir", "0,0,0");
    char pfile[] = "/tmp/izb-cli-path-XXXXXX";
    fd = mkstemp(pfile);
    static const char zero_dir[] = "izb-path 1\n0 0 1 5 0 0 0 0 -1 0 0 0 0\n1 0 1 5 0 0 0 0 0 0 0 0 0\n";
    CHECK(fd >= 0 && write(fd, zero_dir, sizeof zero_dir - 1) == (ssize_t)(sizeof zero_dir - 1), "temp path");
    close(fd);
    char want[128];
    snprintf(want, sizeof want, "%s:3: light direction 0,0,0", pfile);
    RUN(false, "--headless", "--path", pfile);
    CHECK(res.code == 2 && strstr(res.err, want) && count_lines(res.err) == 1,
          "zero light direction in a path: exit %d (want 2), one line naming '%s': %s", res.code, want, res.err);
    unlink(pfile);

    /* a size needing more memory than the process may use is refused before anything is allocated,
     * with the figure. Under ASan the limit would stop the sanitizer's own start-up: skipped there. */
#if !defined(__SANITIZE_ADDRESS__)
    struct rlimit keep, small = {.rlim_cur = 2000000000ull};
    getrlimit(RLIMIT_DATA, &keep);
    small.rlim_max = keep.rlim_max;
    if (keep.rlim_cur == RLIM_INFINITY || keep.rlim_cur > small.rlim_cur) {
        CHECK(setrlimit(RLIMIT_DATA, &small) == 0, "setrlimit");
        EXPECT_USAGE("--width 16384 --height 16384: needs about 17.4 GB", "--headless", "--width", "16384",
                     "--height", "16384");
        CHECK(strstr(res.err, "more than the 2.0 GB"), "names the budget: %s", res.err);
        setrlimit(RLIMIT_DATA, &keep);
    }
#endif

    /* every malformed model: exit 1 (not a crash, not success) with one line naming the file.
     * malformed2.obj only names an undefined material; assimp substitutes a default and it loads
     * (tests/scene/test_scene_files.c asserts that), so it is not expected to fail here. */
    DIR *dir = opendir(INVALID_DIR);
    int tried = 0;
    for (struct dirent *e; dir && (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "malformed2.obj") == 0)
            continue;
        char file[512];
        snprintf(file, sizeof file, "%s/%s", INVALID_DIR, e->d_name);
        RUN(false, "--headless", "--frames", "1", "--width", "64", "--height", "64", file);
        CHECK(res.code == 1, "%s: exit %d, want 1", e->d_name, res.code);
        CHECK(strstr(res.err, e->d_name) != NULL && count_lines(res.err) == 1, "%s: one line naming it: %s",
              e->d_name, res.err);
        tried++;
    }
    if (dir)
        closedir(dir);
    CHECK(tried >= 10, "%d invalid models tried (is assimp-testmodels installed?)", tried);

    /* windowed without a display: runtime failure, exit 1, one line with the hint */
    RUN(true, "--frames", "1");
    CHECK(res.code == 1, "no display: exit %d, want 1", res.code);
    CHECK(strstr(res.err, "no display: run with --headless") != NULL && count_lines(res.err) == 1,
          "no display message: %s", res.err);

    return test_done();
}
