/* spring_boot.c -- Spring Boot's listener properties, per Boot line, turned
 * into lsim container settings (see spring_boot.h).  The tables follow
 * specs/spring-boot.md sections 0, 2.2 and 3.1; the traps of its section 4
 * that properties can show are warnings, each naming the file and line.
 */
#include "spring_boot/spring_boot.h"
#include "spring_boot/spring_result.h"
#include "core/java.h"
#include "base/mem.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- Boot lines (spec section 0) ---------------------------------------------------------- */

typedef struct boot_line {
    int version;                   /* major * 100 + minor */
    int patch_read;                /* the tag the facts were read at */
    const char *amqp, *framework;  /* what that tag ships */
} boot_line;

static const boot_line lines[] = {
    { 207, 18, "2.4.17", "5.3.31" }, { 300, 13, "3.0.10", "6.0.14" },
    { 301, 12, "3.0.14", "6.0.21" }, { 302, 12, "3.1.8", "6.1.15" },
    { 303, 13, "3.1.12", "6.1.21" }, { 304, 13, "3.2.8", "6.2.15" },
    { 305, 16, "3.2.12", "6.2.19" }, { 400, 8, "4.0.5", "7.0.9" },
};
#define NLINES (sizeof lines / sizeof lines[0])

static const boot_line *find_line(int v)
{
    for (size_t i = 0; i < NLINES; i++)
        if (lines[i].version == v)
            return &lines[i];
    return NULL;
}

/* ---- the properties (spec sections 2.2, 3.1) ---------------------------------------------- */

enum { L_S = 1, L_D = 2, L_J = 4 };
typedef enum { T_INT, T_BOOL, T_DURATION, T_DOUBLE, T_ACK, T_JMS_COUNT } ptype;

typedef struct boot_prop {
    const char *suffix;            /* after the listener's prefix */
    unsigned listeners;
    int since, until;              /* Boot lines, inclusive; 0: open */
    const char *key;               /* lsim's key; NULL: not modelled */
    ptype type;
    const char *note;              /* why it is missing, when it is */
} boot_prop;

static const boot_prop props[] = {
    { "concurrency", L_S, 0, 0, "concurrentConsumers", T_INT, NULL },
    { "max-concurrency", L_S, 0, 0, "maxConcurrentConsumers", T_INT, NULL },
    { "prefetch", L_S | L_D, 0, 0, "prefetchCount", T_INT, NULL },
    { "batch-size", L_S, 0, 0, "batchSize", T_INT, NULL },
    { "transaction-size", L_S, 0, 202, "batchSize", T_INT, "removed in Boot 2.3 (use batch-size)" },
    { "default-requeue-rejected", L_S, 0, 0, "defaultRequeueRejected", T_BOOL, NULL },
    { "default-requeue-rejected", L_D, 0, 0, NULL, T_BOOL, NULL },
    { "consumers-per-queue", L_D, 0, 0, "consumersPerQueue", T_INT, NULL },
    { "acknowledge-mode", L_S | L_D, 0, 0, NULL, T_ACK, NULL },
    { "auto-startup", L_S | L_D, 0, 0, NULL, T_BOOL, NULL },
    { "idle-event-interval", L_S | L_D, 0, 0, NULL, T_DURATION, NULL },
    { "missing-queues-fatal", L_S | L_D, 0, 0, NULL, T_BOOL, NULL },
    { "de-batching-enabled", L_S | L_D, 0, 0, NULL, T_BOOL, NULL },
    { "consumer-batch-enabled", L_S, 0, 0, NULL, T_BOOL, NULL },
    { "force-stop", L_S | L_D, 302, 0, NULL, T_BOOL, "came in Boot 3.2" },
    { "observation-enabled", L_S | L_D, 303, 0, NULL, T_BOOL, "came in Boot 3.3" },
    { "retry.enabled", L_S | L_D, 0, 0, "retry.enabled", T_BOOL, NULL },
    { "retry.max-attempts", L_S | L_D, 0, 305, "retry.maxAttempts", T_INT,
      "removed in Boot 4.0: retry.max-retries counts the retries after the first try, so "
      "max-retries=N-1 gives N attempts" },
    { "retry.max-retries", L_S | L_D, 400, 0, "retry.maxRetries", T_INT, "came in Boot 4.0" },
    { "retry.initial-interval", L_S | L_D, 0, 0, "retry.initialInterval", T_DURATION, NULL },
    { "retry.multiplier", L_S | L_D, 0, 0, "retry.multiplier", T_DOUBLE, NULL },
    { "retry.max-interval", L_S | L_D, 0, 0, "retry.maxInterval", T_DURATION, NULL },
    { "retry.stateless", L_S | L_D, 0, 0, "retry.stateless", T_BOOL, NULL },
    { "concurrency", L_J, 0, 305, NULL, T_JMS_COUNT,
      "removed in Boot 4.0 (use min-concurrency)" },
    { "min-concurrency", L_J, 302, 0, NULL, T_JMS_COUNT, "came in Boot 3.2 (use concurrency)" },
    { "max-concurrency", L_J, 0, 0, NULL, T_JMS_COUNT, NULL },
    { "receive-timeout", L_J, 0, 0, "receiveTimeout", T_DURATION, NULL },
    { "max-messages-per-task", L_J, 304, 0, "maxMessagesPerTask", T_INT, "came in Boot 3.4" },
    { "acknowledge-mode", L_J, 0, 305, NULL, T_ACK,
      "removed in Boot 4.0 (use session.acknowledge-mode)" },
    { "session.acknowledge-mode", L_J, 302, 0, NULL, T_ACK,
      "came in Boot 3.2 (use acknowledge-mode)" },
    { "session.transacted", L_J, 302, 0, NULL, T_BOOL, "came in Boot 3.2" },
    { "auto-startup", L_J, 0, 0, NULL, T_BOOL, NULL },
};
#define NPROPS (sizeof props / sizeof props[0])

