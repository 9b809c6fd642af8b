#!/usr/bin/env bash
# Regenerates the golden traces in Tests/Fixtures from the Examples scenarios.
# Run it after a deliberate change of behaviour, review `tracectl diff OLD NEW`, commit.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product tracectl
tracectl=.build/debug/tracectl
for name in seed000-keyboard-leak seed004-keyboard-timing pagesheet-keyboard; do
    "$tracectl" record "Examples/$name.json" -o "Tests/Fixtures/$name.trace"
done
"$tracectl" demo -o Tests/Fixtures/demo.trace > /dev/null
echo "recorded: $(ls Tests/Fixtures/*.trace | tr '\n' ' ')"
