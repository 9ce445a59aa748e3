#!/bin/sh
# run_all.sh LSIM -- command-line tests: bad input gives its exact message,
# exit status 2 and no file; usage errors; the outputs of check, run --json
# and run --trace.  Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin cli

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

# same_yaml A B: the two outputs of check are the same scenario (the comment
# lines after it, saying where each container setting came from, differ:
# a default the first time is a scenario line the second).
same_yaml() {
    grep -v '^#' "$1" >"$1.body"
    grep -v '^#' "$2" >"$2.body"
    cmp -s "$1.body" "$2.body"
}

# 3. check prints the scenario in normal form, which check accepts again.
count=$((count + 1))
"$LSIM" check $SEED >"$TMP/normal.yaml" || fail "check $SEED"
"$LSIM" check "$TMP/normal.yaml" >"$TMP/normal2.yaml" 2>"$TMP/stderr" || fail "check of check's output: $(cat "$TMP/stderr")"
same_yaml "$TMP/normal.yaml" "$TMP/normal2.yaml" || fail "check is not a fixed point"
grep -q '^  startLatency: 1ms$' "$TMP/normal.yaml" || fail "check: startLatency not normalised"
grep -q '^tail: 0s$' "$TMP/normal.yaml" || fail "check: default tail not filled in"

# 3b. the same for an SMLC scenario with runtime changes and defaults by version.
count=$((count + 1))
"$LSIM" check scenarios/smlc-change.yaml >"$TMP/smlc.yaml" || fail "check smlc-change"
"$LSIM" check "$TMP/smlc.yaml" >"$TMP/smlc2.yaml" 2>"$TMP/stderr" || fail "check of smlc check's output: $(cat "$TMP/stderr")"
same_yaml "$TMP/smlc.yaml" "$TMP/smlc2.yaml" || fail "smlc check is not a fixed point"
grep -q '^  prefetchCount: 20$' "$TMP/smlc.yaml" || fail "check: smlc prefetchCount lost"
"$LSIM" check scenarios/smlc-burst.yaml | grep -q '^  prefetchCount: 250$' || fail "check: smlc default prefetch"
"$LSIM" check scenarios/smlc-burst.yaml --set container.version=1.7 | grep -q '^  prefetchCount: 1$' ||
    fail "check: smlc 1.7 default prefetch"
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
same_yaml "$TMP/jms1.yaml" "$TMP/jms2.yaml" || fail "check is not a fixed point for dmlc"
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

# 6. compare: a run against its own trace is at distance zero (exit 0) ...
for scen in $SEED tests/cli/stochastic.yaml; do
    count=$((count + 1))
    "$LSIM" run $scen --trace "$TMP/own.csv" --out "$TMP/own.db" --quiet >/dev/null || fail "run --trace $scen"
    "$LSIM" compare $scen "$TMP/own.csv" --json --out "$TMP/cmp.db" >"$TMP/cmp.json" 2>"$TMP/stderr"
    [ $? -eq 0 ] || fail "compare $scen with its own trace: exit $?, $(cat "$TMP/stderr")"
    /usr/bin/python3 - "$TMP/cmp.json" <<'PY' || fail "compare $scen with its own trace: not at distance zero"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["pass"] is True
bad = {k: v["difference"] for k, v in d["metrics"].items() if v["difference"] not in (0, None)}
assert not bad, bad
PY
    n=$(sqlite3 "$TMP/cmp.db" "select count(*) from trace_messages where source='sim'")
    m=$(sqlite3 "$TMP/cmp.db" "select count(*) from trace_messages where source='real'")
    [ "$n" = "$m" ] && [ "$n" -gt 0 ] || fail "compare database: $n sim and $m real messages"
done
# ... and a slower model is outside the latency tolerance: exit 3.
count=$((count + 1))
"$LSIM" run $SEED --trace "$TMP/own.csv" --out "$TMP/own.db" --quiet >/dev/null
"$LSIM" compare $SEED "$TMP/own.csv" --set container.startLatency=900ms --out "$TMP/cmp3.db" >"$TMP/stdout" 2>&1
[ $? -eq 3 ] || fail "compare with a slower model should exit 3"
grep -q '^p50_latency_rel_error .* OUTSIDE$' "$TMP/stdout" || fail "compare: p50 latency not judged outside"
expect_error 2 "lsim: --tolerance: 'speed' is not a metric of compare (see the README)" -- \
    "$LSIM" compare $SEED "$TMP/own.csv" --tolerance speed=1 --out "$TMP/out/x.db"