static const char *const prefixes[] = { "spring.rabbitmq.listener.simple.",
                                        "spring.rabbitmq.listener.direct.",
                                        "spring.jms.listener." };
static const char *const listener_names[] = { "simple", "direct", "jms", NULL };

static unsigned bit(spring_listener l) { return 1u << l; }

static bool in_line(const boot_prop *p, int boot)
{
    return (!p->since || boot >= p->since) && (!p->until || boot <= p->until);
}

static void full_name(spring_listener l, const char *suffix, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", prefixes[l], suffix);
}

/* ---- values --------------------------------------------------------------------------------- */

/* Boot's enum binding: case and non-alphanumerics do not count. */
static void canonical_enum(const char *s, char *buf, size_t size)
{
    size_t o = 0;
    for (; *s && o + 1 < size; s++)
        if (isalnum((unsigned char)*s))
            buf[o++] = (char)tolower((unsigned char)*s);
    buf[o] = '\0';
}

/* The value of p as lsim text for its type; *num gets numbers. */
static int convert(const spring_result *r, const spring_prop *p, ptype type, bool use_env,
                   char *buf, size_t size, double *num, sim_diag *d)
{
    char *v;
    if (spring_env_resolve(&r->env, p, use_env, &v, d) != SIM_OK)
        return SIM_EINPUT;
    spring_trim(v);
    int rc = SIM_OK;
    int64_t n = 0;
    *num = 0;
    switch (type) {
    case T_INT:
    case T_JMS_COUNT:
        if (!java_parse_int(v, strlen(v), &n)) {
            rc = spring_err_at(p, d,
                               "%s: '%s' is not a whole number (Spring Boot would fail to start)",
                               p->name, v);
            n = 0;
        }
        snprintf(buf, size, "%lld", (long long)n);
        *num = (double)n;
        break;
    case T_BOOL:
        if (strcasecmp(v, "true") != 0 && strcasecmp(v, "false") != 0)
            rc = spring_err_at(p, d, "%s: '%s' is not true or false", p->name, v);
        snprintf(buf, size, "%s", strcasecmp(v, "true") == 0 ? "true" : "false");
        break;
    case T_DOUBLE: {
        char *end;
        *num = strtod(v, &end);
        if (!*v || *end || !isfinite(*num))
            rc = spring_err_at(p, d, "%s: '%s' is not a number", p->name, v);
        snprintf(buf, size, "%s", v);
        break;
    }
    case T_DURATION: {
        int64_t ns;
        bool bare;
        const char *why = spring_parse_duration(v, &ns, &bare);
        if (why) {
            rc = spring_err_at(p, d, "%s: '%s' %s", p->name, v, why);
            break;
        }
        format_duration(ns, buf, size);
        *num = (double)ns;
        if (bare && ns < 100 * 1000000LL && ns > 0)
            spring_warn((spring_result *)r, p,
                        "%s=%s is %s: a bare number is milliseconds in Spring "
                        "Boot (write %ss if seconds were meant)",
                        p->name, v, buf, v);
        break;
    }
    case T_ACK:
        canonical_enum(v, buf, size);
        break;
    }
    free(v);
    return rc;
}

