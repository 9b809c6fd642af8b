import Foundation
import NotifyBus
import TraceStore

/// The replay benchmark's two halves as single workloads for `valgrind --tool=callgrind`:
///
///   notifybus-bench --profile live PATH              # records the stimuli live into PATH
///   notifybus-bench --profile replay PATH            # replays PATH (recorded first if missing)
///   notifybus-bench --profile live-distinct PATH     # the same with every payload distinct
///   notifybus-bench --profile replay-distinct PATH
///
/// Profile `live` into PATH once, then `replay` from it: the two instruction counts are the
/// replay's cost against the live recording's, without the other's work in the profile.
/// NOTIFYBUS_BENCH_STIMULI sets the number of stimuli (default 80 000).
enum ReplayProfile {
    static let workloads = ["live", "replay", "live-distinct", "replay-distinct"]

    static func run(_ workload: String, path: String?) throws {
        precondition(workloads.contains(workload), "replay workloads: " + workloads.joined(separator: ", "))
        let stimuli = Int(ProcessInfo.processInfo.environment["NOTIFYBUS_BENCH_STIMULI"] ?? "") ?? 80_000
        let distinct = workload.hasSuffix("-distinct")
        let path = path ?? StoreBenchmarks.temporaryPath("profile-" + workload)
        if workload.hasPrefix("live") {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try StoreBenchmarks.recordStimuli(count: stimuli, path: path, distinctPayloads: distinct)
            return
        }
        if !FileManager.default.fileExists(atPath: path) {
            try StoreBenchmarks.recordStimuli(count: stimuli, path: path, distinctPayloads: distinct)
        }
        var registry = MessageRegistry()
        registry.register(ReplayModel.Moved.self)
        let report = try TraceReplayer.replay(trace: path, registry: registry) { bus in ReplayModel(bus: bus) }
        precondition(report.isEqual, report.diffText)
    }
}
