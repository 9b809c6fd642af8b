#!/usr/bin/env bash
# The tests with the runtime's exclusivity checks back on every field that has them off: a copy
# of this work tree (committed or not) with every `@exclusivity(unchecked)` removed, built and
# tested in debug. An access that overlaps another on one thread, anywhere the attribute hides
# it, stops the test that makes it with the runtime's "Simultaneous accesses to 0x…" report.
# (Accesses from two threads are ThreadSanitizer's: README, "Development".)
#
#   Scripts/test-exclusivity-checked.sh                         # every test
#   Scripts/test-exclusivity-checked.sh --filter 'Golden|Stats' # some
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
copy=$root/.build-exclusivity/tree
rm -rf "$copy" && mkdir -p "$copy"
tar -C "$root" --exclude='./.build*' --exclude='./.git' --exclude='./Benchmarks/.build*' -cf - . | tar -C "$copy" -xf -
grep -rl '@exclusivity(unchecked)' "$copy/Sources" | xargs -r sed -i 's/@exclusivity(unchecked) //'
# Outside comments, no attribute may be left.
if grep -rn '@exclusivity(unchecked)' "$copy/Sources" | grep -v '^[^:]*:[0-9]*: *//'; then
    echo "an @exclusivity(unchecked) was left in the copy" >&2; exit 2
fi
cd "$copy"
swift test --scratch-path "$root/.build-exclusivity/build" "$@"