/* ---- which properties exist ----------------------------------------------------------------- */

static bool names_match(const char *relaxed, spring_listener l, const char *suffix)
{
    char full[160];
    full_name(l, suffix, full, sizeof full);
    char *r = spring_relaxed(full);
    bool same = strcmp(r, relaxed) == 0;
    free(r);
    return same;
}

/* An unknown property under a prefix lsim knows whole is an error (Boot
 * would ignore it silently), with the nearest name. */
static int check_known(spring_result *r, sim_diag *d)
{
    for (size_t i = 0; i < r->env.n; i++) {
        const spring_prop *p = &r->env.v[i];
        for (int l = 0; l < 3; l++) {
            char *pre = spring_relaxed(prefixes[l]);
            bool under = strncmp(p->relaxed, pre, strlen(pre)) == 0;
            free(pre);
            if (!under)
                continue;
            const char *best = NULL;
            size_t bestd = 99;
            bool known = false;
            for (size_t k = 0; k < NPROPS && !known; k++) {
                if (!(props[k].listeners & bit((spring_listener)l)))
                    continue;
                known = names_match(p->relaxed, (spring_listener)l, props[k].suffix);
                char full[160];
                full_name((spring_listener)l, props[k].suffix, full, sizeof full);
                char *rf = spring_relaxed(full);
                size_t dist = cfg_edit_distance(p->relaxed, rf);
                free(rf);
                if (dist < bestd) {
                    bestd = dist;
                    best = props[k].suffix;
                }
            }
            if (known)
                break;
            if (bestd <= 3)
                return spring_err_at(p, d,
                                     "%s is not a Spring Boot property (Boot would ignore it "
                                     "silently); did you mean %s%s?",
                                     p->name, prefixes[l], best);
            return spring_err_at(p, d,
                                 "%s is not a Spring Boot property (Boot would ignore it "
                                 "silently)",
                                 p->name);
        }
    }
    return SIM_OK;
}

/* spring.rabbitmq.listener.<key> with no simple./direct.: Boot 1.x names. */
static void warn_old_names(spring_result *r)
{
    static const char *const kept[] = { "type", "simple", "direct", "stream", NULL };
    for (size_t i = 0; i < r->env.n; i++) {
        const spring_prop *p = &r->env.v[i];
        const char *pre = "spring.rabbitmq.listener.";
        if (strncmp(p->relaxed, pre, strlen(pre)) != 0)
            continue;
        const char *rest = p->relaxed + strlen(pre);
        bool ok = false;
        for (int k = 0; kept[k] && !ok; k++)
            ok = strncmp(rest, kept[k], strlen(kept[k])) == 0 &&
                 (rest[strlen(kept[k])] == '.' || !rest[strlen(kept[k])]);
        if (ok && strncmp(rest, "stream.", 7) == 0)
            spring_warn(r, p,
                        "%s applies only to spring.rabbitmq.listener.type=stream (and "
                        "stream.auto-startup was never applied before Boot 3.1.8); it does nothing "
                        "for a %s listener",
                        p->name, r->listener == SPRING_DIRECT ? "direct" : "simple");
        if (!ok)
            spring_warn(r, p,
                        "%s is a Spring Boot 1.x name: since Boot 2.0 it is "
                        "spring.rabbitmq.listener.simple.%s (or .direct.), and this one is ignored",
                        p->name, p->name + strlen(pre));
    }
}

