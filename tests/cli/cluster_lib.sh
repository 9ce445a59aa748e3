# cluster_lib.sh -- what the cluster tests (slurm.sh, ssh_parallel.sh) share
# besides lib.sh: skipping, free ports, the tables a sweep compares, the small
# sweeps they run.  Source it after lib.sh.

# A test that cannot run here says why and exits 77 (not 0: a skip is not a
# pass); with LSIM_CLUSTER_REQUIRED=1 (CI) a skip is a failure.
cluster_skip() {
    echo "SKIP: $*"
    [ "${LSIM_CLUSTER_REQUIRED:-0}" = 1 ] && { echo "FAIL: LSIM_CLUSTER_REQUIRED=1 and the test cannot run"; exit 1; }
    exit 77
}

cluster_need() {                   # COMMAND...: each must be on PATH
    for c in "$@"; do
        command -v "$c" >/dev/null 2>&1 || cluster_skip "$c is not installed (make deps installs it)"
    done
}

# A TCP port on 127.0.0.1 free at the moment of asking.
free_port() {
    /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for SECONDS COMMAND...: polls the command every 0.1 s until it succeeds.
wait_for() {
    n=$(($1 * 10)); shift
    while ! "$@" >/dev/null 2>&1; do
        n=$((n - 1))
        [ $n -gt 0 ] || return 1
        sleep 0.1
    done
}

# Every table of a sweep database as exact values (floats in hex), in row
# order, runs.started_at left out: what a local sweep and a merged plan share.
dump_tables() {
    /usr/bin/python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for (t,) in db.execute("select name from sqlite_master where type='table' order by name"):
    cols = [r[1] for r in db.execute(f"pragma table_info({t})") if r[1] != "started_at"]
    for row in db.execute(f"select {','.join(cols)} from {t} order by rowid"):
        print(t, [x.hex() if isinstance(x, float) else x for x in row])
PY
}

# same_tables LOCAL.db MERGED.db WHAT: the dumps are equal and not empty.
same_tables() {
    dump_tables "$1" >"$1.dump"
    dump_tables "$2" >"$2.dump"
    [ -s "$1.dump" ] || fail "$3: the local sweep's dump is empty"
    if cmp -s "$1.dump" "$2.dump"; then
        echo "  $3: merged = local, $(wc -l <"$1.dump") rows identical ($(cut -d' ' -f1 "$1.dump" | sort | uniq -c | awk '{printf "%s%s %s", n++ ? ", " : "", $2, $1}'))"
    else
        fail "$3: the merged tables differ from the local sweep's: $(diff "$1.dump" "$2.dump" | head -n 5)"
    fi
}

# merge_as_local DIR WHAT: the 12 shards in DIR merge into $TMP/merged.db,
# whose tables and printed answer are the local sweep's ($TMP/local.*).
merge_as_local() {
    [ "$(ls "$1" | grep -c '^shard-.*\.db$')" -eq 12 ] || fail "$2: $(ls "$1" | grep -c '^shard-') of 12 shards"
    "$LSIM" merge "$1" -o "$TMP/merged.db" >"$TMP/merged.txt" || fail "merge"
    same_tables "$TMP/local.db" "$TMP/merged.db" "$2"
    [ "$(sed "s|$TMP/merged.db|X|" "$TMP/merged.txt")" = "$(sed "s|$TMP/local.db|X|" "$TMP/local.txt")" ] ||
        fail "merge prints another answer than the local sweep"
}

# The sweep both cluster tests plan, run and compare (12 runs).
SWEEP="--vary container.workers=9..11 --vary container.startLatency=0s,1ms --reps 2 --minimize consumers_max"

# The scenario of the cluster tests: arrivals read from a trace file beside
# it, so the jobs need the scenario's files as well as the scenario.
write_cluster_scenario() {          # DIR
    cat >"$1/mmc.yaml" <<'YAML'
name: mmc
warmup: 10s
queue:
  arrivals: { kind: trace, path: arrivals.csv }
  service: { kind: exponential, mean: 1s }
container: { kind: competing, workers: 10 }
YAML
    /usr/bin/python3 - "$1/arrivals.csv" <<'PY'
import random, sys
r = random.Random(16)
t = 0.0
with open(sys.argv[1], "w") as f:
    f.write("t_ms,event,node,consumer,msg,group,queue\n")
    for i in range(3000):
        t += r.expovariate(8.0) * 1000
        f.write(f"{t:.3f},publish,,,m{i},,orders\n")
PY
}
