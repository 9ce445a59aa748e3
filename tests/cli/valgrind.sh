#!/bin/sh
# valgrind.sh BUILD -- a representative subset under valgrind (memcheck): a
# few unit tests (the calendar, scenarios, traces, the SQLite writer, compare,
# both brokers, the RabbitMQ failure paths) and the commands on small inputs:
# run (with --trace), check, compare (and --reps), fit (and --replay), plot
# (timeline, a Gantt window, a sweep), report (a run, a sweep, a comparison),
# a sweep with -j 2 that no point meets (its workers are forked, so valgrind
# follows them), a plan's jobs merged, a plan made (its measured runs are
# forked) and resumed, a bad scenario (exit status 2, no leak on the error
# path) and a few hostile inputs.  Any memory error or leak (definite, indirect,
# possible) fails.  `make asan` covers everything; this catches what ASan
# cannot see (reads of uninitialised memory) and checks the -O2 build itself.
# Run from the top of the repository.
set -u
B=${1:-build}
LSIM=$B/lsim
. tests/cli/lib.sh
cli_begin valgrind
VG="valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --quiet"

# check WANTED-STATUS CMD...: the command under valgrind ends with that status
check() {
    want=$1
    shift
    count=$((count + 1))
    $VG "$@" >"$TMP/out" 2>"$TMP/err"
    st=$?
    if [ $st -ne "$want" ]; then
        echo "FAIL (exit $st, expected $want): $*"
        tail -n 30 "$TMP/err"
        failures=$((failures + 1))
    fi
}

for t in test_calendar test_config test_trace test_timeline test_compare test_broker_rabbitmq \
         test_rabbitmq_failures \
         test_activemq test_spring; do
    check 0 "$B/tests/$t"
done
check 0 "$LSIM" run scenarios/seed-competing-consumers.yaml --out "$TMP/seed.db" --trace "$TMP/seed.csv" --quiet
check 0 "$LSIM" run scenarios/smlc-burst.yaml --detail messages --out "$TMP/smlc.db" --quiet
check 0 "$LSIM" check scenarios/jms-seed-one-server.yaml
check 0 "$LSIM" compare scenarios/seed-competing-consumers.yaml "$TMP/seed.csv" --out "$TMP/cmp.db" --quiet
check 0 "$LSIM" fit "$TMP/seed.csv"
check 0 "$LSIM" run tests/cli/replay/dmlc-idle.yaml --out "$TMP/d.db" --trace "$TMP/d.csv" --quiet
check 0 "$LSIM" fit "$TMP/d.csv" --replay -o "$TMP/d-replay.yaml"
check 0 "$LSIM" compare "$TMP/d-replay.yaml" "$TMP/d.csv" --reps 2 --out "$TMP/d-cmp.db" --quiet
check 2 "$LSIM" fit "$TMP/seed.csv" --replay
check 0 "$LSIM" plot "$TMP/smlc.db" --kind timeline -o "$TMP/t.svg"
# no point meets (exit 4): the explanation runs too
check 4 "$LSIM" sweep scenarios/tune-bursty-workers.yaml --vary container.workers=6,7 --reps 2 -j 2 \
    --require 'p99_latency_ms<=2000' --minimize consumers_max --quiet --out "$TMP/sweep.db"
check 0 "$LSIM" plot "$TMP/sweep.db" --kind sweep -o "$TMP/s.svg"
check 0 "$LSIM" plot "$TMP/smlc.db" --kind gantt --from 10s --to 20s -o "$TMP/g.svg"
check 0 "$LSIM" report "$TMP/smlc.db" -o "$TMP/run.html"
check 0 "$LSIM" report "$TMP/sweep.db" -o "$TMP/sweep.html"
check 0 "$LSIM" report "$TMP/cmp.db" -o "$TMP/cmp.html"
"$LSIM" sweep scenarios/tune-bursty-workers.yaml --vary container.workers=6,7 --reps 2 \
    --plan "$TMP/plan" >/dev/null && sh "$TMP/plan/jobs.txt" || echo "FAIL: the plan's jobs"
check 0 "$LSIM" merge "$TMP/plan" -o "$TMP/merged.db"
# a plan's measured runs (children of lsim), a merge that finds a run missing, --plan --resume
check 0 "$LSIM" sweep scenarios/tune-bursty-workers.yaml --vary container.workers=6,7 --reps 2 \
    --plan "$TMP/plan2"
check 2 "$LSIM" merge "$TMP/plan2" -o "$TMP/merged2.db"
check 0 "$LSIM" sweep scenarios/tune-bursty-workers.yaml --vary container.workers=6,7 --reps 2 \
    --plan "$TMP/plan2" --resume
check 2 "$LSIM" run tests/cli/bad/workers-zero.yaml --out "$TMP/bad.db"
check 0 "$LSIM" check tests/spring/profiles/scenario.yaml --set container.maxConcurrentConsumers=9
check 0 "$LSIM" import tests/spring/e3/application.properties --boot 3.2 -o "$TMP/import.yaml"
check 2 "$LSIM" run tests/spring/bad/placeholder-circle.yaml --out "$TMP/bad.db"
# hostile input (tests/cli/hostile.sh): a consumer never started, no consumer
# events, a damaged shard, outputs that clash, a plan path with a line end
check 0 "$LSIM" fit tests/fuzz/corpus/fuzz_compare/seed-no-consumer-start
check 0 "$LSIM" fit tests/fuzz/corpus/fuzz_compare/regression-no-consumer-events
check 2 "$LSIM" fit tests/fuzz/corpus/fuzz_compare/regression-invalid-utf8-queue
cp -r "$TMP/plan" "$TMP/damaged"
sqlite3 "$TMP/damaged/shard-1.db" "UPDATE summary SET value = 'lots' WHERE rowid = 1"
check 2 "$LSIM" merge "$TMP/damaged" -o "$TMP/damaged.db"
check 2 "$LSIM" run scenarios/seed-competing-consumers.yaml --out "$TMP/x" --trace "$TMP/x" --quiet
check 2 "$LSIM" sweep scenarios/tune-bursty-workers.yaml --vary container.workers=6,7 --reps 2 \
    --plan "$TMP/p
q"

echo "$count checks under valgrind, $failures failed"
[ "$failures" -eq 0 ]
