/* run_util.h — run the izb-shadows binary from a test: argv in, exit status and captured
 * stdout/stderr out. The binary's path comes from the test's command line (meson passes the
 * built target). */
#ifndef RUN_UTIL_H
#define RUN_UTIL_H

#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct run_result {
    int code; /* exit code, or 128 + signal when killed by one */
    char out[65536];
    char err[65536];
} run_result;

typedef struct run_proc {
    pid_t pid;
    FILE *out, *err;
} run_proc;

/* Start argv (argv[0] = the binary) with stdout/stderr into temporary files. no_display: remove
 * DISPLAY and WAYLAND_DISPLAY from its environment. */
static inline bool run_start(char *const argv[], bool no_display, run_proc *p)
{
    p->out = tmpfile();
    p->err = tmpfile();
    if (!p->out || !p->err) return false;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fileno(p->out), 1);
    posix_spawn_file_actions_adddup2(&fa, fileno(p->err), 2);
    char *env[512];
    int n = 0;
    for (char **e = environ; *e && n < 510; e++)
        if (!no_display || (strncmp(*e, "DISPLAY=", 8) != 0 && strncmp(*e, "WAYLAND_DISPLAY=", 16) != 0))
            env[n++] = *e;
    env[n] = NULL;
    int rc = posix_spawn(&p->pid, argv[0], &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "posix_spawn %s: %s\n", argv[0], strerror(rc));
        return false;
    }
    return true;
}

/* The exit code of a wait status: the code, or 128 + the signal that killed it. */
static inline int run_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Read p's stdout and stderr into r and close them (p has ended). */
static inline void run_collect(run_proc *p, run_result *r)
{
    FILE *fs[2] = {p->out, p->err};
    char *bufs[2] = {r->out, r->err};
    for (int i = 0; i < 2; i++) {
        rewind(fs[i]);
        size_t got = fread(bufs[i], 1, sizeof r->out - 1, fs[i]);
        bufs[i][got] = '\0';
        fclose(fs[i]);
    }
}

/* Wait for p, fill r and close p's files. */
static inline void run_wait(run_proc *p, run_result *r)
{
    int status = 0;
    waitpid(p->pid, &status, 0);
    r->code = run_code(status);
    run_collect(p, r);
}

/* CPU seconds (user + system, all its threads) process pid has used so far; -1 when unknown */
static inline double run_cpu_seconds(pid_t pid)
{
    char name[64], text[1024];
    snprintf(name, sizeof name, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(name, "r");
    if (!f) return -1.0;
    const size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[got] = '\0';
    const char *c = strrchr(text, ')'); /* after the command name, which may hold spaces */
    unsigned long utime = 0, stime = 0;
    if (!c || sscanf(c + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        return -1.0;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* Wait for p until it ends, or until it has used cpu_s seconds of CPU or wall_s seconds have
 * passed: then it is killed (r->code 128 + SIGKILL) and false returned. CPU time is what a run
 * that never ends piles up whatever the machine's load; the wall limit catches one that sleeps.
 * r is filled and p's files closed either way. */
static inline bool run_wait_limits(run_proc *p, run_result *r, double cpu_s, double wall_s)
{
    const struct timespec tick = {0, 20 * 1000 * 1000};
    int status = 0;
    for (double waited = 0.0; waited < wall_s && !(run_cpu_seconds(p->pid) > cpu_s); waited += 0.02) {
        if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
            r->code = run_code(status);
            run_collect(p, r);
            return true;
        }
        nanosleep(&tick, NULL);
    }
    kill(p->pid, SIGKILL);
    run_wait(p, r);
    return false;
}

/* Run to completion. The output goes to our stderr too, for the test log. */
static inline bool run_program(char *const argv[], bool no_display, run_result *r)
{
    run_proc p;
    memset(r, 0, sizeof *r);
    if (!run_start(argv, no_display, &p)) {
        r->code = -1;
        return false;
    }
    run_wait(&p, r);
    fprintf(stderr, "$");
    for (int i = 0; argv[i]; i++)
        fprintf(stderr, " %s", argv[i]);
    fprintf(stderr, "\n  -> exit %d\n  stdout: %s\n  stderr: %s\n", r->code, r->out, r->err);
    return true;
}

/* Lines in s (a final line without '\n' counts). */
static inline int count_lines(const char *s)
{
    int n = 0;
    for (const char *c = s; *c; c++)
        n += *c == '\n';
    return n + (s[0] && s[strlen(s) - 1] != '\n');
}

#endif
