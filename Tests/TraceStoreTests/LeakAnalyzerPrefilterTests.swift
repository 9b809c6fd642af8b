import Foundation
import AppModel
import NotifyBus
import ScenarioTrace
import TestSupport
import Testing
@testable import TraceStore

/// The walk's prefilter (``LeakAnalyzer/deliveryMayMatter(to:)``: deliveries and posts left inside
/// SQLite) and the rules cannot disagree: for each rule, generated scenarios that trigger it give the
/// same findings analysed with the prefilter and with every row handed to the fold.
@Suite struct LeakAnalyzerPrefilterTests {
    /// SplitMix64: the same programs on every run and machine.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    static let messages = ["keyboardWillShow", "keyboardWillHide", "keyboardWillChangeFrame", "didBecomeActive",
                           "willResignActive", "didEnterBackground", "orientationDidChange",
                           "UIContentSizeCategoryDidChangeNotification", "AVAudioSessionInterruptionNotification"]
    static let screenNames = ["A", "B", "C"]

    /// One observer of a screen (or, with `object`, of an object, whose moments are `init` and `deinit`).
    static func observer(_ g: inout Generator, object: Bool, index: Int) -> [String: Any] {
        var entry: [String: Any] = ["message": g.pick(messages)]
        let moments = object ? ["init"] : ["init", "viewDidLoad", "viewWillAppear", "viewDidAppear"]
        let removals = object ? ["never", "deinit"] : ["never", "viewWillDisappear", "viewDidDisappear", "deinit"]
        entry["addOn"] = g.pick(moments)
        entry["removeOn"] = g.pick(removals)
        switch g.below(object ? 3 : 4) {
        case 0:
            entry["kind"] = "selector"
        case 1:
            entry["kind"] = "block"
            entry["capture"] = g.pick(["strong", "weak", "unowned", "weak"])
            if g.chance(60) { entry["token"] = "t\(index)" }
            if g.chance(20) { entry["removeBy"] = g.pick(["owner", "name"]) }
        case 2:
            entry["kind"] = "token"
            entry["token"] = "t\(index)"
        default:
            break   // a version-1 observer
        }
        return entry
    }

    /// A scenario of three screens and an object with random observers and removals, and steps that apply.
    static func scenario(_ g: inout Generator) -> [String: Any] {
        var screens: [String: Any] = ["Home": ["observers": []]]
        for name in screenNames {
            var screen: [String: Any] = ["observers": (0 ..< g.below(4)).map { observer(&g, object: false, index: $0) }]
            if g.chance(25) { screen["retainedAfterPop"] = true }
            if g.chance(30) {
                screen["removals"] = [g.chance(50) ? ["on": "deinit", "remove": "owner"]
                                                   : ["on": "viewWillDisappear", "remove": "name", "message": g.pick(messages)]]
            }
            screens[name] = screen
        }
        // Helper lives in Home (always there) and is made and let go of by steps; Part lives in a pushed screen.
        let helperObservers = (0 ..< 1 + g.below(3)).map { observer(&g, object: true, index: $0) }
        var helper: [String: Any] = ["host": "Home", "observers": helperObservers]
        if g.chance(30) { helper["retained"] = true }
        if g.chance(30) { helper["removals"] = [["on": "deinit", "remove": "owner"]] }
        var part: [String: Any] = ["host": g.pick(screenNames), "createdOn": "viewDidLoad",
                                   "observers": (0 ..< 1 + g.below(2)).map { observer(&g, object: true, index: $0) }]
        if g.chance(40) { part["retained"] = true }
        let tokens = helperObservers.compactMap { $0["token"] as? String }
        var steps: [[String: Any]] = []
        var depth = 1, helperLive = false
        for _ in 0 ..< 4 + g.below(10) {
            switch g.below(13) {
            case 0, 1: steps.append(["push": g.pick(screenNames)]); depth += 1
            case 2 where depth > 1: steps.append(["pop": [String: Any]()]); depth -= 1
            case 3: steps.append(["keyboard": g.pick(["show", "hide"])])
            case 4: steps.append(["background": [String: Any]()]); steps.append(["foreground": [String: Any]()])
            case 5: steps.append(["interrupt": [String: Any]()])
            case 6: steps.append(["post": g.pick(["UIContentSizeCategoryDidChangeNotification", "AVAudioSessionInterruptionNotification"])])
            case 7: steps.append(["rotate": g.pick(["portrait", "landscapeLeft"])])
            case 8, 9: steps.append(["create": "Helper"]); helperLive = true
            case 10 where helperLive: steps.append(["release": "Helper"]); helperLive = false
            case 11 where helperLive && !tokens.isEmpty: steps.append(["drop": g.pick(tokens), "of": "Helper"])
            default: steps.append(["keyboard": "show"])
            }
        }
        var file: [String: Any] = ["name": "generated", "screens": screens, "objects": ["Helper": helper, "Part": part],
                                   "root": ["navigation": "Home"], "steps": steps]
        if g.chance(30) { file["selectorSemantics"] = "legacy" }
        return file
    }

    /// The findings of one session with and without the prefilter.
    static func bothWays(_ path: String, session: Int64) throws -> (filtered: [LeakFinding], unfiltered: [LeakFinding]) {
        let reader = try TraceReader(path: path)
        var configuration = LeakAnalyzer.Configuration()
        configuration.selectorSemantics = try reader.session(session).selectorSemantics ?? .modern
        return (try LeakAnalyzer.analyze(reader, session: session, configuration: configuration, companion: nil, prefilter: true),
                try LeakAnalyzer.analyze(reader, session: session, configuration: configuration, companion: nil, prefilter: false))
    }

    /// Steps and observers that trigger `rule`, put into a generated scenario at a random place, so
    /// that every rule is exercised beside the random rest.
    static func motif(for rule: LeakRule, into file: inout [String: Any], _ g: inout Generator) {
        var objects = file["objects"] as! [String: Any]
        var steps = file["steps"] as! [[String: Any]]
        var motif: [[String: Any]] = []
        let show: [String: Any] = ["keyboard": "show"]
        func helperObserver(_ entry: [String: Any]) {
            var helper = objects["Helper"] as! [String: Any]
            helper["observers"] = [entry] + (helper["observers"] as! [[String: Any]])
            helper["retained"] = false
            objects["Helper"] = helper
        }
        switch rule {
        case .tokenReleasedUnheard:
            helperObserver(["message": "keyboardWillShow", "kind": "token", "token": "kept", "addOn": "init", "removeOn": "never"])
            motif = [["create": "Helper"], ["drop": "kept", "of": "Helper"], show]
        case .unownedCaptureAfterRelease, .deliveryAfterOwnerGone, .observerOutlivesOwner:
            helperObserver(["message": "keyboardWillShow", "kind": "block", "capture": rule == .unownedCaptureAfterRelease ? "unowned" : "weak",
                            "addOn": "init", "removeOn": "never"])
            motif = [["create": "Helper"], ["release": "Helper"], show]
        case .blockRetainsOwner:
            helperObserver(["message": "keyboardWillShow", "kind": "block", "capture": "strong", "addOn": "init", "removeOn": "never"])
            motif = [["create": "Helper"], ["release": "Helper"], show]
        case .removalMissesObserver:
            helperObserver(["message": "keyboardWillShow", "kind": "block", "capture": "weak", "token": "kept",
                            "addOn": "init", "removeOn": "deinit", "removeBy": "owner"])
            motif = [["create": "Helper"], ["release": "Helper"]]
        case .unbalancedRemoval:
            helperObserver(["message": "keyboardWillShow", "kind": "block", "capture": "weak", "token": "kept",
                            "addOn": "init", "removeOn": "deinit"])
            var helper = objects["Helper"] as! [String: Any]
            helper["removals"] = [["on": "deinit", "remove": "token", "token": "kept"]]
            objects["Helper"] = helper
            motif = [["create": "Helper"], ["release": "Helper"]]
        case .duplicateRegistration:
            helperObserver(["message": "keyboardWillShow", "kind": "selector", "addOn": "init", "removeOn": "never"])
            helperObserver(["message": "keyboardWillChangeFrame", "kind": "selector", "selector": "keyboardWillShow:",
                            "addOn": "init", "removeOn": "never"])
            motif = [["create": "Helper"], show]
        case .deliveryWhileOffscreen:
            var a = (file["screens"] as! [String: Any])["A"] as! [String: Any]
            a["observers"] = [["message": "keyboardWillShow", "addOn": "viewDidLoad", "removeOn": "deinit"]] + (a["observers"] as! [[String: Any]])
            var screens = file["screens"] as! [String: Any]
            screens["A"] = a
            file["screens"] = screens
            motif = [["push": "A"], ["push": "B"], show]
        }
        let at = g.below(steps.count + 1)
        steps.insert(contentsOf: motif, at: at)
        file["objects"] = objects
        file["steps"] = steps
    }

    @Test(arguments: LeakRule.allCases)
    func thePrefilterAndTheRuleAgree(rule: LeakRule) throws {
        var g = Generator(state: 0x5EED_0000 &+ UInt64(LeakRule.allCases.firstIndex(of: rule)!))
        let dir = try TemporaryDirectory()
        var ran = 0, triggered = 0
        var refused: [String] = []
        for attempt in 0 ..< 60 where triggered < 3 || ran < 12 {
            var file = Self.scenario(&g)
            if attempt % 2 == 0 { Self.motif(for: rule, into: &file, &g) }
            let data = try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys])
            let path = dir.file("g\(attempt).trace")
            // A generated step that cannot apply (create with no live host, drop of a token never set) is skipped.
            let summary: ScenarioRecording.Summary
            do { summary = try ScenarioRecording.record(scenario: data, file: "g.json", to: path) } catch {
                refused.append("\(error)")
                continue
            }
            ran += 1
            let (filtered, unfiltered) = try Self.bothWays(path, session: summary.sessionID)
            #expect(filtered == unfiltered, "\(String(decoding: data, as: UTF8.self))")
            if filtered != unfiltered { return }
            if unfiltered.contains(where: { $0.rule == rule }) { triggered += 1 }
        }
        #expect(triggered >= 3, "\(rule.rawValue): triggered in \(triggered) of \(ran) generated scenarios; refused: \(refused.prefix(3))")
    }
}
