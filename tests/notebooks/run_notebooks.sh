#!/bin/sh
# run_notebooks.sh LSIM OUTDIR [FIGDIR] -- `make notebooks`: simulates each
# notebook's default scenario afresh, builds the sweep and compare fixtures,
# executes every notebook headless against those databases (LSIM_DB) with
# Debian's jupyter, writes OUTDIR/<notebook>.html, and checks that each HTML
# holds its figures and no error output.  With FIGDIR, the notebooks also
# save their main figure there as PNG (`make notebooks FIGDIR=docs/img`
# refreshes the README's pictures).  Run from the top of the repository.
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
$PY tests/notebooks/make_fixtures.py "$LSIM" "$OUT"

for pair in timeline:timeline-nodes-burst consumers:seed-competing-consumers \
            groups:groups-zipf-nodes sweep:sweep-fixture compare:compare-fixture; do
    nb=${pair%%:*}
    db=${pair#*:}
    echo "== notebooks/$nb.ipynb on $OUT/$db.db"
    LSIM_DB="$ABS_OUT/$db.db" $JUPYTER nbconvert --execute --to html --log-level WARN \
        --output-dir "$OUT" "notebooks/$nb.ipynb"
done

$PY tests/notebooks/check_html.py "$OUT" timeline=1 consumers=2 groups=1 sweep=1 compare=1
