#!/bin/sh
# record.sh LSIM -- `lsim record` without a broker: --export writes the
# exact messages and settings of a run, and every input a recording cannot
# run is refused before anything is connected (exit 2), a broker that is
# not there is a failure (exit 1), and a password never reaches the output.
# The recordings themselves are `make live-tests`.  Run from the top of the
# repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin record

cat > "$TMP/s.yaml" <<'YAML'
name: rec
broker: { kind: rabbitmq }
queue:
  name: q1
  count: 3
  arrivals: { kind: constant, rate: 10/s }
  service: { kind: constant, value: 5ms }
  groups: { kind: sequential, count: 2, sequence: true }
container: { kind: pool, consumers: 2, prefetch: 1 }
YAML

# --export: the messages a run publishes (ids, groups, JMSXGroupSeq, service
# times) and every setting with its default.
expect_status 0 "lsim: 3 messages of 1 queue written to $TMP/e" -- \
    "$LSIM" record "$TMP/s.yaml" --export "$TMP/e"
check "export: the workload" [ "$(tail -n +2 "$TMP/e/workload.csv")" = "t_ms,msg,group,service_ms,group_seq
0.000,m1,g1,5.000,1
100.000,m2,g2,5.000,1
200.000,m3,g1,5.000," ]
check "export: a setting given" grep -qx 'container.prefetch=1' "$TMP/e/scenario.conf"
check "export: a default filled in" grep -qx 'broker.channelTickInterval=1m' "$TMP/e/scenario.conf"
"$LSIM" run "$TMP/s.yaml" --out "$TMP/s.db" --quiet > /dev/null
check "export: the run's own messages" [ "$(sqlite3 "$TMP/s.db" \
    "select group_concat(t_publish || ':' || grp, ' ') from messages")" = "0.0:g1 100.0:g2 200.0:g1" ]

# Bad usage and inputs a recording cannot run: exit 2, nothing written.
expect_error 2 "lsim: give --amqp URL (record on a broker) or --export DIR (write the scenario's load as files), one of them" -- \
    "$LSIM" record "$TMP/s.yaml"
expect_error 2 "lsim: --amqp: expected amqp://user:password@host:port/vhost" -- \
    "$LSIM" record "$TMP/s.yaml" --amqp http://u:pw@host/
expect_error 2 "lsim: --consumers: 'some' is not one of scenario, none" -- \
    "$LSIM" record "$TMP/s.yaml" --amqp amqp://u:pw@127.0.0.1:1/ --consumers some
sed 's/kind: pool, consumers: 2, prefetch: 1/kind: smlc, concurrency: "1-2"/' "$TMP/s.yaml" > "$TMP/smlc.yaml"
expect_error 2 "$TMP/smlc.yaml:9:20: container.kind: lsim record runs consumers of kind 'pool' (plain AMQP consumers), not 'smlc': run your own application against the broker and record with --consumers none" -- \
    "$LSIM" record "$TMP/smlc.yaml" --amqp amqp://u:pw@127.0.0.1:1/ --out "$TMP/out/t.csv"
cat > "$TMP/amq.yaml" <<'YAML'
name: amq
queue: { count: 1, arrivals: { kind: burst, count: 1 }, service: { kind: constant, value: 1ms } }
container: { kind: dmlc }
YAML
expect_error 2 "$TMP/amq.yaml:3:20: broker.kind: lsim record talks AMQP 0-9-1 to a RabbitMQ broker, not to 'activemq'" -- \
    "$LSIM" record "$TMP/amq.yaml" --amqp amqp://u:pw@127.0.0.1:1/ --out "$TMP/out/t.csv"
printf 'host: { cores: 2 }\n' | cat "$TMP/s.yaml" - > "$TMP/cores.yaml"
expect_error 2 "$TMP/cores.yaml:10:7: host: a recording runs on the real machine's CPUs; leave host.cores out" -- \
    "$LSIM" record "$TMP/cores.yaml" --amqp amqp://u:pw@127.0.0.1:1/ --out "$TMP/out/t.csv"

# No broker there: a failure, the URL shown without its password.
expect_error 1 "lsim: cannot connect to amqp://bob@127.0.0.1:1/: a socket error occurred" -- \
    "$LSIM" record "$TMP/s.yaml" --amqp amqp://bob:s3cret@127.0.0.1:1/ --out "$TMP/out/t.csv"
check "no password in the output" sh -c "! grep -q s3cret '$TMP/stderr' '$TMP/stdout'"

echo "$count record checks, $failures failed"
[ "$failures" -eq 0 ]
