#!/bin/sh
# replay.sh LSIM -- `lsim fit TRACE --replay`: self-consistency (a run with
# known overheads, runtime calls among them, its trace, the replay fit on
# it: each overhead recovered within 5 %, every consumer start and stop
# within 1 ms), the shared real traces replayed with no hand edits within
# compare's default tolerances, bad traces refused, and a run's own trace
# at distance zero at the end of the observation.  Run from the top of the
# repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin replay

# knob VALUE...: what a fitted scenario says, checked against the truth.
check_knobs() {
    /usr/bin/python3 - "$@" <<'PY'
import re, sys
path, checks = sys.argv[1], sys.argv[2:]
y = open(path).read()
def ms(text):
    m = re.fullmatch(r"([0-9.]+)(us|ms|s)", text)
    return float(m.group(1)) * {"us": 1e-3, "ms": 1, "s": 1e3}[m.group(2)]
def knob(key, at=None):
    m = re.search(r"^  %s: (\S+)$" % key, y, re.M)
    if m:
        return ms(m.group(1))
    steps = re.search(r"^  %s:\n((?:    - .*\n)+)" % key, y, re.M)
    if not steps:
        return None
    value = None
    for f, v in re.findall(r"from: (\S+), value: (\S+) ", steps.group(1)):
        if ms(f) <= at:
            value = ms(v)
    return value
ok = True
for c in checks:
    key, want = c.split("=")
    at = None
    if "@" in key:
        key, at = key.split("@")
        at = float(at)
    got = knob(key, at)
    good = got is not None and abs(got - float(want)) <= 0.05 * float(want)
    print("  %-40s %-26s %s ms (truth %s ms)%s" % (path.split("/")[-1], c.split("=")[0], got,
                                                   want, "" if good else "  WRONG"))
    ok = ok and good
sys.exit(0 if ok else 1)
PY
}

# 1. Self-consistency: run with --trace, fit --replay, the knobs and the replay.
self_check() {
    scen=$1
    shift
    count=$((count + 1))
    base=$TMP/$(basename "$scen" .yaml)
    "$LSIM" run "$scen" --trace "$base.csv" --out "$base.db" --quiet >/dev/null ||
        fail "run $scen"
    "$LSIM" fit "$base.csv" --replay -o "$base-replay.yaml" || fail "fit --replay $scen"
    check_knobs "$base-replay.yaml" "$@" || fail "$scen: a knob is not recovered within 5 %"
    "$LSIM" compare "$base-replay.yaml" "$base.csv" --out "$base-cmp.db" --quiet --json \
        --tolerance consumer_start_max_abs_ms=1 --tolerance consumer_stop_max_abs_ms=1 \
        >"$base.json"
    st=$?
    [ $st -eq 0 ] || fail "$scen: the replay's starts and stops are not within 1 ms (exit $st)"
    /usr/bin/python3 - "$base.json" <<'PY' || fail "$scen: no consumer stopped"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
print("  replay: %d starts within %.3f ms, %d stops within %.3f ms" % (
    m["consumer_start_count_diff"]["real"], m["consumer_start_max_abs_ms"]["difference"],
    m["consumer_stop_count_diff"]["real"], m["consumer_stop_max_abs_ms"]["difference"]))
assert m["consumer_stop_count_diff"]["real"] >= 1
PY
}
self_check tests/cli/replay/smlc-constant.yaml startLatency=4.5 cycleOverhead=1.2 \
    idlePollOverhead=0.6
self_check tests/cli/replay/smlc-schedule-batch4.yaml startLatency=7 cycleOverhead@1000=3 \
    cycleOverhead@12000=1.5 cycleOverhead@60000=1.5 idlePollOverhead=0.8
self_check tests/cli/replay/dmlc-idle.yaml startLatency=6 receiveLag=0.3 \
    bufferedReceiveLag=0.4 idleReceiveOverhead=1.2
