#!/bin/sh
# run.sh BUILD PYTHON -- the benchmarks (make bench).  Figures are medians of
# several runs: the machines are noisy, so quote medians and ratios.
set -eu
B=${1:-build}
PY=${2:-/usr/bin/python3}
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

echo "== M/M/8 (lambda 7.2/s, mu 1/s), 1,000,000 messages, --detail summary, 5 runs"
"$B/bench" tests/bench/mm8.yaml summary 5 | tee /tmp/lsim-bench-summary.txt
echo "== the same with 4,000,000 messages: peak memory does not grow with messages"
"$B/bench" tests/bench/mm8.yaml summary 3 queue.count=4000000 | tail -n 1
echo "== M/M/8, 1,000,000 messages, --detail messages (a row per message into SQLite), 5 runs"
"$B/bench" tests/bench/mm8.yaml messages 5 | tail -n 1

echo "== SMLC 1-10 consumers, 1,000,000 messages in bursts, steady phases and idle gaps, --detail summary, 5 runs"
"$B/bench" tests/bench/smlc.yaml summary 5 | tail -n 1
echo "== the same SMLC run, --detail messages (a row per message into SQLite), 3 runs"
"$B/bench" tests/bench/smlc.yaml messages 3 | tail -n 1
echo "== ActiveMQ + DMLC on 3 nodes, 1,000,000 messages over 500 groups, --detail summary, 5 runs"
"$B/bench" tests/bench/jms-groups.yaml summary 5 | tail -n 1
echo "== ActiveMQ, a full page window rescanned at every acknowledgement (worst case), 200,000 messages, 5 runs"
"$B/bench" tests/bench/jms-window.yaml summary 5 | tail -n 1

echo "== SimPy (Debian python3-simpy $("$PY" -c 'import SimPy; print(SimPy.__version__)' 2>/dev/null || echo 2)) on the same M/M/8, 200,000 messages, 3 runs"
simpy=$(for i in 1 2 3; do "$PY" tests/bench/mmc_simpy.py 200000; done | awk '{print $3}' | median)
lsim=$(awk '/^median/ {for (i = 1; i <= NF; i++) if ($i == "messages/s,") print $(i-2) * 1e6}' /tmp/lsim-bench-summary.txt)
echo "SimPy: $simpy messages/s; lsim: $lsim messages/s; lsim/SimPy = $(awk "BEGIN {printf \"%.0f\", $lsim / $simpy}")x"
rm -f /tmp/lsim-bench-summary.txt

echo "== replay of a 10,000,000-event trace (2.5 M messages written by --trace): memory bounded by what is in flight"
"$B/lsim" run tests/bench/mm8.yaml --set queue.count=2500000 --detail summary --out /tmp/lsim-bench-w.db \
    --trace /tmp/lsim-bench-10m.csv --quiet >/dev/null
echo "trace: $(wc -l < /tmp/lsim-bench-10m.csv) lines, $(du -m /tmp/lsim-bench-10m.csv | cut -f1) MB"
/usr/bin/time -f "replay: %e s wall, peak RSS %M KB" "$B/lsim" run tests/bench/replay.yaml --detail summary \
    --out /tmp/lsim-bench-r.db --quiet >/dev/null
rm -f /tmp/lsim-bench-10m.csv /tmp/lsim-bench-w.db /tmp/lsim-bench-r.db
# A sweep: 100 points (10 maxConcurrentConsumers x 10 prefetchCounts) x 10
# replications = 1,000 runs of a one-hour SMLC scenario (about 84,000
# messages and 166,000 to 207,000 events a run), two worker processes.
REPEATS=${SWEEP_REPEATS:-3}
echo "== sweep: 100 points x 10 replications of tests/bench/sweep.yaml (SMLC, 1 h each), -j 2, $REPEATS runs"
echo "events a run at the grid's corners (run --json): $(for m in 8 26; do for p in 1 1000; do
    "$B/lsim" run tests/bench/sweep.yaml --set container.maxConcurrentConsumers=$m \
        --set container.prefetchCount=$p --detail summary --out /tmp/lsim-bench-sweep1.db --json --quiet |
        sed -n 's/.*"events": *\([0-9]*\).*/\1/p'; done; done | tr '\n' ' ')"
rm -f /tmp/lsim-bench-sweep1.db
walls=$(for i in $(seq "$REPEATS"); do
    s=$(date +%s.%N)
    "$B/lsim" sweep tests/bench/sweep.yaml --vary container.maxConcurrentConsumers=8..26:2 \
        --vary container.prefetchCount=1,2,5,10,20,50,100,250,500,1000 --reps 10 -j 2 \
        --require 'p99_latency_ms<=2000' --minimize consumer_seconds --quiet \
        --out /tmp/lsim-bench-sweep.db >/dev/null
    e=$(date +%s.%N)
    awk "BEGIN {printf \"%.2f\n\", $e - $s}"
done)
echo "wall seconds: $(echo $walls)"
wall=$(echo "$walls" | median)
echo "median: $wall s for 1000 runs, $(awk "BEGIN {printf \"%.1f\", 1000 / $wall}") runs/s"
rm -f /tmp/lsim-bench-sweep.db
echo "== loaders that were quadratic: 100,000 trace consumers, 200,000 trace nodes, 100,000 mapping keys, 5,000 direct consumers"
tests/bench/loaders.sh "$B/lsim"
