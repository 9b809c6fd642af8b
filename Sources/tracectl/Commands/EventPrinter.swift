import NotifyBus
import TraceStore

// The typed reading of a row's columns, here rather than in `TraceStore` so that it inlines
// into the printer (a call per column across modules was ~2% of printing every event).
extension EventRow {
    /// The event's sequence number (the walk refuses a negative one).
    @inline(__always) var seq: UInt64 { UInt64(bitPattern: int64(.seq)) }
    /// Nanoseconds since the session's clock origin.
    @inline(__always) var time: UInt64 { UInt64(bitPattern: int64(.time)) }
    /// An id column: the stored integer's bit pattern, `nil` for NULL.
    @inline(__always) func id(_ column: EventColumn) -> UInt64? {
        isNull(column) ? nil : UInt64(bitPattern: int64(column))
    }
    /// An interned string column's id, `nil` for NULL.
    @inline(__always) func stringID(_ column: EventColumn) -> Int64? { isNull(column) ? nil : int64(column) }
}

/// A delivery read inside SQLite's walk, as a row: its fields are plain integers, so the printer's
/// reads of them inline.
struct DeliveryRow: EventRow {
    let delivery: Delivery
    var kind: EventKind { delivery.kind }

    @inline(__always) func int64(_ column: EventColumn) -> Int64 {
        switch column {
        case .seq: delivery.seq
        case .time: delivery.time
        case .kind: Int64(delivery.kind.rawValue)
        case .observer: delivery.observer ?? 0
        case .post: delivery.post ?? 0
        default: 0
        }
    }
    @inline(__always) func isNull(_ column: EventColumn) -> Bool {
        switch column {
        case .seq, .time, .kind: false
        case .observer: delivery.observer == nil
        case .post: delivery.post == nil
        default: true
        }
    }
    func bytes(_ column: EventColumn) -> UnsafeBufferPointer<UInt8>? { nil }
}

/// Ids to values: an array indexed by id while the ids stay dense, a dictionary for the rest.
///
/// The bus numbers owners and observers from 1, so the array answers every lookup of a real
/// trace; an id far past those held (a damaged or hostile trace) goes to the dictionary, so
/// memory stays linear in the ids held whatever their values.
struct DenseIDMap<Value> {
    private var dense: [Value?] = []
    private var sparse: [UInt64: Value] = [:]
    private var held = 0
    /// The array never grows past this many slots ahead of the ids it holds.
    static var slack: Int { 4_096 }

    @inline(__always) subscript(id: UInt64) -> Value? {
        if id < UInt64(dense.count) { return dense[Int(id)] }
        return sparse.isEmpty ? nil : sparse[id]
    }

    mutating func set(_ id: UInt64, _ value: Value) {
        if id < UInt64(dense.count) {
            if dense[Int(id)] == nil { held += 1 }
            dense[Int(id)] = value
        } else if id < UInt64(4 * held + Self.slack) {
            if sparse.removeValue(forKey: id) == nil { held += 1 }
            dense.append(contentsOf: repeatElement(nil, count: Int(id) + 1 - dense.count))
            dense[Int(id)] = value
        } else {
            if sparse.updateValue(value, forKey: id) == nil { held += 1 }
        }
    }
}

/// Byte strings rendered once and copied into the output: the trace's interned strings as text
/// and as JSON string literals, the kind column, and the few literals a label falls back to.
///
/// One arena of bytes, read through a pointer: a line copies each name with one `memcpy`.
final class RenderedNames {
    /// A rendered string: where it starts in the arena and how long it is.
    struct Slot { var start: Int32; var count: Int32 }

