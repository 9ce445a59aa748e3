# live_lib.sh -- the pure parts of run_live.sh, sourced by it and by
# tests/cli/live_harness.sh (which checks them without a broker).

# twice MISSED FIRST: the metrics of MISSED that FIRST names too, a line
# each (all of MISSED when FIRST is empty: a first attempt, or no retry).
twice() {
    for m in $1; do
        case " ${2:-$m} " in *" $m "*) echo "$m" ;; esac
    done
}

# is_known NAME MISS FILE: whether FILE (tests/live/known.txt) lists the
# miss SIDE:METRIC of scenario NAME, as `NAME METRIC` (either side) or
# `NAME SIDE:METRIC` (that side alone: the scenario as written, or the
# replay).
is_known() {
    grep -q "^$1 ${2#*:} " "$3" 2> /dev/null || grep -q "^$1 $2 " "$3" 2> /dev/null
}

# amq_linked SCENARIO: the scenario with the measured lags (AMQ_LINK and
# AMQ_BLOCK, set by run_live.sh's measure_amq_link) in its container (a
# copy in $TMP; the container written as a flow mapping or a
# block), or the scenario itself when it states one or none was measured.
amq_linked() {
    if [ -n "$AMQ_LINK" ] && ! grep -qE 'receiveLag|rescheduleLatency' "$1"; then
        out="$TMP/linked/activemq-$(basename "$(dirname "$1")")-$(basename "$1")"
        mkdir -p "$TMP/linked"
        sed -e "s/kind: dmlc,/kind: dmlc, $AMQ_LINK,/" -e "s/^  kind: dmlc\$/  kind: dmlc$AMQ_BLOCK/" \
            "$1" > "$out"
        echo "$out"
    else
        echo "$1"
    fi
}
