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

# 3b. the same for the JMS models, whose defaults depend on version and executor
count=$((count + 1))
cat >"$TMP/jms.yaml" <<YAML
name: jms
queues:
  - { name: data, arrivals: { kind: burst, count: 3 }, service: { kind: constant, value: 1s },
      groups: { kind: zipf, count: 5, closeEvery: 3 } }
  - { name: events, arrivals: { kind: burst, count: 3 }, service: { kind: constant, value: 1s } }
broker: { kind: activemq, messageGroupMapFactoryType: bucket }
container: { kind: dmlc, concurrency: 5, perQueue: { data: { concurrency: 5-5 } },
             changes: [ { at: 5s, queue: data, concurrency: 2-3 } ] }
YAML
"$LSIM" check "$TMP/jms.yaml" >"$TMP/jms1.yaml" || fail "check jms.yaml"
"$LSIM" check "$TMP/jms1.yaml" >"$TMP/jms2.yaml" 2>"$TMP/stderr" || fail "check of check's output: $(cat "$TMP/stderr")"
cmp -s "$TMP/jms1.yaml" "$TMP/jms2.yaml" || fail "check is not a fixed point for dmlc"
grep -q '^  maxMessagesPerTask: -1$' "$TMP/jms1.yaml" || fail "check: maxMessagesPerTask default"
grep -q '^  idleReceivesPerTaskLimit: 10$' "$TMP/jms1.yaml" || fail "check: 6.2 idleReceivesPerTaskLimit default"

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

echo "$count command-line checks, $failures failed"
[ "$failures" -eq 0 ]
