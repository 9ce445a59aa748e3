#!/bin/sh
# spring.sh LSIM -- a Spring application's own configuration as a scenario's
# container: the worked examples of the Spring Boot notes through
# container.spring and through `lsim import` (whose output runs), profiles,
# the environment, traps as warnings, bad input with its exact message, and
# a sweep's answer written back into the application's file.  Run from the
# top of the repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin spring
S=tests/spring

# origins ARGS...: what `lsim check` says of each container and broker setting.
origins() {
    "$LSIM" check "$@" 2>/dev/null | sed -n '/^# the container/,$p'
}

# settings FILE: the container and broker blocks of check's normal form,
# without container.spring (the scenario and the import's output compare equal).
settings() {
    "$LSIM" check "$1" 2>/dev/null | awk '
        /^(container|broker):/ { block = $1; next }
        /^[^ ]/ { block = "" }
        block != "" && /^  spring:/ { skip = 1; next }
        skip && /^    / { next }
        { skip = 0 }
        block != "" && !/^  queues:/ { print block $0 }' | tr -d '"' | sort
}

# covers EXPECTED GOT: every line of EXPECTED is in GOT, and GOT has no other
# line from a Spring file but the retry settings (applied once the container
# models retry).  A default the container adds later does not break it.
covers() {
    ok=0
    while IFS= read -r line; do
        grep -qxF -- "$line" "$2" || { echo "    missing: $line"; ok=1; }
    done <"$1"
    grep -e '(spring\.' -e 'ships Spring' "$2" | grep -v '^#   retry\.' | while IFS= read -r line; do
        grep -qxF -- "$line" "$1" || echo "    extra: $line"
    done | grep . && ok=1
    return $ok
}

# unretried FILE: import's output with the retry block as it reads once the
# container models retry (import comments it out until then).
unretried() {
    sed -e '/does not model listener retry yet/d' -e 's/^  # retry:/  retry:/' \
        -e 's/^    # \([^#]*\)# /    \1  # /' "$1"
}

# 1. The worked examples: the settings and warnings, exactly.
for e in e1:2.7.18 e2:3.1.12 e3:3.2.12 e5:4.0.8 e6:2.7.18 e7:3.2.12; do
    name=${e%%:*} boot=${e#*:}
    count=$((count + 1))
    origins $S/$name/scenario.yaml >"$TMP/$name.txt"
    covers $S/$name/expected-origins.txt "$TMP/$name.txt" ||
        fail "$name: check's settings differ from $S/$name/expected-origins.txt"
    count=$((count + 1))
    "$LSIM" check $S/$name/scenario.yaml 2>"$TMP/$name.warn" >/dev/null
    grep -v 'settings from the Spring files are not applied' "$TMP/$name.warn" >"$TMP/$name.warn2"
    cmp -s "$TMP/$name.warn2" $S/$name/expected-warnings.txt ||
        { fail "$name: warnings differ"; diff $S/$name/expected-warnings.txt "$TMP/$name.warn2"; }
    # ... and through lsim import: the same container, and the output runs.
    count=$((count + 1))
    files=$(ls $S/$name/application.*)
    "$LSIM" import $files --boot "$boot" -o "$TMP/$name-import.yaml" 2>"$TMP/$name.iwarn" ||
        fail "$name: import failed: $(cat "$TMP/$name.iwarn")"
    unretried "$TMP/$name-import.yaml" >"$TMP/$name-import.norm"
    cmp -s "$TMP/$name-import.norm" $S/$name/expected-import.yaml ||
        { fail "$name: import output differs"; diff $S/$name/expected-import.yaml "$TMP/$name-import.norm"; }
    count=$((count + 1))
    grep -q '^  queues: \[queue\] ' "$TMP/$name-import.yaml" ||
        fail "$name: import does not name the listener's queue in container.queues"
    settings $S/$name/scenario.yaml >"$TMP/$name.a"
    settings "$TMP/$name-import.yaml" >"$TMP/$name.b"
    cmp -s "$TMP/$name.a" "$TMP/$name.b" ||
        { fail "$name: import gives another container than container.spring"; diff "$TMP/$name.a" "$TMP/$name.b"; }
    "$LSIM" run "$TMP/$name-import.yaml" --detail summary --out "$TMP/$name.db" --quiet >/dev/null 2>&1 ||
        fail "$name: the output of import does not run"
    "$LSIM" run $S/$name/scenario.yaml --detail summary --out "$TMP/$name-spring.db" --quiet >/dev/null 2>&1 ||
        fail "$name: the scenario with container.spring does not run"
done

# 1b. check resolves every concurrency string, in the container and in its changes.
count=$((count + 1))
got=$(origins scenarios/jms-concurrency-5-surprise.yaml | grep '^#   concurrency:')
case $got in *'scenario line 40; setConcurrency("5") runs 1-5') ;; *) fail "check: concurrency 5: $got" ;; esac
count=$((count + 1))
got=$(origins scenarios/smlc-change.yaml | grep 'concurrency:' | sed 's/  */ /g')
case $got in *'changes[0].concurrency: 2-6 scenario line 38; setConcurrency("2-6") runs 2-6'*) ;;
    *) fail "check: the changes' concurrency: $got" ;; esac

