import Foundation
import NotifyBus
import Testing
@testable import TraceStore

/// `duplicate-registration` and selector observers: one owner adding the same selector for a name
/// twice is a duplicate (its method runs twice a post); two different selectors for one name are two
/// methods the code asks for, each called once, as the rule's table says ("two selectors" is not reported).
@Suite struct DuplicateSelectorTests {
    final class Screen: Sendable {
        func themeChanged(_ ping: Ping) {}
        func relayout(_ ping: Ping) {}
    }

    private func duplicates(selectors: [String]) throws -> [LeakFinding] {
        let dir = try TemporaryDirectory()
        let path = dir.file("selectors.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "selectors"))
        let bus = Bus(sink: recorder)
        let screen = Screen()
        for selector in selectors {
            bus.addObserver(screen, selector: selector, name: Ping.self) { screen in screen.themeChanged }
        }
        bus.post(Ping(n: 1))
        try withExtendedLifetime(screen) { try recorder.close() }
        return try LeakAnalyzer.analyze(TraceReader(path: path), session: recorder.sessionID)
            .filter { $0.rule == .duplicateRegistration }
    }

    @Test func twoSelectorsForOneNameAreNoDuplicate() throws {
        #expect(try duplicates(selectors: ["themeChanged:", "relayout:"]).isEmpty)
    }

    @Test func oneSelectorAddedTwiceIsADuplicate() throws {
        #expect(try duplicates(selectors: ["themeChanged:", "themeChanged:"]).count == 1)
        #expect(try duplicates(selectors: ["themeChanged:", "relayout:", "themeChanged:"]).count == 1)
    }
}
