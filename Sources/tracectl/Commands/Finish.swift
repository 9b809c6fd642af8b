import ArgumentParser
import TraceStore

extension TraceCtl {
    struct Finish: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Finish a trace whose recorder was killed: mark its open sessions crashed, build its indexes.",
            discussion: """
                A killed or crashed recorder leaves its committed events in a WAL-mode file with no indexes, and the \
                events it had not committed yet in its journal beside it (TRACE-eventlog-SESSION, docs/TRACE_JOURNAL.md). \
                This writes the journal's events into the file, sets `sessions.crashed_at` on each session that never \
                ended, builds the indexes and makes the file self-contained again. A finished trace is left as it is. \
                A session whose recorder is still running is refused (75).

                Exit codes: 0 finished (or nothing to finish); 65 not a trace (or a schema-1 trace); 66 missing file; \
                75 a recorder is still recording into the trace.

                EXAMPLES:
                  tracectl finish killed.trace && tracectl verify killed.trace
                """
        )

        @OptionGroup var options: TraceFileOptions

        func run() throws {
            // The opening checks of every other command first (a directory, an empty file, a file that
            // is not a trace): finishing opens the file for writing, where SQLite would report them as
            // its own errors or take an empty file for a new database. Also which sessions an earlier
            // `finish` marked crashed, to say so when there is nothing left to finish.
            let sessions = try reportingErrors { try TraceReader(path: options.trace, recoveringJournals: false).sessions() }
            let alreadyCrashed = sessions.filter { $0.crashedAt != nil }.map(\.id)
            let outcome = try reportingErrors { try TraceFinisher.finish(path: options.trace) }
            let out = Output()
            // Written out here, in the command, not when `out` is released: a failed write exits from here.
            defer { out.flush() }
            switch options.format {
            case .json:
                out.line(JSON.object([
                    ("finished", .array(outcome.finished.map { session in
                        .object([("id", .int(session.id)), ("lastSeq", .from(session.lastSeq))])
                    })),
                    ("alreadyCrashed", .array(alreadyCrashed.map { .int($0) })),
                    ("upgradedFrom", outcome.upgradedFrom.map { .int(Int64($0)) } ?? .null),
                    ("recoveredFromJournal", .int(Int64(outcome.recovered))),
                ]).rendered)
            case .text:
                if let version = outcome.upgradedFrom {
                    out.line("upgraded the trace from schema \(version) to \(TraceSchema.version)")
                }
                if outcome.recovered > 0 {
                    out.line("wrote \(outcome.recovered) event(s) from the recorder's journal: journaled before their handlers ran, never committed")
                }
                if outcome.finished.isEmpty {
                    out.line(nothingToFinish(alreadyCrashed: alreadyCrashed, sessionCount: sessions.count))
                }
                for session in outcome.finished {
                    out.line("session \(session.id): marked crashed after seq \(session.lastSeq.map(String.init) ?? "-"); indexes built")
                }
            }
        }

        /// What `finish` says when it marked no session crashed: which sessions an earlier `finish` had
        /// marked, and that every other had ended.
        func nothingToFinish(alreadyCrashed: [Int64], sessionCount: Int) -> String {
            let others = alreadyCrashed.count < sessionCount ? "; every other session had ended" : ""
            switch alreadyCrashed.count {
            case 0:
                return "nothing to finish: every session had ended; indexes checked"
            case 1:
                return "nothing to finish: session \(alreadyCrashed[0]) was already marked crashed by an earlier finish"
                    + others + "; indexes checked"
            default:
                return "nothing to finish: sessions \(alreadyCrashed.map(String.init).joined(separator: ", ")) were already "
                    + "marked crashed by an earlier finish" + others + "; indexes checked"
            }
        }
    }
}
