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
    let handle: OpaquePointer
    package let kind: EventKind

    @inline(__always) package func int64(_ column: EventColumn) -> Int64 { sqlite3_column_int64(handle, column.rawValue) }
    @inline(__always) package func isNull(_ column: EventColumn) -> Bool {
        sqlite3_column_type(handle, column.rawValue) == SQLITE_NULL
    }
    package func bytes(_ column: EventColumn) -> UnsafeBufferPointer<UInt8>? {
        guard let text = sqlite3_column_text(handle, column.rawValue) else { return nil }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column.rawValue)))
    }
}

/// A delivery (`delivered`, `skipped`, `enqueued`) read inside SQLite's loop from the arguments
/// of `notifybus_walk(...)`: sequence number, time, kind, and the observer and post; every
/// other column reads as NULL, as ``EventCursor`` leaves them for these kinds.
package struct DeliveryEventRow: EventRow {
    let row: WalkRow
    package let kind: EventKind
    /// The arguments the walk passes: the columns up to ``EventColumn/post``.
    static let arguments = Int(EventColumn.post.rawValue) + 1

    @inline(__always) package func int64(_ column: EventColumn) -> Int64 {
        Int(column.rawValue) < Self.arguments ? row.int64(Int(column.rawValue)) : 0
    }
    @inline(__always) package func isNull(_ column: EventColumn) -> Bool {
        Int(column.rawValue) < Self.arguments ? row.optional(Int(column.rawValue)) == nil : true
    }
    package func bytes(_ column: EventColumn) -> UnsafeBufferPointer<UInt8>? { nil }
}
