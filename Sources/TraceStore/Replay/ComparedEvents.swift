import NotifyBus
internal import CSQLite

/// Where a comparison reads one side's events from, one at a time, in `seq` order, as rows read
/// in place: integers as stored, strings by id in the side's ``strings``, the payload as bytes.
protocol ComparedEvents {
    associatedtype Failure: Error
    associatedtype Row: ComparedRow
    /// The strings the rows name by id.
    var strings: SideStrings { get }
    /// The next row, valid until the next call; `nil` after the last.
    mutating func next() throws(Failure) -> Row?
}

/// One event of a compared side, read where it lies: what ``Canonicalizer`` reads of an event.
protocol ComparedRow {
    /// The event's kind, checked by the source.
    var kind: EventKind { get }
    /// The column's integer; 0 for NULL. A string column's integer is its id in the side's ``SideStrings``.
    func int64(_ column: EventColumn) -> Int64
    /// Whether the column is NULL.
    func isNull(_ column: EventColumn) -> Bool
    /// Appends the payload's text as ``RecordedEvent/payload`` holds it; nothing for NULL.
    func appendPayload(to out: inout [UInt8])
    /// The payload's text as ``RecordedEvent/payload`` holds it (for the rare kinds that parse it).
    var payloadText: String? { get }
}

extension ComparedRow {
    /// The event's sequence number (the source refuses a negative one).
    @inline(__always) var seq: UInt64 { UInt64(bitPattern: int64(.seq)) }
    /// An id column: the stored integer's bit pattern, `nil` for NULL.
    @inline(__always) func id(_ column: EventColumn) -> UInt64? {
        isNull(column) ? nil : UInt64(bitPattern: int64(column))
    }
    /// A string column's id, `nil` for NULL.
    @inline(__always) func stringID(_ column: EventColumn) -> Int64? { isNull(column) ? nil : int64(column) }
    /// For `actionRouted`: the owner ids of the responders tried, as ``RecordedEvent/triedResponders`` reads them.
    var triedResponders: [UInt64] {
        guard kind == .actionRouted, let payload = payloadText else { return [] }
        return RecordedEvent.responders(in: payload)
    }
}

/// One side's interned strings by id: a trace's `strings` table, or the strings of events held in
/// memory, interned as they come. What a comparison decides on a string (a post's origin, a
/// lifecycle step's phase) is decided once per string.
final class SideStrings {
    /// What a comparison reads of one string.
    struct Facts {
        let text: String
        /// The text's UTF-8, appended to a canonical line without going through `String`.
        let utf8: [UInt8]
        /// Whether the text is the post origin `stimulus`.
        let isStimulusOrigin: Bool
        /// Whether the text is a lifecycle phase of ``Canonicalizer/stimulusPhases``.
        let isStimulusPhase: Bool

        init(_ text: String) {
            self.text = text
            utf8 = Array(text.utf8)
            isStimulusOrigin = PostOrigin(rawValue: text) == .stimulus
            isStimulusPhase = LifecyclePhase(rawValue: text).map(Canonicalizer.stimulusPhases.contains) ?? false
        }
    }

    /// By id: a trace numbers its strings from 1, so this is an array.
    private var facts = IDMap<Facts>()
    /// The ids of strings interned from events in memory.
    private var ids: [String: Int64] = [:]

    /// A trace's strings, by id.
    init(_ texts: [Int64: String] = [:]) {
        for (id, text) in texts { facts[UInt64(bitPattern: id)] = Facts(text) }
    }

    /// What the comparison reads of `id`'s text, `nil` when the table has none.
    @inline(__always) func facts(_ id: Int64) -> Facts? { facts[UInt64(bitPattern: id)] }

    /// The text of `id`, `nil` when the table has none.
    @inline(__always) func text(_ id: Int64) -> String? { facts(id)?.text }

    /// The id of `text`, given on first use.
    func intern(_ text: String) -> Int64 {
        if let id = ids[text] { return id }
        let id = Int64(ids.count)
        facts[UInt64(bitPattern: id)] = Facts(text)
        ids[text] = id
        return id
    }

