#!/bin/sh
# tune.sh LSIM -- `lsim tune` from the command line: on an M/M/c it gives
# the answer a sweep of the same grid gives, with fewer runs; the same
# output with -j 1 and -j 2 and on a second run; a grid too large for KN
# alone is searched (COMPASS) and its answer meets the requirement in a
# sweep of it; no point meeting exits 4 naming the binding constraint;
# --budget is kept; the JSON has a sweep's keys; a Spring scenario gets
# its property lines; bad input exits 2; Ctrl-C prints the best so far.
# Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
PY=/usr/bin/python3
. tests/cli/lib.sh
cli_begin tune

cat >"$TMP/mmc.yaml" <<'YAML'
name: mmc
warmup: 100s
queue:
  count: 3000
  arrivals: { kind: poisson, rate: 8/s }
  service: { kind: exponential, mean: 1s }
container: { kind: competing, workers: 10 }
YAML
REQ='p99_wait_ms<=2500'

# 1. The answer of a sweep of the same grid, with fewer runs than its 8 replications.
"$LSIM" sweep "$TMP/mmc.yaml" --vary container.workers=8..15 --reps 8 --require "$REQ" \
    --minimize consumers_max --json --quiet --out "$TMP/s.db" >"$TMP/s.json"
sweep_best=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['best']['params']['container.workers'])" "$TMP/s.json")
expect_status 0 -- "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..15 --require "$REQ" \
    --minimize consumers_max --quiet
cp "$TMP/stdout" "$TMP/t1.txt"
check "tune's answer is the sweep's ($sweep_best)" grep -q "^answer: container.workers=$sweep_best (point" "$TMP/t1.txt"
check "tune names KN and its PCS" grep -q "^how sure: KN run for a probability of correct selection of 0.95, indifference zone" "$TMP/t1.txt"
check "tune says what it ruled out and why" grep -q "^  point 0 (container.workers=8): fails p99_wait_ms<=2500" "$TMP/t1.txt"
runs=$(sed -n 's/^spent: \([0-9]*\) runs, .* the grid at 8 replications: 64 runs.*/\1/p' "$TMP/t1.txt")
check "tune spends fewer runs than the grid (${runs:-none} < 64)" [ "${runs:-99}" -lt 64 ]

# 2. -j 2 and a second run: the same output.
expect_status 0 -- "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..15 --require "$REQ" \
    --minimize consumers_max --quiet -j 2
check "-j 2 prints what -j 1 prints" cmp -s "$TMP/stdout" "$TMP/t1.txt"
"$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..15 --require "$REQ" \
    --minimize consumers_max --quiet >"$TMP/t2.txt" 2>/dev/null
check "the same command twice: the same output" cmp -s "$TMP/t2.txt" "$TMP/t1.txt"

# 3. JSON: a sweep's keys.
expect_status 0 -- "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..15 --require "$REQ" \
    --minimize consumers_max --quiet --json
check "--json has answer, best, runner_up, closest, table, runs" $PY -c "
import json,sys
d = json.load(open(sys.argv[1]))
assert d['answer'] == 'best' and d['best']['params']['container.workers'] == sys.argv[2]
assert d['runner_up'] is not None and d['closest'] is None and d['runs'] > 0
assert d['method'] == 'KN' and d['confidence'] == 0.95 and len(d['table']) == 8
assert all('status' in p and 'why' in p for p in d['table'])
" "$TMP/stdout" "$sweep_best"

# 4. A grid too large for KN alone: COMPASS, then KN; the answer meets in a sweep of it.
expect_status 0 -- "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=6..30 \
    --vary container.startLatency=0ms,100ms,200ms --require "$REQ" --minimize consumers_max --quiet --json
check "a 75-point grid is searched" $PY -c "
import json,sys
d = json.load(open(sys.argv[1]))
assert d['method'] == 'COMPASS+KN' and d['iterations'] > 0, d['method']
assert d['runs'] < d['grid_runs'] / 4, (d['runs'], d['grid_runs'])
print(d['best']['params']['container.workers'], d['best']['params']['container.startLatency'])
" "$TMP/stdout" >"$TMP/found"
set -- $(cat "$TMP/found")
"$LSIM" sweep "$TMP/mmc.yaml" --vary container.workers=${1:-0} --vary container.startLatency=${2:-0ms} \
    --reps 8 --require "$REQ" --json --quiet --out "$TMP/check.db" >"$TMP/check.json" 2>/dev/null
check "the searched answer (${1:-none} workers, ${2:-}) meets in a sweep at 8 replications" $PY -c "
import json,sys; assert json.load(open(sys.argv[1]))['best']['meets']" "$TMP/check.json"

# 5. No point meets: exit 4, the binding constraint named; JSON's closest.
expect_status 4 -- "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..10 --require 'p99_wait_ms<=1' \
    --require 'consumers_max<=100' --minimize consumers_max --quiet
