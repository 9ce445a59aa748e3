/* outpath.c -- safe output paths (see outpath.h). */
#define _XOPEN_SOURCE 700          /* realpath */
#include "base/outpath.h"
#include "base/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the temporary files that exist: removed at exit -------------------------
 * Process-wide by necessity: exit(), called on out of memory from any
 * thread, knows no context.  Guarded by a mutex; touched only on open and
 * close of an output. */

typedef struct live_tmp {
    struct live_tmp *next;
    char *path;
    pid_t owner;                   /* a forked worker inherits the list: not its files */
} live_tmp;

static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t live_once = PTHREAD_ONCE_INIT;
static live_tmp *live_head;

static void remove_live(void)
{
    pthread_mutex_lock(&live_mu);
    for (live_tmp *t = live_head; t; t = t->next)
        if (t->owner == getpid())
            unlink(t->path);
    pthread_mutex_unlock(&live_mu);
}

static void register_atexit(void)
{
    atexit(remove_live);
}

static void live_add(const char *path)
{
    pthread_once(&live_once, register_atexit);
    live_tmp *t = xcalloc(1, sizeof *t);
    t->path = xstrdup(path);
    t->owner = getpid();
    pthread_mutex_lock(&live_mu);
    t->next = live_head;
    live_head = t;
    pthread_mutex_unlock(&live_mu);
}

static void live_remove(const char *path)
{
    pthread_mutex_lock(&live_mu);
    for (live_tmp **p = &live_head; *p; p = &(*p)->next)
        if (strcmp((*p)->path, path) == 0) {
            live_tmp *t = *p;
            *p = t->next;
            free(t->path);
            free(t);
            break;
        }
    pthread_mutex_unlock(&live_mu);
}

/* ---- names ------------------------------------------------------------------ */

/* The folder part of path ("." when none), freshly allocated. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

/* An absolute name for a path that may not exist yet: its folder resolved,
 * then its last component.  NULL when the folder cannot be resolved. */
static char *canonical(const char *path)
{
    char *abs = realpath(path, NULL);
    if (abs)
        return abs;
    char *dir = folder_of(path);
    char *adir = realpath(dir, NULL);
    free(dir);
    if (!adir)
        return NULL;
    const char *slash = strrchr(path, '/');
    strbuf b = { 0 };
    sb_addf(&b, "%s/%s", strcmp(adir, "/") == 0 ? "" : adir, slash ? slash + 1 : path);
    free(adir);
    return sb_take(&b);
}

bool outpath_same(const char *a, const char *b)
{
    struct stat sa, sb;
    bool ha = stat(a, &sa) == 0, hb = stat(b, &sb) == 0;
    if (ha && hb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ha != hb)
        return false;
    char *ca = canonical(a), *cb = canonical(b);
    bool same = ca && cb ? strcmp(ca, cb) == 0 : strcmp(a, b) == 0;
    free(ca);
    free(cb);
    return same;
}

int outpath_check_distinct(const char *const *outs, size_t nouts, const char *const *ins,
                           size_t nins, char *err, size_t errsize)
{
    for (size_t i = 0; i < nouts; i++) {
        if (!outs[i])
            continue;
        for (size_t j = 0; j < nins; j++)
            if (ins[j] && outpath_same(outs[i], ins[j])) {
                snprintf(err, errsize, "%s: the output would overwrite an input of the same "
                         "command (%s)", outs[i], ins[j]);
                return -1;
            }
        for (size_t j = i + 1; j < nouts; j++)
            if (outs[j] && outpath_same(outs[i], outs[j])) {
                snprintf(err, errsize, "%s: named for two outputs (%s and %s)", outs[i],
                         outs[i], outs[j]);
                return -1;
            }
    }
    return 0;
}

/* ---- opening ------------------------------------------------------------------ */

