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
echo "replay_meta: $count checks, $failures failures"
[ "$failures" -eq 0 ]
