import Foundation
import Testing

@Suite struct ReplayCommandTests {
    @Test func goldenTraceReplaysEqual() throws {
        let run = try tracectl("replay", fixture("seed000-keyboard-leak"))
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasPrefix("equal: "))
    }

    @Test func fixedScenarioDivergesAndShowsTheRemovalsAtPop() throws {
        let run = try tracectl("replay", fixture("seed000-keyboard-leak"), "--scenario", example("seed004-keyboard-timing"))
        #expect(run.status == 1)
        #expect(run.stdout.contains("first divergence in the reactions"))
        #expect(run.stdout.contains("  + remove Login#1.keyboardWillShow#1 (explicit)"))
        let json = try #require(try json(try tracectl("replay", fixture("seed000-keyboard-leak"), "--scenario",
                                                      example("seed004-keyboard-timing"), "--format", "json").stdout) as? [String: Any])
        #expect(json["equal"] as? Bool == false)
        let added = try #require(json["added"] as? [[String: Any]])
        #expect(added.compactMap { $0["event"] as? String }.filter { $0.hasPrefix("remove") }.count == 2)
    }

    @Test func diffOfAReplayWithItsOriginalIsEqual() throws {
        let dir = try Scratch()
        let replayed = dir.file("replayed.trace")
        #expect(try tracectl("replay", fixture("demo"), "--output", replayed).status == 0)
        #expect(try tracectl("diff", fixture("demo"), replayed).status == 0)
        let parted = try tracectl("diff", fixture("seed000-keyboard-leak"), fixture("demo"))
        #expect(parted.status == 1)
        #expect(parted.stdout.hasPrefix("the stimuli differ"))
    }

    @Test func replayOfATraceWithoutScenarioExits65() throws {
        let dir = try Scratch()
        let replayed = dir.file("r.trace")
        // A replay's own trace carries its scenario; a foreign SQLite file does not even open.
        #expect(try tracectl("replay", fixture("demo"), "--output", replayed).status == 0)
        let garbage = dir.file("g.trace")
        try "not a trace".write(toFile: garbage, atomically: true, encoding: .utf8)
        #expect(try tracectl("replay", garbage).status == 65)
        #expect(try tracectl("diff", garbage, replayed).status == 65)
        #expect(try tracectl("diff", dir.file("missing.trace"), replayed).status == 66)
    }
}
