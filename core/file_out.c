/* file_out.c — checked, all-or-nothing file writing (see file_out.h). */
#include "file_out.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* create a fresh temporary file next to `path`; the fd, or -1 with errno set */
static int create_tmp(const char *path, char *tmp, size_t tmp_size);
/* the reason for a failed stream operation: errno when the operation set one */
static const char *reason(int e);

static int create_tmp(const char *path, char *tmp, size_t tmp_size)
{
    static unsigned counter; /* distinct names within a process; the pid across processes */
    for (int attempt = 0; attempt < 100; attempt++) {
        int n = snprintf(tmp, tmp_size, "%s.tmp-%ld-%u", path, (long)getpid(), counter++);
        if (n < 0 || (size_t)n >= tmp_size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        /* 0666 so that the umask decides the final file's mode, as for a plain fopen */
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

static const char *reason(int e)
{
    return e ? strerror(e) : "write error";
}

/* true when `path` exists and is not a regular file: written in place, never renamed over */
static bool is_special(const char *path, bool *is_dir)
{
    struct stat st;
    *is_dir = false;
    if (lstat(path, &st) != 0) return false;
    *is_dir = S_ISDIR(st.st_mode);
    return !S_ISREG(st.st_mode);
}

bool file_out_open(file_out *o, const char *path, char *err, size_t err_size)
{
    *o = (file_out){0};
    if ((size_t)snprintf(o->path, sizeof o->path, "%s", path) >= sizeof o->path) {
        snprintf(err, err_size, "'%s': name too long", path);
        return false;
    }
    bool is_dir;
    if (is_special(path, &is_dir)) {
        if (is_dir) {
            snprintf(err, err_size, "'%s': is a directory", path);
            return false;
        }
        o->f = fopen(path, "w");
    } else {
        int fd = create_tmp(path, o->tmp, sizeof o->tmp);
        if (fd >= 0 && !(o->f = fdopen(fd, "w"))) {
            int e = errno;
            close(fd);
            unlink(o->tmp);
            errno = e;
        }
    }
    if (!o->f) {
        snprintf(err, err_size, "'%s': cannot create: %s", path, strerror(errno));
        o->tmp[0] = '\0';
        return false;
    }
    return true;
}

bool file_out_commit(file_out *o, char *err, size_t err_size)
{
    if (!o->f) {
        snprintf(err, err_size, "'%s': not open", o->path);
        return false;
    }
    int e = 0;
    bool ok = !ferror(o->f);
    errno = 0;
    if (fflush(o->f) != 0) ok = false, e = errno;
    /* the data on disk before the rename makes it visible: no empty file after a crash */
    if (ok && o->tmp[0] && fsync(fileno(o->f)) != 0) ok = false, e = errno;
    errno = 0;
    if (fclose(o->f) != 0 && ok) ok = false, e = errno;
    o->f = NULL;
    if (!ok) {
        snprintf(err, err_size, "'%s': cannot write: %s", o->path, reason(e));
        file_out_abort(o);
        return false;
    }
    if (o->tmp[0] && rename(o->tmp, o->path) != 0) {
        snprintf(err, err_size, "'%s': cannot replace: %s", o->path, strerror(errno));
        file_out_abort(o);
        return false;
    }
    o->tmp[0] = '\0';
    return true;
}

void file_out_abort(file_out *o)
{
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (o->tmp[0]) unlink(o->tmp);
    o->tmp[0] = '\0';
}

bool file_out_write_all(const char *path, const void *data, size_t size, char *err, size_t err_size)
{
    file_out o;
    if (!file_out_open(&o, path, err, err_size)) return false;
    if (size > 0 && fwrite(data, 1, size, o.f) != size) {
        snprintf(err, err_size, "'%s': cannot write: %s", path, reason(errno));
        file_out_abort(&o);
        return false;
    }
    return file_out_commit(&o, err, err_size);
}

bool file_out_probe(const char *path, char *err, size_t err_size)
{
    bool is_dir;
    if (is_special(path, &is_dir)) {
        int fd = is_dir ? -1 : open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            snprintf(err, err_size, "'%s': cannot write: %s", path,
                     is_dir ? "is a directory" : strerror(errno));
            return false;
        }
        close(fd);
        return true;
    }
    char tmp[1100];
    int fd = create_tmp(path, tmp, sizeof tmp);
    if (fd < 0) {
        snprintf(err, err_size, "'%s': cannot create: %s", path, strerror(errno));
        return false;
    }
    close(fd);
    unlink(tmp);
    return true;
}

bool file_out_stdout_ok(char *err, size_t err_size)
{
    errno = 0;
    int e = fflush(stdout) != 0 ? errno : 0;
    if (e == 0 && !ferror(stdout)) return true;
    snprintf(err, err_size, "standard output: cannot write: %s", reason(e));
    return false;
}
