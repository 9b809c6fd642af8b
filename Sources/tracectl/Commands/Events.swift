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
                if format == .json { out.append("[") }
                let style = Style.current
                let heads = EventDescriber.kindColumns(style: style)
                func emit(_ event: RecordedEvent, _ describer: EventDescriber) {
                    switch format {
                    case .json:
                        out.append(first ? "\n" : ",\n")
                        describer.writeJSON(event, to: out)
                    case .text:
                        describer.writeText(event, style: style, kindColumns: heads, to: out)
                        out.endLine()
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

    /// The kind column of a text line, padded and styled, by kind.
    static func kindColumns(style: Style) -> [[UInt8]] {
        var columns = [[UInt8]](repeating: [], count: (EventKind.allCases.map(\.rawValue).max() ?? 0) + 1)
        for kind in EventKind.allCases { columns[kind.rawValue] = Array(style.cyan(kind.name.padded(16)).utf8) }
        return columns
    }

    /// Writes an owner's label (`#id` when it was never registered), or `none` when there is no owner.
    private func writeLabel(_ owner: UInt64?, none: StaticString, to out: Output) {
        guard let owner else { return out.append(none) }
        if let info = owners[owner] { out.write(info.label) } else { out.append("#"); out.append(owner) }
    }

    /// Writes `,"key":"label"` for an owner, nothing when there is none.
    private func writeLabelField(_ key: StaticString, _ owner: UInt64?, to out: Output) {
        guard let owner else { return }
        out.append(key)
        if let info = owners[owner] {
            out.appendJSONString(info.label)
        } else {
            out.append("\"#"); out.append(owner); out.append("\"")
        }
    }

    /// Writes `,"key":id` (the id's bit pattern, signed), nothing for `nil`.
    @inline(__always) private func writeField(_ key: StaticString, _ id: UInt64?, to out: Output) {
        guard let id else { return }
        out.append(key)
        out.append(Int64(bitPattern: id))
    }

    /// Writes `,"key":"text"`, nothing for `nil`.
    @inline(__always) private func writeField(_ key: StaticString, _ text: String?, to out: Output) {
        guard let text else { return }
        out.append(key)
        out.appendJSONString(text)
    }

    /// Writes the event as one JSON object: the fields it has, in a fixed order by kind.
    func writeJSON(_ e: RecordedEvent, to out: Output) {
        out.append("{\"seq\":")
        out.append(Int64(bitPattern: e.seq))
        out.append(",\"time\":")
        out.write((Double(e.time) / 1e9).description)
        out.append(",\"kind\":")
        out.appendJSONString(e.kind.name)
        switch e.kind {
        case .sessionStarted:
            writeField(",\"name\":", e.note, to: out)
        case .ownerRegistered:
            writeLabelField(",\"owner\":", e.owner, to: out); writeField(",\"ownerId\":", e.owner, to: out)
            writeField(",\"ownerType\":", e.detail, to: out)
        case .observerAdded:
            writeField(",\"observer\":", e.observer, to: out); writeField(",\"message\":", e.message, to: out)
            writeLabelField(",\"owner\":", e.owner, to: out); writeField(",\"ownerId\":", e.owner, to: out)
            writeLabelField(",\"sender\":", e.sender, to: out); writeField(",\"callsite\":", e.callSite, to: out)
            writeField(",\"observerKind\":", e.observerKind?.rawValue, to: out)
            writeField(",\"capture\":", e.capture?.rawValue, to: out)
            writeField(",\"handler\":", e.handler, to: out)
        case .ownerAttached:
            writeLabelField(",\"owner\":", e.owner, to: out); writeField(",\"ownerId\":", e.owner, to: out)
            writeLabelField(",\"host\":", e.host, to: out); writeField(",\"hostId\":", e.host, to: out)
        case .ownerReleased:
            writeLabelField(",\"owner\":", e.owner, to: out); writeField(",\"ownerId\":", e.owner, to: out)
            writeField(",\"retainedBy\":", e.retainedBy, to: out)
        case .trapped:
            let info = e.observer.flatMap { observers[$0] }
            writeField(",\"post\":", e.post, to: out); writeField(",\"observer\":", e.observer, to: out)
            writeField(",\"message\":", info?.message, to: out); writeLabelField(",\"owner\":", info?.owner, to: out)
            writeField(",\"reason\":", e.trapReason?.rawValue, to: out)
        case .observerRemoved:
            writeField(",\"observer\":", e.observer, to: out); writeField(",\"message\":", e.message, to: out)
            writeLabelField(",\"owner\":", e.owner, to: out); writeField(",\"ownerId\":", e.owner, to: out)
            writeField(",\"reason\":", e.detail, to: out)
        case .posted:
            writeField(",\"post\":", e.post, to: out); writeField(",\"message\":", e.message, to: out)
            writeLabelField(",\"sender\":", e.sender, to: out); writeField(",\"parent\":", e.parent, to: out)
            writeField(",\"origin\":", e.detail, to: out)
            if let payload = e.payload { out.append(",\"payload\":"); out.write(payload) }
        case .delivered, .skipped, .enqueued:
            let info = e.observer.flatMap { observers[$0] }
            writeField(",\"post\":", e.post, to: out); writeField(",\"observer\":", e.observer, to: out)
            writeField(",\"message\":", info?.message, to: out); writeLabelField(",\"owner\":", info?.owner, to: out)
        case .lifecycle:
            writeLabelField(",\"owner\":", e.owner, to: out); writeField(",\"ownerId\":", e.owner, to: out)
            writeField(",\"phase\":", e.detail, to: out); writeField(",\"detail\":", e.note, to: out)
        case .actionRouted:
            writeField(",\"action\":", e.detail, to: out); writeLabelField(",\"sender\":", e.sender, to: out)
            out.append(",\"tried\":[")
            for (index, responder) in e.triedResponders.enumerated() {
                if index > 0 { out.append(",") }
                if let info = owners[responder] { out.appendJSONString(info.label) } else { out.append("\"#"); out.append(responder); out.append("\"") }
            }
            out.append("]")
            writeLabelField(",\"handler\":", e.owner, to: out)
        case .bridgeRejected:
            writeField(",\"message\":", e.message, to: out); writeField(",\"reason\":", e.note, to: out)
        case .sessionEnded:
            break
        }
        out.append("}")
    }

    /// Writes the event as one text line, without its line end: sequence number, time, kind, then what happened.
    func writeText(_ e: RecordedEvent, style: Style, kindColumns: [[UInt8]], to out: Output) {
        out.append(e.seq, width: 8)
        out.append("  ")
        out.appendSeconds(e.time, width: 10)
        out.append("  ")
        out.append(kindColumns[e.kind.rawValue])
        out.append("  ")
        switch e.kind {
        case .sessionStarted:
            out.append("session '"); out.write(e.note ?? ""); out.append("'")
        case .sessionEnded:
            break
        case .ownerRegistered:
            writeLabel(e.owner, none: "?", to: out); out.append(" ("); out.write(e.detail ?? "?"); out.append(") as #")
            out.append(e.owner ?? 0)
        case .observerAdded:
            out.append("observer "); out.append(e.observer ?? 0); out.append(" "); out.write(e.message ?? "every message")
            out.append(" owner "); writeLabel(e.owner, none: "-", to: out); out.append(" [")
            out.write((e.observerKind ?? .token).rawValue)
            if let capture = e.capture { out.append(" "); out.write(capture.rawValue) }
            out.append("]")
            if let sender = e.sender { out.append(" sender "); writeLabel(sender, none: "?", to: out) }
            out.append("  ")
            out.write(style.dim(e.callSite ?? ""))
        case .ownerAttached:
            writeLabel(e.owner, none: "?", to: out); out.append(" attached to "); writeLabel(e.host, none: "?", to: out)
        case .ownerReleased:
            writeLabel(e.owner, none: "?", to: out); out.append(" released")
            if let retainer = e.retainedBy { out.append(", kept alive by block observer "); out.append(retainer) }
        case .trapped:
            writeDelivery(e, to: out)
            out.append(" would crash ("); out.write(e.trapReason?.rawValue ?? "?"); out.append(")")
        case .observerRemoved:
            out.append("observer ")
            if let observer = e.observer { out.append(observer) } else { out.append("-") }
            out.append(" "); out.write(e.message ?? "?"); out.append(" owner "); writeLabel(e.owner, none: "-", to: out)
            out.append(" ("); out.write(e.detail ?? "?"); out.append(")")
        case .posted:
            out.append("post "); out.append(e.post ?? 0); out.append(" "); out.write(e.message ?? "?")
            out.append(" ("); out.write(e.detail ?? "?"); out.append(")")
            if let parent = e.parent { out.append(" parent "); out.append(parent) }
            if let sender = e.sender { out.append(" sender "); writeLabel(sender, none: "?", to: out) }
        case .delivered, .skipped, .enqueued:
            writeDelivery(e, to: out)
        case .lifecycle:
            writeLabel(e.owner, none: "?", to: out); out.append(" "); out.write(e.detail ?? "?")
            if let note = e.note { out.append(" "); out.write(note) }
        case .actionRouted:
            out.write(e.detail ?? "?"); out.append(" from "); writeLabel(e.sender, none: "?", to: out); out.append(" via ")
            for (index, responder) in e.triedResponders.enumerated() {
                if index > 0 { out.append(" > ") }
                writeLabel(responder, none: "?", to: out)
            }
            out.append(" -> "); writeLabel(e.owner, none: "nobody", to: out)
        case .bridgeRejected:
            out.write(e.message ?? "?"); out.append(": "); out.write(e.note ?? "")
        }
    }

    /// `post P -> observer O MESSAGE owner LABEL`, the observer's message and owner as it was added.
    private func writeDelivery(_ e: RecordedEvent, to out: Output) {
        let info = e.observer.flatMap { observers[$0] }
        out.append("post "); out.append(e.post ?? 0); out.append(" -> observer "); out.append(e.observer ?? 0)
        out.append(" "); out.write(info?.message ?? ""); out.append(" owner "); writeLabel(info?.owner, none: "-", to: out)
    }
}
