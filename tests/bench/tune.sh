#!/bin/sh
# tune.sh LSIM [SEEDS] -- lsim tune against the full grid at 8 replications
# (lsim sweep --reps 8) on small tuning problems of two and three knobs: the
# runs each spends, whether tune's answer meets every requirement in the
# grid (and in a sweep of the pick alone at 24 replications: meets24), and
# how far its objective is from the grid's best (in %).  Heavy:
# not part of `make test`; `make bench-tune` runs it.  Run from the top of
# the repository.
set -u
LSIM=${1:-build/lsim}
SEEDS=${2:-1}
PY=/usr/bin/python3
TMP=$(mktemp -d /tmp/lsim-bench-tune-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

cat >"$TMP/bursty.yaml" <<'YAML'
name: bursty
queue:
  arrivals:
    kind: phases
    phases:
      - { duration: 3m, rate: 20/s }
      - { duration: 30s, rate: 70/s }
      - { duration: 3m, rate: 20/s }
  service: { kind: lognormal, mean: 200ms, sigma: 0.6 }
container: { kind: competing, workers: 10 }
YAML

# DMLC with the seed's device groups (ActiveMQ pins each group to one consumer).
sed 's/groups: { kind: none }.*/groups: { kind: zipf, count: 100, s: 0.8 }/' \
    scenarios/tune-dmlc-cpu.yaml >"$TMP/dmlc-groups.yaml"
# Prefetch with a round trip: each delivery and ack 20 ms away.
cat >"$TMP/prefetch-rtt.yaml" <<'YAML'
name: prefetch-rtt
broker: { kind: rabbitmq, dispatchLatency: 20ms, ackLatency: 20ms }
queue:
  name: rtt
  count: 4000
  arrivals: { kind: poisson, rate: 80/s }
  service: { kind: lognormal, mean: 30ms, sigma: 1.0 }
container: { kind: pool, consumers: 3, prefetch: 10 }
YAML

# name|scenario|flags
problems="bursty-2|$TMP/bursty.yaml|--vary container.workers=6..24:2 --vary container.startLatency=0ms,50ms,100ms,200ms --require p99_latency_ms<=2000 --minimize consumers_max
smlc-2|scenarios/tune-smlc-bursty.yaml|--vary container.maxConcurrentConsumers=8..24:2 --vary container.prefetchCount=1,10,50,250 --require p99_latency_ms<=2000 --minimize consumers_max
bursty-3|$TMP/bursty.yaml|--vary container.workers=8..22:2 --vary container.startLatency=0ms,100ms,200ms --vary queue.service.sigma=0.6,0.8 --require p99_latency_ms<=3000 --minimize consumers_max
dmlc-grp-2|$TMP/dmlc-groups.yaml|--vary container.perQueue.data.concurrency=3-3,4-4,5-5,6-6,8-8,10-10,12-12 --vary host.cores=4,6,8 --require p99_latency_ms<=300 --minimize consumers_mean
rtt-2|$TMP/prefetch-rtt.yaml|--vary container.consumers=1..8 --vary container.prefetch=1,2,5,10,50 --require p99_latency_ms<=400 --minimize consumers_max"

printf '%-10s %5s %10s %10s %6s %8s %9s %s\n' problem seed tune_runs grid_runs meets meets24 gap_% answer
echo "$problems" | while IFS='|' read -r name scen flags; do
    for seed in $SEEDS; do
        # shellcheck disable=SC2086
        "$LSIM" sweep "$scen" $flags --reps 8 --seed "$seed" -j 2 --json --quiet \
            --out "$TMP/$name.db" >"$TMP/grid.json" 2>/dev/null
        # shellcheck disable=SC2086
        "$LSIM" tune "$scen" $flags --seed "$seed" -j 2 --json --quiet --out "$TMP/$name-tune.db" \
            >"$TMP/tune.json" 2>/dev/null
        # The pick again at 3 times the grid's replications: whether a pick the
        # grid at 8 cannot confirm (a bound just past the limit) meets with more.
        $PY -c "import json,sys; b=json.load(open(sys.argv[1]))['best']
print(' '.join('--vary %s=%s' % kv for kv in b['params'].items()) if b else '')" "$TMP/tune.json" >"$TMP/pick"
        # shellcheck disable=SC2046,SC2086
        "$LSIM" sweep "$scen" $(cat "$TMP/pick") $(echo "$flags" | sed 's/--vary [^ ]*//g') --reps 24 \
            --seed "$seed" -j 2 --json --quiet --out "$TMP/$name-pick.db" >"$TMP/pick.json" 2>/dev/null
        $PY - "$TMP/grid.json" "$TMP/tune.json" "$name" "$seed" "$TMP/pick.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
try:
    m24 = str(bool(json.load(open(sys.argv[5]))['table'][0]['meets']))
except Exception:
    m24 = '-'

obj = list(g['objective'].values())[0] if g['objective'] else None
tp = t['best']['point'] if t['best'] else None
row = g['table'][tp] if tp is not None else None
meets = bool(row and row['meets'])
gap = float('nan')
if row and g['best'] and obj:
    b = g['best']['metrics'][obj]['mean']; v = row['metrics'][obj]['mean']
    gap = 100 * abs(v - b) / abs(b) if b else 0.0
ans = ','.join(f"{k.split('.')[-1]}={v}" for k, v in t['best']['params'].items()) if t['best'] else 'none'
print(f"{sys.argv[3]:<10} {sys.argv[4]:>5} {t['runs']:>10} {g['runs']:>10} {str(meets):>6} {m24:>8} {gap:>9.2f} {ans}")
PY
        rm -f "$TMP/$name.db" "$TMP/$name-tune.db" "$TMP/$name-pick.db"
    done
done

# The six-knob SMLC problem with a day of traffic (1.2 M messages a run):
# with TUNE_SIX=1 only (some minutes a seed).  The issue's goal: an answer
# within 10 minutes on 2 cores, the same answer (within --delta) for each seed.
[ -n "${TUNE_SIX:-}" ] || exit 0
cat >"$TMP/day.yaml" <<'YAML'
name: smlc-day
seed: 1
queue:
  name: orders
  arrivals:
    kind: phases
    phases:
      - { duration: 7h, rate: 5/s }
      - { duration: 2h, rate: 20/s }
      - { duration: 10m, rate: 60/s }
      - { duration: 6h, rate: 20/s }
      - { duration: 10m, rate: 60/s }
      - { duration: 280m, rate: 20/s }
      - { duration: 4h, rate: 5/s }
  service: { kind: lognormal, mean: 200ms, sigma: 0.6 }
broker:
  kind: rabbitmq
container:
  kind: smlc
  concurrentConsumers: 5
  maxConcurrentConsumers: 16
YAML
SIX="--vary container.concurrentConsumers=1..10 --vary container.maxConcurrentConsumers=10..28:2
 --vary container.prefetchCount=1,5,10,25,50,100,250 --vary container.consecutiveActiveTrigger=1,2,5,10,20
 --vary container.startConsumerMinInterval=1s,2s,5s,10s,20s --vary container.receiveTimeout=100ms,500ms,1s,2s,5s
 --require p99_latency_ms<=2000 --minimize consumer_seconds"
printf '\n%-10s %5s %6s %8s %14s %s\n' problem seed runs seconds consumer_s answer
for seed in $SEEDS; do
    t0=$(date +%s)
    # shellcheck disable=SC2086
    "$LSIM" tune "$TMP/day.yaml" $SIX --seed "$seed" -j 2 --json --quiet --out "$TMP/six.db" \
        >"$TMP/six-$seed.json" 2>/dev/null
    t1=$(date +%s)
    $PY - "$TMP/six-$seed.json" "$seed" $((t1 - t0)) <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); b = t['best']
ans = ','.join(f"{k.split('.')[-1]}={v}" for k, v in b['params'].items()) if b else 'none'
obj = b['metrics']['consumer_seconds']['mean'] if b else float('nan')
print(f"{'smlc-day-6':<10} {sys.argv[2]:>5} {t['runs']:>6} {sys.argv[3]:>8} {obj:>14.0f} {ans}")
PY
    rm -f "$TMP/six.db"
done
