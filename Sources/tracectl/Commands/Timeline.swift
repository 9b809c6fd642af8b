import ArgumentParser
import Foundation
import TraceStore

extension TraceCtl {
    struct Timeline: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a session as one self-contained HTML page: when each observer lived beside its screen.",
            discussion: """
                A lane per owner (screens, with the objects attached to them nested beneath), each screen's \
                visible and in-hierarchy intervals, each observer's registered interval (red once its owner is \
                gone) on a row labelled with its message and kind, the steps (push, pop, present, keyboard…) on \
                the axis, posts and deliveries as marks, and the leak findings where the analysis saw them: hover \
                a mark for its text, click to keep it. The page fetches nothing: open it from disk, attach it \
                to a bug report. Zoomed out, marks closer than a pixel are drawn once, darker for more.

                --since and --until draw a window of a long session: the whole session is still analysed (the \
                leak rules need what came before), but the page holds only the posts, deliveries and findings \
                of the window and the observers registered in it, so its size follows the window.

                EXAMPLES:
                  tracectl timeline demo.trace          # writes demo.html beside the trace
                  tracectl timeline demo.trace -o /tmp/timeline.html --session 2
                  tracectl timeline big.trace --since 2000000 --until 2100000
                """
        )

        @Argument(help: "The trace file.", completion: .file(extensions: ["trace", "sqlite"]))
        var trace: String

        @Option(help: "The session to draw (default: the newest).")
        var session: Int64?

        @OptionGroup var window: SeqWindowOptions

        @Option(name: [.short, .customLong("output")], help: "Where to write the page (default: the trace's name with .html).")
        var output: String?

        func run() throws {
            let path = output ?? URL(fileURLWithPath: trace).deletingPathExtension().appendingPathExtension("html").path
            try checkOutputPath(path, inputs: [trace])
            let reader = try openTrace(trace)
            let timeline = try reportingErrors {
                try TraceStore.Timeline.build(reader, session: try reader.session(session).id, window: window.window)
            }
            if let note = timeline.emptyWindowNote { diagnose("note: " + note) }
            let steps = try reportingErrors {
                try TimelineStep.read(reader, session: timeline.session.id, window: window.window,
                                      labels: Dictionary(timeline.lanes.map { ($0.owner, $0.label) }, uniquingKeysWith: { a, _ in a }))
            }
            let report = LeakReport(trace: trace, session: timeline.session, findings: [], baseline: [])
            try writeOutputFile(path, what: "the timeline", inputs: [trace]) { out in
                TimelinePage.write(title: timeline.title, to: out) { data in
                    TimelineData(timeline: timeline, trace: trace, describe: report.describe, steps: steps).render(to: data)
                }
            }
            let findings = timeline.groups.reduce(0) { $0 + $1.findings.count }
            print("wrote \(path): \(timeline.lanes.count) owners, \(timeline.observers.count) observers, "
                  + "\(timeline.posts.count) posts, \(timeline.deliveries.count) deliveries, "
                  + "\(findings) findings in \(timeline.groups.count) groups")
        }
    }
}
