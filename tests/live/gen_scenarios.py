"""gen_scenarios.py -- scenarios drawn afresh for `make live-tests`, so that no
fixed set can be tuned to: RabbitMQ with a pool of plain consumers, and
ActiveMQ with Spring JMS DMLC nodes, with rates, service distributions,
concurrency, prefetch and groups drawn from SEED.  Each is kept short (a few
seconds of real time) and below saturation, so that it ends by itself.

usage: gen_scenarios.py SEED DIR COUNT     (COUNT of each broker)
"""
import os
import random
import sys


def service(r, mean_ms):
    kind = r.choice(["constant", "exponential", "lognormal", "uniform"])
    if kind == "constant":
        return "{ kind: constant, value: %dms }" % mean_ms
    if kind == "exponential":
        return "{ kind: exponential, mean: %dms }" % mean_ms
    if kind == "lognormal":
        return "{ kind: lognormal, mean: %dms, sigma: %.2f }" % (mean_ms, r.uniform(0.3, 1.0))
    return "{ kind: uniform, min: %dms, max: %dms }" % (mean_ms // 2, mean_ms * 3 // 2)


def arrivals(r, rate):
    if r.random() < 0.3:
        return ("{ kind: phases, phases: [ { duration: 300ms }, { duration: 400ms, arrivals: "
                "{ kind: burst, count: %d } }, { duration: 2s, rate: %d/s } ] }"
                % (r.randint(20, 80), rate))
    return "{ kind: poisson, rate: %d/s, start: 300ms }" % rate


def rabbitmq(r, k):
    consumers = r.randint(1, 4)
    mean = r.randint(5, 30)
    rate = max(10, int(consumers * 1000 / mean * r.uniform(0.3, 0.8)))
    count = r.randint(100, 250)
    return """# drawn by gen_scenarios.py
name: live-random-rabbitmq-%d
broker: { kind: rabbitmq, version: "3.10.8", dispatchLatency: 1ms, ackLatency: 0s }
queue:
  name: live.random.%d
  count: %d
  arrivals: %s
  service: %s
container: { kind: pool, consumers: %d, prefetch: %d }
tail: 300ms
""" % (k, k, count, arrivals(r, rate), service(r, mean), consumers,
       r.choice([1, 1, 2, 5, 20, 250]))


def activemq(r, k):
    low = r.randint(1, 3)
    high = r.randint(low, 6)
    mean = r.randint(5, 30)
    rate = max(10, int(high * 1000 / mean * r.uniform(0.3, 0.7)))
    groups = r.choice(["{ kind: none }", "{ kind: uniform, count: %d }" % r.randint(2, 20),
                       "{ kind: zipf, count: %d, s: 1.2 }" % r.randint(5, 30)])
    mapping = r.choice(["", "  messageGroupMapFactoryType: bucket\n  groupMapSize: %d\n"
                        % r.randint(2, 16)])
    return """# drawn by gen_scenarios.py
name: live-random-activemq-%d
broker:
  kind: activemq
  queuePrefetch: %d
%squeue:
  name: live.random.%d
  count: %d
  arrivals: %s
  service: %s
  groups: %s
nodes: %d
container:
  kind: dmlc
  version: "4.3.30"
  concurrency: "%d-%d"
  receiveTimeout: %dms
tail: 2s
""" % (k, r.choice([1, 10, 1000]), mapping, k, r.randint(100, 250), arrivals(r, rate),
       service(r, mean), groups, r.choice([1, 1, 2]), low, high, r.choice([200, 500, 1000]))


def main():
    seed, folder, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    r = random.Random(seed)
    os.makedirs(os.path.join(folder, "rabbitmq"), exist_ok=True)
    os.makedirs(os.path.join(folder, "activemq"), exist_ok=True)
    for k in range(1, count + 1):
        for broker, make in (("rabbitmq", rabbitmq), ("activemq", activemq)):
            path = os.path.join(folder, broker, "random-%d.yaml" % k)
            with open(path, "w") as f:
                f.write(make(r, k))


main()
