#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/NotifyBusFuzz and runs them.
#
#   Scripts/fuzz.sh [-t SECONDS] [TARGET ...]     fuzz each TARGET for SECONDS (default 600)
#   Scripts/fuzz.sh --reproduce TARGET FILE ...   run TARGET once on each FILE (a crash input)
#
# TARGETs: scenario (Scenario.parse, then the scenario run through the lifecycle model),
# trace (a mutated trace file, or a real one with rows changed through SQL, through
# TraceReader, the TraceState fold, LeakAnalyzer, stats, the timeline (whole and windowed), the verifier and diff), bridge (FoundationBridge on hostile userInfo, recorded into a trace file),
# payload (recorded payloads decoded by MessageRegistry, differentially against JSONDecoder),
# scan (bytes as a Swift file through tracectl scan's scanner: parse, model, journeys, rules).
# Default: all four, one after the other.
#
# Work files live in .build-fuzz/ (gitignored): corpus/TARGET grows across runs, seeded
# from Examples/, Tests/Fixtures/ and Fuzz/seeds/; findings/TARGET holds crash inputs;
# logs/TARGET.log libFuzzer's output. Runs under `nice -n 10`.
#
# Exit codes: 0 no target crashed; 1 a target crashed (its input is in findings/);
# 2 the build failed; 64 usage error.
set -euo pipefail

# Swift's crash handler reads the crashed process's memory, which ASan reports as a second error.
export SWIFT_BACKTRACE=enable=no
# No leak checking at exit: the Swift runtime's and Foundation's process-lifetime caches read as leaks.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

root=$(cd "$(dirname "$0")/.." && pwd)
package="$root/Fuzz/NotifyBusFuzz"
work="$root/.build-fuzz"
seconds=600
reproduce=0
targets=()

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }

while [ $# -gt 0 ]; do
    case "$1" in
        -t) [ $# -ge 2 ] || usage; seconds=$2; shift 2 ;;
        --reproduce) reproduce=1; shift ;;
        -h|--help) usage ;;
        scenario|trace|bridge|payload|scan) targets+=("$1"); shift ;;
        *) if [ "$reproduce" = 1 ] && [ ${#targets[@]} -ge 1 ]; then break; fi
           echo "fuzz.sh: unknown target or option '$1'" >&2; exit 64 ;;
    esac
done
case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: -t takes whole seconds, not '$seconds'" >&2; exit 64 ;; esac
[ ${#targets[@]} -gt 0 ] || targets=(scenario trace bridge payload)

binary() {
    case "$1" in
        scenario) echo FuzzScenario ;;
        trace) echo FuzzTraceReader ;;
        bridge) echo FuzzBridge ;;
        payload) echo FuzzPayload ;;
        scan) echo FuzzScan ;;
    esac
}

# SwiftPM's --sanitize=fuzzer links libFuzzer but does not instrument the code for
# coverage; -sanitize-coverage adds what libFuzzer reads (inline counters, PC table,
# comparison tracing). Release mode: a debug build of swift-syntax under ASan parsed about one
# input a second, so the scan target spent a 10-minute run reading its seed corpus. -O keeps
# Swift's checks (overflow, bounds, exclusivity at run time where the compiler cannot prove it).
mkdir -p "$work"
build_targets() {
    (cd "$package" && nice -n 10 swift build -c release --scratch-path "$work/build" \
        --sanitize=fuzzer --sanitize=address \
        -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp) \
        > "$work/build.log" 2>&1
}
echo "fuzz.sh: building the fuzz targets" >&2
# SwiftPM's cached build of the path dependency can miss a source file added to it since
# ("cannot find 'X' in scope"): one clean rebuild before calling it a failure.
if ! build_targets && ! { echo "fuzz.sh: build failed; once more from clean" >&2; rm -rf "$work/build"; build_targets; }; then
    grep -v 'Cannot export local symbol' "$work/build.log" | tail -40 >&2
    echo "fuzz.sh: build failed (log: $work/build.log)" >&2
    exit 2
fi
bin="$work/build/release"

if [ "$reproduce" = 1 ]; then
    [ ${#targets[@]} -eq 1 ] && [ $# -ge 1 ] || usage
    exec "$bin/$(binary "${targets[0]}")" "$@"
fi

seed() {
    local target=$1 corpus=$2
    case "$target" in
        scenario) cp "$root"/Examples/*.json "$root"/Fuzz/seeds/scenario/* "$corpus"/ ;;
        trace) find "$root/Tests/Fixtures" -name '*.trace' -exec cp {} "$corpus"/ \; ; cp "$root"/Fuzz/seeds/trace/* "$corpus"/ ;;
        bridge) cp "$root"/Fuzz/seeds/bridge/* "$corpus"/ ;;
        payload) cp "$root"/Fuzz/seeds/payload/* "$corpus"/ ;;
        scan) cp "$root"/Fuzz/seeds/scan/* "$corpus"/ ;;
    esac
}

crashed=0
for target in "${targets[@]}"; do
    corpus="$work/corpus/$target" findings="$work/findings/$target" log="$work/logs/$target.log"
    mkdir -p "$corpus" "$findings" "$(dirname "$log")"
    seed "$target" "$corpus"
    # No leak checking: the Swift runtime's and Foundation's process-lifetime caches read as leaks.
    options=(-max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 -detect_leaks=0
             -artifact_prefix="$findings/")
    case "$target" in
        scenario) options+=(-max_len=8192 -dict="$root/Fuzz/seeds/scenario.dict") ;;
        trace) options+=(-max_len=131072) ;;
        bridge) options+=(-max_len=4096) ;;
        payload) options+=(-max_len=4096) ;;
        scan) options+=(-max_len=16384) ;;
    esac
    echo "fuzz.sh: $target for ${seconds}s (log: $log)" >&2
    started="$work/logs/$target.started"
    touch "$started"
    # -fork keeps fuzzing past a crash, so one run reports every distinct one it finds.
    nice -n 10 "$bin/$(binary "$target")" "${options[@]}" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
        -ignore_ooms=1 "$corpus" > "$log" 2>&1 || true
    new=$(find "$findings" -type f -newer "$started" | sort)
    if [ -z "$new" ]; then
        echo "fuzz.sh: $target: clean; $(grep -c . <(ls "$corpus")) inputs in its corpus" >&2
    else
        crashed=1
        echo "fuzz.sh: $target: found crashes; reproduce with Scripts/fuzz.sh --reproduce $target FILE:" >&2
        echo "$new" >&2
    fi
done
exit $crashed
