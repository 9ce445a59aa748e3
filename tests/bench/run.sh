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

echo "== ActiveMQ + DMLC on 3 nodes, 1,000,000 messages over 500 groups, --detail summary, 5 runs"
"$B/bench" tests/bench/jms-groups.yaml summary 5 | tail -n 1
echo "== ActiveMQ, a full page window rescanned at every acknowledgement (worst case), 200,000 messages, 5 runs"
"$B/bench" tests/bench/jms-window.yaml summary 5 | tail -n 1

echo "== SimPy (Debian python3-simpy $("$PY" -c 'import SimPy; print(SimPy.__version__)' 2>/dev/null || echo 2)) on the same M/M/8, 200,000 messages, 3 runs"
simpy=$(for i in 1 2 3; do "$PY" tests/bench/mmc_simpy.py 200000; done | awk '{print $3}' | median)
lsim=$(awk '/^median/ {for (i = 1; i <= NF; i++) if ($i == "messages/s,") print $(i-2) * 1e6}' /tmp/lsim-bench-summary.txt)
echo "SimPy: $simpy messages/s; lsim: $lsim messages/s; lsim/SimPy = $(awk "BEGIN {printf \"%.0f\", $lsim / $simpy}")x"
rm -f /tmp/lsim-bench-summary.txt
