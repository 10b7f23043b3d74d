/* test_options_pairs_run.c — the defaults matrix run by the real program: `izb-shadows --headless
 * --width 32 --height 24 tetrahedron.obj` (small, so a run is about a second) with every
 * option alone and a seeded sample of pairs of options, each at a valid value that is not its
 * default (option_samples.h). Each run must end before CPU_LIMIT_S of CPU time or WALL_LIMIT_S
 * (a lost --frames default is a headless run that never ends: it is killed and reported) with the documented exit status (0; 1
 * for --up on a built-in scene), after the documented
 * number of frames: the --frames given, or its documented default (headless 60; a path without
 * --path-loop to its end, not counted here).
 * usage: test_options_pairs_run PATH-TO-izb-shadows
 * env: IZB_PAIRS_ALL=1 runs every pair (about 700 runs: minutes); IZB_PAIRS_SAMPLE=N pairs
 * (default 8); IZB_PAIRS_SEED=S picks them (default fixed, printed); IZB_PAIRS_JOBS=J runs at once
 * (default 2). Suite gl: exit 77 where no headless GL context can be made. */
#undef NDEBUG
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gl_context.h"
#include "izb_config.h"
#include "option_samples.h"
#include "run_util.h"
#include "test.h"

/* a run here takes about 1 s of CPU; under load its wall time is many times that */
#define CPU_LIMIT_S 20.0
#define WALL_LIMIT_S 180.0
enum { MAX_ROWS = 128, MAX_JOBS = 8, MAX_WORDS = 16 };

static const char *exe;
static sample_files files;
static char dir[] = "/tmp/izb-options-run-XXXXXX";
static char base_scene[300]; /* a tetrahedron (OBJ): a model file, so --up and --ground apply */

typedef struct job {
    int rows[2], n;
    char bufs[2][256];
    char *argv[MAX_WORDS];
    run_proc proc; /* while running */
    bool running;
} job;

static uint64_t seed_state;
static uint64_t next_random(void) /* xorshift64 */
{
    seed_state ^= seed_state << 13;
    seed_state ^= seed_state >> 7;
    seed_state ^= seed_state << 17;
    return seed_state;
}

static bool has_sample(int k)
{
    char buf[256], *w[2];
    return option_sample(&options_table[k], &files, "x", buf, w) > 0;
}

/* the command line of rows[0..n-1] on the small base */
static void build_argv(job *j, int id)
{
    int argc = 0;
    bool scene_given = false;
    char tag[32];
    snprintf(tag, sizeof tag, "run%d", id);
    j->argv[argc++] = (char *)exe;
    static char *const base[] = {"--headless", "--width", "32", "--height", "24"};
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
        j->argv[argc++] = base[i];
    for (int i = 0; i < j->n; i++) {
        char *w[2];
        const int words = option_sample(&options_table[j->rows[i]], &files, tag, j->bufs[i], w);
        for (int k = 0; k < words; k++)
            j->argv[argc++] = w[k];
        scene_given |= options_table[j->rows[i]].kind == OPTION_SCENE;
    }
    if (!scene_given) j->argv[argc++] = base_scene; /* the positional scene */
    j->argv[argc] = NULL;
}

/* the exit status a run of rows must end with: 0, or 1 (a run-time refusal) for --up other than y
 * on a built-in scene (README: built-in scenes stand y-up; --up turns model files), or 2 for a pair
 * the options refuse together (option_refused_pair) */
static int want_exit(const job *j)
{
    bool up = false, builtin = false;
    for (int i = 0; i < j->n; i++) {
        const option_spec *s = &options_table[j->rows[i]];
        up |= strcmp(s->name, "--up") == 0;
        builtin |= s->kind == OPTION_SCENE && strncmp(j->bufs[i], "builtin:", 8) == 0;
    }
    if (j->n == 2 && option_refused_pair(j->rows[0], j->rows[1])) return 2; /* a documented refusal */
    return up && builtin ? 1 : 0;
}

/* the frames a run of rows must draw: the --frames given, or its documented default; -1: to the
 * path's end (not counted) */
static long want_frames(const job *j)
{
    bool given[MAX_ROWS] = {false};
    given[option_named("--headless") - options_table] = true;
    for (int i = 0; i < j->n; i++) {
        const option_spec *s = &options_table[j->rows[i]];
        if (strcmp(s->name, "--frames") == 0) return (long)s->min; /* its sample */
        given[j->rows[i]] = true;
    }
    const double d = documented_frames(given);
    return d > 0 ? (long)d : -1;
}

