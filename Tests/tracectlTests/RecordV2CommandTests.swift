import Foundation
import Testing

/// `tracectl record` with scenario format v2: a mistake in any new field exits 65
/// with one line naming its path, and leaves no file behind.
@Suite struct RecordV2CommandTests {
    static let home = #""Home": {"observers": [OBSERVER]}"#
    static func scenario(observer: String = "", objects: String = "{}", steps: String = "") -> String {
        #"{"name": "v2", "screens": {\#(home.replacingOccurrences(of: "OBSERVER", with: observer))}, "objects": \#(objects), "root": {"navigation": "Home"}, "steps": [\#(steps)]}"#
    }
    static let block = #"{"message": "keyboardWillShow", "addOn": "init", "removeOn": "never", "kind": "block""#

    @Test(arguments: [
        (scenario(observer: block + #", "capture": "strongly"}"#),
         "screens.Home.observers[0].capture: unknown capture 'strongly' (expected one of strong, weak, unowned)"),
        (scenario(observer: block + "}"), "screens.Home.observers[0].capture: missing: a block captures its owner strong, weak or unowned"),
        (scenario(observer: block.replacingOccurrences(of: "block", with: "notification") + "}"),
         "screens.Home.observers[0].kind: unknown observer kind 'notification' (expected one of selector, block, token)"),
        (scenario(observer: block + #", "capture": "weak", "token": 3}"#), "screens.Home.observers[0].token: expected a string"),
        (scenario(observer: block + #", "capture": "weak", "removeBy": "everything"}"#),
         "screens.Home.observers[0].removeBy: unknown removal 'everything' (expected one of token, name, owner)"),
        (scenario(objects: #"{"Helper": {"host": "Settings"}}"#),
         "objects.Helper.host: unknown host 'Settings' (expected a screen or another object: Home)"),
        (scenario(objects: #"{"Helper": {"host": "Home", "observers": [{"message": "keyboardWillShow", "kind": "token", "addOn": "activate", "removeOn": "never"}]}}"#),
         "objects.Helper.observers[0].addOn: unknown moment of Helper 'activate' (expected one of init, deinit)"),
        (scenario(steps: #"{"post": "AppDidLogin"}"#), "steps[0].post: unknown message 'AppDidLogin'"),
        (scenario(objects: #"{"Popup": {"host": "Home", "methods": ["show"]}}"#, steps: #"{"call": "show", "on": "Popup"}"#),
         "steps[0].call: no live Popup to call show on"),
    ])
    func mistakeExits65NamingItsPathAndLeavesNoTrace(json: String, expected: String) throws {
        let dir = try Scratch()
        let file = dir.file("v2.json")
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try tracectl("record", file, "-o", dir.file("v2.trace"))
        #expect(run.status == 65)
        #expect(run.stderr.hasPrefix("tracectl: \(expected)"), "got: \(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["v2.json"])
    }

    @Test func exampleBugIsReportedAndItsFixIsClean() throws {
        let dir = try Scratch()
        let trace = dir.file("popup.trace")
        #expect(try tracectl("record", example("v2-popup-strong-block"), "-o", trace).status == 0)
        let leaks = try tracectl("leaks", trace, "--format", "json")
        #expect(leaks.status == 1)
        let report = try #require(try json(leaks.stdout) as? [String: Any])
        let rules = (report["leaks"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
        #expect(rules == ["block-retains-owner"])
        let fixed = dir.file("fixed.trace")
        #expect(try tracectl("record", example("v2-popup-strong-block-fixed"), "-o", fixed).status == 0)
        #expect(try tracectl("leaks", fixed).status == 0)
    }
}