# 2. An unchanged application.yml with two profiles (and a profile-specific
#    file): switching the profile changes the settings as Boot would.
P=$S/profiles/scenario.yaml
expect_counts() {
    count=$((count + 1))
    want=$1
    shift
    got=$(origins $P "$@" | awk '/^#   (concurrentConsumers|maxConcurrentConsumers|prefetchCount):/ { printf "%s ", $3 }')
    [ "$got" = "$want" ] || fail "profiles $*: got '$got', expected '$want'"
}
expect_counts "2 16 5 "                                     # prod, as the scenario says
expect_counts "2 6 20 " --set 'container.spring.profiles=[]'
expect_counts "1 4 20 " --set 'container.spring.profiles=[staging]'
expect_counts "1 4 20 " --set 'container.spring.profiles=[test]'       # staging | test
expect_counts "2 16 7 " --set 'container.spring.profiles=[prod, eu]'  # application-eu.properties
expect_counts "1 4 5 " --set 'container.spring.profiles=[prod, staging]'   # the later document wins
count=$((count + 1))
origins $P | grep -q '^#   consecutiveActiveTrigger: 3 *scenario line 14$' ||
    fail "profiles: the scenario's own setting does not win"
for p in prod staging; do
    count=$((count + 1))
    "$LSIM" run $P --set "container.spring.profiles=[$p]" --detail summary --out "$TMP/p-$p.db" --json --quiet \
        >"$TMP/p-$p.json" || fail "profiles: run with $p"
done
count=$((count + 1))
/usr/bin/python3 -c '
import json, sys
prod = json.load(open(sys.argv[1])); staging = json.load(open(sys.argv[2]))
assert 2 <= prod["consumers_max"] <= 16, prod["consumers_max"]
assert staging["consumers_max"] <= 4, staging["consumers_max"]
assert prod["consumers_max"] > staging["consumers_max"], (prod["consumers_max"], staging["consumers_max"])
' "$TMP/p-prod.json" "$TMP/p-staging.json" || fail "profiles: the runs do not follow the profiles"

# 3. The environment, with env: true: Boot's two forms of a variable, and a
#    placeholder's own variable.
count=$((count + 1))
got=$(SPRING_RABBITMQ_LISTENER_SIMPLE_MAX_CONCURRENCY=8 origins $P --set container.spring.env=true | grep '^#   maxConcurrentConsumers:')
[ "$got" = "#   maxConcurrentConsumers: 8                environment variable SPRING_RABBITMQ_LISTENER_SIMPLE_MAX_CONCURRENCY" ] ||
    fail "env (legacy form): $got"
count=$((count + 1))
got=$(SPRING_RABBITMQ_LISTENER_SIMPLE_MAXCONCURRENCY=12 "$LSIM" check $P --set container.spring.env=true 2>&1 >/dev/null)
[ "$got" = "lsim: warning: environment variable SPRING_RABBITMQ_LISTENER_SIMPLE_MAXCONCURRENCY=12 overrides spring.rabbitmq.listener.simple.max-concurrency=16 at tests/spring/profiles/application.yml:20: environment variables win over every file" ] ||
    fail "env (canonical form): $got"
count=$((count + 1))
got=$(LISTENER_MAX=9 origins $P --set 'container.spring.profiles=[]' --set container.spring.env=true | grep '^#   maxConcurrentConsumers:')
[ "$got" = "#   maxConcurrentConsumers: 9                tests/spring/profiles/application.yml:10 (spring.rabbitmq.listener.simple.max-concurrency, \${LISTENER_MAX:6} = environment variable LISTENER_MAX)" ] ||
    fail "env placeholder: $got"
