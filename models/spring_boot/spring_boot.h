/* spring_boot.h -- what Spring Boot makes of an application's properties:
 * which listener container it builds, and which container setting each
 * property sets, per Boot line (/work specs: spring-boot.md; our notes in
 * docs/spring-boot-notes.md).
 *
 * spring_boot_read() turns files (through models/spring_boot/spring_props.c) into a list
 * of lsim settings, each with its origin, and a list of warnings about the
 * traps the files fall into.  It serves both `container.spring` in a
 * scenario (spring_boot_expand, before the models read the container) and
 * `lsim import`.
 */
#ifndef LSIM_MODELS_SPRING_BOOT_H
#define LSIM_MODELS_SPRING_BOOT_H

#include "engine/sim.h"
#include "base/mem.h"
#include "spring_boot/spring_props.h"

#include <stdio.h>

typedef enum { SPRING_SIMPLE, SPRING_DIRECT, SPRING_JMS } spring_listener;

/* Where a request's own value was written (a scenario line, or an option
 * such as "--boot" with line 0), for errors about it. */
typedef struct spring_pos {
    const char *file;
    int line, col;
} spring_pos;

typedef struct spring_request {
    const char *const *files;      /* paths to open */
    size_t nfiles;
    const char *const *profiles;
    size_t nprofiles;
    spring_pos *profile_pos;       /* one per profile */
    const char *boot;              /* "3.2", "3.2.5"; NULL: SPRING_BOOT_DEFAULT */
    spring_pos boot_pos;
    const char *listener;          /* "simple", "direct", "jms"; NULL: from the files */
    spring_pos listener_pos;
    const char *const *map_from;   /* an application's own property ... */
    const char *const *map_to;     /* ... and the container key it feeds */
    spring_pos *map_pos;
    size_t nmap;
    bool use_env;                  /* read environment variables as Boot does */
} spring_request;

#define SPRING_BOOT_DEFAULT "3.5"

typedef struct spring_setting {
    char *key;                     /* "maxConcurrentConsumers", "retry.maxAttempts",
                                      "broker.queuePrefetch", "kind", "version" */
    char *value;                   /* lsim's text */
    char *origin;                  /* the property, or "Spring Boot 3.2 default" */
    const char *file;              /* NULL: no file; the variable's name when is_env */
    int line, col;
    bool is_env;
} spring_setting;

typedef struct spring_result {
    spring_listener listener;
    bool type_set;                 /* the listener was named, not taken by default */
    bool jms_not_transacted;       /* spring.jms.listener.session.transacted=false */
    int boot;                      /* major * 100 + minor */
    int boot_patch;                /* the release asked for, or the one the facts were read at */
    char boot_text[32];
    const char *container_kind;    /* "smlc", "direct", "dmlc" */
    const char *broker_kind;       /* "rabbitmq", "activemq" */
    spring_setting *v;
    size_t n, cap;
    char **warnings;               /* "file:line: text" */
    size_t nwarnings;
    spring_env env;
} spring_result;

int spring_boot_read(const spring_request *rq, spring_result *out, sim_diag *d);
void spring_result_free(spring_result *r);

/* The settings that no property sets for this listener, with the
 * container's defaults, for `lsim import`: "key: value  # setter" lines. */
void spring_boot_print_unexposed(FILE *f, const spring_result *r);

/* container.spring in a scenario: reads the files and writes the settings
 * into the container (and broker) mapping where the scenario has none.
 * Warnings go to ctx.  Called by run_build before the models read. */
int spring_boot_expand(sim_ctx *ctx, cfg_doc *doc, sim_diag *d);
/* After the models have read: the settings the container did not ask for
 * (retry, before the container models failures) are taken out again, with
 * a note, instead of failing as unknown keys. */
void spring_boot_settle(sim_ctx *ctx, cfg_node *root);

/* What to write in the application for container setting `key` = `value`
 * (a scenario with container.spring): property lines with Boot's names,
 * or a ContainerCustomizer's setter call.  Appends lines to *out. */
void spring_boot_answer(const cfg_node *root, const char *key, const char *value, strbuf *out);

#endif
