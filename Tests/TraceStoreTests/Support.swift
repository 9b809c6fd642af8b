import Foundation
import NotifyBus
@testable import TraceStore

struct Ping: BusMessage, Equatable { var n: Int }

final class Owner: TraceLabeled, Sendable {
    let traceLabel: String
    init(_ label: String) { traceLabel = label }
}

/// A directory removed when the value is released: one per test.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("notifybus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The directory holding the built products (the test bundle, tracectl, the crash child).
func productsDirectory() -> URL {
    let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        ?? CommandLine.arguments[0])
    var directory = executable.deletingLastPathComponent()
    // On macOS the test bundle is a directory: climb out of it.
    while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS" || directory.lastPathComponent == "Contents" {
        directory.deleteLastPathComponent()
    }
    return directory
}

/// Records a short session with a screen observing pings.
@discardableResult
func recordSample(at path: String, name: String = "sample", posts: Int = 3) throws -> Int64 {
    let recorder = try TraceRecorder(path: path, session: SessionInfo(name: name, app: "tests"))
    let clock = ManualClock()
    let bus = Bus(sink: recorder, clock: clock.traceClock)
    let screen = Owner("Login")
    let token = bus.observe(Ping.self, owner: screen) { _ in }
    for n in 0..<posts {
        clock.advance(bySeconds: 0.5)
        bus.post(Ping(n: n))
    }
    bus.remove(token)
    try recorder.close()
    return recorder.sessionID
}
