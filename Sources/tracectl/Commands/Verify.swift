import ArgumentParser
import TraceStore

extension TraceCtl {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a trace: schema, integrity, sequence continuity, deliveries that refer to real posts and observers.",
            discussion: """
                Exit codes: 0 consistent (a session that did not end is reported, not an error); 1 problems found;
                65 not a trace; 66 missing file.

                EXAMPLES:
                  tracectl verify login.trace
                """
        )

        @OptionGroup var options: TraceFileOptions

        func run() throws {
            let (trace, format) = (options.trace, options.format)
            let reader = try openTrace(trace)
            let result = try reportingErrors { try TraceVerification.run(reader) }
            let out = Output()
            switch format {
            case .json:
                out.line(JSON.object([
                    ("valid", .bool(result.isValid)), ("schemaVersion", .int(Int64(result.schemaVersion))),
                    ("integrity", .string(result.integrity)),
                    ("sessions", .array(result.sessions.map { report in
                        .object([("id", .int(report.session.id)), ("name", .string(report.session.name)),
                                 ("events", .int(Int64(report.session.eventCount))),
                                 ("endedCleanly", .bool(report.session.endedCleanly)),
                                 ("problems", .array(report.problems.map(JSON.string)))])
                    })),
                ]).rendered)
            case .text:
                let style = Style.current
                out.line("schema version \(result.schemaVersion), integrity \(result.integrity)")
                for report in result.sessions {
                    let ended = report.session.endedCleanly ? "ended cleanly" : style.yellow("did not end (crashed or still recording)")
                    let status = report.problems.isEmpty ? style.green("ok") : style.red("\(report.problems.count) problem(s)")
                    out.line("session \(report.session.id) '\(report.session.name)': \(report.session.eventCount) events, \(ended): \(status)")
                    for problem in report.problems { out.line("  " + problem) }
                }
            }
            out.flush()
            if !result.isValid { throw Exit.findings }
        }
    }
}
