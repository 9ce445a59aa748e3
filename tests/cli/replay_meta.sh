#!/bin/sh
# replay_meta.sh LSIM -- what `lsim fit TRACE --replay` takes from a trace's
# metadata and events, on trace fragments built here from the shared
# traces: the `# broker:` line's message group map, DMLC start latency
# from first messages that were waiting.  Run from the top of the
# repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin replay_meta
D=tests/data/traces

# has FILE PATTERN: the fitted file has a line matching PATTERN.
has() {
    count=$((count + 1))
    grep -q -- "$2" "$1" || fail "$1: no line matching '$2'"
}
hasnt() {
    count=$((count + 1))
    ! grep -q -- "$2" "$1" || fail "$1: a line matching '$2'"
}

# fit_with NAME SED: the C-groups-skew trace with its `# broker:` line
# edited by SED, fitted; the scenario must pass `lsim check`.
fit_with() {
    mkdir -p "$TMP/$1"
    cp "$D"/C-groups-skew.workload.csv "$TMP/$1/"
    sed "$2" "$D"/C-groups-skew-run1.csv >"$TMP/$1/t.csv"
    count=$((count + 1))
    "$LSIM" fit "$TMP/$1/t.csv" --replay -o "$TMP/$1/r.yaml" 2>"$TMP/$1/err" ||
        fail "$1: fit --replay: $(cat "$TMP/$1/err")"
    count=$((count + 1))
    "$LSIM" check "$TMP/$1/r.yaml" >/dev/null 2>&1 || fail "$1: check refuses the replay"
}

# 1. The broker's group map factory.
MAP='s/message group map CachedMessageGroupMapFactory/message group map'
fit_with bucket "$MAP MessageGroupHashBucketFactory(bucketCount=4, cacheSize=64)/"
has "$TMP/bucket/r.yaml" '^  messageGroupMapFactoryType: bucket$'
has "$TMP/bucket/r.yaml" '^  groupMapSize: 4 '
fit_with cached "$MAP CachedMessageGroupMapFactory(cacheSize=8)/"
has "$TMP/cached/r.yaml" '^  messageGroupMapFactoryType: cached$'
has "$TMP/cached/r.yaml" '^  groupMapSize: 8 '
fit_with cached-default "s/x/x/"
has "$TMP/cached-default/r.yaml" '^  messageGroupMapFactoryType: cached$'
hasnt "$TMP/cached-default/r.yaml" '^  groupMapSize:'
fit_with simple "$MAP SimpleMessageGroupMapFactory/"
has "$TMP/simple/r.yaml" '^  messageGroupMapFactoryType: simple$'
hasnt "$TMP/simple/r.yaml" '^  groupMapSize:'
# both group-map replays run (their per-consumer counts are not compared here)
count=$((count + 1))
"$LSIM" run "$TMP/bucket/r.yaml" --out "$TMP/bucket.db" --quiet >/dev/null 2>&1 &&
    "$LSIM" run "$TMP/cached-default/r.yaml" --out "$TMP/cached.db" --quiet >/dev/null 2>&1 ||
    fail "run of the group-map replays"
# a simulated bucket-map run's trace names its map, and its replay takes it
count=$((count + 1))
cat >"$TMP/sim-bucket.yaml" <<YAML
name: sim-bucket
duration: 5s
queue:
  name: q
  arrivals: { kind: poisson, rate: 50/s }
  service: { kind: constant, value: 10ms }
  groups: { kind: uniform, count: 20 }
broker:
  kind: activemq
  messageGroupMapFactoryType: bucket
  groupMapSize: 3
container:
  kind: dmlc
  concurrency: "3-3"