count=$((count + 1))
got=$(SPRING_RABBITMQ_LISTENER_SIMPLE_MAX_CONCURRENCY=8 origins $P | grep '^#   maxConcurrentConsumers:')
case $got in *application.yml:20*) ;; *) fail "env read without env: true: $got" ;; esac

count=$((count + 1))
got=$(SPRING_RABBITMQ_LISTENER_TYPE=direct "$LSIM" check $S/e1/scenario.yaml 2>/dev/null | grep '^  kind: ' | head -1)
[ "$got" = "  kind: smlc" ] || fail "env: the listener type read without env: true: $got"
count=$((count + 1))
got=$(SPRING_RABBITMQ_LISTENER_TYPE=direct "$LSIM" check $S/e1/scenario.yaml --set container.spring.env=true 2>/dev/null | grep '^  kind: direct')
[ "$got" = "  kind: direct" ] || fail "env: the listener type from the environment: $got"

# 3b. An application's own properties fed to container setters (--map, map:).
count=$((count + 1))
"$LSIM" import $S/map/application.properties --map message.bus.data.queue.concurrency=concurrency \
    --map message.bus.receive.timeout=receiveTimeout -o "$TMP/map.yaml" 2>"$TMP/map.err" || fail "import --map"
got=$(grep -E '^  (concurrency|receiveTimeout):' "$TMP/map.yaml" | sed 's/  */ /g')
[ "$got" = ' concurrency: "10" # message.bus.data.queue.concurrency, tests/spring/map/application.properties:4
 receiveTimeout: 2500ms # message.bus.receive.timeout, tests/spring/map/application.properties:5' ] ||
    fail "import --map: $got"
count=$((count + 1))
"$LSIM" run "$TMP/map.yaml" --detail summary --out "$TMP/map.db" --quiet >/dev/null 2>"$TMP/map.err" ||
    fail "import --map: the output does not run: $(cat "$TMP/map.err")"

# 3c. A folder stands for the application.* files in it.
count=$((count + 1))
"$LSIM" import $S/profiles --profile eu 2>/dev/null | grep -q '^  prefetchCount: 7  *# spring.rabbitmq.listener.simple.prefetch, tests/spring/profiles/application-eu.properties:1$' ||
    fail "import of a folder"

# 4. Bad input: the exact message, exit status 2, nothing written.
while IFS='|' read -r file message; do
    expect_error 2 "$S/bad/$message" -- "$LSIM" run "$S/bad/$file" --out "$TMP/out/x.db"
done < $S/bad_input.txt
expect_error 2 "$S/bad/application.yml:1:1: this is a Spring Boot configuration, not an lsim scenario: \`lsim import $S/bad/application.yml\` prints the scenario's broker and container from it (or name it in a scenario's container.spring.files)" -- \
    "$LSIM" run $S/bad/application.yml --out "$TMP/out/x.db"
expect_error 2 "$S/bad/multidoc/application.yml:4:1: this is a Spring Boot configuration (documents split by ---), not an lsim scenario: \`lsim import $S/bad/multidoc/application.yml\` prints the scenario's broker and container from it (or name it in a scenario's container.spring.files)" -- \
    "$LSIM" run $S/bad/multidoc/application.yml --out "$TMP/out/x.db"
#   decided from the YAML, not from the loader's words: quoted Spring keys, and
#   several documents without Spring keys get no hint
expect_error 2 "$S/bad/multidoc-quoted/application.yml:8:1: this is a Spring Boot configuration (documents split by ---), not an lsim scenario: \`lsim import $S/bad/multidoc-quoted/application.yml\` prints the scenario's broker and container from it (or name it in a scenario's container.spring.files)" -- \
    "$LSIM" run $S/bad/multidoc-quoted/application.yml --out "$TMP/out/x.db"
expect_error 2 "$S/bad/multidoc-scenario.yaml:4:1: expected one YAML document, found more" -- \
    "$LSIM" run $S/bad/multidoc-scenario.yaml --out "$TMP/out/x.db"
expect_error 2 "$S/e1/application.properties: this is a Spring Boot configuration, not an lsim scenario: \`lsim import $S/e1/application.properties\` prints the scenario's broker and container from it (or name it in a scenario's container.spring.files)" -- \
    "$LSIM" run $S/e1/application.properties --out "$TMP/out/x.db"
count=$((count + 1))
"$LSIM" import $S/profiles/application.yml --profile prod --profile eu 2>/dev/null | head -2 >"$TMP/head.txt"
[ "$(cat "$TMP/head.txt")" = "# lsim import $S/profiles/application.yml (Spring Boot 3.5, profiles prod, eu)
name: orders" ] || fail "import: the header and spring.application.name: $(cat "$TMP/head.txt")"
expect_error 2 "lsim: --map: 'message.bus.concurrency': expected PROPERTY=KEY, for example message.bus.concurrency=concurrency" -- \
    "$LSIM" import $S/e1/application.properties --map message.bus.concurrency -o "$TMP/out/x.yaml"
expect_error 2 "--boot: boot: '1.5' is not a Spring Boot line lsim knows (2.7, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 4.0, or one of their releases like \"3.2.5\")" -- \
    "$LSIM" import $S/e1/application.properties --boot 1.5 -o "$TMP/out/x.yaml"
expect_error 2 "--profile: profile 'prd': no document says spring.config.activate.on-profile: prd and there is no application-prd.* beside the files" -- \
    "$LSIM" import $S/profiles/application.yml --profile prd -o "$TMP/out/x.yaml"
expect_error 2 "$S/warn: a folder without application.properties, application.yml or application.yaml" -- \
    "$LSIM" import $S/warn -o "$TMP/out/x.yaml"
expect_error 2 "$S/bad/no-such.yml: cannot open: No such file or directory" -- \
    "$LSIM" import $S/bad/no-such.yml -o "$TMP/out/x.yaml"

# 4b. What Boot reads as Boot does, where a hand-written reader goes wrong.
P=spring.rabbitmq.listener.simple
mkdir -p "$TMP/app4"
# imported -- PATTERN ARGS...: `lsim import ARGS` succeeds and prints a line matching PATTERN.
imported() {
    pattern=$1
    shift 2
    count=$((count + 1))
    "$LSIM" import "$@" >"$TMP/import.txt" 2>"$TMP/import.err" ||
        { fail "import $*: $(head -c 300 "$TMP/import.err")"; return; }
    grep -q -- "$pattern" "$TMP/import.txt" ||
        fail "import $*: no line '$pattern' in: $(grep -i -e concurren -e timeout "$TMP/import.txt")"
}
printf '%s\n' "$P.max-concurrency=7" >"$TMP/app4/own.properties"
expect_status 2 "lsim: $TMP/app4/own.properties: the output would overwrite an input of the same command ($TMP/app4/own.properties)" -- \
    "$LSIM" import "$TMP/app4/own.properties" -o "$TMP/app4/own.properties"
check "import -o over its input leaves the input" grep -qx "$P.max-concurrency=7" "$TMP/app4/own.properties"
printf 'spring.jms.listener.receive-timeout=300000\n' >"$TMP/app4/long.properties"
imported '^  receiveTimeout: 5m ' -- "$TMP/app4/long.properties"
printf 'spring.jms.listener.receive-timeout=PT1.5S\n' >"$TMP/app4/iso.properties"
imported '^  receiveTimeout: 1500ms ' -- "$TMP/app4/iso.properties"
printf '%s\n' '# tuned for production \' "$P.max-concurrency=10" >"$TMP/app4/comment.properties"
imported '^  maxConcurrentConsumers: 10 .*comment.properties:2$' -- "$TMP/app4/comment.properties"
printf '%s\n' "$P.max-concurrency=1\\u0030" >"$TMP/app4/escape.properties"
imported '^  maxConcurrentConsumers: 10 ' -- "$TMP/app4/escape.properties"
cat >"$TMP/app4/application.yml" <<YML
spring:
  profiles:
    active: [prod, eu]
  rabbitmq.listener.simple.max-concurrency: 2
---
spring.config.activate.on-profile: prod
$P.max-concurrency: 10
---
spring.config.activate.on-profile: eu
$P.max-concurrency: 20
YML
imported '^  maxConcurrentConsumers: 20 .*application.yml:10$' -- "$TMP/app4/application.yml"
mkdir -p "$TMP/env"
printf '%s\n' spring.profiles.active=prod "$P.max-concurrency=1" >"$TMP/env/application.properties"
printf '%s\n' "$P.max-concurrency=10" >"$TMP/env/application-prod.properties"
printf '%s\n' "$P.max-concurrency=30" >"$TMP/env/application-eu.properties"
imported '^  maxConcurrentConsumers: 10 ' -- "$TMP/env"
SPRING_PROFILES_ACTIVE=eu imported '^  maxConcurrentConsumers: 30 .*application-eu.properties:1$' -- "$TMP/env"
check "SPRING_PROFILES_ACTIVE is named in a warning" \
    grep -q "warning: SPRING_PROFILES_ACTIVE=eu: the environment's profiles" "$TMP/import.err"
{
    printf 'spring:\n  rabbitmq:\n    listener:\n      simple:\n        max-concurrency: 3\n'
    seq 1 20000 | sed 's/^/key/; s/$/: v/'
    echo 'key17: again'
} >"$TMP/app4/many.yml"
expect_status 2 "$TMP/app4/many.yml:20006:1: duplicate key 'key17' (first at line 22): Spring Boot refuses to start with it" -- \
    "$LSIM" import "$TMP/app4/many.yml"
expect_status 2 "--boot: boot: '3.2.x' is not a Spring Boot line lsim knows (2.7, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 4.0, or one of their releases like \"3.2.5\")" -- \
    "$LSIM" import "$TMP/app4/iso.properties" --boot 3.2.x
gated() {
    printf '%s\n' "$P.max-concurrency: 2" --- "spring.config.activate.on-profile: \"$1\"" \
        "$P.max-concurrency: 10" >"$TMP/app4/gated.yml"
}
gated '(prod | staging) & eu'
imported '^  maxConcurrentConsumers: 2 ' -- "$TMP/app4/gated.yml" --profile prod
imported '^  maxConcurrentConsumers: 10 ' -- "$TMP/app4/gated.yml" --profile prod --profile eu
gated 'prod & & eu'          # Spring drops the empty element: prod & eu
imported '^  maxConcurrentConsumers: 2 ' -- "$TMP/app4/gated.yml" --profile prod
gated '(prod)(eu)'           # no operator: an "or"
imported '^  maxConcurrentConsumers: 10 ' -- "$TMP/app4/gated.yml" --profile prod
gated 'prod & eu | staging'
expect_status 2 "$TMP/app4/gated.yml:3:1: on-profile 'prod & eu | staging' is not a profile expression Spring reads (names, !, & and |, with parentheses around & and | mixed): Spring Boot stops at startup" -- \
    "$LSIM" import "$TMP/app4/gated.yml" --profile prod
{   # nesting past any real expression is refused, not recursed into
    printf 'spring.config.activate.on-profile: "'
    head -c 100000 /dev/zero | tr '\0' '('
    printf 'prod"\n%s\n' "$P.max-concurrency: 3"
} >"$TMP/app4/nested.yml"
expect_status 2 -- "$LSIM" import "$TMP/app4/nested.yml" --profile prod
printf '%s\n' "# no consumers" "$P.concurrency=0" >"$TMP/app4/zero.properties"
expect_status 2 "$TMP/app4/zero.properties:2:1: $P.concurrency gives concurrentConsumers: 0 is out of range (1 to 100000)" -- \
    "$LSIM" import "$TMP/app4/zero.properties"
printf '# nothing\n' >"$TMP/app4/empty.properties"
expect_status 2 "environment: SPRING_RABBITMQ_LISTENER_SIMPLE_CONCURRENCY: $P.concurrency gives concurrentConsumers: 0 is out of range (1 to 100000)" -- \
    env SPRING_RABBITMQ_LISTENER_SIMPLE_CONCURRENCY=0 "$LSIM" import "$TMP/app4/empty.properties"
printf '%s\n' "$P.max-concurrency=16" >"$TMP/app4/lower.properties"
spring_rabbitmq_listener_simple_maxconcurrency=8 imported '^  maxConcurrentConsumers: 8 ' -- \
    "$TMP/app4/lower.properties" --boot 3.5.16
spring_rabbitmq_listener_simple_maxconcurrency=8 imported '^  maxConcurrentConsumers: 16 ' -- \
    "$TMP/app4/lower.properties" --boot 3.4
unset SPRING_PROFILES_ACTIVE spring_rabbitmq_listener_simple_maxconcurrency   # whatever sh kept of them
{   # 10 to the 29th expansions: refused at once, not expanded
    echo x0=1
    i=1
    while [ $i -lt 30 ]; do
        printf 'x%d=' $i
        for k in 1 2 3 4 5 6 7 8 9 10; do printf '${x%d}' $((i - 1)); done
        echo
        i=$((i + 1))
    done
    echo "$P.max-concurrency=\${x29}"
} >"$TMP/app4/bomb.properties"
expect_status 2 "$TMP/app4/bomb.properties:31:1: $P.max-concurrency: its placeholders expand to more than 100000 others or 16 MiB" -- \
    timeout 60 "$LSIM" import "$TMP/app4/bomb.properties"
{
    echo a0=5
    i=1
    while [ $i -le 20 ]; do echo "a$i=\${a$((i - 1))}"; i=$((i + 1)); done
    echo "$P.max-concurrency=\${a20}"
} >"$TMP/app4/chain.properties"
imported '^  maxConcurrentConsumers: 5 ' -- "$TMP/app4/chain.properties"
deep=$TMP
for c in a b c d e f g; do deep=$deep/$(printf "%0200d" 0 | tr 0 "$c"); done
mkdir -p "$deep"
cp "$TMP/env/application.properties" "$TMP/env/application-prod.properties" "$deep/"
imported '^  maxConcurrentConsumers: 10 .*/application-prod.properties:1$' -- "$deep"
printf '%s\n' "$P.max-concurrency=\${XREF}" >"$TMP/app4/xref.properties"
expect_status 2 "$TMP/app4/xref.properties:1:1: $P.max-concurrency: the placeholder \${NOPE_UNDEFINED} has no value: no property NOPE_UNDEFINED or environment variable, and no default (write \${NOPE_UNDEFINED:DEFAULT})" -- \
    env XREF='${NOPE_UNDEFINED}' "$LSIM" import "$TMP/app4/xref.properties"

# 5. Traps: a warning naming the file and line, and the run goes on.
while IFS='|' read -r file warning; do
    count=$((count + 1))
    "$LSIM" check "$S/warn/$file" >/dev/null 2>"$TMP/stderr" || fail "$file: check failed: $(cat "$TMP/stderr")"
    grep -qxF "lsim: warning: $warning" "$TMP/stderr" ||
        { fail "$file: no warning '$warning'; stderr was:"; sed 's/^/    /' "$TMP/stderr"; }
done < $S/warn_input.txt

# 6. Answers in the application's terms: check --set, and a sweep whose
#    answer, written back into the application's file, gives that container.
count=$((count + 1))
got=$("$LSIM" check $S/e1/scenario.yaml --set container.maxConcurrentConsumers=12 --set container.startConsumerMinInterval=2s 2>/dev/null | sed -n '/^# in the application/,$p')
want="# in the application's own terms:
#   spring.rabbitmq.listener.simple.max-concurrency=12
#   container.setStartConsumerMinInterval(2000);   // in a ContainerCustomizer: Spring Boot has no property for startConsumerMinInterval"
[ "$got" = "$want" ] || fail "check --set in the application's terms: $got"
count=$((count + 1))
mkdir -p "$TMP/app"
cp $S/e1/scenario.yaml $S/e1/application.properties "$TMP/app/"
"$LSIM" sweep "$TMP/app/scenario.yaml" --vary container.maxConcurrentConsumers=3,5,7 --reps 3 \
    --require 'p99_latency_ms<=400' --minimize consumers_max --out "$TMP/sweep.db" --quiet >"$TMP/sweep.txt" ||
    fail "sweep over a Spring-configured scenario"
line=$(sed -n '/^in the application/{n;p}' "$TMP/sweep.txt")
case $line in
    spring.rabbitmq.listener.simple.max-concurrency=*) ;;
    *) fail "sweep: no property line in the answer: $(cat "$TMP/sweep.txt")" ;;
