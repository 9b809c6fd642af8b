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
ms() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {printf "%.0f", $1}' || true; }
stat() { sort -n | awk '{v[NR]=$1} END {printf "%d %d", v[1], v[int((NR+1)/2)]}'; }
echo "| trace | command | min ms | median ms | scan min ms | scan median ms | min / scan | median / scan | min / two scans |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for trace in "$@"; do
    labels=("scan" "diff")
    commands=("sqlite3 $trace 'SELECT count(*), sum(length(payload)) FROM events'" "$tracectl diff $trace $trace")
    if [ -n "${BEFORE:-}" ]; then labels+=("diff (before)"); commands+=("$BEFORE diff $trace $trace"); fi
    declare -A runs=()
    for _ in $(seq "$rounds"); do
        for i in "${!commands[@]}"; do runs[$i]+="$(eval "ms ${commands[$i]}") "; done
    done
    read -r scanmin scanmed <<< "$(tr ' ' '\n' <<< "${runs[0]}" | grep . | stat)"
    for i in "${!commands[@]}"; do
        [ "$i" -eq 0 ] && continue
        read -r min med <<< "$(tr ' ' '\n' <<< "${runs[$i]}" | grep . | stat)"
        printf '| %s | `%s` | %d | %d | %d | %d | %.1f× | %.1f× | %.1f× |\n' "$(basename "$trace")" "${labels[$i]}" "$min" "$med" \
            "$scanmin" "$scanmed" "$(echo "$min / $scanmin" | bc -l)" "$(echo "$med / $scanmed" | bc -l)" \
            "$(echo "$min / (2 * $scanmin)" | bc -l)"
    done
    unset runs
done
