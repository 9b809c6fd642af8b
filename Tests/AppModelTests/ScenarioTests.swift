import Foundation
import AppModel
import NotifyBus
import TestSupport
import Testing

@Suite struct ScenarioParsingTests {
    static let valid = """
        {"name": "s", "screens": {"Home": {"observers": []}, "Login": {"observers": [
            {"message": "keyboardWillShow", "addOn": "didBecomeActive", "removeOn": "willResignActive"}]}},
         "root": {"navigation": "Home"},
         "steps": [{"push": "Login"}, {"keyboard": "show", "height": 250}, {"pop": {}}]}
        """

    @Test func selectorSemanticsDefaultsToModernAndReadsLegacy() throws {
        let base = #"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": []"#
        #expect(try Scenario.parse(Data((base + "}").utf8)).selectorSemantics == .modern)
        #expect(try Scenario.parse(Data((base + #", "selectorSemantics": "legacy"}"#).utf8)).selectorSemantics == .legacy)
        #expect(try Scenario.parse(Data((base + #", "selectorSemantics": "modern"}"#).utf8)).selectorSemantics == .modern)
    }

    @Test func validScenarioParses() throws {
        let scenario = try Scenario.parse(Data(Self.valid.utf8))
        #expect(scenario.name == "s")
        #expect(scenario.root == .navigation("Home"))
        #expect(scenario.steps == [.push("Login"), .showKeyboard(height: 250), .pop])
        #expect(scenario.screens["Login"]?.observers == [
            ObserverSpec(message: "keyboardWillShow", addOn: .didBecomeActive, removeOn: .willResignActive),
        ])
    }

    /// Each case replaces one part of a valid scenario and names the error it must give.
    @Test(arguments: [
        (#"{"name": "s""#, "invalid JSON"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}}"#, "steps: missing"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [], "colour": 1}"#,
         "colour: unknown key (expected format, messages, name, objects, root, screens, selectorSemantics, steps)"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [], "selectorSemantics": "ios8"}"#,
         "selectorSemantics: unknown selector semantics 'ios8' (expected one of modern, legacy)"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [], "selectorSemantics": true}"#,
         "selectorSemantics: "),
        (#"{"name": "s", "screens": {"Home": {"observers": [], "colour": "red"}}, "root": {"navigation": "Home"}, "steps": []}"#,
         "screens.Home.colour: unknown key"),
        (#"{"name": "s", "screens": {"Home": {"observers": [{"message": "keyboardWilShow", "addOn": "init", "removeOn": "deinit"}]}}, "root": {"navigation": "Home"}, "steps": []}"#,
         "screens.Home.observers[0].message: unknown message 'keyboardWilShow'"),
        (#"{"name": "s", "screens": {"Home": {"observers": [{"message": "keyboardWillShow", "addOn": "viewDidApear", "removeOn": "deinit"}]}}, "root": {"navigation": "Home"}, "steps": []}"#,
         "screens.Home.observers[0].addOn: unknown moment 'viewDidApear'"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Hom"}, "steps": []}"#,
         "root.navigation: unknown screen 'Hom' (screens: Home)"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [{"pop": {}}, {"push": "Login"}]}"#,
         "steps[1].push: unknown screen 'Login'"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [{"jump": {}}]}"#,
         "steps[0]: unknown step 'jump'"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [{"pop": {}, "push": "Home"}]}"#,
         "steps[0]: one step per entry"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [{"pop": {"animated": true}}]}"#,
         "steps[0].pop.animated: unknown key"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [{"keyboard": "open"}]}"#,
         "steps[0].keyboard: unknown keyboard action 'open'"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [{"wait": -1}]}"#,
         "steps[0].wait: must not be negative"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"tabs": [{"navigation": "Home"}], "selected": 2}, "steps": []}"#,
         "root.selected: no tab 2: there are 1"),
        (#"{"name": "s", "screens": {"Home": {"observers": [], "supportedOrientations": "landscape"}}, "root": {"screen": "Home"}, "steps": []}"#,
         "screens.Home.preferredOrientation: portrait is not among the supported orientations"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"screen": "Home"}, "steps": [{"action": "tap"}]}"#,
         "steps[0].from: an action needs from"),
    ])
    func invalidScenarioNamesThePathOfTheMistake(json: String, expected: String) {
        expectParseError(json, startingWith: expected)
    }
}

@Suite struct ScenarioRunnerTests {
    func run(_ json: String) throws -> Harness {
        let h = Harness()
        let runner = ScenarioRunner(scenario: try Scenario.parse(Data(json.utf8)), file: "s.json", bus: h.bus, clock: h.clock)
        try runner.run()
        return h
    }

    @Test func scenarioObserversCarryACallSiteIntoTheFile() throws {
        let h = try run(ScenarioParsingTests.valid.replacingOccurrences(of: #""push": "Login"}, {"keyboard""#,
                                                                         with: #""push": "Login"}, {"interrupt": {}}, {"keyboard""#))
        let sites = h.sink.events.compactMap { event -> String? in
            if case .observerAdded(_, "keyboardWillShow", _, _, let site, _, _, _) = event.kind { site.description } else { nil }
        }
        #expect(sites == ["s.json: screens.Login.observers[0]"])
    }

    @Test func impossibleStepNamesItsPath() throws {
        let json = #"{"name": "s", "screens": {"Home": {"observers": []}, "Login": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [{"push": "Login"}, {"pop": {}}, {"interrupt": {}}, {"pop": {}}]}"#
        #expect(throws: NotifyBusError("nothing to pop", path: "steps[3].pop")) { try run(json) }
        let dismiss = #"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"screen": "Home"}, "steps": [{"dismiss": {}}]}"#
        #expect(throws: NotifyBusError("nothing presented to dismiss", path: "steps[0].dismiss")) { try run(dismiss) }
    }

    @Test func everyExampleRuns() throws {
        let examples = repositoryFile("Examples")
        let files = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 6)
        for file in files {
            let data = try Data(contentsOf: examples.appendingPathComponent(file))
            let h = Harness()
            let runner = ScenarioRunner(scenario: try Scenario.parse(data), file: file, bus: h.bus, clock: h.clock)
            #expect(throws: Never.self, "\(file)") { try runner.run() }
        }
    }
}

@Suite struct ScenarioValueTests {
    @Test func zeroIsANumberAndFalseIsABoolean() throws {
        let base = #"{"name": "s", "screens": {"Home": {"observers": [], "retainedAfterPop": RETAINED}}, "root": {"tabs": [{"screen": "Home"}], "selected": SELECTED}, "steps": []}"#
        let ok = try Scenario.parse(Data(base.replacingOccurrences(of: "RETAINED", with: "false").replacingOccurrences(of: "SELECTED", with: "0").utf8))
        #expect(ok.root == .tabs([.screen("Home")], selected: 0))
        #expect(throws: NotifyBusError("expected a number", path: "root.selected")) {
            try Scenario.parse(Data(base.replacingOccurrences(of: "RETAINED", with: "false").replacingOccurrences(of: "SELECTED", with: "true").utf8))
        }
        #expect(throws: NotifyBusError("expected true or false", path: "screens.Home.retainedAfterPop")) {
            try Scenario.parse(Data(base.replacingOccurrences(of: "RETAINED", with: "0").replacingOccurrences(of: "SELECTED", with: "0").utf8))
        }
    }
}
