import Foundation
import NotifyBus
import Synchronization

/// The recorder's crash-durable journal: a ring of checksummed records in a memory-mapped
/// file beside the trace (`TRACE-eventlog-SESSION`), written by the posting thread before
/// the handler an event describes runs.
///
/// Stores into a shared file mapping are in the kernel's page cache as soon as they are made,
/// so a record survives the process dying (SIGKILL, a trap), though not the machine losing
/// power: no `msync`, no system call per event. The writer thread moves events into SQLite as
/// before and then advances the header's `applied` mark; whatever lies beyond it when the
/// process dies is what ``JournalRecovery`` gives back to `tracectl finish` and to readers.
/// The format is in docs/TRACE_JOURNAL.md.
///
/// The recorder holds an exclusive `flock` on the file while it records: a reader that cannot
/// take a shared one knows the recording is alive and leaves the journal alone.
final class EventJournal: @unchecked Sendable {
    // @unchecked: the ring, `position`, `scratch` and the name cache are used only by the
    // poster holding the session's lock; `applied` is atomic; the header's
    // `applied` word is written by the writer thread only.

    /// The journal of `session` of the trace at `trace`.
    static func path(trace: String, session: Int64) -> String { trace + suffix + String(session) }
    /// What follows the trace's name in a journal's: `-eventlog-` and the session id.
    static let suffix = "-eventlog-"

    static let magic: UInt64 = 0x3147_4F4C_5645_424E   // "NBEVLOG1", little-endian
    static let version: UInt32 = 1
    static let headerSize = 4096
    /// Header fields, by byte offset.
    enum Header {
        static let magic = 0, version = 8, headerSize = 12, capacity = 16, session = 24, applied = 32
        static let startedAtLength = 40, startedAt = 44, startedAtMax = 64
    }
    /// Every record starts on a multiple of this: a gap at the ring's end always holds a pad record's header.
    static let alignment = 16
    /// The record header: position (8), length (4), checksum (4).
    static let recordHeader = 16
    /// The length field's flag of a pad record, which fills the ring's end when a record does not
    /// fit there: a header alone, its length the rest of the lap.
    static let padFlag: UInt32 = 1 << 31

    let path: String
    private let descriptor: Int32
    private let base: UnsafeMutableRawPointer
    private let ring: UnsafeMutableRawPointer
    /// Bytes in the ring: a power of two.
    let capacity: Int
    private let mask: Int
    /// The logical position (bytes ever written) where the next record goes.
    private var position: UInt64 = 0
    /// The last value of ``applied`` read by the poster.
    private var appliedSeen: UInt64 = 0
    /// Records up to this position are in SQLite.
    private let applied = Atomic<UInt64>(0)
    /// Where a record is built before it is copied into the ring: its length is known only then.
    private var scratch: UnsafeMutableRawPointer
    private var scratchCapacity = 1024
    /// The last typed message's name, and the others seen: `BusMessage.name` builds a string per call.
    private var lastMessageType: ObjectIdentifier?
    private var lastMessageName = ""
    /// Whether the last typed message's type is a struct or an enum: its values' dynamic type is then
    /// the type the existential holds, read without the runtime's dynamic-type lookup.
    private var lastMessageIsValue = false
    private var messageNames: [ObjectIdentifier: String] = [:]
    /// The last typed message's name as a record stores it, in whole words: its length (4 bytes), its
    /// UTF-8 cut to ``longestString``, zeros.
    private var lastNameWords = UnsafeMutablePointer<UInt64>.allocate(capacity: 8)
    private var lastNameCapacity = 8
    private var lastNameWordCount = 0
    private var removed = false

    /// The largest string a record keeps: longer ones are cut (and say so) so that one record
    /// never needs more than an eighth of the ring.
    var longestString: Int { max(64, capacity / 8 / 4) }
    /// The most responder ids an `actionRouted` record keeps (an eighth of the ring), the rest cut
    /// as strings are: a record must fit in the ring, or the poster would wait for room for ever
    /// while holding the session's lock.
    var mostTried: Int { max(8, capacity / 8 / 8) }