static void finish(job *j)
{
    static run_result r; /* 128 KB: not on the stack */
    const bool ended = run_wait_limits(&j->proc, &r, CPU_LIMIT_S, WALL_LIMIT_S);
    char line[1024] = "";
    for (int i = 1; j->argv[i]; i++)
        snprintf(line + strlen(line), sizeof line - strlen(line), " %s", j->argv[i]);
    const long want = want_frames(j);
    const char *tail = strstr(r.out, "izb-shadows: ");
    long frames = -1;
    while (tail && sscanf(tail, "izb-shadows: %ld frames, frame ms", &frames) != 1)
        tail = strstr(tail + 1, "izb-shadows: ");
    const int code = want_exit(j);
    const bool counted = code != 0 || want < 0 || frames == want;
    const bool ok = ended && r.code == code && counted;
    CHECK(ended, "izb-shadows%s: still running after %.0f s of CPU or %.0f s (killed)", line, CPU_LIMIT_S,
          WALL_LIMIT_S);
    CHECK(!ended || r.code == code, "izb-shadows%s: exit %d, documented %d", line, r.code, code);
    CHECK(!ended || r.code != code || counted, "izb-shadows%s: %ld frames, documented %ld", line, frames,
          want);
    if (!ok) fprintf(stderr, "  stdout: %s\n  stderr: %s\n", r.out, r.err);
    j->running = false;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_options_pairs_run PATH-TO-izb-shadows\n");
        return 1;
    }
    exe = argv[1];
    { /* suite gl: skipped (77) where no headless GL context can be made */
        gl_context ctx;
        char gl_err[256];
        if (!gl_context_init(&ctx, &(gl_context_desc){.headless = true}, gl_err, sizeof gl_err))
            TEST_SKIP("%s", gl_err);
        gl_context_shutdown(&ctx);
    }
    const char *all = getenv("IZB_PAIRS_ALL"), *sample = getenv("IZB_PAIRS_SAMPLE"),
               *seed = getenv("IZB_PAIRS_SEED"), *jobs_env = getenv("IZB_PAIRS_JOBS");
    const bool every_pair = all && atoi(all) > 0;
    const int want_pairs = sample ? atoi(sample) : 8;
    seed_state = seed ? strtoull(seed, NULL, 0) : 0x2545F4914F6CDD1Dull;
    if (!seed_state) seed_state = 1;
    const uint64_t seed_used = seed_state;
    int jobs = jobs_env ? atoi(jobs_env) : 2;
    jobs = jobs < 1 ? 1 : jobs > MAX_JOBS ? MAX_JOBS : jobs;

    CHECK(options_count <= MAX_ROWS, "%d rows", options_count);
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path_file[300];
    snprintf(path_file, sizeof path_file, "%s/short.path", dir);
    FILE *pf = fopen(path_file, "w"); /* a quarter of a second: 16 frames at the default --path-fps */
    CHECK(pf != NULL, "write %s", path_file);
    if (pf) {
        fprintf(pf, "izb-path 1\n0 0 3 8 0 -20 0 0.3 -1 0.2 0 0 0\n0.25 0.5 3 8 5 -20 0 0.3 -1 0.2 0 0 0\n");
        fclose(pf);
    }
    snprintf(base_scene, sizeof base_scene, "%s/tetrahedron.obj", dir);
    FILE *obj = fopen(base_scene, "w");
    CHECK(obj != NULL, "write %s", base_scene);
    if (obj) {
        fprintf(obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
        fclose(obj);
    }
    /* llvmpipe on one thread: the runs share a small machine, and GL threads only contend there */
    setenv("LP_NUM_THREADS", "1", 1);
    files = (sample_files){.dir = dir, .path_file = path_file, .shader_dir = IZB_SOURCE_DIR "/shaders"};

    /* the runs: every option alone, then the pairs (all, or a seeded sample without repeats) */
    int rows[MAX_ROWS], nrows = 0;
    for (int k = 0; k < options_count; k++)
        if (has_sample(k)) rows[nrows++] = k;
    const int npairs = nrows * (nrows - 1) / 2;
    static bool chosen[MAX_ROWS * MAX_ROWS];
    static job list[MAX_ROWS + MAX_ROWS * MAX_ROWS / 2];
    int count = 0;
    for (int i = 0; i < nrows; i++)
        list[count++] = (job){.rows = {rows[i]}, .n = 1};
    const int pairs = every_pair ? npairs : want_pairs < npairs ? want_pairs : npairs;
    for (int p = 0; p < pairs; p++) {
        int a, b;
        if (every_pair) { /* the p-th pair in order */
            int q = p;
            for (a = 0; q >= nrows - 1 - a; a++)
                q -= nrows - 1 - a;
            b = a + 1 + q;
        } else {
            do {
                a = (int)(next_random() % (uint64_t)nrows);
                b = (int)(next_random() % (uint64_t)nrows);
            } while (a == b || chosen[a * MAX_ROWS + b] || chosen[b * MAX_ROWS + a]);
        }
        chosen[a * MAX_ROWS + b] = true;
        list[count++] = (job){.rows = {rows[a], rows[b]}, .n = 2};
    }
    fprintf(stderr, "%d runs: %d options alone, %d of %d pairs (%s, seed 0x%llx), %d at a time\n", count,
            nrows, pairs, npairs, every_pair ? "all" : "sampled", (unsigned long long)seed_used, jobs);

    /* at most `jobs` at once; the oldest is waited for first */
    for (int next = 0, done = 0; done < count;) {
        if (next < count && next - done < jobs) {
            job *j = &list[next];
            build_argv(j, next++);
            j->running = run_start(j->argv, true, &j->proc);
            CHECK(j->running, "start %s", exe);
        } else {
            if (list[done].running) finish(&list[done]);
            done++;
        }
    }

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "clean up %s", dir);
    return test_done();
}
