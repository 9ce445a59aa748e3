/* cimba_mmc.c -- the benchmark's M/M/c written with cimba 3 (processes on
 * coroutines): one arrival process puts N customers, each its arrival
 * time, into an object queue; c server processes take them in turn.
 * Usage: cimba_mmc N SEED C LAMBDA MU */
#include <cimba.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct model {
    struct cmb_objectqueue *queue;
    uint64_t n, served;
    double lambda, mu, sum_wait;
    struct customer *free;         /* customers done, for reuse */
} model;

typedef struct customer {
    double arrived;
    struct customer *next;
} customer;

static customer *customer_new(model *m)
{
    customer *c = m->free;
    if (c)
        m->free = c->next;
    else
        c = malloc(sizeof *c);
    return c;
}

static void *arrivals(struct cmb_process *me, void *arg)
{
    (void)me;
    model *m = arg;
    for (uint64_t i = 0; i < m->n; i++) {
        cmb_process_hold(cmb_random_exponential(1.0 / m->lambda));
        customer *c = customer_new(m);
        c->arrived = cmb_time();
        cmb_objectqueue_put(m->queue, c);
    }
    return NULL;
}

static void *server(struct cmb_process *me, void *arg)
{
    (void)me;
    model *m = arg;
    for (;;) {
        void *obj = NULL;
        cmb_objectqueue_get(m->queue, &obj);
        customer *c = obj;
        m->sum_wait += cmb_time() - c->arrived;
        c->next = m->free;
        m->free = c;
        cmb_process_hold(cmb_random_exponential(1.0 / m->mu));
        m->served++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    model m = { .n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000u,
                .lambda = argc > 4 ? atof(argv[4]) : 7.2, .mu = argc > 5 ? atof(argv[5]) : 1.0 };
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1u;
    int c = argc > 3 ? atoi(argv[3]) : 8;
    struct cmb_process **servers = malloc((size_t)c * sizeof *servers);
    cmb_logger_flags_off(CMB_LOGGER_INFO);
    cmb_random_initialize(seed);
    cmb_event_queue_initialize(0.0);
    m.queue = cmb_objectqueue_create();
    cmb_objectqueue_initialize(m.queue, "queue", CMB_UNLIMITED);
    struct cmb_process *arr = cmb_process_create();
    cmb_process_initialize(arr, "arrivals", arrivals, &m, 0);
    cmb_process_start(arr);
    for (int i = 0; i < c; i++) {
        servers[i] = cmb_process_create();
        cmb_process_initialize(servers[i], "server", server, &m, 0);
        cmb_process_start(servers[i]);
    }
    cmb_event_queue_execute();
    printf("cimba M/M/%d: served %llu, mean wait %f\n", c, (unsigned long long)m.served,
           m.sum_wait / (double)m.served);
    for (int i = 0; i < c; i++) {
        cmb_process_stop(servers[i], NULL);
        cmb_process_terminate(servers[i]);
        cmb_process_destroy(servers[i]);
    }
    cmb_process_terminate(arr);
    cmb_process_destroy(arr);
    cmb_objectqueue_terminate(m.queue);
    cmb_objectqueue_destroy(m.queue);
    cmb_event_queue_terminate();
    cmb_random_terminate();
    free(servers);
    while (m.free) {
        customer *c = m.free;
        m.free = c->next;
        free(c);
    }
    return 0;
}
