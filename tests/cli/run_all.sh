#!/bin/sh
# run_all.sh LSIM -- command-line tests: bad input gives its exact message,
# exit status 2 and no file; usage errors; the outputs of check, run --json
# and run --trace.  Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
TMP=$(mktemp -d /tmp/lsim-cli-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
failures=0
count=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# expect_error STATUS MESSAGE -- COMMAND...: the command exits with STATUS,
# prints exactly MESSAGE on stderr and leaves nothing in $TMP/out.
expect_error() {
    status=$1 message=$2
    shift 3
    count=$((count + 1))
    rm -rf "$TMP/out" && mkdir -p "$TMP/out"
    "$@" >"$TMP/stdout" 2>"$TMP/stderr"
    got=$?
    [ "$got" -eq "$status" ] || fail "$*: exit $got, expected $status"
    if [ "$(cat "$TMP/stderr")" != "$message" ]; then
        fail "$*: stderr was"
        sed 's/^/    /' "$TMP/stderr"
        echo "  expected"
        echo "    $message"
    fi
    [ -z "$(ls -A "$TMP/out")" ] || fail "$*: left files: $(ls -A "$TMP/out")"
}

# 1. Malformed scenarios: tests/cli/bad_input.txt holds FILE|MESSAGE.
while IFS='|' read -r file message; do
    expect_error 2 "tests/cli/bad/$message" -- "$LSIM" run "tests/cli/bad/$file" --out "$TMP/out/x.db"
done < tests/cli/bad_input.txt

# 2. Usage errors.
SEED=scenarios/seed-competing-consumers.yaml
expect_error 2 "lsim: unknown option '--fast'" -- "$LSIM" run $SEED --fast --out "$TMP/out/x.db"
expect_error 2 "lsim: --detail: 'all' is not one of summary, samples, messages" -- \
    "$LSIM" run $SEED --detail all --out "$TMP/out/x.db"
expect_error 2 "--seed: 'minus-one' is not a seed (a whole number >= 0)" -- \
    "$LSIM" run $SEED --seed minus-one --out "$TMP/out/x.db"
expect_error 2 "--set: 'workers': expected KEY=VALUE, for example container.maxConcurrentConsumers=8" -- \
    "$LSIM" run $SEED --set workers --out "$TMP/out/x.db"
expect_error 2 "--set queue.count:1:1: count: expected a whole number, got 'many'" -- \
    "$LSIM" run $SEED --set queue.count=many --out "$TMP/out/x.db"
expect_error 2 "lsim: cannot write $TMP/out/missing/x.db: No such file or directory" -- \
    "$LSIM" run $SEED --out "$TMP/out/missing/x.db"
expect_error 2 "no-such.yaml: cannot open: No such file or directory" -- "$LSIM" run no-such.yaml
expect_error 2 "lsim: --out needs a value" -- "$LSIM" run $SEED --out
expect_error 2 "lsim: which scenario? (lsim run SCENARIO)" -- "$LSIM" run --quiet

# 3. check prints the scenario in normal form, which check accepts again.
count=$((count + 1))
"$LSIM" check $SEED >"$TMP/normal.yaml" || fail "check $SEED"
"$LSIM" check "$TMP/normal.yaml" >"$TMP/normal2.yaml" 2>"$TMP/stderr" || fail "check of check's output: $(cat "$TMP/stderr")"
cmp -s "$TMP/normal.yaml" "$TMP/normal2.yaml" || fail "check is not a fixed point"
grep -q '^  startLatency: 1ms$' "$TMP/normal.yaml" || fail "check: startLatency not normalised"
grep -q '^tail: 0s$' "$TMP/normal.yaml" || fail "check: default tail not filled in"

# 4. run --json: one object with the documented keys.
count=$((count + 1))
"$LSIM" run $SEED --json --out "$TMP/seed.db" >"$TMP/json" || fail "run --json"
/usr/bin/python3 - "$TMP/json" <<'PY' || fail "run --json: keys"
import json, sys
d = json.load(open(sys.argv[1]))
need = ["scenario", "seed", "database", "published", "completed", "p99_latency_ms",
        "mean_wait_ms", "consumers_max", "utilisation", "order_violations", "order_inversions"]
missing = [k for k in need if k not in d]
assert not missing, missing
assert d["completed"] == 9 and d["consumers_max"] == 3, d
PY

# 5. run --trace writes a trace that replays as a workload.
count=$((count + 1))
"$LSIM" run $SEED --trace "$TMP/seed.csv" --out "$TMP/seed2.db" --quiet >/dev/null || fail "run --trace"
cat >"$TMP/replay.yaml" <<YAML
name: replay
queue: { arrivals: { kind: trace, path: seed.csv } }
container: { kind: competing, workerServiceTimes: [1s, 2s, 3s], startLatency: 1ms }
YAML
"$LSIM" run "$TMP/replay.yaml" --out "$TMP/replay.db" --quiet >/dev/null 2>"$TMP/stderr" || fail "replay of a written trace: $(cat "$TMP/stderr")"
a=$(sqlite3 "$TMP/seed2.db" "select group_concat(msg||':'||consumer||':'||t_end, ' ') from (select * from messages order by msg)")
b=$(sqlite3 "$TMP/replay.db" "select group_concat(msg||':'||consumer||':'||t_end, ' ') from (select * from messages order by msg)")
[ "$a" = "$b" ] || fail "replayed trace differs: $a / $b"

# 6. Sweeps: bad --vary / --require / options, exit status 2 and no file.
T=scenarios/tune-bursty-workers.yaml
OUT="--out $TMP/out/x.db"
METRICS="published, completed, unfinished, duration_s, throughput_per_s, mean_latency_ms, p50_latency_ms, p95_latency_ms, p99_latency_ms, max_latency_ms, mean_wait_ms, p50_wait_ms, p95_wait_ms, p99_wait_ms, max_wait_ms, consumers_max, consumers_mean, consumer_seconds, utilisation, order_violations, order_inversions, requeues, events"
expect_error 2 "--vary: 'workers': expected KEY=V1,V2,... or KEY=LO..HI:STEP (for example container.workers=1,2,4)" -- \
    "$LSIM" sweep $T --vary workers $OUT
expect_error 2 "--vary: 'container.workers=': the list of values is empty" -- \
    "$LSIM" sweep $T --vary container.workers= $OUT
expect_error 2 "--vary: 'container.workers=1,,3': value 2 of the list is empty" -- \
    "$LSIM" sweep $T --vary container.workers=1,,3 $OUT
expect_error 2 "--vary: 'container.workers=8..2:2': the range is empty (2 is below 8)" -- \
    "$LSIM" sweep $T --vary container.workers=8..2:2 $OUT
expect_error 2 "--vary: 'container.workers=2..8:0': the step must be greater than zero" -- \
    "$LSIM" sweep $T --vary container.workers=2..8:0 $OUT
expect_error 2 "--vary: 'container.workers=1.5..3': give a step (LO..HI:STEP)" -- \
    "$LSIM" sweep $T --vary container.workers=1.5..3 $OUT
expect_error 2 "--vary: 'container.workers=2..8:fast': LO..HI:STEP takes numbers (1..8:1), durations (100ms..1s:100ms) or numbers with one unit (10/s..50/s:10/s)" -- \
    "$LSIM" sweep $T --vary container.workers=2..8:fast $OUT
expect_error 2 "--vary: 'queue.arrivals={kind: poisson': a bracket is not closed" -- \
    "$LSIM" sweep $T --vary 'queue.arrivals={kind: poisson' $OUT
expect_error 2 "--vary container.worker:1:1: unknown key 'worker' in container; expected one of: kind, startLatency, workerServiceTimes, workerSpeeds, workers" -- \
    "$LSIM" sweep $T --vary container.worker=1,2 $OUT
expect_error 2 "--vary contaner.workers:1:1: unknown key 'contaner'; expected one of: name, description, seed, duration, tail, warmup, sample_interval, container, broker, queue, queues, nodes, host" -- \
    "$LSIM" sweep $T --vary contaner.workers=1,2 $OUT
expect_error 2 "--vary container.workers:1:1: workers: 0 is out of range (1 to 100000)" -- \
    "$LSIM" sweep $T --vary container.workers=2,0 $OUT
expect_error 2 "--vary: 'seed=1,2': replications vary the seed (replication r runs with seed + r); use --reps" -- \
    "$LSIM" sweep $T --vary seed=1,2 $OUT
expect_error 2 "--vary: 'container.workers=3': container.workers is already varied" -- \
    "$LSIM" sweep $T --vary container.workers=1,2 --vary container.workers=3 $OUT
expect_error 2 "--require: 'p99_latency_ms=500': expected METRIC OP NUMBER with OP one of <, <=, >, >= (for example p99_latency_ms<=500)" -- \
    "$LSIM" sweep $T --vary container.workers=1,2 --require p99_latency_ms=500 $OUT
expect_error 2 "--require: 'p99_latency_ms<=fast': 'fast' is not a number" -- \
    "$LSIM" sweep $T --vary container.workers=1,2 --require 'p99_latency_ms<=fast' $OUT
expect_error 2 "--require: 'p99<=500': unknown metric 'p99'; the summary metrics are: $METRICS" -- \
    "$LSIM" sweep $T --vary container.workers=1,2 --require 'p99<=500' $OUT
expect_error 2 "--minimize: unknown metric 'cost'; the summary metrics are: $METRICS" -- \
    "$LSIM" sweep $T --vary container.workers=1,2 --minimize cost $OUT
expect_error 2 "lsim: give one objective: --minimize or --maximize, once" -- \
    "$LSIM" sweep $T --vary container.workers=1,2 --minimize events --maximize events $OUT
expect_error 2 "lsim: --reps: '0' is not a whole number from 1 to 100000" -- \
    "$LSIM" sweep $T --vary container.workers=1,2 --reps 0 $OUT
expect_error 2 "lsim: -j: 'many' is not a whole number from 1 to 1024" -- \
    "$LSIM" sweep $T --vary container.workers=1,2 -j many $OUT
expect_error 2 "lsim: --plan writes jobs into its folder: give the database to lsim merge -o, not --out or --shard here" -- \
    "$LSIM" sweep $T --vary container.workers=1,2 --plan "$TMP/out/plan" $OUT
expect_error 2 "lsim: cannot write $TMP/out/missing/x.db: No such file or directory" -- \
    "$LSIM" sweep $T --vary container.workers=1,2 --out "$TMP/out/missing/x.db"
expect_error 2 "lsim: usage: lsim merge DIR -o FILE.db" -- "$LSIM" merge "$TMP/out"
expect_error 2 "lsim: $TMP/out: no shard-*.db files: has the plan run?" -- "$LSIM" merge "$TMP/out" -o "$TMP/out/x.db"

echo "$count command-line checks, $failures failed"
[ "$failures" -eq 0 ]