printf 't_ms,event,node,consumer,msg,group,queue\n1.0,publish,,,m1,,q\n0.5,publish,,,m2,,q\n' >"$TMP/bad.csv"
expect_error 2 "$TMP/bad.csv:3: t_ms goes back in time (0.5)" -- \
    "$LSIM" compare $SEED "$TMP/bad.csv" --out "$TMP/out/x.db"
cat >"$TMP/badreplay.yaml" <<YAML
name: badreplay
queue: { arrivals: { kind: trace, path: bad.csv } }
container: { kind: competing }
YAML
expect_error 2 "$TMP/bad.csv:3: t_ms goes back in time (0.5)" -- \
    "$LSIM" run "$TMP/badreplay.yaml" --out "$TMP/out/x.db"

# 7. fit prints a scenario that check accepts.
count=$((count + 1))
"$LSIM" run tests/cli/stochastic.yaml --trace "$TMP/st.csv" --out "$TMP/st.db" --quiet >/dev/null
"$LSIM" fit "$TMP/st.csv" >"$TMP/fit.yaml" || fail "fit"
"$LSIM" check "$TMP/fit.yaml" >/dev/null 2>"$TMP/stderr" || fail "check of fit's output: $(cat "$TMP/stderr")"
grep -q 'kind: poisson' "$TMP/fit.yaml" || fail "fit: Poisson arrivals not recognised"
grep -q 'kind: lognormal' "$TMP/fit.yaml" || fail "fit: lognormal service not recognised"

# 8. Faults: each gives a clear message and a non-zero exit, and leaves no
# database (nor a temporary file) behind.
#   read-only folder (root ignores permission bits: /sys refuses everyone)
if [ "$(id -u)" = 0 ]; then ro=/sys; else ro="$TMP/out/ro"; mkdir -p "$ro"; chmod 555 "$ro"; fi
expect_error 2 "lsim: cannot write $ro/x.db: Permission denied" -- "$LSIM" run $SEED --out "$ro/x.db"
[ "$ro" = /sys ] || rmdir "$ro"
#   a device is not a database; a trace to /dev/full finds the disk full
expect_error 2 "lsim: cannot write /dev/full: not a regular file" -- "$LSIM" run $SEED --out /dev/full
expect_error 1 "lsim: cannot write /dev/full: No space left on device" -- \
    "$LSIM" run $SEED --out "$TMP/out/x.db" --trace /dev/full --quiet
#   the disk fills up while the database is written (a file size limit):
#   found while rows are written, the run stopped there
expect_error 1 "lsim: $TMP/out/x.db: cannot write: disk I/O error: File too large" -- \
    sh -c "ulimit -f 8000; exec \"\$0\" \"\$@\"" "$LSIM" run tests/bench/mm8.yaml \
    --set queue.count=200000 --out "$TMP/out/x.db" --quiet
#   a scenario that needs more memory than allowed (1,196,032 queued messages of 56 bytes
#   fit in 64 MiB, with the one block of (64-byte) delivery records the first delivery takes)
expect_error 1 "lsim: more than 64 MiB would be needed for the 1196032 messages in flight (--max-memory)" -- \
    "$LSIM" run tests/bench/mm8.yaml --set "queue.arrivals={kind: burst, count: 100000000}" \
    --set queue.count=100000000 --max-memory 64M --out "$TMP/out/x.db" --quiet
expect_error 2 "lsim: --max-memory: 'lots' is not a size of 1M or more (like 512M, 2G)" -- \
    "$LSIM" run $SEED --max-memory lots --out "$TMP/out/x.db"
#   numbers that overflow
expect_error 2 "--set duration:1:1: duration: '1000000000000000000000000000000s' is too large (at most 1281023h, some 146 years)" -- \
    "$LSIM" run $SEED --set duration=1000000000000000000000000000000s --out "$TMP/out/x.db"