    /// Whether `id`'s text is the post origin `stimulus`.
    @inline(__always) func isStimulusOrigin(_ id: Int64) -> Bool { facts(id)?.isStimulusOrigin ?? false }
    /// Whether `id`'s text is a lifecycle phase of ``Canonicalizer/stimulusPhases``.
    @inline(__always) func isStimulusPhase(_ id: Int64) -> Bool { facts(id)?.isStimulusPhase ?? false }
}

/// A session of a trace, as a side of a comparison, read in place and pulled one event at a time,
/// so that two sessions are read in step with memory independent of their length.
///
/// Deliveries and posts, nearly all of a large trace, are read inside SQLite's loop by the
/// reader's `notifybus_walk(...)` (``walkQuery(_:session:wholeTable:)``) into a batch of at most
/// ``batchSize`` events (their payloads in the batch's bytes); the statement comes back only with
/// every other event (or one that found the batch full), and the batch is handed out before it.
/// What is handed out, and in what order, is what ``TraceReader/events(session:filter:payloads:)``
/// reads of each kind into a ``RecordedEvent`` (`DiffDifferentialTests`).
final class TraceRows: ComparedEvents {
    /// How many events a batch holds.
    static let batchSize = 512
    /// How many payload bytes a batch holds (past one payload): a post with more comes back as a row.
    static let batchBytes = 1 << 20
    /// This walk's limits (smaller in tests, so that every way back to the caller is taken).
    private let limits: (events: Int, bytes: Int)

    private let reader: TraceReader
    private let statement: Statement
    private let session: Int64
    let strings: SideStrings
    private let batch: WalkBatch
    // Read and written on the reader's thread only, between the walk's calls (no dynamic
    // exclusivity checks: they were ~6% of a comparison).
    /// The next event of the batch to hand out.
    @exclusivity(unchecked) private var index = 0
    /// Whether the statement holds a row not handed out yet (after the batch).
    @exclusivity(unchecked) private var pendingRow = false
    @exclusivity(unchecked) private var done = false

    /// The arguments of `notifybus_walk(...)`: every walked event's first four, a post's all eight.
    enum Argument {
        static let seq = 0, kind = 1, observer = 2, post = 3, message = 4, parent = 5, detail = 6, payload = 7
    }

    /// The walk: one pass of the session's primary key in `seq` order, with the columns of
    /// ``EventColumn`` for the rows that come back. Deliveries, queued deliveries and posts go to
    /// `notifybus_walk(...)` with the columns a comparison reads of them and stay inside SQLite
    /// unless the function keeps them; a post's payload text is found by its id (``PayloadLookup``),
    /// and looked up in the query for the rows that come back.
    ///
    /// - Parameter wholeTable: Whether every event of the file is of `session`
    ///   (``TraceReader/holdsOnly(session:)``): the walk then reads the table
    ///   without comparing each row's session.
    static func walkQuery(_ reader: TraceReader, session: Int64, wholeTable: Bool) -> (sql: String, values: [SQLValue]) {
        let walk = reader.sessionWalk(session, wholeTable: wholeTable)
        let payload = "(SELECT p.json FROM payloads p WHERE p.id = e.payload)"
        // CASE of constants: each branch passes its kind as a literal, so the kind is read once.
        let deliveries = [EventKind.delivered, .skipped, .enqueued].map { kind in
            "WHEN \(kind.rawValue) THEN \(RowWalk.name)(e.seq, \(kind.rawValue), e.observer, e.post)"
        }.joined(separator: " ")
        let posted = EventKind.posted.rawValue
        let sql = """
            SELECT e.seq, e.time_ns, e.kind, e.message, e.owner, e.observer, e.post, e.parent, e.sender, e.detail,
                   e.note, e.callsite, \(payload), \(reader.schemaVersion >= 2 ? "e.handler" : "NULL")
            FROM events e WHERE \(walk.condition)
              AND CASE e.kind \(deliveries)
                  WHEN \(posted) THEN \(RowWalk.name)(e.seq, \(posted), e.observer, e.post, e.message, e.parent, e.detail, e.payload)
                  ELSE 1 END
            ORDER BY \(walk.order)
            """
        return (sql, [.integer(session)])
    }

