/* trace.c -- TRACE_FORMAT v1 reader and writer (see trace.h).
 *
 * The reader checks, line by line: the header; seven fields; a known event;
 * the fields each event needs; t_ms a non-negative decimal, not decreasing,
 * within 10^12 ms; no second publish of one id; every end matching an open
 * begin of the same message on the same consumer.  The begin of an end is
 * looked up in a hash table of open begins, which holds what is in flight.
 */
#include "store/trace.h"
#include "base/mem.h"
#include "base/outpath.h"
#include "input/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACE_HEADER "t_ms,event,node,consumer,msg,group,queue"
#define MAX_LINE 1048576           /* a metadata line names every runtime call */
#define TEXT_OF_(x) #x
#define TEXT_OF(x) TEXT_OF_(x)
#define MAX_T_MS 1000000000000LL   /* 10^12 ms, about 31 years */

static const char *const event_names[] = {
    [TEV_PUBLISH] = "publish", [TEV_BEGIN] = "begin", [TEV_END] = "end",
    [TEV_CONSUMER_START] = "consumer_start", [TEV_CONSUMER_STOP] = "consumer_stop",
    [TEV_DELIVER] = "deliver", [TEV_REQUEUE] = "requeue",
};

/* ---- a set of 64-bit keys with values (open addressing) -------------------- */

typedef struct open_begin {
    uint64_t key;                  /* hash of the message id; 0 = empty slot */
    uint64_t who;                  /* hash of node and consumer */
    int64_t t_ns;
    bool is_tomb;
} open_begin;

typedef struct hset {
    open_begin *v;
    size_t cap, n, used;           /* used counts tombstones too */
} hset;

static uint64_t hash_str(const char *s, uint64_t h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    h ^= h >> 29;
    return h ? h : 1;
}

static void hset_free(hset *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

static open_begin *hset_find(const hset *s, uint64_t key)
{
    if (!s->cap)
        return NULL;
    for (size_t i = key & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->v[i].key == 0)
            return NULL;
        if (s->v[i].key == key && !s->v[i].is_tomb)
            return &s->v[i];
    }
}

static void hset_put(hset *s, const open_begin *e);

static void hset_grow(hset *s)
{
    hset old = *s;
    s->cap = old.cap ? old.cap * 2 : 1024;
    if (old.cap && old.n * 4 < old.cap)
        s->cap = old.cap;                          /* just clear tombstones */
    s->v = xcalloc(s->cap, sizeof *s->v);
    s->n = s->used = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.v[i].key && !old.v[i].is_tomb)
            hset_put(s, &old.v[i]);
    free(old.v);
}

static void hset_put(hset *s, const open_begin *e)
{
    if ((s->used + 1) * 2 > s->cap)
        hset_grow(s);
    size_t i = e->key & (s->cap - 1);
    while (s->v[i].key != 0)
        i = (i + 1) & (s->cap - 1);
    s->v[i] = *e;
    s->n++;
    s->used++;
}

static void hset_del(hset *s, open_begin *e)
{
    e->is_tomb = true;
    s->n--;
}

/* ---- the ids of every publish -------------------------------------------------
 * Refusing a second publish of an id means remembering every id.  Ids of
 * the form <prefix><number> with one prefix (m000001, m2, ...: what the
 * recorders write) take one bit each in a bitmap indexed by the number;
 * other ids take 8 bytes each, a 64-bit hash in an open-addressing set. */

#define IDSET_MAX_NUMBER (1ULL << 32)

typedef struct idset {
    char prefix[32];
    bool has_prefix;
    size_t width;                  /* digits, when the first id was zero-padded; else 0 */
    uint64_t *bits;
    size_t nwords;
    uint64_t *hashes;              /* 0 = empty */
    size_t cap, n;
} idset;

static void idset_free(idset *s)
{
    free(s->bits);
    free(s->hashes);
    memset(s, 0, sizeof *s);
}

