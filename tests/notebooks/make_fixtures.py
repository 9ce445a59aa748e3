#!/usr/bin/python3
"""make_fixtures.py LSIM OUTDIR -- the databases that sweep.ipynb and
compare.ipynb read, built before `lsim sweep` and `lsim compare` exist, with
the schemas those commands are to write (the names are a contract):

  OUTDIR/sweep-fixture.db    points(point, metric, n, mean, sd, ci_low, ci_high)
                             point_params(point, key, value)
                             sweep(key, value): settings and the answer
                             runs (point and replication set), summary
  OUTDIR/compare-fixture.db  trace_messages(source, msg, grp, node, consumer,
                                            t_publish, t_begin, t_end)
                             trace_consumers(source, node, consumer, t_start, t_stop)
                             comparison(metric, sim, real, difference, tolerance, verdict)

The numbers are real: the sweep runs LSIM over a grid (mmc-sweep.yaml,
`container.workers` 5..10, 5 replications with seeds 1..5 at every point:
common random numbers) and the comparison sets the real trace
tests/data/traces/A-burst-run1.csv beside LSIM's replay of it
(compare-A-burst.yaml, with --trace).  Times are milliseconds.
Only the standard library (sqlite3, csv, json, subprocess).
"""
import csv
import json
import math
import os
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SWEEP_SCENARIO = os.path.join(HERE, "mmc-sweep.yaml")
COMPARE_SCENARIO = os.path.join(HERE, "compare-A-burst.yaml")
REAL_TRACE = os.path.join(HERE, "..", "data", "traces", "A-burst-run1.csv")

WORKERS = [5, 6, 7, 8, 9, 10]
REPS = 5
REQUIRE = ("p99_wait_ms", 200.0)          # p99_wait_ms <= 200 with 95 % confidence
OBJECTIVE = "consumers_mean"              # minimized

# Student's t, 0.975 quantile, by degrees of freedom (two-sided 95 %).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042}


def t975(df):
    """Between the table's rows, the row below (the wider interval)."""
    if df > 30:
        return 1.96
    return T975[max(k for k in T975 if k <= df)]


def run_lsim(lsim, args):
    done = subprocess.run([lsim, "run"] + args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("lsim run %s failed: %s" % (" ".join(args), done.stderr.strip()))
    return done.stdout


def write_atomically(path, build):
    """Builds the database in a temporary file renamed into place."""
    tmp = path + ".tmp-%d" % os.getpid()
    if os.path.exists(tmp):
        os.unlink(tmp)
    db = sqlite3.connect(tmp)
    try:
        build(db)
        db.commit()
    finally:
        db.close()
    os.replace(tmp, path)


# ---- the sweep ------------------------------------------------------------------------

def sweep_runs(lsim, tmpdir):
    """Every (point, replication): its runs row and its summary metrics."""
    runs = []
    for p, w in enumerate(WORKERS, start=1):
        for r in range(1, REPS + 1):
            out = os.path.join(tmpdir, "p%d-r%d.db" % (p, r))
            run_lsim(lsim, [SWEEP_SCENARIO, "--seed", str(r), "--set",
                            "container.workers=%d" % w, "--detail", "summary", "--out", out,
                            "--quiet"])
            src = sqlite3.connect(out)
            row = src.execute("SELECT scenario, seed, parameters, lsim_version, started_at"
                              " FROM runs").fetchone()
            summary = src.execute("SELECT metric, value FROM summary").fetchall()
            src.close()
            runs.append({"point": p, "rep": r, "row": row, "summary": summary})
    return runs


def point_stats(values):
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = t975(n - 1) * sd / math.sqrt(n) if n > 1 else 0.0
    return n, mean, sd, mean - half, mean + half


def recommend(points):
    """The best point whose requirement holds at the CI bound, and the next."""
    metric, limit = REQUIRE
    ok = [p for p in sorted(points) if points[p][metric][4] <= limit]
    ok.sort(key=lambda p: (points[p][OBJECTIVE][1], p))
    return (ok + [None, None])[:2]


def build_sweep(lsim, path):
    with tempfile.TemporaryDirectory() as tmpdir:
        runs = sweep_runs(lsim, tmpdir)
    points = {}
    for p in range(1, len(WORKERS) + 1):
        mine = [r for r in runs if r["point"] == p]
        metrics = sorted({m for r in mine for m, _ in r["summary"]})
        points[p] = {m: point_stats([dict(r["summary"])[m] for r in mine]) for m in metrics}
    best, runner_up = recommend(points)

    def build(db):
        db.executescript("""
            CREATE TABLE runs(run INTEGER PRIMARY KEY, scenario TEXT, seed INTEGER,
              parameters TEXT, lsim_version TEXT, point INTEGER, replication INTEGER,
              started_at TEXT);
            CREATE TABLE summary(run INTEGER, metric TEXT, value REAL);
            CREATE TABLE points(point INTEGER, metric TEXT, n INTEGER, mean REAL, sd REAL,
              ci_low REAL, ci_high REAL);
            CREATE TABLE point_params(point INTEGER, key TEXT, value TEXT);
            CREATE TABLE sweep(key TEXT, value TEXT);""")
        for i, r in enumerate(runs, start=1):
            scen, seed, params, version, started = r["row"]
            db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?)",
                       (i, scen, seed, params, version, r["point"], r["rep"], started))
            db.executemany("INSERT INTO summary VALUES (?,?,?)",
                           [(i, m, v) for m, v in r["summary"]])
        for p, metrics in points.items():
            db.execute("INSERT INTO point_params VALUES (?,?,?)",
                       (p, "container.workers", str(WORKERS[p - 1])))
            db.executemany("INSERT INTO points VALUES (?,?,?,?,?,?,?)",
                           [(p, m) + s for m, s in metrics.items()])
        settings = [
            ("scenario", os.path.relpath(SWEEP_SCENARIO, os.path.join(HERE, "..", ".."))),
            ("vary", "container.workers=" + ",".join(map(str, WORKERS))),
            ("reps", str(REPS)),
            ("confidence", "0.95"),
            ("objective", "minimize " + OBJECTIVE),
            ("require", "%s<=%g" % REQUIRE),
            ("best_point", "" if best is None else str(best)),
            ("runner_up_point", "" if runner_up is None else str(runner_up)),
            ("fixture", "built by tests/notebooks/make_fixtures.py, not by lsim sweep"),
        ]
        db.executemany("INSERT INTO sweep VALUES (?,?)", settings)

    write_atomically(path, build)
    return best, runner_up


