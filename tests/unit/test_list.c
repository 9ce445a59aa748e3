/* test_list.c -- the intrusive lists of sim/engine/list.h: appending keeps the
 * order, unlinking takes an item out from the front, the middle, the back or
 * a list of one and leaves both directions consistent, both for messages
 * (msg_list) and for an item type linked through fields of other names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "engine/list.h"

typedef struct item item;
struct item {
    int v;
    item *up, *down;               /* links under names that are not next/prev */
};
SIM_LIST_DEFINE(item_list, item, down, up)

/* The values from head to tail, checked against the walk from tail to head
 * and the ends' outward links; returns how many. */
static int walk(sim_msg *head, sim_msg *tail, uint64_t *ids)
{
    int n = 0;
    if (head)
        assert_null(head->prev);
    if (tail)
        assert_null(tail->next);
    for (sim_msg *m = head; m; m = m->next) {
        if (m->next)
            assert_ptr_equal(m->next->prev, m);
        else
            assert_ptr_equal(m, tail);
        ids[n++] = m->id;
    }
    int back = 0;
    for (sim_msg *m = tail; m; m = m->prev)
        assert_int_equal(m->id, ids[n - 1 - back++]);
    assert_int_equal(back, n);
    return n;
}

static void messages_append_in_order_and_unlink_anywhere(void **state)
{
    (void)state;
    sim_msg m[5] = { 0 };
    sim_msg *head = NULL, *tail = NULL;
    uint64_t ids[5];
    for (int i = 0; i < 5; i++) {
        m[i].id = (uint64_t)i + 1;
        m[i].next = &m[(i + 1) % 5];   /* stale links, which push_back must overwrite */
        msg_list_push_back(&head, &tail, &m[i]);
    }
    assert_int_equal(walk(head, tail, ids), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(ids[i], i + 1);

    msg_list_unlink(&head, &tail, &m[2]);         /* the middle */
    assert_null(m[2].next);
    assert_null(m[2].prev);
    assert_int_equal(walk(head, tail, ids), 4);
    assert_int_equal(ids[1], 2);
    assert_int_equal(ids[2], 4);

    msg_list_unlink(&head, &tail, &m[0]);         /* the head */
    assert_ptr_equal(head, &m[1]);
    msg_list_unlink(&head, &tail, &m[4]);         /* the tail */
    assert_ptr_equal(tail, &m[3]);
    assert_int_equal(walk(head, tail, ids), 2);
    assert_int_equal(ids[0], 2);
    assert_int_equal(ids[1], 4);

    msg_list_push_back(&head, &tail, &m[0]);      /* back in, at the end */
    assert_int_equal(walk(head, tail, ids), 3);
    assert_int_equal(ids[2], 1);

    msg_list_unlink(&head, &tail, &m[1]);
    msg_list_unlink(&head, &tail, &m[3]);
    msg_list_unlink(&head, &tail, &m[0]);         /* the only one */
    assert_null(head);
    assert_null(tail);
}

static void other_link_names_work_the_same(void **state)
{
    (void)state;
    item it[3] = { { .v = 1 }, { .v = 2 }, { .v = 3 } };
    item *head = NULL, *tail = NULL;
    for (int i = 0; i < 3; i++)
        item_list_push_back(&head, &tail, &it[i]);
    assert_ptr_equal(head->down->down, &it[2]);
    assert_ptr_equal(tail->up->up, &it[0]);
    item_list_unlink(&head, &tail, &it[1]);
    assert_ptr_equal(head->down, &it[2]);
    assert_ptr_equal(tail->up, &it[0]);
    assert_null(it[1].up);
    assert_null(it[1].down);
    item_list_unlink(&head, &tail, &it[2]);
    assert_ptr_equal(tail, &it[0]);
    assert_null(it[0].down);
    item_list_unlink(&head, &tail, &it[0]);
    assert_null(head);
    assert_null(tail);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(messages_append_in_order_and_unlink_anywhere),
        cmocka_unit_test(other_link_names_work_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
