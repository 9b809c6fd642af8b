import Foundation
import AppModel
import NotifyBus
import ScenarioTrace
import Testing
@testable import TraceStore

@Suite struct LaunchFoldTests {
    /// UIKit calls the root's viewWillAppear and viewDidAppear while the app is inactive
    /// (before `didBecomeActive`); the fold says so for every event of the launch.
    @Test func theFoldIsInactiveFromLaunchUntilDidBecomeActive() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("launch.trace")
        let json = #"{"name": "launch", "screens": {"Home": {"observers": [{"message": "didBecomeActive", "addOn": "viewDidAppear", "removeOn": "deinit"}]}}, "root": {"navigation": "Home"}, "steps": [{"background": {}}]}"#
        let summary = try ScenarioRecording.record(scenario: Data(json.utf8), file: "launch.json", to: path)
        var state = TraceState()
        var seen: [(String, TraceState.ApplicationState)] = []
        try TraceReader(path: path).forEachEvent(session: summary.sessionID) { event in
            state.apply(event)
            switch event.kind {
            case .lifecycle: seen.append((event.phase?.rawValue ?? "?", state.applicationState))
            case .posted: seen.append(("post " + (event.message ?? "?"), state.applicationState))
            default: break
            }
            return true
        }
        let launch = try #require(seen.firstIndex { $0.0 == "launch" })
        let active = try #require(seen.firstIndex { $0.0 == "post didBecomeActive" })
        #expect(launch < active)
        #expect(seen[..<launch].allSatisfy { $0.1 == .notRunning })
        #expect(seen[launch..<active].allSatisfy { $0.1 == .inactive })
        #expect(seen[launch..<active].map(\.0).contains("viewDidAppear"))
        #expect(seen[active].1 == .active)
        #expect(seen.last?.1 == .background)
    }
}
