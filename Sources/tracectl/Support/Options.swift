import ArgumentParser

/// `--format text|json`.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// The options of every command that reads a trace.
struct TraceOptions: ParsableArguments {
    @Argument(help: "The trace file.", completion: .file(extensions: ["trace", "sqlite"]))
    var trace: String

    @Option(help: "The session to read (default: the newest).")
    var session: Int64?

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text
}