/* ---- the listener type ---------------------------------------------------------------------- */

static int choose_listener(const spring_request *rq, spring_result *r, bool use_env, sim_diag *d)
{
    if (use_env)
        spring_env_add_environment(&r->env, "spring.rabbitmq.listener.type");
    const spring_prop *type = spring_env_find(&r->env, "spring.rabbitmq.listener.type");
    if (rq->listener) {
        for (int i = 0; listener_names[i]; i++)
            if (strcmp(rq->listener, listener_names[i]) == 0) {
                r->listener = (spring_listener)i;
                r->type_set = true;
                return SIM_OK;
            }
        return diag_file(d, rq->listener_pos.file, rq->listener_pos.line, rq->listener_pos.col,
                         "listener: '%s' is not one of: simple, direct, jms", rq->listener);
    }
    if (type) {
        char buf[64];
        double num;
        if (convert(r, type, T_ACK, use_env, buf, sizeof buf, &num, d) != SIM_OK)
            return SIM_EINPUT;
        if (strcmp(buf, "stream") == 0)
            return spring_err_at(type, d,
                                 "spring.rabbitmq.listener.type: lsim does not model the "
                                 "stream listener (simple or direct)");
        if (strcmp(buf, "simple") && strcmp(buf, "direct"))
            return spring_err_at(type, d,
                                 "spring.rabbitmq.listener.type: '%s' is not simple, direct "
                                 "or stream",
                                 type->value);
        if (strcasecmp(type->value, buf) != 0)
            return spring_err_at(type, d,
                                 "spring.rabbitmq.listener.type: '%s' binds as %s, but Boot "
                                 "picks the factory by the text itself (ignoring only case), so no "
                                 "listener container factory is built: write %s",
                                 type->value, buf, buf);
        r->listener = buf[0] == 's' ? SPRING_SIMPLE : SPRING_DIRECT;
        r->type_set = true;
        return SIM_OK;
    }
    bool jms = false, rabbit = false;
    for (size_t i = 0; i < r->env.n; i++) {
        jms = jms || strncmp(r->env.v[i].relaxed, "spring.jms.", 11) == 0 ||
              strncmp(r->env.v[i].relaxed, "spring.activemq.", 16) == 0;
        rabbit = rabbit || strncmp(r->env.v[i].relaxed, "spring.rabbitmq.", 16) == 0;
    }
    r->listener = jms && !rabbit ? SPRING_JMS : SPRING_SIMPLE;
    return SIM_OK;
}

/* ---- reading -------------------------------------------------------------------------------- */

