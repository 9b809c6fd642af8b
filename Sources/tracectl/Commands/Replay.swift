import ArgumentParser
import Foundation
import TraceStore
import ScenarioTrace

extension TraceCtl {
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a scenario-recorded trace against the current lifecycle model and compare.",
            discussion: """
                The recorded stimuli (the scenario's steps) run again through the current code; the reactions \
                (observer changes, deliveries, posts made by handlers, lifecycle callbacks) are compared with the \
                recording, ids renumbered by order of first appearance. With --scenario, a new scenario file \
                runs instead of the stored one: that is how a fix is shown.

                Exit codes: 0 the reactions match; 1 they diverge (the first divergence is printed as a −/+ \
                diff, with the reactions added and missing); 64 a bad option, or an --output that is the trace \
                being replayed; 65 not a trace, a session with no scenario, or a scenario that is not valid; \
                66 a missing trace or scenario file; 69 a --session the trace does not hold; 73 an --output \
                that cannot be created (the full table: tracectl --help).

                EXAMPLES:
                  tracectl replay login.trace
                  tracectl replay login.trace --scenario Examples/seed004-keyboard-timing.json
                  tracectl replay login.trace --output replayed.trace
                  tracectl diff login.trace replayed.trace
                """
        )

        @OptionGroup var options: TraceOptions

        @Option(help: "A scenario file to run instead of the one stored in the session.",
                completion: .file(extensions: ["json"]))
        var scenario: String?

        @Option(help: "Keep the replay's own trace here.")
        var output: String?

        func run() throws {
            if let output {
                // Neither input may be replaced by the replay's trace.
                _ = try reportingErrors { try TraceFiles.traceOutput(output, inputs: [options.trace] + (scenario.map { [$0] } ?? [])) }
            }
            let reader = try openTrace(options.trace)
            let session = try reportingErrors { try reader.session(options.session) }
            var data: Data?
            if let scenario {
                data = try readScenario(scenario)
            }
            if data == nil && session.scenario == nil {
                diagnose("\(options.trace): session \(session.id) was not recorded from a scenario; give one with --scenario, "
                         + "or replay it from Swift with TraceReplayer.replay(trace:_:)")
                throw Exit.invalidInput
            }
            let report = try reportingErrors {
                try TraceReplayer.replayScenario(trace: options.trace, session: session.id, scenario: data, output: output)
            }
            try printComparison(report, format: options.format)
        }
    }

    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare two recorded traces: stimuli first, then reactions.",
            discussion: """
                Exit codes: 0 equal behaviour; 1 the traces part (where the stimuli part, if they do, otherwise \
                the first divergence in the reactions); 64 a bad option; 65 a file that is not a trace; 66 a \
                missing file; 69 a --session-a or --session-b its trace does not hold (the full table: \
                tracectl --help).

                EXAMPLES:
                  tracectl diff before.trace after.trace
                  tracectl diff before.trace after.trace --format json
                """
        )

        @Argument(help: "The expected trace.", completion: .file(extensions: ["trace"]))
        var expected: String

        @Argument(help: "The actual trace.", completion: .file(extensions: ["trace"]))
        var actual: String

        @Option(help: "Session of the expected trace (default: the newest).")
        var sessionA: Int64?

        @Option(help: "Session of the actual trace (default: the newest).")
        var sessionB: Int64?

        @Option(help: "Output format: text or json.")
        var format: OutputFormat = .text

        func run() throws {
            _ = try openTrace(expected)
            _ = try openTrace(actual)
            let report = try reportingErrors { try TraceReplayer.diff(expected, actual, sessions: (sessionA, sessionB)) }
            try printComparison(report, format: format)
        }
    }
}

/// Prints a comparison and exits 1 when the two sides differ.
func printComparison(_ report: ReplayReport, format: OutputFormat) throws {
    let out = Output()
    switch format {
    case .json:
        func lines(_ list: [ReplayReport.Line]) -> JSON {
            .array(list.map { .object([("seq", .from($0.seq)), ("event", .string($0.text)), ("stimulus", .bool($0.isStimulus))]) })
        }
        out.line(JSON.object([
            ("equal", .bool(report.isEqual)),
            ("expectedEvents", .int(Int64(report.expectedCount))),
            ("actualEvents", .int(Int64(report.actualCount))),
            ("divergence", report.divergence.map { d in
                .object([("inStimuli", .bool(d.inStimuli)), ("context", lines(d.context)),
                         ("expected", lines(d.expected)), ("actual", lines(d.actual))])
            } ?? .null),
            ("added", lines(report.addedReactions)),
            ("missing", lines(report.missingReactions)),
            ("replayError", .from(report.replayError)),
        ]).rendered)
    case .text:
        let style = Style.current
        if report.isEqual {
            out.line(style.green("equal") + ": \(report.expectedCount) events compared")
        } else {
            for line in report.diffText.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("−") { out.line(style.red(String(line))) } else if line.hasPrefix("+") { out.line(style.green(String(line))) } else { out.line(String(line)) }
            }
            let shown = 20
            if !report.missingReactions.isEmpty {
                out.line(style.bold("missing reactions") + " (recorded, not replayed):")
                for line in report.missingReactions.prefix(shown) { out.line(style.red("  − \(line.text)") + "   (seq \(line.seq))") }
                if report.missingReactions.count > shown { out.line("  … \(report.missingReactions.count - shown) more") }
            }
            if !report.addedReactions.isEmpty {
                out.line(style.bold("added reactions") + " (replayed, not recorded):")
                for line in report.addedReactions.prefix(shown) { out.line(style.green("  + \(line.text)") + "   (seq \(line.seq))") }
                if report.addedReactions.count > shown { out.line("  … \(report.addedReactions.count - shown) more") }
            }
        }
    }
    out.flush()
    if !report.isEqual { throw Exit.findings }
}
