#!/bin/sh
# plot_test.sh LSIM -- `lsim plot`: every kind gives SVG that a real XML
# parser (/usr/bin/python3, xml.etree) accepts, with the content checked
# against the run (tests/cli/check_svg.py): the Gantt of the seed article
# has one bar per message, on the article's workers; the groups heat map
# counts every message once.  Bad input exits 2, an unwritable output 1,
# each with its exact message and no file left behind.
# Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
PY=/usr/bin/python3
CHECK=tests/cli/check_svg.py
. tests/cli/lib.sh
cli_begin plot


# expect_error STATUS MESSAGE -- COMMAND...: exit STATUS, exactly MESSAGE on
# stderr, and nothing new in $TMP/out (which may hold the files in $KEEP).
expect_error() {
    expect_status "$@"
    shift 3
    left=$(ls -A "$TMP/out")
    [ "$left" = "${KEEP:-}" ] || fail "$*: left files: $left"
}

# check KIND DB EXPECTATION...: plot, then check the SVG with check_svg.py.
check() {
    kind=$1 db=$2
    shift 2
    count=$((count + 1))
    svg="$TMP/$(basename "$db" .db)-$kind.svg"
    if ! "$LSIM" plot "$db" --kind "$kind" -o "$svg" >"$TMP/stdout" 2>"$TMP/stderr"; then
        fail "plot $db --kind $kind: $(cat "$TMP/stderr")"
        return
    fi
    [ "$(cat "$TMP/stdout")" = "$kind: $svg" ] || fail "plot --kind $kind: stdout $(cat "$TMP/stdout")"
    $PY $CHECK "$svg" "$kind" "$@" || fail "plot $db --kind $kind: $svg does not hold what it should"
}

mkdir -p "$TMP/out"
SEED=scenarios/seed-competing-consumers.yaml
"$LSIM" run $SEED --out "$TMP/seed.db" --quiet >/dev/null || fail "run $SEED"
"$LSIM" run scenarios/groups-zipf-nodes.yaml --out "$TMP/groups.db" --quiet >/dev/null ||
    fail "run groups-zipf-nodes"
"$LSIM" run scenarios/timeline-nodes-burst.yaml --out "$TMP/burst.db" --quiet >/dev/null ||
    fail "run timeline-nodes-burst"

# 1. The seed article's table, drawn: nine bars on the article's workers.
check gantt "$TMP/seed.db" bars=9 lanes=3 \
    "consumers=1:1,4,6,8 2:2,5,9 3:3,7" "times=1:1.000-1001.000 9:4003.000-6003.000"
check timeline "$TMP/seed.db" nodes=1 scaling=0
check groups "$TMP/seed.db" cells=3 cellsum=9 rows=1
# 2. Several nodes, groups, a longer run.
check gantt "$TMP/groups.db" bars=3000 lanes=6 groups=8
check groups "$TMP/groups.db" cells=48 cellsum=3000 rows=8
check timeline "$TMP/burst.db" nodes=3 scaling=0
# 2b. Where messages wait: the broker queue stays empty (ready 0) while the
# backlog grows in the consumer's prefetch buffer, and latency with it; the
# timeline draws the buffer's line rising to near the top of its panel.
O="$TMP/out/x.svg"
"$LSIM" run scenarios/smlc-prefetch-hidden.yaml --out "$TMP/pf.db" \
    --quiet >/dev/null || fail "run smlc-prefetch-hidden"
