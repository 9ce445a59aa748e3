#!/bin/sh
# help.sh LSIM -- help, version, the man page, the bash completion and
# `make install`: every command's --help and `lsim help CMD` exit 0 with its
# synopsis, options and an example; the man page renders without a warning
# and names every command and option the help gives; `make install
# DESTDIR=...` puts the binary, the man page and the completion in place.
# Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin help

# 1. Every command: `lsim CMD --help`, `lsim CMD -h`, `lsim help CMD`.
commands=$("$LSIM" help --commands)
check "help --commands lists run and sweep" sh -c "echo '$commands' | grep -qx run && echo '$commands' | grep -qx sweep"
for c in $commands; do
    "$LSIM" "$c" --help >"$TMP/h1" 2>"$TMP/e1"
    check "$c --help exits 0" [ $? -eq 0 ]
    check "$c --help: nothing on stderr" [ ! -s "$TMP/e1" ]
    check "$c --help: synopsis" grep -q "^usage: lsim $c" "$TMP/h1"
    check "$c --help: example" grep -q "^  lsim " "$TMP/h1"
    "$LSIM" help "$c" >"$TMP/h2"
    check "help $c exits 0" [ $? -eq 0 ]
    check "help $c is $c --help" cmp -s "$TMP/h1" "$TMP/h2"
    "$LSIM" "$c" -h >"$TMP/h3"
    check "$c -h" cmp -s "$TMP/h1" "$TMP/h3"
    # Help wins over bad arguments: the user asked what the command wants.
    "$LSIM" "$c" no-such-file.yaml --bogus --help >"$TMP/h4" 2>&1
    check "$c with bad arguments and --help exits 0" [ $? -eq 0 ]
    # The man page has a section for the command and every option it takes.
    check "lsim.1 has a section for $c" grep -Eq "^\.SS \"lsim $c( |\")" docs/lsim.1
    for o in $(grep '^  -' "$TMP/h1" | sed 's/   .*//' | tr ',' '\n' | awk '{print $1}'); do
        m=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
        check "lsim.1 names $c's $o" grep -q -- "$m" docs/lsim.1
    done
done
for c in run sweep plot compare merge check; do
    "$LSIM" "$c" --help >"$TMP/h1"
    check "$c --help lists options" grep -q '^options:' "$TMP/h1"
done
"$LSIM" sweep --help | grep -q -- '--show METRIC' ; check "sweep --help names --show" [ $? -eq 0 ]

# 2. The overview and the version.
"$LSIM" --help >"$TMP/o1"; check "--help exits 0" [ $? -eq 0 ]
"$LSIM" help >"$TMP/o2"; check "help exits 0" [ $? -eq 0 ]
check "--help is help" cmp -s "$TMP/o1" "$TMP/o2"
for c in $commands; do check "--help lists $c" grep -q "^  $c " "$TMP/o1"; done
check "--help gives exit status 4" grep -q '4 sweep found no point' "$TMP/o1"
v=$("$LSIM" --version); check "--version exits 0" [ $? -eq 0 ]
check "--version prints lsim X.Y.Z" sh -c "echo '$v' | grep -Eqx 'lsim [0-9]+\.[0-9]+\.[0-9]+'"
check "version is --version" [ "$("$LSIM" version)" = "$v" ]
"$LSIM" help nonesuch >/dev/null 2>"$TMP/e"; check "help of an unknown command exits 2" [ $? -eq 2 ]
check "help of an unknown command says so" grep -q "unknown command 'nonesuch'" "$TMP/e"
"$LSIM" >/dev/null 2>&1; check "no command exits 2" [ $? -eq 2 ]
"$LSIM" nonesuch >/dev/null 2>&1; check "an unknown command exits 2" [ $? -eq 2 ]

# 3. The man page renders cleanly (groff's warnings on), with every section.
if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww -z docs/lsim.1 2>"$TMP/groff"
    check "groff renders lsim.1 without warnings" [ ! -s "$TMP/groff" ]
    groff -man -Tutf8 docs/lsim.1 2>/dev/null | sed 's/.\x08//g' >"$TMP/man.txt"
    for s in NAME SYNOPSIS DESCRIPTION COMMANDS 'EXIT STATUS' EXAMPLES; do
        check "lsim.1 has $s" grep -q "^$s" "$TMP/man.txt"
    done
else
    fail "groff is missing (make deps installs groff-base)"
fi

# 4. make install DESTDIR=... PREFIX=...: the three files, the binary runs.
root=$TMP/root
${MAKE:-make} -s install BUILD="$(dirname "$LSIM")" DESTDIR="$root" PREFIX=/opt/lsim >"$TMP/inst" 2>&1
check "make install exits 0" [ $? -eq 0 ]
check "binary installed" [ -x "$root/opt/lsim/bin/lsim" ]
check "man page installed" cmp -s docs/lsim.1 "$root/opt/lsim/share/man/man1/lsim.1"
check "completion installed" cmp -s docs/lsim.bash-completion \
    "$root/opt/lsim/share/bash-completion/completions/lsim"
check "installed binary runs" [ "$("$root/opt/lsim/bin/lsim" --version)" = "$v" ]
${MAKE:-make} -s uninstall DESTDIR="$root" PREFIX=/opt/lsim >/dev/null 2>&1
check "make uninstall removes them" [ -z "$(find "$root" -type f)" ]

# 5. The completion: commands, a command's options, --kind's values.
if command -v bash >/dev/null; then
    cat >"$TMP/comp.sh" <<EOS
. docs/lsim.bash-completion
PATH=$(cd "$(dirname "$LSIM")" && pwd):\$PATH
COMP_WORDS=(lsim sw); COMP_CWORD=1; _lsim; echo "1 \${COMPREPLY[*]}"
COMP_WORDS=(lsim sweep x --re); COMP_CWORD=3; _lsim; echo "2 \${COMPREPLY[*]}"
COMP_WORDS=(lsim plot x --kind ti); COMP_CWORD=4; _lsim; echo "3 \${COMPREPLY[*]}"
EOS
    bash "$TMP/comp.sh" >"$TMP/comp" 2>&1
    check "completes commands" grep -qx '1 sweep' "$TMP/comp"
    check "completes options" grep -qx '2 --reps --require --resume' "$TMP/comp"
    check "completes --kind" grep -qx '3 timeline' "$TMP/comp"
fi

echo "help: $count checks, $failures failures"
[ "$failures" -eq 0 ]
