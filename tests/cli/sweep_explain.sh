#!/bin/sh
# sweep_explain.sh LSIM -- a sweep that finds no point says why, and exits 4:
# the burst question of scenarios/smlc-burst-ramp.yaml.  The facts of the
# explanation are checked in its JSON, not its wording: the requirement the
# closest point misses and by how much, the varied key that does not move
# p99, what limited the container (the ramp: the start interval, the
# maximum never reached) and the keys suggested.  Identical replications
# are said to be so, with no interval; --show adds columns; the sweep the
# explanation points to answers the question (exit 0).
# Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
PY=/usr/bin/python3
. tests/cli/lib.sh
cli_begin sweep-explain

S=scenarios/smlc-burst-ramp.yaml
ASK="--reps 3 --require p99_latency_ms<=30000 --minimize consumers_max --quiet"

# 1. No point meets: exit 4, and the explanation's facts.
"$LSIM" sweep $S --vary container.maxConcurrentConsumers=10..30:10 \
    --vary container.prefetchCount=1,250 $ASK --json --out "$TMP/a.db" >"$TMP/a.json"
check "no point meets: exit 4" [ $? -eq 4 ]
cat >"$TMP/facts.py" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["explanation"]
def ok(what, cond):
    print(("ok " if cond else "FAIL ") + what)
ok("answer none", d["answer"] == "none")
ok("closest is point 0 (max 10, prefetch 1)", d["closest"]["point"] == 0 and e["point"] == 0)
m = e["misses"]
ok("one miss, p99 at 69440, 39440 beyond 30000",
   len(m) == 1 and m[0]["metric"] == "p99_latency_ms" and m[0]["bound"] == 69440
   and m[0]["limit"] == 30000 and m[0]["by"] == 39440)
keys = {k["key"]: k for k in e["keys"]}
mx = keys["container.maxConcurrentConsumers"]
ok("the maximum does not move p99", mx["moves"] is False and mx["low"] == mx["high"] == 69440)
pf = keys["container.prefetchCount"]
ok("the prefetch moves p99, best at 1", pf["moves"] is True and pf["best_value"] == "1"
   and pf["low"] == 69440 and pf["high"] == 72400)
lim = {l["limit"]: l for l in e["limits"]}
ok("never reached the maximum: 9 of 10", lim.get("never-reached-maximum", {}).get("value") == 9
   and lim["never-reached-maximum"]["of"] == 10)
ok("starts refused by the interval", lim.get("start-interval", {}).get("value", 0) > 1000)
ok("the maximum refused nothing", "maximum" not in lim)
ok("no full prefetch buffer at prefetch 1", "prefetch" not in lim)
sug = e["suggest"]
ok("suggests concurrentConsumers and startConsumerMinInterval",
   "container.concurrentConsumers" in sug and "container.startConsumerMinInterval" in sug)
ok("does not suggest the flat maximum", "container.maxConcurrentConsumers" not in sug)
ok("identical replications flagged", all(v["identical"] for p in d["table"]
                                         for v in p["metrics"].values()))
EOP
"$PY" "$TMP/facts.py" "$TMP/a.json" >"$TMP/facts" 2>&1
while read -r line; do
    count=$((count + 1))
    case $line in ok*) ;; *) fail "$line" ;; esac
done <"$TMP/facts"
check "facts were checked" [ "$(grep -c '^ok' "$TMP/facts")" -eq 12 ]
check "the database holds the explanation" \
    [ "$(sqlite3 "$TMP/a.db" "select json_extract(value, '$.limits[0].limit') from sweep where key = 'explanation'")" = never-reached-maximum ]

# 2. The text: the table without intervals, the note, the reasons; --show.
"$LSIM" sweep $S --vary container.maxConcurrentConsumers=10,20 $ASK \
    --show consumers_max,smlc_starts_refused_interval --out "$TMP/b.db" >"$TMP/b.txt"