self_check tests/cli/replay/dmlc-reschedule.yaml startLatency=6 receiveLag=0.3 \
    bufferedReceiveLag=0.4 rescheduleLatency=1.1 idleReceiveOverhead=1.2
self_check tests/cli/replay/smlc-runtime-calls.yaml startLatency=8 cycleOverhead=1 \
    idlePollOverhead=0.5
# The runs of runtime calls at their edges: each replay's start latency and
# its starts and stops within 1 ms (these runs need not stop a consumer).
for c in calls-in-dynamic-hold:80 calls-10ms-apart:20 calls-idle:8 calls-release-dynamic:9 \
    calls-light-load:7 calls-medium-load:7 calls-stop:9 calls-v13-in-transit:11; do
    count=$((count + 1))
    base=$TMP/${c%:*}
    "$LSIM" run "tests/cli/replay/${c%:*}.yaml" --trace "$base.csv" --out "$base.db" --quiet \
        >/dev/null && "$LSIM" fit "$base.csv" --replay -o "$base-replay.yaml" ||
        fail "${c%:*}: run or fit"
    check_knobs "$base-replay.yaml" "startLatency=${c#*:}" || fail "${c%:*}: startLatency"
    "$LSIM" compare "$base-replay.yaml" "$base.csv" --out "$base-cmp.db" --quiet \
        --tolerance consumer_start_max_abs_ms=1 --tolerance consumer_stop_max_abs_ms=1 \
        >/dev/null 2>&1 || fail "${c%:*}: the replay is not within 1 ms"
done
# Odd runtime_calls: a tab between calls, a count the setter throws on, a
# time that is no number or finer than a microsecond, a setter lsim does
# not replay; the replay still checks.
sed 's/^# runtime_calls: .*/# runtime_calls: 5000:setConcurrentConsumers=4\t6000:setConcurrentConsumers=0 7000.5.5:setConcurrentConsumers=3 7000:setPrefetchCount=5 8000.1234567:setConcurrentConsumers=2/' \
    "$TMP/calls-idle.csv" >"$TMP/odd-calls.csv"
"$LSIM" fit "$TMP/odd-calls.csv" --replay -o "$TMP/odd-calls.yaml" || fail "fit of odd runtime_calls"
for want in '    - { at: 5000ms, concurrentConsumers: 4 }' \
    '    # at 6000 ms, concurrentConsumers: 0: not a count from 1 to 100000 (below 1 the setter throws)' \
    '    # at 7000 ms, prefetchCount: 5: not a setting lsim replays'; do
    count=$((count + 1))
    grep -qxF "$want" "$TMP/odd-calls.yaml" || fail "odd runtime_calls: no '$want'"
done
count=$((count + 1))
[ "$(grep -c '{ at:' "$TMP/odd-calls.yaml")" = 1 ] || fail "odd runtime_calls: not one change"
"$LSIM" check "$TMP/odd-calls.yaml" >/dev/null || fail "odd runtime_calls: the replay does not check"

# 2. The shared real traces: fit --replay, then run and compare, no edits.
for trace in A-burst C-groups-skew smlc-S1-burst-scaleup; do
    count=$((count + 1))
    y=$TMP/$trace-replay.yaml
    "$LSIM" fit "tests/data/traces/$trace-run1.csv" --replay -o "$y" || fail "fit --replay $trace"
    "$LSIM" run "$y" --out "$TMP/$trace-run.db" --quiet >/dev/null || fail "run the replay of $trace"
    "$LSIM" compare "$y" "tests/data/traces/$trace-run1.csv" --out "$TMP/$trace-cmp.db" \
        --quiet >"$TMP/$trace.txt"
    st=$?
    [ $st -eq 0 ] || { fail "compare the replay of $trace: exit $st"; cat "$TMP/$trace.txt"; }
    grep -E 'start_max|stop_max|counts_max|p99_lat' "$TMP/$trace.txt" | sed "s/^/  $trace: /"
    grep -q 'version: "[0-9]*\.[0-9]*\.[0-9]*"' "$y" || fail "$trace: the replay names no patch version"
