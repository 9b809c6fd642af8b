import Foundation
import NotifyBus
import TestSupport
import Testing
import TraceStore

/// A chain of objects each attached to the next, as long as a trace can make it: `timeline`
/// laid its lanes out with a call per level and overflowed the stack (SIGSEGV at 100 000), and
/// `export` indented each level's track names by its depth (names quadratic in the depth).
@Suite struct DeepAttachmentTests {
    @Test func timelineAndExportLayOutAChainOfAHundredThousandAttachments() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("chain.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "chain"))
        var seq: UInt64 = 0
        func record(_ kind: TraceEvent.Kind) {
            seq += 1
            recorder.record(TraceEvent(seq: seq, time: seq, kind: kind))
        }
        let depth: UInt64 = 100_000
        for owner in 1...depth {
            record(.ownerRegistered(owner: owner, typeName: "Helper", label: "h\(owner)"))
            if owner > 1 { record(.ownerAttached(owner: owner - 1, host: owner)) }
        }
        record(.observerAdded(observer: 1, message: "keyboardWillShow", owner: 1, sender: nil,
                              callSite: CallSite(file: "Chain.swift", line: 1)))
        try recorder.close()

        let timeline = try tracectl("timeline", path, "-o", dir.file("chain.html"))
        #expect(timeline.status == 0, "\(timeline.stderr)")
        let export = try tracectl("export", path, "--format", "chrome-trace", "-o", dir.file("chain.json"))
        #expect(export.status == 0, "\(export.stderr)")
        let json = try String(contentsOfFile: dir.file("chain.json"), encoding: .utf8)
        // The deepest object's tracks are named with at most eight levels of indentation.
        #expect(json.contains("\"" + String(repeating: "  ", count: 8) + "↳ h1 · visible\""))
        #expect(!json.contains(String(repeating: "  ", count: 9) + "↳"))
    }
}