    let base: UnsafePointer<UInt8>
    private let storage: UnsafeMutableBufferPointer<UInt8>
    /// Each interned string's text and JSON literal, by string id.
    private let byID: DenseIDMap<(text: Slot, json: Slot)>
    /// The kind column of a text line (padded, styled) and the kind's JSON literal, by kind.
    let kindColumn: [Slot]
    let kindJSON: [Slot]
    /// The kind column and `post ` that start a delivery's description, by kind.
    let deliveryHead: [Slot]
    /// `"?"`, the label of an owner registered with neither label nor type.
    let question: (text: Slot, json: Slot)

    // Every field is a `let`, written once here: read on every line, none is checked for exclusivity.
    init(strings: [Int64: String], style: Style) {
        var arena: [UInt8] = []
        func add(_ bytes: [UInt8]) -> Slot {
            let slot = Slot(start: Int32(arena.count), count: Int32(bytes.count))
            arena += bytes
            return slot
        }
        var byID = DenseIDMap<(text: Slot, json: Slot)>()
        for (id, text) in strings where id >= 0 {
            byID.set(UInt64(id), (add(Array(text.utf8)), add(JSONBytes.literal(text))))
        }
        let kinds = EventKind.allCases
        var kindColumn = Array(repeating: Slot(start: 0, count: 0), count: (kinds.map(\.rawValue).max() ?? 0) + 1)
        var kindJSON = kindColumn, deliveryHead = kindColumn
        for kind in kinds {
            kindColumn[kind.rawValue] = add(Array(style.cyan(kind.name.padded(16)).utf8))
            deliveryHead[kind.rawValue] = add(Array((style.cyan(kind.name.padded(16)) + "  post ").utf8))
            kindJSON[kind.rawValue] = add(JSONBytes.literal(kind.name))
        }
        question = (add(Array("?".utf8)), add(JSONBytes.literal("?")))
        storage = .allocate(capacity: max(arena.count, 1))
        _ = storage.initialize(from: arena)
        base = UnsafePointer(storage.baseAddress!)
        (self.byID, self.kindColumn, self.kindJSON, self.deliveryHead) = (byID, kindColumn, kindJSON, deliveryHead)
    }

    deinit { storage.deallocate() }

    /// The interned string `id` (`nil` for NULL or an id the trace never interned), as text and as JSON.
    @inline(__always) func string(_ id: Int64?) -> (text: Slot, json: Slot)? {
        guard let id, id >= 0 else { return nil }
        return byID[UInt64(id)]
    }

    @inline(__always) func bytes(_ slot: Slot) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + Int(slot.start), count: Int(slot.count))
    }
}

/// JSON string literals as bytes, escaped as ``JSON`` escapes them.
enum JSONBytes {
    static func literal(_ text: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
            case UInt8(ascii: "\n"): out += Array("\\n".utf8)
            case UInt8(ascii: "\r"): out += Array("\\r".utf8)
            case UInt8(ascii: "\t"): out += Array("\\t".utf8)
            case ..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
}

/// Writes `tracectl events` lines and JSON objects straight from rows in place (``EventRow``):
/// integers as stored, strings by interned id through names rendered once, owners' labels and
/// observers' messages and owners through arrays by id. No `String` and no allocation per event
/// on the paths most rows take (deliveries and posts).
final class EventPrinter {
    /// An owner as registered: its label's rendered slots.
    private struct Owner { var label: (text: RenderedNames.Slot, json: RenderedNames.Slot) }
    /// An observer as added: its message (`nil` for every message) and owner, and what a delivery
    /// to it prints before the owner's label, rendered when it is added: ` -> observer O MESSAGE owner `
    /// (text) and `,"observer":O,"message":"MESSAGE"` (JSON).
    private struct Observer {
        var message: (text: RenderedNames.Slot, json: RenderedNames.Slot)?
        var owner: UInt64?
        var text: RenderedNames.Slot
        var json: RenderedNames.Slot
    }
    /// The observers' rendered parts.
    @exclusivity(unchecked) private var rendered = ByteArena()

