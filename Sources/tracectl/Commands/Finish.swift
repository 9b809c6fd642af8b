import ArgumentParser
import TraceStore

extension TraceCtl {
    struct Finish: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Finish a trace whose recorder was killed: mark its open sessions crashed, build its indexes.",
            discussion: """
                A killed `record` leaves every committed event in a WAL-mode file with no indexes. This keeps every \
                event, sets `sessions.crashed_at` on each session that never ended, builds the indexes and makes the \
                file self-contained again. A finished trace is left as it is. Run it only once the recorder is gone.

                Exit codes: 0 finished (or nothing to finish); 65 not a trace (or a schema-1 trace); 66 missing file.

                EXAMPLES:
                  tracectl finish killed.trace && tracectl verify killed.trace
                """
        )

        @OptionGroup var options: TraceFileOptions

        func run() throws {
            let outcome = try reportingErrors { try TraceFinisher.finish(path: options.trace) }
            let out = Output()
            switch options.format {
            case .json:
                out.line(JSON.object([
                    ("finished", .array(outcome.finished.map { session in
                        .object([("id", .int(session.id)), ("lastSeq", .from(session.lastSeq))])
                    })),
                    ("upgradedFrom", outcome.upgradedFrom.map { .int(Int64($0)) } ?? .null),
                ]).rendered)
            case .text:
                if let version = outcome.upgradedFrom {
                    out.line("upgraded the trace from schema \(version) to \(TraceSchema.version)")
                }
                if outcome.finished.isEmpty { out.line("every session had ended; indexes checked") }
                for session in outcome.finished {
                    out.line("session \(session.id): marked crashed after seq \(session.lastSeq.map(String.init) ?? "-"); indexes built")
                }
            }
        }
    }
}