check "text: exit 4" [ $? -eq 4 ]
check "text: identical replications said" grep -q 'replications of every point are identical' "$TMP/b.txt"
check "text: no interval printed" sh -c "! grep -q '\[' '$TMP/b.txt'"
check "text: --show adds columns" grep -q 'consumers_max  smlc_starts_refused_interval  meets' "$TMP/b.txt"
check "text: why" grep -q '^why:' "$TMP/b.txt"
check "text: flat key" grep -q 'maxConcurrentConsumers does not move p99_latency_ms' "$TMP/b.txt"
"$LSIM" sweep $S --vary container.maxConcurrentConsumers=10,20 $ASK --show nosuch \
    --out "$TMP/c.db" >/dev/null 2>"$TMP/c.err"
check "--show of an unknown metric: exit 2" [ $? -eq 2 ]
check "--show of an unknown metric: said" grep -q "^--show: unknown metric 'nosuch'" "$TMP/c.err"
check "--show of an unknown metric: no database" [ ! -e "$TMP/c.db" ]

# 3. The keys it names answer the question: concurrentConsumers 14.
"$LSIM" sweep $S --vary container.concurrentConsumers=2..14:4 \
    --set container.maxConcurrentConsumers=20 --reps 2 --require 'p99_latency_ms<=30000' \
    --minimize consumers_max --quiet --json --out "$TMP/d.db" >"$TMP/d.json"
check "the suggested key meets: exit 0" [ $? -eq 0 ]
best=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["best"]["params"]["container.concurrentConsumers"], d["best"]["metrics"]["p99_latency_ms"]["mean"], d["explanation"])' "$TMP/d.json")
check "the answer is concurrentConsumers 14, p99 26480 ms, no explanation" [ "$best" = "14 26480 None" ]

# 4. The floor: a lognormal service time (mean 100 ms, sigma 1) has its p99
#    at 100 x exp(2.32635 - 0.5) = 621.12 ms, above a p99 limit of 300 ms: said
#    first, before any container key, in the text, the JSON and the report.
#    A dead-letter queue the container does not consume (1 ms) is no floor;
#    a limit of 700 ms is above the floor: none said.
cat >"$TMP/floor.yaml" <<'EOF'
name: floor
seed: 1
duration: 20s
broker: { kind: rabbitmq }
queues:
  - name: work
    arrivals: { kind: poisson, rate: 20/s }
    service: { kind: lognormal, mean: 100ms, sigma: 1 }
  - name: dlq
    arrivals: { kind: poisson, rate: 1/s }
    service: { kind: constant, value: 1ms }
container: { kind: smlc, concurrency: "4-8", queues: [work] }
EOF
FL="--vary container.prefetchCount=1,10 --reps 2 --quiet"
"$LSIM" sweep "$TMP/floor.yaml" $FL --require 'p99_latency_ms<=300' --out "$TMP/f.db" >"$TMP/f.txt"
check "floor: exit 4" [ $? -eq 4 ]
check "floor: the line after why: is the floor, with its figure" [ "$(sed -n '/^why:/{n;p;}' "$TMP/f.txt")" = \
    "  the floor: the service time alone (queue work) has p99 621.1 ms, beyond p99_latency_ms<=300: no container setting meets it, only a faster listener or another limit" ]
