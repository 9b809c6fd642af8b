import ArgumentParser
import Foundation
import TraceStore
import ScenarioTrace

extension TraceCtl {
    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a scenario file through the lifecycle model and record the session.",
            discussion: """
                The scenario format is documented in docs/SCENARIOS.md. The trace is written to a temporary file \
                and moved into place only when every step ran, so a failed run leaves no trace behind. \
                An existing trace at the output gains the new session (as a TraceRecorder opened on it would), in one \
                transaction once the run is complete, its other sessions kept; --replace replaces the file instead. \
                The output is a file name, never an SQLite URI (`-o file:x.trace` writes a file named `file:x.trace`). \
                An invalid scenario exits 65 with one line naming the path of the mistake.

                EXAMPLES:
                  tracectl record Examples/seed000-keyboard-leak.json -o login.trace
                  tracectl leaks login.trace
                """
        )

        @Argument(help: "The scenario file (JSON).", completion: .file(extensions: ["json"]))
        var scenario: String

        @Option(name: [.short, .customLong("output")], help: "The trace to write (default: <scenario file name>.trace).",
                completion: .file(extensions: ["trace"]))
        var output: String?

        @Flag(help: "Replace an existing trace at the output instead of adding the session to it.")
        var replace = false

        @Option(name: .customLong("meta"), help: ArgumentHelp("""
            A fact about the session, key=value (repeatable): version, build, os, device, test and uuid set those \
            fields (tracectl sessions, tracectl report); any other key is kept as it is.
            """, valueName: "key=value"))
        var meta: [String] = []

        func run() throws {
            let metadata = try reportingErrors { try SessionMetadata(arguments: meta) }
            let data = try readScenario(scenario)
            let url = URL(fileURLWithPath: scenario)
            let path = output ?? url.deletingPathExtension().lastPathComponent + ".trace"
            let target = try reportingErrors { try TraceFiles.traceOutput(path, inputs: [scenario]) }
            if !replace, let existing = try existingSessions(target, shownAs: path) {
                return try append(data, to: target, shownAs: path, existingSessions: existing)
            }
            // Interrupted (Ctrl-C, kill), the run leaves no partial file behind either.
            let interrupts = RemovingOnInterrupt(TraceFiles.partialPath(of: target))
            defer { interrupts.cancel() }
            let summary = try reportingErrors {
                try ScenarioRecording.record(scenario: data, file: Self.callSiteFile(scenario), to: path, input: scenario,
                                              metadata: metadata)
            }
            print("recorded '\(summary.scenarioName)': \(summary.events) events, session \(summary.sessionID) -> \(summary.path)")
        }

        /// The number of sessions of the trace at `target`; `nil` when there is no file there (or an
        /// empty one) to add to. A file that is not a trace is refused (65), pointing at --replace.
        private func existingSessions(_ target: String, shownAs path: String) throws -> Int? {
            var info = stat()
            guard stat(target, &info) == 0, info.st_size > 0 else { return nil }
            do {
                return try TraceReader(path: target, recoveringJournals: false).sessions().count
            } catch where error.isInvalidInput {
                diagnose("\(error.message); record adds a session to an existing trace: give --replace to replace the file")
                throw Exit.invalidInput
            } catch {
                throw Exit.report(error)
            }
        }

        /// Records into a temporary trace beside `target`, then adds its session to `target` in one transaction.
        private func append(_ data: Data, to target: String, shownAs path: String, existingSessions: Int) throws {
            let temporary = TraceFiles.partialPath(of: target) + ".append"
            let interrupts = RemovingOnInterrupt(TraceFiles.partialPath(of: temporary), also: temporary)
            defer {
                interrupts.cancel()
                TraceFiles.remove(at: temporary)
            }
            let summary = try reportingErrors {
                try ScenarioRecording.record(scenario: data, file: Self.callSiteFile(scenario), to: temporary, input: scenario)
            }
            let id = try reportingErrors { try TraceAppender.append(session: summary.sessionID, from: temporary, into: target) }
            let others = existingSessions == 1 ? "1 session" : "\(existingSessions) sessions"
            print("recorded '\(summary.scenarioName)': \(summary.events) events, session \(id) -> \(path) (added after its \(others); --replace replaces the file)")
        }

        /// The scenario file as its observers' call sites name it: a relative path as given, without `.`
        /// components (`./Examples/x.json` is `Examples/x.json`), so that reports run from the same
        /// folder (the repository root, for SARIF's `%SRCROOT%`) resolve it; an absolute path by its
        /// file name alone, which names no machine's folders.
        static func callSiteFile(_ scenario: String) -> String {
            guard !scenario.hasPrefix("/") else { return URL(fileURLWithPath: scenario).lastPathComponent }
            let components = scenario.split(separator: "/").filter { $0 != "." }
            return components.isEmpty ? scenario : components.joined(separator: "/")
        }
    }
}
