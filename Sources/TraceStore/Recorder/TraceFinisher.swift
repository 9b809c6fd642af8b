public import Foundation

/// Finishes a trace whose recorder was killed: what `tracectl finish` does.
///
/// A killed recording leaves a valid file in WAL mode holding every committed
/// event, but with no secondary indexes and sessions that never ended, and a journal
/// per session holding the events it had not yet committed. Finishing it writes those
/// events, then, in one transaction, marks each such session crashed (`sessions.crashed_at`,
/// and `last_seq` set to its last committed event), builds the indexes, then folds
/// the WAL back into one self-contained file. No event is changed or removed, none is
/// added but the journaled ones; no `sessionEnded` is invented.
///
/// Run it only once the recorder is gone: a trace still being recorded would be
/// marked crashed while it is not.
///
/// ```swift
/// let outcome = try TraceFinisher.finish(path: "killed.trace")
/// print(outcome.finished)   // the sessions marked crashed
/// ```
public enum TraceFinisher {
    /// What finishing did.
    public struct Outcome: Sendable, Hashable {
        /// A session that had not ended and is now marked crashed.
        public struct Session: Sendable, Hashable {
            public var id: Int64
            /// Its last committed `seq`; `nil` when it holds no event.
            public var lastSeq: UInt64?
        }
        /// The sessions marked crashed, oldest first; empty when every session had ended.
        public var finished: [Session]
        /// The schema version the file had, when finishing upgraded it to the current one.
        public var upgradedFrom: Int?
        /// Events written from the sessions' journals: journaled before their handlers ran, never
        /// committed by the recorder before it died.
        public var recovered = 0
    }

    /// Finishes the trace at `path`.
    ///
    /// - Parameters:
    ///   - path: A trace, normally one left by a killed recorder; a finished trace is left as it is
    ///     (its indexes are built if missing).
    ///   - date: The time written into `crashed_at`.
    /// - Throws: ``TraceStoreError``: `.fileNotFound`, `.notATrace`, `.foreignDatabase`,
    ///   `.unsupportedSchema` (version 1 files, which predate `crashed_at`, are not finished).
    public static func finish(path: String, at date: Date = Date()) throws(TraceStoreError) -> Outcome {
        guard FileManager.default.fileExists(atPath: path) else {
            throw TraceStoreError(.fileNotFound, "\(path): no such file")
        }
        let db = try Database(path: path, mode: .readWrite)
        let version: Int
        do {
            version = try TraceSchema.validate(db)
        } catch {
            throw TraceReader.damaged(path, error)
        }
        guard version >= 2 else {
            throw TraceStoreError(.unsupportedSchema(version),
                                  "\(path): a schema-\(version) trace cannot be finished (schema 2 or later can); its events read as they are")
        }
        var outcome = Outcome(finished: [], upgradedFrom: nil)
        // The sessions' journals, each locked as its recorder locks it: one still held means that
        // recorder is alive, and its session is not crashed. Opened before anything is changed.
        var journals: [JournalRecovery.File] = []
        for candidate in try JournalRecovery.candidates(db) {
            let journal = EventJournal.path(trace: path, session: candidate.id)
            guard access(journal, F_OK) == 0 else { continue }
            do throws(JournalRecovery.Refusal) {
                journals.append(try JournalRecovery.open(journal, session: candidate.id, startedAt: candidate.startedAt,
                                                         exclusive: true))
            } catch .live {
                throw TraceStoreError(.sqlite(.busy), "\(path): session \(candidate.id) is still being recorded (its journal \(journal) is locked by a running process); finish it once that process is gone")
            } catch {
                // Not this session's journal (the file was replaced since): nothing to recover, and left as it is.
                continue
            }
            if candidate.ended { journals[journals.count - 1].events = [] }
        }
        // What the journals hold beyond the file: the events whose handlers ran, or were about to,
        // when the recorder died. Written first, in their own transaction, so that the session's
        // last seq below counts them.
        for journal in journals where !journal.events.isEmpty {
            let missing = try JournalRecovery.missingEvents(journal, db: db)
            // One transaction (the writer's).
            try JournalRecovery.write(missing, session: journal.session, into: db)
            outcome.recovered += missing.count
        }
        // Building an index sorts every event: with SQLite's default 2 MB page cache the sort
        // merges many small runs through temporary files. 64 MB, a bound whatever the trace's
        // length, takes a quarter off finishing a million events (BENCHMARKS.md, "finish").
        try db.execute("PRAGMA cache_size=-65536;")
        try db.transaction { () throws(TraceStoreError) in
            if version < TraceSchema.version {
                try TraceSchema.upgrade(db, from: version)
                outcome.upgradedFrom = version
            }
            let open = try db.prepare("""
                SELECT s.id, (SELECT max(seq) FROM events e WHERE e.session = s.id) FROM sessions s
                WHERE s.ended_at IS NULL AND s.crashed_at IS NULL ORDER BY s.id
                """)
            var unfinished: [(Int64, Int64?)] = []
            while try open.step() { unfinished.append((open.int64(0), open.optionalInt64(1))) }
            let mark = try db.prepare("UPDATE sessions SET crashed_at = ?1, last_seq = ?2 WHERE id = ?3")
            for (session, last) in unfinished {
                try mark.bind([.text(date.traceTimestamp), last.map(SQLValue.integer) ?? .null, .integer(session)])
                try mark.run()
                outcome.finished.append(Outcome.Session(id: session, lastSeq: last.map { UInt64(bitPattern: $0) }))
            }
            try db.execute(TraceSchema.indexes)
        }
        // Everything the journals held is in the file now.
        for journal in journals { journal.remove() }
        // As at a clean close: one self-contained file, unless a reader holds it open.
        do {
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;")
        } catch where error.kind == .sqlite(.busy) || error.kind == .sqlite(.locked) {
        }
        return outcome
    }
}
