import Foundation

/// Nanoseconds of monotonic time.
@inline(__always)
func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Nanoseconds of CPU time the calling thread has used.
@inline(__always)
func threadCPUTime() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// The calling thread's context switches so far, (involuntary, voluntary); zeros where the system
/// does not count them per thread (only Linux has `RUSAGE_THREAD`).
func threadContextSwitches() -> (involuntary: Int, voluntary: Int) {
    #if os(Linux)
    var usage = rusage()
    // __rusage_who_t(1): RUSAGE_THREAD, which Glibc's module map leaves out (_GNU_SOURCE).
    getrusage(__rusage_who_t(1), &usage)
    return (usage.ru_nivcsw, usage.ru_nvcsw)
    #else
    return (0, 0)
    #endif
}

/// Runs `a` and `b` alternately for `rounds` rounds of `iterations` each and
/// returns the median nanoseconds per iteration of each. Alternating puts both
/// sides under the same machine noise, which is what makes their ratio stable.
func sideBySide(rounds: Int = 9, iterations: Int, _ a: (Int) -> Void, _ b: (Int) -> Void) -> (a: Double, b: Double) {
    a(iterations / 10 + 1)
    b(iterations / 10 + 1)
    var ta: [Double] = [], tb: [Double] = []
    for _ in 0..<rounds {
        let s0 = now(); a(iterations); let s1 = now()
        b(iterations); let s2 = now()
        ta.append(Double(s1 - s0) / Double(iterations))
        tb.append(Double(s2 - s1) / Double(iterations))
    }
    return (median(ta), median(tb))
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// Times one run of `body`, in seconds.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return Double(now() - start) / 1e9
}

/// A sink for handler side effects that the optimizer cannot remove.
final class Sink: @unchecked Sendable {
    // @unchecked: single-threaded benchmarks only; the contention one uses `AtomicSink`.
    var count = 0
}

/// One row of the results table.
struct Row {
    let name: String
    let subject: String
    let baseline: String
    let ratio: String
    let target: String
    let met: Bool?
    /// The command that measures this row again (its group's), shown beside it in BENCHMARKS.md.
    var command = ""
}

final class Report {
    var rows: [Row] = []
    var notes: [String] = []
    /// The command of the group running now: every row added gets it (``group(_:_:)``).
    private var command = ""

    /// Runs one group of benchmarks; its rows say `swift run … notifybus-bench NAME` reproduces them.
    func group(_ name: String, _ body: () throws -> Void) rethrows {
        // The sizes this run was given go with it (not where files or the server are: those are the machine's).
        let sizes = ProcessInfo.processInfo.environment
            .filter { $0.key.hasPrefix("NOTIFYBUS_BENCH_") && !["NOTIFYBUS_BENCH_DIR", "NOTIFYBUS_BENCH_BIN", "NOTIFYBUS_BENCH_PG"].contains($0.key) }
            .sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value) " }.joined()
        command = sizes + "swift run -c release --package-path Benchmarks notifybus-bench \(name)"
        defer { command = "" }
        try body()
    }

    func add(_ name: String, subject: String, baseline: String, ratio: String, target: String = "", met: Bool? = nil) {
        rows.append(Row(name: name, subject: subject, baseline: baseline, ratio: ratio, target: target, met: met, command: command))
        let mark = met.map { $0 ? "met" : "NOT met" } ?? ""
        print("\(name): \(subject) vs \(baseline) -> \(ratio) \(target.isEmpty ? "" : "(target \(target): \(mark))")")
    }

    func markdown() -> String {
        var lines = ["| measurement | NotifyBus | baseline | ratio | target |", "| --- | --- | --- | --- | --- |"]
        for row in rows {
            let target = row.target.isEmpty ? "" : row.target + (row.met.map { $0 ? " ✓" : " ✗" } ?? "")
            lines.append("| \(row.name) | \(row.subject) | \(row.baseline) | \(row.ratio) | \(target) |")
        }
        return lines.joined(separator: "\n")
    }
}

func ns(_ value: Double) -> String { value >= 1000 ? String(format: "%.2f µs", value / 1000) : String(format: "%.0f ns", value) }
func rate(_ perSecond: Double) -> String {
    perSecond >= 1e6 ? String(format: "%.2f M/s", perSecond / 1e6) : String(format: "%.0f k/s", perSecond / 1e3)
}
func times(_ value: Double) -> String { String(format: "%.2f×", value) }
