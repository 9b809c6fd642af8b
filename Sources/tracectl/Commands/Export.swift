import ArgumentParser
import Foundation
import TraceStore

/// `export --format chrome-trace`.
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case chromeTrace = "chrome-trace"
}

extension TraceCtl {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export a session for other viewers: Trace Event JSON for Perfetto UI and chrome://tracing.",
            discussion: """
                chrome-trace: screens are processes whose tracks are "visible", "in hierarchy" and one track \
                per row of observers; observer lifetimes are slices, posts are slices on the "posts" track \
                that last while they are delivered, deliveries are short slices inside their observer's \
                lifetime with a flow arrow from the post, findings are instant events. Time is the event \
                order: ts is the sequence number (1 event = 1 µs). docs/CHROME_TRACE.md walks through the demo.

                --since and --until export a window of a long session, as `timeline` draws one: its posts, \
                deliveries and findings, and the observers and screen intervals that reach into it.

                EXAMPLES:
                  tracectl export demo.trace --format chrome-trace -o demo.json  # for Perfetto
                  tracectl export demo.trace --format chrome-trace > demo.json
                  tracectl export big.trace --format chrome-trace --since 200000 --until 210000
                """
        )

        @Argument(help: "The trace file.", completion: .file(extensions: ["trace", "sqlite"]))
        var trace: String

        @Option(help: "The session to export (default: the newest).")
        var session: Int64?

        @Option(help: "Export format: chrome-trace.")
        var format: ExportFormat

        @OptionGroup var window: SeqWindowOptions

        @Option(name: [.short, .customLong("output")], help: "Where to write (default: standard output).")
        var output: String?

        func run() throws {
            if let output { try checkOutputPath(output, inputs: [trace]) }
            let reader = try openTrace(trace)
            let timeline = try reportingErrors {
                try TraceStore.Timeline.build(reader, session: try reader.session(session).id, window: window.window)
            }
            if let note = timeline.emptyWindowNote { diagnose("note: " + note) }
            let report = LeakReport(trace: trace, session: timeline.session, findings: [], baseline: [])
            let render: (Output) -> Void = switch format {
            case .chromeTrace: ChromeTrace(timeline: timeline, describe: report.describe).render(to:)
            }
            guard let output else {
                let out = Output()
                render(out)
                out.flush()
                return
            }
            try writeOutputFile(output, what: "the export", inputs: [trace], render)
        }
    }
}
