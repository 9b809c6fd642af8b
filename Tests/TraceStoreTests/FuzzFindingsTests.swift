import Foundation
import NotifyBus
import Testing
import TraceStore

/// What the `bridge` fuzz target (Scripts/fuzz.sh) found in the recorder: a message with
/// a non-finite float makes JSONEncoder throw, the batch rolls back, and every later event
/// of the session is lost.
@Suite struct RecorderFuzzFindingsTests {
    @Test(arguments: [Double.nan, Double.infinity, -Double.infinity])
    func aNonFinitePayloadDoesNotLoseTheSession(value: Double) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("non-finite.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "non-finite"))
        let bus = Bus(sink: recorder)
        let frame = Rect(x: 0, y: 508, width: 390, height: 336)
        bus.post(KeyboardWillShow(beginFrame: frame, endFrame: frame, curve: .easeInOut, duration: value))
        bus.post(KeyboardDidShow(beginFrame: frame, endFrame: Rect(x: 0, y: value, width: 390, height: 336),
                                 curve: .easeInOut, duration: 0.25))
        bus.post(Ping(n: 1))
        try recorder.flush()
        #expect(recorder.counts.committed == recorder.counts.recorded)
        try recorder.close()
        let reader = try TraceReader(path: path)
        let posted = try reader.events(session: recorder.sessionID).filter { $0.kind == .posted }.compactMap(\.message)
        #expect(posted == [KeyboardWillShow.name, KeyboardDidShow.name, Ping.name])
    }
}
