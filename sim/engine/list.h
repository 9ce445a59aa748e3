/* list.h -- intrusive doubly linked lists: the links are fields of the items
 * themselves, the list is a pair of pointers to its two ends, and appending
 * or unlinking an item is O(1) with no allocation.
 *
 * SIM_LIST_DEFINE(name, type, next, prev) writes two static inline
 * functions for lists of `type` linked through its fields `next` and `prev`:
 *   name_push_back(&head, &tail, x)  appends x (x->next = NULL);
 *   name_unlink(&head, &tail, x)     takes x out wherever it stands and
 *                                    clears its links.
 * msg_list_* is the instance for messages (sim_msg's next/prev), which the
 * brokers keep in lists of their own; a model that links its own items
 * defines its instance beside the type.  Counts, if a list keeps one, stay
 * with the caller.
 */
#ifndef LSIM_LIST_H
#define LSIM_LIST_H

#include "engine/sim.h"

#include <stddef.h>

#define SIM_LIST_DEFINE(name, type, next, prev)                               \
    static inline void name##_push_back(type **head, type **tail, type *x)   \
    {                                                                         \
        x->next = NULL;                                                       \
        x->prev = *tail;                                                      \
        if (*tail)                                                            \
            (*tail)->next = x;                                                \
        else                                                                  \
            *head = x;                                                        \
        *tail = x;                                                            \
    }                                                                         \
                                                                              \
    static inline void name##_unlink(type **head, type **tail, type *x)      \
    {                                                                         \
        if (x->prev)                                                          \
            x->prev->next = x->next;                                          \
        else                                                                  \
            *head = x->next;                                                  \
        if (x->next)                                                          \
            x->next->prev = x->prev;                                          \
        else                                                                  \
            *tail = x->prev;                                                  \
        x->next = x->prev = NULL;                                             \
    }

SIM_LIST_DEFINE(msg_list, sim_msg, next, prev)

#endif
