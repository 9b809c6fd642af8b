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
                --kind takes any kind listed under OPTIONS, and may be repeated. --owner takes an owner id or a \
                label (a screen name). Output streams: a long log is never built in memory.

                EXAMPLES:
                  tracectl events login.trace --owner Login
                  tracectl events login.trace --kind posted --kind delivered --since 40
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

        @OptionGroup var window: SeqWindowOptions

        @Option(help: "At most this many events.")
        var limit: Int?

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
            try checkStoredRange(observer, option: "--observer")
        }

        func run() throws {
            let reader = try openTrace(options.trace)
            let out = Output()
            // Written out here, in the command, not when `out` is released: a failed write exits from here.
            defer { out.flush() }
            try reportingErrors {
                let session = try reader.session(options.session)
                let filter = EventFilter(kinds: kinds.isEmpty ? nil : kinds.map(\.kind), message: message, owner: owner,
                                         observer: observer, since: window.since, until: window.until, limit: limit)
                let printer = EventPrinter(strings: reader.internedStrings, format: options.format, style: .current, to: out)
                printer.begin()
                let narrowed = filter.kinds != nil || filter.message != nil || filter.owner != nil || filter.observer != nil
                if narrowed && reader.hasIndexes {
                    // Index searches: the owners and observers, then the events asked for.
                    for kind in TraceReader.registrationKinds {
                        try reader.forEachEventRow(session: session.id, filter: EventFilter(kinds: [kind])) { row in
                            printer.learn(row)
                            return true
                        }
                    }
                    try reader.forEachEventRow(session: session.id, filter: filter) { row in
                        printer.write(row)
                        return true
                    }
                } else if narrowed {
                    // One walk in order, the filter applied by SQLite: the rows it passes come back,
                    // and so does every registration, so owners and observers are learned as they
                    // are registered (always before they are mentioned). A killed trace has no
                    // index to search.
                    try reader.forEachEventRowWithRegistrations(session: session.id, filter: filter) { row, wanted in
                        printer.learn(row)
                        if wanted { printer.write(row) }
                        return true
                    }
                } else {
                    // Every event (of a seq range): one walk in order. Deliveries, most of a large
                    // trace, are printed inside SQLite's loop; registrations come back with the other
                    // rows, always before the deliveries that name them.
                    printer.remaining = limit ?? Int.max
                    if printer.remaining > 0 {
                        try reader.forEachEventRow(session: session.id, filter: filter, deliveries: { delivery in
                            printer.write(DeliveryRow(delivery: delivery))
                            printer.remaining -= 1
                            return printer.remaining > 0
                        }, rows: { row, wanted in
                            printer.learn(row)
                            guard wanted else { return true }
                            printer.write(row)
                            printer.remaining -= 1
                            return printer.remaining > 0
                        })
                    }
                }
                printer.end()
                if !printer.wroteAny && limit != 0 {
                    diagnose("note: " + (try nothingMatched(reader, session: session.id)))
                }
            }
        }

        /// The note for a filter that matched nothing (the exit code stays 0): the filters as given, and
        /// for an owner label no owner has, the label that differs only in case, if one does.
        private func nothingMatched(_ reader: TraceReader, session: Int64) throws -> String {
            var given = kinds.map { "--kind \($0.kind.name)" }
            if let message { given.append("--message \(message)") }
            if let owner { given.append("--owner \(owner)") }
            if let observer { given.append("--observer \(observer)") }
            if let since = window.since { given.append("--since \(since)") }
            if let until = window.until { given.append("--until \(until)") }
            guard !given.isEmpty else { return "session \(session) holds no event" }
            var note = "no event of session \(session) matches " + given.joined(separator: " ")
            if let owner, UInt64(owner) == nil {
                let labels = Set(try reader.owners(session: session).values.map(\.label))
                if !labels.contains(owner) {
                    note += "; no owner is labelled '\(owner)'"
                    if let near = labels.filter({ $0.lowercased() == owner.lowercased() }).sorted().first {
                        note += " (labels match case: did you mean '\(near)'?)"
                    }
                }
            }
            return note
        }
    }
}

