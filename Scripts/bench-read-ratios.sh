#!/usr/bin/env bash
# The analysis commands against the plain scan, on a machine whose speed moves from run to run:
# every command and the scan run in turn, N rounds (default 7), and each figure is the minimum
# and the median of its CPU time (perf stat's task-clock, in ms), so the ratio compares like
# with like. Uses the traces bench-read-path.sh generates (run it first).
#
#   Scripts/bench-read-ratios.sh 1000000 10000000        # BENCHMARKS.md, "Within 2× of the scan"
#   ROUNDS=3 Scripts/bench-read-ratios.sh 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
traces=${TRACES:-/tmp/notifybus-read-traces}
rounds=${ROUNDS:-7}
tracectl=$PWD/.build/release/tracectl
source Scripts/ratios-common.sh
ratio_header
for n in "${@:-1000000}"; do
    for kind in closed killed; do
        trace=$traces/$kind-$n.trace
        last=$(sqlite3 "$trace" 'SELECT max(seq) FROM events')
        observer=$(sqlite3 "$trace" "SELECT observer FROM events WHERE seq = (SELECT min(seq) FROM events WHERE kind = 5 AND seq > $last / 2)")
        labels=("scan" "stats" "verify" "leaks" "leaks --format json" "leaks --format sarif" "observers --at (end)"
                "observers --at (middle)" "events --observer" "events --kind lifecycle" "sql (the observers view)")
        commands=("$(scan_command "$trace")" "$tracectl stats $trace"
                  "$tracectl verify $trace" "$tracectl leaks $trace" "$tracectl leaks $trace --format json"
                  "$tracectl leaks $trace --format sarif" "$tracectl observers $trace"
                  "$tracectl observers $trace --at $((last / 2))" "$tracectl events $trace --observer $observer"
                  "$tracectl events $trace --kind lifecycle"
                  "$tracectl sql $trace 'SELECT count(*), sum(removed_seq) FROM observers'")
        in_turn "$rounds"
        ratio_rows "$n | $kind"
    done
done
