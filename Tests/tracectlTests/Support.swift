import Foundation
@_exported import TestSupport
import Testing

/// The result of running the built `tracectl`.
struct Run {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// A temporary directory for one test.
typealias Scratch = TemporaryDirectory

/// Runs `tracectl` with `arguments` in `directory` and waits for it.
@discardableResult
func tracectl(_ arguments: String..., in directory: String? = nil) throws -> Run {
    try runTracectl(arguments, in: directory)
}

/// Runs `tracectl` with a list of arguments.
func runTracectl(_ arguments: [String], in directory: String? = nil) throws -> Run {
    let process = Process()
    process.executableURL = productsDirectory().appendingPathComponent("tracectl")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    process.environment = environment
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes before waiting, so a large output cannot fill a pipe and block the child.
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
               stderr: String(decoding: errData, as: UTF8.self))
}

/// Parses JSON output.
func json(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8))
}
