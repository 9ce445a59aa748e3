#!/bin/sh
# same_output.sh OLD NEW [SCENARIO...] -- the proof that a change moved code
# and changed nothing: every scenario run by both binaries at every --detail
# (summary, samples, messages) with --trace, the same seed, and the
# databases (sqlite3 .dump), the traces and the printed summaries compared
# byte for byte (runs.started_at, the wall clock, left out).  Without
# SCENARIO: scenarios/*.yaml and tests/bench/*.yaml.
# A scenario that OLD does not finish within LIMIT seconds (default 20) at a
# detail is skipped, and said; any difference fails (exit 1).
set -u
old=$1 new=$2
shift 2
limit=${LIMIT:-20}
seed=${SEED:-7}
[ $# -gt 0 ] || set -- scenarios/*.yaml tests/bench/*.yaml
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
fail=0 same=0 skipped=""
for scen in "$@"; do
    case $scen in /*) abs=$scen ;; *) abs=$top/$scen ;; esac
    for detail in summary samples messages; do
        for side in old new; do
            eval bin=\$$side
            case $bin in /*) ;; *) bin=$top/$bin ;; esac
            d=$tmp/$side
            rm -rf "$d" && mkdir -p "$d"
            # The same relative paths on both sides: a path a database keeps
            # is then the same too.
            (cd "$d" && timeout "$limit" "$bin" run "$abs" --seed "$seed" --detail "$detail" \
                 --out run.db --trace run.csv --quiet >stdout 2>stderr)
            echo $? >"$d/status"
            # The one wall-clock value a database holds: runs.started_at.
            if [ -f "$d/run.db" ]; then
                sqlite3 "$d/run.db" .dump |
                    sed "s/'[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9:]*Z'/'STARTED_AT'/" >"$d/dump"
            fi
        done
        if [ "$(cat "$tmp/old/status")" = 124 ]; then
            skipped="$skipped $scen@$detail"
            continue
        fi
        for f in status stdout stderr dump run.csv; do
            if [ -f "$tmp/old/$f" ] || [ -f "$tmp/new/$f" ]; then
                if ! cmp -s "$tmp/old/$f" "$tmp/new/$f"; then
                    echo "DIFFERS: $scen --detail $detail: $f"
                    diff "$tmp/old/$f" "$tmp/new/$f" | head -5
                    fail=1
                fi
            fi
        done
        same=$((same + 1))
    done
done
echo "same_output: $same scenario runs compared (database dump, trace, stdout, stderr, status)"
[ -z "$skipped" ] || echo "same_output: skipped (over ${limit} s with OLD):$skipped"
[ $fail = 0 ] && echo "same_output: no difference" || echo "same_output: DIFFERENCES"
exit $fail
