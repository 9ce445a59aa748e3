#!/bin/sh
# readme_synopsis.sh LSIM -- the README's synopsis (the block under
# "## Commands") lists every flag of every command: those `lsim CMD --help`
# gives and those its option parser (sim/cli/cmd_CMD.c) takes.
# Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin readme-synopsis

# The block, then each command's lines: "build/lsim CMD ..." and the
# indented lines after it.
awk '/^## Commands$/ { at = 1; next }
     at == 1 && /^```/ { at = 2; next }
     at == 2 && /^```/ { exit }
     at == 2 { print }' README.md >"$TMP/block"
synopsis_of() {
    awk -v cmd="$1" '
        /^build\/lsim / { mine = ($2 == cmd) }
        /^ / && mine { print; next }
        /^build\/lsim / && mine { print }' "$TMP/block"
}
flags_in() {
    grep -oE '(^|[][ |(,])(-[a-zA-Z]|--[a-z][a-z-]*)' | sed 's/^[][ |(,]//' | sort -u
}

for cmd in $("$LSIM" help --commands); do
    [ "$cmd" = help ] || [ "$cmd" = version ] && continue
    synopsis_of "$cmd" >"$TMP/$cmd.syn"
    check "README synopsis has lsim $cmd" [ -s "$TMP/$cmd.syn" ]
    flags_in <"$TMP/$cmd.syn" >"$TMP/$cmd.have"
    { "$LSIM" "$cmd" --help | flags_in
      src=sim/cli/cmd_$cmd.c
      [ "$cmd" = check ] && src=
      [ -n "$src" ] && [ -f "$src" ] && grep -oE '"(-[a-zA-Z]|--[a-z][a-z-]*)"' "$src" | tr -d '"'
    } | sort -u | grep -vx -e '--help' -e '--' >"$TMP/$cmd.want"
    for flag in $(cat "$TMP/$cmd.want"); do
        count=$((count + 1))
        grep -qx -- "$flag" "$TMP/$cmd.have" || fail "README synopsis of lsim $cmd lacks $flag"
    done
done
#   the top-level ones
for flag in --help -h --version -V --commands; do
    count=$((count + 1))
    grep -q -- "$flag" "$TMP/block" || fail "README synopsis lacks lsim $flag"
done

echo "$count readme-synopsis checks, $failures failed"
[ "$failures" -eq 0 ]
