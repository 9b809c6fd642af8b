import ArgumentParser
import TraceStore

extension TraceCtl {
    struct Sessions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the sessions of a trace: name, start, duration, events, ended cleanly or not.",
            discussion: """
                EXAMPLES:
                  tracectl sessions login.trace
                  tracectl sessions login.trace --format json
                """
        )

        @OptionGroup var options: TraceFileOptions

        func run() throws {
            let (trace, format) = (options.trace, options.format)
            let reader = try openTrace(trace)
            let sessions = try reportingErrors { try reader.sessions() }
            let out = Output()
            // Written out here, in the command, not when `out` is released: a failed write exits from here.
            defer { out.flush() }
            switch format {
            case .json:
                out.line(JSON.array(sessions.map { session in
                    .object([
                        ("id", .int(session.id)), ("name", .string(session.name)), ("app", .string(session.app)),
                        ("startedAt", .string(session.startedAt)), ("durationSeconds", .double(Double(session.duration) / 1e9)),
                        ("events", .int(Int64(session.eventCount))), ("endedCleanly", .bool(session.endedCleanly)),
                        ("endedAt", .from(session.endedAt)), ("crashedAt", .from(session.crashedAt)), ("toolVersion", .string(session.toolVersion)),
                        ("hasScenario", .bool(session.scenario != nil)),
                    ])
                }).rendered)
            case .text:
                out.line("ID".leftPadded(4) + "  " + "NAME".padded(28) + "STARTED".padded(26) + "DURATION".leftPadded(10)
                         + "EVENTS".leftPadded(10) + "  ENDED")
                for session in sessions {
                    let ended = session.endedCleanly ? "cleanly"
                        : session.crashedAt != nil ? Style.current.yellow("no (crashed; finished)")
                        : Style.current.yellow("no (crashed or still recording)")
                    out.line(String(session.id).leftPadded(4) + "  " + session.name.padded(28) + session.startedAt.padded(26)
                             + seconds(session.duration).leftPadded(10) + String(session.eventCount).leftPadded(10) + "  " + ended)
                }
            }
        }
    }
}
