/* workload_file.c -- the streaming reader of workload files. */
#include "store/workload_file.h"
#include "base/mem.h"
#include "input/config.h"
#include "store/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WFILE_HEADER "t_ms,msg,group,service_ms"
#define WFILE_HEADER_SEQ WFILE_HEADER ",group_seq"

struct wfile {
    FILE *f;
    char *path;
    int line;
    int nfields;                   /* 4, or 5 with group_seq */
    int64_t last_t;
    char buf[4098];
};

static int bad(wfile *w, sim_diag *d, const char *what, const char *arg)
{
    return diag_file(d, w->path, w->line, 0, "%s%s", what, arg);
}

static int read_line(wfile *w, sim_diag *d)
{
    if (!fgets(w->buf, sizeof w->buf, w->f)) {
        if (ferror(w->f))
            return diag_file(d, w->path, w->line, 0, "cannot read: %s", strerror(errno));
        return 0;
    }
    w->line++;
    size_t n = strlen(w->buf);
    if (n == 0 || w->buf[n - 1] != '\n')   /* fgets reads past a NUL: strlen stops at it */
        return bad(w, d, n >= sizeof w->buf - 1 ? "line too long"
                         : !feof(w->f) ? "a NUL byte: not a text file"
                                       : "the file ends in the middle of a line (no line end)",
                   "");
    if (w->line == 1 && memcmp(w->buf, "\xef\xbb\xbf", 3) == 0) {   /* a UTF-8 BOM */
        memmove(w->buf, w->buf + 3, n - 2);
        n -= 3;
    }
    w->buf[--n] = '\0';
    if (n && w->buf[n - 1] == '\r')
        w->buf[--n] = '\0';
    return 1;
}

void wfile_close(wfile *w)
{
    if (!w)
        return;
    if (w->f)
        fclose(w->f);
    free(w->path);
    free(w);
}

int wfile_open(const char *path, wfile **out, sim_diag *d)
{
    *out = NULL;
    wfile *w = xcalloc(1, sizeof *w);
    w->path = xstrdup(path);
    w->f = fopen(path, "rb");
    int rc = w->f ? SIM_OK : diag_file(d, path, 0, 0, "cannot open: %s", strerror(errno));
    while (rc == SIM_OK) {
        int got = read_line(w, d);
        if (got <= 0) {
            rc = got == 0 ? bad(w, d, "no header line (expected '" WFILE_HEADER "')", "") : got;
            break;
        }
        if (w->buf[0] == '#')
            continue;
        w->nfields = strcmp(w->buf, WFILE_HEADER_SEQ) == 0 ? 5 : 4;
        if (w->nfields == 4 && strcmp(w->buf, WFILE_HEADER) != 0)
            rc = bad(w, d, "wrong header: expected '" WFILE_HEADER "' (or '" WFILE_HEADER_SEQ
                     "')", "");
        break;
    }
    if (rc != SIM_OK) {
        wfile_close(w);
        return rc;
    }
    *out = w;
    return SIM_OK;
}

/* JMSXGroupSeq: an optional sign and digits, within a Java int. */
static bool parse_seq(const char *s, int32_t *out)
{
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || v < INT32_MIN || v > INT32_MAX)
        return false;
    *out = (int32_t)v;
    return true;
}

int wfile_next(wfile *w, wfile_row *row, sim_diag *d)
{
    int rc;
    do {
        rc = read_line(w, d);
        if (rc <= 0)
            return rc;
    } while (w->buf[0] == '#' || w->buf[0] == '\0');
    char *f[5], *p = w->buf;
    int last = w->nfields - 1;
    for (int i = 0; i <= last; i++) {
        f[i] = p;
        char *c = strchr(p, ',');
        if ((i < last && !c) || (i == last && c))
            return bad(w, d, w->nfields == 5 ? "expected 5 fields (" WFILE_HEADER_SEQ "), found "
                                             : "expected 4 fields (" WFILE_HEADER "), found ",
                       c ? "more" : "fewer");
        if (c) {
            *c = '\0';
            p = c + 1;
        }
    }
    row->line = w->line;
    const char *why = trace_parse_ms(f[0], &row->t_ns);
    if (why)
        return bad(w, d, "t_ms ", why);
    if (row->t_ns < w->last_t)
        return bad(w, d, "t_ms goes back in time: ", f[0]);
    w->last_t = row->t_ns;
    if (!f[1][0])
        return bad(w, d, "the field 'msg' is required", "");
    row->msg = f[1];
    row->group = f[2];
    row->service_ns = -1;
    if (f[3][0] && (why = trace_parse_ms(f[3], &row->service_ns)) != NULL)
        return bad(w, d, "service_ms ", why);
    row->group_seq = 0;
    if (w->nfields == 5 && f[4][0] && !parse_seq(f[4], &row->group_seq))
        return bad(w, d, "group_seq is not a whole number (a Java int): ", f[4]);
    if (row->group_seq != 0 && !row->group[0])
        return bad(w, d, "group_seq needs a group", "");
    return 1;
}
