"""The per-cycle overhead a real SMLC run had, measured from its trace.

For each consumer, the gap between the end of one message and the begin of
its next (the ack, the next delivery with prefetch 1, the container's loop),
averaged over windows of the trace.  Prints a `cycleOverhead:` schedule for a
scenario (see scenarios/smlc-S1-trace.yaml).  Usage:
    /usr/bin/python3 tests/tools/cycle_gaps.py TRACE.csv [WINDOW_S]
Gaps of 50 ms or more are idle time, not overhead, and are left out.
"""
import collections
import csv
import sys


def main():
    path = sys.argv[1]
    window = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    lines = (line for line in open(path) if not line.startswith("#"))
    rows = list(csv.reader(lines))[1:]
    last_end = {}
    gaps = collections.defaultdict(list)
    for t_ms, event, node, consumer, *_ in rows:
        t = float(t_ms)
        key = (node, consumer)
        if event == "end":
            last_end[key] = t
        elif event == "begin" and key in last_end and t - last_end[key] < 50:
            gaps[int(last_end[key] // (window * 1000))].append(t - last_end[key])
    steps = []
    for w in sorted(gaps):
        mean_us = round(1000 * sum(gaps[w]) / len(gaps[w]))
        steps.append("{ from: %gs, value: %dus }" % (w * window, mean_us))
        print("# %6.1f-%6.1f s: %4d gaps, mean %.3f ms" %
              (w * window, (w + 1) * window, len(gaps[w]), mean_us / 1000))
    print("cycleOverhead: [ " + ", ".join(steps) + " ]")


main()
