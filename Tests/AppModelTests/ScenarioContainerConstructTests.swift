import Foundation
import AppModel
import NotifyBus
import Testing

/// Scenario constructs for containers, transitions and moments: parsing and running.
@Suite struct ScenarioContainerConstructTests {
    static func scenario(screens: String = #""Home": {"observers": []}, "Banner": {"observers": []}"#,
                         root: String = #"{"navigation": "Home"}"#, steps: String) -> String {
        #"{"name": "s", "screens": {\#(screens)}, "root": \#(root), "steps": [\#(steps)]}"#
    }

    /// Runs `json`; the harness keeps the runner, and so the app's registrations, alive.
    func run(_ json: String) throws -> Harness {
        let h = Harness()
        let runner = ScenarioRunner(scenario: try Scenario.parse(Data(json.utf8)), file: "s.json", bus: h.bus, clock: h.clock)
        h.keep(runner)
        try runner.run()
        return h
    }

    @Test func constructsParse() throws {
        let json = Self.scenario(
            screens: #""Home": {"observers": [{"message": "keyboardWillShow", "addOn": "didMoveToWindow", "removeOn": "didMoveToWindow", "sameMoment": "addFirst"}], "children": ["Banner"]}, "Banner": {"observers": []}"#,
            steps: #"{"interactivePop": "cancel", "duration": 0.3}, {"interactiveDismiss": "complete"}, {"addChild": "Banner", "to": "Home"}, {"removeChild": "Banner"}"#)
        let scenario = try Scenario.parse(Data(json.utf8))
        #expect(scenario.screens["Home"]?.children == ["Banner"])
        #expect(scenario.screens["Home"]?.observers.first?.sameMoment == .addFirst)
        #expect(scenario.steps == [
            .interactivePop(.cancel, duration: 0.3), .interactiveDismiss(.complete, duration: 0),
            .addChild("Banner", to: "Home"), .removeChild("Banner"),
        ])
    }

    @Test(arguments: [
        (scenario(screens: #""Home": {"observers": [{"message": "keyboardWillShow", "addOn": "viewWillAppear", "removeOn": "viewWillAppear"}]}"#, steps: ""),
         #"screens.Home.observers[0].removeOn: added and removed at viewWillAppear: say which comes first with "sameMoment": "addFirst" or "removeFirst""#),
        (scenario(screens: #""Home": {"observers": [{"message": "keyboardWillShow", "addOn": "viewWillAppear", "removeOn": "deinit", "sameMoment": "addFirst"}]}"#, steps: ""),
         "screens.Home.observers[0].sameMoment: sameMoment goes with removeOn equal to addOn"),
        (scenario(screens: #""Home": {"observers": [{"message": "keyboardWillShow", "addOn": "viewWillAppear", "removeOn": "viewWillAppear", "sameMoment": "both"}]}"#, steps: ""),
         "screens.Home.observers[0].sameMoment: unknown order 'both' (expected one of addFirst, removeFirst)"),
        (scenario(screens: #""Home": {"observers": [], "children": ["Banner"]}, "Banner": {"observers": [], "children": ["Home"]}"#, steps: ""),
         "screens.Home.children[0]: Banner would contain itself"),
        (scenario(screens: #""Home": {"observers": [], "children": ["Home"]}"#, steps: ""),
         "screens.Home.children[0]: Home would contain itself"),
        (scenario(screens: #""Home": {"observers": [], "children": ["Bannr"]}"#, steps: ""),
         "screens.Home.children[0]: unknown screen 'Bannr'"),
        (scenario(steps: #"{"interactivePop": "abort"}"#),
         "steps[0].interactivePop: unknown outcome 'abort' (expected one of complete, cancel)"),
        (scenario(steps: #"{"interactiveDismiss": "cancel", "duration": -1}"#), "steps[0].duration: must not be negative"),
        (scenario(steps: #"{"addChild": "Banner"}"#), "steps[0].to: an addChild step needs to"),
        (scenario(steps: #"{"removeChild": "Banner", "from": "Home"}"#), "steps[0].from: unknown key for a removeChild step"),
    ])
    func mistakesNameTheirPath(json: String, expected: String) {
        do {
            _ = try Scenario.parse(Data(json.utf8))
            Issue.record("accepted: \(json)")
        } catch {
            #expect(error.description.hasPrefix(expected), "got: \(error.description)")
        }
    }

    @Test(arguments: [
        (scenario(steps: #"{"interactivePop": "cancel"}"#), NotifyBusError("nothing to pop", path: "steps[0].interactivePop")),
        (scenario(steps: #"{"interactiveDismiss": "cancel"}"#),
         NotifyBusError("nothing presented to dismiss", path: "steps[0].interactiveDismiss")),
        (scenario(steps: #"{"removeChild": "Banner"}"#), NotifyBusError("Banner is not in the hierarchy", path: "steps[0].removeChild")),
        (scenario(steps: #"{"removeChild": "Home"}"#), NotifyBusError("Home is not a child screen", path: "steps[0].removeChild")),
        (scenario(steps: #"{"addChild": "Home", "to": "Banner"}"#), NotifyBusError("Banner is not in the hierarchy", path: "steps[0].addChild")),
    ])
    func stepsThatCannotApplyNameTheirPath(json: String, expected: NotifyBusError) {
        #expect(throws: expected) { try run(json) }
    }

    @Test func addFirstAddsThenRemovesAndRemoveFirstTheOpposite() throws {
        let observers = #"[{"message": "keyboardWillShow", "addOn": "viewWillAppear", "removeOn": "viewWillAppear", "sameMoment": "addFirst"}, {"message": "keyboardWillHide", "addOn": "viewWillAppear", "removeOn": "viewWillAppear", "sameMoment": "removeFirst"}]"#
        let h = try run(Self.scenario(screens: #""Home": {"observers": []}, "Login": {"observers": \#(observers)}"#,
                                      steps: #"{"push": "Login"}"#))
        let changes = h.take().filter { $0.hasPrefix("add") || $0.hasPrefix("remove") }
        #expect(changes == [
            "add keyboardWillShow Login", "remove keyboardWillShow Login",
            "remove keyboardWillHide Login (nothing registered)", "add keyboardWillHide Login",
        ])
        #expect(h.bus.observerCount == 1)
    }

    @Test func childrenOfAScenarioScreenAreNewInstancesThatAppearWithIt() throws {
        let h = try run(Self.scenario(screens: #""Home": {"observers": []}, "Feed": {"observers": [], "children": ["Banner"]}, "Banner": {"observers": [{"message": "keyboardWillShow", "addOn": "viewWillAppear", "removeOn": "viewWillDisappear"}]}"#,
                                      steps: #"{"push": "Feed"}, {"pop": {}}, {"push": "Feed"}, {"removeChild": "Banner"}, {"addChild": "Banner", "to": "Feed"}"#))
        let lines = h.take(lifecycleOnly: true)
        #expect(lines.filter { $0.hasPrefix("Banner init") }.count == 3)
        #expect(lines.suffix(10) == [
            "Banner removeChild from Feed", "Banner viewWillDisappear", "Banner viewDidDisappear",
            "Banner removedFromHierarchy", "Banner deinit",
            "Banner init", "Banner addChild to Feed", "Banner viewDidLoad", "Banner viewWillAppear", "Banner viewDidAppear",
        ])
        #expect(h.bus.observerCount == 1, "the last Banner observes while on screen")
    }

    @Test func aTabSwitchUnderASheetRunsFromAScenario() throws {
        let h = try run(Self.scenario(screens: #""Home": {"observers": []}, "Cart": {"observers": []}, "Sheet": {"observers": []}"#,
                                      root: #"{"tabs": [{"navigation": "Home"}, {"navigation": "Cart"}]}"#,
                                      steps: #"{"present": "Sheet", "style": "pageSheet"}, {"selectTab": 1}, {"dismiss": {}}"#))
        #expect(h.take(lifecycleOnly: true).contains("Cart viewDidAppear"))
    }
}