YAML
if "$LSIM" run "$TMP/sim-bucket.yaml" --trace "$TMP/sim-bucket.csv" --out "$TMP/sim-bucket.db" \
    --quiet >/dev/null 2>"$TMP/err"; then
    has "$TMP/sim-bucket.csv" '^# broker: .*MessageGroupHashBucketFactory(bucketCount=3)'
    "$LSIM" fit "$TMP/sim-bucket.csv" --replay -o "$TMP/sim-bucket-r.yaml" 2>/dev/null ||
        fail "fit --replay of the simulated bucket-map trace"
    has "$TMP/sim-bucket-r.yaml" '^  groupMapSize: 3 '
else
    fail "run sim-bucket: $(cat "$TMP/err")"
fi


# 3. Runtime calls at the time they were made: runtime_calls in workload
#    time (its comment says so) is moved by the trace's publish offset; a
#    runtime_call_N line's own time wins, with a warning when the two are
#    more than a millisecond apart.
S1=smlc-S1-burst-scaleup-run1.csv
calls_fit() {             # NAME LINES: the S1 trace with LINES after its first line
    mkdir -p "$TMP/$1"
    cp "$D"/smlc-S1-burst.workload.csv "$TMP/$1/"
    awk -v add="$2" 'NR == 1 { print; print add; next } { print }' "$D/$S1" >"$TMP/$1/t.csv"
    count=$((count + 1))
    "$LSIM" fit "$TMP/$1/t.csv" --replay -o "$TMP/$1/r.yaml" 2>"$TMP/$1/err" ||
        fail "$1: fit --replay: $(cat "$TMP/$1/err")"
}
calls_fit wl '# runtime_calls: 18000:setMaxConcurrentConsumers=2 (scenario: workload time)'
has "$TMP/wl/r.yaml" '^    - { at: 20000ms, maxConcurrentConsumers: 2 }$'
hasnt "$TMP/wl/err" 'warning'
calls_fit made '# runtime_calls: 18000:setMaxConcurrentConsumers=2 (scenario: workload time)
# runtime_call_1: setMaxConcurrentConsumers(2) at 21000.5 ms: returned normally'
has "$TMP/made/r.yaml" '^    - { at: 21000.5ms, maxConcurrentConsumers: 2 }$'
has "$TMP/made/err" '^lsim: warning: runtime call 1 (maxConcurrentConsumers): runtime_calls says 20000.000 ms'
calls_fit agree '# runtime_calls: 20000:setMaxConcurrentConsumers=2 (trace ms)
# runtime_call_1: setMaxConcurrentConsumers(2) at 20000.4 ms: returned normally'
has "$TMP/agree/r.yaml" '^    - { at: 20000.4ms, maxConcurrentConsumers: 2 }$'
hasnt "$TMP/agree/err" 'warning'
# 4. Node starts: two nodes 80 ms apart whose trace gives containers_started_at_ms
#    alone (not node_started_ms): each node starts at its own first
#    consumer_start, less node 1's offset from that time, not both at it.
cat >"$TMP/two.yaml" <<YAML
name: two-nodes
duration: 3s
nodes: [ { start: 100ms }, { start: 180ms } ]
queue:
  name: q
  arrivals: { kind: poisson, rate: 50/s }
  service: { kind: constant, value: 30ms }
container: { kind: smlc, concurrency: "2-4", startLatency: 5ms }
YAML
count=$((count + 1))
if "$LSIM" run "$TMP/two.yaml" --trace "$TMP/two-full.csv" --out "$TMP/two.db" --quiet \
    >/dev/null 2>"$TMP/err"; then
    # node-1 as a real recorder stamps it: its first consumer_start 9.6 ms after the start
    sed -e 's/^# node_started_ms:.*/# containers_started_at_ms: 90.4/' "$TMP/two-full.csv" >"$TMP/two.csv"
    "$LSIM" fit "$TMP/two.csv" --replay -o "$TMP/two-r.yaml" 2>/dev/null || fail "fit --replay of two nodes"
    has "$TMP/two-r.yaml" '^  - { start: 90400us }$'
    has "$TMP/two-r.yaml" '^  - { start: 170400us }$'
    has "$TMP/two-r.yaml" "each node's first consumer_start, less node 1's offset"
