internal import CSQLite
import Foundation
import NotifyBus

/// Gives back what a dead recorder's journal (``EventJournal``) holds beyond SQLite: the events
/// that reached the journal before their handlers ran but never reached a committed transaction.
///
/// `tracectl finish` (``TraceFinisher``) writes them into the trace; a ``TraceReader`` never writes
/// to the trace it reads (another process may be recording into it), and reads a private copy
/// with them added instead. A journal whose recorder is alive (its `flock` is held) is left alone.
package enum JournalRecovery {
    /// The payload a recovered post carries: the journal keeps what a post is, not its payload,
    /// which is encoded off the posting thread.
    static let unrecoveredPayload: JSONValue = [
        "unrecovered": "the recording process ended before this payload was written; the post itself was journaled",
    ]

    /// One journal, open and locked.
    package final class File {
        package let path: String
        package let session: Int64
        /// The events after the `applied` mark, in journal order; after ``JournalRecovery/pending(trace:db:)``,
        /// only those the trace lacks.
        internal(set) var events: [TraceEvent]
        private let descriptor: Int32

        init(path: String, session: Int64, events: [TraceEvent], descriptor: Int32) {
            self.path = path
            self.session = session
            self.events = events
            self.descriptor = descriptor
        }

        deinit { JournalRecovery.release(descriptor) }

        /// Removes the journal: what it held is in the trace.
        package func remove() { unlink(path) }
    }

    /// Unlocks and closes a journal's descriptor. The lock belongs to the open file, which a child
    /// process forked at that moment shares until it execs (`O_CLOEXEC` closes its copy only then):
    /// closing alone would leave the lock held by that copy, and `finish` would find a journal
    /// "still being recorded" by a process that never recorded it. Unlocking releases it for
    /// every copy (`aForkedCopyOfAJournalDoesNotKeepItLocked`).
    static func release(_ descriptor: Int32) {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Why a journal was not read.
    package enum Refusal: Error {
        /// Its recorder holds it: the session is still being recorded.
        case live
        /// Not a journal, another session's (same id, another start), or damaged before its first record.
        case foreign
    }

    /// Opens and reads the journal at `path`, written for `session` started at `startedAt`.
    ///
    /// - Parameter exclusive: Take the lock a recorder takes (`finish`, which then removes the file),
    ///   rather than a shared one (a reader).
    package static func open(_ path: String, session: Int64, startedAt: String?, exclusive: Bool) throws(Refusal) -> File {
        let fd = Glibc.open(path, (exclusive ? O_RDWR : O_RDONLY) | O_CLOEXEC)
        guard fd >= 0 else { throw .foreign }
        guard flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
            close(fd)
            throw .live
        }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) > EventJournal.headerSize,
              let mapped = mmap(nil, Int(info.st_size), PROT_READ, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            release(fd)
            throw .foreign
        }
        defer { munmap(mapped, Int(info.st_size)) }
        let base = UnsafeRawPointer(mapped)
        typealias H = EventJournal.Header
        let capacity = Int(base.load(fromByteOffset: H.capacity, as: UInt64.self))
        let startedLength = Int(base.load(fromByteOffset: H.startedAtLength, as: UInt32.self))
        guard base.load(fromByteOffset: H.magic, as: UInt64.self) == EventJournal.magic,
              base.load(fromByteOffset: H.version, as: UInt32.self) == EventJournal.version,
              Int(base.load(fromByteOffset: H.headerSize, as: UInt32.self)) == EventJournal.headerSize,
              capacity > 0, capacity & (capacity - 1) == 0, EventJournal.headerSize + capacity <= Int(info.st_size),
              base.load(fromByteOffset: H.session, as: Int64.self) == session,
              startedLength <= H.startedAtMax else {
            release(fd)
            throw .foreign
        }
        let recordedStart = String(decoding: UnsafeRawBufferPointer(start: base + H.startedAt, count: startedLength), as: UTF8.self)
        if let startedAt, String(decoding: Array(startedAt.utf8.prefix(H.startedAtMax)), as: UTF8.self) != recordedStart {
            release(fd)
            throw .foreign
        }
        let applied = base.load(fromByteOffset: H.applied, as: UInt64.self)
        let events = records(in: base + EventJournal.headerSize, capacity: capacity, from: applied)
        return File(path: path, session: session, events: events, descriptor: fd)
    }

    /// The records from `start` on, up to the first that is torn, stale (from an earlier lap) or
    /// not yet written: a lap at most.
    static func records(in ring: UnsafeRawPointer, capacity: Int, from start: UInt64) -> [TraceEvent] {
        var events: [TraceEvent] = []
        var position = start
        while position &- start < UInt64(capacity) {
            let offset = Int(truncatingIfNeeded: position) & (capacity - 1)
            let record = ring + offset
            let field = record.load(fromByteOffset: 8, as: UInt32.self)
            let isPad = field & EventJournal.padFlag != 0
            let length = Int(field & ~EventJournal.padFlag)
            guard record.load(as: UInt64.self) == position, length >= EventJournal.recordHeader,
                  length % EventJournal.alignment == 0, offset + length <= capacity,
                  record.load(fromByteOffset: 12, as: UInt32.self)
                    == EventJournal.checksum(record, covering: isPad ? EventJournal.recordHeader : length, field: field)
            else { break }
            if isPad {
                // A pad fills the lap's end: the next record is at the start of the ring.
                guard offset + length == capacity else { break }
            } else {
                guard let event = decode(record, length: length) else { break }
                events.append(event)
            }
            position &+= UInt64(length)
        }
        return events
    }

    /// The event a record (its checksum verified) holds; `nil` when it does not parse.
    static func decode(_ record: UnsafeRawPointer, length: Int) -> TraceEvent? {
        var reader = RecordReader(record: record, length: length)
        guard let seq = reader.word(), let time = reader.word(), let tag = reader.word(),
              let kind = EventKind(rawValue: Int(tag & 0xFF)) else { return nil }
        let code = UInt8(truncatingIfNeeded: tag >> 8)
        reader.presence = tag >> 16
        let decoded: TraceEvent.Kind?
        switch kind {
        case .delivered, .skipped, .enqueued:
            guard let post = reader.word(), let observer = reader.word() else { return nil }
            decoded = kind == .delivered ? .delivered(post: post, observer: observer)
                : kind == .skipped ? .skipped(post: post, observer: observer) : .enqueued(post: post, observer: observer)
        case .posted:
            guard let post = reader.word(), let sender = reader.optionalWord(), let parent = reader.optionalWord(),
                  let name = reader.string(), let origin = EventJournal.origin(code) else { return nil }
            decoded = .posted(post: post, message: NamedMessage(name: name, payload: unrecoveredPayload),
                              sender: sender, parent: parent, origin: origin)
        case .ownerRegistered:
            guard let owner = reader.word(), let type = reader.string(), let label = reader.string() else { return nil }
            decoded = .ownerRegistered(owner: owner, typeName: type, label: label)
        case .observerAdded:
            guard let observer = reader.word(), let owner = reader.optionalWord(), let sender = reader.optionalWord(),
                  let line = reader.word(), let message = reader.optionalString(), let file = reader.string(),
                  let kindName = reader.string(), let observerKind = ObserverKind(rawValue: kindName),
                  let capture = reader.optionalString(), let handler = reader.optionalString() else { return nil }
            decoded = .observerAdded(observer: observer, message: message, owner: owner, sender: sender,
                                     callSite: CallSite(file: file, line: Int(Int64(bitPattern: line))), kind: observerKind,
                                     capture: capture.flatMap(BlockCapture.init(rawValue:)), handler: handler)
        case .observerRemoved:
            guard let observer = reader.optionalWord(), let owner = reader.optionalWord(), let line = reader.optionalWord(),
                  let message = reader.optionalString(), let reasonName = reader.string(),
                  let reason = RemovalReason(rawValue: reasonName), let file = reader.optionalString() else { return nil }
            let site = file.map { CallSite(file: $0, line: Int(Int64(bitPattern: line ?? 0))) }
            decoded = .observerRemoved(observer: observer, message: message, owner: owner, reason: reason, callSite: site)
        case .ownerAttached:
            guard let owner = reader.word(), let host = reader.word() else { return nil }
            decoded = .ownerAttached(owner: owner, host: host)
        case .ownerReleased:
            guard let owner = reader.word(), let retainedBy = reader.optionalWord() else { return nil }
            decoded = .ownerReleased(owner: owner, retainedBy: retainedBy)
        case .trapped:
            guard let post = reader.word(), let observer = reader.word(), let reasonName = reader.string(),
                  let reason = TrapReason(rawValue: reasonName) else { return nil }
            decoded = .trapped(post: post, observer: observer, reason: reason)
        case .lifecycle:
            guard let owner = reader.word(), let phaseName = reader.string(), let phase = LifecyclePhase(rawValue: phaseName),
                  let detail = reader.optionalString() else { return nil }
            decoded = .lifecycle(owner: owner, phase: phase, detail: detail)
        case .actionRouted:
            guard let sender = reader.word(), let handler = reader.optionalWord(), let count = reader.word(),
                  count <= UInt64(length / 8) else { return nil }
            var tried: [UInt64] = []
            for _ in 0..<Int(count) {
                guard let id = reader.word() else { return nil }
                tried.append(id)
            }
            guard let action = reader.string() else { return nil }
            decoded = .actionRouted(action: action, sender: sender, tried: tried, handler: handler)
        case .bridgeRejected:
            guard let name = reader.string(), let reason = reader.string() else { return nil }
            decoded = .bridgeRejected(name: name, reason: reason)
        case .sessionStarted, .sessionEnded:
            decoded = nil
        }
        return decoded.map { TraceEvent(seq: seq, time: time, kind: $0) }
    }

    /// Reads a record's body as ``EventJournal``'s builder wrote it; every read is bounds-checked.
    private struct RecordReader {
        let record: UnsafeRawPointer
        let length: Int
        var offset = EventJournal.recordHeader
        var presence: UInt64 = 0

        init(record: UnsafeRawPointer, length: Int) {
            self.record = record
            self.length = length
        }

        mutating func word() -> UInt64? {
            guard offset + 8 <= length else { return nil }
            defer { offset += 8 }
            return record.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        }

        /// The next optional's presence bit.
        mutating func present() -> Bool {
            defer { presence >>= 1 }
            return presence & 1 != 0
        }

        /// `.some(nil)` for an absent value, `nil` for a record that ends too soon.
        mutating func optionalWord() -> UInt64?? {
            guard present() else { return .some(nil) }
            return word().map { .some($0) }
        }

        mutating func string() -> String? {
            guard offset + 4 <= length else { return nil }
            let count = Int(record.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            guard count <= length - offset - 4 else { return nil }
            defer { offset += 4 + count }
            return String(decoding: UnsafeRawBufferPointer(start: record + offset + 4, count: count), as: UTF8.self)
        }

        mutating func optionalString() -> String?? {
            guard present() else { return .some(nil) }
            return string().map { .some($0) }
        }
    }

    // MARK: Into a trace

    /// A session that may have a journal: its id and `started_at`.
    struct Candidate {
        let id: Int64
        let startedAt: String?
        let ended: Bool
    }

    /// The sessions of `db`, with whether each ended (closed or marked crashed).
    static func candidates(_ db: Database) throws(TraceStoreError) -> [Candidate] {
        let hasCrashed = try db.scalar("SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'crashed_at'") == 1
        let statement = try db.prepare("""
            SELECT id, started_at, ended_at IS NOT NULL\(hasCrashed ? " OR crashed_at IS NOT NULL" : "") FROM sessions ORDER BY id
            """)
        var result: [Candidate] = []
        while try statement.step() {
            result.append(Candidate(id: statement.int64(0), startedAt: statement.text(1), ended: statement.int64(2) != 0))
        }
        return result
    }

    /// The journals of the sessions of the trace `path` (open in `db`) that never ended and whose
    /// recorder is gone, each with only the events SQLite lacks; empty when there is none (the
    /// usual case: one `access` per unended session).
    package static func pending(trace path: String, db: Database) throws(TraceStoreError) -> [File] {
        var result: [File] = []
        for candidate in try candidates(db) where !candidate.ended {
            let journal = EventJournal.path(trace: path, session: candidate.id)
            guard access(journal, F_OK) == 0 else { continue }
            guard let file = try? open(journal, session: candidate.id, startedAt: candidate.startedAt, exclusive: false) else { continue }
            file.events = try missingEvents(file, db: db)
            if !file.events.isEmpty { result.append(file) }
        }
        return result
    }

    /// Of a journal's events, those the trace does not hold (by `seq`).
    static func missingEvents(_ file: File, db: Database) throws(TraceStoreError) -> [TraceEvent] {
        guard !file.events.isEmpty else { return [] }
        let exists = try db.prepare("SELECT 1 FROM events WHERE session = ?1 AND seq = ?2")
        var missing: [TraceEvent] = []
        for event in file.events where event.seq < UInt64(Int64.max) {
            try exists.bind([.integer(file.session), .integer(Int64(event.seq))])
            if try !exists.step() { missing.append(event) }
            sqlite3_reset(exists.handle)
        }
        return missing
    }

    /// Writes `events` into `session` of `db`, in one transaction: what `finish` keeps.
    static func write(_ events: [TraceEvent], session: Int64, into db: Database) throws(TraceStoreError) {
        guard !events.isEmpty else { return }
        let writer = try TraceWriter(db: db, resuming: session)
        try writer.write(events.sorted { $0.seq < $1.seq })
    }

    /// A private, read-only copy of the trace open in `original` with the journals' events added:
    /// what a reader reads when a dead recorder's journal holds events the trace lacks. The copy
    /// is made in the temporary directory and unlinked at once (the connection keeps it open).
    package static func snapshot(of original: Database, adding journals: [File]) throws(TraceStoreError) -> Database {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let copyPath = (directory as NSString).appendingPathComponent(
            "notifybus-recovered-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).trace")
        // Unlinked once the snapshot is open (its connection keeps the file); removed on failure too.
        defer { for suffix in [""] + TraceFiles.sideSuffixes { unlink(copyPath + suffix) } }
        do {
            let copy = try Database(path: copyPath, mode: .create)
            guard let backup = sqlite3_backup_init(copy.handle, "main", original.handle, "main") else {
                throw TraceStoreError(.sqlite(.init(rawValue: sqlite3_errcode(copy.handle))),
                                      "cannot copy the trace to add its journal's events (\(String(cString: sqlite3_errmsg(copy.handle))))")
            }
            let code = sqlite3_backup_step(backup, -1)
            sqlite3_backup_finish(backup)
            try copy.check(code)
            try copy.execute("PRAGMA journal_mode=DELETE")
            for journal in journals { try write(journal.events, session: journal.session, into: copy) }
        }
        let snapshot = try Database(path: copyPath, mode: .readOnly)
        return snapshot
    }
}
