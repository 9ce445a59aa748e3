#!/bin/sh
# sweep_skip.sh LSIM -- `lsim sweep --skip-invalid`: a grid whose points
# break a container rule (maxConcurrentConsumers below concurrentConsumers)
# stops the sweep without it; with it those points are left out, the sweep
# says how many and what each broke, runs the others and answers from them.
# Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin sweep-skip

cat >"$TMP/skip.yaml" <<'YAML'
name: skip
queue:
  arrivals: { kind: burst, count: 200, at: 0s }
  service: { kind: constant, value: 50ms }
container: { kind: smlc, concurrentConsumers: 2, maxConcurrentConsumers: 4 }
YAML
GRID="--vary container.concurrentConsumers=1,3,6 --vary container.maxConcurrentConsumers=2,5 --reps 2"
ASK="--require p99_latency_ms<=3000 --minimize consumers_max"

# 1. Without the flag the first refused point stops the sweep, as before.
expect_error 2 "--vary container.maxConcurrentConsumers:1:1: maxConcurrentConsumers: 2 is less than concurrentConsumers (3)" -- \
    "$LSIM" sweep "$TMP/skip.yaml" $GRID $ASK --out "$TMP/out/x.db"

# 2. With it: points 2, 4 and 5 are skipped, the rest run and answer.
rm -rf "$TMP/out" && mkdir -p "$TMP/out"
expect_status 4 "lsim: --skip-invalid: 3 of 6 points skipped, their settings refused:
  point 2 (container.concurrentConsumers=3, container.maxConcurrentConsumers=2): maxConcurrentConsumers: 2 is less than concurrentConsumers (3)
  point 4 (container.concurrentConsumers=6, container.maxConcurrentConsumers=2): maxConcurrentConsumers: 2 is less than concurrentConsumers (6)
  point 5 (container.concurrentConsumers=6, container.maxConcurrentConsumers=5): maxConcurrentConsumers: 5 is less than concurrentConsumers (6)" -- \
    "$LSIM" sweep "$TMP/skip.yaml" $GRID $ASK --out "$TMP/out/s.db" --skip-invalid -j 2
cp "$TMP/stdout" "$TMP/s.txt"
check "the header says how many were skipped" \
    grep -q '^skipped (--skip-invalid): 3 points whose settings are refused, 6 runs not run$' "$TMP/s.txt"
check "a skipped point's row says so" grep -Eq '^ +2 +3 +2 +- +- +skipped$' "$TMP/s.txt"
check "a point that ran is judged" grep -Eq '^ +3 +3 +5 +3300 +4 +no$' "$TMP/s.txt"
check "the closest is a point that ran" grep -q '^closest: point 3: ' "$TMP/s.txt"
check "the runs of the 3 points that ran, 2 each" \
    [ "$(sqlite3 "$TMP/out/s.db" "select count(*) || ' ' || group_concat(distinct point) from runs")" = "6 0,1,3" ]
check "no shard folder is left" [ "$(ls "$TMP/out")" = s.db ]
"$LSIM" sweep "$TMP/skip.yaml" $GRID $ASK --out "$TMP/out/j.db" --skip-invalid --json --quiet \
    >"$TMP/j.json" 2>"$TMP/j.err"
check "--json lists the skipped points" grep -q '"runs":12,"seed":1,"skipped":\[2,4,5\],' "$TMP/j.json"
check "--quiet: nothing on stderr" [ ! -s "$TMP/j.err" ]
"$LSIM" report "$TMP/out/s.db" -o "$TMP/out/s.html" >/dev/null 2>&1
check "the report marks the skipped points" [ "$(grep -c '>skipped</td>' "$TMP/out/s.html")" -eq 3 ]
"$LSIM" plot "$TMP/out/s.db" --kind sweep -o "$TMP/out/s.svg" >/dev/null 2>&1
check "the sweep plot draws with points missing" grep -q '<svg' "$TMP/out/s.svg"

# 3. Every point refused: nothing to run, the first refusal as without the flag.
expect_error 2 "--vary container.maxConcurrentConsumers:1:1: maxConcurrentConsumers: 2 is less than concurrentConsumers (3)" -- \
    "$LSIM" sweep "$TMP/skip.yaml" --vary container.concurrentConsumers=3,6 \
    --vary container.maxConcurrentConsumers=2 --skip-invalid --out "$TMP/out/x.db"

# 4. A plan runs every point: the flag is refused there.
expect_error 2 "lsim: --skip-invalid runs a sweep here, not with --plan or --shard (a plan's jobs and lsim merge run every point)" -- \
    "$LSIM" sweep "$TMP/skip.yaml" $GRID --skip-invalid --plan "$TMP/out/plan"

echo "$count sweep-skip checks, $failures failed"
[ "$failures" -eq 0 ]
