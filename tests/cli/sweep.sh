#!/bin/sh
# sweep.sh LSIM -- sweeps from the command line: the same database with
# -j 1, -j 2 and as a plan run by GNU parallel and merged (the points table
# value for value, and every other table but runs.started_at); the plan's
# Slurm script runs a task; merge refuses missing or foreign shards; an
# interrupted sweep leaves no database, keeps its finished runs and resumes
# (--resume) to the same database.  Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
PY=/usr/bin/python3
. tests/cli/lib.sh
cli_begin sweep


cat >"$TMP/mmc.yaml" <<'YAML'
name: mmc
warmup: 100s
queue:
  count: 5000
  arrivals: { kind: poisson, rate: 8/s }
  service: { kind: exponential, mean: 1s }
container: { kind: competing, workers: 10 }
YAML
ARGS="--vary container.workers=10..13 --vary container.startLatency=0s,1ms --reps 4 --minimize consumers_max --detail samples --quiet"

# every table of a database as exact values, runs.started_at left out
dump() {
    $PY - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for (t,) in db.execute("select name from sqlite_master where type='table' order by name"):
    cols = [r[1] for r in db.execute(f"pragma table_info({t})") if r[1] != "started_at"]
    for row in db.execute(f"select {','.join(cols)} from {t} order by rowid"):
        print(t, [x.hex() if isinstance(x, float) else x for x in row])
PY
}
points() {
    $PY -c "import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute('select * from points order by rowid'):
    print([x.hex() if isinstance(x, float) else x for x in r])" "$1"
}

# 1. -j 1, -j 2, and a plan run by GNU parallel then merged.
count=$((count + 1))
"$LSIM" sweep "$TMP/mmc.yaml" $ARGS --require 'p99_wait_ms<=520' -j 1 --out "$TMP/j1.db" >"$TMP/j1.txt" || fail "sweep -j 1"
"$LSIM" sweep "$TMP/mmc.yaml" $ARGS --require 'p99_wait_ms<=520' -j 2 --out "$TMP/j2.db" >"$TMP/j2.txt" || fail "sweep -j 2"
"$LSIM" sweep "$TMP/mmc.yaml" $ARGS --require 'p99_wait_ms<=520' --plan "$TMP/plan" >/dev/null || fail "sweep --plan"
[ "$(wc -l <"$TMP/plan/jobs.txt")" -eq 32 ] || fail "plan: expected 32 jobs"
SLURM_ARRAY_TASK_ID=3 sh "$TMP/plan/slurm.sh" || fail "slurm.sh task 3"
[ -f "$TMP/plan/shard-03.db" ] || fail "slurm.sh task 3 wrote no shard-03.db"
parallel --will-cite --halt now,fail=1 --jobs 2 <"$TMP/plan/jobs.txt" || fail "parallel < jobs.txt"
"$LSIM" merge "$TMP/plan" -o "$TMP/m.db" >"$TMP/m.txt" || fail "merge"
points "$TMP/j1.db" >"$TMP/j1.points"
[ "$(wc -l <"$TMP/j1.points")" -eq 264 ] || fail "points: expected 8 points x 33 metrics"
points "$TMP/j2.db" | cmp -s - "$TMP/j1.points" || fail "points differ between -j 1 and -j 2"
points "$TMP/m.db" | cmp -s - "$TMP/j1.points" || fail "points differ between -j 1 and plan + merge"
dump "$TMP/j1.db" >"$TMP/j1.dump"
dump "$TMP/j2.db" | cmp -s - "$TMP/j1.dump" || fail "databases differ between -j 1 and -j 2"
dump "$TMP/m.db" | cmp -s - "$TMP/j1.dump" || fail "databases differ between -j 1 and plan + merge"
sed "s|$TMP/j1.db|X|" "$TMP/j1.txt" >"$TMP/j1.norm"
sed "s|$TMP/m.db|X|" "$TMP/m.txt" | cmp -s - "$TMP/j1.norm" || fail "merge prints another answer than the sweep"
grep -q '^best: point 6: container.workers=13, container.startLatency=0s$' "$TMP/j1.txt" || fail "best point: $(grep best "$TMP/j1.txt")"
[ -z "$(ls "$TMP" | grep parts)" ] || fail "shard folders left behind: $(ls "$TMP")"