static void outpath_free(outpath *o)
{
    if (o->fd >= 0)
        close(o->fd);
    free(o->path);
    free(o->target);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

static int fail(outpath *o, const char *path, const char *why, char *err, size_t errsize)
{
    snprintf(err, errsize, "cannot write %s: %s", path, why);
    outpath_free(o);
    return -1;
}

/* Whether st is the file behind our standard output or error. */
static int own_stream(const struct stat *st)
{
    for (int fd = 1; fd <= 2; fd++) {
        struct stat s;
        if (fstat(fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
            return fd;
    }
    return -1;
}

/* The temporary file beside the target, created with O_EXCL. */
static int create_tmp(outpath *o)
{
    for (int k = 0; k < 100; k++) {
        strbuf b = { 0 };
        if (k == 0)
            sb_addf(&b, "%s.tmp-%ld", o->target, (long)getpid());
        else
            sb_addf(&b, "%s.tmp-%ld-%d", o->target, (long)getpid(), k);
        int fd = open(b.s, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            o->tmp = sb_take(&b);
            o->fd = fd;
            live_add(o->tmp);
            return 0;
        }
        int e = errno;
        sb_free(&b);
        if (e != EEXIST) {
            errno = e;
            return -1;
        }
    }
    errno = EEXIST;
    return -1;
}

int outpath_open(outpath *o, const char *path, unsigned flags, char *err, size_t errsize)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path || !*path)
        return fail(o, "''", "an empty file name", err, errsize);
    o->path = xstrdup(path);
    struct stat lst, st;
    bool exists = lstat(path, &lst) == 0;
    if (exists && stat(path, &st) != 0)
        return fail(o, path, "a symbolic link to nothing", err, errsize);
    if (exists && S_ISDIR(st.st_mode))
        return fail(o, path, strerror(EISDIR), err, errsize);
    int own = exists ? own_stream(&st) : -1;
    bool stream = exists && (own >= 0 || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
    if (exists && !stream && !S_ISREG(st.st_mode))
        return fail(o, path, "not a regular file", err, errsize);
    if (stream && (flags & OUTPATH_REGULAR))
        return fail(o, path, "not a regular file", err, errsize);
    if (stream) {
        /* Written into as is: never replaced, never truncated (a file
         * behind our standard output keeps the shell's offset). */
        o->target = xstrdup(path);
        o->fd = own >= 0 ? dup(own) : open(path, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0)
            return fail(o, path, strerror(errno), err, errsize);
        return 0;
    }
    /* A link's target is the file replaced; the link stays. */
    o->target = exists && S_ISLNK(lst.st_mode) ? realpath(path, NULL) : xstrdup(path);
    if (!o->target)
        return fail(o, path, strerror(errno), err, errsize);
    if (create_tmp(o) != 0)
        return fail(o, path, strerror(errno), err, errsize);
    return 0;
}

const char *outpath_name(const outpath *o)
{
    return o->tmp ? o->tmp : o->target;
}

void outpath_close_fd(outpath *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
}

int outpath_commit(outpath *o, char *err, size_t errsize)
{
    int rc = 0;
    if (o->fd >= 0 && close(o->fd) != 0) {
        snprintf(err, errsize, "cannot write %s: %s", o->path, strerror(errno));
        rc = -1;
    }
    o->fd = -1;
    if (rc == 0 && o->tmp && rename(o->tmp, o->target) != 0) {
        snprintf(err, errsize, "cannot rename %s to %s: %s", o->tmp, o->target,
                 strerror(errno));
        rc = -1;
    }
    if (rc != 0 && o->tmp)
        unlink(o->tmp);
    if (o->tmp)
        live_remove(o->tmp);
    outpath_free(o);
    return rc;
}

void outpath_discard(outpath *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (o->tmp) {
        unlink(o->tmp);
        live_remove(o->tmp);
    }
    outpath_free(o);
}

int outpath_write_text(const char *path, const char *text, int mode, char *err,
                       size_t errsize)
{
    outpath o;
    if (outpath_open(&o, path, 0, err, errsize) != 0)
        return -1;
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t n = write(o.fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(err, errsize, "cannot write %s: %s", path,
                     n < 0 ? strerror(errno) : "write error");
            outpath_discard(&o);
            return -2;
        }
        done += (size_t)n;
    }
    if (mode && o.tmp && fchmod(o.fd, (mode_t)mode) != 0) {
        snprintf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        outpath_discard(&o);
        return -2;
    }
    return outpath_commit(&o, err, errsize) == 0 ? 0 : -2;
}
