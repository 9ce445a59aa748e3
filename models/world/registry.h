/* registry.h -- every broker and container kind lsim knows, and the root
 * model.  Adding a kind is one file in models/ and one line in registry.c.
 */
#ifndef LSIM_MODELS_REGISTRY_H
#define LSIM_MODELS_REGISTRY_H

#include "engine/sim.h"

struct broker_ops;
struct container_ops;

extern const struct broker_ops *const registry_brokers[];
extern const struct container_ops *const registry_containers[];

const sim_model_ops *registry_root(void);
#define REGISTRY_MAX 16

/* Fills `out` (REGISTRY_MAX + 1 entries) with the kind names, in registry
 * order, ending with NULL: the choices an enum read offers. */
void registry_broker_names(const char *out[]);
void registry_container_names(const char *out[]);
/* The index of a kind, or -1. */
int registry_broker_index(const char *kind);

#endif