static int read_boot(const spring_request *rq, spring_result *r, sim_diag *d)
{
    const char *text = rq->boot ? rq->boot : SPRING_BOOT_DEFAULT;
    int major = 0, minor = 0, patch = -1;
    char tail = 0;
    int got = sscanf(text, "%d.%d.%d%c", &major, &minor, &patch, &tail);
    char again[64];                /* "3.2.x" reads as 3.2: the text must be the numbers */
    if (got == 2)
        snprintf(again, sizeof again, "%d.%d", major, minor);
    else
        snprintf(again, sizeof again, "%d.%d.%d", major, minor, patch);
    const boot_line *bl = got >= 2 && got <= 3 && major < 100 && minor < 100 &&
                                  strcmp(again, text) == 0
                              ? find_line(major * 100 + minor) : NULL;
    if (!bl || (got == 3 && patch < 0)) {
        strbuf sb = { 0 };
        for (size_t i = 0; i < NLINES; i++)
            sb_addf(&sb, "%s%d.%d", i ? ", " : "", lines[i].version / 100,
                    lines[i].version % 100);
        diag_file(d, rq->boot_pos.file, rq->boot_pos.line, rq->boot_pos.col,
                  "boot: '%s' is not a Spring Boot line lsim knows (%s, or one of their "
                  "releases like \"3.2.5\")", text, sb.s);
        sb_free(&sb);
        return SIM_EINPUT;
    }
    r->boot = bl->version;
    r->boot_patch = patch >= 0 ? patch : bl->patch_read;
    snprintf(r->boot_text, sizeof r->boot_text, "%d.%d", major, minor);
    char at[300] = "";
    if (rq->boot_pos.line > 0)
        snprintf(at, sizeof at, "%s:%d: ", rq->boot_pos.file, rq->boot_pos.line);
    if (patch >= 0 && patch != bl->patch_read)
        spring_warn(
            r, NULL,
            "%sSpring Boot %s: lsim runs Spring AMQP %s and Spring Framework %s, what "
            "Boot %d.%d.%d ships (the containers' defaults are the same across the line's patches)",
            at, text, bl->amqp, bl->framework, major, minor, bl->patch_read);
    return SIM_OK;
}

/* The winning property for a row of the table, reading the environment
 * first when asked. */
static const spring_prop *lookup(spring_result *r, spring_listener l, const char *suffix,
                                 bool use_env)
{
    char full[160];
    full_name(l, suffix, full, sizeof full);
    if (use_env)
        spring_env_add_environment(&r->env, full);
    const spring_prop *p = spring_env_find(&r->env, full);
    if (p && p->is_env) {
        const spring_prop *under = spring_env_overridden(&r->env, p);
        if (under && !under->is_env)
            spring_warn(r, NULL,
                        "environment variable %s=%s overrides %s=%s at %s:%d: environment "
                        "variables win over every file",
                        p->file, p->value, under->name, under->value, under->file, under->line);
    }
    return p;
}

static int read_jms(spring_result *r, const spring_prop *p, const boot_prop *row, double v,
                    jms_counts *jc)
{
    if (strcmp(row->suffix, "concurrency") == 0) {
        jc->conc = p;
        jc->conc_v = (int64_t)v;
    } else if (strcmp(row->suffix, "min-concurrency") == 0) {
        jc->min = p;
        jc->min_v = (int64_t)v;
    } else {
        jc->max = p;
        jc->max_v = (int64_t)v;
    }
    (void)r;
    return SIM_OK;
}

/* AcknowledgeMode: Rabbit none, manual, auto; JMS auto, client, dupsok or a
 * number (Boot's jms/AcknowledgeMode#of). */
static int check_ack(const spring_prop *p, const char *canon, bool jms, sim_diag *d)
{
    static const char *const rabbit[] = { "none", "manual", "auto", NULL };
    static const char *const jmsv[] = { "auto", "client", "dupsok", NULL };
    const char *const *names = jms ? jmsv : rabbit;
    for (int i = 0; names[i]; i++)
        if (strcmp(canon, names[i]) == 0)
            return SIM_OK;
    int64_t n;
    if (jms && java_parse_int(canon, strlen(canon), &n))
        return SIM_OK;
    return spring_err_at(p, d, "%s: '%s' is not %s (Spring Boot would fail to start)", p->name,
                         p->value,
                         jms ? "auto, client, dups_ok or a number" : "none, manual or auto");
}

