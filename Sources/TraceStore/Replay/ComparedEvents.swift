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
/// Deliveries, nearly all of a large trace, are read inside SQLite's loop by the reader's
/// `notifybus_walk(...)` (``TraceReader/printingWalkQuery(session:filter:wholeTable:)``) into a
/// batch of at most ``batchSize``; the statement comes back only with every other event (or a
/// delivery that found the batch full), and the batch is handed out before it. What is handed out,
/// and in what order, is what ``TraceReader/events(session:filter:payloads:)`` reads.
final class TraceRows: ComparedEvents {
    /// How many deliveries a batch holds.
    static let batchSize = 512

    private let reader: TraceReader
    private let statement: Statement
    private let session: Int64
    let strings: SideStrings
    private let batch = DeliveryBatch()
    // Read and written on the reader's thread only, between the walk's calls (no dynamic
    // exclusivity checks: they were ~6% of a comparison).
    /// The next delivery of the batch to hand out.
    @exclusivity(unchecked) private var index = 0
    /// Whether the statement holds a row not handed out yet (after the batch).
    @exclusivity(unchecked) private var pendingRow = false
    @exclusivity(unchecked) private var done = false

    /// The events of `session`, every column, payloads included, in one read transaction (ended
    /// when this is released): what it sees of the sessions is what the walk reads.
    init(_ reader: TraceReader, session: Int64) throws(TraceStoreError) {
        try reader.db.execute("BEGIN")
        do {
            let (sql, values) = reader.printingWalkQuery(session: session, filter: EventFilter(),
                                                         wholeTable: try reader.printingWalkCoversTheTable(session: session))
            statement = try reader.db.prepare(sql)
            try statement.bind(values)
        } catch {
            // Ending a read transaction changes nothing: the error that stopped it is the one to report.
            try? reader.db.execute("COMMIT")
            throw error
        }
        self.reader = reader
        self.session = session
        strings = SideStrings(reader.internedStrings)
        let batch = self.batch, path = reader.path
        reader.walk.body = { row in
            let seq = row.int64(Delivery.arguments.seq)
            guard seq >= 0 else {
                // Kept: thrown when the walk reaches it, after the deliveries before it.
                batch.damage = TraceReader.negativeSeq(path, session: session, seq: seq)
                return true
            }
            // The kind is one of the CASE's literals. A queued delivery is not compared.
            let kind = EventKind(rawValue: Int(row.int64(Delivery.arguments.kind))) ?? .delivered
            if kind == .enqueued { return false }
            guard batch.deliveries.count < Self.batchSize else { return true }
            batch.deliveries.append(Delivery(row, kind: kind))
            return false
        }
    }

    deinit {
        reader.walk.body = nil
        sqlite3_reset(statement.handle)
        try? reader.db.execute("COMMIT")
    }

    /// The next event; a negative sequence number or an unknown kind is damage, thrown where it
    /// stands in the session, and ends the walk.
    func next() throws(TraceStoreError) -> TraceRow? {
        while true {
            if index < batch.deliveries.count {
                index += 1
                return .delivery(batch.deliveries[index - 1])
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
            batch.deliveries.removeAll(keepingCapacity: true)
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

/// The deliveries the walk read ahead of the statement's next row, and damage it found there.
///
/// Written by the walk inside `sqlite3_step` and read by ``TraceRows/next()`` between steps, on
/// one thread, never at once: no dynamic exclusivity checks.
private final class DeliveryBatch {
    @exclusivity(unchecked) var deliveries: [Delivery] = []
    @exclusivity(unchecked) var damage: TraceStoreError?

    init() { deliveries.reserveCapacity(TraceRows.batchSize) }
}

/// An event of ``TraceRows``: a row of its statement, or a delivery its walk read.
enum TraceRow: ComparedRow {
    case row(StatementEventRow)
    case delivery(Delivery)

    @inline(__always) var kind: EventKind {
        switch self {
        case .row(let row): row.kind
        case .delivery(let delivery): delivery.kind
        }
    }

    @inline(__always) func int64(_ column: EventColumn) -> Int64 {
        switch self {
        case .row(let row): row.int64(column)
        case .delivery(let delivery):
            switch column {
            case .seq: delivery.seq
            case .time: delivery.time
            case .kind: Int64(delivery.kind.rawValue)
            case .observer: delivery.observer ?? 0
            case .post: delivery.post ?? 0
            default: 0
            }
        }
    }

    @inline(__always) func isNull(_ column: EventColumn) -> Bool {
        switch self {
        case .row(let row): row.isNull(column)
        case .delivery(let delivery):
            // Every other column is NULL for a delivery, as the cursor leaves it.
            switch column {
            case .seq, .time, .kind: false
            case .observer: delivery.observer == nil
            case .post: delivery.post == nil
            default: true
            }
        }
    }

    func appendPayload(to out: inout [UInt8]) {
        if case .row(let row) = self { row.appendPayload(to: &out) }
    }

    var payloadText: String? {
        if case .row(let row) = self { return row.payloadText }
        return nil
    }
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
    /// Appends the payload as `String(cString:)` reads the column into a ``RecordedEvent``: up to its
    /// first NUL, invalid UTF-8 repaired. ASCII without a NUL, what a recorder writes, is copied as it is.
    func appendPayload(to out: inout [UInt8]) {
        guard let bytes = bytes(.payload) else { return }
        if Self.isPlainASCII(bytes) {
            out.append(contentsOf: bytes)
        } else if let text = payloadText {
            out.append(text)
        }
    }

    var payloadText: String? {
        guard let bytes = bytes(.payload) else { return nil }
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
    }

    /// Whether every byte is ASCII and none is NUL: then the bytes are the text's UTF-8.
    private static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        // Eight bytes at a time: no byte with its high bit set, and none zero.
        let raw = UnsafeRawBufferPointer(bytes)
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let high: UInt64 = 0x8080_8080_8080_8080, low: UInt64 = 0x0101_0101_0101_0101
            if word & high != 0 || (word &- low) & ~word & high != 0 { return false }
            index += 8
        }
        while index < count {
            if bytes[index] == 0 || bytes[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }
}