# 2. --json: the documented keys.
count=$((count + 1))
"$LSIM" sweep "$TMP/mmc.yaml" $ARGS --require 'p99_wait_ms<=520' --json --out "$TMP/json.db" >"$TMP/json" || fail "sweep --json"
$PY - "$TMP/json" <<'PY' || fail "sweep --json: keys"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["answer"] == "best" and d["points"] == 8 and d["replications"] == 4, d
assert d["best"]["params"] == {"container.workers": "13", "container.startLatency": "0s"}, d["best"]
assert d["runner_up"]["params"]["container.workers"] == "13", d["runner_up"]
assert d["objective"] == {"minimize": "consumers_max"} and d["requirements"] == ["p99_wait_ms<=520"]
m = d["best"]["metrics"]["p99_wait_ms"]
assert m["n"] == 4 and m["ci_high"] <= 520 and m["ci_low"] <= m["mean"] <= m["ci_high"], m
assert len(d["table"]) == 8 and d["closest"] is None
PY

# 3. merge refuses an incomplete plan, foreign shards and an empty folder.
count=$((count + 1))
mkdir "$TMP/part" && cp "$TMP/plan/shard-0"[1-4].db "$TMP/part/"
"$LSIM" merge "$TMP/part" -o "$TMP/part.db" 2>"$TMP/err" && fail "merge of 4 of 32 shards succeeded"
grep -q "28 of 32 runs are missing (runs 5, 6, 7, 8, 9, ...): run those lines of $TMP/part/jobs.txt again" "$TMP/err" || fail "merge: missing runs: $(cat "$TMP/err")"
"$LSIM" sweep "$TMP/mmc.yaml" --vary container.workers=10,11 --reps 2 --shard 1 --out "$TMP/part/shard-99.db" --quiet
"$LSIM" merge "$TMP/part" -o "$TMP/part.db" 2>"$TMP/err" && fail "merge of foreign shards succeeded"
grep -q "belongs to another sweep" "$TMP/err" || fail "merge: foreign shard: $(cat "$TMP/err")"
mkdir "$TMP/empty"
"$LSIM" merge "$TMP/empty" -o "$TMP/part.db" 2>"$TMP/err"; [ $? -eq 2 ] || fail "merge of an empty folder: exit status"
[ ! -e "$TMP/part.db" ] || fail "a failed merge left a database"
"$LSIM" sweep "$TMP/mmc.yaml" $ARGS --plan "$TMP/plan" 2>"$TMP/err" >/dev/null && fail "--plan into a planned folder succeeded"
grep -q "already holds a plan" "$TMP/err" || fail "--plan twice: $(cat "$TMP/err")"

# 4. A sweep interrupted before any run finished leaves neither a database
# nor its folder (the workers stop at once: their runs would take ten
# minutes or more, so a 60 s bound holds on a loaded machine and still
# fails if they go on), also when the signal comes before the workers start
# (while the 20,000 points of a grid are checked, about 1 s) ...
count=$((count + 1))
for grid in "--vary container.workers=10,11,12 --reps 2" \
            "--vary container.workers=1..100 --vary container.startLatency=0ms..199ms:1ms --reps 1"; do
    "$LSIM" sweep "$TMP/mmc.yaml" --set queue.count=2000000000 $grid -j 2 \
        --out "$TMP/int.db" --quiet >/dev/null 2>"$TMP/err" &
    pid=$!
    sleep 0.3
    t0=$(date +%s)
    kill -INT $pid
    wait $pid
    status=$?
    [ $(($(date +%s) - t0)) -lt 60 ] || fail "interrupted sweep ($grid): the workers went on with their runs"
    [ $status -eq 1 ] || fail "interrupted sweep ($grid): exit status $status"
    grep -q "interrupted (SIGINT): no database written" "$TMP/err" || fail "interrupted sweep ($grid): $(cat "$TMP/err")"
    [ -z "$(ls "$TMP" | grep '^int\.db')" ] || fail "interrupted sweep ($grid) left: $(ls "$TMP" | grep '^int')"
done
# ... and a plan's job stops its run: exit 1, no shard, no temporary file.
mkdir "$TMP/job"
"$LSIM" sweep "$TMP/mmc.yaml" --set queue.count=100000000 --vary container.workers=10,11 --reps 1 \
    --shard 2 --out "$TMP/job/shard-2.db" --quiet 2>"$TMP/err" &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid
status=$?
[ $status -eq 1 ] && [ "$(cat "$TMP/err")" = "lsim: interrupted" ] || fail "SIGTERM to a plan's job: exit $status, $(cat "$TMP/err")"
[ -z "$(ls "$TMP/job")" ] || fail "SIGTERM to a plan's job left: $(ls "$TMP/job")"

