#!/bin/sh
# Regenerates BENCHMARKS.md's results table: runs notifybus-bench (release) and replaces the rows
# it measured, keeping every other row with the date and command it was measured with.
#
#   Scripts/benchmarks.sh                 # every group of a full run (bus, mainactor, store)
#   Scripts/benchmarks.sh recording bus   # only these groups' rows
#   NOTIFYBUS_BENCH_EVENTS=1000000,10000000 Scripts/benchmarks.sh store
#
# Each figure is a ratio against a baseline measured side by side in the same run; on a loaded
# machine run it again (uptime: a load average above the core count makes wall times meaningless).
set -eu
cd "$(dirname "$0")/.."
swift build -c release --package-path Benchmarks --product notifybus-bench
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
exec Benchmarks/.build/release/notifybus-bench --markdown BENCHMARKS.md "$@"
