"""pika_pool.py -- an application of the tests' own that consumes as a user's
Python service would: N consumers on a queue, each with its own Pika
connection (a thread each), basic.qos(prefetch), a listener that works for
the message's service time (the x-lsim-service-us header lsim record puts
on every message) and acks.  It runs for SECONDS, then closes everything.
`lsim record --consumers none` watches it through the broker.

usage: pika_pool.py PORT QUEUE CONSUMERS PREFETCH SECONDS
"""
import sys
import threading
import time

import pika


def consume(port, queue, prefetch, until):
    conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", port))
    ch = conn.channel()
    if prefetch:
        ch.basic_qos(prefetch_count=prefetch)

    def on_message(channel, method, props, body):
        us = (props.headers or {}).get("x-lsim-service-us", 0)
        time.sleep(us / 1e6)
        channel.basic_ack(method.delivery_tag)

    ch.basic_consume(queue, on_message)
    while time.monotonic() < until:
        conn.process_data_events(time_limit=0.02)
    conn.close()


def main():
    port, queue = int(sys.argv[1]), sys.argv[2]
    consumers, prefetch, seconds = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=consume, args=(port, queue, prefetch, until))
               for _ in range(consumers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


main()
