/* registry.c -- the list of kinds.  One line per broker or container. */
#include "world/registry.h"
#include "core/model.h"
#include "workload/workload_export.h"

#include <string.h>

extern const broker_ops broker_pull;
extern const broker_ops broker_rabbitmq;
extern const broker_ops broker_activemq;
extern const container_ops container_competing;
extern const container_ops container_smlc;
extern const container_ops container_direct;
extern const container_ops container_dmlc;
extern const container_ops container_pool;

const broker_ops *const registry_brokers[] = {
    &broker_pull,
    &broker_rabbitmq,
    &broker_activemq,
    NULL,
};

const container_ops *const registry_containers[] = {
    &container_competing,
    &container_smlc,
    &container_direct,
    &container_dmlc,
    &container_pool,
    NULL,
};

void registry_broker_names(const char *out[])
{
    int i = 0;
    for (; registry_brokers[i] && i < REGISTRY_MAX; i++)
        out[i] = registry_brokers[i]->kind;
    out[i] = NULL;
}

void registry_container_names(const char *out[])
{
    int i = 0;
    for (; registry_containers[i] && i < REGISTRY_MAX; i++)
        out[i] = registry_containers[i]->kind;
    out[i] = NULL;
}

int registry_broker_index(const char *kind)
{
    for (int i = 0; registry_brokers[i]; i++)
        if (strcmp(registry_brokers[i]->kind, kind) == 0)
            return i;
    return -1;
}