esac
best=$(sed -n 's/^best: point [0-9]*: container.maxConcurrentConsumers=\([0-9]*\)$/\1/p' "$TMP/sweep.txt")
[ "$line" = "spring.rabbitmq.listener.simple.max-concurrency=$best" ] || fail "sweep: '$line' is not the best point ($best)"
grep -v '^spring.rabbitmq.listener.simple.max-concurrency=' $S/e1/application.properties >"$TMP/app/application.properties"
echo "$line" >>"$TMP/app/application.properties"
count=$((count + 1))
got=$("$LSIM" check "$TMP/app/scenario.yaml" 2>/dev/null | grep '^  maxConcurrentConsumers:')
[ "$got" = "  maxConcurrentConsumers: $best" ] || fail "sweep answer read back: '$got', expected $best"

# A sweep with no answer labels the closest point's property lines as failing.
count=$((count + 1))
"$LSIM" sweep "$TMP/app/scenario.yaml" --vary container.maxConcurrentConsumers=3,5 --reps 2 \
    --require 'p99_latency_ms<=1' --out "$TMP/sweep-none.db" --quiet >"$TMP/sweep-none.txt"
grep -q "^closest, still fails: in the application's files (point [0-9]*):$" "$TMP/sweep-none.txt" ||
    fail "sweep with no answer: property lines not labelled 'closest, still fails': $(cat "$TMP/sweep-none.txt")"
