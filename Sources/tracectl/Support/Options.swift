import ArgumentParser

/// `--format text|json`.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// A trace file and the output format: what every command that reads a trace takes.
struct TraceFileOptions: ParsableArguments {
    @Argument(help: "The trace file.", completion: .file(extensions: ["trace", "sqlite"]))
    var trace: String

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text
}

/// A trace file, one of its sessions, and the output format.
struct TraceOptions: ParsableArguments {
    @OptionGroup var file: TraceFileOptions

    @Option(help: "The session to read (default: the newest).")
    var session: Int64?

    var trace: String { file.trace }
    var format: OutputFormat { file.format }
}
