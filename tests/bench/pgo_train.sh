#!/bin/sh
# pgo_train.sh LSIM DIR -- the runs a profile-guided build is trained on
# (Makefile, PGO): the benchmarks' scenarios, shortened, so that what the
# counting build sees is the hot path that make bench measures: the
# competing container at 8 and 1,000 workers, the SMLC, the ActiveMQ page
# window and groups, and the writer with every message row.  Their
# databases go to DIR and are removed.
set -eu
LSIM=$1
DIR=$2
run() {
    "$LSIM" run "$@" --out "$DIR/train.db" --quiet >/dev/null
}
run tests/bench/mm8.yaml --set queue.count=200000 --detail summary
run tests/bench/mm8.yaml --set queue.count=200000 --set container.workers=1000 \
    --set 'queue.arrivals={kind: poisson, rate: 900/s}' --detail summary
run tests/bench/smlc.yaml --set queue.count=200000 --detail summary
run tests/bench/jms-window.yaml --set queue.count=100000 --detail summary
run tests/bench/jms-groups.yaml --set queue.count=100000 --detail summary
run tests/bench/mm8.yaml --set queue.count=100000 --detail messages
rm -f "$DIR/train.db"
