/* outpath.h -- every file lsim writes goes through here.
 *
 * A regular file is written under a temporary name in the target's own
 * folder (created with O_EXCL, so nothing of another's is ever opened) and
 * renamed onto the target only when complete: a failure leaves nothing
 * that looks finished.  A path that is a symbolic link is never renamed
 * over: the file it points to is the target.  A character device or a FIFO
 * (/dev/stdout, /dev/null, a pipe), and a path that is our own standard
 * output or error, is written straight into, never replaced.
 *
 * Temporary files are listed while they exist and removed at exit, so that
 * the one way out that bypasses the callers' cleanup (out of memory, which
 * exits at once: mem.h) leaves none behind either.
 */
#ifndef LSIM_SIM_OUTPATH_H
#define LSIM_SIM_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct outpath {
    char *path;                    /* as given: for messages */
    char *target;                  /* the file the output replaces */
    char *tmp;                     /* NULL: written straight into target */
    int fd;                        /* -1 once handed over or closed */
} outpath;

enum {
    OUTPATH_REGULAR = 1,           /* only a regular file will do (a database) */
};

/* Opens an output.  0, or -1 with "cannot write PATH: reason" in err (an
 * empty name, a folder, a missing folder, a dangling link, ...). */
int outpath_open(outpath *o, const char *path, unsigned flags, char *err, size_t errsize);
/* The name to write to (the temporary file, or the device itself). */
const char *outpath_name(const outpath *o);
/* Closes the descriptor: for writers that open the file by name (SQLite). */
void outpath_close_fd(outpath *o);
/* Renames the temporary file into place and frees o.  0, or -1 with err
 * (the temporary file is then removed). */
int outpath_commit(outpath *o, char *err, size_t errsize);
/* Removes the temporary file and frees o. */
void outpath_discard(outpath *o);

/* Writes `text` whole to `path` (mode: chmod of the result, 0: leave it):
 * 0; -1 when the file cannot be created (nothing was written: the caller's
 * exit status 2, like every output refused before the work); -2 when a
 * write or the rename failed (status 1).  err says why. */
int outpath_write_text(const char *path, const char *text, int mode, char *err,
                       size_t errsize);

/* Whether two paths name the same file: the same inode when both exist,
 * else the same name in the same folder (links and "." resolved). */
bool outpath_same(const char *a, const char *b);
/* Refuses an output that is one of the command's inputs or another of its
 * outputs: 0, or -1 with "PATH: ..." in err.  NULL entries are skipped. */
int outpath_check_distinct(const char *const *outs, size_t nouts, const char *const *ins,
                           size_t nins, char *err, size_t errsize);

#endif