/* The number of `id` if it is <prefix><digits> with the set's prefix. */
static bool id_number(idset *s, const char *id, uint64_t *num)
{
    const char *d = id;
    while (*d && (*d < '0' || *d > '9'))
        d++;
    size_t plen = (size_t)(d - id);
    if (!*d || plen >= sizeof s->prefix || strlen(d) > 12)
        return false;
    for (const char *p = d; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    if (!s->has_prefix) {
        memcpy(s->prefix, id, plen);
        s->prefix[plen] = '\0';
        s->has_prefix = true;
        s->width = d[0] == '0' && d[1] ? strlen(d) : 0;
    }
    if (strlen(s->prefix) != plen || strncmp(s->prefix, id, plen) != 0)
        return false;
    /* One spelling per number: m000001 and m1 must not meet in the bitmap. */
    if (s->width ? strlen(d) != s->width : (d[0] == '0' && d[1]))
        return false;
    *num = strtoull(d, NULL, 10);
    return *num < IDSET_MAX_NUMBER;
}

static bool hashes_add(idset *s, uint64_t h)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        uint64_t *v = xcalloc(cap, sizeof *v);
        for (size_t i = 0; i < s->cap; i++)
            if (s->hashes[i])
                for (size_t j = s->hashes[i] & (cap - 1);; j = (j + 1) & (cap - 1))
                    if (!v[j]) {
                        v[j] = s->hashes[i];
                        break;
                    }
        free(s->hashes);
        s->hashes = v;
        s->cap = cap;
    }
    for (size_t j = h & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
        if (s->hashes[j] == h)
            return false;
        if (!s->hashes[j]) {
            s->hashes[j] = h;
            s->n++;
            return true;
        }
    }
}

/* Adds an id; false if it was there already. */
static bool idset_add(idset *s, const char *id)
{
    uint64_t num;
    if (!id_number(s, id, &num))
        return hashes_add(s, hash_str(id, 0xcbf29ce484222325ULL));
    size_t w = (size_t)(num >> 6);
    if (w >= s->nwords) {
        size_t n = s->nwords ? s->nwords : 64;
        while (n <= w)
            n *= 2;
        s->bits = xrealloc(s->bits, n * sizeof *s->bits);
        memset(s->bits + s->nwords, 0, (n - s->nwords) * sizeof *s->bits);
        s->nwords = n;
    }
    uint64_t bit = 1ULL << (num & 63);
    if (s->bits[w] & bit)
        return false;
    s->bits[w] |= bit;
    return true;
}

/* ---- reader ------------------------------------------------------------------ */

struct trace_reader {
    FILE *f;
    char *path;
    int line;
    char buf[MAX_LINE + 2];
    char **meta_keys, **meta_vals;
    int *meta_lines, *meta_cols;   /* where each key and its value are, for errors */
    size_t nmeta, capmeta;
    int64_t last_t;
    int64_t shutdown_ns;           /* shutdown_ms: stops from then on are the recording's */
    int64_t observed_ns;           /* observed_until_ms: the recording's end */
    idset published;               /* ids of every publish */
    hset begun;                    /* messages begun and not ended */
    bool pending;                  /* buf holds the first event line already */
};

const char *trace_parse_ms(const char *s, int64_t *ns)
{
    if (*s == '-')
        return "is negative";
    int64_t whole = 0, frac = 0;
    int nfrac = 0, ndig = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++, ndig++) {
        if (whole > MAX_T_MS)
            return "is out of range (more than 10^12 ms)";
        whole = whole * 10 + (*p - '0');
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, nfrac++) {
            if (nfrac >= 9)
                return "has more than 9 decimals";
            frac = frac * 10 + (*p - '0');
        }
        if (nfrac == 0)
            return "is not a number";
    }
    if (ndig == 0 || *p)
        return "is not a number";
    if (whole > MAX_T_MS)
        return "is out of range (more than 10^12 ms)";
    while (nfrac++ < 6)
        frac *= 10;
    *ns = whole * 1000000 + frac;
    return NULL;
}

static int bad(trace_reader *r, sim_diag *d, const char *fmt, const char *arg)
{
    char msg[600];
    snprintf(msg, sizeof msg, fmt, arg);
    return diag_file(d, r->path, r->line, 0, "%s", msg);
}

/* Whether s[0..n) is UTF-8: the format's encoding, and what a scenario
 * that fit prints from the trace's names must be. */