check "none meets: says so" grep -q "^no point meets every requirement" "$TMP/stdout"
check "none meets: the binding constraint" grep -q "^the binding constraint: p99_wait_ms<=1 (the closest point's bound" "$TMP/stdout"
check "none meets: the closest is the most workers" grep -q "^closest: container.workers=10 (point 2)" "$TMP/stdout"
expect_status 4 -- "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..10 --require 'p99_wait_ms<=1' --quiet --json
check "none meets: JSON answer none, closest, binding" $PY -c "
import json,sys
d = json.load(open(sys.argv[1]))
assert d['answer'] == 'none' and d['best'] is None and d['closest']['point'] == 2 and d['binding'] == 'p99_wait_ms<=1'
" "$TMP/stdout"

# 6. --budget: never more runs.
expect_status 0 -- "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..15 --require "$REQ" \
    --minimize consumers_max --budget 42 --quiet --json
check "--budget 42 keeps to 42 runs" $PY -c "
import json,sys
d = json.load(open(sys.argv[1])); assert d['runs'] <= 42 and d['out_of_budget'], d['runs']" "$TMP/stdout"
expect_status 2 "lsim: --budget: 30 runs is less than KN's first stage needs here (40: every point, 5 replications each)" -- \
    "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..15 --require "$REQ" --budget 30

# 7. A Spring scenario: the answer as the application's property line.
mkdir -p "$TMP/app/spring-app"
cp scenarios/spring-orders.yaml "$TMP/app/" && cp scenarios/spring-app/* "$TMP/app/spring-app/"
expect_status 0 -- "$LSIM" tune "$TMP/app/spring-orders.yaml" --vary container.maxConcurrentConsumers=6,10,14 \
    --require 'p99_latency_ms<=2000' --minimize consumers_max --quiet
best=$(sed -n 's/^answer: container.maxConcurrentConsumers=\([0-9]*\) (point.*/\1/p' "$TMP/stdout")
check "Spring: the answer's property line (max-concurrency=${best:-none})" \
    grep -qx "spring.rabbitmq.listener.simple.max-concurrency=${best:-none}" "$TMP/stdout"

# 8. Bad input: exit 2, before any run.
expect_status 2 "lsim: --delta: 'x' is not a positive number or a percentage below 100 (0.5, 2%)" -- \
    "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..9 --delta x
expect_status 2 "lsim: --confidence: '1.5' is not a probability from 0.5 to below 1" -- \
    "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..9 --confidence 1.5
expect_status 2 "lsim: --budget: '0' is not a whole number from 1 to 1000000" -- \
    "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..9 --budget 0
expect_status 2 "lsim: what to tune? give --vary KEY=VALUES" -- "$LSIM" tune "$TMP/mmc.yaml"
expect_status 2 -- "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8..9 --minimize no_such_metric
check "an unknown metric is named" grep -q "^--minimize: unknown metric 'no_such_metric'; the summary metrics are: " "$TMP/stderr"
expect_status 2 -- "$LSIM" tune "$TMP/mmc.yaml" --vary container.workers=8,-1
check "a bad value names its --vary" grep -q "vary container.workers" "$TMP/stderr"

# 9. Ctrl-C: the best so far, exit 1.  The signal comes after 20 times what
# one run takes with this build (an ASan build is 3 to 10 times slower), and
# at least 2 s: the search's first batch (some 10 runs on -j workers) is
# then in, and the search, some 40 runs, is not over (a fixed wait failed
# both ways: the search over before it on a quiet machine, no run in yet
# under ASan).
cat >"$TMP/long.yaml" <<'YAML'
name: long
queue:
  count: 1000000
  arrivals: { kind: poisson, rate: 8/s }
  service: { kind: exponential, mean: 1s }
container: { kind: competing, workers: 10 }
YAML
"$LSIM" tune "$TMP/long.yaml" --vary container.workers=9..40 --require "$REQ" --quiet \
    >"$TMP/int.txt" 2>"$TMP/int.err" &
pid=$!
t0=$(date +%s.%N)
"$LSIM" run "$TMP/long.yaml" --set container.workers=9 --detail summary --out "$TMP/one.db" --quiet \
    >/dev/null 2>&1
t1=$(date +%s.%N)
sleep "$(awk -v a="$t0" -v b="$t1" 'BEGIN {w = 20 * (b - a); print (w < 2 ? 2 : w)}')"
kill -INT $pid 2>/dev/null
wait $pid
st=$?
count=$((count + 1))
[ "$st" -eq 1 ] || fail "Ctrl-C: exit $st, expected 1: $(cat "$TMP/int.err")"
check "Ctrl-C: says it keeps what it has" grep -q "^lsim: interrupted after [0-9]* runs: printing the best so far" "$TMP/int.err"
check "Ctrl-C: prints the best so far" grep -q "^interrupted: the best so far, not the procedure's answer" "$TMP/int.txt"

echo "$count tune checks, $failures failed"
[ "$failures" -eq 0 ]
