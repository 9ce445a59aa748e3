/* spring_docs.h -- one Spring configuration file's text into documents of
 * properties (used by spring_props.c): a .properties file's lines (with
 * `#---` between documents), a .yml file's nodes flattened into dotted
 * names (`a.b[2].c`, with `---` between documents).  Each document keeps the
 * expression of its spring.config.activate.on-profile (or Boot 2's
 * spring.profiles) so that spring_props.c can choose the documents once the
 * active profiles are known. */
#ifndef LSIM_SIM_SPRING_DOCS_H
#define LSIM_SIM_SPRING_DOCS_H

#include "spring_boot/spring_props.h"

typedef struct prop_list {
    spring_prop *v;
    size_t n, cap;
} prop_list;

typedef struct sdoc {
    prop_list props;
    char *on_profile;              /* NULL: every profile */
    bool is_legacy;                /* gated by `spring.profiles:` */
    int line;                      /* where the gate is */
    int start_line, start_col;     /* where the document begins (its `---`, if any) */
    const char *file;
} sdoc;

typedef struct doc_list {
    sdoc *v;
    size_t n, cap;
} doc_list;

int spring_docs_read_properties(const char *file, const char *text, size_t len, doc_list *docs,
                                sim_diag *d);
int spring_docs_read_yaml(const char *file, const char *text, size_t len, doc_list *docs,
                          sim_diag *d);
void spring_docs_free(doc_list *l);
/* Whether a .yml text is a Spring Boot file of several documents, decided
 * from the text (what of it parses): more than one document, and a Spring
 * key (`spring`, `spring.*`) at the top of one of them.  When it is, *line
 * and *col are where its second document begins. */
bool spring_docs_yaml_is_multidoc(const char *file, const char *text, size_t len, int *line,
                                  int *col);
void spring_prop_free(spring_prop *p);

#endif