static bool is_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                   : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (len == 0 || i + len > n || (len == 2 && c < 0xc2) || (c == 0xf4 && s[i + 1] > 0x8f) ||
            c > 0xf4 || (c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xf0 && s[i + 1] < 0x90) ||
            (c == 0xed && s[i + 1] > 0x9f))
            return false;
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

/* Reads one line into r->buf without its line end.  1: a line, 0: EOF.
 * Byte by byte, so that a NUL is seen (not a text file: UTF-16, /dev/zero). */
static int read_line(trace_reader *r, sim_diag *d)
{
    size_t n = 0;
    int c = 0;
    while (n < MAX_LINE + 1 && (c = getc_unlocked(r->f)) != EOF && c != '\n') {
        if (c == '\0') {
            r->line++;
            bool bom16 = n >= 2 && ((unsigned char)r->buf[0] == 0xff ||
                                    (unsigned char)r->buf[0] == 0xfe);
            return bad(r, d, "a NUL byte: not a text file (traces are UTF-8 text%s)",
                       r->line == 1 && (bom16 || n == 1) ? "; this looks like UTF-16" : "");
        }
        r->buf[n++] = (char)c;
    }
    r->buf[n] = '\0';
    if (c == EOF && ferror(r->f))
        return diag_file(d, r->path, r->line, 0, "cannot read: %s", strerror(errno));
    if (c == EOF && n == 0)
        return 0;
    r->line++;
    if (n > MAX_LINE)
        return bad(r, d, "line longer than %s characters", TEXT_OF(MAX_LINE));
    if (c == EOF)
        return bad(r, d, "the file ends in the middle of a line (no line end)%s", "");
    if (r->line == 1 && n >= 3 && memcmp(r->buf, "\xef\xbb\xbf", 3) == 0) {
        memmove(r->buf, r->buf + 3, n - 2);      /* a UTF-8 byte order mark: skipped */
        n -= 3;
    }
    if (r->line == 1 && n >= 2 && (memcmp(r->buf, "\xff\xfe", 2) == 0 ||
                                   memcmp(r->buf, "\xfe\xff", 2) == 0))
        return bad(r, d, "UTF-16: traces are UTF-8 text%s", "");
    if (!is_utf8((const unsigned char *)r->buf, n))
        return bad(r, d, "not UTF-8 text (traces are UTF-8)%s", "");
    if (n && r->buf[n - 1] == '\r')
        r->buf[--n] = '\0';
    return 1;
}

static void add_meta(trace_reader *r, const char *line)
{
    const char *p = line + 1;
    while (*p == ' ' || *p == '\t')
        p++;
    const char *colon = strchr(p, ':');
    if (!colon || colon == p)
        return;
    const char *kend = colon;      /* "# shutdown_ms : 3" names shutdown_ms too */
    while (kend > p && (kend[-1] == ' ' || kend[-1] == '\t'))
        kend--;
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    size_t cap = r->capmeta, cap2 = r->capmeta, cap3 = r->capmeta;
    xgrow((void **)&r->meta_keys, &cap, r->nmeta + 1, sizeof *r->meta_keys);
    xgrow((void **)&r->meta_lines, &cap2, r->nmeta + 1, sizeof *r->meta_lines);
    xgrow((void **)&r->meta_cols, &cap3, r->nmeta + 1, sizeof *r->meta_cols);
    xgrow((void **)&r->meta_vals, &r->capmeta, r->nmeta + 1, sizeof *r->meta_vals);
    r->meta_keys[r->nmeta] = xstrndup(p, (size_t)(kend - p));
    r->meta_vals[r->nmeta] = xstrdup(v);
    r->meta_lines[r->nmeta] = r->line;
    r->meta_cols[r->nmeta] = (int)(v - line) + 1;
    r->nmeta++;
}

const char *trace_meta(const trace_reader *r, const char *key)
{
    for (size_t i = 0; i < r->nmeta; i++)
        if (strcmp(r->meta_keys[i], key) == 0)
            return r->meta_vals[i];
    return NULL;
}

size_t trace_meta_count(const trace_reader *r)
{
    return r->nmeta;
}

