import ArgumentParser
import Foundation
import NotifyBus
import TraceStore

/// The exit codes of the `tracectl` contract. Each means one thing; README's "Exit codes" table lists them.
///
/// 1 is kept for what a command looks for — leaks, a divergence, problems in a trace — so that a script can
/// tell "the check failed" from "the check could not run". The others follow BSD's `sysexits.h`.
enum Exit {
    /// 1: leaks found (`leaks`), the runs diverge (`replay`, `diff`), problems found (`verify`).
    static let findings = ExitCode(1)
    /// 64 (`EX_USAGE`): a bad argument or option; ArgumentParser's own errors use it too.
    static let usage = ExitCode(64)
    /// 65 (`EX_DATAERR`): a file that is not a valid scenario, trace or baseline, or a trace that is damaged.
    static let invalidInput = ExitCode(65)
    /// 66 (`EX_NOINPUT`): an input file that is missing or cannot be opened.
    static let missingInput = ExitCode(66)
    /// 69 (`EX_UNAVAILABLE`): the trace holds no session with the id given.
    static let noSuchSession = ExitCode(69)
    /// 70 (`EX_SOFTWARE`): an internal error, a bug of `tracectl`'s.
    static let internalError = ExitCode(70)
    /// 73 (`EX_CANTCREAT`): an output file (a trace, a baseline) cannot be created.
    static let cannotCreate = ExitCode(73)
    /// 74 (`EX_IOERR`): reading or writing a file failed (disk full, I/O error).
    static let ioError = ExitCode(74)
    /// 75 (`EX_TEMPFAIL`): another process holds the trace locked; try again later.
    static let busy = ExitCode(75)
    /// 78 (`EX_CONFIG`): the companion executable a subcommand runs (`tracectl-scan`, `tracectl-fleet`)
    /// is not installed beside `tracectl` or on `PATH` (``Companion``).
    static let companionMissing = ExitCode(78)

    /// The exit code for a library error.
    static func code(for error: TraceStoreError) -> ExitCode {
        switch error.kind {
        case .fileNotFound: return missingInput
        case .noSuchSession: return noSuchSession
        case .invalidArgument: return usage
        case .cannotCreate, .sqlite(.readOnly): return cannotCreate
        case .sqlite(.cannotOpen), .sqlite(.permission): return missingInput
        default:
            if error.isInvalidInput { return invalidInput }
            if error.isBusy { return busy }
            if error.isIOFailure { return ioError }
            return internalError
        }
    }

    /// The exit code for any error a command's body threw, after printing its one line.
    /// ArgumentParser's own errors (`--help`, validation) pass through to it.
    static func report(_ error: any Error) -> any Error {
        switch error {
        case let error as TraceStoreError:
            diagnose(error.description)
            return code(for: error)
        case let error as NotifyBusError:
            // A scenario that is not valid, or a step of it that cannot apply.
            diagnose(error.description)
            return invalidInput
        default:
            return error
        }
    }

    /// Like ``report(_:)``, and any other error is an internal one (70): what a command's own code throws.
    static func reportAll(_ error: any Error) -> any Error {
        switch error {
        case is TraceStoreError, is NotifyBusError, is ExitCode, is ValidationError, is CleanExit:
            return report(error)
        default:
            diagnose("internal error: \(error)")
            return internalError
        }
    }
}

extension TraceCtl {
    /// Parses the command line, then runs the command with the contract's exit codes: a library error
    /// that escapes a command is reported in one line and mapped by ``Exit/report(_:)``, never left to
    /// ArgumentParser's catch-all 1. (`help` runs as a command whose errors are ArgumentParser's.)
    static func main() {
        var command: any ParsableCommand
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            command = try parseAsRoot(arguments)
        } catch {
            exitSuggesting(error, arguments: arguments)
        }
        do {
            try command.run()
        } catch {
            exit(withError: Exit.report(error))
        }
        // What went through `print` is in stdio's buffer until now: a failure to write it is reported, not lost.
        if fflush(nil) != 0 {
            exitWritingFailed("cannot write standard output (\(String(cString: strerror(errno))))")
        }
    }
}