done
# the spread of what it sampled, as distributions
grep -q '^  startLatency: { kind: lognormal, mean: [0-9]*us, sigma: [0-9.]* }$' \
    "$TMP/smlc-S1-burst-scaleup-replay.yaml" ||
    fail "smlc-S1-burst-scaleup: the start latency is not a distribution"
# the cycle overhead too, a schedule of lognormals; --deterministic: means alone
count=$((count + 1))
grep -q '^    - { from: 0s, value: { kind: lognormal, mean: [0-9]*us, sigma: [0-9.]* } }' \
    "$TMP/smlc-S1-burst-scaleup-replay.yaml" ||
    fail "smlc-S1-burst-scaleup: the cycle overhead is not a schedule of distributions"
count=$((count + 1))
"$LSIM" fit tests/data/traces/smlc-S1-burst-scaleup-run1.csv --replay --deterministic \
    -o "$TMP/s1-det.yaml" 2>/dev/null && ! grep -q 'kind: lognormal' "$TMP/s1-det.yaml" &&
    grep -q '^    - { from: 0s, value: [0-9]*us }' "$TMP/s1-det.yaml" &&
    grep -q '^  startLatency: [0-9]*us$' "$TMP/s1-det.yaml" ||
    fail "fit --replay --deterministic: a distribution is left, or a knob is missing"
count=$((count + 1))
"$LSIM" fit tests/data/traces/smlc-S1-burst-scaleup-run1.csv --deterministic >/dev/null 2>&1
[ $? -eq 2 ] || fail "fit --deterministic without --replay is not refused"
# A-burst's invokers each got a first message published after they started
# (the publisher spreads the burst): none measures a start, the default stays
grep -q '^  #   5 invoker(s) left out: their first message was published after' \
    "$TMP/A-burst-replay.yaml" && ! grep -q '^  startLatency:' "$TMP/A-burst-replay.yaml" ||
    fail "A-burst: the start latency is measured from later traffic"
grep -q '^  receiveLag: { kind: lognormal' "$TMP/C-groups-skew-replay.yaml" ||
    fail "C-groups-skew: the receive lag is not a distribution"

# The metadata of a run with two nodes started apart and setters called at
# runtime: the nodes with their starts, the calls as changes.
count=$((count + 1))
{ sed -n '1,/^t_ms/p' tests/data/traces/smlc-S1-burst-scaleup-run1.csv | sed '$d' |
      sed 's/^# nodes: 1$/# nodes: 2/'
  echo "# runtime_calls: 20000:setMaxConcurrentConsumers=3 45000:setConcurrentConsumers=2 (trace ms)"
  echo "# node_started_ms: node-1=458.919, node-2=1200.5 (one after another)"
  sed -n '/^t_ms/,$p' tests/data/traces/smlc-S1-burst-scaleup-run1.csv; } >"$TMP/calls.csv"
"$LSIM" fit "$TMP/calls.csv" --replay -o "$TMP/calls.yaml" || fail "fit --replay with runtime calls"
"$LSIM" check "$TMP/calls.yaml" >/dev/null || fail "the replay with runtime calls does not check"
for want in '  - { start: 458919us }' '  - { start: 1200500us }' \
            '    - { at: 20000ms, maxConcurrentConsumers: 3 }' \
            '    - { at: 45000ms, concurrentConsumers: 2 }'; do
    grep -qxF "$want" "$TMP/calls.yaml" || fail "replay with runtime calls: no '$want'"
done