void trace_meta_at(const trace_reader *r, size_t i, const char **key, const char **value)
{
    *key = r->meta_keys[i];
    *value = r->meta_vals[i];
}

void trace_meta_where(const trace_reader *r, size_t i, int *line, int *column)
{
    *line = r->meta_lines[i];
    *column = r->meta_cols[i];
}

int64_t trace_shutdown_ns(const trace_reader *r)
{
    return r->shutdown_ns;
}

int64_t trace_observed_ns(const trace_reader *r)
{
    return r->observed_ns;
}

void trace_reader_close(trace_reader *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    for (size_t i = 0; i < r->nmeta; i++) {
        free(r->meta_keys[i]);
        free(r->meta_vals[i]);
    }
    free(r->meta_keys);
    free(r->meta_vals);
    free(r->meta_lines);
    free(r->meta_cols);
    idset_free(&r->published);
    hset_free(&r->begun);
    free(r->path);
    free(r);
}

/* A time in the metadata ("45537.919 (container.shutdown() called; ...)"):
 * the number before any remark.  -1 when the key is absent. */
static int meta_time(trace_reader *r, const char *key, int64_t *ns, sim_diag *d)
{
    const char *v = trace_meta(r, key);
    *ns = -1;
    if (!v)
        return SIM_OK;
    int line = 0;
    for (size_t i = 0; i < r->nmeta && !line; i++)
        if (r->meta_vals[i] == v)
            line = r->meta_lines[i];
    char num[64];
    size_t k = strcspn(v, " \t(");
    snprintf(num, sizeof num, "%.*s", (int)(k < 63 ? k : 63), v);
    if (trace_parse_ms(num, ns) != NULL)
        return diag_file(d, r->path, line, 0, "metadata %s: '%s' is not a time", key, v);
    return SIM_OK;
}

/* Metadata and the header. */
static int read_head(trace_reader *r, sim_diag *d)
{
    for (;;) {
        int rc = read_line(r, d);
        if (rc <= 0)
            return rc == 0 ? bad(r, d, "no header line (expected '%s')", TRACE_HEADER) : rc;
        if (r->buf[0] == '#') {
            add_meta(r, r->buf);
            continue;
        }
        if (r->buf[0] == '\0')    /* a blank line before the header */
            continue;
        if (strcmp(r->buf, TRACE_HEADER) != 0)
            return bad(r, d, "wrong header: expected '%s'", TRACE_HEADER);
        break;
    }
    if (meta_time(r, "shutdown_ms", &r->shutdown_ns, d) != SIM_OK ||
        meta_time(r, "observed_until_ms", &r->observed_ns, d) != SIM_OK)
        return SIM_EINPUT;
    return SIM_OK;
}

int trace_check_rereadable(const char *path, const char *why, sim_diag *d)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return SIM_OK;             /* the reader says what is wrong with it */
    const char *what = S_ISFIFO(st.st_mode) ? "a pipe" : S_ISSOCK(st.st_mode) ? "a socket"
                                                                             : "a device";
    return diag_file(d, path, 0, 0, "%s, which can be read only once: %s; save the trace to a "
                     "file first", what, why);
}

int trace_reader_open(const char *path, trace_reader **out, sim_diag *d)
{
    *out = NULL;
    trace_reader *r = xcalloc(1, sizeof *r);
    r->path = xstrdup(path);
    r->shutdown_ns = -1;
    r->observed_ns = -1;
    r->f = fopen(path, "rb");
    if (!r->f) {
        int rc = diag_file(d, path, 0, 0, "cannot open: %s", strerror(errno));
        trace_reader_close(r);
        return rc;
    }
    int rc = read_head(r, d);
    if (rc != SIM_OK) {
        trace_reader_close(r);
        return rc;
    }
    *out = r;
    return SIM_OK;
}

/* Splits buf at commas into exactly 7 fields. */
static int split(trace_reader *r, char *f[7], sim_diag *d)
{
    char *p = r->buf;
    for (int i = 0; i < 7; i++) {
        f[i] = p;
        char *c = strchr(p, ',');
        if (i < 6) {
            if (!c)
                return bad(r, d, "expected 7 fields (%s), found fewer", TRACE_HEADER);
            *c = '\0';
            p = c + 1;
        } else if (c) {
            return bad(r, d, "expected 7 fields (%s), found more", TRACE_HEADER);
        }
    }
    return SIM_OK;
}

