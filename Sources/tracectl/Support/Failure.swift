import ArgumentParser
import Foundation
import NotifyBus
import TraceStore

/// The exit codes of the `tracectl` contract.
enum Exit {
    static let findings = ExitCode(1)
    static let invalidInput = ExitCode(65)
    static let missingInput = ExitCode(66)
}

/// Prints one line to standard error.
func diagnose(_ message: String) {
    FileHandle.standardError.write(Data("tracectl: \(message)\n".utf8))
}

/// Runs `body`, turning library errors into one line on stderr and the contract's exit code.
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as TraceStoreError {
        diagnose(error.description)
        switch error.kind {
        case .fileNotFound: throw Exit.missingInput
        default: throw error.isInvalidInput ? Exit.invalidInput : ExitCode.failure
        }
    } catch let error as NotifyBusError {
        diagnose(error.description)
        throw Exit.invalidInput
    }
}

/// Opens a trace for reading, with the contract's exit codes for bad files.
func openTrace(_ path: String) throws -> TraceReader {
    let reader = try reportingErrors { try TraceReader(path: path) }
    if reader.schemaVersion < 2 {
        diagnose("note: \(path) is a schema-\(reader.schemaVersion) trace: it records no observer kinds, captures, "
                 + "attachments, releases or traps, so its observers read as typed tokens")
    }
    return reader
}
