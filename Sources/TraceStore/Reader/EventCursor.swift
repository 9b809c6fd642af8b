internal import CSQLite

/// Walks the rows of an event query one at a time, resolving interned strings.
///
/// Holds one row in memory; two cursors can be walked side by side (a streaming
/// comparison). Not `Sendable`: it belongs to its reader's thread.
package final class EventCursor {
    private let statement: Statement
    private let session: Int64
    private let strings: [Int64: String]
    private let path: String
    private var done = false

    init(statement: Statement, session: Int64, strings: [Int64: String], path: String) {
        self.statement = statement
        self.session = session
        self.strings = strings
        self.path = path
    }

    /// The next event, or `nil` after the last.
    package func next() throws(TraceStoreError) -> RecordedEvent? {
        guard !done else { return nil }
        do {
            guard try statement.step() else {
                done = true
                return nil
            }
        } catch {
            done = true
            throw TraceReader.damaged(path, error)
        }
        return try event()
    }

    /// Reads the current row. Deliveries and posts, nearly all of a large trace, read
    /// only the columns their kind uses; every other kind reads them all.
    ///
    /// A negative sequence number or an unknown kind is damage: reported, never read as something else.
    private func event() throws(TraceStoreError) -> RecordedEvent {
        let s = statement.handle
        @inline(__always) func id(_ column: Int32) -> UInt64? {
            sqlite3_column_type(s, column) == SQLITE_NULL ? nil : UInt64(bitPattern: sqlite3_column_int64(s, column))
        }
        @inline(__always) func string(_ column: Int32) -> String? {
            sqlite3_column_type(s, column) == SQLITE_NULL ? nil : strings[sqlite3_column_int64(s, column)]
        }
        let signedSeq = sqlite3_column_int64(s, 0)
        guard signedSeq >= 0 else {
            done = true
            throw TraceReader.negativeSeq(path, session: session, seq: signedSeq)
        }
        let seq = UInt64(signedSeq)
        let time = UInt64(bitPattern: sqlite3_column_int64(s, 1))
        let raw = sqlite3_column_int64(s, 2)
        guard let kind = EventKind(rawValue: Int(truncatingIfNeeded: raw)) else {
            done = true
            throw TraceStoreError(.notATrace, "\(path): trace is damaged: unknown event kind \(raw) at seq \(seq) of session \(session)")
        }
        switch kind {
        case .delivered, .skipped:
            return RecordedEvent(session: session, seq: seq, time: time, kind: kind, observer: id(5), post: id(6))
        case .posted:
            return RecordedEvent(session: session, seq: seq, time: time, kind: kind, message: string(3), post: id(6),
                                 parent: id(7), sender: id(8), detail: string(9), payload: statement.text(12))
        default:
            return RecordedEvent(
                session: session, seq: seq, time: time, kind: kind, message: string(3), owner: id(4), observer: id(5),
                post: id(6), parent: id(7), sender: id(8), detail: string(9), note: string(10), callSite: string(11),
                payload: statement.text(12), handler: string(13))
        }
    }
}
