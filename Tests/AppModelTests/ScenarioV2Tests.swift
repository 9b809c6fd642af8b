import Foundation
import AppModel
import NotifyBus
import TestSupport
import Testing

/// Builds a scenario from its parts: screens, objects and steps as JSON text.
func scenarioJSON(screens: String = #""Home": {"observers": []}"#, objects: String? = nil, messages: String? = nil,
                  root: String = #"{"navigation": "Home"}"#, steps: String = "") -> String {
    var parts = [#""name": "v2""#, #""screens": {\#(screens)}"#, #""root": \#(root)"#, #""steps": [\#(steps)]"#]
    if let objects { parts.append(#""objects": {\#(objects)}"#) }
    if let messages { parts.append(#""messages": [\#(messages)]"#) }
    return "{" + parts.joined(separator: ", ") + "}"
}

@Suite struct ScenarioV2ParsingTests {
    @Test func styledObserversObjectsRemovalsAndPostsParse() throws {
        let json = scenarioJSON(
            screens: #""Home": {"observers": [{"message": "keyboardWillShow", "kind": "block", "capture": "unowned", "token": "kb", "addOn": "viewDidLoad", "removeOn": "deinit"}], "removals": [{"on": "viewWillDisappear", "remove": "name", "message": "AppDidLogin"}, {"on": "deinit", "drop": "kb"}]}"#,
            objects: #""Popup": {"host": "Home", "createdOn": "viewDidAppear", "methods": ["show"], "calls": [{"method": "show", "on": "viewDidAppear"}], "retained": true, "observers": [{"message": "AppDidLogin", "kind": "selector", "selector": "loggedIn:", "addOn": "show", "removeOn": "deinit", "removeBy": "owner"}], "removals": [{"on": "deinit", "remove": "owner"}]}"#,
            messages: #""AppDidLogin""#,
            steps: #"{"post": "AVAudioSessionInterruptionNotification", "payload": {"type": "began", "option": 1, "flags": [true, null]}}, {"call": "show", "on": "Popup"}, {"drop": "kb", "of": "Home"}, {"create": "Popup"}, {"release": "Popup"}"#)
        let scenario = try Scenario.parse(Data(json.utf8))
        #expect(scenario.messages == ["AppDidLogin"])
        #expect(scenario.screens["Home"]?.observers == [
            ObserverSpec(message: "keyboardWillShow", addOn: .viewDidLoad, removeOn: .deinit,
                         style: ObserverStyle(kind: .block, capture: .unowned, token: "kb")),
        ])
        #expect(scenario.screens["Home"]?.observers.first?.style?.removeBy == .token)
        #expect(scenario.screens["Home"]?.removals == [
            RemovalSpec(on: .viewWillDisappear, action: .name("AppDidLogin")), RemovalSpec(on: .deinit, action: .drop("kb")),
        ])
        var popup = ObjectSpec(host: .screen("Home"), createdOn: .screen(.viewDidAppear))
        popup.methods = ["show"]
        popup.calls = [MethodCall(method: "show", on: .screen(.viewDidAppear))]
        popup.retained = true
        popup.observers = [StyledObserver(message: "AppDidLogin", addOn: .method("show"), removeOn: .deinit,
                                          style: ObserverStyle(kind: .selector, removeBy: .owner, selector: "loggedIn:"))]
        popup.removals = [RemovalSpec(on: .deinit, action: .owner)]
        #expect(scenario.objects == ["Popup": popup])
        #expect(scenario.steps == [
            .post(SystemNotification.audioInterruption, payload: ["type": "began", "option": 1, "flags": [true, nil]]),
            .object(.call("show", on: "Popup")), .object(.dropToken("kb", of: "Home")),
            .object(.create("Popup")), .object(.release("Popup")),
        ])
    }

    @Test func aSelectorObserverIsRemovedByNameUnlessToldOtherwise() throws {
        let json = scenarioJSON(screens: #""Home": {"observers": [{"message": "keyboardWillShow", "kind": "selector", "addOn": "init", "removeOn": "deinit"}]}"#)
        #expect(try Scenario.parse(Data(json.utf8)).screens["Home"]?.observers.first?.style?.removeBy == .name)
    }

    static let observer = #""message": "keyboardWillShow", "addOn": "init", "removeOn": "deinit""#
    static func screen(_ fields: String) -> String { #""Home": {"observers": [{\#(observer), \#(fields)}]}"# }
    static let helper = #""Helper": {"host": "Home", "methods": ["show"], "observers": []}"#

    /// Each case breaks one new field and names the error it must give.
    @Test(arguments: [
        (scenarioJSON(screens: screen(#""kind": "closure""#)),
         "screens.Home.observers[0].kind: unknown observer kind 'closure' (expected one of selector, block, token)"),
        (scenarioJSON(screens: screen(#""kind": "block", "capture": "strng""#)),
         "screens.Home.observers[0].capture: unknown capture 'strng' (expected one of strong, weak, unowned)"),
        (scenarioJSON(screens: screen(#""kind": "block""#)),
         "screens.Home.observers[0].capture: missing: a block captures its owner strong, weak or unowned"),
        (scenarioJSON(screens: screen(#""kind": "token", "capture": "weak""#)),
         "screens.Home.observers[0].capture: capture goes with a block observer"),
        (scenarioJSON(screens: screen(#""capture": "weak""#)),
         "screens.Home.observers[0].capture: capture goes with kind: selector, block or token"),
        (scenarioJSON(screens: screen(#""kind": "selector", "token": "t""#)),
         "screens.Home.observers[0].token: a selector observer has no token"),
        (scenarioJSON(screens: screen(#""kind": "token", "token": """#)),
         "screens.Home.observers[0].token: must not be empty"),
        (scenarioJSON(screens: screen(#""kind": "token", "removeBy": "self""#)),
         "screens.Home.observers[0].removeBy: unknown removal 'self' (expected one of token, name, owner)"),
        (scenarioJSON(screens: screen(#""kind": "selector", "removeBy": "token""#)),
         "screens.Home.observers[0].removeBy: a selector observer has no token"),
        (scenarioJSON(screens: screen(#""kind": "block", "capture": "weak", "selector": "a:""#)),
         "screens.Home.observers[0].selector: selector goes with a selector observer"),
        (scenarioJSON(screens: #""Home": {"observers": [{\#(observer), "kind": "token", "token": "t"}, {\#(observer), "kind": "block", "capture": "weak", "token": "t"}]}"#),
         "screens.Home.observers[1].token: 't' already holds a token observation"),
        (scenarioJSON(screens: #""Home": {"observers": [{"message": "PopupClosed", "addOn": "init", "removeOn": "never"}]}"#),
         "screens.Home.observers[0].message: unknown message 'PopupClosed'"),
        (scenarioJSON(messages: #""keyboardWillShow""#), "messages[0]: keyboardWillShow is already known"),
        (scenarioJSON(messages: #""A", "A""#), "messages[1]: A is declared twice"),
        (scenarioJSON(screens: #""Home": {"observers": [], "removals": [{"on": "init"}]}"#),
         "screens.Home.removals[0]: expected remove (owner, name, token) or drop"),
        (scenarioJSON(screens: #""Home": {"observers": [], "removals": [{"on": "init", "remove": "token", "token": "t"}]}"#),
         "screens.Home.removals[0].token: no observer keeps its registration in 't'"),
        (scenarioJSON(screens: #""Home": {"observers": [], "removals": [{"on": "init", "remove": "owner", "message": "keyboardWillShow"}]}"#),
         "screens.Home.removals[0].message: message does not go with remove: owner"),
        (scenarioJSON(screens: #""Home": {"observers": [], "removals": [{"on": "whenever", "remove": "owner"}]}"#),
         "screens.Home.removals[0].on: unknown moment 'whenever'"),
        (scenarioJSON(screens: #""Home": {"observers": [], "removals": [{"on": "init", "remove": "name", "message": "keyboardWilShow"}]}"#),
         "screens.Home.removals[0].message: unknown message 'keyboardWilShow'"),
        (scenarioJSON(objects: #""Home": {"host": "Home"}"#), "objects.Home: Home is already a screen"),
        (scenarioJSON(objects: #""Helper": {"host": "Nowhere"}"#), "objects.Helper.host: unknown host 'Nowhere' (expected a screen or another object: Home)"),
        (scenarioJSON(objects: #""Helper": {"host": "Helper"}"#), "objects.Helper.host: an object cannot host itself (expected a screen or another object)"),
        (scenarioJSON(objects: #""A": {"host": "B"}, "B": {"host": "A"}"#), "objects.A.host: A lives in itself through its hosts"),
        (scenarioJSON(objects: #""Helper": {"host": "Home", "createdOn": "viewDidApear"}"#),
         "objects.Helper.createdOn: unknown moment 'viewDidApear'"),
        (scenarioJSON(objects: #""Helper": {"host": "Home", "createdOn": "deinit"}"#),
         "objects.Helper.createdOn: a host cannot make an object in its deinit"),
        (scenarioJSON(objects: #""Helper": {"host": "Home", "colour": "red"}"#), "objects.Helper.colour: unknown key"),
        (scenarioJSON(objects: #""Helper": {"host": "Home", "observers": [{\#(observer)}]}"#),
         "objects.Helper.observers[0].kind: missing (expected one of selector, block, token)"),
        (scenarioJSON(objects: #""Helper": {"host": "Home", "methods": ["show"], "observers": [{"message": "keyboardWillShow", "kind": "token", "addOn": "shw", "removeOn": "never"}]}"#),
         "objects.Helper.observers[0].addOn: unknown moment of Helper 'shw' (expected one of init, deinit, show)"),
        (scenarioJSON(objects: #""Helper": {"host": "Home", "observers": [{"message": "keyboardWillShow", "kind": "token", "addOn": "deinit", "removeOn": "never"}]}"#),
         "objects.Helper.observers[0].addOn: an observer added in deinit would outlive its owner at once"),
        (scenarioJSON(objects: #""Helper": {"host": "Home", "methods": ["init"]}"#), "objects.Helper.methods[0]: init is a moment of every object"),
        (scenarioJSON(objects: #""Helper": {"host": "Home", "methods": ["a", "a"]}"#), "objects.Helper.methods[1]: a is listed twice"),
        (scenarioJSON(objects: #""Helper": {"host": "Home", "calls": [{"method": "show", "on": "viewWillAppear"}]}"#),
         "objects.Helper.calls[0].method: unknown method 'show' of Helper"),
        (scenarioJSON(objects: #""Helper": {"host": "Home", "retained": 1}"#), "objects.Helper.retained: expected true or false"),
        (scenarioJSON(objects: #""Inner": {"host": "Helper", "createdOn": "viewDidLoad"}, \#(helper)"#),
         "objects.Inner.createdOn: unknown moment of Helper 'viewDidLoad' (expected one of init, deinit, show)"),
        (scenarioJSON(steps: #"{"post": "keyboardWillShow"}"#), "steps[0].post: keyboardWillShow is posted by the app model's own steps"),
        (scenarioJSON(steps: #"{"post": "PopupClosed"}"#), "steps[0].post: unknown message 'PopupClosed'"),
        (scenarioJSON(steps: #"{"post": "UIApplicationDidReceiveMemoryWarningNotification", "sender": "Home"}"#),
         "steps[0].sender: unknown key for a post step"),
        (scenarioJSON(objects: helper, steps: #"{"call": "show"}"#), "steps[0].on: a call needs on"),
        (scenarioJSON(objects: helper, steps: #"{"call": "hide", "on": "Helper"}"#), "steps[0].call: unknown method 'hide' of Helper (methods: show)"),
        (scenarioJSON(objects: helper, steps: #"{"call": "show", "on": "Home"}"#), "steps[0].on: unknown object 'Home' (objects: Helper)"),
        (scenarioJSON(objects: helper, steps: #"{"create": "Helpr"}"#), "steps[0].create: unknown object 'Helpr'"),
        (scenarioJSON(steps: #"{"call": "show", "on": "Popup"}"#),
         "steps[0].on: unknown object 'Popup' (the scenario declares no objects)"),
        (scenarioJSON(objects: #""Helper": {"host": "Home"}"#, steps: #"{"call": "show", "on": "Helper"}"#),
         "steps[0].call: unknown method 'show' of Helper (Helper declares no methods)"),
        (scenarioJSON(objects: #""Helper": {"host": "Home", "calls": [{"method": "show", "on": "viewWillAppear"}]}"#),
         "objects.Helper.calls[0].method: unknown method 'show' of Helper (Helper declares no methods)"),
        (scenarioJSON(steps: #"{"drop": "t", "of": "Home"}"#), "steps[0].drop: no observer of Home keeps its registration in 't'"),
        (scenarioJSON(steps: #"{"drop": "t"}"#), "steps[0].of: a drop needs of"),
        (scenarioJSON(steps: #"{"drop": "t", "of": "Nobody"}"#), "steps[0].of: unknown screen or object 'Nobody'"),
    ])
    func invalidV2FieldNamesThePathOfTheMistake(json: String, expected: String) {
        expectParseError(json, startingWith: expected)
    }
}

@Suite struct ScenarioV2RunnerTests {
    /// Runs a scenario; the harness keeps the runner (and so the app) alive, as a recording does.
    func run(_ json: String) throws -> (Harness, [String]) {
        let h = Harness()
        let runner = ScenarioRunner(scenario: try Scenario.parse(Data(json.utf8)), file: "s.json", bus: h.bus, clock: h.clock)
        try runner.run()
        h.bus.sweepReleasedOwners()
        h.keep(runner)
        return (h, h.take())
    }

    /// The owners released for good (not those only a strong block holds), by label.
    func released(_ h: Harness) -> [String] {
        var labels: [UInt64: String] = [:]
        return h.sink.events.compactMap { event in
            switch event.kind {
            case .ownerRegistered(let owner, _, let label): labels[owner] = label; return nil
            case .ownerReleased(let owner, nil): return labels[owner]
            default: return nil
            }
        }
    }

    static let screens = #""Home": {"observers": []}, "Detail": {"observers": []}"#

    @Test func overwritingATokenPropertyReleasesTheOldTokenButNotTheOldBlock() throws {
        for (kind, extra, releases) in [("token", "", true), ("block", #", "capture": "weak""#, false)] {
            let (h, log) = try run(scenarioJSON(
                screens: #""Home": {"observers": [{"message": "keyboardWillShow", "kind": "\#(kind)"\#(extra), "token": "kb", "addOn": "viewWillAppear", "removeOn": "never"}]}, "Detail": {"observers": []}"#,
                steps: #"{"push": "Detail"}, {"pop": {}}"#))
            #expect(log.filter { $0 == "add keyboardWillShow Home" }.count == 2)
            #expect(log.contains("remove keyboardWillShow Home tokenReleased") == releases, "\(kind): \(log)")
            #expect(h.bus.observerCount == (releases ? 1 : 2))
        }
    }

    @Test func unnamedRegistrationsAreAllKept() throws {
        let (h, log) = try run(scenarioJSON(
            screens: #""Home": {"observers": [{"message": "keyboardWillShow", "kind": "token", "addOn": "viewWillAppear", "removeOn": "never"}]}, "Detail": {"observers": []}"#,
            steps: #"{"push": "Detail"}, {"pop": {}}"#))
        #expect(!log.contains { $0.contains("tokenReleased") })
        #expect(h.bus.observerCount == 2)
    }

    @Test func droppingATokenRemovesItsObserverAndRemovingKeepsThePropertySet() throws {
        let token = #""Home": {"observers": [{"message": "keyboardWillShow", "kind": "token", "token": "kb", "addOn": "viewDidLoad", "removeOn": "never"}]}"#
        let (dropped, log) = try run(scenarioJSON(screens: token, steps: #"{"drop": "kb", "of": "Home"}"#))
        #expect(log.suffix(1) == ["remove keyboardWillShow Home tokenReleased"])
        #expect(dropped.bus.observerCount == 0)
        // `removeObserver(observation)` twice: the second finds nothing and is recorded.
        let block = #""Home": {"observers": [{"message": "keyboardWillShow", "kind": "block", "capture": "weak", "token": "kb", "addOn": "viewDidLoad", "removeOn": "never"}], "removals": [{"on": "viewWillAppear", "remove": "token", "token": "kb"}, {"on": "viewDidAppear", "remove": "token", "token": "kb"}]}"#
        let (_, twice) = try run(scenarioJSON(screens: block))
        #expect(twice.filter { $0.hasPrefix("remove keyboardWillShow Home") } == ["remove keyboardWillShow Home", "remove keyboardWillShow Home"])
    }

    @Test func removalsByNameAndByOwnerReachSelectorsOnly() throws {
        let observers = #"{"message": "keyboardWillShow", "kind": "selector", "addOn": "viewDidLoad", "removeOn": "viewWillDisappear", "removeBy": "BY"}, {"message": "keyboardWillShow", "kind": "block", "capture": "weak", "addOn": "viewDidLoad", "removeOn": "viewWillDisappear", "removeBy": "BY"}"#
        for by in ["name", "owner"] {
            let (h, _) = try run(scenarioJSON(
                screens: #""Home": {"observers": []}, "Detail": {"observers": [\#(observers.replacingOccurrences(of: "BY", with: by))]}"#,
                steps: #"{"push": "Detail"}, {"pop": {}}"#))
            // The selector went; the block stays registered (Foundation's rules).
            #expect(h.bus.observerCount == 1, "by \(by)")
        }
    }

    @Test func objectsAreCreatedCalledAndReleasedWithTheirHost() throws {
        let objects = #""Bar": {"host": "Detail", "createdOn": "viewDidLoad", "methods": ["show"], "calls": [{"method": "show", "on": "viewDidAppear"}], "observers": [{"message": "orientationDidChange", "kind": "token", "token": "t", "addOn": "show", "removeOn": "never"}]}, "Button": {"host": "Bar", "createdOn": "show", "observers": [{"message": "keyboardWillShow", "kind": "selector", "addOn": "init", "removeOn": "deinit", "removeBy": "owner"}]}"#
        let (h, log) = try run(scenarioJSON(screens: Self.screens, objects: objects, steps: #"{"push": "Detail"}, {"pop": {}}"#))
        #expect(log.contains("attach Bar to Detail"))
        #expect(log.contains("attach Button to Bar"))
        let interesting = log.filter { $0.contains("Bar") || $0.contains("Button") || $0 == "Detail deinit" }
        #expect(interesting == [
            "attach Bar to Detail", "add orientationDidChange Bar", "attach Button to Bar", "add keyboardWillShow Button",
            "remove keyboardWillShow Button ownerSelectors", "remove orientationDidChange Bar tokenReleased",
            "Detail deinit", "released Bar", "released Button",
        ], "\(log)")
        #expect(h.bus.observerCount == 0)
    }

    @Test func stepsCreateCallReleaseAndReplaceObjects() throws {
        let objects = #""Popup": {"host": "Home", "methods": ["show"], "observers": [{"message": "keyboardWillShow", "kind": "token", "token": "t", "addOn": "show", "removeOn": "never"}]}"#
        let (_, log) = try run(scenarioJSON(screens: Self.screens, objects: objects,
                                            steps: #"{"create": "Popup"}, {"call": "show", "on": "Popup"}, {"create": "Popup"}, {"release": "Popup"}"#))
        #expect(log.filter { $0.contains("Popup") } == [
            "attach Popup to Home", "add keyboardWillShow Popup", "attach Popup to Home",
            "remove keyboardWillShow Popup tokenReleased", "released Popup", "released Popup",
        ])
    }

    @Test func somethingThatKeepsAnObjectAliveKeepsItsObservers() throws {
        for (fields, capture) in [(#""retained": true, "#, "weak"), ("", "strong")] {
            let objects = #""Cache": {"host": "Detail", "createdOn": "viewDidLoad", \#(fields)"observers": [{"message": "UIApplicationDidReceiveMemoryWarningNotification", "kind": "block", "capture": "\#(capture)", "addOn": "init", "removeOn": "deinit"}]}"#
            let (h, log) = try run(scenarioJSON(screens: Self.screens, objects: objects,
                                                steps: #"{"push": "Detail"}, {"pop": {}}, {"post": "UIApplicationDidReceiveMemoryWarningNotification"}"#))
            #expect(!released(h).contains("Cache"), "\(fields)")
            #expect(log.contains("deliver NamedMessage -> Cache"))
            #expect(h.bus.observerCount == 1)
        }
    }

    @Test func aStrongBlockKeepsItsScreenAliveAfterItLeaves() throws {
        let detail = #""Home": {"observers": []}, "Detail": {"observers": [{"message": "keyboardWillShow", "kind": "block", "capture": "strong", "token": "kb", "addOn": "viewDidLoad", "removeOn": "REMOVE"}]}"#
        let (_, kept) = try run(scenarioJSON(screens: detail.replacingOccurrences(of: "REMOVE", with: "never"), steps: #"{"push": "Detail"}, {"pop": {}}"#))
        #expect(kept.contains("Detail removedFromHierarchy"))
        #expect(!kept.contains("Detail deinit"))
        let (_, freed) = try run(scenarioJSON(screens: detail.replacingOccurrences(of: "REMOVE", with: "viewDidDisappear"), steps: #"{"push": "Detail"}, {"pop": {}}"#))
        #expect(freed.contains("Detail deinit"))
    }

    @Test func postsCarryTheirPayloadAndOrigin() throws {
        let h = Harness()
        let json = scenarioJSON(messages: #""AppDidLogin""#, steps: #"{"post": "AVAudioSessionInterruptionNotification", "payload": {"type": "began"}}, {"post": "AppDidLogin"}"#)
        try ScenarioRunner(scenario: try Scenario.parse(Data(json.utf8)), file: "s.json", bus: h.bus, clock: h.clock).run()
        let posts = h.sink.events.compactMap { event -> (NamedMessage, PostOrigin)? in
            if case .posted(_, let message as NamedMessage, _, _, let origin) = event.kind { (message, origin) } else { nil }
        }
        #expect(posts.map(\.0) == [NamedMessage(name: SystemNotification.audioInterruption, payload: ["type": "began"]),
                                   NamedMessage(name: "AppDidLogin")])
        #expect(posts.map(\.1) == [.stimulus, .app])
    }

    @Test func objectStepsThatCannotApplyNameTheirPath() throws {
        let objects = #""Popup": {"host": "Detail", "methods": ["show"]}"#
        #expect(throws: NotifyBusError("no live Popup to call show on", path: "steps[0].call")) {
            try run(scenarioJSON(screens: Self.screens, objects: objects, steps: #"{"call": "show", "on": "Popup"}"#))
        }
        #expect(throws: NotifyBusError("no live Popup to release", path: "steps[0].release")) {
            try run(scenarioJSON(screens: Self.screens, objects: objects, steps: #"{"release": "Popup"}"#))
        }
        #expect(throws: NotifyBusError("Popup's host Detail is not live", path: "steps[0].create")) {
            try run(scenarioJSON(screens: Self.screens, objects: objects, steps: #"{"create": "Popup"}"#))
        }
        #expect(throws: NotifyBusError("no live Detail holding t", path: "steps[0].drop")) {
            try run(scenarioJSON(screens: #""Home": {"observers": []}, "Detail": {"observers": [{"message": "keyboardWillShow", "kind": "token", "token": "t", "addOn": "init", "removeOn": "never"}]}"#,
                                 steps: #"{"drop": "t", "of": "Detail"}"#))
        }
    }
}

@Suite struct ScenarioV2TokenStepTests {
    /// A step that calls a method adding into the same property overwrites it, as reassigning does.
    @Test func aMethodCalledAgainOverwritesItsToken() throws {
        let h = Harness()
        let objects = #""Player": {"host": "Home", "createdOn": "viewDidLoad", "methods": ["play"], "observers": [{"message": "AVAudioSessionInterruptionNotification", "kind": "token", "token": "interruption", "addOn": "play", "removeOn": "never"}]}"#
        let json = scenarioJSON(objects: objects, steps: #"{"call": "play", "on": "Player"}, {"call": "play", "on": "Player"}, {"post": "AVAudioSessionInterruptionNotification"}"#)
        let runner = ScenarioRunner(scenario: try Scenario.parse(Data(json.utf8)), file: "s.json", bus: h.bus, clock: h.clock)
        try runner.run()
        let log = h.take().filter { $0.contains("Player") || $0.hasPrefix("post") }
        #expect(log == [
            "attach Player to Home", "post didBecomeActive",
            "add AVAudioSessionInterruptionNotification Player", "add AVAudioSessionInterruptionNotification Player",
            "remove AVAudioSessionInterruptionNotification Player tokenReleased",
            "post NamedMessage", "deliver NamedMessage -> Player",
        ])
        #expect(h.bus.observerCount == 1)
        withExtendedLifetime(runner) {}
    }
}

@Suite struct ScenarioV2SameMomentTests {
    func run(order: String, kind: String) throws -> (Harness, [String]) {
        let h = Harness()
        let style = kind == "selector" ? #""kind": "selector""# : #""kind": "block", "capture": "weak", "token": "kb""#
        let objects = #""Helper": {"host": "Home", "createdOn": "viewDidLoad", "methods": ["activate"], "observers": [{"message": "keyboardWillShow", \#(style), "addOn": "activate", "removeOn": "activate", "sameMoment": "\#(order)"}]}"#
        let json = scenarioJSON(objects: objects, steps: #"{"call": "activate", "on": "Helper"}, {"call": "activate", "on": "Helper"}"#)
        let runner = ScenarioRunner(scenario: try Scenario.parse(Data(json.utf8)), file: "s.json", bus: h.bus, clock: h.clock)
        try runner.run()
        h.keep(runner)
        return (h, h.take().filter { $0.contains("keyboardWillShow Helper") })
    }

    /// The defensive re-add keeps one registration, by name for a selector and by its observation for a block.
    @Test func removeFirstKeepsOneRegistration() throws {
        let (selector, log) = try run(order: "removeFirst", kind: "selector")
        #expect(log == ["remove keyboardWillShow Helper (nothing registered)", "add keyboardWillShow Helper",
                        "remove keyboardWillShow Helper", "add keyboardWillShow Helper"])
        #expect(selector.bus.observerCount == 1)
        let (block, _) = try run(order: "removeFirst", kind: "block")
        #expect(block.bus.observerCount == 1)
    }

    @Test func addFirstLeavesNothingRegistered() throws {
        for kind in ["selector", "block"] {
            let (h, log) = try run(order: "addFirst", kind: kind)
            #expect(log.first == "add keyboardWillShow Helper", "\(kind)")
            #expect(h.bus.observerCount == 0, "\(kind)")
        }
    }

    @Test func anObjectsSameMomentMustSayItsOrder() {
        let objects = #""Helper": {"host": "Home", "methods": ["activate"], "observers": [{"message": "keyboardWillShow", "kind": "token", "addOn": "activate", "removeOn": "activate"}]}"#
        expectParseError(scenarioJSON(objects: objects), startingWith: "objects.Helper.observers[0].removeOn: added and removed at activate")
    }
}
