#!/bin/sh
# summary_figures.sh LSIM -- the summary's figures as a reader takes them:
# throughput_per_s over the time messages flowed (the first publish to the
# last completion, flow_s), not thinned out by a quiet start or a tail; and
# counts printed as whole numbers in every table and JSON.
# Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin summary-figures

# json_value KEY FILE: KEY's value in the one-line JSON object of FILE.
json_value() {
    sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2"
}

# 1. Ten messages published at 5 s, one worker at 1 s each, 100 s of tail:
#    they flow from 5 s to 15 s, 1 a second; the run lasts 115 s.
cat >"$TMP/flow.yaml" <<'YAML'
name: flow
queue:
  arrivals: { kind: burst, count: 10, at: 5s }
  service: { kind: constant, value: 1s }
container: { kind: competing, workers: 1, startLatency: 0ms }
tail: 100s
YAML
"$LSIM" run "$TMP/flow.yaml" --out "$TMP/flow.db" --quiet --json >"$TMP/flow.json"
check "duration_s counts the tail (115)" [ "$(json_value duration_s "$TMP/flow.json")" = 115 ]
check "flow_s is the first publish to the last completion (10)" \
    [ "$(json_value flow_s "$TMP/flow.json")" = 10 ]
check "throughput_per_s is over the flow, not the tail (1, not 0.087)" \
    [ "$(json_value throughput_per_s "$TMP/flow.json")" = 1 ]
check "the summary table has the same" \
    [ "$(sqlite3 "$TMP/flow.db" "select value from summary where metric='throughput_per_s'")" = 1.0 ]
#   nothing completed: no flow, no throughput
"$LSIM" run "$TMP/flow.yaml" --set queue.arrivals.at=200s --set duration=50s --out "$TMP/none.db" \
    --quiet --json >"$TMP/none.json"
check "nothing completed: flow_s 0" [ "$(json_value flow_s "$TMP/none.json")" = 0 ]
check "nothing completed: throughput_per_s 0" [ "$(json_value throughput_per_s "$TMP/none.json")" = 0 ]

# 2. Counts as whole numbers: 12000 messages read 12000 in compare's table
#    (it printed 1.2e+04), in its JSON, in the run's summary and a sweep's.
cat >"$TMP/many.yaml" <<'YAML'
name: many
queue:
  arrivals: { kind: burst, count: 12000, at: 0s }
  service: { kind: constant, value: 1ms }
container: { kind: competing, workers: 4, startLatency: 0ms }
YAML
"$LSIM" run "$TMP/many.yaml" --out "$TMP/many.db" --trace "$TMP/many.csv" --quiet >"$TMP/many.txt"
check "run: completed 12000" grep -q '^  completed  *12000$' "$TMP/many.txt"
"$LSIM" compare "$TMP/many.yaml" "$TMP/many.csv" --out "$TMP/cmp.db" >"$TMP/cmp.txt" 2>/dev/null
check "compare: completed_diff 12000 12000 0" \
    grep -Eq '^completed_diff +12000 +12000 +0 ' "$TMP/cmp.txt"
check "compare: no count in exponent form" sh -c "! grep -E '^(completed|order_violations)_diff .*e\+' '$TMP/cmp.txt'"
"$LSIM" compare "$TMP/many.yaml" "$TMP/many.csv" --out "$TMP/cmp2.db" --json >"$TMP/cmp.json" 2>/dev/null
check "compare --json: completed_diff's sim is 12000" \
    grep -q '"completed_diff":{"sim":12000,"real":12000,' "$TMP/cmp.json"
"$LSIM" sweep "$TMP/many.yaml" --vary container.workers=4,8 --require 'completed>=12000' \
    --minimize consumers_max --out "$TMP/sw.db" --quiet >"$TMP/sw.txt" 2>&1
check "sweep: the required count in full" grep -Eq '^ +0 +4 +12000 +4 +yes$' "$TMP/sw.txt"

echo "$count summary-figures checks, $failures failed"
[ "$failures" -eq 0 ]