    /// The events of `session`, every column, payloads included, in one read transaction (ended
    /// when this is released): what it sees of the sessions is what the walk reads.
    init(_ reader: TraceReader, session: Int64, batchSize: Int = TraceRows.batchSize,
         batchBytes: Int = TraceRows.batchBytes) throws(TraceStoreError) {
        limits = (max(1, batchSize), max(0, batchBytes))
        batch = WalkBatch(capacity: limits.events)
        try reader.db.execute("BEGIN")
        let payloads: PayloadLookup
        do {
            let (sql, values) = Self.walkQuery(reader, session: session,
                                               wholeTable: try reader.holdsOnly(session: session))
            statement = try reader.db.prepare(sql)
            try statement.bind(values)
            payloads = try PayloadLookup(reader.db)
        } catch {
            // Ending a read transaction changes nothing: the error that stopped it is the one to report.
            try? reader.db.execute("COMMIT")
            throw error
        }
        self.reader = reader
        self.session = session
        strings = SideStrings(reader.internedStrings)
        let batch = self.batch, path = reader.path, limits = self.limits
        reader.walk.body = { row in
            let seq = row.int64(Argument.seq)
            guard seq >= 0 else {
                // Kept: thrown when the walk reaches it, after the events before it.
                batch.damage = TraceReader.negativeSeq(path, session: session, seq: seq)
                return true
            }
            // The kind is one of the CASE's literals. A queued delivery is not compared.
            let raw = row.int64(Argument.kind)
            if raw == Int64(EventKind.enqueued.rawValue) { return false }
            guard batch.count < limits.events else { return true }
            var event = WalkedEvent(seq: seq, kind: raw == Int64(EventKind.posted.rawValue) ? .posted
                                        : raw == Int64(EventKind.skipped.rawValue) ? .skipped : .delivered)
            event.set(.observer, Self.id(row, Argument.observer))
            event.set(.post, Self.id(row, Argument.post))
            if event.kind == .posted {
                let text: UnsafeBufferPointer<UInt8>?
                do throws(TraceStoreError) {
                    text = try payloads.text(row.argv[Argument.payload])
                } catch {
                    batch.damage = TraceReader.damaged(path, error)
                    return true
                }
                if let text {
                    // Too big for what is left of the batch: comes back as a row, after the batch.
                    guard batch.bytes.isEmpty || batch.bytes.count + text.count <= limits.bytes else { return true }
                    event.payloadStart = batch.bytes.count
                    event.payloadCount = text.count
                    batch.bytes.append(contentsOf: text)
                }
                event.set(.message, Self.id(row, Argument.message))
                event.set(.parent, Self.id(row, Argument.parent))
                event.set(.detail, Self.id(row, Argument.detail))
            }
            batch.append(event)
            return false
        }
    }

    /// The argument at `index`, `nil` for NULL: its type is asked only when its integer is 0,
    /// which NULL reads as (ids are rarely 0; two calls into SQLite per id were ~2% of a comparison).
    @inline(__always) private static func id(_ row: WalkRow, _ index: Int) -> Int64? {
        let value = sqlite3_value_int64(row.argv[index])
        return value == 0 && sqlite3_value_type(row.argv[index]) == SQLITE_NULL ? nil : value
    }

    deinit {
        reader.walk.body = nil
        sqlite3_reset(statement.handle)
        try? reader.db.execute("COMMIT")
    }

