"""The benchmark's M/M/8 (lambda 7.2/s, mu 1/s) in SimPy, for a speed ratio.

Debian's python3-simpy is SimPy 2.3 (the SimPy.Simulation API).  Usage:
    /usr/bin/python3 tests/bench/mmc_simpy.py MESSAGES
prints one line: messages, wall seconds, messages per second, mean wait.
"""
import random
import sys
import time

from SimPy.Simulation import Process, Resource, activate, hold, initialize, now, release, \
    request, simulate

LAMBDA, MU, SERVERS = 7.2, 1.0, 8


class Message(Process):
    def visit(self, server, waits):
        arrived = now()
        yield request, self, server
        waits.append(now() - arrived)
        yield hold, self, random.expovariate(MU)
        yield release, self, server


class Source(Process):
    def generate(self, n, server, waits):
        for _ in range(n):
            m = Message()
            activate(m, m.visit(server, waits))
            yield hold, self, random.expovariate(LAMBDA)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    random.seed(1)
    waits = []
    start = time.perf_counter()
    initialize()
    server = Resource(capacity=SERVERS)
    source = Source()
    activate(source, source.generate(n, server, waits))
    simulate(until=1e15)
    wall = time.perf_counter() - start
    print("%d %.3f %.0f %.4f" % (n, wall, n / wall, sum(waits) / len(waits)))


main()
