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

        func run() throws {
            let data = try readInput(scenario)
            let url = URL(fileURLWithPath: scenario)
            let path = output ?? url.deletingPathExtension().lastPathComponent + ".trace"
            let target = try reportingErrors { try TraceFiles.traceOutput(path, inputs: [scenario]) }
            // Interrupted (Ctrl-C, kill), the run leaves no partial file behind either.
            let interrupts = RemovingOnInterrupt(ScenarioRecording.partialPath(of: target))
            defer { interrupts.cancel() }
            let summary = try reportingErrors {
                try ScenarioRecording.record(scenario: data, file: url.lastPathComponent, to: path, input: scenario)
            }
            print("recorded '\(summary.scenarioName)': \(summary.events) events, session \(summary.sessionID) -> \(summary.path)")
        }
    }
}
