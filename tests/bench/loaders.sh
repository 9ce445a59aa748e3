#!/bin/sh
# loaders.sh LSIM [BOUND_S] -- what once grew faster than n log n, each with a
# generous time bound (default 10 s; every case takes well under a second):
# a trace of 100,000 consumers into fit, a scenario mapping of 100,000 keys
# into check, a direct container starting 5,000 and 100,000 consumers.
# Part of make bench, not of make test: a bound on a shared machine is not
# a test.
set -u
LSIM=${1:-build/lsim}
BOUND=${2:-10}
TMP=$(mktemp -d /tmp/lsim-loaders-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
failures=0

# timed WHAT COMMAND...: wall seconds of the command, against the bound.
timed() {
    what=$1
    shift
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    e=$(date +%s.%N)
    wall=$(awk "BEGIN {printf \"%.2f\", $e - $s}")
    over=$(awk "BEGIN {print ($e - $s > $BOUND)}")
    echo "$what: $wall s (bound $BOUND s)"
    [ "$over" = 0 ] || { echo "OVER THE BOUND: $what"; failures=$((failures + 1)); }
}

awk 'BEGIN { print "t_ms,event,node,consumer,msg,group,queue"
             for (i = 1; i <= 100000; i++) printf "%d,consumer_start,node-1,c%d,,,q\n", i, i
             for (i = 1; i <= 100000; i++) printf "%d,publish,,,m%d,,q\n", 100000 + i, i }' >"$TMP/cons.csv"
timed "fit: a trace of 100,000 consumers" "$LSIM" fit "$TMP/cons.csv"

{
    printf 'name: keys\nqueue:\n  arrivals: { kind: burst, count: 1 }\n  service: { kind: constant, value: 1ms }\n'
    printf 'container: { kind: competing, workers: 1 }\nextra:\n'
    awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "  k%d: %d\n", i, i }'
} >"$TMP/keys.yaml"
timed "check: a mapping of 100,000 keys (refused: unknown key)" "$LSIM" check "$TMP/keys.yaml"

# 5,000 took 0.05 s and 100,000 a minute while each start walked the
# consumers (the container's free index, the broker's registrations).
for n in 5000 100000; do
    printf 'name: direct\nduration: 1s\nqueue:\n  arrivals: { kind: burst, count: 10 }\n  service: { kind: constant, value: 1ms }\ncontainer: { kind: direct, consumersPerQueue: %d }\n' $n >"$TMP/direct.yaml"
    timed "run: a direct container starting $n consumers" "$LSIM" run "$TMP/direct.yaml" \
        --detail summary --out "$TMP/direct.db" --quiet
done

[ "$failures" -eq 0 ]
