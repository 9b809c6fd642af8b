import Dispatch
import Foundation
import NotifyBus
import Testing
@testable import TraceStore

/// Many buses recording into one TraceRecorder: every event in the file, one sequence, verify clean.
@Suite struct SharedSessionRecordingTests {
    @Test(arguments: [2, 6])
    func busesIntoOneRecorderKeepEveryEvent(buses count: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("shared.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "shared", app: "tests"))
        let buses = (0..<count).map { _ in Bus(sink: recorder) }
        let screens = (0..<count).map { Owner("screen \($0)") }
        let tokens = zip(buses, screens).map { bus, screen in bus.observe(Ping.self, owner: screen) { _ in } }
        let posts = 300
        DispatchQueue.concurrentPerform(iterations: count) { index in
            for n in 0..<posts { buses[index].post(Ping(n: n)) }
        }
        for (bus, token) in zip(buses, tokens) { bus.remove(token) }
        try recorder.close()

        // Per bus: the screen, its observer, `posts` posts and deliveries, the removal.
        let expected = count * (2 + 2 * posts + 1)
        #expect(recorder.counts.recorded == UInt64(expected))
        let reader = try TraceReader(path: path)
        let events = try reader.events(session: recorder.sessionID)
        let seqs = Set(events.map(\.seq))
        #expect(seqs.isSuperset(of: 1...UInt64(expected)), "every event is in the file")
        let verification = try TraceVerification.run(reader)
        #expect(verification.isValid, "\(verification.sessions.flatMap(\.problems))")
    }
}
