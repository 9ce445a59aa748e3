#!/bin/sh
# slurm.sh LSIM -- a sweep's plan on a real single-node Slurm cluster started
# here (munged, slurmctld, slurmd from Debian's packages, configured in a
# temporary folder, ports on 127.0.0.1 chosen free, everything stopped on
# exit whatever happens): slurm.sh submitted as it is with sbatch --wait
# (Slurm taking its --time and --mem), lsim merge, the tables equal to the
# same sweep run locally; then an array task killed with scancel, reported
# by merge with its run, rerun by the plan's --resume, and the merged tables
# again equal to the local ones.
# Needs root (the daemons); without it, or without the packages, it skips
# (exit 77).  Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
. tests/cli/cluster_lib.sh
cli_begin slurm
[ "$(id -u)" = 0 ] || cluster_skip "slurm.sh starts munged, slurmctld and slurmd, which need root"
cluster_need munged munge slurmctld slurmd sbatch squeue scancel sinfo scontrol
LSIM=$(realpath "$LSIM")
S=$TMP/slurm                       # the cluster's configuration, state and logs
mkdir -p "$S/state" "$S/spool"
export SLURM_CONF=$S/slurm.conf

slurm_stop() {
    if [ -f "$S/slurmctld.pid" ]; then
        jobs=$(squeue -h -o %A 2>/dev/null | sort -u)
        [ -z "$jobs" ] || scancel $jobs 2>/dev/null
        wait_for 20 sh -c '[ -z "$(squeue -h 2>/dev/null)" ]'
    fi
    for d in slurmd slurmctld munged; do
        [ -f "$S/$d.pid" ] && kill "$(cat "$S/$d.pid")" 2>/dev/null
    done
    for d in slurmd slurmctld munged; do
        [ -f "$S/$d.pid" ] && wait_for 10 sh -c "! kill -0 $(cat "$S/$d.pid")"
        rm -f "$S/$d.pid"
    done
}
trap 'slurm_stop; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP

slurm_start() {
    dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$S/munge.key"
    munged -F --force --key-file="$S/munge.key" --socket="$S/munge.sock" \
        --pid-file="$S/munged.pid.unused" --seed-file="$S/munge.seed" >"$S/munged.log" 2>&1 &
    echo $! >"$S/munged.pid"
    wait_for 10 munge --socket="$S/munge.sock" -n || return 1
    host=$(hostname -s)
    cat >"$SLURM_CONF" <<EOF
ClusterName=lsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge.sock
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid.unused
SlurmdPidFile=$S/slurmd.pid.unused
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
# the main scheduler every second, not every minute: an array of short tasks
SchedulerParameters=sched_interval=1,batch_sched_delay=0,sched_min_interval=0
ReturnToService=2
NodeName=lsimnode NodeHostname=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=lsim Nodes=lsimnode Default=YES MaxTime=INFINITE State=UP
EOF
    slurmctld -D -f "$SLURM_CONF" >"$S/slurmctld.log" 2>&1 &
    echo $! >"$S/slurmctld.pid"
    slurmd -D -N lsimnode -f "$SLURM_CONF" >"$S/slurmd.log" 2>&1 &
    echo $! >"$S/slurmd.pid"
    wait_for 30 sh -c 'sinfo -h -o %T | grep -qx idle'
}