    /// Appends an observer's rendered part to ``rendered``, returning where it lies.
    private func keep(_ bytes: [UInt8]) -> RenderedNames.Slot {
        let start = rendered.count
        bytes.withUnsafeBufferPointer { rendered.append(contentsOf: $0) }
        return RenderedNames.Slot(start: Int32(clamping: start), count: Int32(clamping: bytes.count))
    }

    private let names: RenderedNames
    private let strings: [Int64: String]
    // Read on every delivery by the command's one thread: unchecked (see `Output`).
    @exclusivity(unchecked) private var owners = DenseIDMap<Owner>()
    @exclusivity(unchecked) private var observers = DenseIDMap<Observer>()
    private let out: Output
    private let style: Style
    let format: OutputFormat
    /// Whether an object was written (JSON: the separator before the next).
    @exclusivity(unchecked) private var first = true
    /// Whether any event was written.
    var wroteAny: Bool { !first }
    /// How many more events `--limit` lets the printer write; counted by the caller.
    @exclusivity(unchecked) var remaining = Int.max
    /// The thread that owns the printer and its names: checked in debug builds at each
    /// registration and at the list's ends (`SingleThreadOwnershipTests`, an exit test).
    private let owner = OwningThread()

    init(strings: [Int64: String], format: OutputFormat, style: Style, to out: Output) {
        self.strings = strings
        self.names = RenderedNames(strings: strings, style: style)
        self.format = format
        self.style = style
        self.out = out
    }

    /// Learns an owner or observer from its registration: called for every registration read,
    /// before the events that mention it.
    func learn<R: EventRow>(_ e: R) {
        owner.check("EventPrinter")
        switch e.kind {
        case .ownerRegistered:
            guard let id = e.id(.owner) else { return }
            // As `TraceReader.OwnerInfo`: the label, else the type, else "?".
            let label = names.string(e.stringID(.note)) ?? names.string(e.stringID(.detail)) ?? names.question
            owners.set(id, Owner(label: label))
        case .observerAdded:
            guard let id = e.id(.observer) else { return }
            let message = names.string(e.stringID(.message))
            var text = Array(" -> observer \(id) ".utf8)
            if let message { text += names.bytes(message.text) }
            text += Array(" owner ".utf8)
            var json = Array(",\"observer\":\(Int64(bitPattern: id))".utf8)
            if let message { json += Array(",\"message\":".utf8) + names.bytes(message.json) }
            observers.set(id, Observer(message: message, owner: e.id(.owner), text: keep(text), json: keep(json)))
        default:
            break
        }
    }

    func begin() {
        owner.check("EventPrinter")
        if format == .json { out.append("[") }
    }
    func end() {
        owner.check("EventPrinter")
        if format == .json { out.line(first ? "]" : "\n]") }
    }

    /// Writes one event: a text line, or a JSON object after its separator.
    @inline(__always) func write<R: EventRow>(_ e: R) {
        switch format {
        case .json:
            out.append(first ? "\n" : ",\n")
            writeJSON(e)
        case .text:
            writeText(e)
            out.endLine()
        }
        first = false
    }

    // MARK: Pieces

    @inline(__always) private func put(_ slot: RenderedNames.Slot) { out.append(names.bytes(slot)) }

    /// The interned string in `column` as text, `fallback` when there is none.
    @inline(__always) private func text<R: EventRow>(_ e: R, _ column: EventColumn, else fallback: StaticString) {
        if let string = names.string(e.stringID(column)) { put(string.text) } else { out.append(fallback) }
    }

    /// The interned string in `column`, resolved (rare kinds only).
    private func string<R: EventRow>(_ e: R, _ column: EventColumn) -> String? {
        e.stringID(column).flatMap { strings[$0] }
    }

    /// An owner's label (`#id` when it was never registered), or `none` when there is no owner.
    @inline(__always) private func label(_ owner: UInt64?, none: StaticString) {
        guard let owner else { return out.append(none) }
        if let info = owners[owner] { put(info.label.text) } else { out.append("#"); out.append(owner) }
    }

