import ArgumentParser
import TraceStore

extension TraceCtl {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a trace: schema, integrity, sequence continuity, deliveries that refer to real posts and observers, ids that name real strings and payloads, column types, events of no session.",
            discussion: """
                One streaming pass per session, which reads every event row (damage there is reported), and SQLite's \
                quick_check of the other tables; --thorough runs SQLite's integrity_check of the whole file instead, \
                which also cross-checks every index entry (many times slower on a large trace). A session that was never \
                closed (crashed, killed, still recording, or marked crashed by tracectl finish) is reported with where \
                its record stops.

                Exit codes: 0 consistent, every session ended; 1 problems found; 3 consistent, but a session crashed \
                or was cut short; 65 not a trace; 66 missing file.

                EXAMPLES:
                  tracectl verify login.trace
                """
        )

        @OptionGroup var options: TraceFileOptions

        @Flag(help: "Run SQLite's integrity_check of the whole file (every index entry against its row).")
        var thorough = false

        func run() throws {
            let (trace, format) = (options.trace, options.format)
            let reader = try openTrace(trace)
            let result = try reportingErrors { try TraceVerification.run(reader, thorough: thorough) }
            let ends = try reportingErrors { try result.sessions.map { try reader.end(of: $0.session) } }
            let out = Output()
            switch format {
            case .json:
                out.line(JSON.object([
                    ("valid", .bool(result.isValid)), ("schemaVersion", .int(Int64(result.schemaVersion))),
                    ("integrity", .string(result.integrity)),
                    ("problems", .array(result.problems.map(JSON.string))),
                    ("complete", .bool(!ends.contains(where: \.isCutShort))),
                    ("sessions", .array(zip(result.sessions, ends).map { report, end in
                        .object([("id", .int(report.session.id)), ("name", .string(report.session.name)),
                                 ("events", .int(Int64(report.rowCount))),
                                 ("endedCleanly", .bool(report.session.endedCleanly)),
                                 ("crashedAt", .from(report.session.crashedAt)),
                                 ("recording", end.json),
                                 ("problems", .array(report.problems.map(JSON.string)))])
                    })),
                ]).rendered)
            case .text:
                let style = Style.current
                out.line("schema version \(result.schemaVersion), integrity \(result.integrity)")
                for problem in result.problems { out.line(style.red(problem)) }
                for (report, end) in zip(result.sessions, ends) {
                    let ended = end.isCutShort ? style.yellow(end.summary) : "ended cleanly"
                    let status = report.problems.isEmpty ? style.green("ok") : style.red("\(report.problems.count) problem(s)")
                    out.line("session \(report.session.id) '\(report.session.name)': \(report.rowCount) events, \(ended): \(status)")
                    for problem in report.problems { out.line("  " + problem) }
                }
            }
            out.flush()
            if !result.isValid { throw Exit.findings }
            if ends.contains(where: \.isCutShort) { throw Exit.cutShort }
        }
    }
}