# 5. An interrupted sweep resumes.  SIGTERM with -j 2 once a shard is kept
# (the runs take about 0.15 s, the whole sweep about 2 s; a worker closes its
# shard after 0.1 s here: LSIM_SHARD_SECONDS; so one run or a few of 24 are
# done when the signal comes, with more than a second to spare); a --resume
# meanwhile is refused (the folder is locked); afterwards the
# same command refuses the folder, another sweep too; --resume (with
# -j 1: the workers are not part of the sweep) runs only the runs no shard
# holds and gives the uninterrupted sweep's database and answer.
count=$((count + 1))
R="--set queue.count=1000000 --vary container.workers=10..13 --vary container.startLatency=0s,1ms --reps 3 --minimize consumers_max"
export LSIM_SHARD_SECONDS=0.1
wait_for_shard() {                 # $1: the parts folder
    n=0
    while ! ls "$1" 2>/dev/null | grep -q '^shard-.*\.db$' && [ $n -lt 600 ]; do
        sleep 0.05; n=$((n + 1))
    done
}
# kept OUT STDERR: sets k to the number of runs the message says are kept,
# checked to be some but not all (not in a subshell: a failure must count)
kept() {
    k=$(sed -n "s|^lsim: \([0-9]*\) of 24 runs are done and kept in $1.parts: run the same command with --resume to finish the sweep\$|\1|p" "$2")
    case "$k" in ''|*[!0-9]*) k=0 ;; esac
    [ "$k" -gt 0 ] && [ "$k" -lt 24 ] || fail "$1: kept runs: $(cat "$2")"
}
# same OUT TXT: the database and the answer are the uninterrupted sweep's
same() {
    dump "$1" | cmp -s - "$TMP/whole.dump" || fail "$1: the resumed sweep's database differs"
    sed "s|$1|X|" "$2" | cmp -s - "$TMP/whole.norm" || fail "$1: the resumed sweep's answer differs"
    [ ! -e "$1.parts" ] || fail "$1.parts is left after the sweep finished"
}
"$LSIM" sweep "$TMP/mmc.yaml" $R -j 2 --quiet --out "$TMP/whole.db" >"$TMP/whole.txt" || fail "sweep for resume"
dump "$TMP/whole.db" >"$TMP/whole.dump"
sed "s|$TMP/whole.db|X|" "$TMP/whole.txt" >"$TMP/whole.norm"
"$LSIM" sweep "$TMP/mmc.yaml" $R -j 2 --quiet --out "$TMP/res.db" >/dev/null 2>"$TMP/err" &
pid=$!
wait_for_shard "$TMP/res.db.parts"
"$LSIM" sweep "$TMP/mmc.yaml" $R --resume --out "$TMP/res.db" >/dev/null 2>"$TMP/err2"
[ $? -eq 2 ] || fail "--resume of a sweep still running: exit status"
grep -q "^lsim: $TMP/res.db.parts is in use by another lsim (process $pid)$" "$TMP/err2" || fail "--resume of a sweep still running: $(cat "$TMP/err2")"
kill -TERM $pid
wait $pid
status=$?
[ $status -eq 1 ] || fail "SIGTERM during a sweep: exit status $status"
grep -q "^lsim: interrupted (SIGTERM): no database written$" "$TMP/err" || fail "SIGTERM during a sweep: $(cat "$TMP/err")"
kept "$TMP/res.db" "$TMP/err"
[ ! -e "$TMP/res.db" ] || fail "an interrupted sweep left a database"
[ -z "$(ls "$TMP/res.db.parts" | grep tmp-)" ] || fail "an interrupted sweep left temporary files"
for f in "$TMP"/res.db.parts/shard-*.db; do sqlite3 "$f" "update runs set started_at = 'kept'"; done
"$LSIM" sweep "$TMP/mmc.yaml" $R --out "$TMP/res.db" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] || fail "a sweep into an unfinished one's folder: exit status"
grep -q "^lsim: $TMP/res.db.parts holds an unfinished sweep: run the same command with --resume to finish it, or remove the folder$" "$TMP/err" || fail "no --resume: $(cat "$TMP/err")"
"$LSIM" sweep "$TMP/mmc.yaml" $R --reps 4 --resume --out "$TMP/res.db" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] || fail "--resume of another sweep: exit status"
grep -q "^lsim: --resume: $TMP/res.db.parts holds another sweep ('reps=3' there, 'reps=4' here): remove the folder to start this one$" "$TMP/err" || fail "--resume of another sweep: $(cat "$TMP/err")"
"$LSIM" sweep "$TMP/mmc.yaml" $R -j 1 --resume --out "$TMP/res.db" >"$TMP/res.txt" 2>"$TMP/err" || fail "--resume: $(cat "$TMP/err")"
grep -q "^lsim: resuming the sweep in $TMP/res.db.parts: $k of 24 runs done, $((24 - k)) to run$" "$TMP/err" || fail "--resume: $(cat "$TMP/err")"
[ "$(sqlite3 "$TMP/res.db" "select count(*) from runs where started_at = 'kept'")" = "$k" ] || fail "--resume ran again runs that were kept"
same "$TMP/res.db" "$TMP/res.txt"