grep -q "^in the application's files" "$TMP/sweep-none.txt" &&
    fail "sweep with no answer: property lines given as an answer"

# The sweep's HTML report carries the same answer and property lines (the
# report has no scenario file: the sweep keeps them in its sweep table).
# html_lines FILE: the text of its <pre id="application-files">, unescaped.
html_lines() {
    sed -n '/<pre id="application-files">/,/<\/pre>/p' "$1" |
        sed 's/<pre id="application-files">//; s/<\/pre>//; s/&quot;/"/g; s/&#39;/'"'"'/g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' |
        sed '/^$/d'
}
"$LSIM" report "$TMP/sweep.db" -o "$TMP/sweep.html" >/dev/null 2>&1
sed -n '/application.s files/,$p' "$TMP/sweep.txt" | sed '/^database: /d' >"$TMP/sweep.lines"
check "report of a sweep: the property lines as the sweep printed them" \
    [ "$(html_lines "$TMP/sweep.html")" = "$(cat "$TMP/sweep.lines")" ]
check "report of a sweep: the best point as the sweep said it" \
    grep -q "<p><b>best</b>: point $(sed -n 's/^best: point \([0-9]*\):.*/\1/p' "$TMP/sweep.txt"): " "$TMP/sweep.html"
"$LSIM" report "$TMP/sweep-none.db" -o "$TMP/sweep-none.html" >/dev/null 2>&1
sed -n '/application.s files/,$p' "$TMP/sweep-none.txt" | sed '/^database: /d' >"$TMP/sweep-none.lines"
check "report of a sweep with no answer: the lines labelled 'closest, still fails'" \
    [ "$(html_lines "$TMP/sweep-none.html" | head -1)" = "$(head -1 "$TMP/sweep-none.lines")" ]
