#!/bin/bash
# ratios.sh BUILD REFDIR [BEFORE] -- lsim's speed against the reference loops
# (make bench).
#
# Each ratio is reference time / lsim time, the median over BENCH_PAIRS
# (default 5) paired runs taken A B A B: whole processes, one after the other,
# pinned with taskset to one CPU (BENCH_CPU, default the last one), so the
# two sides of a pair see the same machine; next to it, the ratio of the CPU
# times the two used (steadier on a machine others share).  The rows ratio
# is also taken unpinned: lsim writes on a thread of its own, which then
# may run beside the simulation.  A sweep's -j 2
# against -j 1 is timed too.  BEFORE, when given, is another
# lsim binary (an older build): each pair then also runs it, and the table
# has a column for it, measured in the same run.  Peak memory is the peak
# resident set of a whole process (GNU time).  With BENCH_CALLGRIND=1 (the
# default) the instructions per message are counted by callgrind as well:
# unlike wall time they do not depend on what else the machine is doing.
#
# BUILD holds lsim and the reference loops built from REFDIR (mmc_bare,
# sqlite_ceiling; see REFDIR/README.md).
set -eu
B=$1
REF=$2
BEFORE=${3:-}
PAIRS=${BENCH_PAIRS:-5}
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
CALLGRIND=${BENCH_CALLGRIND:-1}
N=1000000
TMP=$(mktemp -d /tmp/lsim-bench-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
PIN=(taskset -c "$CPU")
MM8=(tests/bench/mm8.yaml)
MM1000=(tests/bench/mm8.yaml --set container.workers=1000 --set 'queue.arrivals={kind: poisson, rate: 900/s}')

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "nan"; else print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# "WALL CPU": the wall seconds of one whole process, pinned, and the CPU
# seconds it used (user + system, all its threads); its output is thrown away.
# On a loaded machine the wall time also counts the waiting for the CPU, the
# CPU time does not: the table gives the ratios of both.
# With UNPINNED=1 the process may use every CPU (the rows' second line:
# lsim's simulation and its writer thread then each can have a core).
UNPINNED=0
wall() {
    local TIMEFORMAT='%3R %3U %3S' t pin=("${PIN[@]}")
    [ "$UNPINNED" = 1 ] && pin=()
    t=$( { time "${pin[@]}" "$@" >/dev/null 2>&1 || echo FAILED; } 2>&1 )
    case $t in *FAILED*) echo "bench: failed: $*" >&2; exit 1 ;; esac
    echo "$t" | awk '{printf "%.6f %.6f\n", $1, $2 + $3}'
}

# lsim_args BINARY DETAIL DB SCENARIO-ARGS...: sets CMD to the command of a run
lsim_args() {
    local bin=$1 detail=$2 db=$3
    shift 3
    CMD=("$bin" run "$@" --detail "$detail" --out "$db" --quiet)
}

# pair NAME 'REFERENCE COMMAND' LSIM-ARGS...: prints "after before" ratio medians
# (before "-" without BEFORE) and keeps the raw times in $TMP/NAME.*
pair() {
    local name=$1 ref=$2 detail=$3
    shift 3
    : >"$TMP/$name.after"
    : >"$TMP/$name.before"
    for i in $(seq "$PAIRS"); do
        local r a
        r=$(eval "wall $ref")
        lsim_args "$B/lsim" "$detail" "$TMP/a.db" "$@"
        a=$(wall "${CMD[@]}")
        ratios "$r" "$a" >>"$TMP/$name.after"
        if [ -n "$BEFORE" ]; then
            lsim_args "$BEFORE" "$detail" "$TMP/b.db" "$@"
            a=$(wall "${CMD[@]}")
            ratios "$r" "$a" >>"$TMP/$name.before"
        fi
    done
}

# ratios "REF_WALL REF_CPU" "LSIM_WALL LSIM_CPU": wall ratio, CPU ratio, the four times
ratios() {
    echo "$1 $2" | awk '{printf "%.6f %.6f %.6f %.6f %.6f %.6f\n", $1 / $3, $2 / $4, $1, $3, $2, $4}'
}
col() { awk -v c="$2" '{print $c}' "$1" | median; }
fmt() {
    [ -s "$1" ] || { printf -- '-'; return; }
    printf '%.2f (%.3f s / %.3f s); CPU time %.2f' "$(col "$1" 1)" "$(col "$1" 3)" "$(col "$1" 4)" \
        "$(col "$1" 2)"
}

echo "lsim against the reference loops of $REF: medians of $PAIRS paired runs, pinned to CPU $CPU"
[ -n "$BEFORE" ] && echo "before: $BEFORE"
echo