else
    fail "run two-nodes: $(cat "$TMP/err")"
fi
# 5. Every setting TRACE_FORMAT.md lists as honoured reaches the replay:
#    each one changed in a shared trace (S1: smlc; A-burst: dmlc; S1 as a
#    direct container), the replay's line for it, and the replay checks.
edited() {                # DIR TRACE SED: DIR/t.csv, TRACE edited by SED, beside the workloads
    mkdir -p "$1"
    cp "$D"/*.workload.csv "$1/"
    sed -e "$3" "$D/$2" >"$1/t.csv"
}
setting() {               # NAME TRACE SED PATTERN
    edited "$TMP/set-$1" "$2" "$3"
    count=$((count + 1))
    if "$LSIM" fit "$TMP/set-$1/t.csv" --replay -o "$TMP/set-$1/r.yaml" 2>"$TMP/set-$1/err"; then
        has "$TMP/set-$1/r.yaml" "$4"
        count=$((count + 1))
        "$LSIM" check "$TMP/set-$1/r.yaml" >/dev/null 2>&1 || fail "$1: the replay does not check"
    else
        fail "$1: fit --replay: $(cat "$TMP/set-$1/err")"
    fi
}
A=A-burst-run1.csv
setting concurrent_consumers "$S1" 's/^# concurrent_consumers: .*/# concurrent_consumers: 2/' '^  concurrentConsumers: 2$'
setting max_concurrent_consumers "$S1" 's/^# max_concurrent_consumers: .*/# max_concurrent_consumers: 6/' '^  maxConcurrentConsumers: 6$'
setting concurrency "$S1" '/^# concurrent_consumers: /d; s/^# max_concurrent_consumers: .*/# concurrency: 2-6 (min-max)/' '^  concurrency: "2-6"$'
setting consecutive_active_trigger "$S1" 's/^# consecutive_active_trigger: .*/# consecutive_active_trigger: 3/' '^  consecutiveActiveTrigger: 3$'
setting consecutive_idle_trigger "$S1" 's/^# consecutive_idle_trigger: .*/# consecutive_idle_trigger: 7/' '^  consecutiveIdleTrigger: 7$'
setting start_consumer_min_interval_ms "$S1" 's/^# start_consumer_min_interval_ms: .*/# start_consumer_min_interval_ms: 2500/' '^  startConsumerMinInterval: 2500ms$'
setting stop_consumer_min_interval_ms "$S1" 's/^# stop_consumer_min_interval_ms: .*/# stop_consumer_min_interval_ms: 45000/' '^  stopConsumerMinInterval: 45000ms$'
setting receive_timeout_ms "$S1" 's/^# receive_timeout_ms: .*/# receive_timeout_ms: 700/' '^  receiveTimeout: 700ms$'
setting prefetch_count "$S1" 's/^# prefetch_count: .*/# prefetch_count: 25/' '^  prefetchCount: 25$'
setting tx_size "$S1" 's/^# tx_size: .*/# tx_size: 3/' '^  txSize: 3$'
setting batch_size "$S1" 's/^# tx_size: .*/# batch_size: 4/' '^  batchSize: 4$'
setting channel_transacted "$S1" 's/channel_transacted: false/channel_transacted: true/' '^  channelTransacted: true$'
setting container "$S1" 's/1\.7\.15\.RELEASE/1.7.12.RELEASE/' '^  version: "1.7.12"'
setting nodes "$S1" 's/^# nodes: .*/# nodes: 3/' '^  - { start: 458919us }$'
setting containers_started_at_ms "$S1" 's/^# containers_started_at_ms: .*/# containers_started_at_ms: 400.5/' '^  - { start: 400500us }$'
setting node_started_ms "$S1" 's/^# containers_started_at_ms: .*/# node_started_ms: node-1=440.25/' '^  - { start: 440250us }$'
setting observed_until_ms "$S1" 's/^# observed_until_ms: .*/# observed_until_ms: 180000.5/' '^duration: 180000500us$'
setting runtime_calls "$S1" 's/^# idle_tail_ms: .*/# runtime_calls: 30000:setConcurrentConsumers=2 (trace ms)/' '^    - { at: 30000ms, concurrentConsumers: 2 }$'
setting consumers_per_queue "$S1" 's/SimpleMessageListenerContainer (spring-rabbit 1\.7\.15/DirectMessageListenerContainer (spring-rabbit 2.4.17/; s/^# concurrent_consumers: .*/# consumers_per_queue: 3/; /^# max_concurrent_consumers: /d' '^  consumersPerQueue: 3$'
setting messages_per_ack "$S1" 's/SimpleMessageListenerContainer (spring-rabbit 1\.7\.15/DirectMessageListenerContainer (spring-rabbit 2.4.17/; s/^# tx_size: .*/# messages_per_ack: 5/' '^  messagesPerAck: 5$'
setting dmlc_concurrency "$A" 's/^# concurrency: .*/# concurrency: 2-4 (per node)/' '^  concurrency: "2-4"$'
setting dmlc_receive_timeout_ms "$A" 's/^# receive_timeout_ms: .*/# receive_timeout_ms: 800/' '^  receiveTimeout: 800ms$'
setting prefetch "$A" 's/^# prefetch: .*/# prefetch: 50 (client queuePrefetch)/' '^  queuePrefetch: 50$'
setting max_messages_per_task "$A" 's/^# max_messages_per_task: .*/# max_messages_per_task: 10/' '^  maxMessagesPerTask: 10$'
setting idle_consumer_limit "$A" 's/^# idle_consumer_limit: .*/# idle_consumer_limit: 2/' '^  idleConsumerLimit: 2$'
setting idle_task_execution_limit "$A" 's/^# idle_task_execution_limit: .*/# idle_task_execution_limit: 3/' '^  idleTaskExecutionLimit: 3$'
setting idle_receives_per_task_limit "$A" 's/Spring JMS 4\.3\.30/Spring JMS 5.3.30/; s/^# recovery_interval_ms: .*/# idle_receives_per_task_limit: 4/' '^  idleReceivesPerTaskLimit: 4$'
setting cache_level "$A" 's/^# cache_level: .*/# cache_level: CACHE_SESSION/' '^  cacheLevel: session$'
setting session_acknowledge_mode "$A" 's/^# session_acknowledge_mode: .*/# session_acknowledge_mode: CLIENT_ACKNOWLEDGE/' "^  # acknowledge mode 'CLIENT_ACKNOWLEDGE': lsim models AUTO only$"
setting shutdown_ms "$A" 's/^# shutdown_ms: .*/# shutdown_ms: 45000.25 (container.shutdown() called)/' '^duration: 45000250us$'
setting workload_offset_ms "$A" 's/^# recovery_interval_ms: .*/# runtime_calls: 2000:setMaxConcurrentConsumers=3 (scenario: workload time)/' '^    - { at: 3000ms, maxConcurrentConsumers: 3 }$'

# A bucket map replayed as a bucket map: on a simulated run of 3 buckets
# and 20 groups, the replay's messages per consumer are the run's; the
# same replay with the default cached map is far off.
count=$((count + 1))
"$LSIM" compare "$TMP/sim-bucket-r.yaml" "$TMP/sim-bucket.csv" --out "$TMP/b1.db" --quiet --json \
    >"$TMP/b1.json" 2>/dev/null
"$LSIM" compare "$TMP/sim-bucket-r.yaml" "$TMP/sim-bucket.csv" --out "$TMP/b2.db" --quiet --json \
    --set broker.messageGroupMapFactoryType=cached --set broker.groupMapSize=1024 \
    >"$TMP/b2.json" 2>/dev/null
/usr/bin/python3 - "$TMP/b1.json" "$TMP/b2.json" <<'PY' || fail "the bucket map's replay is not closer than a cached map's"
import json, sys
b, c = (json.load(open(p))["metrics"]["consumer_counts_max_rel_error"]["difference"] for p in sys.argv[1:])
print("  messages per consumer: bucket replay off by %.4f, the same as a cached map %.4f" % (b, c))
assert b <= 0.05 < c, (b, c)
PY
# 6. RabbitMQ's dispatchLatency from idle consumers: an SMLC run whose
#    broker takes 1.2 ms to a client, at 5 messages a second (the two
#    consumers mostly idle), fitted: the replay's broker has it, and
#    ackLatency 0 (the ack's way is in cycleOverhead).
cat >"$TMP/idle.yaml" <<YAML
name: idle-dispatch
duration: 20s
queue:
  name: q
  arrivals: { kind: poisson, rate: 5/s }
  service: { kind: constant, value: 20ms }
broker: { kind: rabbitmq, dispatchLatency: 1200us }
container: { kind: smlc, concurrency: "2" }
YAML
count=$((count + 1))
if "$LSIM" run "$TMP/idle.yaml" --trace "$TMP/idle.csv" --out "$TMP/idle.db" --quiet \
    >/dev/null 2>"$TMP/err"; then
    "$LSIM" fit "$TMP/idle.csv" --replay -o "$TMP/idle-r.yaml" 2>/dev/null || fail "fit --replay of idle-dispatch"
    has "$TMP/idle-r.yaml" '^  dispatchLatency: 1200us$'
    has "$TMP/idle-r.yaml" '^  ackLatency: 0ms$'
    has "$TMP/idle-r.yaml" '#   9[0-9] samples: min 1.200, median 1.200'
    # S1 is a burst: no consumer is idle at a publish
    mkdir -p "$TMP/s1"; cp "$D"/smlc-S1-burst.workload.csv "$TMP/s1/"
    "$LSIM" fit "$D/$S1" --replay -o "$TMP/s1/r.yaml" 2>/dev/null || fail "fit --replay of S1"
    has "$TMP/s1/r.yaml" '^  #   no such message in the trace: left at 0$'
else
    fail "run idle-dispatch: $(cat "$TMP/err")"
fi
# 7. A replay lsim check would refuse is not written: a setting the trace's
#    container version lacks is refused at the metadata line that set it
#    (idleReceivesPerTaskLimit on Spring 4.3), a container its version
#    lacks at the container line (a Direct container of Spring AMQP 1.7).
refused() {               # NAME TRACE SED ERROR
    edited "$TMP/no-$1" "$2" "$3"
    count=$((count + 1))
    "$LSIM" fit "$TMP/no-$1/t.csv" --replay -o "$TMP/no-$1/r.yaml" 2>"$TMP/no-$1/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$1: exit $rc, expected 2"
    [ ! -e "$TMP/no-$1/r.yaml" ] || fail "$1: a replay was written"
    grep -qxF "$TMP/no-$1/t.csv:$4" "$TMP/no-$1/err" || fail "$1: not '$4' but: $(cat "$TMP/no-$1/err")"
}
refused idle-limit A-burst-run1.csv '1a\
# idle_receives_per_task_limit: 5' \
    "2:33: the replay of this trace would not pass lsim check: idleReceivesPerTaskLimit: Spring 4.3 has no such setting (it came in 5.3.5); set version to \"5.3\" or later"
refused direct-1.7 "$S1" 's/SimpleMessageListenerContainer (spring-rabbit/DirectMessageListenerContainer (spring-rabbit/; s/^# concurrent_consumers: .*/# consumers_per_queue: 3/; /^# max_concurrent_consumers: /d' \
    "3:14: the replay of this trace would not pass lsim check: version: 1.7.15 is too old: DirectMessageListenerContainer came in Spring AMQP 2.0"
echo "replay_meta: $count checks, $failures failures"
[ "$failures" -eq 0 ]
