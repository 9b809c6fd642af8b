import AppModel
import Foundation
import NotifyBus
import PropertyBased
import TestSupport
import Testing
import TraceStore

/// The screens generated scenarios use; the first is the root's.
private let screenNames = ["Home", "Login", "Settings", "Editor"]
private let moments = ScreenMoment.allCases.map(\.rawValue)

/// Builds a scenario file from generated numbers: every number picks something valid,
/// and steps that cannot apply where they fall (a pop with one screen) are dropped.
struct GeneratedScenario: Sendable, CustomStringConvertible {
    /// The scenario file.
    let data: Data

    init(codes: [Int]) {
        var numbers = codes.makeIterator()
        func next(_ count: Int) -> Int { (numbers.next() ?? 0) % count }
        var screens: [String: Any] = [:]
        for name in screenNames {
            let observers = (0..<next(4)).map { _ -> [String: Any] in
                var observer: [String: Any] = [
                    "message": Scenario.messageNames[next(Scenario.messageNames.count)],
                    "addOn": moments[next(moments.count)],
                    "removeOn": next(5) == 0 ? "never" : moments[next(moments.count)],
                ]
                if next(6) == 0 { observer["sender"] = screenNames[next(screenNames.count)] }
                return observer
            }
            var screen: [String: Any] = ["observers": observers]
            if next(3) == 0 { screen["retainedAfterPop"] = true }
            let plugins = StockPlugin.allCases.filter { _ in next(3) == 0 }.map(\.rawValue)
            if !plugins.isEmpty { screen["plugins"] = plugins }
            if next(2) == 0 { screen["handles"] = ["save"] }
            if next(3) == 0 { screen["supportedOrientations"] = ["portrait", "all", "landscape"][next(3)] }
            screens[name] = screen
        }
        let root: [String: Any] = switch next(3) {
        case 0: ["navigation": "Home"]
        case 1: ["screen": "Home"]
        default: ["tabs": [["navigation": "Home"], ["screen": "Settings"]], "selected": 0]
        }
        let candidates = (0..<next(24)).map { _ -> [String: Any] in
            let screen = screenNames[1 + next(screenNames.count - 1)]
            switch next(14) {
            case 0, 1: return ["push": screen]
            case 2: return ["pop": [String: Any]()]
            case 3: return ["popToRoot": [String: Any]()]
            case 4: return ["present": screen, "style": PresentationStyle.allCases[next(3)].rawValue, "duration": Double(next(4)) / 4]
            case 5: return ["dismiss": [String: Any]()]
            case 6: return ["selectTab": next(2)]
            case 7: return ["keyboard": next(2) == 0 ? "show" : "hide"]
            case 8: return ["background": [String: Any]()]
            case 9: return ["foreground": [String: Any]()]
            case 10: return ["interrupt": [String: Any]()]
            case 11: return ["rotate": ["portrait", "landscapeLeft", "landscapeRight", "portraitUpsideDown"][next(4)]]
            case 12: return ["action": "save", "from": screenNames[next(screenNames.count)]]
            default: return ["wait": Double(next(8)) / 2]
            }
        }
        var scenario: [String: Any] = ["name": "generated", "screens": screens, "root": root, "steps": [Any]()]
        // Keep each step that applies after the ones kept before it.
        var steps: [Any] = []
        for step in candidates {
            scenario["steps"] = steps + [step]
            if Self.runs(scenario) { steps.append(step) }
        }
        scenario["steps"] = steps
        data = try! JSONSerialization.data(withJSONObject: scenario, options: [.sortedKeys])
    }

    private static func runs(_ json: [String: Any]) -> Bool {
        guard let data = try? JSONSerialization.data(withJSONObject: json),
              let scenario = try? Scenario.parse(data) else { return false }
        return (try? ScenarioRunner(scenario: scenario, file: "generated.json", bus: Bus()).run()) != nil
    }

    var description: String { String(decoding: data, as: UTF8.self) }
}

@Suite struct ScenarioRoundTripTests {
    /// Generated scenarios, run through the lifecycle model and recorded into a trace
    /// file: folding the file with `TraceState` gives the app's final state: the same
    /// registered observers, application state, screens in the hierarchy and on screen,
    /// and the trace verifies.
    /// Not shrunk: each candidate re-runs the generator's trial runs, minutes for one failure;
    /// the failure message holds the whole scenario file instead.
    @Test(.shrinking(false)) func theFoldOfARecordedScenarioIsTheAppsFinalState() async throws {
        let directory = try TemporaryDirectory()
        let scenarios = Gen.int(in: 0...1_000).array(of: 10...120).map(GeneratedScenario.init(codes:))
        var counter = 0
        await propertyCheck(count: iterations(default: 25), input: scenarios) { generated in
            counter += 1
            let path = directory.file("round-trip-\(counter).trace")
            let scenario = try Scenario.parse(generated.data)
            let recorder = try TraceRecorder(path: path, session: SessionInfo(
                name: scenario.name, app: "property test", scenario: generated.description))
            let clock = ManualClock()
            let bus = Bus(sink: recorder, clock: clock.traceClock)
            let runner = ScenarioRunner(scenario: scenario, file: "generated.json", bus: bus, clock: clock)
            try runner.run()
            bus.sweepReleasedOwners()
            try recorder.close()

            let reader = try TraceReader(path: path)
            let state = try reader.state(session: reader.lastSessionID())
            let app = runner.app
            #expect(state.observers.count == bus.observerCount, "\(generated)")
            #expect(state.applicationState.rawValue == app.state.rawValue, "\(generated)")
            let screens = state.owners.values.filter { screenNames.contains($0.label) && $0.hasLifecycle }
            let visible = screens.filter(\.visible).map(\.label).sorted()
            #expect(visible == app.visibleScreens.filter(\.isVisible).map(\.name).sorted(), "\(generated)")
            for name in screenNames {
                let inFold = screens.contains { $0.label == name && $0.inHierarchy && !$0.released }
                #expect(inFold == (app.screen(named: name) != nil), "\(name) in the hierarchy: \(generated)")
            }
            // An observer of a released owner is a leak the analyzer reports; one of a live
            // owner is not released in the fold.
            for observer in state.liveObservers {
                guard let owner = observer.owner.flatMap({ state.owners[$0] }) else { continue }
                if let screen = app.screen(named: owner.label), owner.inHierarchy {
                    #expect(!owner.released, "\(screen.name) is live but released in the fold: \(generated)")
                }
            }
            #expect(try TraceVerification.run(reader).isValid, "\(generated)")
            withExtendedLifetime(runner) {}
        }
    }
}
