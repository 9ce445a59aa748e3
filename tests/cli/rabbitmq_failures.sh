#!/bin/sh
# rabbitmq_failures.sh LSIM -- the scenarios of slow and failing listeners
# give the figures their comments state: the brief case (closes, duplicates,
# restarts), the 4.x quorum queue that loses messages to its delivery limit,
# and the prefetch sweep's answer.  Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin rabbitmq-failures

# metric NAME: its value in the summary of $TMP/x.db
metric() {
    sqlite3 "$TMP/x.db" "select cast(value as integer) from summary where metric = '$1'"
}

expect() {                         # what, got, want
    count=$((count + 1))
    [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

"$LSIM" run scenarios/rabbitmq-consumer-timeout.yaml --out "$TMP/x.db" >"$TMP/out" 2>"$TMP/err"
expect "brief case: exit" "$?" 0
expect "brief case: closes" "$(metric consumer_timeouts)" 28
expect "brief case: duplicates" "$(metric duplicates)" 28
expect "brief case: completed" "$(metric completed)" 486
expect "brief case: restarts" \
    "$(sqlite3 "$TMP/x.db" "select count(*) from scaling where action = 'restart'")" 28
expect "brief case: first close and restart" \
    "$(sqlite3 "$TMP/x.db" "select group_concat(t) from (select t from scaling limit 2)")" \
    "120000.0,126000.0"
expect "brief case: warning" "$(cat "$TMP/err")" \
    "lsim: warning: 28 messages were processed more than once (duplicates)"

"$LSIM" plot "$TMP/x.db" --kind timeline -o "$TMP/x.svg" >/dev/null
expect "brief case: the plot marks the 28 closes" \
    "$(grep -o '<line[^>]*stroke="#d62728" stroke-width="1.00" stroke-dasharray="5,3"/>' \
        "$TMP/x.svg" | wc -l)" 28

"$LSIM" run scenarios/rabbitmq-consumer-timeout.yaml --set container.prefetchCount=8 \
    --out "$TMP/x.db" >"$TMP/out" 2>"$TMP/err"
expect "prefetch 8: closes" "$(metric consumer_timeouts)" 0
expect "prefetch 8: completed" "$(metric completed)" 514
expect "prefetch 8: no warning" "$(cat "$TMP/err")" ""

"$LSIM" run scenarios/rabbitmq-quorum-delivery-limit.yaml --out "$TMP/x.db" >"$TMP/out" 2>"$TMP/err"
expect "quorum: dropped" "$(metric dropped)" 70
expect "quorum: completed" "$(metric completed)" 346
expect "quorum: fates" "$(sqlite3 "$TMP/x.db" "select min(msg), max(msg), min(deliveries), \
    max(deliveries) from messages where fate = 'dropped:delivery_limit'")" "190|259|21|21"
expect "quorum: warning" "$(head -1 "$TMP/err")" \
    "lsim: warning: 70 messages were lost (dropped by the broker): see messages.fate"

# A trace of redeliveries (begin, requeue, begin on another consumer) is read
# back, and the run that wrote it is at distance zero from it.
for sc in rabbitmq-consumer-timeout rabbitmq-quorum-delivery-limit; do
    "$LSIM" run scenarios/$sc.yaml --trace "$TMP/$sc.csv" --out "$TMP/x.db" --quiet >/dev/null 2>&1
    "$LSIM" compare scenarios/$sc.yaml "$TMP/$sc.csv" --json --out "$TMP/c.db" >"$TMP/c.json" 2>"$TMP/err"
    expect "$sc: compare with its own trace" "$?" 0
    expect "$sc: distance zero" "$(sqlite3 "$TMP/c.db" "select count(*) from comparison \
        where difference is not null and difference <> 0")" 0
done

# Deliveries in transit when a consumer timeout closes the channel (a 5 s
# dispatch latency) go back unseen: every requeue in the trace follows a
# deliver to the same consumer, and the summary counts the others too.
printf '%s\n' 'name: in-transit' 'seed: 1' 'duration: 30m' \
    'broker: { kind: rabbitmq, version: "3.10.8", consumerTimeout: 60s, dispatchLatency: 5s }' \
    'queue: { arrivals: { kind: burst, count: 1000, at: 0s }, service: { kind: empirical, values: [1s, 7s, 20s] } }' \
    'container: { kind: smlc, version: "2.4.17", concurrency: "3", prefetchCount: 250 }' \
    >"$TMP/transit.yaml"
"$LSIM" run "$TMP/transit.yaml" --trace "$TMP/transit.csv" --out "$TMP/x.db" >"$TMP/out" 2>&1
expect "in transit: requeues of deliveries only" "$(awk -F, '$2 == "deliver" { h[$5] = $3 "/" $4 }
    $2 == "requeue" { if (h[$5] != $3 "/" $4) bad++; delete h[$5] } END { print bad + 0 }' \
    "$TMP/transit.csv")" 0
expect "in transit: the summary counts more" "$(metric requeues) > $(grep -c ',requeue,' "$TMP/transit.csv")" \
    "10183 > 10154"

"$LSIM" sweep scenarios/tune-prefetch-consumer-timeout.yaml \
    --vary container.prefetchCount=120,110,100,90,80,70,60,50,40,30 \
    --reps 5 --require 'duplicates<=0' -j 2 --json --quiet --out "$TMP/s.db" >"$TMP/out"
expect "sweep: answer" "$(sqlite3 "$TMP/s.db" "select value from sweep where key = 'best'")" \
    "container.prefetchCount=40"

echo "$count rabbitmq failure checks, $failures failed"
[ "$failures" -eq 0 ]
