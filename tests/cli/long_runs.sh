#!/bin/sh
# long_runs.sh LSIM -- what a long run tells before and after: a run whose
# message rows would pass the limit (about 1 GB; LSIM_ROWS_WARN_BYTES here)
# warns as soon as 1 % of it is done, with the projected size and
# --detail samples, and not with --detail samples or --quiet; samples past
# it warn before the run, with a longer sample_interval; summary
# quantiles print with the four digits the histogram is exact to, --json
# keeps every digit; on a terminal, progress gives the wall-clock time left.
# Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin long-runs

S=scenarios/smlc-prefetch-hidden.yaml   # 22,861 messages in 30 minutes
LSIM_ROWS_WARN_BYTES=1000000 "$LSIM" run $S --out "$TMP/a.db" >/dev/null 2>"$TMP/a.err"
check "a run past the limit: exit 0" [ $? -eq 0 ]
check "it warns once" [ "$(grep -c 'lsim: warning: this run will write about' "$TMP/a.err")" -eq 1 ]
check "with the projected size and count" grep -q 'about 2 MB of message rows (0.0229 million messages)' "$TMP/a.err"
check "and --detail samples" grep -q -- '--detail samples' "$TMP/a.err"
check "the run still writes its rows" [ "$(sqlite3 "$TMP/a.db" 'select count(*) from messages')" -eq 22861 ]
LSIM_ROWS_WARN_BYTES=1000000 "$LSIM" run $S --out "$TMP/b.db" --detail samples >/dev/null 2>"$TMP/b.err"
check "--detail samples: no warning" [ ! -s "$TMP/b.err" ]
LSIM_ROWS_WARN_BYTES=1000000 "$LSIM" run $S --out "$TMP/c.db" --quiet >/dev/null 2>"$TMP/c.err"
check "--quiet: no warning" [ ! -s "$TMP/c.err" ]
LSIM_ROWS_WARN_BYTES=10000000 "$LSIM" run $S --out "$TMP/d.db" >/dev/null 2>"$TMP/d.err"
check "below the limit: no warning" [ ! -s "$TMP/d.err" ]
# 24 hours of it: about 80 MB, below the default 1 GB
"$LSIM" run $S --set duration=24h --out "$TMP/e.db" >/dev/null 2>"$TMP/e.err"
check "the default limit is about 1 GB" [ ! -s "$TMP/e.err" ]
LSIM_ROWS_WARN_BYTES=50000000 "$LSIM" run $S --set duration=24h --detail summary --out "$TMP/f.db" \
    >/dev/null 2>"$TMP/f.err"
check "--detail summary: no warning" [ ! -s "$TMP/f.err" ]
# Samples are known before the run: past the same limit, a warning before
# the first, with a round sample_interval that stays below it (about 23
# bytes a row and the queue's name: 2.82 MB here); compare warns too (a
# trace years long compared at 1 s wrote 2.8 GB), once for all its
# replications' samples.
LSIM_ROWS_WARN_BYTES=1000000 "$LSIM" run $S --set duration=24h --detail samples --out "$TMP/g.db" \
    >/dev/null 2>"$TMP/g.err"
check "samples past the limit: exit 0" [ $? -eq 0 ]
check "samples past the limit: a warning with their size and a longer interval" [ "$(cat "$TMP/g.err")" = \
    "lsim: warning: this run will write about 3 MB of samples (0.0864 million rows: one for each node and queue every 1 s of 86400 s); sample_interval: 10s writes about 251 KB" ]
check "and the run still writes them" [ "$(sqlite3 "$TMP/g.db" 'select count(*) from samples')" -eq 86401 ]
LSIM_ROWS_WARN_BYTES=1000000 "$LSIM" run $S --set duration=24h --detail samples --quiet --out "$TMP/h.db" \
    >/dev/null 2>"$TMP/h.err"
check "samples, --quiet: no warning" [ ! -s "$TMP/h.err" ]
LSIM_ROWS_WARN_BYTES=1000000 "$LSIM" run $S --set duration=24h --set sample_interval=10s --detail samples \
    --out "$TMP/i.db" >/dev/null 2>"$TMP/i.err"
check "samples, the interval it gives: no warning" [ ! -s "$TMP/i.err" ]
"$LSIM" run $S --set duration=5m --trace "$TMP/t.csv" --detail summary --out "$TMP/t.db" >/dev/null 2>&1
#   (each run's samples, about 52 KB, are below 100 KB; the three runs' are not)
LSIM_ROWS_WARN_BYTES=100000 "$LSIM" compare $S "$TMP/t.csv" --reps 3 --out "$TMP/cmp.db" >/dev/null 2>"$TMP/cmp.err"
check "compare: the samples warning, once" [ "$(grep -c 'of samples' "$TMP/cmp.err")" -eq 1 ]
check "compare: for every replication, with the interval" grep -q 'this comparison will write about 157 KB of samples (0.0054 million rows: one for each node and queue every 1 s of 1800 s in each of 3 runs); sample_interval: 10s writes about 16 KB$' "$TMP/cmp.err"

# Progress on a terminal (script(1) gives the run one): the wall-clock time
# left.  Forty days of the scenario take about four seconds of wall time,
# past the first second after which progress shows (ten days took just over
# one second once the engine was faster, and missed it now and then).
if command -v script >/dev/null; then
    script -qc "$LSIM run $S --set duration=960h --detail summary --out $TMP/p.db" /dev/null \
        </dev/null >"$TMP/p.tty" 2>&1
    check "progress shows the time left" sh -c "tr '\r' '\n' <'$TMP/p.tty' | grep -aqE '^\[lsim\] [0-9.]+ s of 3456000.0 s virtual \( *[0-9]+%\), [0-9]+ messages, about [0-9]+ (s|min [0-9]+ s) left'"
fi

# Quantiles: as many digits as they are exact to.
cat >"$TMP/c80.yaml" <<'EOS'
name: c80
duration: 60s
queue: { arrivals: { kind: poisson, rate: 5/s }, service: { kind: constant, value: 80ms } }
container: { kind: competing, workers: 20 }
EOS
"$LSIM" run "$TMP/c80.yaml" --detail summary --out "$TMP/g.db" >"$TMP/g.out"
check "a constant 80 ms prints p50 80" grep -qE '^  p50_latency_ms +80$' "$TMP/g.out"
"$LSIM" run $S --detail summary --out "$TMP/h.db" >"$TMP/h.out"
check "p50 of 14248.19 ms prints 14250" grep -qE '^  p50_latency_ms +14250$' "$TMP/h.out"
check "means keep their digits" grep -qE '^  mean_latency_ms +14252.59843$' "$TMP/h.out"
"$LSIM" run $S --detail summary --json --out "$TMP/i.db" >"$TMP/i.json"
check "--json keeps every digit" grep -q '"p50_latency_ms":14248.18898' "$TMP/i.json"

echo "long-runs: $count checks, $failures failures"
[ "$failures" -eq 0 ]