pair mm8 "$B/mmc_bare $N 1" summary "${MM8[@]}"
pair mm1000 "$B/mmc_bare $N 1 1000 900 1" summary "${MM1000[@]}"
pair mm100k "$B/mmc_bare $N 1 100000 90000 1" summary tests/bench/mm100k.yaml
pair rows "$B/sqlite_ceiling $N 128 off $TMP/ceiling.db" messages "${MM8[@]}"
UNPINNED=1
pair rows2 "$B/sqlite_ceiling $N 128 off $TMP/ceiling.db" messages "${MM8[@]}"
UNPINNED=0

# The ActiveMQ page window's worst case: messages a second (no reference).
window() {
    local bin=$1 count
    count=$(sed -n 's/^ *count: *\([0-9]*\).*/\1/p' tests/bench/jms-window.yaml | head -n 1)
    lsim_args "$bin" summary "$TMP/w.db" tests/bench/jms-window.yaml
    for i in $(seq "$PAIRS"); do
        wall "${CMD[@]}"
    done >"$TMP/window.times"
    awk -v n="$count" -v w="$(col "$TMP/window.times" 1)" -v c="$(col "$TMP/window.times" 2)" \
        'BEGIN {printf "%.2f M messages/s (%.3f s for %d); by CPU time %.2f M/s", n / w / 1e6, w, n, n / c / 1e6}'
}

# peak resident KB of one run
peak_kb() {
    /usr/bin/time -o "$TMP/time.txt" -f 'peak %M' "${PIN[@]}" "$@" >/dev/null 2>&1
    awk '/^peak/ {print $2}' "$TMP/time.txt"
}
mem10m() {
    local bin=$1
    local big small
    lsim_args "$bin" summary "$TMP/m.db" "${MM8[@]}" --set queue.count=10000000
    big=$(peak_kb "${CMD[@]}")
    lsim_args "$bin" summary "$TMP/m.db" "${MM8[@]}"
    small=$(peak_kb "${CMD[@]}")
    awk -v b="$big" -v s="$small" 'BEGIN {printf "%.1f MB (1 M messages: %.1f MB)", b / 1024, s / 1024}'
}
# A million message groups against a thousand (ActiveMQ + DMLC 8-8, 1 M
# messages, the default cached map): the time ratio, the median of paired
# runs, and the peak memory above the thousand-group run, a group.
groups_time() {
    local bin=$1 big small
    : >"$TMP/groups.ratio"
    for i in $(seq "$PAIRS"); do
        lsim_args "$bin" summary "$TMP/g.db" tests/bench/jms-groups-1m.yaml
        big=$(wall "${CMD[@]}")
        lsim_args "$bin" summary "$TMP/g.db" tests/bench/jms-groups-1k.yaml
        small=$(wall "${CMD[@]}")
        echo "$big $small" | awk '{printf "%.6f %.6f %.6f\n", $1 / $3, $1, $3}' >>"$TMP/groups.ratio"
    done
    printf '%.2f x (%.3f s / %.3f s)' "$(col "$TMP/groups.ratio" 1)" "$(col "$TMP/groups.ratio" 2)" \
        "$(col "$TMP/groups.ratio" 3)"
}
groups_memory() {
    local bin=$1 big small
    lsim_args "$bin" summary "$TMP/g.db" tests/bench/jms-groups-1m.yaml
    big=$(peak_kb "${CMD[@]}")
    lsim_args "$bin" summary "$TMP/g.db" tests/bench/jms-groups-1k.yaml
    small=$(peak_kb "${CMD[@]}")
    awk -v b="$big" -v s="$small" \
        'BEGIN {printf "+%.1f MB (%.0f B a group)", (b - s) / 1024, (b - s) * 1024 / 999000}'
}

# A burst: 1 M messages published within a millisecond to one slow worker,
# so nearly all of them are in flight at once; bytes a message against the
# same run with 1,000 messages.
BURST=(tests/bench/burst.yaml)
burst() {
    local bin=$1 big small
    lsim_args "$bin" summary "$TMP/m.db" "${BURST[@]}"
    big=$(peak_kb "${CMD[@]}")
    lsim_args "$bin" summary "$TMP/m.db" "${BURST[@]}" --set queue.count=1000
    small=$(peak_kb "${CMD[@]}")
    awk -v b="$big" -v s="$small" -v n=$N \
        'BEGIN {printf "%.0f MB, %.0f B a message", b / 1024, (b - s) * 1024 / (n - 1000)}'
}

# A sweep, -j 1 against -j 2 (not pinned: the workers should get a core
# each): paired runs of a sweep of 300 one-hour SMLC runs, some 9 s at -j 1
# (a sweep of 2 s was short enough for a shared machine's noise to move
# its ratio by a quarter either way).  While -j 2 runs,
# the CPUs its worker processes are on are sampled every 0.1 s, so a
# machine that packs both workers on one core shows it.
SWEEP=(tests/bench/sweep.yaml --vary container.maxConcurrentConsumers=8..26:2
       --vary container.prefetchCount=1,250 --reps 15 --quiet)