# ---- the comparison ---------------------------------------------------------------------

def read_trace(path, source):
    """Messages and consumer lifetimes of a TRACE_FORMAT v1 file."""
    msgs, cons = {}, {}
    with open(path, newline="") as f:
        rows = csv.reader(line for line in f if not line.startswith("#"))
        header = next(rows)
        assert header == ["t_ms", "event", "node", "consumer", "msg", "group", "queue"], header
        for t, event, node, consumer, msg, group, _queue in rows:
            t = float(t)
            if event == "publish":
                msgs[msg] = {"grp": group or None, "node": None, "consumer": None,
                             "t_publish": t, "t_begin": None, "t_end": None}
            elif event == "begin":
                msgs[msg].update(node=node, consumer=consumer, t_begin=t)
            elif event == "end":
                msgs[msg]["t_end"] = t
            elif event == "consumer_start":
                cons[(node, consumer)] = [t, None]
            elif event == "consumer_stop":
                cons[(node, consumer)][1] = t
    mrows = [(source, m, v["grp"], v["node"], v["consumer"], v["t_publish"], v["t_begin"],
              v["t_end"]) for m, v in msgs.items()]
    crows = [(source, n, c, t0, t1) for (n, c), (t0, t1) in cons.items()]
    return mrows, crows


def quantile(values, q):
    """Nearest rank."""
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def ks_distance(a, b):
    a, b = sorted(a), sorted(b)
    i = j = 0
    d = 0.0
    while i < len(a) and j < len(b):
        x = min(a[i], b[j])
        while i < len(a) and a[i] == x:
            i += 1
        while j < len(b) and b[j] == x:
            j += 1
        d = max(d, abs(i / len(a) - j / len(b)))
    return d


def count_steps(crows, t_end):
    """(time, consumers alive) steps of one source, stops past t_end ignored."""
    ev = sorted([(t0, 1) for *_, t0, _t1 in crows] +
                [(t1, -1) for *_, t1 in crows if t1 is not None and t1 <= t_end])
    steps, n = [(0.0, 0)], 0
    for t, d in ev:
        n += d
        steps.append((t, n))
    return steps


def level_at(steps, t):
    v = 0
    for s, n in steps:
        if s > t:
            break
        v = n
    return v


