/* spawn_util.h — run this test program again as a child (`self scenario`) with one extra environment
 * variable, capturing its stdout+stderr: how the simt tests check faults that abort the process. */
#ifndef SIMT_SPAWN_UTIL_H
#define SIMT_SPAWN_UTIL_H

#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

extern char **environ;

/* Run `self name` with extra environment; returns its stderr and status. */
static inline std::string spawn(const char *self, const char *name, const char *env_extra, int *status)
{
    int fds[2];
    if (pipe(fds))
        return "";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    char *argv[] = {(char *)self, (char *)name, nullptr};
    std::vector<char *> env;
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "SIMT_ON_FAULT=", 14) && strncmp(*e, "TSAN_OPTIONS=", 13))
            env.push_back(*e);
    if (env_extra)
        env.push_back((char *)env_extra);
    env.push_back(nullptr);
    pid_t pid;
    std::string out;
    if (posix_spawn(&pid, self, &fa, nullptr, argv, env.data()) == 0) {
        close(fds[1]);
        char buf[4096];
        ssize_t n;
        while ((n = read(fds[0], buf, sizeof buf)) > 0)
            out.append(buf, (size_t)n);
        waitpid(pid, status, 0);
    } else {
        close(fds[1]);
        *status = -1;
    }
    close(fds[0]);
    posix_spawn_file_actions_destroy(&fa);
    return out;
}

#endif
