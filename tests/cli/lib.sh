# lib.sh -- what the command-line test scripts share: a temporary folder
# removed on exit, the count of checks and failures, `check`, `expect_error`
# and `expect_status`.  Source it, then call `cli_begin NAME`; each script
# prints its own summary.

cli_begin() {
    TMP=$(mktemp -d "/tmp/lsim-$1-XXXXXX")
    trap 'rm -rf "$TMP"' EXIT
    failures=0
    count=0
}

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# check WHAT COMMAND...: one check, which fails (saying WHAT) when COMMAND
# does.  A script with checks of another shape defines its own check.
check() {
    what=$1
    shift
    count=$((count + 1))
    "$@" || fail "$what"
}

# expect_error STATUS MESSAGE -- COMMAND...: the command exits with STATUS,
# prints exactly MESSAGE on stderr and leaves nothing in $TMP/out.
# A script whose $TMP/out keeps files defines its own on expect_status.
expect_error() {
    rm -rf "$TMP/out" && mkdir -p "$TMP/out"
    expect_status "$@"
    shift 3
    [ -z "$(ls -A "$TMP/out")" ] || fail "$*: left files: $(ls -A "$TMP/out")"
}

# expect_status STATUS [MESSAGE] -- COMMAND...: exit STATUS and, when
# MESSAGE is given, exactly MESSAGE on stderr (expect_error without its
# check of $TMP/out).  The output stays in $TMP/stdout and $TMP/stderr.
expect_status() {
    status=$1 message= has_message=false
    shift
    if [ "$1" != -- ]; then
        message=$1 has_message=true
        shift
    fi
    if [ "$1" != -- ]; then        # else the command's first word would go
        fail "expect_status $status: no -- before the command: $*"
        return
    fi
    shift
    count=$((count + 1))
    "$@" >"$TMP/stdout" 2>"$TMP/stderr"
    got=$?
    if [ "$got" -ne "$status" ]; then
        if $has_message; then
            fail "$*: exit $got, expected $status"
        else
            fail "$*: exit $got, expected $status: $(head -c 300 "$TMP/stderr")"
        fi
    fi
    if $has_message && [ "$(cat "$TMP/stderr")" != "$message" ]; then
        fail "$*: stderr was"
        sed 's/^/    /' "$TMP/stderr"
        echo "  expected"
        echo "    $message"
    fi
}