    /// `,"key":"label"` for an owner, nothing when there is none.
    @inline(__always) private func labelField(_ key: StaticString, _ owner: UInt64?) {
        guard let owner else { return }
        out.append(key)
        if let info = owners[owner] { put(info.label.json) } else { out.append("\"#"); out.append(owner); out.append("\"") }
    }

    /// `,"key":id` (the id's bit pattern, signed), nothing for NULL.
    @inline(__always) private func idField<R: EventRow>(_ key: StaticString, _ e: R, _ column: EventColumn) {
        guard !e.isNull(column) else { return }
        out.append(key)
        out.append(e.int64(column))
    }

    /// `,"key":"string"` for an interned string column, nothing for NULL or an unknown id.
    @inline(__always) private func stringField<R: EventRow>(_ key: StaticString, _ e: R, _ column: EventColumn) {
        guard let string = names.string(e.stringID(column)) else { return }
        out.append(key)
        put(string.json)
    }

    /// `,"key":"text"`, nothing for `nil`.
    private func textField(_ key: StaticString, _ text: String?) {
        guard let text else { return }
        out.append(key)
        out.appendJSONString(text)
    }

    /// The payload's JSON as `RecordedEvent.payload` held it: up to its first NUL byte, and ill-formed
    /// UTF-8 repaired as `String(cString:)` repairs it (a trace written by the recorder has neither).
    private func payload<R: EventRow>(_ e: R) -> UnsafeBufferPointer<UInt8>? {
        guard let bytes = e.bytes(.payload) else { return nil }
        var end = 0
        var ascii = true
        while end < bytes.count, bytes[end] != 0 {
            if bytes[end] >= 0x80 { ascii = false }
            end += 1
        }
        return ascii ? UnsafeBufferPointer(rebasing: bytes[..<end]) : nil
    }

    /// Writes the payload as `out.write(String)` wrote it; `false` when there is none.
    private func writePayload<R: EventRow>(_ e: R) -> Bool {
        if let bytes = payload(e) { out.append(bytes); return true }
        guard let text = payloadString(e) else { return false }
        out.write(text)
        return true
    }

    /// The payload as a `String` (`actionRouted`'s responders).
    private func payloadString<R: EventRow>(_ e: R) -> String? {
        guard let bytes = e.bytes(.payload) else { return nil }
        // As `String(cString:)` read the column: up to its first NUL, invalid UTF-8 repaired.
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
    }

    /// For `actionRouted`: the owner ids of the responders tried, as `RecordedEvent.triedResponders` reads them.
    private func triedResponders<R: EventRow>(_ e: R) -> [UInt64] {
        guard let payload = payloadString(e) else { return [] }
        return payload.split(whereSeparator: { $0 == "[" || $0 == "]" || $0 == "," }).compactMap { UInt64($0) }
    }

    // MARK: JSON