static int read_props(const spring_request *rq, spring_result *r, jms_counts *jc, sim_diag *d)
{
    const spring_prop *ack = NULL, *transacted = NULL;
    char ackv[128] = "";
    for (size_t k = 0; k < NPROPS; k++) {
        const boot_prop *row = &props[k];
        for (int l = 0; l < 3; l++) {
            if (!(row->listeners & bit((spring_listener)l)))
                continue;
            const spring_prop *p = lookup(r, (spring_listener)l, row->suffix, rq->use_env);
            if (!p)
                continue;
            bool other_rabbit = (spring_listener)l != r->listener && l != SPRING_JMS &&
                                r->listener != SPRING_JMS;
            if (other_rabbit) {
                spring_warn(r, p,
                            "%s does not apply: the listener type is %s, and Boot reads only "
                            "%s*",
                            p->name, listener_names[r->listener], prefixes[r->listener]);
                continue;
            }
            if ((spring_listener)l != r->listener)
                continue;
            if (!in_line(row, r->boot)) {
                spring_warn(r, p, "%s is not a property of Spring Boot %s: %s; Boot ignores it",
                            p->name, r->boot_text, row->note ? row->note : "not in this line");
                continue;
            }
            char buf[128];
            double v;
            if (convert(r, p, row->type, rq->use_env, buf, sizeof buf, &v, d) != SIM_OK)
                return SIM_EINPUT;
            if (row->type == T_JMS_COUNT) {
                read_jms(r, p, row, v, jc);
            } else if (row->type == T_ACK) {
                ack = p;
                snprintf(ackv, sizeof ackv, "%s", buf);
                if (check_ack(p, buf, r->listener == SPRING_JMS, d) != SIM_OK)
                    return SIM_EINPUT;
            } else if (strcmp(row->suffix, "session.transacted") == 0) {
                transacted = p;
                r->jms_not_transacted = strcmp(buf, "false") == 0;
            } else if (row->key) {
                char *origin = spring_env_origin(&r->env, p, rq->use_env);
                spring_put(r, row->key, buf, p, origin);
                free(origin);
            }
        }
    }
    if (ack && r->listener != SPRING_JMS && strcmp(ackv, "manual") == 0)
        spring_warn(r, ack,
                    "%s=manual: the listener's own code acknowledges; lsim acknowledges as "
                    "acknowledge-mode auto does, after the listener returns",
                    ack->name);
    if (ack && r->listener != SPRING_JMS && strcmp(ackv, "none") == 0)
        spring_warn(r, ack,
                    "%s=none: no basicQos is sent, so the broker pushes without a limit; lsim "
                    "models acknowledge-mode auto",
                    ack->name);
    if (ack && r->listener == SPRING_JMS && !transacted && strcmp(ackv, "auto") != 0)
        spring_warn(r, ack,
                    "%s=%s: Boot makes the sessions transacted (session.transacted is not "
                    "set), so the acknowledge mode is ignored",
                    ack->name, ack->value);
    return SIM_OK;
}

/* ---- the whole ------------------------------------------------------------------------------ */

static void put_kind_and_versions(spring_result *r)
{
    static const char *const kinds[] = { "smlc", "direct", "dmlc" };
    const boot_line *bl = find_line(r->boot);
    char origin[120];
    r->container_kind = kinds[r->listener];
    r->broker_kind = r->listener == SPRING_JMS ? "activemq" : "rabbitmq";
    snprintf(origin, sizeof origin, "%s listener (spring.rabbitmq.listener.type%s)",
             listener_names[r->listener], r->type_set ? "" : " not set");
    if (r->listener == SPRING_JMS)
        snprintf(origin, sizeof origin, "spring.jms.* (Spring JMS)");
    spring_put(r, "kind", r->container_kind, NULL, origin);
    snprintf(origin, sizeof origin, "Spring Boot %s ships Spring %s %s", r->boot_text,
             r->listener == SPRING_JMS ? "Framework" : "AMQP",
             r->listener == SPRING_JMS ? bl->framework : bl->amqp);
    spring_put(r, "version", r->listener == SPRING_JMS ? bl->framework : bl->amqp, NULL, origin);
    spring_put(r, "broker.kind", r->broker_kind, NULL,
               r->listener == SPRING_JMS ? "Spring JMS on ActiveMQ (spring.activemq.*)"
                                         : "Spring AMQP on RabbitMQ");
}

