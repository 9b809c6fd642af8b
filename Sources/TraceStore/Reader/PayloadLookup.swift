internal import CSQLite

/// A post's payload text by the id its row holds, for a walk that reads posts itself: what
/// `(SELECT p.json FROM payloads p WHERE p.id = e.payload)` gives, without opening a cursor on
/// `payloads` for every post (~1 300 instructions each, 8% of printing every event of a large
/// trace). A trace interns payloads, so most posts repeat one: the last text found at each of a
/// few hundred slots is kept (short texts only, so the memory is bounded whatever the trace
/// holds), and a miss runs one prepared lookup.
///
/// Used on the walk's thread, in its read transaction (inside its `sqlite3_step` or between
/// steps): the lookup reads the same snapshot as the walk.
final class PayloadLookup {
    /// How many texts are kept (a power of two: an id's slot is its low bits).
    static let slotCount = 256
    /// The longest text kept; a longer one is looked up each time.
    static let keptBytes = 4096

    private struct Slot {
        var id: Int64 = 0
        var filled = false
        /// `nil`: the id names no payload, or a NULL one.
        var text: UnsafeMutableBufferPointer<UInt8>?
    }

    private let statement: Statement
    // Read and written on the walk's thread only, one call at a time.
    private var slots = [Slot](repeating: Slot(), count: PayloadLookup.slotCount)
    /// The last text found and not kept.
    private var scratch: UnsafeMutableBufferPointer<UInt8> = .allocate(capacity: 0)

    init(_ db: Database) throws(TraceStoreError) {
        statement = try db.prepare("SELECT p.json FROM payloads p WHERE p.id = ?1")
    }

    deinit {
        for slot in slots { slot.text?.deallocate() }
        scratch.deallocate()
    }

    /// The text of the payload that `value` (an `events.payload` read by the walk) names, `nil`
    /// when it names none (or is NULL). Valid until the next call.
    func text(_ value: OpaquePointer?) throws(TraceStoreError) -> UnsafeBufferPointer<UInt8>? {
        switch sqlite3_value_type(value) {
        case SQLITE_NULL:
            return nil
        case SQLITE_INTEGER:
            let id = sqlite3_value_int64(value)
            let index = Int(truncatingIfNeeded: id) & (Self.slotCount - 1)
            if slots[index].filled && slots[index].id == id { return slots[index].text.map(UnsafeBufferPointer.init) }
            return try lookUp(value) { found in
                guard found.map({ $0.count <= Self.keptBytes }) ?? true else { return nil }
                slots[index].text?.deallocate()
                slots[index] = Slot(id: id, filled: true, text: found.map(Self.copy))
                return slots[index].text.map(UnsafeBufferPointer.init)
            }
        default:
            // Not an id as the recorder writes them (a damaged trace): found as SQL compares it.
            return try lookUp(value) { _ in nil }
        }
    }

    /// Runs the lookup; `keep` may keep the text (and return where it is now), else it is copied
    /// to the scratch buffer.
    private func lookUp(_ value: OpaquePointer?,
                        _ keep: (UnsafeBufferPointer<UInt8>?) -> UnsafeBufferPointer<UInt8>?) throws(TraceStoreError) -> UnsafeBufferPointer<UInt8>? {
        sqlite3_reset(statement.handle)
        defer { sqlite3_reset(statement.handle) }
        try statement.database.check(sqlite3_bind_value(statement.handle, 1, value), sql: statement.sql)
        let found: UnsafeBufferPointer<UInt8>?
        if try statement.step(), let text = sqlite3_column_text(statement.handle, 0) {
            found = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement.handle, 0)))
        } else {
            found = nil
        }
        if let kept = keep(found) { return kept }
        guard let found else { return nil }
        if scratch.count < found.count {
            scratch.deallocate()
            scratch = .allocate(capacity: found.count)
        }
        _ = scratch.initialize(from: found)
        return UnsafeBufferPointer(rebasing: scratch[..<found.count])
    }

    private static func copy(_ text: UnsafeBufferPointer<UInt8>) -> UnsafeMutableBufferPointer<UInt8> {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, text.count))
        _ = copy.initialize(from: text)
        return UnsafeMutableBufferPointer(rebasing: copy[..<text.count])
    }
}
