/* spring_props.h -- a Spring application's configuration files read the way
 * Spring Boot reads them: application.properties and (multi-document)
 * application.yml, documents gated by spring.config.activate.on-profile,
 * profile-specific siblings (application-{profile}.*), relaxed names,
 * environment variables and ${NAME:default} placeholders.
 *
 * The result is a flat list of properties in the order Boot applies them;
 * a later one overrides an earlier one of the same relaxed name.  Every
 * property keeps its file, line and column (or the environment variable it
 * came from).  What the properties mean is models/spring_boot/spring_boot.c's business.
 */
#ifndef LSIM_SIM_SPRING_PROPS_H
#define LSIM_SIM_SPRING_PROPS_H

#include "input/config.h"

typedef struct spring_prop {
    char *name;                    /* as written: "spring.rabbitmq.listener.simple.max-concurrency" */
    char *relaxed;                 /* lower case, '-' and '_' dropped: "...simple.maxconcurrency" */
    char *value;
    const char *file;              /* owned by the spring_env; the variable's name for env */
    int line, col;                 /* 0 for an environment variable */
    bool is_env;
} spring_prop;

typedef struct spring_env {
    spring_prop *v;
    size_t n, cap;
    char **files;                  /* names the properties point to */
    size_t nfiles;
    char **profiles_seen;          /* profiles some document or file names */
    size_t nseen;
    bool legacy_profiles;          /* a document used `spring.profiles:` (Boot 2.x style) */
    bool has_specific_profiles;    /* v[specific_profiles] is spring.profiles.active, */
    size_t specific_profiles;      /* .include or .default in a profile-specific document */
    char *bad_gate;                /* the first malformed on-profile expression, */
    const char *bad_gate_file;     /* and where its document's gate is */
    int bad_gate_line;
    bool env_lower;                /* set before loading: lower-case variables count too */
    const char *env_active;        /* set before loading: SPRING_PROFILES_ACTIVE, which */
                                   /* beats spring.profiles.active in the files */
    const char *legacy_file;
    int legacy_line;
} spring_env;

/* Reads `files` (paths as given) with `profiles` active, in Boot's order:
 * every file's documents that apply, then for each profile in turn each
 * file's application-{profile}.* sibling.  Errors at file:line:column. */
int spring_env_load(spring_env *e, const char *const *files, size_t nfiles,
                    const char *const *profiles, size_t nprofiles, sim_diag *d);
/* Reads one file's text (a .yml/.yaml name: YAML, else .properties) with
 * `profiles` active, as the last file so far (for tests and fuzzing). */
int spring_env_read_text(spring_env *e, const char *name, const char *text, size_t len,
                         const char *const *profiles, size_t nprofiles, sim_diag *d);
/* Adds the environment's value for `name` (Boot's two upper-case forms,
 * SPRING_X_MAXCONCURRENCY and SPRING_X_MAX_CONCURRENCY), if any. */
void spring_env_add_environment(spring_env *e, const char *name);
void spring_env_free(spring_env *e);

/* "maxConcurrency", "max_concurrency", "max-concurrency" -> "maxconcurrency"
 * (in spring_docs.c, whose readers give each property its relaxed name). */
char *spring_relaxed(const char *name);
/* The property that wins for `name` (any relaxed form), or NULL. */
const spring_prop *spring_env_find(const spring_env *e, const char *name);
/* The one it overrides, or NULL. */
const spring_prop *spring_env_overridden(const spring_env *e, const spring_prop *p);
/* p's value with ${NAME} / ${NAME:default} resolved (recursively) against
 * the other properties, then the environment when `use_env`.  An
 * unresolvable placeholder is an error at p.  *out is malloc'd. */
int spring_env_resolve(const spring_env *e, const spring_prop *p, bool use_env, char **out,
                       sim_diag *d);
/* Where p's value came from, for an origin comment: its name, and when
 * its value is one placeholder what filled it: "NAME, ${CONC} = environment
 * variable CONC", "NAME, ${CONC:3} = the default 3, no CONC in the
 * environment", "NAME, ${other} = property other".  Malloc'd. */
char *spring_env_origin(const spring_env *e, const spring_prop *p, bool use_env);
/* Whether profile was named by a document's on-profile or a sibling file. */
bool spring_env_profile_seen(const spring_env *e, const char *profile);

/* Boot's duration text ("500", "2s", "PT1M", "1d") as nanoseconds; NULL or
 * why not.  *was_bare says the text had no unit (milliseconds). */
const char *spring_parse_duration(const char *text, int64_t *ns, bool *was_bare);

#endif