    /// Creates the journal of `session`, sized for `events` in flight, and locks it.
    ///
    /// - Parameter startedAt: The session's `started_at`, kept in the header: a journal is
    ///   recovered only into the session it was written for, not into another one with its id.
    init(trace: String, session: Int64, startedAt: String, events: Int) throws(TraceStoreError) {
        path = Self.path(trace: trace, session: session)
        var bytes = 1 << 18
        while bytes < events.multipliedReportingOverflow(by: 64).partialValue && bytes < 1 << 26 { bytes <<= 1 }
        capacity = bytes
        mask = bytes - 1
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw TraceStoreError(.cannotCreate, "\(path): cannot create the trace's journal (\(String(cString: strerror(errno))))")
        }
        let size = Self.headerSize + bytes
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, ftruncate(fd, off_t(size)) == 0 else {
            let reason = String(cString: strerror(errno))
            JournalRecovery.release(fd)
            unlink(path)
            throw TraceStoreError(.cannotCreate, "\(path): cannot prepare the trace's journal (\(reason))")
        }
        guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            let reason = String(cString: strerror(errno))
            JournalRecovery.release(fd)
            unlink(path)
            throw TraceStoreError(.cannotCreate, "\(path): cannot map the trace's journal (\(reason))")
        }
        descriptor = fd
        base = mapped
        ring = mapped + Self.headerSize
        scratch = .allocate(byteCount: scratchCapacity, alignment: 16)
        // Touch every page once now, so that the posting thread takes no page fault on its first lap.
        memset(ring, 0, bytes)
        base.storeBytes(of: 0, toByteOffset: Header.applied, as: UInt64.self)
        base.storeBytes(of: UInt64(bytes), toByteOffset: Header.capacity, as: UInt64.self)
        base.storeBytes(of: session, toByteOffset: Header.session, as: Int64.self)
        base.storeBytes(of: UInt32(Self.headerSize), toByteOffset: Header.headerSize, as: UInt32.self)
        base.storeBytes(of: Self.version, toByteOffset: Header.version, as: UInt32.self)
        let started = Array(startedAt.utf8.prefix(Header.startedAtMax))
        base.storeBytes(of: UInt32(started.count), toByteOffset: Header.startedAtLength, as: UInt32.self)
        started.withUnsafeBytes { (base + Header.startedAt).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        // The magic last: a header without it is not a journal yet.
        base.storeBytes(of: Self.magic, toByteOffset: Header.magic, as: UInt64.self)
    }

    deinit {
        munmap(base, Self.headerSize + capacity)
        JournalRecovery.release(descriptor)
        scratch.deallocate()
        lastNameWords.deallocate()
    }

    /// Removes the file: the session ended and every event is in SQLite.
    func remove() {
        guard !removed else { return }
        removed = true
        unlink(path)
    }

    /// Records up to `end` (a position ``append(_:accepting:)`` returned) are committed to SQLite.
    /// Called by the writer thread, after the commit.
    func markApplied(_ end: UInt64) {
        applied.store(end, ordering: .releasing)
        base.storeBytes(of: end, toByteOffset: Header.applied, as: UInt64.self)
    }

    /// Writes `event`'s record into the ring and returns the position after it; `nil` when the
    /// ring stays full and `accepting` turns false (the writer stopped: the event goes nowhere).
    /// Called with the session's lock held.
    @inline(__always)
    func append(_ event: TraceEvent, accepting: borrowing Atomic<Bool>) -> UInt64? {
        let length = encode(event)
        // A record never straddles the ring's end: the rest of the lap becomes a pad record.
        guard let target = reserve(length, accepting: accepting) else { return nil }
        // The record header's position and length, then the body, then the checksum over all of it.
        scratch.storeBytes(of: position, as: UInt64.self)
        scratch.storeBytes(of: UInt32(length), toByteOffset: 8, as: UInt32.self)
        let sum = Self.checksum(scratch, covering: length, field: UInt32(length))
        scratch.storeBytes(of: sum, toByteOffset: 12, as: UInt32.self)
        target.copyMemory(from: scratch, byteCount: length)
        position &+= UInt64(length)
        return position
    }

    /// Writes the record of a delivery, skip or enqueue straight into the ring, as ``append(_:accepting:)``
    /// would: 64 bytes, its checksum computed from the fields as they are stored.
    @inline(__always)
    func appendDelivery(_ kind: DeliveryEventKind, seq: UInt64, time: UInt64, post: UInt64, observer: UInt64,
                        accepting: borrowing Atomic<Bool>) -> UInt64? {
        let length = 64
        guard let target = reserveWords(length, accepting: accepting) else { return nil }
        let tag: UInt64 = switch kind {
        case .delivered: UInt64(EventKind.delivered.rawValue)
        case .skipped: UInt64(EventKind.skipped.rawValue)
        case .enqueued: UInt64(EventKind.enqueued.rawValue)
        }
        // The checksum of `checksum(_:covering:field:)`, over the words as stored (the last one a zero pad).
        var hash = Self.start(position: position, field: UInt32(length))
        hash = Self.mix(hash, seq)
        hash = Self.mix(hash, time)
        hash = Self.mix(hash, tag)
        hash = Self.mix(hash, post)
        hash = Self.mix(hash, observer)
        hash = Self.mix(hash, 0)
        target[0] = position
        target[1] = Self.lengthWord(UInt32(length), hash: hash)
        target[2] = seq
        target[3] = time
        target[4] = tag
        target[5] = post
        target[6] = observer
        target[7] = 0
        position &+= UInt64(length)
        return position
    }

    /// Writes the record of a post straight into the ring, as ``append(_:accepting:)`` would, word by
    /// word with the checksum computed on the way; the name's words come from a cache kept per type.
    @inline(__always)
    func appendPost(seq: UInt64, time: UInt64, post: UInt64, message: any BusMessage, sender: UInt64?,
                    parent: UInt64?, origin: PostOrigin, accepting: borrowing Atomic<Bool>) -> UInt64? {
        // The same struct or enum as the last post's: its name's words are cached. (A class's instances
        // may be of a subclass, whose name the record carries: for it, the dynamic type.)
        if !lastMessageIsValue || ObjectIdentifier(Self.heldType(of: message)) != lastMessageType {
            let messageType = type(of: message)
            if messageType == NamedMessage.self {
                // Its name is in the value: the general path.
                return append(TraceEvent(seq: seq, time: time, kind: .posted(post: post, message: copy message,
                                                                              sender: sender, parent: parent, origin: origin)),
                              accepting: accepting)
            }
            let key = ObjectIdentifier(messageType)
            if key != lastMessageType { cacheName(of: messageType, key: key) }
        }
        // Header (2 words), seq, time, tag, post, the optionals, the name; an even number of words (16 bytes).
        var tag = UInt64(EventKind.posted.rawValue) | UInt64(Self.code(origin)) << 8
        var words = 6 + lastNameWordCount
        if sender != nil { tag |= 1 << 16; words += 1 }
        if parent != nil { tag |= 1 << 17; words += 1 }
        let padded = words & 1 == 1
        if padded { words += 1 }
        let length = 8 * words
        guard let target = reserveWords(length, accepting: accepting) else { return nil }
        var hash = Self.start(position: position, field: UInt32(length))
        target[0] = position
        target[2] = seq; hash = Self.mix(hash, seq)
        target[3] = time; hash = Self.mix(hash, time)
        target[4] = tag; hash = Self.mix(hash, tag)
        target[5] = post; hash = Self.mix(hash, post)
        var index = 6
        if let sender { target[index] = sender; hash = Self.mix(hash, sender); index += 1 }
        if let parent { target[index] = parent; hash = Self.mix(hash, parent); index += 1 }
        for word in 0..<lastNameWordCount {
            let value = lastNameWords[word]
            target[index] = value
            hash = Self.mix(hash, value)
            index += 1
        }
        if padded { target[index] = 0; hash = Self.mix(hash, 0) }
        target[1] = Self.lengthWord(UInt32(length), hash: hash)
        position &+= UInt64(length)
        return position
    }

    /// The type an existential message holds, opened: for a struct or an enum, its dynamic type.
    @inline(__always)
    private static func heldType<M: BusMessage>(of message: M) -> any BusMessage.Type { M.self }

    /// Makes `messageType`'s name, cut to ``longestString`` as ``RecordBuilder/string(_:)`` cuts it, the last one.
    private func cacheName(of messageType: any BusMessage.Type, key: ObjectIdentifier) {
        let name: String
        if let known = messageNames[key] {
            name = known
        } else {
            name = messageType.name
            if messageNames.count < 4096 { messageNames[key] = name }
        }
        var utf8 = name
        utf8.withUTF8 { bytes in
            var count = bytes.count
            if count > longestString {
                count = longestString
                while count > 0 && bytes[count] & 0xC0 == 0x80 { count -= 1 }
            }
            // As `RecordBuilder.string(_:)` lays it out: the length, the bytes, zeros to the next word.
            let words = (4 + count + 7) / 8
            if words > lastNameCapacity {
                lastNameWords.deallocate()
                lastNameWords = .allocate(capacity: words)
                lastNameCapacity = words
            }
            lastNameWords.update(repeating: 0, count: words)
            let raw = UnsafeMutableRawPointer(lastNameWords)
            raw.storeBytes(of: UInt32(count), as: UInt32.self)
            if count > 0 { (raw + 4).copyMemory(from: bytes.baseAddress!, byteCount: count) }
            lastNameWordCount = words
        }
        lastMessageType = key
        lastMessageName = name
        lastMessageIsValue = !(messageType is AnyObject.Type)
    }

    /// The ring address where `length` bytes go next, after a pad record if they do not fit before the
    /// ring's end; `nil` when the ring stays full and `accepting` turns false.
    @inline(__always)
    private func reserve(_ length: Int, accepting: borrowing Atomic<Bool>) -> UnsafeMutableRawPointer? {
        let offset = Int(truncatingIfNeeded: position) & mask
        let pad = capacity - offset < length ? capacity - offset : 0
        guard waitForRoom(pad + length, accepting: accepting) else { return nil }
        if pad > 0 {
            writePad(at: offset, length: pad)
            position &+= UInt64(pad)
        }
        return ring + (Int(truncatingIfNeeded: position) & mask)
    }

    /// ``reserve(_:accepting:)``, as words: `length` is a multiple of 16, and so is every record's start.
    @inline(__always)
    private func reserveWords(_ length: Int, accepting: borrowing Atomic<Bool>) -> UnsafeMutablePointer<UInt64>? {
        guard let target = reserve(length, accepting: accepting) else { return nil }
        return target.bindMemory(to: UInt64.self, capacity: length / 8)
    }

    static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// ``checksum(_:covering:field:)``'s state after the record's position and length field.
    @inline(__always)
    static func start(position: UInt64, field: UInt32) -> UInt64 {
        (0x243F_6A88_85A3_08D3 ^ UInt64(field) ^ position) &* multiplier
    }

    /// The record header's second word: the length field, then the checksum folded to 32 bits (little-endian).
    @inline(__always)
    static func lengthWord(_ field: UInt32, hash: UInt64) -> UInt64 {
        UInt64(field) | UInt64(UInt32(truncatingIfNeeded: hash ^ (hash >> 32))) << 32
    }

    /// One step of ``checksum(_:covering:field:)`` over a word after the record header.
    @inline(__always)
    static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let hash = (hash ^ word) &* multiplier
        return hash ^ (hash >> 29)
    }

    /// Waits until `bytes` more fit without overwriting a record not yet in SQLite.
    @inline(__always)
    private func waitForRoom(_ bytes: Int, accepting: borrowing Atomic<Bool>) -> Bool {
        if position &+ UInt64(bytes) &- appliedSeen <= UInt64(capacity) { return true }
        while true {
            appliedSeen = applied.load(ordering: .acquiring)
            if position &+ UInt64(bytes) &- appliedSeen <= UInt64(capacity) { return true }
            guard accepting.load(ordering: .relaxed) else { return false }
            // Rare: the ring is sized for more events than the queue holds, so only long strings get here.
            usleep(50)
        }
    }

    private func writePad(at offset: Int, length: Int) {
        let target = ring + offset
        let field = UInt32(length) | Self.padFlag
        target.storeBytes(of: position, as: UInt64.self)
        target.storeBytes(of: field, toByteOffset: 8, as: UInt32.self)
        target.storeBytes(of: Self.checksum(target, covering: Self.recordHeader, field: field), toByteOffset: 12, as: UInt32.self)
    }

    /// The checksum of the `covering` bytes of a record at `record`: its position, its length field
    /// and every 64-bit word after the header, so that a torn or stale record is told apart.
    @inline(__always)
    static func checksum(_ record: UnsafeRawPointer, covering length: Int, field: UInt32) -> UInt32 {
        var hash: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(field)
        hash = (hash ^ record.loadUnaligned(as: UInt64.self)) &* multiplier
        var offset = 16
        while offset + 8 <= length {
            hash = mix(hash, record.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        return UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
    }

    // MARK: Building a record

    /// Builds `event`'s record (all but the header's position, length and checksum) in ``scratch``
    /// and returns its length, a multiple of ``alignment``.
    @inline(__always)
    private func encode(_ event: TraceEvent) -> Int {
        var record = RecordBuilder(self)
        record.word(event.seq)
        record.word(event.time)
        switch event.kind {
        case .delivered(let post, let observer):
            return record.fixed(EventKind.delivered, post, observer)
        case .skipped(let post, let observer):
            return record.fixed(EventKind.skipped, post, observer)
        case .enqueued(let post, let observer):
            return record.fixed(EventKind.enqueued, post, observer)
        case .posted(let post, let message, let sender, let parent, let origin):
            record.tag(.posted, code: Self.code(origin))
            record.word(post)
            record.optional(sender)
            record.optional(parent)
            record.string(name(of: message))
        case .ownerRegistered(let owner, let typeName, let label):
            record.tag(.ownerRegistered)
            record.word(owner)
            record.string(typeName)
            record.string(label)
        case .observerAdded(let observer, let message, let owner, let sender, let callSite, let kind, let capture, let handler):
            record.tag(.observerAdded)
            record.word(observer)
            record.optional(owner)
            record.optional(sender)
            record.word(UInt64(bitPattern: Int64(callSite.line)))
            record.optional(message)
            record.string(callSite.file)
            record.string(kind.rawValue)
            record.optional(capture?.rawValue)
            record.optional(handler)
        case .observerRemoved(let observer, let message, let owner, let reason, let callSite):
            record.tag(.observerRemoved)
            record.optional(observer)
            record.optional(owner)
            record.optional(callSite.map { UInt64(bitPattern: Int64($0.line)) })
            record.optional(message)
            record.string(reason.rawValue)
            record.optional(callSite?.file)
        case .ownerAttached(let owner, let host):
            record.tag(.ownerAttached)
            record.word(owner)
            record.word(host)
        case .ownerReleased(let owner, let retainedBy):
            record.tag(.ownerReleased)
            record.word(owner)
            record.optional(retainedBy)
        case .trapped(let post, let observer, let reason):
            record.tag(.trapped)
            record.word(post)
            record.word(observer)
            record.string(reason.rawValue)
        case .lifecycle(let owner, let phase, let detail):
            record.tag(.lifecycle)
            record.word(owner)
            record.string(phase.rawValue)
            record.optional(detail)
        case .actionRouted(let action, let sender, let tried, let handler):
            record.tag(.actionRouted)
            record.word(sender)
            record.optional(handler)
            let kept = tried.prefix(mostTried)
            record.word(UInt64(kept.count))
            record.reserve(8 * kept.count)
            for id in kept { record.word(id) }
            record.string(action)
        case .bridgeRejected(let name, let reason):
            record.tag(.bridgeRejected)
            record.string(name)
            record.string(reason)
        }
        return record.finish()
    }

    /// The name a post is recorded under, as ``TraceWriter`` writes it.
    @inline(__always)
    private func name(of message: any BusMessage) -> String {
        let messageType = type(of: message)
        if messageType == NamedMessage.self { return message.messageName }
        let key = ObjectIdentifier(messageType)
        if key != lastMessageType { cacheName(of: messageType, key: key) }
        return lastMessageName
    }

    static func code(_ origin: PostOrigin) -> UInt8 {
        switch origin {
        case .stimulus: 0
        case .app: 1
        case .reaction: 2
        }
    }

    static func origin(_ code: UInt8) -> PostOrigin? {
        switch code {
        case 0: .stimulus
        case 1: .app
        case 2: .reaction
        default: nil
        }
    }

    /// Makes room for `bytes` more in ``scratch``.
    fileprivate func growScratch(to bytes: Int) {
        var size = scratchCapacity
        while size < bytes { size <<= 1 }
        let larger = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        larger.copyMemory(from: scratch, byteCount: scratchCapacity)
        scratch.deallocate()
        scratch = larger
        scratchCapacity = size
    }

    /// Writes one record's body into the journal's scratch buffer.
    ///
    /// Body layout, after the 16-byte header: seq, time, a tag word (kind in bits 0–7, a small code
    /// in bits 8–15, which optional fields are present from bit 16 on), the integers, then the strings,
    /// each a 32-bit byte count and its UTF-8 bytes. An absent optional takes no space.
    fileprivate struct RecordBuilder {
        let journal: EventJournal
        var offset = EventJournal.recordHeader
        var tagOffset = 0
        var tagWord: UInt64 = 0
        var optionalBit: UInt64 = 1 << 16

        init(_ journal: EventJournal) { self.journal = journal }

        /// Room for `bytes` more beyond what ``string(_:)`` and the fixed fields take (those fit the initial buffer).
        mutating func reserve(_ bytes: Int) {
            if offset + bytes + 64 > journal.scratchCapacity { journal.growScratch(to: offset + bytes + 64) }
        }

        @inline(__always) mutating func word(_ value: UInt64) {
            journal.scratch.storeBytes(of: value, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }

        /// The fast path of the most frequent events: kind, post and observer, nothing optional.
        @inline(__always) mutating func fixed(_ kind: EventKind, _ post: UInt64, _ observer: UInt64) -> Int {
            word(UInt64(kind.rawValue))
            word(post)
            word(observer)
            // 16 + 5 words = 56: one zero pad word to 64, as `appendDelivery` writes it.
            word(0)
            return 64
        }

        @inline(__always) mutating func tag(_ kind: EventKind, code: UInt8 = 0) {
            tagOffset = offset
            tagWord = UInt64(kind.rawValue) | UInt64(code) << 8
            word(0)
        }

        @inline(__always) mutating func presence(_ present: Bool) {
            if present { tagWord |= optionalBit }
            optionalBit <<= 1
        }

        @inline(__always) mutating func optional(_ value: UInt64?) {
            presence(value != nil)
            if let value { word(value) }
        }

        @inline(__always) mutating func optional(_ value: String?) {
            presence(value != nil)
            if let value { string(value) }
        }

        @inline(__always) mutating func string(_ value: String) {
            var value = value
            value.withUTF8 { bytes in
                var count = bytes.count
                let longest = journal.longestString
                if count > longest {
                    // Cut on a scalar boundary, where no continuation byte starts.
                    count = longest
                    while count > 0 && bytes[count] & 0xC0 == 0x80 { count -= 1 }
                }
                if offset + 4 + count + 32 > journal.scratchCapacity { journal.growScratch(to: offset + 4 + count + 32) }
                journal.scratch.storeBytes(of: UInt32(count), toByteOffset: offset, as: UInt32.self)
                if count > 0 { (journal.scratch + offset + 4).copyMemory(from: bytes.baseAddress!, byteCount: count) }
                offset += 4 + count
            }
        }

        @inline(__always) mutating func finish() -> Int {
            journal.scratch.storeBytes(of: tagWord, toByteOffset: tagOffset, as: UInt64.self)
            let length = (offset + EventJournal.alignment - 1) & ~(EventJournal.alignment - 1)
            // Padding to the alignment is zeroed: the checksum reads it.
            if length > offset { memset(journal.scratch + offset, 0, length - offset) }
            return length
        }
    }
}