"$LSIM" sweep "$TMP/floor.yaml" $FL --require 'p99_latency_ms<=300' --json --out "$TMP/g.db" >"$TMP/g.json"
check "floor: JSON level 0.99, 621.12 ms, queue work" [ "$("$PY" -c 'import json,sys; f=json.load(open(sys.argv[1]))["explanation"]["floor"]; print(f["level"], round(f["service_ms"], 2), f["queue"], f["requirement"])' "$TMP/g.json")" = "0.99 621.12 work p99_latency_ms<=300" ]
"$LSIM" report "$TMP/f.db" -o "$TMP/f.html" >/dev/null 2>&1
check "floor: the report says it" grep -q '<li>the floor: the service time alone (queue work) has p99 621.1 ms' "$TMP/f.html"
"$LSIM" sweep "$TMP/floor.yaml" $FL --require 'mean_latency_ms<=90' --json --out "$TMP/h.db" >"$TMP/h.json"
check "floor of the mean: 100 ms" [ "$("$PY" -c 'import json,sys; f=json.load(open(sys.argv[1]))["explanation"]["floor"]; print(f["level"], f["service_ms"])' "$TMP/h.json")" = "None 100" ]
"$LSIM" sweep "$TMP/floor.yaml" $FL --require 'p99_latency_ms<=700' --require 'consumers_max<=3' --json \
    --out "$TMP/i.db" >"$TMP/i.json"
check "no floor under a limit above it" [ "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["explanation"]["floor"])' "$TMP/i.json")" = None ]

# 5. The floor at full concurrency: 200 messages at once, 50 ms each, smlc
#    1-2.  Scaling from 1 gives p99 9900 ms; even 2 consumers from the start
#    give 4950 ms, beyond 3000: said after why:, with the figure, before the
#    keys, in the JSON and in the report.  With a maximum of 5, 5 consumers
#    from the start would meet it (2 s): no such line, scaling is the limit.
cat >"$TMP/full.yaml" <<'EOF'
name: full
queue:
  arrivals: { kind: burst, count: 200, at: 0s }
  service: { kind: constant, value: 50ms }
container: { kind: smlc, concurrentConsumers: 1, maxConcurrentConsumers: 2 }
EOF
FC="--reps 2 --require p99_latency_ms<=3000 --quiet"
"$LSIM" sweep "$TMP/full.yaml" --vary container.prefetchCount=1,10 $FC --out "$TMP/fc.db" >"$TMP/fc.txt"
check "full concurrency: exit 4" [ $? -eq 4 ]
check "full concurrency: the line after why:, with its figure" [ "$(sed -n '/^why:/{n;p;}' "$TMP/fc.txt")" = \
    "  the floor at full concurrency: even with all 2 consumers from the start (concurrentConsumers = maxConcurrentConsumers) the run has p99_latency_ms 4950, beyond p99_latency_ms<=3000: no scaling setting meets it, only a larger maximum or a faster listener" ]
"$LSIM" sweep "$TMP/full.yaml" --vary container.prefetchCount=1,10 $FC --json --out "$TMP/fj.db" >"$TMP/fj.json"
check "full concurrency: JSON 2 consumers, 4950" [ "$("$PY" -c 'import json,sys; f=json.load(open(sys.argv[1]))["explanation"]["full_concurrency"]; print(f["consumers"], f["value"], f["requirement"])' "$TMP/fj.json")" = "2 4950 p99_latency_ms<=3000" ]
"$LSIM" report "$TMP/fc.db" -o "$TMP/fc.html" >/dev/null 2>&1
check "full concurrency: the report says it" \
    grep -q '<li>the floor at full concurrency: even with all 2 consumers from the start' "$TMP/fc.html"
"$LSIM" sweep "$TMP/full.yaml" --set container.maxConcurrentConsumers=5 --vary container.prefetchCount=1,10 \
    $FC --json --out "$TMP/fk.db" >"$TMP/fk.json"
check "full concurrency that would meet: no such floor" [ "$("$PY" -c 'import json,sys; e=json.load(open(sys.argv[1]))["explanation"]; print(e["full_concurrency"], e["misses"][0]["requirement"])' "$TMP/fk.json")" = "None p99_latency_ms<=3000" ]
#   the service-time floor, when there is one, is said instead
check "the service-time floor comes alone" [ "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["explanation"]["full_concurrency"])' "$TMP/g.json")" = None ]

echo "sweep-explain: $count checks, $failures failures"
[ "$failures" -eq 0 ]
