/* file_out.h — every file the project writes (screenshots, camera paths, benchmark CSVs, izb-quality
 * images) goes through here, so that a write that fails is said and never leaves a half file:
 *  - the data goes to a temporary name next to the final one ("NAME.tmp-PID-N") and is renamed over
 *    the final name only when every write, the flush and the close succeeded;
 *  - a final name that exists and is not a regular file (/dev/null, /dev/full, a pipe, a symlink) is
 *    written in place: renaming over it would replace the node, and there is no half file to avoid.
 * The overwrite policy (refuse an existing file without --force) is the caller's, checked up front.
 * The FPS log is the one exception (app/fps_log.c): it must survive Ctrl-C row by row, so it is
 * written in place and flushed whole per row. Errors: one line naming the file and the reason. */
#ifndef FILE_OUT_H
#define FILE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct file_out {
    FILE *f;         /* write here (fprintf, fwrite); NULL when not open */
    char path[1024]; /* the final name */
    char tmp[1100];  /* the temporary name; empty when written in place */
} file_out;

/* Open a temporary file next to `path` (or `path` itself, see above). False with a reason. */
bool file_out_open(file_out *o, const char *path, char *err, size_t err_size);
/* Check the stream, flush, close and rename onto the final name. On any failure the temporary
 * file is removed, the final name is left as it was, and false comes back with a reason. */
bool file_out_commit(file_out *o, char *err, size_t err_size);
/* Close and remove the temporary file without touching the final name. Safe on a closed one. */
void file_out_abort(file_out *o);
/* open + one fwrite of `size` bytes + commit */
bool file_out_write_all(const char *path, const void *data, size_t size, char *err, size_t err_size);
/* Up-front check that `path` can be written (its directory takes a new file, or the special file
 * opens for writing), so a run does not find out after its last frame. Leaves nothing behind. */
bool file_out_probe(const char *path, char *err, size_t err_size);
/* Flush stdout and report whether everything printed on it reached its destination (a program
 * whose output is its report, e.g. `bench-cpu > /dev/full`, must not exit 0). */
bool file_out_stdout_ok(char *err, size_t err_size);

#endif
