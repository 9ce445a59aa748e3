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
    status=$1 message=$2
    shift 3
    count=$((count + 1))
    "$@" >"$TMP/stdout" 2>"$TMP/stderr"
    got=$?
    [ "$got" -eq "$status" ] || fail "$*: exit $got, expected $status"
    if [ "$(cat "$TMP/stderr")" != "$message" ]; then
        fail "$*: stderr was"
        sed 's/^/    /' "$TMP/stderr"
        echo "  expected"
        echo "    $message"
    fi
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
expect_error 2 "lsim: --kind: 'pie' is not one of timeline, gantt, groups" -- \
    "$LSIM" plot "$TMP/seed.db" --kind pie -o "$O"
expect_error 2 "lsim: --kind is required: timeline, gantt or groups" -- \
    "$LSIM" plot "$TMP/seed.db" -o "$O"
expect_error 2 "lsim: -o FILE.svg is required" -- "$LSIM" plot "$TMP/seed.db" --kind gantt
expect_error 2 "lsim: which database? (lsim plot FILE.db --kind timeline|gantt|groups -o FILE.svg)" -- \
    "$LSIM" plot --kind gantt -o "$O"
expect_error 2 "lsim: --run: 'first' is not a run number" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt --run first -o "$O"
expect_error 2 "lsim: unknown option '--width'" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt --width 5 -o "$O"

# 6. The output cannot be written: exit 1, no file, no temporary left.
expect_error 1 "lsim: cannot write $TMP/out/missing/x.svg: No such file or directory" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt -o "$TMP/out/missing/x.svg"
mkdir "$TMP/out/folder"
KEEP=folder
expect_error 1 "lsim: cannot write $TMP/out/folder: Is a directory" -- \
    "$LSIM" plot "$TMP/seed.db" --kind gantt -o "$TMP/out/folder"

echo "$count plot checks, $failures failed"
[ "$failures" -eq 0 ]
