#!/bin/sh
# live_harness.sh LSIM -- the live-test harness without a broker: the
# `make live-tests` target exists, run_live.sh runs the RabbitMQ half when
# no ActiveMQ recorder is given (a line says the ActiveMQ half is skipped),
# skips (77) or fails (LSIM_LIVE_REQUIRED=1) without rabbitmq-server, and
# verdict.py counts a comparison that judged nothing as a miss.  No node
# is started: the scenario filter matches none, and the rabbitmq-server
# it finds is a stub that fails if run.  And the pure parts of run_live.sh
# (tests/live/live_lib.sh): the rule of a second attempt, and the measured
# ActiveMQ lags put into a flow or a block container.
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin live-harness

check "make knows live-tests" sh -c 'make -n live-tests > /dev/null 2>&1'

mkdir -p "$TMP/rmq"
printf '#!/bin/sh\necho "the stub broker was started" >&2\nexit 1\n' > "$TMP/rmq/rabbitmq-server"
chmod +x "$TMP/rmq/rabbitmq-server"

run_live() {
    env -u AMQ_RECORDER RMQ_BIN="$1" LSIM_LIVE_ONLY=no-such-scenario LSIM_LIVE_SEED=7 \
        LSIM_LIVE_REQUIRED="$2" tests/live/run_live.sh "$LSIM"
}
expect_status 0 -- run_live "$TMP/rmq" 0
check "no recorder: the ActiveMQ half skipped, said" \
    grep -q '^live: ActiveMQ half skipped: no recorder' "$TMP/stdout"
check "no recorder: the RabbitMQ half still runs to the summary" \
    grep -qx 'live: 0 of 0 scenarios within tolerance (known: 0)' "$TMP/stdout"
check "the seed is printed" grep -q 'from seed 7 (LSIM_LIVE_SEED=7' "$TMP/stdout"

expect_status 77 -- run_live "$TMP/none" 0
check "no rabbitmq-server: a skip, said" \
    grep -qx 'live: skipped: no rabbitmq-server (make deps)' "$TMP/stdout"
expect_status 1 -- run_live "$TMP/none" 1

verdict() {
    printf '%s' "$1" | /usr/bin/python3 tests/live/verdict.py > "$TMP/verdict"
}
m='"difference":0.2,"tolerance":0.1'
verdict '{"metrics":{"a":{'"$m"',"verdict":"ok"},"b":{'"$m"',"verdict":null}}}'
check "every judged metric ok: no miss" test ! -s "$TMP/verdict"
verdict '{"metrics":{"a":{'"$m"',"verdict":"outside"},"b":{'"$m"',"verdict":"ok"}}}'
check "an outside metric is a miss" grep -qx 'a (0.2 > 0.1)' "$TMP/verdict"
verdict '{"metrics":{"a":{'"$m"',"verdict":"band"}}}'
check "a metric in the band is judged, not a miss" test ! -s "$TMP/verdict"
verdict '{"metrics":{"a":{'"$m"',"verdict":null}}}'
check "nothing judged is a miss" grep -q '^no-judged-metric ' "$TMP/verdict"

# The pure parts of run_live.sh (tests/live/live_lib.sh).
lib() {
    sh -c '. tests/live/live_lib.sh; TMP=$1; AMQ_LINK=$2; AMQ_BLOCK=$3; shift 3; "$@"' lib \
        "$TMP" "$LINK" "$BLOCK" "$@" > "$TMP/lib.out"
}
LINK="" BLOCK=""
lib twice "scenario:p50 replay:p90" "scenario:counts replay:p90"
check "a metric missed on both attempts is outside" grep -qx 'replay:p90' "$TMP/lib.out"
lib twice "scenario:p50" "scenario:counts replay:p90"
check "no metric missed twice: none outside" test ! -s "$TMP/lib.out"
lib twice "scenario:p50 replay:p90" ""
check "without a first attempt every miss counts" test "$(wc -l < "$TMP/lib.out")" -eq 2
printf 'sd p50_latency_rel_error why\nsd scenario:consumer_stop_max_abs_ms why\n' > "$TMP/known.txt"
check "a known metric is known on the scenario's side" lib is_known sd scenario:p50_latency_rel_error "$TMP/known.txt"
check "and on the replay's" lib is_known sd replay:p50_latency_rel_error "$TMP/known.txt"
check "a metric known on one side is known there" lib is_known sd scenario:consumer_stop_max_abs_ms "$TMP/known.txt"
if lib is_known sd replay:consumer_stop_max_abs_ms "$TMP/known.txt"; then st=0; else st=1; fi
check "and not on the other" test $st -eq 1
if lib is_known other scenario:p50_latency_rel_error "$TMP/known.txt"; then st=0; else st=1; fi
check "another scenario's known metric is not known" test $st -eq 1
LINK="receiveLag: { kind: lognormal, mean: 700us, sigma: 0.5 }, rescheduleLatency: 1ms"
BLOCK="\\n  receiveLag: { kind: lognormal, mean: 700us, sigma: 0.5 }\\n  rescheduleLatency: 1ms"
printf 'name: f\nqueue: { arrivals: { kind: burst, count: 3 }, service: { kind: constant, value: 5ms } }\nbroker: { kind: activemq }\ncontainer: { kind: dmlc, concurrency: "1-2" }\n' \
    > "$TMP/flow.yaml"
printf 'name: b\nqueue: { arrivals: { kind: burst, count: 3 }, service: { kind: constant, value: 5ms } }\nbroker: { kind: activemq }\ncontainer:\n  kind: dmlc\n  concurrency: "1-2"\n' \
    > "$TMP/block.yaml"
printf 'name: s\nqueue: { arrivals: { kind: burst, count: 3 }, service: { kind: constant, value: 5ms } }\nbroker: { kind: activemq }\ncontainer: { kind: dmlc, receiveLag: 2ms }\n' \
    > "$TMP/stated.yaml"
for f in flow block; do
    lib amq_linked "$TMP/$f.yaml"
    out=$(cat "$TMP/lib.out")
    check "the measured lags go into a $f container" grep -q '^ *rescheduleLatency: 1ms\|, rescheduleLatency: 1ms, concurrency' "$out"
    check "a $f container with the lags runs" "$LSIM" run "$out" --out "$TMP/$f.db" --quiet
done
lib amq_linked "$TMP/stated.yaml"
check "a scenario that states a lag keeps its own" grep -qx "$TMP/stated.yaml" "$TMP/lib.out"

echo "$count live harness checks, $failures failed"
[ "$failures" -eq 0 ]