static int need(trace_reader *r, const char *field, const char *name, const char *event,
                sim_diag *d)
{
    if (*field)
        return SIM_OK;
    char msg[128];
    snprintf(msg, sizeof msg, "%s: the field '%s' is required", event, name);
    return bad(r, d, "%s", msg);
}

static int check_fields(trace_reader *r, const trace_event *ev, sim_diag *d)
{
    const char *name = event_names[ev->kind];
    bool on_consumer = ev->kind != TEV_PUBLISH;
    bool on_message = ev->kind != TEV_CONSUMER_START && ev->kind != TEV_CONSUMER_STOP;
    if (need(r, ev->queue, "queue", name, d) != SIM_OK)
        return SIM_EINPUT;
    if (on_consumer && (need(r, ev->node, "node", name, d) != SIM_OK ||
                        need(r, ev->consumer, "consumer", name, d) != SIM_OK))
        return SIM_EINPUT;
    if (on_message && need(r, ev->msg, "msg", name, d) != SIM_OK)
        return SIM_EINPUT;
    return SIM_OK;
}

static uint64_t who_of(const trace_event *ev)
{
    return hash_str(ev->consumer, hash_str(ev->node, 0xcbf29ce484222325ULL));
}

/* Publish uniqueness and begin/end pairing. */
static int check_pairing(trace_reader *r, trace_event *ev, sim_diag *d)
{
    uint64_t key = hash_str(ev->msg, 0xcbf29ce484222325ULL);
    if (ev->kind == TEV_PUBLISH) {
        if (!idset_add(&r->published, ev->msg))
            return bad(r, d, "message '%s' is published a second time", ev->msg);
    } else if (ev->kind == TEV_BEGIN) {
        if (hset_find(&r->begun, key))
            return bad(r, d, "message '%s' begins again before it ended", ev->msg);
        hset_put(&r->begun, &(open_begin){ .key = key, .who = who_of(ev), .t_ns = ev->t_ns });
    } else if (ev->kind == TEV_END) {
        open_begin *b = hset_find(&r->begun, key);
        if (!b)
            return bad(r, d, "'end' of message '%s' without its 'begin'", ev->msg);
        if (b->who != who_of(ev))
            return bad(r, d, "'end' of message '%s' on another consumer than its 'begin'",
                       ev->msg);
        ev->begin_ns = b->t_ns;
        hset_del(&r->begun, b);
    } else if (ev->kind == TEV_REQUEUE) {
        /* Taken back from the consumer that began it (a consumer timeout, a
         * closed channel): that begin has no end, and the next begin may
         * come on any consumer. */
        open_begin *b = hset_find(&r->begun, key);
        if (b && b->who == who_of(ev))
            hset_del(&r->begun, b);
    }
    return SIM_OK;
}

int trace_reader_next(trace_reader *r, trace_event *ev, sim_diag *d)
{
    int rc;
    do {
        rc = read_line(r, d);
        if (rc <= 0)
            return rc;
    } while (r->buf[0] == '#' || r->buf[0] == '\0');
    char *f[7];
    if (split(r, f, d) != SIM_OK)
        return SIM_EINPUT;
    memset(ev, 0, sizeof *ev);
    ev->line = r->line;
    const char *why = trace_parse_ms(f[0], &ev->t_ns);
    if (why)
        return bad(r, d, "t_ms %s", why);
    if (ev->t_ns < r->last_t)
        return bad(r, d, "t_ms goes back in time (%s)", f[0]);
    r->last_t = ev->t_ns;
    int kind = -1;
    for (int i = 0; i <= TEV_REQUEUE; i++)
        if (strcmp(f[1], event_names[i]) == 0)
            kind = i;
    if (kind < 0)
        return bad(r, d, "unknown event '%s'", f[1]);
    ev->kind = (trace_event_kind)kind;
    ev->node = f[2];
    ev->consumer = f[3];
    ev->msg = f[4];
    ev->group = f[5];
    ev->queue = f[6];
    if (check_fields(r, ev, d) != SIM_OK || check_pairing(r, ev, d) != SIM_OK)
        return SIM_EINPUT;
    return 1;
}

