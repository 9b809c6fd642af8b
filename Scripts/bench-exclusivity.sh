#!/usr/bin/env bash
# Instruction counts (callgrind) of the commands that run through fields marked
# `@exclusivity(unchecked)`, for two builds of tracectl: normally this tree's, and the same tree
# with every attribute removed (the runtime's exclusivity checks back on). BENCHMARKS.md,
# "Fourth session: every @exclusivity(unchecked)".
#
#   T=/tmp/nb4/closed-1000000.trace
#   Scripts/bench-exclusivity.sh .build/release/tracectl /tmp/off/.build/release/tracectl $T
#
# The build without the attribute:
#   git archive HEAD | tar -x -C /tmp/off && cd /tmp/off
#   grep -rl '@exclusivity(unchecked)' Sources | xargs sed -i 's/@exclusivity(unchecked) //'
#   swift build -c release --product tracectl
#
# OUT=dir keeps each run's callgrind file there (callgrind_annotate --tree=caller shows which
# functions call swift_beginAccess). Instruction counts repeat exactly for the same binary.
set -euo pipefail
with=$1 without=$2 trace=$3
out=${OUT:-}
labels=("stats" "verify" "leaks" "observers" "events" "events --format json")
arguments=("stats $trace" "verify $trace" "leaks $trace" "observers $trace" "events $trace"
           "events $trace --format json")
instructions() {   # binary, label, arguments...
    local file=/dev/null
    if [[ -n $out ]]; then file=$out/$(basename "$1")-${2// /_}.cg; fi
    # `leaks` exits 1 when it finds leaks: the count is what matters here.
    { valgrind --tool=callgrind --callgrind-out-file="$file" "$1" "${@:3}" 2>&1 >/dev/null || true; } |
        sed -n 's/.*Collected : //p'
}
echo "| command | with the attribute | without | without / with |"
echo "| --- | --- | --- | --- |"
for i in "${!labels[@]}"; do
    # shellcheck disable=SC2086
    a=$(instructions "$with" "${labels[$i]}" ${arguments[$i]})
    # shellcheck disable=SC2086
    b=$(instructions "$without" "${labels[$i]}" ${arguments[$i]})
    echo "| \`${labels[$i]}\` | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f×", b / a }') |"
done
