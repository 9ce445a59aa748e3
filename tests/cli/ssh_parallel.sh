#!/bin/sh
# ssh_parallel.sh LSIM -- a sweep's plan run by GNU parallel over ssh, as on
# remote hosts: an sshd started here (Debian's openssh-server, on 127.0.0.1
# only, a port chosen free, a throw-away host key and login key, stopped on
# exit whatever happens); lsim, the scenario and its trace shipped to the
# "host" the way the README says (one folder, rsync over ssh, the same
# path), the jobs run with parallel --sshlogin in ssh's bare environment, the
# shards fetched back with rsync into another folder, lsim merge, and the
# tables equal to the same sweep run locally; then two shards lost, and the
# plan's --resume rerunning only those over ssh.  Needs root (sshd); without
# it, or without the packages, it skips (exit 77).  Run from the top of the
# repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
. tests/cli/cluster_lib.sh
cli_begin ssh
[ "$(id -u)" = 0 ] || cluster_skip "ssh_parallel.sh starts sshd, which needs root"
cluster_need ssh ssh-keygen rsync parallel
[ -x /usr/sbin/sshd ] || cluster_skip "/usr/sbin/sshd is not installed (make deps installs openssh-server)"
LSIM=$(realpath "$LSIM")
K=$TMP/sshd                        # the server's configuration, keys and log
mkdir -p "$K"

sshd_stop() {
    [ -f "$K/sshd.pid" ] || return 0
    kill "$(cat "$K/sshd.pid")" 2>/dev/null
    wait_for 10 sh -c "! kill -0 $(cat "$K/sshd.pid")"
    rm -f "$K/sshd.pid"
}
trap 'sshd_stop; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP

sshd_start() {
    ssh-keygen -q -t ed25519 -N '' -f "$K/host_key" || return 1
    ssh-keygen -q -t ed25519 -N '' -f "$K/id" || return 1
    cp "$K/id.pub" "$K/authorized_keys"
    PORT=$(free_port)
    cat >"$K/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $PORT
HostKey $K/host_key
AuthorizedKeysFile $K/authorized_keys
PidFile $K/sshd.pid.unused
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
# the keys live in a folder under /tmp, which is writable by all
StrictModes no
EOF
    [ -d /run/sshd ] || mkdir -p /run/sshd     # sshd's privilege separation folder
    /usr/sbin/sshd -D -e -f "$K/sshd_config" >"$K/sshd.log" 2>&1 &
    echo $! >"$K/sshd.pid"
    SSH="ssh -F none -i $K/id -p $PORT -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=$K/known_hosts -o LogLevel=ERROR"
    wait_for 10 $SSH root@127.0.0.1 true
}

now() { date +%s.%N; }
took() { /usr/bin/python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" "$1" "$(now)"; }

t0=$(now)
if ! sshd_start; then
    echo "--- sshd:"; tail -n 5 "$K/sshd.log"
    cluster_skip "sshd did not come up here (its log above)"
fi
echo "ssh: sshd up in $(took "$t0")"

# The folder shipped to the hosts: lsim, the scenario and its trace, and the
# plan made there, so that every path in jobs.txt lies inside it.
W=$TMP/work
mkdir -p "$W"
cp "$LSIM" "$W/lsim"
write_cluster_scenario "$W"

# 1. Shipped with rsync over ssh, run by parallel --sshlogin, fetched back
# into another folder and merged: the local sweep's tables.
count=$((count + 1))
t0=$(now)
"$LSIM" sweep "$W/mmc.yaml" $SWEEP -j 2 --quiet --out "$TMP/local.db" >"$TMP/local.txt" || fail "local sweep"
"$W/lsim" sweep "$W/mmc.yaml" $SWEEP --plan "$W/plan" >/dev/null || fail "sweep --plan"
grep -q "'$W/lsim' sweep '$W/mmc.yaml'" "$W/plan/jobs.txt" || fail "jobs.txt does not run the shipped lsim and scenario: $(head -n 1 "$W/plan/jobs.txt")"
rsync -a -e "$SSH" "$W/" "root@127.0.0.1:$W/" || fail "rsync the folder to the host"
parallel --will-cite --halt now,fail=1 --ssh "$SSH" --sshlogin 2/root@127.0.0.1 \
    <"$W/plan/jobs.txt" >"$TMP/parallel.out" 2>&1 || fail "parallel --sshlogin: $(tail -n 5 "$TMP/parallel.out")"
logins=$(grep -c 'Accepted publickey for root from 127.0.0.1' "$K/sshd.log")
[ "$logins" -ge 12 ] || fail "sshd saw $logins logins: the jobs did not all run over ssh"
mkdir "$TMP/back"
rsync -a -e "$SSH" --include 'shard-*.db' --exclude '*' "root@127.0.0.1:$W/plan/" "$TMP/back/" || fail "rsync the shards back"
merge_as_local "$TMP/back" "parallel --sshlogin"
echo "ssh: 12 runs planned, shipped, run over ssh by parallel, fetched, merged and compared in $(took "$t0")"

# 2. Two shards lost: merge names them; --plan DIR --resume writes their jobs
# to resume.txt, parallel --sshlogin runs only those, and the fetched shards
# merge to the local sweep's tables again.
count=$((count + 1))
t0=$(now)
rm "$W/plan/shard-05.db" "$W/plan/shard-06.db" "$TMP/back/shard-05.db" "$TMP/back/shard-06.db"
"$LSIM" merge "$TMP/back" -o "$TMP/merged2.db" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] || fail "merge with two shards lost: exit status"
grep -qx "lsim: 2 of 12 runs are missing (runs 5, 6): run those lines of $TMP/back/jobs.txt again" "$TMP/err" || fail "merge: $(cat "$TMP/err")"
"$W/lsim" sweep "$W/mmc.yaml" $SWEEP --plan "$W/plan" --resume >"$TMP/resume.out" 2>&1 || fail "--plan --resume: $(cat "$TMP/resume.out")"
[ "$(wc -l <"$W/plan/resume.txt")" -eq 2 ] || fail "resume.txt: $(cat "$W/plan/resume.txt")"
rsync -a -e "$SSH" "$W/plan/resume.txt" "root@127.0.0.1:$W/plan/" || fail "rsync resume.txt"
parallel --will-cite --halt now,fail=1 --ssh "$SSH" --sshlogin 2/root@127.0.0.1 \
    <"$W/plan/resume.txt" >"$TMP/parallel.out" 2>&1 || fail "parallel --sshlogin < resume.txt: $(tail -n 5 "$TMP/parallel.out")"
rsync -a -e "$SSH" --include 'shard-*.db' --exclude '*' "root@127.0.0.1:$W/plan/" "$TMP/back/" || fail "rsync the shards back"
"$LSIM" merge "$TMP/back" -o "$TMP/merged2.db" >/dev/null || fail "merge after the resumed jobs"
same_tables "$TMP/local.db" "$TMP/merged2.db" "resume.txt over ssh"
echo "ssh: 2 shards lost, named by merge, rerun over ssh from resume.txt, merged and compared in $(took "$t0")"

echo "$count ssh checks, $failures failed"
[ "$failures" -eq 0 ]
