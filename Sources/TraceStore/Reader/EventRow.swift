internal import CSQLite

/// The columns of an event row, by position: the order of ``TraceReader/eventQuery(session:filter:payloads:condition:)``,
/// ``TraceReader/registrationsAndEventsQuery(session:filter:)`` and the printing walk, whose
/// in-SQLite deliveries take their arguments in the same order.
package enum EventColumn: Int32, Sendable {
    case seq = 0, time, kind, message, owner, observer, post, parent, sender, detail, note, callSite, payload, handler
}

/// One event row read in place, for a caller that prints or folds events without building a
/// ``RecordedEvent`` (a `String` per text column, an allocation per row): integers as stored,
/// interned strings by id, the payload as the bytes SQLite holds. Valid until the walk moves on.
package protocol EventRow {
    /// The event's kind, checked by the walk.
    var kind: EventKind { get }
    /// The column's integer; 0 for NULL.
    func int64(_ column: EventColumn) -> Int64
    /// Whether the column is NULL.
    func isNull(_ column: EventColumn) -> Bool
    /// The column's text as bytes (the payload's JSON), `nil` for NULL; valid until the walk moves on.
    func bytes(_ column: EventColumn) -> UnsafeBufferPointer<UInt8>?
}

/// A row of a statement whose columns are in ``EventColumn`` order.
package struct StatementEventRow: EventRow {
    /// Where a row's payload text is.
    enum Payload {
        /// In the payload column, looked up by the query.
        case inColumn
        /// Found by the walk from the id the column holds (``PayloadLookup``): `nil` for none.
        case found(UnsafeBufferPointer<UInt8>?)
    }

    let handle: OpaquePointer
    package let kind: EventKind
    var payload = Payload.inColumn

    @inline(__always) package func int64(_ column: EventColumn) -> Int64 { sqlite3_column_int64(handle, column.rawValue) }
    @inline(__always) package func isNull(_ column: EventColumn) -> Bool {
        if column == .payload, case .found(let text) = payload { return text == nil }
        return sqlite3_column_type(handle, column.rawValue) == SQLITE_NULL
    }
    package func bytes(_ column: EventColumn) -> UnsafeBufferPointer<UInt8>? {
        if column == .payload, case .found(let text) = payload { return text }
        guard let text = sqlite3_column_text(handle, column.rawValue) else { return nil }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column.rawValue)))
    }
}

/// A delivery (`delivered`, `skipped`, `enqueued`) read inside SQLite's loop from the arguments
/// of `notifybus_walk(...)`: what a delivery line needs, read once into plain fields (a call per
/// column across modules was ~4% of printing every event). Every other column is NULL for these
/// kinds, as ``EventCursor`` leaves them.
package struct Delivery {
    package var seq: Int64
    package var time: Int64
    package var kind: EventKind
    package var observer: Int64?
    package var post: Int64?

    /// The argument that carries each field, in the order the printing walk passes them.
    static let arguments = (seq: 0, time: 1, kind: 2, observer: 3, post: 4)

    init(_ row: WalkRow, kind: EventKind) {
        seq = row.int64(Self.arguments.seq)
        time = row.int64(Self.arguments.time)
        self.kind = kind
        observer = row.optional(Self.arguments.observer)
        post = row.optional(Self.arguments.post)
    }
}
