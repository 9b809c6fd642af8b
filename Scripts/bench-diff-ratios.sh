#!/usr/bin/env bash
# `tracectl diff` of a trace against itself, against the plain scan of the same trace, in turn,
# ROUNDS rounds (default 5): min and median CPU time (perf stat's task-clock, ms) and their
# ratios to one scan and to two (diff reads two traces: two scans are its floor).
# BEFORE=path/to/an/older/tracectl adds that build's row, measured in the same rounds.
#
#   Scripts/bench-diff-ratios.sh /tmp/nb4/closed-1000000.trace /tmp/nb4/killed-1000000.trace
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
tracectl=${TRACECTL:-$PWD/.build/release/tracectl}
source Scripts/ratios-common.sh
echo "| trace | command | min ms | median ms | scan min ms | scan median ms | min / scan | median / scan | min / two scans |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for trace in "$@"; do
    labels=("scan" "diff")
    commands=("$(scan_command "$trace")" "$tracectl diff $trace $trace")
    if [ -n "${BEFORE:-}" ]; then labels+=("diff (before)"); commands+=("$BEFORE diff $trace $trace"); fi
    in_turn "$rounds"
    scanmin=${mins[0]} scanmed=${medians[0]}
    for i in "${!commands[@]}"; do
        [ "$i" -eq 0 ] && continue
        min=${mins[$i]} med=${medians[$i]}
        printf '| %s | `%s` | %d | %d | %d | %d | %.1f× | %.1f× | %.1f× |\n' "$(basename "$trace")" "${labels[$i]}" "$min" "$med" \
            "$scanmin" "$scanmed" "$(echo "$min / $scanmin" | bc -l)" "$(echo "$med / $scanmed" | bc -l)" \
            "$(echo "$min / (2 * $scanmin)" | bc -l)"
    done
done
