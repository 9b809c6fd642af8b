import Foundation
@_exported import TestSupport
import NotifyBus
@testable import TraceStore

struct Ping: BusMessage, Equatable { var n: Int }

final class Owner: TraceLabeled, Sendable {
    let traceLabel: String
    init(_ label: String) { traceLabel = label }
}

/// Records a short session with a screen observing pings.
@discardableResult
func recordSample(at path: String, name: String = "sample", posts: Int = 3) throws -> Int64 {
    let recorder = try recordOpenSample(at: path, name: name, posts: posts)
    try recorder.close()
    return recorder.sessionID
}

/// The session of ``recordSample(at:name:posts:)`` on `clock`, its posts `step` seconds apart,
/// left open: the caller closes the recorder.
func recordOpenSample(at path: String, name: String = "sample", posts: Int = 3,
                      clock: ManualClock = ManualClock(), step: Double = 0.5) throws -> TraceRecorder {
    let recorder = try TraceRecorder(path: path, session: SessionInfo(name: name, app: "tests"))
    let bus = Bus(sink: recorder, clock: clock.traceClock)
    let screen = Owner("Login")
    let token = bus.observe(Ping.self, owner: screen) { _ in }
    for n in 0..<posts {
        clock.advance(bySeconds: step)
        bus.post(Ping(n: n))
    }
    bus.remove(token)
    return recorder
}
