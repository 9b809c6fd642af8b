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

        @Option(name: .customLong("meta"), help: ArgumentHelp("""
            A fact about the session, key=value (repeatable): version, build, os, device, test and uuid set those \
            fields (tracectl sessions, tracectl report); any other key is kept as it is.
            """, valueName: "key=value"))
        var meta: [String] = []

        func run() throws {
            let metadata = try reportingErrors { try SessionMetadata(arguments: meta) }
            let data = try readInput(scenario)
            let url = URL(fileURLWithPath: scenario)
            let path = output ?? url.deletingPathExtension().lastPathComponent + ".trace"
            let target = try reportingErrors { try TraceFiles.traceOutput(path, inputs: [scenario]) }
            // Interrupted (Ctrl-C, kill), the run leaves no partial file behind either.
            let interrupts = RemovingOnInterrupt(TraceFiles.partialPath(of: target))
            defer { interrupts.cancel() }
            let summary = try reportingErrors {
                try ScenarioRecording.record(scenario: data, file: Self.callSiteFile(scenario), to: path, input: scenario,
                                              metadata: metadata)
            }
            print("recorded '\(summary.scenarioName)': \(summary.events) events, session \(summary.sessionID) -> \(summary.path)")
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
