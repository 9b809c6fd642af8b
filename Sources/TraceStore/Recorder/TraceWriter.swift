internal import CSQLite
import Foundation
import NotifyBus

/// Turns events into rows. Owned by one thread at a time: the recorder's
/// writer thread, then the thread that closes the recorder.
final class TraceWriter {
    let db: Database
    let session: Int64
    private let insert: Statement
    private var strings: [String: Int64] = [:]
    private var payloads: [String: Int64] = [:]
    /// Payload ids of trivially copyable messages by their bytes: such a value is
    /// fully determined by its bytes, so a repeat needs no JSON encoding, which
    /// costs microseconds. Padding can make equal values miss, never collide.
    private var payloadsByBytes: [PayloadBytes: Int64] = [:]

    /// A trivially copyable message's type and bytes, hashed and compared as one block
    /// (hashing them element by element cost more than the rest of the event's write).
    private struct PayloadBytes: Hashable {
        let type: ObjectIdentifier
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            hasher.combine(type)
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }

        static func == (a: PayloadBytes, b: PayloadBytes) -> Bool {
            a.type == b.type && a.bytes.count == b.bytes.count
                && a.bytes.withUnsafeBytes { x in b.bytes.withUnsafeBytes { y in
                    x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
        }
    }
    /// The bytes of the message being written: a key that is found needs no array of its own.
    private var scratch: [UInt8] = []

    /// Interned message names by type: `name`'s default builds a string per call.
    private var messageNames: [ObjectIdentifier: Int64] = [:]
    private let encoder: JSONEncoder
    private let insertString: Statement
    private let selectString: Statement
    private let insertPayload: Statement

    /// Distinct strings and payloads remembered before the caches are cleared,
    /// so that memory stays bounded however long a session runs.
    private static let cacheLimit = 16_384

    /// Whether ``finish(lastSeq:endedAt:)`` builds the secondary indexes.
    private let buildsIndexes: Bool

    /// Whether `sessionStarted` still has the time it was written with, before the bus's first
    /// event: the writer does not hold the bus's clock, so the session's start takes the first
    /// reading it sees (in that event's transaction, so a killed recording keeps it too).
    private var startTimeIsPending = true
    /// The latest clock reading written, the time of `sessionEnded`: a session ends no earlier
    /// than its last event, on the same clock.
    private var lastTime: UInt64 = 0

    /// The session's crash-durable journal, which the event queue writes on the posting thread;
    /// `nil` for a trace that needs none (a replay's own, read once and removed).
    let journal: EventJournal?

    /// Starts a new session in `db`.
    ///
    /// - Parameter journalEvents: The events the recorder holds in memory at most, which sizes the
    ///   journal; `nil` for no journal.
    init(db: Database, info: SessionInfo, buildsIndexes: Bool = true, journalEvents: Int? = 65_536) throws(TraceStoreError) {
        self.db = db
        self.buildsIndexes = buildsIndexes
        // Refuse a file that is not a trace before changing anything in it: journal_mode=WAL rewrites
        // the database header, which must stay byte for byte as it was in someone else's database.
        try TraceSchema.prepare(db)
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-16000;")
        let create = try db.prepare("""
            INSERT INTO sessions(name, app, started_at, tool_version, scenario, selector_semantics)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """)
        let startedAt = info.startedAt.traceTimestamp
        try create.bind([.text(info.name), .text(info.app), .text(startedAt),
                         .text(TraceSchema.toolVersion), info.scenario.map(SQLValue.text) ?? .null,
                         .text(info.selectorSemantics.rawValue)])
        try create.run()
        let session = sqlite3_last_insert_rowid(db.handle)
        self.session = session
        try info.metadata.write(session: session, to: db)
        // Once the session's row is committed: a journal always names a session the trace holds.
        journal = try journalEvents.map { (events) throws(TraceStoreError) in
            try EventJournal(trace: db.path, session: session, startedAt: startedAt, events: events)
        }
        (insert, insertString, selectString, insertPayload) = try Self.statements(db)
        encoder = PayloadCoding.encoder()
        try transaction { () throws(TraceStoreError) in
            try row(seq: 0, time: 0, kind: .sessionStarted, note: try string(info.name))
        }
    }

    /// Writes more events into `session`, which `db` already holds: the events a dead
    /// recorder's journal kept (``JournalRecovery``). No journal, no index.
    init(db: Database, resuming session: Int64) throws(TraceStoreError) {
        self.db = db
        self.session = session
        buildsIndexes = false
        journal = nil
        (insert, insertString, selectString, insertPayload) = try Self.statements(db)
        encoder = PayloadCoding.encoder()
        // The writer sets the start's time from the first batch; a recorder that died before
        // its first batch was committed left it to the recovery.
        startTimeIsPending = try db.scalar("SELECT count(*) FROM events WHERE session = ?1 AND seq > 0", .integer(session)) == 0
        lastTime = UInt64(clamping: try db.scalar("SELECT max(time_ns) FROM events WHERE session = ?1", .integer(session)) ?? 0)
    }

    private static func statements(_ db: Database) throws(TraceStoreError)
        -> (insert: Statement, insertString: Statement, selectString: Statement, insertPayload: Statement) {
        (try db.prepare("""
            INSERT INTO events(session, seq, time_ns, kind, message, owner, observer, post, parent, sender,
                               detail, note, callsite, payload, handler)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
            """),
         try db.prepare("INSERT OR IGNORE INTO strings(value) VALUES (?1)"),
         try db.prepare("SELECT id FROM strings WHERE value = ?1"),
         try db.prepare("INSERT INTO payloads(json) VALUES (?1)"))
    }

    /// Writes one batch in one transaction.
    func write(_ batch: [TraceEvent]) throws(TraceStoreError) {
        try transaction { () throws(TraceStoreError) in
            if startTimeIsPending, let first = batch.first {
                let start = try db.prepare("UPDATE events SET time_ns = ?1 WHERE session = ?2 AND seq = 0")
                try start.bind([.integer(Self.storedTime(first.time)), .integer(session)])
                try start.run()
            }
            for event in batch { try write(event) }
        }
        if !batch.isEmpty { startTimeIsPending = false }
    }

    /// A clock reading as the `time_ns` column holds it: readings past `Int64.max` nanoseconds
    /// (about 292 years), which an SQLite integer cannot hold, are stored as `Int64.max`.
    static func storedTime(_ time: UInt64) -> Int64 { Int64(clamping: time) }

    /// A transaction that, when it rolls back, also forgets the ids interned inside it: the rows they
    /// name are gone, and a later event reusing a cached id would point at nothing, or at another string.
    private func transaction(_ body: () throws(TraceStoreError) -> Void) throws(TraceStoreError) {
        do {
            try db.transaction(body)
        } catch {
            strings.removeAll()
            payloads.removeAll()
            payloadsByBytes.removeAll()
            messageNames.removeAll()
            throw error
        }
    }

    /// Writes the end of the session and the indexes, and leaves a self-contained file.
    func finish(lastSeq: UInt64, endedAt: Date) throws(TraceStoreError) {
        // Building an index sorts every event; with temp_store=MEMORY the sort's spill files are
        // in memory too, about 33 bytes per event at its peak. On disk, the sort's memory is bounded
        // by cache_size whatever the session's length (BENCHMARKS.md, "Recording memory").
        try db.execute("PRAGMA temp_store=FILE;")
        // The end follows the last event recorded; one whose seq could not be stored (see `write`)
        // was lost, and the end follows the last one written instead.
        let endSeq = lastSeq < UInt64(Int64.max) - 1 ? lastSeq + 1
            : UInt64(try db.scalar("SELECT max(seq) FROM events WHERE session = ?1", .integer(session)) ?? 0) + 1
        try transaction { () throws(TraceStoreError) in
            try row(seq: endSeq, time: lastTime, kind: .sessionEnded)
            let end = try db.prepare("UPDATE sessions SET ended_at = ?1, last_seq = ?2 WHERE id = ?3")
            try end.bind([.text(endedAt.traceTimestamp), .integer(Int64(endSeq)), .integer(session)])
            try end.run()
            if buildsIndexes { try db.execute(TraceSchema.indexes) }
        }
        // Every event is in the file and the session has ended: the journal has nothing more to give.
        journal?.remove()
        // A single file is nicer to hand around, but a reader holding the file
        // open keeps it in WAL mode, which is just as valid: best effort.
        do {
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;")
        } catch where error.kind == .sqlite(.busy) || error.kind == .sqlite(.locked) {
            return
        }
    }

    private func write(_ event: TraceEvent) throws(TraceStoreError) {
        let seq = event.seq, time = event.time
        // `seq` is stored as an SQLite integer: past Int64.max it cannot be, and must cost only this event.
        guard seq < UInt64(Int64.max) else {
            throw TraceStoreError(.invalidArgument, "event seq \(seq) is beyond what a trace stores (\(Int64.max - 1))")
        }
        lastTime = max(lastTime, time)
        switch event.kind {
        case .ownerRegistered(let owner, let typeName, let label):
            try row(seq: seq, time: time, kind: .ownerRegistered, owner: owner,
                    detail: try string(typeName), note: try string(label))
        case .observerAdded(let observer, let message, let owner, let sender, let callSite, let kind, let capture,
                            let handler):
            try row(seq: seq, time: time, kind: .observerAdded, message: try message.map(string), owner: owner,
                    observer: observer, sender: sender, detail: try string(kind.rawValue),
                    note: try capture.map { (capture) throws(TraceStoreError) in try string(capture.rawValue) },
                    callsite: try string(callSite.description), handler: try handler.map(string))
        case .observerRemoved(let observer, let message, let owner, let reason, let callSite):
            let site: Int64? = if let callSite { try string(callSite.description) } else { nil }
            try row(seq: seq, time: time, kind: .observerRemoved, message: try message.map(string), owner: owner,
                    observer: observer, detail: try string(reason.rawValue), callsite: site)
        case .ownerAttached(let owner, let host):
            try row(seq: seq, time: time, kind: .ownerAttached, owner: owner, parent: host)
        case .ownerReleased(let owner, let retainedBy):
            try row(seq: seq, time: time, kind: .ownerReleased, owner: owner, observer: retainedBy)
        case .trapped(let post, let observer, let reason):
            try row(seq: seq, time: time, kind: .trapped, observer: observer, post: post, detail: try string(reason.rawValue))
        case .posted(let post, let message, let sender, let parent, let origin):
            let name = type(of: message) == NamedMessage.self ? try string(message.messageName)
                                                               : try messageName(type(of: message))
            try row(seq: seq, time: time, kind: .posted, message: name,
                    post: post, parent: parent, sender: sender, detail: try string(origin.rawValue),
                    payload: try payload(message))
        case .delivered(let post, let observer):
            try row(seq: seq, time: time, kind: .delivered, observer: observer, post: post)
        case .skipped(let post, let observer):
            try row(seq: seq, time: time, kind: .skipped, observer: observer, post: post)
        case .enqueued(let post, let observer):
            try row(seq: seq, time: time, kind: .enqueued, observer: observer, post: post)
        case .lifecycle(let owner, let phase, let detail):
            try row(seq: seq, time: time, kind: .lifecycle, owner: owner, detail: try string(phase.rawValue),
                    note: try detail.map(string))
        case .actionRouted(let action, let sender, let tried, let handler):
            let list = "[" + tried.map(String.init).joined(separator: ",") + "]"
            try row(seq: seq, time: time, kind: .actionRouted, owner: handler, sender: sender,
                    detail: try string(action), payload: try payloadID(list))
        case .bridgeRejected(let name, let reason):
            try row(seq: seq, time: time, kind: .bridgeRejected, message: try string(name), note: try string(reason))
        }
    }

    private func row(seq: UInt64, time: UInt64, kind: EventKind, message: Int64? = nil, owner: UInt64? = nil,
                     observer: UInt64? = nil, post: UInt64? = nil, parent: UInt64? = nil, sender: UInt64? = nil,
                     detail: Int64? = nil, note: Int64? = nil, callsite: Int64? = nil,
                     payload: Int64? = nil, handler: Int64? = nil) throws(TraceStoreError) {
        let s = insert.handle
        sqlite3_bind_int64(s, 1, session)
        sqlite3_bind_int64(s, 2, Int64(seq))
        sqlite3_bind_int64(s, 3, Self.storedTime(time))
        sqlite3_bind_int64(s, 4, Int64(kind.rawValue))
        insert.bind(message, at: 5)
        insert.bind(owner.map { Int64(bitPattern: $0) }, at: 6)
        insert.bind(observer.map { Int64(bitPattern: $0) }, at: 7)
        insert.bind(post.map { Int64(bitPattern: $0) }, at: 8)
        insert.bind(parent.map { Int64(bitPattern: $0) }, at: 9)
        insert.bind(sender.map { Int64(bitPattern: $0) }, at: 10)
        insert.bind(detail, at: 11)
        insert.bind(note, at: 12)
        insert.bind(callsite, at: 13)
        insert.bind(payload, at: 14)
        insert.bind(handler, at: 15)
        let code = sqlite3_step(s)
        sqlite3_reset(s)
        try db.check(code, sql: insert.sql)
    }

    private func messageName(_ type: any BusMessage.Type) throws(TraceStoreError) -> Int64 {
        let key = ObjectIdentifier(type)
        if let id = messageNames[key] { return id }
        let id = try string(type.name)
        messageNames[key] = id
        return id
    }

    private func string(_ value: String) throws(TraceStoreError) -> Int64 {
        if let id = strings[value] { return id }
        if strings.count >= Self.cacheLimit { strings.removeAll(keepingCapacity: true) }
        try insertString.bind([.text(value)])
        try insertString.run()
        try selectString.bind([.text(value)])
        guard try selectString.step() else {
            throw TraceStoreError(.misuse, "interned string vanished", sql: selectString.sql)
        }
        let id = selectString.int64(0)
        sqlite3_reset(selectString.handle)
        strings[value] = id
        return id
    }

    private func payload(_ message: any BusMessage) throws(TraceStoreError) -> Int64 {
        guard let key = bytesKey(message) else { return try encodedPayload(message) }
        if let id = payloadsByBytes[key] { return id }
        if payloadsByBytes.count >= Self.cacheLimit { payloadsByBytes.removeAll(keepingCapacity: true) }
        let id = try encodedPayload(message)
        payloadsByBytes[key] = id
        return id
    }

    /// The key of a trivially copyable message, its bytes copied into ``scratch``, which the key
    /// shares: a key kept in ``payloadsByBytes`` makes the next write copy the buffer, a key found
    /// leaves it to be reused.
    private func bytesKey<M: BusMessage>(_ message: M) -> PayloadBytes? {
        guard _isPOD(M.self), MemoryLayout<M>.size <= 256 else { return nil }
        scratch.removeAll(keepingCapacity: true)
        withUnsafeBytes(of: message) { scratch.append(contentsOf: $0) }
        return PayloadBytes(type: ObjectIdentifier(M.self), bytes: scratch)
    }

    private func encodedPayload(_ message: any BusMessage) throws(TraceStoreError) -> Int64 {
        let json: String
        do {
            // A named message's name is its `message` column; its payload is its userInfo.
            let data = if let named = message as? NamedMessage { try encoder.encode(named.payload) }
                       else { try encoder.encode(message) }
            json = String(decoding: data, as: UTF8.self)
        } catch {
            // Failing the batch would roll back every event in it and stop the recording.
            json = PayloadCoding.unencodable(error)
        }
        return try payloadID(json)
    }

    private func payloadID(_ json: String) throws(TraceStoreError) -> Int64 {
        if let id = payloads[json] { return id }
        if payloads.count >= Self.cacheLimit { payloads.removeAll(keepingCapacity: true) }
        try insertPayload.bind([.text(json)])
        try insertPayload.run()
        let id = sqlite3_last_insert_rowid(db.handle)
        payloads[json] = id
        return id
    }
}