def consumer_rows(sim_c, real_c, t_end):
    sim_s, real_s = count_steps(sim_c, t_end), count_steps(real_c, t_end)
    cuts = sorted({t for t, _ in sim_s + real_s if t < t_end} | {0.0, t_end})
    tw_sim = tw_real = tw_diff = max_diff = 0.0
    for a, b in zip(cuts, cuts[1:]):
        s, r = level_at(sim_s, a), level_at(real_s, a)
        tw_sim += s * (b - a)
        tw_real += r * (b - a)
        tw_diff += abs(s - r) * (b - a)
        max_diff = max(max_diff, abs(s - r))
    rows = [("consumers_mean", tw_sim / t_end, tw_real / t_end, tw_diff / t_end, 0.25),
            ("consumers_max_abs_diff", max(n for _, n in sim_s), max(n for _, n in real_s),
             max_diff, None)]
    starts = [sorted(t0 for *_, t0, _t1 in c) for c in (sim_c, real_c)]
    worst = max(abs(a - b) for a, b in zip(*starts))
    rows.append(("consumer_starts", len(starts[0]), len(starts[1]), worst, 50.0))
    return rows


def comparison_rows(sim_m, real_m, sim_c, real_c):
    lat = [[m[7] - m[5] for m in ms if m[7] is not None] for ms in (sim_m, real_m)]
    wait = [[m[6] - m[5] for m in ms if m[6] is not None] for ms in (sim_m, real_m)]
    t_end = max(m[7] for m in sim_m + real_m if m[7] is not None)
    rows = consumer_rows(sim_c, real_c, t_end)
    for name, data in (("latency", lat), ("wait", wait)):
        for q in (50, 90, 99):
            s, r = quantile(data[0], q / 100), quantile(data[1], q / 100)
            rows.append(("%s_p%d_ms" % (name, q), s, r, (s - r) / r if r else None,
                         0.10 if name == "latency" and q in (50, 99) else None))
    rows.append(("latency_ks", None, None, ks_distance(*lat), None))
    per = []
    for ms in (sim_m, real_m):
        counts = {}
        for m in ms:
            counts[(m[3], m[4])] = counts.get((m[3], m[4]), 0) + 1
        per.append(sorted(counts.values(), reverse=True))
    worst = max(abs(a - b) / b for a, b in zip(*per))
    rows.append(("per_consumer_counts", len(per[0]), len(per[1]), worst, 0.05))
    out = []
    for metric, s, r, diff, tol in rows:
        verdict = "info" if tol is None else ("pass" if abs(diff) <= tol else "fail")
        out.append((metric, s, r, diff, tol, verdict))
    return out


def build_compare(lsim, path):
    with tempfile.TemporaryDirectory() as tmpdir:
        sim_trace = os.path.join(tmpdir, "sim.csv")
        run_lsim(lsim, [COMPARE_SCENARIO, "--trace", sim_trace, "--out",
                        os.path.join(tmpdir, "sim.db"), "--quiet"])
        sim_m, sim_c = read_trace(sim_trace, "sim")
    real_m, real_c = read_trace(REAL_TRACE, "real")
    rows = comparison_rows(sim_m, real_m, sim_c, real_c)

    def build(db):
        db.executescript("""
            CREATE TABLE trace_messages(source TEXT, msg TEXT, grp TEXT, node TEXT,
              consumer TEXT, t_publish REAL, t_begin REAL, t_end REAL);
            CREATE TABLE trace_consumers(source TEXT, node TEXT, consumer TEXT,
              t_start REAL, t_stop REAL);
            CREATE TABLE comparison(metric TEXT, sim REAL, real REAL, difference REAL,
              tolerance REAL, verdict TEXT);""")
        db.executemany("INSERT INTO trace_messages VALUES (?,?,?,?,?,?,?,?)", sim_m + real_m)
        db.executemany("INSERT INTO trace_consumers VALUES (?,?,?,?,?)", sim_c + real_c)
        db.executemany("INSERT INTO comparison VALUES (?,?,?,?,?,?)", rows)

    write_atomically(path, build)
    return rows


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_fixtures.py LSIM OUTDIR")
    lsim, outdir = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    best, runner_up = build_sweep(lsim, os.path.join(outdir, "sweep-fixture.db"))
    print("%s: best point %s, runner-up %s" % (os.path.join(outdir, "sweep-fixture.db"),
                                              best, runner_up))
    rows = build_compare(lsim, os.path.join(outdir, "compare-fixture.db"))
    print("%s: %d comparison rows, %d fail" % (os.path.join(outdir, "compare-fixture.db"),
                                               len(rows), sum(r[5] == "fail" for r in rows)))


if __name__ == "__main__":
    main()
