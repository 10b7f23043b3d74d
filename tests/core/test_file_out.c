/* test_file_out.c — core/file_out.c, through which every output file is written (suite cpu):
 *  - a good write lands whole under the final name, nothing else is left in the directory;
 *  - /dev/full (ENOSPC at the flush) fails with a message naming the file;
 *  - places that cannot take a file fail at open and at the up-front probe. The tests run as root,
 *    for whom a chmod'ed read-only directory is still writable, so the unwritable places are ones
 *    root cannot write either: a directory under /proc (no new files there) and a path under a
 *    regular file (ENOTDIR);
 *  - a write that fails half way (RLIMIT_FSIZE: EFBIG after a few bytes, the way a full disk fails)
 *    leaves an existing file with its old contents and no temporary file behind;
 *  - stdout into /dev/full is reported. */
#undef NDEBUG
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "file_out.h"
#include "test.h"

static char dir[] = "/tmp/izb-fileout-XXXXXX";

static int entries_in(const char *d)
{
    DIR *h = opendir(d);
    int n = 0;
    for (struct dirent *e; h && (e = readdir(h)) != NULL;)
        n += e->d_name[0] != '.';
    if (h) closedir(h);
    return n;
}

static long read_all(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    long n = (long)fread(buf, 1, size, f);
    fclose(f);
    return n;
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path[256], err[2048], buf[4096];
    snprintf(path, sizeof path, "%s/out.txt", dir);

    /* a good write, twice (the second replaces the first) */
    CHECK(file_out_write_all(path, "first\n", 6, err, sizeof err), "write: %s", err);
    CHECK(file_out_write_all(path, "second\n", 7, err, sizeof err), "rewrite: %s", err);
    CHECK(read_all(path, buf, sizeof buf) == 7 && memcmp(buf, "second\n", 7) == 0, "contents replaced");
    CHECK(entries_in(dir) == 1, "no temporary file left: %d entries", entries_in(dir));
    CHECK(file_out_probe(path, err, sizeof err), "probe an existing file: %s", err);
    CHECK(entries_in(dir) == 1, "the probe leaves nothing behind");

    /* streaming through fprintf, then abort: the final name is untouched */
    file_out o;
    CHECK(file_out_open(&o, path, err, sizeof err), "open: %s", err);
    fprintf(o.f, "never committed\n");
    file_out_abort(&o);
    CHECK(read_all(path, buf, sizeof buf) == 7 && memcmp(buf, "second\n", 7) == 0,
          "abort keeps the old file");
    CHECK(entries_in(dir) == 1, "abort removes the temporary file");

    /* /dev/full: written in place (never renamed over), fails at the flush */
    CHECK(!file_out_write_all("/dev/full", "x", 1, err, sizeof err), "/dev/full reported as written");
    CHECK(strstr(err, "/dev/full") && strstr(err, "No space left"), "message: %s", err);
    CHECK(file_out_probe("/dev/full", err, sizeof err), "/dev/full opens for writing: %s", err);
    CHECK(file_out_write_all("/dev/null", "x", 1, err, sizeof err), "/dev/null takes anything: %s", err);
    CHECK(access("/dev/full", F_OK) == 0, "the device node is still there");

    /* places root cannot write */
    const char *unwritable[] = {"/proc/izb-test.png", "/proc/self/izb-test.png"};
    for (int i = 0; i < 2; i++) {
        CHECK(!file_out_probe(unwritable[i], err, sizeof err), "probe %s", unwritable[i]);
        CHECK(strstr(err, unwritable[i]) != NULL, "message names it: %s", err);
        CHECK(!file_out_write_all(unwritable[i], "x", 1, err, sizeof err), "write %s", unwritable[i]);
    }
    char under_file[300];
    snprintf(under_file, sizeof under_file, "%s/x.png", path); /* path is a regular file */
    CHECK(!file_out_probe(under_file, err, sizeof err) && strstr(err, "Not a directory"), "under a file: %s",
          err);
    CHECK(!file_out_write_all(under_file, "x", 1, err, sizeof err), "write under a file");
    CHECK(!file_out_probe(dir, err, sizeof err) && strstr(err, "directory"), "a directory: %s", err);
    CHECK(!file_out_write_all(dir, "x", 1, err, sizeof err), "write onto a directory");

    /* a failure half way: the file size limit makes write() fail with EFBIG after 1000 bytes */
    static char big[100000];
    memset(big, 'z', sizeof big);
    struct rlimit old, small = {.rlim_cur = 1000, .rlim_max = RLIM_INFINITY};
    signal(SIGXFSZ, SIG_IGN); /* else the signal kills the process instead of the write failing */
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0 && setrlimit(RLIMIT_FSIZE, &small) == 0, "setrlimit");
    bool wrote = file_out_write_all(path, big, sizeof big, err, sizeof err);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(!wrote && strstr(err, path), "half-written file reported: %s", err);
    CHECK(read_all(path, buf, sizeof buf) == 7 && memcmp(buf, "second\n", 7) == 0,
          "the old file survives a failed rewrite");
    CHECK(entries_in(dir) == 1, "no half file left: %d entries", entries_in(dir));

    /* a stream that failed once is not committed, even when a later flush succeeds: the first
     * fprintf hits a 1-byte size limit (EFBIG, the error indicator set), then the limit is lifted */
    struct rlimit tiny = {.rlim_cur = 1, .rlim_max = RLIM_INFINITY};
    CHECK(file_out_open(&o, path, err, sizeof err), "open: %s", err);
    CHECK(setrlimit(RLIMIT_FSIZE, &tiny) == 0, "setrlimit");
    fprintf(o.f, "%s", "more than one byte");
    fflush(o.f);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(!file_out_commit(&o, err, sizeof err) && strstr(err, path), "an earlier failed write is reported: %s", err);
    CHECK(read_all(path, buf, sizeof buf) == 7 && memcmp(buf, "second\n", 7) == 0, "the old file survives");
    CHECK(entries_in(dir) == 1, "no half file left: %d entries", entries_in(dir));

    /* stdout into /dev/full */
    fflush(stdout);
    int saved = dup(1);
    CHECK(freopen("/dev/full", "w", stdout) != NULL, "freopen");
    printf("a report nobody will see\n");
    bool out_ok = file_out_stdout_ok(err, sizeof err);
    clearerr(stdout);
    fflush(stdout);
    dup2(saved, 1); /* back to the terminal, for test_done's line */
    clearerr(stdout);
    CHECK(!out_ok && strstr(err, "standard output"), "stdout into /dev/full: %s", err);

    unlink(path);
    rmdir(dir);
    return test_done();
}
