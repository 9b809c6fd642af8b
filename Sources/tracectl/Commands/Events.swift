import ArgumentParser
import Foundation
import NotifyBus
import TraceStore

/// A `--kind` value.
struct KindArgument: ExpressibleByArgument {
    let kind: EventKind
    init?(argument: String) {
        guard let kind = EventKind(name: argument) else { return nil }
        self.kind = kind
    }
    static var allValueStrings: [String] { EventKind.allCases.map(\.name) }
}

extension TraceCtl {
    struct Events: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the event log, filtered; filters are bound SQL parameters.",
            discussion: """
                Kinds: sessionStarted, ownerRegistered, observerAdded, observerRemoved, posted, delivered, skipped, enqueued,
                lifecycle, actionRouted, bridgeRejected, sessionEnded. --owner takes an owner id or a label
                (a screen name). Output streams: a long log is never built in memory.

                EXAMPLES:
                  tracectl events login.trace --owner Login
                  tracectl events login.trace --kind posted --kind delivered --since 40 --until 80
                  tracectl events login.trace --message keyboardWillShow --format json
                """
        )

        @OptionGroup var options: TraceOptions

        @Option(name: .customLong("kind"), help: "Only events of this kind (repeatable).")
        var kinds: [KindArgument] = []

        @Option(help: "Only events about this message.")
        var message: String?

        @Option(help: "Only events of this owner (id or label).")
        var owner: String?

        @Option(help: "Only events about this observer id.")
        var observer: UInt64?

        @Option(help: "From this sequence number.")
        var since: UInt64?

        @Option(help: "Up to this sequence number.")
        var until: UInt64?

        @Option(help: "At most this many events.")
        var limit: Int?

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
            try checkStoredRange(observer, option: "--observer")
            try checkStoredRange(since, option: "--since")
            try checkStoredRange(until, option: "--until")
            if let since, let until, since > until { throw ValidationError("--since is after --until") }
        }

        func run() throws {
            let reader = try openTrace(options.trace)
            let out = Output()
            let format = options.format
            try reportingErrors {
                let session = try reader.session(options.session)
                let filter = EventFilter(kinds: kinds.isEmpty ? nil : kinds.map(\.kind), message: message, owner: owner,
                                         observer: observer, since: since, until: until, limit: limit)
                var first = true
                if format == .json { out.write("[") }
                func emit(_ event: RecordedEvent, _ describer: EventDescriber) {
                    switch format {
                    case .json:
                        out.write((first ? "\n" : ",\n") + describer.json(event).rendered)
                    case .text:
                        out.line(describer.text(event, style: .current))
                    }
                    first = false
                }
                let narrowed = filter.kinds != nil || filter.message != nil || filter.owner != nil || filter.observer != nil
                if narrowed && reader.hasIndexes {
                    // Index searches: the owners and observers, then the events asked for.
                    let describer = EventDescriber(owners: try reader.owners(session: session.id),
                                                   observers: try reader.observerInfo(session: session.id))
                    try reader.forEachEvent(session: session.id, filter: filter) { event in
                        emit(event, describer)
                        return true
                    }
                } else {
                    // One walk in order, the filter applied by SQLite: the rows it passes come back,
                    // and so does every registration, so owners and observers are learned as they
                    // are registered (always before they are mentioned). A killed trace has no
                    // index to search.
                    var describer = EventDescriber(owners: [:], observers: [:])
                    try reader.forEachEventWithRegistrations(session: session.id, filter: filter) { event, wanted in
                        describer.learn(event)
                        if wanted { emit(event, describer) }
                        return true
                    }
                }
                if format == .json { out.line(first ? "]" : "\n]") }
            }
        }
    }
}

/// Turns events into JSON objects and text lines, with owners' labels.
struct EventDescriber {
    var owners: [UInt64: TraceReader.OwnerInfo]
    var observers: [UInt64: TraceReader.ObserverInfo]

    /// Learns an owner or observer from its registration, for a describer built as it reads.
    mutating func learn(_ event: RecordedEvent) {
        switch event.kind {
        case .ownerRegistered:
            if let id = event.owner { owners[id] = TraceReader.OwnerInfo(event) }
        case .observerAdded:
            if let id = event.observer { observers[id] = TraceReader.ObserverInfo(event) }
        default:
            break
        }
    }

    func label(_ owner: UInt64?) -> String? {
        owner.map { owners[$0]?.label ?? "#\($0)" }
    }

