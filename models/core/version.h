/* version.h -- a product's version, "4.1" or "4.1.1", as one number
 * (maj * 10000 + min * 100 + patch): Spring AMQP's container.version
 * (AMQP_VERSION, spring_amqp/amqp_version.h) and RabbitMQ's broker.version
 * (RMQ_VERSION, rabbitmq/rabbitmq.h) are written, and numbered, the same way.
 */
#ifndef LSIM_MODELS_VERSION_H
#define LSIM_MODELS_VERSION_H

#include <stdbool.h>

#define VERSION_NUMBER(maj, min, patch) ((maj) * 10000 + (min) * 100 + (patch))

/* "4.1" or "4.1.1" (digits and dots, each part below 100, at least two
 * parts) into VERSION_NUMBER(maj, min, patch); false when it is not one. */
bool version_parse(const char *s, int *out);

#endif