now() { date +%s.%N; }
took() { /usr/bin/python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" "$1" "$(now)"; }

t0=$(now)
if ! slurm_start; then
    for f in munged slurmctld slurmd; do echo "--- $f:"; tail -n 5 "$S/$f.log"; done
    cluster_skip "the Slurm daemons did not come up here (their logs above)"
fi
echo "slurm: cluster up in $(took "$t0")"

write_cluster_scenario "$TMP"

# 1. The plan's slurm.sh, submitted as it is, gives the local sweep's tables.
count=$((count + 1))
t0=$(now)
"$LSIM" sweep "$TMP/mmc.yaml" $SWEEP -j 2 --quiet --out "$TMP/local.db" >"$TMP/local.txt" || fail "local sweep"
"$LSIM" sweep "$TMP/mmc.yaml" $SWEEP --plan "$TMP/plan" >/dev/null || fail "sweep --plan"
minutes=$(sed -n 's/^#SBATCH --time=\([1-9][0-9]*\)$/\1/p' "$TMP/plan/slurm.sh")
mem=$(sed -n 's/^#SBATCH --mem=\([1-9][0-9]*M\)$/\1/p' "$TMP/plan/slurm.sh")
[ -n "$minutes" ] && [ -n "$mem" ] || fail "slurm.sh has no --time or --mem: $(grep '^#SBATCH' "$TMP/plan/slurm.sh")"
sbatch --wait "$TMP/plan/slurm.sh" >"$TMP/sbatch.out" 2>&1 || fail "sbatch --wait slurm.sh: $(cat "$TMP/sbatch.out")"
job=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$TMP/sbatch.out")
limits=$(printf 'TimeLimit=%02d:%02d:00 .*MinMemoryNode=%s' $((minutes / 60)) $((minutes % 60)) "$mem")
scontrol show job "${job}_1" | tr '\n' ' ' | grep -q "$limits" || fail "Slurm did not take slurm.sh's limits ($limits): $(scontrol show job "${job}_1" | grep -E 'TimeLimit|MinMemory')"
merge_as_local "$TMP/plan" "sbatch slurm.sh"
echo "slurm: 12 runs planned, run as a Slurm array (sbatch --wait), merged and compared in $(took "$t0")"

# 2. An array task killed while it runs (scancel JOB_K): sbatch --wait fails,
# merge refuses, naming the run and its task; the sweep's command with
# --plan DIR --resume writes that run's job to resume.txt and prints the
# sbatch --array that reruns it; once it has run, merge gives the local
# sweep's tables.  Runs of about 1 s, so that a task is caught running;
# runs 1 and 4 are not candidates, the plan ran them when it measured them.
count=$((count + 1))
t0=$(now)
cat >"$TMP/long.yaml" <<'YAML'
name: long
warmup: 100s
queue:
  count: 6000000
  arrivals: { kind: poisson, rate: 8/s }
  service: { kind: exponential, mean: 1s }
container: { kind: competing, workers: 10 }
YAML
LONG="--vary container.workers=10,11 --reps 2"
P=$TMP/long-plan
"$LSIM" sweep "$TMP/long.yaml" $LONG -j 2 --quiet --out "$TMP/long-local.db" >/dev/null || fail "local sweep (long runs)"
"$LSIM" sweep "$TMP/long.yaml" $LONG --plan "$P" >/dev/null || fail "sweep --plan (long runs)"
sbatch --wait "$P/slurm.sh" >"$TMP/sbatch.out" 2>&1 &
sbatch_pid=$!
wait_for 10 grep -q '^Submitted batch job [0-9]*$' "$TMP/sbatch.out" || fail "sbatch: $(cat "$TMP/sbatch.out")"
job=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$TMP/sbatch.out")
running() { squeue -h -j "$job" -t R -o %K | grep -x '[23]' | head -n 1 | grep .; }
wait_for 30 running || fail "no task of 2 and 3 of job $job ran"
k=$(running)
scancel "${job}_$k" || fail "scancel ${job}_$k"
wait $sbatch_pid && fail "sbatch --wait succeeded although task $k was cancelled"
scontrol show job "${job}_$k" | grep -q 'JobState=CANCELLED' || fail "task $k: $(scontrol show job "${job}_$k" | grep JobState)"
[ ! -e "$P/shard-$k.db" ] || fail "the cancelled task $k left its shard"
[ -z "$(ls "$P" | grep 'tmp-')" ] || fail "the cancelled task left: $(ls "$P" | grep 'tmp-')"
"$LSIM" merge "$P" -o "$TMP/long-merged.db" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] || fail "merge of a plan with a cancelled task: exit status"
grep -qx "lsim: 1 of 4 runs are missing (runs $k): run those lines of $P/jobs.txt again" "$TMP/err" || fail "merge: $(cat "$TMP/err")"
grep -qx "lsim: the Slurm array tasks that should have run them (1 run a task): $k; resubmit them with sbatch --array=$k $P/slurm.sh" "$TMP/err" || fail "merge names no task: $(cat "$TMP/err")"
"$LSIM" sweep "$TMP/long.yaml" $LONG --plan "$P" --resume >"$TMP/resume.out" 2>&1 || fail "--plan --resume: $(cat "$TMP/resume.out")"
grep -qx "1 of 4 runs are missing (run $k); their jobs are in $P/resume.txt." "$TMP/resume.out" || fail "--resume: $(cat "$TMP/resume.out")"
[ "$(cat "$P/resume.txt")" = "$(sed -n "${k}p" "$P/jobs.txt")" ] || fail "resume.txt is not line $k of jobs.txt: $(cat "$P/resume.txt")"
again=$(sed -n 's/^  sbatch //p' "$TMP/resume.out")
[ "$again" = "--array=$k $P/slurm.sh" ] || fail "--resume prints: sbatch $again"
sbatch --wait --quiet $again >"$TMP/sbatch.out" 2>&1 || fail "sbatch --wait $again: $(cat "$TMP/sbatch.out")"
"$LSIM" merge "$P" -o "$TMP/long-merged.db" >/dev/null || fail "merge after the resumed task"
same_tables "$TMP/long-local.db" "$TMP/long-merged.db" "a cancelled task, resumed"
"$LSIM" sweep "$TMP/long.yaml" $LONG --plan "$P" --resume >"$TMP/resume.out" 2>&1 || fail "--plan --resume when all are done"
grep -qx "all 4 runs of $P are done: fold them with" "$TMP/resume.out" || fail "--resume when all are done: $(cat "$TMP/resume.out")"
[ ! -e "$P/resume.txt" ] || fail "--resume left resume.txt when no run is missing"
echo "slurm: task $k of 4 cancelled, reported by merge, rerun by --resume, merged and compared in $(took "$t0")"

echo "$count slurm checks, $failures failed"
[ "$failures" -eq 0 ]
