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
    try tracectl(arguments, in: directory)
}

/// Runs `tracectl` with a list of arguments; its standard output goes to `standardOutput` when
/// one is given (``Run/stdout`` is then empty).
@discardableResult
func tracectl(_ arguments: [String], in directory: String? = nil, standardOutput: FileHandle? = nil) throws -> Run {
    let process = Process()
    process.executableURL = productsDirectory().appendingPathComponent("tracectl")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    process.environment = environment
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    if let standardOutput {
        process.standardOutput = standardOutput
        try out.fileHandleForWriting.close()
    }
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

/// Runs `python3` with `arguments` and returns its status and output; status 127 when python3 is missing.
@discardableResult
func python(_ arguments: [String]) -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3"] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do { try process.run() } catch { return (127, "\(error)") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// A test script of this repository, under `Tests/Scripts`.
func testScript(_ name: String) -> String { repositoryFile("Tests/Scripts/\(name)").path }
