#!/bin/sh
# loaders.sh LSIM [BOUND_S] -- what once grew faster than n log n, each with a
# generous time bound (default 10 s; every case takes under two seconds):
# traces of 100,000 consumers and of 200,000 nodes into fit, a scenario
# mapping of 100,000 keys into check, a direct container starting 5,000 and
# 100,000 consumers, a trace of 50,000 messages in flight replayed as
# arrivals, an SMLC trace of 10,000 consumer starts into fit --replay.
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

# Each node's pass over every consumer: 33 s of CPU here for 200,000 nodes
# of one consumer each; 0.3 s with each node's pass on its own consumers.
awk 'BEGIN { print "t_ms,event,node,consumer,msg,group,queue"
             for (i = 1; i <= 200000; i++) printf "%d,consumer_start,n%d,c1,,,q\n", i, i
             print "200001,publish,,,m1,,q" }' >"$TMP/nodes.csv"
timed "fit: a trace of 200,000 nodes" "$LSIM" fit "$TMP/nodes.csv"

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

# A trace replayed as arrivals (kind: trace): 500,000 messages published in a
# burst, then ended by 50,000 consumers in rounds, the ends of a round in an
# order of their own.  Each end looked for its publish among those in flight
# from the oldest: 16.6 s here (bound 10 s), under 2 s with the index by message.
awk -v N=500000 -v W=50000 'BEGIN {
    for (c = 1; c <= W; c++) printf "0,consumer_start,node-1,c%d,,,q\n", c
    for (i = 1; i <= N; i++) printf "%.3f,publish,,,m%d,,q\n", 1 + i * 0.001, i
    base = 2 + N * 0.001
    for (i = 1; i <= N; i++) {
        b = base + int((i - 1) / W) * 20 + ((i - 1) % W + 1) * 5 / W
        printf "%.3f,begin,node-1,c%d,m%d,,q\n", b, (i - 1) % W + 1, i
        printf "%.3f,end,node-1,c%d,m%d,,q\n", b + 1 + ((i * 7919) % 9000) / 1000, (i - 1) % W + 1, i
    } }' | sort -s -t, -k1,1n >"$TMP/body.csv"
{ echo "t_ms,event,node,consumer,msg,group,queue"; cat "$TMP/body.csv"; } >"$TMP/inflight.csv"
rm "$TMP/body.csv"
printf 'name: inflight\nqueue:\n  arrivals: { kind: trace, path: inflight.csv }\ncontainer: { kind: competing, workers: 100 }\n' >"$TMP/inflight.yaml"
timed "run: a trace of 500,000 messages, 50,000 in flight, as arrivals" "$LSIM" run "$TMP/inflight.yaml" \
    --detail summary --out "$TMP/inflight.db" --quiet

# fit --replay of an SMLC trace: 10,000 consumers on two nodes started 0.5 ms
# apart, 20 messages each (each published while its consumer's previous
# one ran), every third stopped later.  The estimators walked every
# consumer per gap and every message per start: 24 s of CPU; now 0.4 s.
awk 'BEGIN { W = 10000; M = 20
    for (c = 1; c <= W; c++) {
        s = 10 + (c - 1) * 0.5; n = c % 2 + 1
        printf "%.3f,consumer_start,node-%d,c%d,,,q\n", s, n, c
        for (k = 0; k < M; k++) {
            b = s + 0.7 + k * 4 + ((c * 31 + k * 7) % 9) * 0.01
            e = b + 1 + ((c * 7919 + k * 104729) % 2000) / 1000
            printf "%.3f,publish,,,m%d_%d,,q\n", b - 3.5, c, k
            printf "%.3f,begin,node-%d,c%d,m%d_%d,,q\n", b, n, c, c, k
            printf "%.3f,end,node-%d,c%d,m%d_%d,,q\n", e, n, c, c, k
        }
        if (c % 3 == 0) printf "%.3f,consumer_stop,node-%d,c%d,,,q\n", e + 3000 + c % 7, n, c
    } }' | sort -s -t, -k1,1n >"$TMP/body.csv"
{ echo "# container: org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer (spring-rabbit 2.4.17)"
  echo "# receive_timeout_ms: 1000"
  echo "t_ms,event,node,consumer,msg,group,queue"; cat "$TMP/body.csv"; } >"$TMP/smlc.csv"
rm "$TMP/body.csv"
timed "fit --replay: an SMLC trace of 10,000 consumers starting, 200,000 messages" \
    "$LSIM" fit "$TMP/smlc.csv" --replay -o "$TMP/smlc.yaml"

[ "$failures" -eq 0 ]