expect_error 2 "--set queue.arrivals:1:23: rate: '0/s' must be greater than zero" -- \
    "$LSIM" run $SEED --set "queue.arrivals={kind: poisson, rate: 0/s}" --out "$TMP/out/x.db"
#   SIGTERM and SIGINT during a run
for sig in TERM INT; do
    count=$((count + 1))
    rm -rf "$TMP/out" && mkdir -p "$TMP/out"
    "$LSIM" run tests/bench/mm8.yaml --set queue.count=100000000 --out "$TMP/out/x.db" --quiet \
        2>"$TMP/stderr" &
    pid=$!
    sleep 1
    kill -$sig $pid
    wait $pid
    st=$?
    [ $st -eq 1 ] || fail "SIG$sig during a run: exit $st"
    [ "$(cat "$TMP/stderr")" = "lsim: interrupted" ] || fail "SIG$sig: stderr $(cat "$TMP/stderr")"
    [ -z "$(ls -A "$TMP/out")" ] || fail "SIG$sig: left files: $(ls -A "$TMP/out")"
done

# 9. Determinism does not depend on the locale or the time zone.
count=$((count + 1))
"$LSIM" run tests/cli/stochastic.yaml --out "$TMP/d1.db" --quiet >/dev/null
LC_ALL=C.UTF-8 LANG=de_DE.UTF-8 TZ=Asia/Kolkata "$LSIM" run tests/cli/stochastic.yaml --out "$TMP/d2.db" --quiet >/dev/null
for q in "select * from messages" "select * from summary" "select fingerprint from runs"; do
    [ "$(sqlite3 "$TMP/d1.db" "$q")" = "$(sqlite3 "$TMP/d2.db" "$q")" ] || fail "locale/time zone changed: $q"
done
# 10. Sweeps: bad --vary / --require / options, exit status 2 and no file.
T=scenarios/tune-bursty-workers.yaml
OUT="--out $TMP/out/x.db"
METRICS="published, completed, unfinished, duration_s, flow_s, throughput_per_s, mean_latency_ms, p50_latency_ms, p95_latency_ms, p99_latency_ms, max_latency_ms, mean_wait_ms, p50_wait_ms, p95_wait_ms, p99_wait_ms, max_wait_ms, consumers_max, consumers_mean, consumer_seconds, utilisation, order_violations, order_inversions, requeues, redeliveries, duplicates, dropped, dead_lettered, consumer_timeouts, events, ready_max, prefetched_max, prefetched_mean, unacked_max"
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
expect_error 2 "--vary container.worker:1:1: unknown key 'worker' in container; did you mean 'workers'?" -- \
    "$LSIM" sweep $T --vary container.worker=1,2 $OUT
expect_error 2 "--vary contaner.workers:1:1: unknown key 'contaner'; did you mean 'container'?" -- \
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

# 11. A run that ends when its messages are done does end: an ActiveMQ
# delayed dispatch start with a DMLC that makes a consumer per receive
# (cacheLevel none, consumers that live 1 s, a 2 s wait) once never
# dispatched and ran until stopped (tests/unit/test_activemq.c has the times).
count=$((count + 1))
cat >"$TMP/churn.yaml" <<'EOF'
name: churn
queue:
  arrivals: { kind: burst, count: 5, at: 0s }
  service: { kind: constant, value: 100ms }
broker: { kind: activemq, consumersBeforeDispatchStarts: 2, timeBeforeDispatchStarts: 2s }
container: { kind: dmlc, concurrency: "1-1", cacheLevel: none }
EOF
timeout 20 "$LSIM" run "$TMP/churn.yaml" --detail summary --quiet --out "$TMP/churn.db" >/dev/null 2>"$TMP/stderr"
got=$?
if [ "$got" -ne 0 ]; then
    fail "delayed start, a consumer per receive: exit $got (124: still running after 20 s)"
else
    done_=$(sqlite3 "$TMP/churn.db" "select value from summary where metric = 'completed'")
    [ "$done_" = 5.0 ] || fail "delayed start, a consumer per receive: completed $done_, not 5"
fi

echo "$count command-line checks, $failures failed"
[ "$failures" -eq 0 ]
