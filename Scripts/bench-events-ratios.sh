#!/usr/bin/env bash
# `tracectl events` printing every event (text and JSON) against the plain scan, closed and killed:
# each command and the scan run in turn, N rounds (default 5), and each figure is the minimum and
# the median of its CPU time (perf stat's task-clock, in ms), as in bench-read-ratios.sh. A second
# build can be measured beside this one (BEFORE=path/to/tracectl), in the same rounds.
#
#   TRACES=/tmp/nb4 BEFORE=/tmp/tracectl-before Scripts/bench-events-ratios.sh 1000000 10000000
set -euo pipefail
cd "$(dirname "$0")/.."
traces=${TRACES:-/tmp/notifybus-read-traces}
rounds=${ROUNDS:-5}
tracectl=$PWD/.build/release/tracectl
before=${BEFORE:-}
source Scripts/ratios-common.sh
ratio_header
for n in "${@:-1000000}"; do
    for kind in closed killed; do
        trace=$traces/$kind-$n.trace
        labels=("scan" "events" "events --format json")
        commands=("$(scan_command "$trace")" "$tracectl events $trace"
                  "$tracectl events $trace --format json")
        if [ -n "$before" ]; then
            labels+=("events (before)" "events --format json (before)")
            commands+=("$before events $trace" "$before events $trace --format json")
        fi
        in_turn "$rounds"
        ratio_rows "$n | $kind"
    done
done