check "... and the same lines" \
    [ "$(html_lines "$TMP/sweep-none.html")" = "$(cat "$TMP/sweep-none.lines")" ]
check "... headed as the sweep heads them" grep -q '^closest, still fails: in the application' "$TMP/sweep-none.lines"

# A setting fed by one placeholder names what filled it: the environment
# variable, or the default when the variable is not set (not only the file).
mkdir -p "$TMP/ph"
printf '%s\n' 'spring.rabbitmq.listener.simple.concurrency=${CONC:3}' >"$TMP/ph/application.properties"
count=$((count + 1))
got=$(env CONC=5 "$LSIM" import "$TMP/ph/application.properties" 2>/dev/null | grep '^  concurrentConsumers:' | sed 's/  */ /g')
[ "$got" = " concurrentConsumers: 5 # spring.rabbitmq.listener.simple.concurrency, \${CONC:3} = environment variable CONC, $TMP/ph/application.properties:1" ] ||
    fail "placeholder: the environment variable is not named: $got"
count=$((count + 1))
got=$(env -u CONC "$LSIM" import "$TMP/ph/application.properties" 2>/dev/null | grep '^  concurrentConsumers:' | sed 's/  */ /g')
[ "$got" = " concurrentConsumers: 3 # spring.rabbitmq.listener.simple.concurrency, \${CONC:3} = the default 3, no CONC in the environment, $TMP/ph/application.properties:1" ] ||
    fail "placeholder: the default is not said: $got"

echo "$count Spring configuration checks, $failures failed"
[ "$failures" -eq 0 ]