# 6. A worker that dies (SIGKILL) stops the sweep and its runs are kept; so
# are those of an lsim killed with all its workers (SIGKILL, no clean-up), and
# of an lsim killed alone: --resume removes what was left half-written and
# finishes each.
count=$((count + 1))
"$LSIM" sweep "$TMP/mmc.yaml" $R -j 2 --quiet --out "$TMP/crash.db" >/dev/null 2>"$TMP/err" &
pid=$!
wait_for_shard "$TMP/crash.db.parts"
worker=$(pgrep -P $pid | head -n 1)
[ -n "$worker" ] || fail "a worker killed: the sweep had no worker left to kill"
[ -z "$worker" ] || kill -KILL $worker
wait $pid
status=$?
[ $status -eq 1 ] || fail "a worker killed: exit status $status"
grep -q "^lsim: a worker died of signal 9 (Killed)$" "$TMP/err" || fail "a worker killed: $(cat "$TMP/err")"
kept "$TMP/crash.db" "$TMP/err"
"$LSIM" sweep "$TMP/mmc.yaml" $R -j 2 --quiet --resume --out "$TMP/crash.db" >"$TMP/crash.txt" || fail "--resume after a worker died"
same "$TMP/crash.db" "$TMP/crash.txt"
"$LSIM" sweep "$TMP/mmc.yaml" $R -j 2 --quiet --out "$TMP/kill.db" >/dev/null 2>&1 &
pid=$!
wait_for_shard "$TMP/kill.db.parts"
kill -KILL $pid $(pgrep -P $pid)
wait $pid 2>/dev/null
ls "$TMP/kill.db.parts" | grep -q 'tmp-' || fail "SIGKILL: expected the workers' temporary files"
"$LSIM" sweep "$TMP/mmc.yaml" $R -j 2 --resume --out "$TMP/kill.db" >"$TMP/kill.txt" 2>"$TMP/err" || fail "--resume after SIGKILL"
grep -q "^lsim: resuming the sweep in $TMP/kill.db.parts: [1-9][0-9]* of 24 runs done" "$TMP/err" || fail "--resume after SIGKILL: $(cat "$TMP/err")"
same "$TMP/kill.db" "$TMP/kill.txt"
# Only the parent killed: its workers finish the run under way, keep nothing
# and end (gone, or zombies nobody reaps); what they had kept before stays.
"$LSIM" sweep "$TMP/mmc.yaml" $R -j 2 --quiet --out "$TMP/orphan.db" >/dev/null 2>&1 &
pid=$!
wait_for_shard "$TMP/orphan.db.parts"
kids=$(pgrep -P $pid)
kill -KILL $pid
wait $pid 2>/dev/null
n=0
while [ -n "$(ps -o stat= -p "$(echo $kids | tr ' ' ,)" | grep -v Z)" ] && [ $n -lt 200 ]; do
    sleep 0.05; n=$((n + 1))
done
[ $n -lt 200 ] || fail "the workers of a killed lsim went on"
[ -z "$(ls "$TMP/orphan.db.parts" | grep 'tmp-')" ] || fail "the workers of a killed lsim left: $(ls "$TMP/orphan.db.parts")"
"$LSIM" sweep "$TMP/mmc.yaml" $R -j 2 --quiet --resume --out "$TMP/orphan.db" >"$TMP/orphan.txt" || fail "--resume after the parent was killed"
same "$TMP/orphan.db" "$TMP/orphan.txt"

unset LSIM_SHARD_SECONDS

echo "$count sweep checks, $failures failed"
[ "$failures" -eq 0 ]