    /// Writes the event as one JSON object: the fields it has, in a fixed order by kind.
    private func writeJSON<R: EventRow>(_ e: R) {
        out.append("{\"seq\":")
        out.append(e.int64(.seq))
        out.append(",\"time\":")
        out.appendJSONSeconds(e.time)
        out.append(",\"kind\":")
        put(names.kindJSON[e.kind.rawValue])
        switch e.kind {
        case .delivered, .skipped, .enqueued:
            writeDeliveryJSON(e)
        case .posted:
            idField(",\"post\":", e, .post); stringField(",\"message\":", e, .message)
            labelField(",\"sender\":", e.id(.sender)); idField(",\"parent\":", e, .parent)
            stringField(",\"origin\":", e, .detail)
            if e.bytes(.payload) != nil { out.append(",\"payload\":"); _ = writePayload(e) }
        case .sessionStarted:
            stringField(",\"name\":", e, .note)
        case .ownerRegistered:
            labelField(",\"owner\":", e.id(.owner)); idField(",\"ownerId\":", e, .owner)
            stringField(",\"ownerType\":", e, .detail)
        case .observerAdded:
            idField(",\"observer\":", e, .observer); stringField(",\"message\":", e, .message)
            labelField(",\"owner\":", e.id(.owner)); idField(",\"ownerId\":", e, .owner)
            labelField(",\"sender\":", e.id(.sender)); stringField(",\"callsite\":", e, .callSite)
            textField(",\"observerKind\":", observerKind(e).rawValue)
            textField(",\"capture\":", string(e, .note).flatMap(BlockCapture.init(rawValue:))?.rawValue)
            stringField(",\"handler\":", e, .handler)
        case .ownerAttached:
            labelField(",\"owner\":", e.id(.owner)); idField(",\"ownerId\":", e, .owner)
            labelField(",\"host\":", e.id(.parent)); idField(",\"hostId\":", e, .parent)
        case .ownerReleased:
            labelField(",\"owner\":", e.id(.owner)); idField(",\"ownerId\":", e, .owner)
            idField(",\"retainedBy\":", e, .observer)
        case .trapped:
            writeDeliveryJSON(e)
            textField(",\"reason\":", string(e, .detail).flatMap(TrapReason.init(rawValue:))?.rawValue)
        case .observerRemoved:
            idField(",\"observer\":", e, .observer); stringField(",\"message\":", e, .message)
            labelField(",\"owner\":", e.id(.owner)); idField(",\"ownerId\":", e, .owner)
            stringField(",\"reason\":", e, .detail)
        case .lifecycle:
            labelField(",\"owner\":", e.id(.owner)); idField(",\"ownerId\":", e, .owner)
            stringField(",\"phase\":", e, .detail); stringField(",\"detail\":", e, .note)
        case .actionRouted:
            stringField(",\"action\":", e, .detail); labelField(",\"sender\":", e.id(.sender))
            out.append(",\"tried\":[")
            for (index, responder) in triedResponders(e).enumerated() {
                if index > 0 { out.append(",") }
                if let info = owners[responder] { put(info.label.json) } else { out.append("\"#"); out.append(responder); out.append("\"") }
            }
            out.append("]")
            labelField(",\"handler\":", e.id(.owner))
        case .bridgeRejected:
            stringField(",\"message\":", e, .message); stringField(",\"reason\":", e, .note)
        case .sessionEnded:
            break
        }
        out.append("}")
    }

    /// `,"post":P,"observer":O,"message":…,"owner":…`, the message and owner the observer was added with.
    @inline(__always) private func writeDeliveryJSON<R: EventRow>(_ e: R) {
        let observer = e.id(.observer)
        let info = observer.flatMap { observers[$0] }
        idField(",\"post\":", e, .post)
        if let info {
            out.append(UnsafeBufferPointer(start: rendered.baseAddress! + Int(info.json.start), count: Int(info.json.count)))
        } else if let observer {
            out.append(",\"observer\":"); out.append(Int64(bitPattern: observer))
        }
        labelField(",\"owner\":", info?.owner)
    }

    /// For `observerAdded`: its kind; version-1 traces, which do not record it, had typed tokens only.
    private func observerKind<R: EventRow>(_ e: R) -> ObserverKind {
        string(e, .detail).flatMap(ObserverKind.init(rawValue:)) ?? .token
    }

    // MARK: Text

