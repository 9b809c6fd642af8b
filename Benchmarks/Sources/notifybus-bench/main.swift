// NotifyBus benchmarks: every figure is a ratio against a baseline measured in
// the same process, alternating rounds, because these machines are noisy.
//
//   swift run -c release --package-path Benchmarks notifybus-bench            # everything
//   swift run -c release --package-path Benchmarks notifybus-bench bus        # only the bus
//   swift run -c release --package-path Benchmarks notifybus-bench store      # recorder, analysis, replay
//   swift run -c release --package-path Benchmarks notifybus-bench recording  # only the recorder
//   swift run -c release --package-path Benchmarks notifybus-bench mainactor  # @MainActor observers against SF-0011
//   swift run -c release --package-path Benchmarks notifybus-bench replay     # only the replay, 3 rounds
//   NOTIFYBUS_BENCH_EVENTS=10000000 ... store                                 # analysis at 10M events
//   swift run -c release --package-path Benchmarks notifybus-bench fleet      # report, push, report --from (FleetBenchmarks.swift)
//   ... --markdown BENCHMARKS.md [GROUP…]    # and update BENCHMARKS.md's table (Scripts/benchmarks.sh)
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--child", arguments.count == 3 {
    try StoreBenchmarks.child(command: arguments[1], path: arguments[2])
    exit(0)
}
if arguments.first == "--generate", arguments.count == 3 || (arguments.count == 4 && arguments[3] == "--kill"),
   let events = Int(arguments[1]) {
    // Scripts/make-read-traces.sh: a trace of about N events; with --kill the recorder is
    // SIGKILLed after its last flush, leaving a WAL-mode file with no indexes and no end.
    try StoreBenchmarks.generate(events: events, path: arguments[2], kill: arguments.count == 4)
    exit(0)
}
if arguments.first == "--profile", arguments.count == 2 || arguments.count == 3,
   ReplayProfile.workloads.contains(arguments[1]) {
    // The replay and the live recording it is measured against (ReplayProfile.swift).
    try ReplayProfile.run(arguments[1], path: arguments.count == 3 ? arguments[2] : nil)
    exit(0)
}
if arguments.first == "--profile", arguments.count == 2 {
    // A single workload for `valgrind --tool=callgrind`, without the baseline.
    BusBenchmarks.profile(arguments[1])
    exit(0)
}
// `--markdown FILE`: after the run, the rows measured replace theirs in FILE's results table
// (BENCHMARKS.md; Scripts/benchmarks.sh), every other row kept with its date (ResultsTable.swift).
var groupArguments = arguments
var markdownFile: String?
if let index = groupArguments.firstIndex(of: "--markdown"), index + 1 < groupArguments.count {
    markdownFile = groupArguments[index + 1]
    groupArguments.removeSubrange(index...index + 1)
}
let report = Report()

/// The groups, in the order a full run takes them: `notifybus-bench NAME` runs one; `inFullRun`
/// false for those a run without arguments leaves out (their own command only). A group adds
/// its rows with `report.add`; each row gets the group's command.
let groups: [(name: String, inFullRun: Bool, run: () throws -> Void)] = [
    ("bus", true, {
        BusBenchmarks.fanOut(report, observers: 1, iterations: 200_000)
        BusBenchmarks.fanOut(report, observers: 10, iterations: 100_000)
        BusBenchmarks.fanOut(report, observers: 100, iterations: 10_000)
        BusBenchmarks.addRemove(report, iterations: 50_000)
        BusBenchmarks.manyTypes(report, iterations: 100_000)
        BusBenchmarks.contention(report, seconds: 1)
    }),
    ("mainactor", true, {
        // SF-0011's typed messages are new in the OS 26 releases (swift-corelibs-foundation has them).
        guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else {
            report.notes.append("mainactor: SF-0011 needs macOS 26; not run")
            return
        }
        MainActor.assumeIsolated {
            MainActorBenchmarks.post(report, iterations: 200_000)
            MainActorBenchmarks.addRemove(report, iterations: 50_000)
        }
    }),
    ("recording", false, {
        try StoreBenchmarks.postingCost(report)
        try StoreBenchmarks.sustained(report, posts: 500_000)
    }),
    ("replay", false, {
        // The replay alone, several rounds: NOTIFYBUS_BENCH_STIMULI stimuli (default 80 000).
        let stimuli = Int(ProcessInfo.processInfo.environment["NOTIFYBUS_BENCH_STIMULI"] ?? "") ?? 80_000
        for distinct in [false, true] {
            for _ in 0..<3 { try StoreBenchmarks.replay(report, stimuli: stimuli, distinctPayloads: distinct) }
        }
    }),
    ("fleet", false, { try FleetBenchmarks.run(report) }),
    ("store", true, {
        try StoreBenchmarks.postingCost(report)
        try StoreBenchmarks.sustained(report, posts: 500_000)
        let sizes = (ProcessInfo.processInfo.environment["NOTIFYBUS_BENCH_EVENTS"] ?? "1000000")
            .split(separator: ",").compactMap { Int($0) }
        for size in sizes { try StoreBenchmarks.analysis(report, events: size) }
        try StoreBenchmarks.replay(report, stimuli: 80_000)
    }),
]

let unknown = groupArguments.filter { name in !groups.contains { $0.name == name } }
guard unknown.isEmpty else {
    FileHandle.standardError.write(Data("notifybus-bench: no group \(unknown.joined(separator: ", ")) (groups: \(groups.map(\.name).joined(separator: ", ")))\n".utf8))
    exit(64)
}
for group in groups where groupArguments.isEmpty ? group.inFullRun : groupArguments.contains(group.name) {
    try report.group(group.name, group.run)
}
print()
print(report.markdown())
for note in report.notes { print("- " + note) }
if let markdownFile {
    try ResultsTable.update(file: markdownFile, with: report.rows)
    print("updated the results table in \(markdownFile): \(report.rows.count) rows")
}