    func json(_ e: RecordedEvent) -> JSON {
        var fields: [(String, JSON)] = [("seq", .from(e.seq)), ("time", .double(Double(e.time) / 1e9)), ("kind", .string(e.kind.name))]
        func add(_ key: String, _ value: JSON) { if case .null = value {} else { fields.append((key, value)) } }
        switch e.kind {
        case .sessionStarted:
            add("name", .from(e.note))
        case .ownerRegistered:
            add("owner", .from(label(e.owner))); add("ownerId", .from(e.owner)); add("ownerType", .from(e.detail))
        case .observerAdded:
            add("observer", .from(e.observer)); add("message", .from(e.message)); add("owner", .from(label(e.owner)))
            add("ownerId", .from(e.owner)); add("sender", .from(label(e.sender))); add("callsite", .from(e.callSite))
            add("observerKind", .from(e.observerKind?.rawValue)); add("capture", .from(e.capture?.rawValue))
            add("handler", .from(e.handler))
        case .ownerAttached:
            add("owner", .from(label(e.owner))); add("ownerId", .from(e.owner)); add("host", .from(label(e.host)))
            add("hostId", .from(e.host))
        case .ownerReleased:
            add("owner", .from(label(e.owner))); add("ownerId", .from(e.owner)); add("retainedBy", .from(e.retainedBy))
        case .trapped:
            let info = e.observer.flatMap { observers[$0] }
            add("post", .from(e.post)); add("observer", .from(e.observer)); add("message", .from(info?.message))
            add("owner", .from(label(info?.owner))); add("reason", .from(e.trapReason?.rawValue))
        case .observerRemoved:
            add("observer", .from(e.observer)); add("message", .from(e.message)); add("owner", .from(label(e.owner)))
            add("ownerId", .from(e.owner)); add("reason", .from(e.detail))
        case .posted:
            add("post", .from(e.post)); add("message", .from(e.message)); add("sender", .from(label(e.sender)))
            add("parent", .from(e.parent)); add("origin", .from(e.detail)); add("payload", e.payload.map(JSON.raw) ?? .null)
        case .delivered, .skipped, .enqueued:
            let info = e.observer.flatMap { observers[$0] }
            add("post", .from(e.post)); add("observer", .from(e.observer)); add("message", .from(info?.message))
            add("owner", .from(label(info?.owner)))
        case .lifecycle:
            add("owner", .from(label(e.owner))); add("ownerId", .from(e.owner)); add("phase", .from(e.detail))
            add("detail", .from(e.note))
        case .actionRouted:
            add("action", .from(e.detail)); add("sender", .from(label(e.sender)))
            add("tried", .array(tried(e).map { .string($0) })); add("handler", .from(label(e.owner)))
        case .bridgeRejected:
            add("message", .from(e.message)); add("reason", .from(e.note))
        case .sessionEnded:
            break
        }
        return .object(fields)
    }

    func text(_ e: RecordedEvent, style: Style) -> String {
        let head = String(e.seq).leftPadded(8) + "  " + seconds(e.time).leftPadded(10) + "  " + style.cyan(e.kind.name.padded(16))
        let body: String
        switch e.kind {
        case .sessionStarted: body = "session '\(e.note ?? "")'"
        case .sessionEnded: body = ""
        case .ownerRegistered: body = "\(label(e.owner) ?? "?") (\(e.detail ?? "?")) as #\(e.owner ?? 0)"
        case .observerAdded:
            let kind = (e.observerKind ?? .token).rawValue + (e.capture.map { " " + $0.rawValue } ?? "")
            body = "observer \(e.observer ?? 0) \(e.message ?? "every message") owner \(label(e.owner) ?? "-") [\(kind)]"
                + (e.sender.map { " sender \(label($0) ?? "?")" } ?? "") + "  " + style.dim(e.callSite ?? "")
        case .ownerAttached:
            body = "\(label(e.owner) ?? "?") attached to \(label(e.host) ?? "?")"
        case .ownerReleased:
            body = "\(label(e.owner) ?? "?") released" + (e.retainedBy.map { ", kept alive by block observer \($0)" } ?? "")
        case .trapped:
            let info = e.observer.flatMap { observers[$0] }
            body = "post \(e.post ?? 0) -> observer \(e.observer ?? 0) \(info?.message ?? "") owner \(label(info?.owner) ?? "-")"
                + " would crash (\(e.trapReason?.rawValue ?? "?"))"
        case .observerRemoved:
            body = "observer \(e.observer.map(String.init) ?? "-") \(e.message ?? "?") owner \(label(e.owner) ?? "-") (\(e.detail ?? "?"))"
        case .posted:
            body = "post \(e.post ?? 0) \(e.message ?? "?") (\(e.detail ?? "?"))" + (e.parent.map { " parent \($0)" } ?? "")
                + (e.sender.map { " sender \(label($0) ?? "?")" } ?? "")
        case .delivered, .skipped, .enqueued:
            let info = e.observer.flatMap { observers[$0] }
            body = "post \(e.post ?? 0) -> observer \(e.observer ?? 0) \(info?.message ?? "") owner \(label(info?.owner) ?? "-")"
        case .lifecycle: body = "\(label(e.owner) ?? "?") \(e.detail ?? "?")" + (e.note.map { " " + $0 } ?? "")
        case .actionRouted:
            body = "\(e.detail ?? "?") from \(label(e.sender) ?? "?") via \(tried(e).joined(separator: " > ")) -> \(label(e.owner) ?? "nobody")"
        case .bridgeRejected: body = "\(e.message ?? "?"): \(e.note ?? "")"
        }
        return head + "  " + body
    }

    private func tried(_ e: RecordedEvent) -> [String] {
        e.triedResponders.map { label($0) ?? "?" }
    }
}