    /// The next event; a negative sequence number or an unknown kind is damage, thrown where it
    /// stands in the session, and ends the walk. Valid until the next call.
    func next() throws(TraceStoreError) -> TraceRow? {
        while true {
            if index < batch.count {
                index += 1
                return .walked(batch.event(index - 1), batch.bytes.baseAddress)
            }
            if pendingRow {
                pendingRow = false
                if let damage = batch.damage {
                    done = true
                    throw damage
                }
                do {
                    return .row(try reader.checkedRow(statement, session: session))
                } catch {
                    done = true
                    throw error
                }
            }
            guard !done else { return nil }
            batch.removeAll()
            index = 0
            do {
                pendingRow = try reader.damaged { () throws(TraceStoreError) in try statement.step() }
            } catch {
                done = true
                throw error
            }
            if !pendingRow { done = true }
        }
    }
}

/// A delivery, skip or post read inside the walk: the columns a comparison reads of it, as plain
/// integers with a bit for each that is not NULL (a batch holds hundreds; ``TraceRow`` points at one).
struct WalkedEvent {
    var seq: Int64
    var kind: EventKind
    private var observer: Int64 = 0, post: Int64 = 0, message: Int64 = 0, parent: Int64 = 0, detail: Int64 = 0
    /// The columns above that are not NULL, a bit each (``bit(_:)``).
    private var present: UInt8 = 0
    /// Where the payload's bytes are in the batch's bytes; a count of -1 for NULL.
    var payloadStart = 0, payloadCount = -1

    init(seq: Int64, kind: EventKind) { (self.seq, self.kind) = (seq, kind) }

    @inline(__always) private static func bit(_ column: EventColumn) -> UInt8 {
        switch column {
        case .observer: 1
        case .post: 2
        case .message: 4
        case .parent: 8
        case .detail: 16
        default: 0
        }
    }

    /// Sets a column the walk passes; `nil` for NULL.
    @inline(__always) mutating func set(_ column: EventColumn, _ value: Int64?) {
        guard let value else { return }
        present |= Self.bit(column)
        switch column {
        case .observer: observer = value
        case .post: post = value
        case .message: message = value
        case .parent: parent = value
        case .detail: detail = value
        default: break
        }
    }

    /// The column's integer; 0 for NULL (every column the walk does not pass).
    @inline(__always) func int64(_ column: EventColumn) -> Int64 {
        switch column {
        case .seq: seq
        case .kind: Int64(kind.rawValue)
        case .observer: observer
        case .post: post
        case .message: message
        case .parent: parent
        case .detail: detail
        default: 0
        }
    }

    /// Whether the column is NULL.
    @inline(__always) func isNull(_ column: EventColumn) -> Bool {
        switch column {
        case .seq, .kind: false
        case .payload: payloadCount < 0
        default: present & Self.bit(column) == 0
        }
    }
}

/// The events the walk read ahead of the statement's next row, their payloads' bytes, and damage
/// it found there: at stable addresses until the batch is emptied.
///
/// Written by the walk inside `sqlite3_step` and read by ``TraceRows/next()`` between steps, on
/// one thread, never at once: no dynamic exclusivity checks.
private final class WalkBatch {
    private let events: UnsafeMutablePointer<WalkedEvent>
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) var bytes = ByteArena()
    @exclusivity(unchecked) var damage: TraceStoreError?

    init(capacity: Int) { events = .allocate(capacity: capacity) }

    @inline(__always) func append(_ event: WalkedEvent) {
        (events + count).initialize(to: event)
        count += 1
    }

    @inline(__always) func event(_ index: Int) -> UnsafePointer<WalkedEvent> { UnsafePointer(events + index) }

    func removeAll() {
        // Plain integers: nothing to deinitialize.
        count = 0
        bytes.removeAll()
    }

    deinit { events.deallocate() }
}


/// An event of ``TraceRows``: a row of its statement, or an event its walk read (in the batch,
/// with the batch's bytes, where its payload is).
enum TraceRow: ComparedRow {
    case row(StatementEventRow)
    case walked(UnsafePointer<WalkedEvent>, UnsafeMutablePointer<UInt8>?)

    @inline(__always) var kind: EventKind {
        switch self {
        case .row(let row): row.kind
        case .walked(let event, _): event.pointee.kind
        }
    }

