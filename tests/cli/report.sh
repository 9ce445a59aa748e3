#!/bin/sh
# report.sh LSIM -- `lsim report` on a run, a sweep and a comparison, each
# page checked in headless Chromium: it loads with no console error, its
# screenshot is not blank, and its DOM holds the figures and tables it
# should (the page's script counts them into data attributes of <body>).
# The page is self-contained: nothing in it refers to another file or to
# the network.  Bad input exits 2 and leaves no file.
# Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
PY=/usr/bin/python3
. tests/cli/lib.sh
cli_begin report

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "FAIL: chromium is missing (make deps installs it)"; exit 1; }

# browse NAME FILE: the DOM (NAME.dom), a screenshot (NAME.png) and the
# browser's log (NAME.log), each run with a profile of its own.
browse() {
    for what in dump-dom screenshot; do
        rm -rf "$TMP/profile"
        extra="--dump-dom"
        [ $what = screenshot ] && extra="--screenshot=$TMP/$1.png --window-size=1100,1600"
        timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
            --no-first-run --disable-background-networking --disable-component-update \
            --disable-sync --user-data-dir="$TMP/profile" --enable-logging=stderr --v=0 \
            $extra "file://$2" >"$TMP/$1.$what" 2>>"$TMP/$1.log"
    done
    mv "$TMP/$1.dump-dom" "$TMP/$1.dom"
}

# What Chromium logs for a console message or a script error.
ERRORS='CONSOLE|Uncaught|SyntaxError|TypeError|ReferenceError'

# 0. The harness sees a console error when there is one.
printf '<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>\n' \
    >"$TMP/bad.html"
browse bad "$TMP/bad.html"
check "a page with a script error shows in the log" grep -qE "$ERRORS" "$TMP/bad.log"

# page NAME DB FIGURES TABLES ID...: the report of DB, loaded and checked.
page() {
    name=$1 db=$2 figures=$3 tables=$4
    shift 4
    "$LSIM" report "$db" -o "$TMP/$name.html" >"$TMP/$name.out" 2>"$TMP/$name.err"
    check "$name: report exits 0" [ $? -eq 0 ]
    check "$name: says where" [ "$(cat "$TMP/$name.out")" = "report: $TMP/$name.html" ]
    check "$name: nothing fetched" sh -c "! grep -qiE '<link|<img|src=|href=|url\(|@import|https?://[^w]' '$TMP/$name.html'"
    browse "$name" "$TMP/$name.html"
    check "$name: no console error" sh -c "! grep -qE '$ERRORS' '$TMP/$name.log'"
    check "$name: $figures figures in the DOM" grep -q "data-figures=\"$figures\"" "$TMP/$name.dom"
    check "$name: $tables tables in the DOM" grep -q "data-tables=\"$tables\"" "$TMP/$name.dom"
    for id in "$@"; do
        check "$name: #$id in the DOM" grep -q "id=\"$id\"" "$TMP/$name.dom"
    done
    $PY - "$TMP/$name.png" <<'EOP' >"$TMP/$name.pix" 2>&1
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = im.size
px = im.getdata()
dark = sum(1 for p in px if sum(p) < 600)
colours = len(set(px))
print(w, h, dark, colours)
sys.exit(0 if w >= 1000 and dark > 0.01 * w * h and colours > 20 else 1)
EOP
    check "$name: the screenshot is not blank ($(cat "$TMP/$name.pix"))" [ $? -eq 0 ]
}

# 1. A run: summary, timeline, Gantt, groups, scaling decisions.
"$LSIM" run scenarios/smlc-burst.yaml --out "$TMP/run.db" --quiet >/dev/null || fail "run"
page run "$TMP/run.db" 3 2 summary-table timeline-figure gantt-figure groups-figure scaling-table
check "run: the scaling rules" grep -q 'considerAddingAConsumer' "$TMP/run.dom"
check "run: the rule's detail" grep -q 'consecutiveMessages' "$TMP/run.dom"
check "run: where messages wait" grep -q "in consumers" "$TMP/run.dom"

# 2. A sweep that finds no point: the answer, its explanation, the table,
# the picture.
"$LSIM" sweep scenarios/smlc-burst-ramp.yaml --vary container.maxConcurrentConsumers=10,20 \
    --reps 2 --require 'p99_latency_ms<=30000' --minimize consumers_max --quiet \
    --out "$TMP/sweep.db" >/dev/null
page sweep "$TMP/sweep.db" 1 1 answer explanation points-table sweep-figure
check "sweep: no point meets" grep -q 'no point meets the requirement' "$TMP/sweep.dom"
check "sweep: the explanation names the ramp" grep -q 'startConsumerMinInterval' "$TMP/sweep.dom"
check "sweep: the closest point marked" grep -q 'class="answer"' "$TMP/sweep.dom"
check "sweep: identical replications said" grep -q 'id="identical"' "$TMP/sweep.dom"

# 3. A comparison: the verdict, metric by metric, consumers real against
# simulated, the simulated timeline; bands when the database has them.
"$LSIM" compare scenarios/smlc-S1-trace.yaml tests/data/traces/smlc-S1-burst-scaleup-run1.csv \
    --out "$TMP/cmp.db" --quiet >/dev/null || fail "compare"
page compare "$TMP/cmp.db" 2 1 verdict-box comparison-table consumers-figure timeline-figure
check "compare: the verdicts" grep -q 'class="ok"' "$TMP/compare.dom"
check "compare: no bands without a bands table" sh -c "! grep -q 'id=\"bands\"' '$TMP/compare.dom'"
cp "$TMP/cmp.db" "$TMP/bands.db"
sqlite3 "$TMP/bands.db" "create table bands(metric text, low real, high real, real real, inside text);
    insert into bands values ('p99_latency_ms', 84000, 85000, 84392, 'ok')"
page bands "$TMP/bands.db" 2 2 bands bands-table-1

# 4. Bad input and usage: exit 2, no file.
mkdir -p "$TMP/out"
"$LSIM" report "$TMP/none.db" -o "$TMP/out/x.html" >/dev/null 2>"$TMP/e1"
check "a missing database: exit 2" [ $? -eq 2 ]
check "a missing database: said" grep -q "none.db: cannot open" "$TMP/e1"
printf 'text\n' >"$TMP/text.db"
"$LSIM" report "$TMP/text.db" -o "$TMP/out/x.html" >/dev/null 2>"$TMP/e2"
check "not a database: exit 2" [ $? -eq 2 ]
"$LSIM" report "$TMP/run.db" >/dev/null 2>"$TMP/e3"
check "no -o: exit 2" [ $? -eq 2 ]
"$LSIM" report "$TMP/run.db" --run 9 -o "$TMP/out/x.html" >/dev/null 2>"$TMP/e4"
check "no such run: exit 2" [ $? -eq 2 ]
"$LSIM" report "$TMP/run.db" -o "$TMP/nodir/x.html" >/dev/null 2>"$TMP/e5"
check "an output that cannot be created: exit 2, as in every command" [ $? -eq 2 ]
check "no file left" [ -z "$(ls -A "$TMP/out")" ]

echo "report: $count checks, $failures failures"
[ "$failures" -eq 0 ]