/* ---- writer ------------------------------------------------------------------ */

struct trace_writer {
    FILE *f;
    outpath out;                   /* a temporary file, or a device written as is */
    char *iobuf;
    char err[SIM_ERROR_SIZE];      /* trace_writer_failed's */
};

trace_writer *trace_writer_open(const char *path, const char *scenario, uint64_t seed,
                                char *err, size_t errsize)
{
    return trace_writer_open_meta(path, scenario, seed, NULL, err, errsize);
}

trace_writer *trace_writer_open_meta(const char *path, const char *scenario, uint64_t seed,
                                     const char *meta, char *err, size_t errsize)
{
    strbuf head = { 0 };
    sb_addf(&head, "# trace_format: 1\n# source: lsim %s simulation\n# scenario: %s\n"
                   "# seed: %llu\n%s", LSIM_VERSION, scenario, (unsigned long long)seed,
            meta ? meta : "");
    trace_writer *w = trace_writer_open_head(path, head.s, err, errsize);
    sb_free(&head);
    return w;
}

trace_writer *trace_writer_open_head(const char *path, const char *head, char *err,
                                     size_t errsize)
{
    trace_writer *w = xcalloc(1, sizeof *w);
    if (outpath_open(&w->out, path, 0, err, errsize) != 0) {
        free(w);
        return NULL;
    }
    w->f = fdopen(w->out.fd, "wb");
    if (!w->f) {
        snprintf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        outpath_discard(&w->out);
        free(w);
        return NULL;
    }
    w->out.fd = -1;                /* the stream owns it now */
    w->iobuf = xmalloc(1 << 20);
    setvbuf(w->f, w->iobuf, _IOFBF, 1 << 20);
    fprintf(w->f, "%s" TRACE_HEADER "\n", head);
    return w;
}

static void put_ms(FILE *f, int64_t t_ns)
{
    int64_t us = t_ns / 1000;
    fprintf(f, "%lld.%03lld,", (long long)(us / 1000), (long long)(us % 1000));
}

void trace_write_message(trace_writer *w, int64_t t_ns, const char *event, int node,
                         int consumer, uint64_t msg, const char *group, const char *queue)
{
    put_ms(w->f, t_ns);
    if (node > 0)
        fprintf(w->f, "%s,node-%d,c%d,m%llu,%s,%s\n", event, node, consumer,
                (unsigned long long)msg, group ? group : "", queue);
    else
        fprintf(w->f, "%s,,,m%llu,%s,%s\n", event, (unsigned long long)msg,
                group ? group : "", queue);
}

void trace_write_consumer(trace_writer *w, int64_t t_ns, const char *event, int node,
                          int consumer, const char *queue)
{
    put_ms(w->f, t_ns);
    fprintf(w->f, "%s,node-%d,c%d,,,%s\n", event, node, consumer, queue);
}

const char *trace_writer_failed(trace_writer *w)
{
    if (!ferror(w->f))
        return NULL;
    errno = 0;
    fflush(w->f);                  /* again, for the reason */
    snprintf(w->err, sizeof w->err, "cannot write %s: %s", w->out.path,
             errno ? strerror(errno) : "write error");
    return w->err;
}

int trace_writer_close(trace_writer *w, bool keep, char *err, size_t errsize)
{
    if (!w)
        return 0;
    int rc = 0;
    errno = 0;
    bool bad_write = fflush(w->f) != 0 || ferror(w->f) != 0;
    int saved = errno;
    if (fclose(w->f) != 0 && !bad_write) {
        bad_write = true;
        saved = errno;
    }
    if (keep && bad_write) {
        snprintf(err, errsize, "cannot write %s: %s", w->out.path,
                 saved ? strerror(saved) : "write error");
        rc = -1;
    }
    if (keep && rc == 0)
        rc = outpath_commit(&w->out, err, errsize);
    else
        outpath_discard(&w->out);
    free(w->iobuf);
    free(w);
    return rc;
}
