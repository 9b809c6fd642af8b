import ArgumentParser
import Foundation

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

/// `--since` and `--until`: a run of sequence numbers, both ends included.
struct SeqWindowOptions: ParsableArguments {
    @Option(help: "From this sequence number.")
    var since: UInt64?

    @Option(help: "Up to this sequence number.")
    var until: UInt64?

    func validate() throws {
        try checkStoredRange(since, option: "--since")
        try checkStoredRange(until, option: "--until")
        if let since, let until, since > until { throw ValidationError("--since is after --until") }
    }

    /// The window, `nil` when neither end is given.
    var window: ClosedRange<UInt64>? {
        guard since != nil || until != nil else { return nil }
        return (since ?? 0)...(until ?? UInt64(Int64.max))
    }
}

/// `--source-root`: the folder SARIF locations are relative to (``SourceRoot``).
struct SourceRootOptions: ParsableArguments {
    @Option(help: """
        With --format sarif: the folder locations are relative to, where each call site's file is looked up \
        (default: the repository holding the working directory, else the one holding the trace, else the \
        working directory).
        """, completion: .directory)
    var sourceRoot: String?

    /// The root for a report on `trace`; a `--source-root` that is not a folder is 66, like a missing input.
    func root(trace: String) throws -> SourceRoot {
        if let sourceRoot {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: sourceRoot, isDirectory: &isDirectory), isDirectory.boolValue else {
                diagnose("\(sourceRoot): no such folder (--source-root)")
                throw Exit.missingInput
            }
        }
        return SourceRoot.choose(explicit: sourceRoot, trace: trace)
    }
}
