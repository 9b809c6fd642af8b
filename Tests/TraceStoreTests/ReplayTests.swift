import Foundation
import AppModel
import NotifyBus
import ScenarioTrace
import Testing
@testable import TraceStore

/// A small app model: it moves its form when the keyboard shows, by posting a reaction.
final class KeyboardAvoider: TraceLabeled, @unchecked Sendable {
    // @unchecked: used from the replaying thread only.
    let traceLabel = "LoginForm"
    var tokens: [ObservationToken] = []

    struct FormMoved: BusMessage, Equatable { var by: Double }

    init(bus: Bus, moves: Bool = true) {
        tokens.append(bus.observe(KeyboardWillShow.self, owner: self) { [weak bus] note in
            if moves { bus?.post(FormMoved(by: note.endFrame.height)) }
        })
        tokens.append(bus.observe(KeyboardWillHide.self, owner: self) { _ in })
    }
}

@MainActor @Suite struct ReplayTests {
    @Test(arguments: ["seed000-keyboard-leak", "seed004-keyboard-timing", "pagesheet-keyboard", "demo"])
    func goldenTracesReplayEqual(name: String) throws {
        let report = try TraceReplayer.replayScenario(trace: fixture(name))
        #expect(report.isEqual, "\(report.diffText)")
        #expect(report.expectedCount > 20)
        #expect(report.expectedCount == report.actualCount)
    }

    @Test func fixedScenarioShowsExactlyTheRemovalsThatNowHappenAtPop() throws {
        let fixed = try Data(contentsOf: examplesDirectory().appendingPathComponent("seed004-keyboard-timing.json"))
        let report = try TraceReplayer.replayScenario(trace: fixture("seed000-keyboard-leak"), scenario: fixed)
        #expect(!report.isEqual)
        let divergence = try #require(report.divergence)
        #expect(!divergence.inStimuli, "same steps: the stimuli match")
        #expect(divergence.context.last?.text == "Login#1 viewWillAppear")
        #expect(divergence.expected.first?.text == "add Login#1.willResignActive#1")
        #expect(divergence.actual.first?.text == "Home#1 viewDidDisappear")
        let addedRemovals = report.addedReactions.map(\.text).filter { $0.hasPrefix("remove") }
        #expect(addedRemovals == ["remove Login#1.keyboardWillShow#1 (explicit)", "remove Login#1.keyboardWillHide#1 (explicit)"])
        #expect(report.missingReactions.map(\.text).contains("remove Login#1.keyboardWillShow#1 (ownerGone)"))
    }

    @Test func differentStepsPartInTheStimuli() throws {
        let report = try TraceReplayer.diff(fixture("seed000-keyboard-leak"), fixture("demo"))
        #expect(report.divergence?.inStimuli == true)
    }

    @Test func replayingTheReplayIsDeterministic() throws {
        let dir = try TemporaryDirectory()
        let replayed = dir.file("replayed.trace")
        let report = try TraceReplayer.replayScenario(trace: fixture("demo"), output: replayed)
        #expect(report.isEqual)
        #expect(try TraceReplayer.diff(fixture("demo"), replayed).isEqual)
        #expect(try TraceReplayer.diff(replayed, fixture("demo")).isEqual)
    }

    @Test func swiftModelReplaysEqualAndAChangedModelDiverges() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("avoider.trace")
        var registry = MessageRegistry()
        registry.register(KeyboardAvoider.FormMoved.self)
        do {
            let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "avoider"))
            let clock = ManualClock()
            let bus = Bus(sink: recorder, clock: clock.traceClock)
            let model = KeyboardAvoider(bus: bus)
            let app = AppModel(bus: bus, clock: clock)
            try app.launch(root: .screen(Screen(name: "Login")))
            try app.showKeyboard(height: 300)
            try app.hideKeyboard()
            try withExtendedLifetime(model) { try recorder.close() }
        }
        let same = try TraceReplayer.replay(trace: path, registry: registry) { bus in KeyboardAvoider(bus: bus) }
        #expect(same.isEqual, "\(same.diffText)")

        let changed = try TraceReplayer.replay(trace: path, registry: registry) { bus in KeyboardAvoider(bus: bus, moves: false) }
        #expect(!changed.isEqual)
        #expect(changed.divergence?.inStimuli == false)
        #expect(changed.missingReactions.map(\.text).contains { $0.hasPrefix("post TraceStoreTests.KeyboardAvoider.FormMoved#1 reaction parent keyboardWillShow#1") })
        #expect(changed.diffText.contains("− post TraceStoreTests.KeyboardAvoider.FormMoved#1"))

        #expect(throws: TraceAssert.Failure.self) {
            try TraceAssert.replays(path, registry: registry) { bus in KeyboardAvoider(bus: bus, moves: false) }
        }
        try TraceAssert.replays(path, registry: registry) { bus in KeyboardAvoider(bus: bus) }
    }

    @Test func replayingAgainstADifferentAppModelReportsInsteadOfCrashing() throws {
        // The lifecycle trace's stimuli fed to a model that observes nothing.
        let report = try TraceReplayer.replay(trace: fixture("seed000-keyboard-leak")) { _ in 0 }
        #expect(!report.isEqual)
        #expect(report.divergence != nil)
        #expect(report.missingReactions.count > 10)

        // A stimulus whose type nobody registered stops the replay with a reason.
        let dir = try TemporaryDirectory()
        let path = dir.file("custom.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "custom"))
        Bus(sink: recorder).post(Ping(n: 1), sender: nil, origin: .stimulus)
        try recorder.close()
        let stopped = try TraceReplayer.replay(trace: path) { _ in 0 }
        #expect(stopped.replayError?.contains("no message type registered for '\(Ping.name)'") == true)
        #expect(!stopped.isEqual)
    }

    @Test func noLeaksAssertion() throws {
        try TraceAssert.noLeaks(fixture("seed004-keyboard-timing"))
        #expect(throws: TraceAssert.Failure.self) { try TraceAssert.noLeaks(fixture("seed000-keyboard-leak")) }
        try TraceAssert.replaysScenario(fixture("seed000-keyboard-leak"))
    }

    @Test func sessionWithoutScenarioCannotReplayAsScenario() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("plain.trace")
        try recordSample(at: path)
        #expect(throws: TraceStoreError.self) { try TraceReplayer.replayScenario(trace: path) }
    }
}