int spring_boot_read(const spring_request *rq, spring_result *r, sim_diag *d)
{
    memset(r, 0, sizeof *r);
    if (read_boot(rq, r, d) != SIM_OK)
        return SIM_EINPUT;
    if (rq->use_env)
        r->env.env_active = getenv("SPRING_PROFILES_ACTIVE");
    r->env.env_lower = r->boot >= 400 || (r->boot == 305 && r->boot_patch >= 1);
    if (spring_env_load(&r->env, rq->files, rq->nfiles, rq->profiles, rq->nprofiles, d) != SIM_OK)
        return SIM_EINPUT;
    if (r->env.bad_gate)
        return diag_file(d, r->env.bad_gate_file, r->env.bad_gate_line, 1,
                         "on-profile '%s' is not a profile expression Spring reads (names, !, "
                         "& and |, with parentheses around & and | mixed): Spring Boot stops at "
                         "startup", r->env.bad_gate);
    if (r->env.has_specific_profiles)  /* every Boot line lsim knows is 2.4 or later */
        return spring_err_at(&r->env.v[r->env.specific_profiles], d,
                             "%s in a profile-specific file or document stops Spring Boot at "
                             "startup (InvalidConfigDataPropertyException): set it in "
                             "application.properties or application.yml, outside any "
                             "on-profile document", r->env.v[r->env.specific_profiles].name);
    if (rq->use_env && rq->nprofiles == 0 && r->env.env_active)
        spring_warn(r, NULL, "SPRING_PROFILES_ACTIVE=%s: the environment's profiles, which beat "
                    "spring.profiles.active in the files", r->env.env_active);
    for (size_t i = 0; i < rq->nprofiles; i++)
        if (!spring_env_profile_seen(&r->env, rq->profiles[i]))
            return diag_file(d, rq->profile_pos[i].file, rq->profile_pos[i].line,
                             rq->profile_pos[i].col, "profile '%s': no document says "
                             "spring.config.activate.on-profile: %s and there is no "
                             "application-%s.* beside the files", rq->profiles[i],
                             rq->profiles[i], rq->profiles[i]);
    if (r->env.legacy_profiles) {
        if (r->boot >= 300)
            return diag_file(d, r->env.legacy_file, r->env.legacy_line, 1, "spring.profiles in "
                             "a document stops Spring Boot %s at startup (it is Boot 2's "
                             "name): write spring.config.activate.on-profile", r->boot_text);
        spring_prop at = { .name = "spring.profiles", .file = r->env.legacy_file,
                           .line = r->env.legacy_line };
        spring_warn(r, &at,
                    "spring.profiles is deprecated in Boot 2.7 (it still selects the "
                    "document; Boot 3 refuses it): write spring.config.activate.on-profile");
    }
    jms_counts jc = { 0 };
    int rc = SIM_OK;
    if (check_known(r, d) != SIM_OK || choose_listener(rq, r, rq->use_env, d) != SIM_OK)
        return SIM_EINPUT;
    warn_old_names(r);
    put_kind_and_versions(r);
    if (read_props(rq, r, &jc, d) != SIM_OK || spring_read_broker(rq, r, d) != SIM_OK)
        return SIM_EINPUT;
    if (r->listener == SPRING_JMS) {
        spring_jms_concurrency(r, &jc);
        spring_setting *c = spring_find(r, "concurrency");
        int64_t lo, hi;
        int got = c ? sscanf(c->value, "%lld-%lld", (long long *)&lo, (long long *)&hi) : 0;
        if (got == 1) {                /* "N": setConcurrency reads 1-N */
            hi = lo;
            lo = 1;
        }
        if (c && !spring_find(r, "broker.queuePrefetch") && got >= 1 && hi > lo)
            spring_warn(
                r, NULL,
                "%s:%d: %s: ActiveMQ's default prefetch is 1000, so the first "
                "consumer may take up to 1000 messages while the ones added later starve (set "
                "jms.prefetchPolicy.queuePrefetch=1 in spring.activemq.broker-url)",
                c->file ? c->file : "", c->line, c->origin);
    } else {
        spring_rabbit_checks(r, d, &rc);
        if (rc != SIM_OK)
            return rc;
        spring_retry_defaults(r);
    }
    return spring_read_map(rq, r, d);
}