count=$((count + 1))
facts=$(sqlite3 "$TMP/pf.db" "select max(queue_depth), max(prefetched), max(unacked),
    count(distinct queue), (select value from summary where metric = 'max_latency_ms') > 28000
    from samples")
[ "$facts" = "0|360|361|1|1" ] || fail "prefetch case: ready, prefetched, unacked, queues, latency: $facts"
check timeline "$TMP/pf.db" nodes=1 waiting=0:120
# Two queues: one row per node and queue, a pair of lines per queue.
cat >"$TMP/two.yaml" <<'EOF2'
name: two-queues
duration: 60s
queues:
  - { name: a, arrivals: { kind: constant, rate: 30/s }, service: { kind: constant, value: 100ms } }
  - { name: b, arrivals: { kind: constant, rate: 5/s }, service: { kind: constant, value: 100ms } }
container: { kind: direct, consumersPerQueue: 2 }
EOF2
"$LSIM" run "$TMP/two.yaml" --detail samples --out "$TMP/two.db" --quiet >/dev/null || fail "run two queues"
count=$((count + 1))
[ "$(sqlite3 "$TMP/two.db" "select group_concat(queue) from (select distinct queue from samples order by queue)")" = "a,b" ] ||
    fail "two queues: the samples do not name a and b"
"$LSIM" plot "$TMP/two.db" --kind timeline -o "$TMP/two.svg" >/dev/null || fail "plot two queues"
count=$((count + 1))
$PY -c '
import sys, xml.etree.ElementTree as ET
t = [x.text for x in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text")]
sys.exit(0 if all(q + w in t for q in ("a: ", "b: ") for w in ("ready in the broker", "in consumers\x27 buffers")) else 1)
' "$TMP/two.svg" || fail "two queues: the legend does not name both queues' lines"
# Windows: --from/--to on every kind; the axis in the window's unit.
count=$((count + 1))
"$LSIM" plot "$TMP/pf.db" --kind timeline --from 10m --to 12m -o "$TMP/w.svg" >/dev/null &&
    grep -q '>time (s)<' "$TMP/w.svg" && grep -q '>time (min)<' "$TMP/pf-timeline.svg" ||
    fail "timeline --from/--to: not drawn in the window's unit"
"$LSIM" run $SEED --out "$TMP/seedw.db" --quiet >/dev/null
check_window() {   # check_window KIND FROM TO EXPECTATION...
    kind=$1 from=$2 to=$3
    shift 3
    count=$((count + 1))
    "$LSIM" plot "$TMP/seed.db" --kind "$kind" --from "$from" --to "$to" -o "$TMP/w-$kind.svg" \
        >/dev/null 2>"$TMP/stderr" || { fail "plot $kind --from $from --to $to: $(cat "$TMP/stderr")"; return; }
    $PY $CHECK "$TMP/w-$kind.svg" "$kind" "$@" || fail "plot $kind --from $from --to $to"
}
# The seed's messages 1-3 run 1-1001, 1-2001, 1-3001 ms, 4 from 1002 ms; 3, 5, 6, 7
# and 8 run at some time between 2.5 and 3.5 s.
check_window gantt 0s 1s bars=3
check_window gantt 2500ms 3500ms bars=5 "times=3:1.000-3001.000 8:3004.000-4004.000"
check_window groups 0s 1s cells=3 cellsum=3
check_window timeline 1s 3s nodes=1
expect_error 2 "$TMP/seed.db: --from: the run ends at 6003 ms" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt --from 1h -o "$O"
expect_error 2 "$TMP/seed.db: --to must come after --from" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt --from 3s --to 2s -o "$O"
expect_error 2 "lsim: --from: 'soon' is not a duration (like 250ms, 1.5s, 2m, 1h)" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt --from soon -o "$O"
# Bars narrower than 2 px stay visible: no white outline, 2 px wide.
count=$((count + 1))
"$LSIM" plot "$TMP/pf.db" --kind gantt -o "$TMP/thin.svg" >/dev/null 2>&1 || true
$PY - "$TMP/thin.svg" <<'EOP' || fail "thin Gantt bars are not drawn visible"
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
bars = [r for r in ET.parse(sys.argv[1]).getroot().iter(NS + "rect") if "bar" in r.get("class", "").split()]
thin = [r for r in bars if "thin" in r.get("class").split()]
assert bars and len(thin) == len(bars), (len(bars), len(thin))
assert all(float(r.get("width")) >= 2 for r in thin)
EOP

# 2c. A sweep: each point against the varied key, the requirement, the answer.
"$LSIM" sweep scenarios/smlc-burst-ramp.yaml --vary container.concurrentConsumers=2..14:4 \
    --set container.maxConcurrentConsumers=20 --reps 2 --require 'p99_latency_ms<=30000' \
    --minimize consumers_max --quiet --out "$TMP/sweep.db" >/dev/null || fail "sweep for the plot"
check sweep "$TMP/sweep.db" points=4 panels=2 misses=6 answer=answer
"$LSIM" sweep scenarios/smlc-burst-ramp.yaml --vary container.maxConcurrentConsumers=10,20 \
    --reps 2 --require 'p99_latency_ms<=30000' --quiet --out "$TMP/sweep2.db" >/dev/null
check sweep "$TMP/sweep2.db" points=2 panels=1 misses=2 answer=closest
expect_error 2 "$TMP/seed.db: not a sweep database (no sweep and points tables: it was written by lsim run, not lsim sweep)" -- \
    "$LSIM" plot "$TMP/seed.db" --kind sweep -o "$O"

# 2d. A starvation figure in ms reads in s or min once it is large.
"$LSIM" run scenarios/jms-hot-group.yaml --out "$TMP/hot.db" --quiet >/dev/null || fail "run jms-hot-group"
"$LSIM" plot "$TMP/hot.db" --kind groups -o "$TMP/hot.svg" >/dev/null || fail "plot jms-hot-group"
count=$((count + 1))
$PY -c '
import sys, re, xml.etree.ElementTree as ET
t = [x.text or "" for x in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text")]
sys.exit(0 if any(re.fullmatch(r"starved\w* \((s|min)\)", x) for x in t) else 1)
' "$TMP/hot.svg" || fail "groups: the starvation axis is not in s or min"

# 3. Another run of a database: --run picks it.
count=$((count + 1))
"$LSIM" plot "$TMP/seed.db" --kind gantt --run 1 -o "$TMP/run1.svg" >/dev/null ||
    fail "plot --run 1"
cmp -s "$TMP/run1.svg" "$TMP/seed-gantt.svg" || fail "--run 1 differs from the first run"

# 4. Bad input: exit 2, the database named, no file.
printf 'not a database, only text\n' >"$TMP/text.db"
$PY -c "import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute('create table t(x)')" "$TMP/empty.db"
$PY - "$TMP/nocols.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("create table runs(run, scenario, seed)")
db.execute("insert into runs values (1, 'x', 1)")
db.execute("create table samples(run, t)")
db.commit()
PY
"$LSIM" run $SEED --detail summary --out "$TMP/summary.db" --quiet >/dev/null || fail "run --detail summary"
O="$TMP/out/x.svg"
expect_error 2 "$TMP/none.db: cannot open: No such file or directory" -- \
    "$LSIM" plot "$TMP/none.db" --kind gantt -o "$O"
expect_error 2 "$TMP/text.db: not an SQLite database (file is not a database)" -- \
    "$LSIM" plot "$TMP/text.db" --kind gantt -o "$O"
expect_error 2 "$TMP/empty.db: no table 'runs' (is it a database written by lsim run?)" -- \
    "$LSIM" plot "$TMP/empty.db" --kind timeline -o "$O"
expect_error 2 "$TMP/nocols.db: cannot read it: no such column: queue_depth" -- \
    "$LSIM" plot "$TMP/nocols.db" --kind timeline -o "$O"
expect_error 2 "$TMP/nocols.db: no table 'messages' (is it a database written by lsim run?)" -- \
    "$LSIM" plot "$TMP/nocols.db" --kind gantt -o "$O"
expect_error 2 "$TMP/summary.db: run 1 has no samples (run it with --detail samples or messages)" -- \
    "$LSIM" plot "$TMP/summary.db" --kind timeline -o "$O"
expect_error 2 "$TMP/summary.db: no message began in run 1 (run it with --detail messages)" -- \
    "$LSIM" plot "$TMP/summary.db" --kind gantt -o "$O"
expect_error 2 "$TMP/summary.db: no message began in run 1 (run it with --detail messages)" -- \
    "$LSIM" plot "$TMP/summary.db" --kind groups -o "$O"
expect_error 2 "$TMP/seed.db: no run 5 in it" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt --run 5 -o "$O"
expect_error 2 "$TMP: is a folder, not a database" -- "$LSIM" plot "$TMP" --kind gantt -o "$O"

# 5. Bad usage: exit 2.
expect_error 2 "lsim: --kind: 'pie' is not one of timeline, gantt, groups, sweep" -- \
    "$LSIM" plot "$TMP/seed.db" --kind pie -o "$O"
expect_error 2 "lsim: --kind is required: timeline, gantt, groups or sweep" -- \
    "$LSIM" plot "$TMP/seed.db" -o "$O"
expect_error 2 "lsim: -o FILE.svg is required" -- "$LSIM" plot "$TMP/seed.db" --kind gantt
expect_error 2 "lsim: which database? (lsim plot FILE.db --kind timeline|gantt|groups|sweep -o FILE.svg)" -- \
    "$LSIM" plot --kind gantt -o "$O"
expect_error 2 "lsim: --run: 'first' is not a run number" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt --run first -o "$O"
expect_error 2 "lsim: unknown option '--width'" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt --width 5 -o "$O"

# 6. The output cannot be created: exit 2 (as in every command), no file,
#    no temporary left.
expect_error 2 "lsim: cannot write $TMP/out/missing/x.svg: No such file or directory" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt -o "$TMP/out/missing/x.svg"
mkdir "$TMP/out/folder"
KEEP=folder
expect_error 2 "lsim: cannot write $TMP/out/folder: Is a directory" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt -o "$TMP/out/folder"

echo "$count plot checks, $failures failed"
[ "$failures" -eq 0 ]
