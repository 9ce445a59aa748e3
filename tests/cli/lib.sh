# lib.sh -- what the command-line test scripts share: a temporary folder
# removed on exit, and the count of checks and failures.  Source it, then
# call `cli_begin NAME`; each script prints its own summary.

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
