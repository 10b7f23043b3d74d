/* test_stdout_full.c — a program whose report goes to stdout (bench-cpu, izb-quality) must not exit 0
 * when stdout cannot be written: run it with stdout on /dev/full and expect exit 1 and one line on
 * stderr saying so. usage: test_stdout_full PROGRAM [ARGS...] */
#undef NDEBUG
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

extern char **environ;

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_stdout_full PROGRAM [ARGS...]\n");
        return 1;
    }
    FILE *err = tmpfile();
    int full = open("/dev/full", O_WRONLY);
    if (!err || full < 0) TEST_SKIP("no /dev/full here");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, full, 1);
    posix_spawn_file_actions_adddup2(&fa, fileno(err), 2);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[1], &fa, NULL, argv + 1, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(full);
    CHECK(rc == 0, "spawn %s: %s", argv[1], strerror(rc));
    int status = 0;
    if (rc == 0) waitpid(pid, &status, 0);
    char text[8192] = "";
    rewind(err);
    text[fread(text, 1, sizeof text - 1, err)] = '\0';
    fclose(err);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) TEST_SKIP("%s skipped: %s", argv[1], text);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1, "%s with stdout on /dev/full: status %d, stderr: %s",
          argv[1], status, text);
    CHECK(strstr(text, "standard output: cannot write") != NULL, "says so: %s", text);
    return test_done();
}