extension TraceCtl {
    /// Ends a command line that did not parse as ArgumentParser would (its message, usage line and 64),
    /// with a "Did you mean …?" for a mistyped command or option (``UsageHints``).
    static func exitSuggesting(_ error: any Error, arguments: [String]) -> Never {
        let code = exitCode(for: error)
        guard code != .success else { exit(withError: error) }
        if let message = UsageHints.unknownCommand(arguments) {
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(Exit.usage.rawValue)
        }
        let message = fullMessage(for: error)
        let suggested = UsageHints.withOptionSuggestion(message, arguments: arguments)
        guard suggested != message else { exit(withError: error) }
        FileHandle.standardError.write(Data((suggested + "\n").utf8))
        Foundation.exit(code.rawValue)
    }
}

/// Ends the process with 74 (`EX_IOERR`) after one line: writing an output failed part way.
func exitWritingFailed(_ message: String) -> Never {
    diagnose(message)
    exit(Exit.ioError.rawValue)
}

/// Prints one line to standard error.
func diagnose(_ message: String) {
    let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    FileHandle.standardError.write(Data("tracectl: \(line)\n".utf8))
}

/// Runs `body`, turning library errors into one line on stderr and the contract's exit code.
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw Exit.reportAll(error)
    }
}

/// Reads a whole input file (a scenario, a baseline), with 66 and one line when it is missing, a
/// directory, or cannot be read.
func readInput(_ path: String) throws -> Data {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        diagnose("\(path): no such file")
        throw Exit.missingInput
    }
    guard !isDirectory.boolValue else {
        diagnose("\(path): a directory, not a file")
        throw Exit.missingInput
    }
    do {
        return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        diagnose("\(path): cannot read the file (\(error.localizedDescription))")
        throw Exit.missingInput
    }
}

/// Reads a scenario file (``readInput(_:)``); a trace given where a scenario belongs is 65 with the
/// commands that read it.
func readScenario(_ path: String) throws -> Data {
    let data = try readInput(path)
    if InputKind.of(data) == .trace {
        diagnose("\(path): a trace, not a scenario: read it with `tracectl leaks \(path)` "
                 + "(or events, timeline, replay); `record` takes a scenario file (docs/SCENARIOS.md)")
        throw Exit.invalidInput
    }
    return data
}

/// What a file given to a command looks like, to say which command it belongs to.
enum InputKind: Equatable {
    case trace, scenario, other

    /// An SQLite file is taken for a trace; a JSON object for a scenario.
    static func of(_ data: Data) -> InputKind {
        if data.starts(with: Array("SQLite format 3\u{0}".utf8)) { return .trace }
        guard let first = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }),
              first == UInt8(ascii: "{"),
              (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else { return .other }
        return .scenario
    }

    /// The kind of the file at `path` from its first 16 MiB, `.other` when it cannot be read.
    static func of(_ path: String) -> InputKind {
        guard let handle = FileHandle(forReadingAtPath: path) else { return .other }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 16 << 20) else { return .other }
        return of(data)
    }
}

/// Opens a trace for reading, with the contract's exit codes for bad files. A scenario given where a
/// trace belongs is 65 with the command that records it.
func openTrace(_ path: String) throws -> TraceReader {
    let reader: TraceReader
    do {
        reader = try TraceReader(path: path)
    } catch where error.isInvalidInput && InputKind.of(path) == .scenario {
        // `record` writes NAME.trace in the working folder by default; the command run is the one to suggest.
        let trace = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent + ".trace"
        let command = CommandLine.arguments.dropFirst().first ?? "leaks"
        diagnose("\(path): a scenario, not a trace: record it first with `tracectl record \(path)` "
                 + "(it writes \(trace)), then `tracectl \(command) \(trace)`")
        throw Exit.invalidInput
    } catch {
        throw Exit.reportAll(error)
    }
    if reader.schemaVersion < 2 {
        diagnose("note: \(path) is a schema-\(reader.schemaVersion) trace: it records no observer kinds, captures, "
                 + "attachments, releases or traps, so its observers read as typed tokens")
    }
    return reader
}

/// A sequence number or id option: the trace stores them as SQLite's signed 64-bit integers, so a larger
/// value can match nothing and is refused as a usage error rather than trapping.
func checkStoredRange(_ value: UInt64?, option: String) throws {
    guard let value, value > UInt64(Int64.max) else { return }
    throw ValidationError("\(option) \(value) is out of range (a trace's sequence numbers and ids are at most \(Int64.max))")
}
