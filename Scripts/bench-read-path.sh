#!/usr/bin/env bash
# Times every tracectl command that reads a trace against one plain scan of its events,
# on generated traces of N events, finished (closed) and left by a SIGKILLed recorder (killed).
#
#   Scripts/bench-read-path.sh 1000000                # BENCHMARKS.md's 1M rows (median of 3, after a warm-up run)
#   QUICK=1 Scripts/bench-read-path.sh 10000000       # its 10M rows (one run each, no warm-up)
#   SKIP_BUILD=1 ...                                  # use the release builds already there
#
# Traces are generated once into $TRACES (default /tmp/notifybus-read-traces) by the benchmark
# package (notifybus-bench --generate N PATH [--kill]); delete them to regenerate. Each figure
# is the median of 3 runs, wall clock, page cache warm (a first untimed run reads the file).
# The plain scan: sqlite3 T 'SELECT count(*), sum(length(payload)) FROM events' (every row once).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-1000000}")
traces=${TRACES:-/tmp/notifybus-read-traces}
mkdir -p "$traces"
if [ -z "${SKIP_BUILD:-}" ]; then
    swift build -c release --product tracectl >&2
    swift build -c release --package-path Benchmarks >&2
fi
tracectl=$PWD/.build/release/tracectl
bench=$PWD/Benchmarks/.build/release/notifybus-bench

# median of 3 runs of "$@": "CPU WALL" in seconds (CPU = user + sys, the figure that stays put
# on a shared machine; wall clock moves with the load). Exit status 0 or 1 (findings) is fine.
time3() {
    local cpus=() walls=() out runs=(1 2 3)
    out=$(mktemp)
    if [ -n "${QUICK:-}" ]; then runs=(1); else "$@" > /dev/null 2>&1 || [ $? -eq 1 ]; fi
    for _ in "${runs[@]}"; do
        /usr/bin/time -f "%U %S %e" -o "$out" "$@" > /dev/null 2>&1 || [ $? -eq 1 ]
        read -r user sys wall < <(tail -n 1 "$out")
        cpus+=("$(echo "$user + $sys" | bc)")
        walls+=("$wall")
    done
    rm -f "$out"
    local middle=$(( (${#runs[@]} + 1) / 2 ))
    echo "$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n ${middle}p) $(printf '%s\n' "${walls[@]}" | sort -n | sed -n ${middle}p)"
}

# "| ... | CPU s | scan CPU s | ratio | wall s | scan wall s | ratio |"
row() {
    local n=$1 kind=$2 label=$3 measured=$4 scan=$5
    read -r cpu wall <<< "$measured"
    read -r scancpu scanwall <<< "$scan"
    printf '| %s | %s | `%s` | %.2f | %.2f | %.2f× | %.2f | %.2f | %.2f× |\n' "$n" "$kind" "$label" \
        "$cpu" "$scancpu" "$(echo "$cpu / $scancpu" | bc -l)" "$wall" "$scanwall" "$(echo "$wall / $scanwall" | bc -l)"
}

echo "| events | trace | command | CPU s | scan CPU s | CPU ratio | wall s | scan wall s | wall ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for n in "${sizes[@]}"; do
    closed=$traces/closed-$n.trace killed=$traces/killed-$n.trace
    [ -f "$closed" ] || "$bench" --generate "$n" "$closed" >&2
    if [ ! -f "$killed" ]; then "$bench" --generate "$n" "$killed" --kill >&2 || true; fi
    for kind in closed killed; do
        trace=$traces/$kind-$n.trace
        scan=$(time3 sqlite3 "$trace" 'SELECT count(*), sum(length(payload)) FROM events')
        last=$(sqlite3 "$trace" 'SELECT max(seq) FROM events')
        observer=$(sqlite3 "$trace" "SELECT observer FROM events WHERE seq = (SELECT min(seq) FROM events WHERE kind = 5 AND seq > $last / 2)")
        while IFS='|' read -r label command; do
            row "$n" "$kind" "$label" "$(eval "time3 $command")" "$scan"
        done <<COMMANDS
sessions|$tracectl sessions $trace
stats|$tracectl stats $trace
verify|$tracectl verify $trace
leaks|$tracectl leaks $trace
observers --at (end)|$tracectl observers $trace
observers --at (middle)|$tracectl observers $trace --at $((last / 2))
events|$tracectl events $trace
events --format json|$tracectl events $trace --format json
events --observer|$tracectl events $trace --observer $observer
events --kind lifecycle|$tracectl events $trace --kind lifecycle
diff (the trace against itself)|$tracectl diff $trace $trace
leaks --format json|$tracectl leaks $trace --format json
leaks --format sarif|$tracectl leaks $trace --format sarif
timeline|$tracectl timeline $trace -o $traces/timeline.html
export --format chrome-trace|$tracectl export $trace --format chrome-trace -o $traces/export.json
timeline --since --until (10 000 events)|$tracectl timeline $trace --since $((last / 2)) --until $((last / 2 + 9999)) -o $traces/window.html
export --since --until (10 000 events)|$tracectl export $trace --format chrome-trace --since $((last / 2)) --until $((last / 2 + 9999)) -o $traces/window.json
sql (the observers view)|$tracectl sql $trace 'SELECT count(*), sum(removed_seq) FROM observers'
sql (the deliveries view)|$tracectl sql $trace 'SELECT count(*) FROM deliveries'
COMMANDS
    done
    # Finishing a copy of the killed trace, once.
    copy=$traces/finish-$n.trace
    scan=$(time3 sqlite3 "$killed" 'SELECT count(*), sum(length(payload)) FROM events')
    cp "$killed" "$copy"; for suffix in -wal -shm; do if [ -f "$killed$suffix" ]; then cp "$killed$suffix" "$copy$suffix"; fi; done
    out=$(mktemp)
    /usr/bin/time -f "%U %S %e" -o "$out" "$tracectl" finish "$copy" > /dev/null
    read -r user sys wall < <(tail -n 1 "$out"); rm -f "$out"
    row "$n" killed "finish (once, on a copy)" "$(echo "$user + $sys" | bc) $wall" "$scan"
    rm -f "$copy" "$copy-wal" "$copy-shm"
done