    /// Writes the event as one text line, without its line end: sequence number, time, kind, then what happened.
    private func writeText<R: EventRow>(_ e: R) {
        out.append(e.seq, width: 8)
        out.append("  ")
        out.appendSeconds(e.time, width: 10)
        out.append("  ")
        switch e.kind {
        case .delivered, .skipped, .enqueued:
            put(names.deliveryHead[e.kind.rawValue])
            writeDeliveryTail(e)
            return
        default:
            put(names.kindColumn[e.kind.rawValue])
            out.append("  ")
        }
        switch e.kind {
        case .delivered, .skipped, .enqueued:
            writeDelivery(e)
        case .posted:
            out.append("post "); out.append(e.id(.post) ?? 0); out.append(" "); text(e, .message, else: "?")
            out.append(" ("); text(e, .detail, else: "?"); out.append(")")
            if let parent = e.id(.parent) { out.append(" parent "); out.append(parent) }
            if let sender = e.id(.sender) { out.append(" sender "); label(sender, none: "?") }
        case .sessionStarted:
            out.append("session '"); text(e, .note, else: ""); out.append("'")
        case .sessionEnded:
            break
        case .ownerRegistered:
            label(e.id(.owner), none: "?"); out.append(" ("); text(e, .detail, else: "?"); out.append(") as #")
            out.append(e.id(.owner) ?? 0)
        case .observerAdded:
            out.append("observer "); out.append(e.id(.observer) ?? 0); out.append(" "); text(e, .message, else: "every message")
            out.append(" owner "); label(e.id(.owner), none: "-"); out.append(" [")
            out.write(observerKind(e).rawValue)
            if let capture = string(e, .note).flatMap(BlockCapture.init(rawValue:)) { out.append(" "); out.write(capture.rawValue) }
            out.append("]")
            if let sender = e.id(.sender) { out.append(" sender "); label(sender, none: "?") }
            out.append("  ")
            if style.enabled { out.append("\u{1B}[2m") }
            text(e, .callSite, else: "")
            if style.enabled { out.append("\u{1B}[0m") }
        case .ownerAttached:
            label(e.id(.owner), none: "?"); out.append(" attached to "); label(e.id(.parent), none: "?")
        case .ownerReleased:
            label(e.id(.owner), none: "?"); out.append(" released")
            if let retainer = e.id(.observer) { out.append(", kept alive by block observer "); out.append(retainer) }
        case .trapped:
            writeDelivery(e)
            out.append(" would crash (")
            out.write(string(e, .detail).flatMap(TrapReason.init(rawValue:))?.rawValue ?? "?")
            out.append(")")
        case .observerRemoved:
            out.append("observer ")
            if let observer = e.id(.observer) { out.append(observer) } else { out.append("-") }
            out.append(" "); text(e, .message, else: "?"); out.append(" owner "); label(e.id(.owner), none: "-")
            out.append(" ("); text(e, .detail, else: "?"); out.append(")")
        case .lifecycle:
            label(e.id(.owner), none: "?"); out.append(" "); text(e, .detail, else: "?")
            if let note = names.string(e.stringID(.note)) { out.append(" "); put(note.text) }
        case .actionRouted:
            text(e, .detail, else: "?"); out.append(" from "); label(e.id(.sender), none: "?"); out.append(" via ")
            for (index, responder) in triedResponders(e).enumerated() {
                if index > 0 { out.append(" > ") }
                label(responder, none: "?")
            }
            out.append(" -> "); label(e.id(.owner), none: "nobody")
        case .bridgeRejected:
            text(e, .message, else: "?"); out.append(": "); text(e, .note, else: "")
        }
    }

    /// `post P -> observer O MESSAGE owner LABEL`, the observer's message and owner as it was added.
    @inline(__always) private func writeDelivery<R: EventRow>(_ e: R) {
        out.append("post ")
        writeDeliveryTail(e)
    }

    /// A delivery's description after `post `: `P -> observer O MESSAGE owner LABEL`.
    @inline(__always) private func writeDeliveryTail<R: EventRow>(_ e: R) {
        let observer = e.id(.observer)
        out.append(e.id(.post) ?? 0)
        if let observer, let info = observers[observer] {
            out.append(UnsafeBufferPointer(start: rendered.baseAddress! + Int(info.text.start), count: Int(info.text.count)))
            label(info.owner, none: "-")
        } else {
            out.append(" -> observer "); out.append(observer ?? 0); out.append("  owner -")
        }
    }
}