# 2b. Traces of `lsim record` on a real RabbitMQ 3.10.8 (its own pool of
# plain consumers, two runs each): the replay is a pool with the queues the
# trace declares and the failures its requeues show, and it holds against
# the first run within the noise between the two.
pool_replay() {
    name=$1
    shift
    count=$((count + 1))
    t=tests/data/traces/pool-$name
    y=$TMP/pool-$name-replay.yaml
    "$LSIM" fit "$t-run1.csv" --replay -o "$y" 2>/dev/null || { fail "fit --replay pool-$name"; return; }
    for want in "$@"; do
        grep -qF -- "$want" "$y" || fail "pool-$name: the replay has no '$want'"
    done
    "$LSIM" compare "$y" "$t-run1.csv" --noise "$t-run2.csv" --out "$TMP/pool-$name.db" --quiet \
        >"$TMP/pool-$name.txt" 2>/dev/null
    st=$?
    [ $st -eq 0 ] || { fail "pool-$name: the replay is outside tolerance (exit $st)"; cat "$TMP/pool-$name.txt"; }
}
pool_replay ttl-head-dlx "kind: pool" "messageTtl: 500ms" "deadLetter: { queue: 'live.ttl.dlq' }" \
    "queues: [ 'live.ttl' ]"
pool_replay consumer-timeout "consumerTimeout: 2500ms" "channelTickInterval: 1000ms" \
    "  startLatency: "
pool_replay prefetch-1-uneven "consumers: 3" "prefetch: 1" "  dispatchLatency: { kind: lognormal"
# A poison message nacked back every time: the failure rule, and every other
# message completed as in the real run (which consumer takes the poison
# message next is not judged here: tests/live/known.txt)
count=$((count + 1))
y=$TMP/pool-nack-replay.yaml
"$LSIM" fit tests/data/traces/pool-nack-requeue-order-run1.csv --replay -o "$y" 2>/dev/null &&
    grep -qF "    - messages: [3]" "$y" || fail "pool-nack-requeue-order: no failure rule for m3"
"$LSIM" compare "$y" tests/data/traces/pool-nack-requeue-order-run1.csv --out "$TMP/nack.db" \
    --quiet --json >"$TMP/nack.json" 2>/dev/null
/usr/bin/python3 - "$TMP/nack.json" <<'PY' || fail "pool-nack-requeue-order: not every message completed"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
assert m["completed_diff"]["sim"] == m["completed_diff"]["real"] == 60, m["completed_diff"]
PY
# A simulated pool run's own trace, TTL and dead letters among its
# publishes: its replay takes the queue's publishes alone, at distance zero.
count=$((count + 1))
"$LSIM" run tests/live/scenarios/rabbitmq/ttl-head-dlx.yaml --trace "$TMP/sim-ttl.csv" \
    --out "$TMP/sim-ttl.db" --quiet >/dev/null &&
    "$LSIM" fit "$TMP/sim-ttl.csv" --replay -o "$TMP/sim-ttl-replay.yaml" 2>/dev/null &&
    "$LSIM" compare "$TMP/sim-ttl-replay.yaml" "$TMP/sim-ttl.csv" --out "$TMP/sim-ttl-cmp.db" \
        --quiet >/dev/null 2>&1 || fail "a simulated pool trace: its replay is not within tolerance"

# 3. Bad traces: a clear message, exit 2, no file.
printf 't_ms,event,node,consumer,msg,group,queue\n0,consumer_start,node-1,c1,,,q\n1,publish,,,m1,,q\n' \
    >"$TMP/nometa.csv"
printf '# container: com.example.MyListenerContainer\nt_ms,event,node,consumer,msg,group,queue\n0,consumer_start,node-1,c1,,,q\n' \
    >"$TMP/unknown.csv"
printf '# container: org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer (spring-rabbit 2.4.17)\nt_ms,event,node,consumer,msg,group,queue\n1,publish,,,m1,,q\n' \
    >"$TMP/nocons.csv"