    @inline(__always) func int64(_ column: EventColumn) -> Int64 {
        switch self {
        case .row(let row): row.int64(column)
        case .walked(let event, _): event.pointee.int64(column)
        }
    }

    @inline(__always) func isNull(_ column: EventColumn) -> Bool {
        switch self {
        case .row(let row): row.isNull(column)
        case .walked(let event, _): event.pointee.isNull(column)
        }
    }

    /// The payload's bytes, `nil` for NULL.
    private var payloadBytes: UnsafeBufferPointer<UInt8>? {
        switch self {
        case .row(let row): return row.bytes(.payload)
        case .walked(let event, let base):
            let event = event.pointee
            guard event.payloadCount >= 0 else { return nil }
            return UnsafeBufferPointer(start: base.map { UnsafePointer($0 + event.payloadStart) }, count: event.payloadCount)
        }
    }

    func appendPayload(to out: inout [UInt8]) { PayloadText.append(payloadBytes, to: &out) }

    var payloadText: String? { payloadBytes.map(PayloadText.string) }
}

/// Events held in memory, as a side of a comparison: their strings interned as they come.
struct ArrayEvents: ComparedEvents {
    typealias Failure = Never
    let strings = SideStrings()
    private var iterator: IndexingIterator<[RecordedEvent]>

    init(_ iterator: IndexingIterator<[RecordedEvent]>) { self.iterator = iterator }

    mutating func next() -> RecordedEventRow? {
        iterator.next().map { RecordedEventRow(event: $0, strings: strings) }
    }
}

/// A ``RecordedEvent`` as a row: its strings by their ids in `strings`.
struct RecordedEventRow: ComparedRow {
    let event: RecordedEvent
    let strings: SideStrings

    var kind: EventKind { event.kind }

    private func string(_ column: EventColumn) -> String? {
        switch column {
        case .message: event.message
        case .detail: event.detail
        case .note: event.note
        case .callSite: event.callSite
        case .handler: event.handler
        default: nil
        }
    }

    private func integer(_ column: EventColumn) -> UInt64? {
        switch column {
        case .seq: event.seq
        case .time: event.time
        case .kind: UInt64(event.kind.rawValue)
        case .owner: event.owner
        case .observer: event.observer
        case .post: event.post
        case .parent: event.parent
        case .sender: event.sender
        default: nil
        }
    }

    func int64(_ column: EventColumn) -> Int64 {
        if let text = string(column) { return strings.intern(text) }
        return integer(column).map { Int64(bitPattern: $0) } ?? 0
    }

    func isNull(_ column: EventColumn) -> Bool { column == .payload ? event.payload == nil : string(column) == nil && integer(column) == nil }

    func appendPayload(to out: inout [UInt8]) { if let payload = event.payload { out.append(payload) } }

    var payloadText: String? { event.payload }
}

extension StatementEventRow: ComparedRow {
    func appendPayload(to out: inout [UInt8]) { PayloadText.append(bytes(.payload), to: &out) }

    var payloadText: String? { bytes(.payload).map(PayloadText.string) }
}

/// A payload column's bytes read as ``EventCursor`` reads them into a ``RecordedEvent`` (by
/// length, ``Statement/text(_:)``): every byte, a NUL included, invalid UTF-8 repaired.
enum PayloadText {
    /// Appends the text of `bytes` (nothing for NULL). ASCII, what a recorder writes, is copied as it is.
    static func append(_ bytes: UnsafeBufferPointer<UInt8>?, to out: inout [UInt8]) {
        guard let bytes else { return }
        if isASCII(bytes) {
            out.append(contentsOf: bytes)
        } else {
            out.append(contentsOf: string(bytes).utf8)
        }
    }

    /// The text of `bytes`.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Whether every byte is ASCII: then the bytes are the text's UTF-8.
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        // Eight bytes at a time: no byte with its high bit set.
        let raw = UnsafeRawBufferPointer(bytes)
        while index + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < count {
            if bytes[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }
}
