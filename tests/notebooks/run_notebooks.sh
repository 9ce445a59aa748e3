#!/bin/sh
# run_notebooks.sh LSIM OUTDIR [FIGDIR] -- `make notebooks`: makes each
# notebook's default database afresh (three runs, a short `lsim sweep` of
# scenarios/tune-smlc-bursty.yaml, an `lsim compare` of the real trace S1
# against scenarios/smlc-S1-trace.yaml), executes every notebook headless
# against those databases (LSIM_DB) with Debian's jupyter, writes
# OUTDIR/<notebook>.html, and checks that each HTML holds its figures and no
# error output.  With FIGDIR, the notebooks also save their main figure there
# as PNG (`make notebooks FIGDIR=docs/img` refreshes the README's pictures).
# Run from the top of the repository.
set -eu
LSIM=$1
OUT=$2
FIGDIR=${3:-}
PY=/usr/bin/python3
JUPYTER=/usr/bin/jupyter
[ -x "$JUPYTER" ] || { echo "run_notebooks.sh: $JUPYTER is missing: run make deps" >&2; exit 1; }
mkdir -p "$OUT"
ABS_OUT=$(cd "$OUT" && pwd)
# ipykernel's debugger warns about frozen modules on every start; it does
# not concern a headless run.
export PYDEVD_DISABLE_FILE_VALIDATION=1
if [ -n "$FIGDIR" ]; then
    mkdir -p "$FIGDIR"
    LSIM_FIGDIR=$(cd "$FIGDIR" && pwd)
    export LSIM_FIGDIR
fi

for scenario in timeline-nodes-burst seed-competing-consumers groups-zipf-nodes; do
    "$LSIM" run "scenarios/$scenario.yaml" --out "$OUT/$scenario.db" --quiet >/dev/null
done
# The same commands as the notebooks' introductions give.
"$LSIM" sweep scenarios/tune-smlc-bursty.yaml --vary container.maxConcurrentConsumers=10..20:2 \
    --reps 5 --require 'p99_latency_ms<=2000' --minimize consumer_seconds -j 2 \
    --out "$OUT/tune-smlc-bursty-sweep.db" --quiet >/dev/null
# compare exits 3 when a metric is outside its tolerance: the database is
# written all the same, and the notebook shows the verdicts.
status=0
"$LSIM" compare scenarios/smlc-S1-trace.yaml tests/data/traces/smlc-S1-burst-scaleup-run1.csv \
    --out "$OUT/smlc-S1-trace-compare.db" --quiet >/dev/null || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || { echo "run_notebooks.sh: lsim compare failed ($status)" >&2; exit 1; }

for pair in timeline:timeline-nodes-burst consumers:seed-competing-consumers \
            groups:groups-zipf-nodes sweep:tune-smlc-bursty-sweep \
            compare:smlc-S1-trace-compare; do
    nb=${pair%%:*}
    db=${pair#*:}
    echo "== notebooks/$nb.ipynb on $OUT/$db.db"
    LSIM_DB="$ABS_OUT/$db.db" $JUPYTER nbconvert --execute --to html --log-level WARN \
        --output-dir "$OUT" "notebooks/$nb.ipynb"
done

$PY tests/notebooks/check_html.py "$OUT" timeline=1 consumers=2 groups=1 sweep=1 compare=1