for pair in "nometa:no metadata naming its container" "unknown:is not one lsim models" \
            "nocons:no consumer events"; do
    count=$((count + 1))
    name=${pair%%:*} want=${pair#*:}
    "$LSIM" fit "$TMP/$name.csv" --replay -o "$TMP/$name.yaml" 2>"$TMP/err"
    st=$?
    [ $st -eq 2 ] || fail "fit --replay $name: exit $st, expected 2"
    grep -q "$want" "$TMP/err" || fail "fit --replay $name: said '$(cat "$TMP/err")'"
    [ ! -e "$TMP/$name.yaml" ] || fail "fit --replay $name: left a file"
    echo "  $name: $(cat "$TMP/err")"
done

# 4. A version without its patch number, where a patch release changes the
#    behaviour, is warned about, naming the release; a full one is not.
count=$((count + 1))
"$LSIM" run scenarios/smlc-S1-trace.yaml --set container.version=1.7 --detail summary \
    --out "$TMP/v.db" >/dev/null 2>"$TMP/err" || fail "run with version 1.7"
grep -q 'warning: container.version "1.7" means 1.7.0; from 1.7.8 on' "$TMP/err" ||
    fail "version 1.7: no warning naming 1.7.8: '$(cat "$TMP/err")'"
"$LSIM" run scenarios/smlc-S1-trace.yaml --detail summary --out "$TMP/v.db" >/dev/null \
    2>"$TMP/err" || fail "run with version 1.7.15"
[ ! -s "$TMP/err" ] || fail "version 1.7.15 warned: '$(cat "$TMP/err")'"
"$LSIM" run scenarios/jms-seed-one-server.yaml --set container.version=5.3 --detail summary \
    --out "$TMP/v.db" >/dev/null 2>"$TMP/err" || fail "run with dmlc version 5.3"
grep -q 'warning: container.version "5.3" is modelled as 5.3.5 and later' "$TMP/err" ||
    fail "dmlc version 5.3: no warning naming 5.3.5: '$(cat "$TMP/err")'"

# 5. A knob as a distribution: drawn from a stream of its own (the arrivals
#    and service times are those of the plain duration's run), the same seed
#    giving the same run, the start latencies spread.
count=$((count + 1))
sc=tests/cli/replay/smlc-schedule-batch4.yaml
dist='container.startLatency={kind: uniform, min: 2ms, max: 30ms}'
"$LSIM" run "$sc" --out "$TMP/k0.db" --quiet >/dev/null || fail "run $sc"
"$LSIM" run "$sc" --set "$dist" --out "$TMP/k1.db" --quiet >/dev/null || fail "run $sc with a distribution"
"$LSIM" run "$sc" --set "$dist" --out "$TMP/k2.db" --quiet >/dev/null || fail "run $sc again"
/usr/bin/python3 - "$TMP/k0.db" "$TMP/k1.db" "$TMP/k2.db" <<'PY' || fail "knob distributions"
import sqlite3, sys
def q(db, sql):
    return sqlite3.connect(db).execute(sql).fetchall()
work = "select msg, t_publish, round(t_end - t_begin, 6) from messages order by msg"
assert q(sys.argv[1], work) == q(sys.argv[2], work), "the workload's draws moved"
fp = "select fingerprint from runs"
assert q(sys.argv[2], fp) == q(sys.argv[3], fp), "one seed, two runs"
assert q(sys.argv[1], fp) != q(sys.argv[2], fp), "the distribution changed nothing"
lat = q(sys.argv[2], "select c.t_start, min(m.t_begin) - c.t_start from consumers c join messages m "
        "on m.consumer = c.consumer where c.consumer > 1 group by c.consumer")
spread = sorted(round(x[1], 3) for x in lat)
print("  startLatency uniform 2-30 ms: first begins after the decision", spread)
assert len(set(spread)) > 2 and min(spread) >= 2, spread   # (later: no message waiting)
PY

# 6. Prediction bands: on a knife edge, one replay of another seed's run is
#    outside the single-run tolerances (exit 3), and the band of 20
#    replications holds it (exit 0, verdicts "band"), in the database and
#    the JSON.
count=$((count + 1))
ke=scenarios/knife-edge-two-nodes.yaml
"$LSIM" run "$ke" --seed 100 --trace "$TMP/ke.csv" --out "$TMP/ke.db" --quiet >/dev/null ||
    fail "run $ke"
"$LSIM" compare "$ke" "$TMP/ke.csv" --out "$TMP/ke1.db" --quiet >/dev/null
st=$?
[ $st -eq 3 ] || fail "knife edge, one replication: exit $st, expected 3 (outside)"
"$LSIM" compare "$ke" "$TMP/ke.csv" --reps 20 --out "$TMP/ke20.db" --quiet --json >"$TMP/ke20.json"
st=$?
[ $st -eq 0 ] || fail "knife edge, 20 replications: exit $st, expected 0 (inside the band)"
/usr/bin/python3 - "$TMP/ke20.json" "$TMP/ke20.db" <<'PY' || fail "knife edge: the bands"
import json, sqlite3, sys
j = json.load(open(sys.argv[1]))
band = [k for k, m in j["metrics"].items() if m["verdict"] == "band"]
print("  knife edge, --reps 20: inside the band:", ", ".join(band))
assert j["replications"] == 20 and band and j["pass"]
assert all(e["inside"] for e in j["events"]) and len(j["events"]) >= 10
db = sqlite3.connect(sys.argv[2])
assert db.execute("select count(*) from runs").fetchone()[0] == 20
assert db.execute("select count(*) from comparison where verdict = 'band'").fetchone()[0] \
    == len(band)
assert db.execute("select count(*) from comparison where band_low <= real and real <= band_high"
                  ).fetchone()[0] >= 5
assert db.execute("select count(*) from comparison_events where inside = 1").fetchone()[0] \
    == len(j["events"])
PY
"$LSIM" compare "$ke" "$TMP/ke.csv" --reps 0 --out "$TMP/x.db" 2>"$TMP/err"
[ $? -eq 2 ] || fail "--reps 0 accepted"

# 7. compare takes the node start times and the version from the trace when
#    the scenario does not set them, and says so.
count=$((count + 1))
grep -v -e '^nodes:' -e 'version:' scenarios/smlc-S1-trace.yaml >"$TMP/s1-bare.yaml"
"$LSIM" compare "$TMP/s1-bare.yaml" tests/data/traces/smlc-S1-burst-scaleup-run1.csv \
    --out "$TMP/bare.db" >"$TMP/bare.txt" 2>"$TMP/err"
st=$?
[ $st -eq 0 ] || fail "compare without nodes and version: exit $st"
grep -q 'from the trace: nodes.0.start 458.919 ms (containers_started_at_ms), container.version 1.7.15' \
    "$TMP/err" || fail "compare did not say what it took: '$(cat "$TMP/err")'"
echo "  $(cat "$TMP/err")"
"$LSIM" compare scenarios/smlc-S1-trace.yaml tests/data/traces/smlc-S1-burst-scaleup-run1.csv \
    --out "$TMP/full.db" >/dev/null 2>"$TMP/err"
[ ! -s "$TMP/err" ] || fail "compare took from the trace what the scenario sets: '$(cat "$TMP/err")'"

# 8. Long metadata values are read whole: a node_started_ms past 1,000
#    characters (spaces around '='), and 50 runtime_calls.
count=$((count + 1))
{
    sed -n '1,/^t_ms,/{/^t_ms,/!p}' tests/data/traces/smlc-S1-burst-scaleup-run1.csv
    printf '# node_started_ms: '
    i=100
    while [ $i -lt 160 ]; do printf 'node-%d = 1%d.5, ' $i $i; i=$((i + 1)); done
    echo 'node-1 = 460.5 (the container start)'
    printf '# runtime_calls: '
    i=1
    while [ $i -le 50 ]; do printf '%d000:setMaxConcurrentConsumers=%d ' $((100 + i)) $((3 + i % 3)); i=$((i + 1)); done
    echo
    sed -n '/^t_ms,/,$p' tests/data/traces/smlc-S1-burst-scaleup-run1.csv
} >"$TMP/long-meta.csv"
"$LSIM" fit "$TMP/long-meta.csv" --replay -o "$TMP/long-meta.yaml" 2>"$TMP/err" ||
    fail "fit --replay of long metadata: $(cat "$TMP/err")"
grep -q '^  - { start: 460500us }' "$TMP/long-meta.yaml" ||
    fail "long node_started_ms: $(grep -A1 '^nodes:' "$TMP/long-meta.yaml")"
[ "$(grep -c '^    - { at: [0-9]*ms, maxConcurrentConsumers: [0-9]* }' "$TMP/long-meta.yaml")" = 50 ] ||
    fail "long runtime_calls: $(grep -c '{ at:' "$TMP/long-meta.yaml") changes written"

# 9. A trace of two queues: fit says it makes one of them.
count=$((count + 1))
printf '%s\n' t_ms,event,node,consumer,msg,group,queue 0,consumer_start,node-1,c1,,,qa \
    10,publish,,,a1,,qa 10,begin,node-1,c1,a1,,qa 15,end,node-1,c1,a1,,qa \
    20,publish,,,b1,,qb 20,begin,node-1,c1,b1,,qb 29,end,node-1,c1,b1,,qb >"$TMP/twoq.csv"
"$LSIM" fit "$TMP/twoq.csv" >/dev/null 2>"$TMP/err" || fail "fit of two queues: $(cat "$TMP/err")"
grep -qxF "lsim: warning: $TMP/twoq.csv: messages on more than one queue ('qa', then 'qb'): the scenario has one queue, 'qa', with all of them" \
    "$TMP/err" || fail "fit of two queues: no warning: '$(cat "$TMP/err")'"

# 10. A consumer id used again after its stop is another consumer's lifetime.
count=$((count + 1))
printf '%s\n' t_ms,event,node,consumer,msg,group,queue 0,consumer_start,node-1,c1,,,q \
    1,publish,,,m1,,q 1,begin,node-1,c1,m1,,q 6,end,node-1,c1,m1,,q 10,consumer_stop,node-1,c1,,,q \
    20,consumer_start,node-1,c1,,,q 21,publish,,,m2,,q 21,begin,node-1,c1,m2,,q \
    26,end,node-1,c1,m2,,q 30,consumer_stop,node-1,c1,,,q >"$TMP/reuse.csv"
printf '%s\n' 'name: reuse' 'duration: 40ms' \
    'queue: { arrivals: { kind: trace, path: reuse.csv }, service: { kind: constant, value: 5ms } }' \
    'container: { kind: competing, workers: 1 }' >"$TMP/reuse.yaml"
"$LSIM" compare "$TMP/reuse.yaml" "$TMP/reuse.csv" --out "$TMP/reuse.db" >/dev/null 2>"$TMP/err"
[ "$(sqlite3 "$TMP/reuse.db" "select count(*), count(t_stop) from trace_consumers where source = 'real'")" = "2|2" ] ||
    fail "a reused consumer id: $(sqlite3 "$TMP/reuse.db" "select * from trace_consumers where source = 'real'") $(cat "$TMP/err")"

# 11. Metadata and file edges: a bad time named at its line, a tab after the
#     colon, blanks around the key, a blank line before the header, a
#     workload file's BOM and NUL byte, a trace with nothing published.
H=t_ms,event,node,consumer,msg,group,queue
EV='0,consumer_start,node-1,c1,,,q 0,publish,,,m1,,q 1,begin,node-1,c1,m1,,q 3,end,node-1,c1,m1,,q'
printf '%s\n' '# shutdown_ms: soon' $H $EV >"$TMP/m1.csv"
expect_status 2 "$TMP/m1.csv:1: metadata shutdown_ms: 'soon' is not a time" -- "$LSIM" fit "$TMP/m1.csv"
printf '# shutdown_ms:\t45\n\n' >"$TMP/m2.csv"
printf '%s\n' $H $EV >>"$TMP/m2.csv"
printf '%s\n' '# shutdown_ms : 45' $H $EV >"$TMP/m3.csv"
for f in m2 m3; do
    count=$((count + 1))
    [ "$("$LSIM" fit "$TMP/$f.csv" 2>"$TMP/err" | grep '^duration:')" = "duration: 45.000ms" ] ||
        fail "$f: shutdown_ms not read: $(cat "$TMP/err")"
done
printf '\357\273\277t_ms,msg,group,service_ms\n0,m1,,5\n' >"$TMP/wbom.csv"
printf 't_ms,msg,group,service_ms\n0,m1,,5\n1,m\0002,,5\n' >"$TMP/wnul.csv"
for f in wbom wnul; do
    printf '%s\n' "name: $f" 'duration: 1s' \
        "queue: { arrivals: { kind: file, path: $f.csv }, service: { kind: constant, value: 5ms } }" \
        'container: { kind: competing, workers: 1 }' >"$TMP/$f.yaml"
done
expect_status 0 -- "$LSIM" run "$TMP/wbom.yaml" --out "$TMP/w.db" --quiet
expect_status 2 "$TMP/wnul.csv:3: a NUL byte: not a text file" -- "$LSIM" run "$TMP/wnul.yaml" --out "$TMP/w.db" --quiet
printf '%s\n' $H >"$TMP/hdr.csv"
expect_status 2 "$TMP/hdr.csv: no message is published in it: there is no workload to fit" -- "$LSIM" fit "$TMP/hdr.csv"

# 12. The end of the observation.  A run traced with messages still running
#     at its end is at distance zero from its trace, replayed (fit --replay)
#     or through its own scenario: a message that had run longer than the
#     mean service time when the trace ended runs past that end in the
#     replay too.  With a shutdown_ms written before the trace's last end,
#     both sides count what happened by the shutdown and nothing after.
#     (The run has no empty poll overhead: no consumer stops in it, so fit
#     has nothing to measure that overhead from.)
SS="scenarios/smlc-steady.yaml --set container.idlePollOverhead=0"
"$LSIM" run $SS --trace "$TMP/end.csv" --out "$TMP/end.db" --quiet >/dev/null || fail "run $SS"
sed 's/^# observed_until_ms: .*/&\n# shutdown_ms: 300000 (written by the test)/' "$TMP/end.csv" >"$TMP/shut.csv"
# distance_zero NAME TRACE UNTIL_MS: fit --replay and the scenario, each
# compared with TRACE: every difference zero, completed the trace's ends
# by UNTIL_MS.
distance_zero() {
    count=$((count + 1))
    ends=$(awk -F, -v until="$3" '$2 == "end" && $1 <= until + 0 { n++ } END { print n + 0 }' "$2")
    "$LSIM" fit "$2" --replay -o "$TMP/$1-replay.yaml" 2>/dev/null || fail "$1: fit --replay"
    for how in replay scenario; do
        if [ $how = replay ]; then
            "$LSIM" compare "$TMP/$1-replay.yaml" "$2" --json --quiet --out "$TMP/$1-$how.db" \
                >"$TMP/$1-$how.json"
        else
            "$LSIM" compare $SS "$2" --json --quiet --out "$TMP/$1-$how.db" >"$TMP/$1-$how.json"
        fi
        /usr/bin/python3 - "$TMP/$1-$how.json" "$ends" "$1, $how" <<'PY' || fail "$1, $how: not at distance zero"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
bad = {k: v["difference"] for k, v in m.items() if v["difference"] not in (0, None)}
c = m["completed_diff"]
print("  %-15s completed: sim %d, real %d, the trace's ends %s; differences: %s" % (
    sys.argv[3], c["sim"], c["real"], sys.argv[2], bad or "none"))
assert not bad and c["real"] == int(sys.argv[2]), bad
PY
    done
}
running=$(awk -F, '$2 == "begin" { b[$5] = $1 } $2 == "end" { delete b[$5] }
                  END { for (k in b) if (b[k] < 599800) n++; print n + 0 }' "$TMP/end.csv")
[ "$running" -ge 1 ] || fail "the run's trace has no message running long at its end"
distance_zero end "$TMP/end.csv" 600000          # the run's duration, 10 m
distance_zero shut "$TMP/shut.csv" 300000

echo "$count replay checks, $failures failed"
[ "$failures" -eq 0 ]
