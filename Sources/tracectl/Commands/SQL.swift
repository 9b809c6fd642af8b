import ArgumentParser
import TraceStore

extension TraceCtl {
    struct SQL: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sql",
            abstract: "Run read-only SQL over a trace's tables and views.",
            discussion: """
                The trace is opened read-only: a statement that would write, or that returns no columns \
                (ATTACH, DETACH, BEGIN, a PRAGMA that sets), is refused with exit 64 and changes nothing. Views: event_log, owners, observers, posts, deliveries, lifecycle, \
                attachments, releases, traps (docs/TRACE_FORMAT.md).

                EXAMPLES:
                  tracectl sql login.trace "SELECT owner_label, message, callsite
                      FROM observers WHERE removed_seq IS NULL"
                  tracectl sql login.trace --format json \\
                      "SELECT message, count(*) FROM posts GROUP BY message"
                """
        )

        @Argument(help: "The trace file.", completion: .file(extensions: ["trace"]))
        var trace: String

        @Argument(help: "The SQL query.")
        var query: String

        @Option(help: "Output format: text (tab-separated, with a header) or json (a list of objects).")
        var format: OutputFormat = .text

        func run() throws {
            let reader = try openTrace(trace)
            let out = Output()
            // Written out here, in the command, not when `out` is released: a failed write exits from here.
            defer { out.flush() }
            var names: [String] = []
            var first = true
            try reportingErrors {
                try reader.query(query, columns: { columns in
                    // A statement with no result columns is not a query even when it writes nothing:
                    // ATTACH (which would open another file), DETACH, BEGIN, a PRAGMA that sets. It is
                    // refused before it runs, as a write is.
                    guard !columns.isEmpty else {
                        throw TraceStoreError(.invalidArgument, "only queries are allowed, and `\(query)` returns no columns "
                                              + "(ATTACH, DETACH, transactions and PRAGMAs that set are refused)")
                    }
                    names = columns
                    // JSON's opening bracket waits for the first row: a query that fails before
                    // one leaves nothing on standard output.
                    if format == .text { out.line(columns.joined(separator: "\t")) }
                }, row: { values in
                    switch format {
                    case .text:
                        out.line(values.map(\.description).joined(separator: "\t"))
                    case .json:
                        let object = JSON.object(zip(names, values).map { name, value in
                            switch value {
                            case .null: (name, .null)
                            case .integer(let v): (name, .int(v))
                            case .real(let v): (name, .double(v))
                            case .text(let v): (name, .string(v))
                            case .blob: (name, .string(value.description))
                            }
                        })
                        out.write((first ? "[\n" : ",\n") + object.rendered)
                    }
                    first = false
                })
            }
            if format == .json { out.line(first ? "[]" : "\n]") }
        }
    }
}
