/* spring_result.h -- inside models/spring_boot*.c: the settings being
 * gathered for a spring_result, its warnings, errors at a property, and
 * Boot's rules applied once the properties are read (spring_rules.c). */
#ifndef LSIM_MODELS_SPRING_RESULT_H
#define LSIM_MODELS_SPRING_RESULT_H

#include "spring_boot/spring_boot.h"

/* A warning "file:line: text" at property `at` (NULL: no position). */
void spring_warn(spring_result *r, const spring_prop *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error at property p (its file, line and column, or its variable). */
int spring_err_at(const spring_prop *p, sim_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
spring_setting *spring_find(spring_result *r, const char *key);
void spring_drop(spring_result *r, const char *key);
/* Sets key (replacing an earlier value) from property p, or from nothing
 * (p NULL: origin names a Boot default).  Moves the settings: pointers
 * from spring_find do not survive it. */
void spring_put(spring_result *r, const char *key, const char *value, const spring_prop *p,
                const char *origin);
void spring_trim(char *s);

typedef struct jms_counts {
    const spring_prop *conc, *min, *max;
    int64_t conc_v, min_v, max_v;
} jms_counts;

/* The rules of spring_rules.c, in the order spring_boot_read applies them. */
void spring_jms_concurrency(spring_result *r, jms_counts *jc);
void spring_rabbit_checks(spring_result *r, sim_diag *d, int *rc);
void spring_retry_defaults(spring_result *r);
int spring_read_broker(const spring_request *rq, spring_result *r, sim_diag *d);
int spring_read_map(const spring_request *rq, spring_result *r, sim_diag *d);

#endif
