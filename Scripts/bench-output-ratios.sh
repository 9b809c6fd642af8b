#!/usr/bin/env bash
# `tracectl timeline` and `export --format chrome-trace` (the commands that write a page or a
# document of every post and delivery), each also over a 10 000-event window, and the `deliveries`
# view (its schema's: the file's own view) against the plain scan, in turn, ROUNDS rounds (default 5):
# min and median CPU time (perf stat's task-clock, ms) and their ratio, as bench-read-ratios.sh.
# BEFORE=path/to/an/older/tracectl adds that build's rows, measured in the same rounds.
#
#   TRACES=/tmp/nb4 Scripts/bench-output-ratios.sh 1000000 10000000
set -euo pipefail
cd "$(dirname "$0")/.."
traces=${TRACES:-/tmp/notifybus-read-traces}
rounds=${ROUNDS:-5}
tracectl=$PWD/.build/release/tracectl
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source Scripts/ratios-common.sh
echo "| events | trace | build | command | min ms | scan min ms | min ratio | median ms | scan median ms | median ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for n in "${@:-1000000}"; do
    for kind in closed killed; do
        trace=$traces/$kind-$n.trace
        builds=("this:$tracectl")
        [ -n "${BEFORE:-}" ] && builds+=("before:$BEFORE")
        labels=("scan") commands=("$(scan_command "$trace")") names=("")
        last=$(sqlite3 "$trace" 'SELECT max(seq) FROM events')
        window="--since $((last / 2)) --until $((last / 2 + 9999))"
        for build in "${builds[@]}"; do
            name=${build%%:*} binary=${build#*:}
            labels+=("timeline" "export --format chrome-trace" "timeline (10 000-event window)" "export (10 000-event window)"
                     "sql (the deliveries view)")
            names+=("$name" "$name" "$name" "$name" "$name")
            commands+=("$binary timeline $trace -o $out/page.html" "$binary export $trace --format chrome-trace -o $out/export.json"
                       "$binary timeline $trace $window -o $out/window.html"
                       "$binary export $trace --format chrome-trace $window -o $out/window.json"
                       "$binary sql $trace 'SELECT count(*) FROM deliveries'")
        done
        in_turn "$rounds"
        scanmin=${mins[0]} scanmed=${medians[0]}
        for i in "${!commands[@]}"; do
            [ "$i" -eq 0 ] && continue
            min=${mins[$i]} med=${medians[$i]}
            printf '| %s | %s | %s | `%s` | %d | %d | %.2f× | %d | %d | %.2f× |\n' "$n" "$kind" "${names[$i]}" "${labels[$i]}" "$min" "$scanmin" \
                "$(echo "$min / $scanmin" | bc -l)" "$med" "$scanmed" "$(echo "$med / $scanmed" | bc -l)"
        done
    done
done