sweep_speedup() {
    local bin=$1 one two
    : >"$TMP/sweep.ratio"
    : >"$TMP/sweep.cpus"
    for i in $(seq "$PAIRS"); do
        one=$(wall_free "$bin" sweep "${SWEEP[@]}" -j 1 --out "$TMP/s1.db")
        "$bin" sweep "${SWEEP[@]}" -j 2 --out "$TMP/s2.db" >/dev/null 2>&1 &
        local pid=$! s=$EPOCHREALTIME
        while kill -0 "$pid" 2>/dev/null; do
            cpus_of_children "$pid" >>"$TMP/sweep.cpus"
            sleep 0.1
        done
        wait "$pid"
        two=$(awk -v s="$s" -v e="$EPOCHREALTIME" 'BEGIN {printf "%.6f", e - s}')
        echo "$one $two" | awk '{printf "%.6f %.6f %.6f\n", $1 / $2, $1, $2}' >>"$TMP/sweep.ratio"
    done
    printf '%.2f (%.3f s / %.3f s); %s' "$(col "$TMP/sweep.ratio" 1)" "$(col "$TMP/sweep.ratio" 2)" \
        "$(col "$TMP/sweep.ratio" 3)" "$(awk '
        NF == 2 { n++; if ($1 == $2) same++ }
        END { printf "of %d samples with two workers running, %d had both on one CPU", n, same }' \
        "$TMP/sweep.cpus")"
}
# One line: the CPU each child of PID was last on (field 39 of its stat),
# read with shell built-ins so that sampling adds next to no load.
cpus_of_children() {
    local kids="" k st line=""
    read -r kids <"/proc/$1/task/$1/children" 2>/dev/null || true
    for k in $kids; do
        read -r st <"/proc/$k/stat" 2>/dev/null || continue
        st=${st##*) }
        set -- $st
        line+="${37} "
    done
    echo "$line"
}
wall_free() {
    local s=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 || { echo "bench: failed: $*" >&2; exit 1; }
    awk -v s="$s" -v e="$EPOCHREALTIME" 'BEGIN {printf "%.6f\n", e - s}'
}

# instructions a message under callgrind
instr() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$TMP/callgrind.log" \
        "$@" >/dev/null 2>&1
    awk -v n=$N '/Collected/ {printf "%.0f", $NF / n}' "$TMP/callgrind.log"
}

row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }
both() {              # both FUNCTION: "after" and "before" cells
    "$1" "$B/lsim"
    printf ' | '
    if [ -n "$BEFORE" ]; then "$1" "$BEFORE"; else printf -- '-'; fi
}

echo "| M/M/8, 1 M messages | after | before |"
echo "|---|---|---|"
row "summary output: loop / lsim" "$(fmt "$TMP/mm8.after")" "$(fmt "$TMP/mm8.before")"
if [ -n "${BENCH_CIMBA:-}" ]; then
    pair cimba "$BENCH_CIMBA" summary "${MM8[@]}"
    row "the same against cimba ($BENCH_CIMBA)" "$(fmt "$TMP/cimba.after")" "$(fmt "$TMP/cimba.before")"
else
    row "the same against cimba" "not measured: set BENCH_CIMBA to a cimba M/M/8 command" "-"
fi
row "M/M/1000 (lambda 900/s): loop / lsim" "$(fmt "$TMP/mm1000.after")" "$(fmt "$TMP/mm1000.before")"
row "M/M/100000 (lambda 90,000/s): loop / lsim" "$(fmt "$TMP/mm100k.after")" "$(fmt "$TMP/mm100k.before")"
echo "| ActiveMQ + DMLC 8-8, 1 M uniform groups / 1,000 groups: time | $(both groups_time) |"
echo "| the same: peak memory above the 1,000-group run | $(both groups_memory) |"
row "--detail messages: SQLite insert loop / lsim" "$(fmt "$TMP/rows.after")" "$(fmt "$TMP/rows.before")"
row "the same, not pinned (lsim's writer thread may have a core of its own)" \
    "$(fmt "$TMP/rows2.after")" "$(fmt "$TMP/rows2.before")"
echo "| ActiveMQ page-window worst case | $(both window) |"
echo "| peak memory, 10 M messages, summary | $(both mem10m) |"
echo "| a burst of 1 M messages in flight | $(both burst) |"
echo "| sweep: -j 1 time / -j 2 time (300 runs; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg) before) | $(sweep_speedup "$B/lsim") | - |"
if [ "$CALLGRIND" = 1 ]; then
    ins() { lsim_args "$1" summary "$TMP/c.db" "${MM8[@]}"; instr "${CMD[@]}"; }
    ins1000() { lsim_args "$1" summary "$TMP/c.db" "${MM1000[@]}"; instr "${CMD[@]}"; }
    echo "| instructions a message, M/M/8 (callgrind; loop $(instr "$B/mmc_bare" $N 1)) | $(both ins) |"
    echo "| instructions a message, M/M/1000 (callgrind; loop $(instr "$B/mmc_bare" $N 1 1000 900 1)) | $(both ins1000) |"
fi
