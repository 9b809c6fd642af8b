import Foundation
import AppModel
import NotifyBus
import Testing

@Suite struct TouchTests {
    func app() throws -> (Harness, home: Screen, overlay: Screen) {
        let h = Harness()
        let overlay = Screen(name: "Overlay", handledActions: ["close"])
        overlay.passesTouchesThrough = true
        overlay.subviews = [
            Subview(name: "Close", frame: Rect(x: 330, y: 60, width: 44, height: 44), action: "close"),
            Subview(name: "Hidden", frame: Rect(x: 0, y: 600, width: 390, height: 200), isHidden: true),
            Subview(name: "Clear", frame: Rect(x: 0, y: 600, width: 390, height: 200), alpha: 0),
            Subview(name: "Disabled", frame: Rect(x: 0, y: 600, width: 390, height: 200), isUserInteractionEnabled: false),
        ]
        let home = Screen(name: "Home", handledActions: ["buy"], children: [overlay])
        home.subviews = [Subview(name: "Buy", frame: Rect(x: 20, y: 700, width: 350, height: 60), action: "buy")]
        try h.app.launch(root: .navigation([home]))
        _ = h.take()
        return (h, home, overlay)
    }

    @Test func aTouchPassesThroughWhereNoVisibleEnabledSubviewIs() throws {
        let (h, home, _) = try app()
        let result = try h.app.tap(x: 200, y: 720)
        #expect(result.receiver === home)
        #expect(result.subview?.name == "Buy")
        #expect(result.passedThrough.map(\.name) == ["Overlay"])
        #expect(result.actionHandler === home)
        #expect(h.take() == [
            "Overlay touchPassedThrough (200.0, 720.0)", "Home touchReceived (200.0, 720.0) on Buy",
            "action buy tried Home -> Home",
        ])
    }

    @Test func aVisibleEnabledSubviewTakesTheTouch() throws {
        let (h, _, overlay) = try app()
        let result = try h.app.tap(x: 340, y: 70)
        #expect(result.receiver === overlay)
        #expect(result.actionHandler === overlay)
        #expect(result.passedThrough.isEmpty)
    }

    @Test func aViewThatDoesNotPassTouchesTakesThemAll() throws {
        let (h, home, overlay) = try app()
        overlay.passesTouchesThrough = false
        #expect(try h.app.tap(x: 200, y: 720).receiver === overlay)
        #expect(try h.app.tap(x: 200, y: 300).receiver === overlay)
        overlay.passesTouchesThrough = true
        #expect(try h.app.tap(x: 200, y: 300).receiver === home, "Home's view itself takes it")
    }

    @Test func aTouchGoesThroughAPassingPresentationToThePresenter() throws {
        let (h, home, _) = try app()
        let card = Screen(name: "Card")
        card.passesTouchesThrough = true
        try h.app.present(card, style: .custom)
        let result = try h.app.tap(x: 200, y: 720)
        #expect(result.receiver === home)
        #expect(result.passedThrough.map(\.name) == ["Card", "Overlay"])
        // A full-screen presentation hides what is below: nothing else can take it.
        try h.app.dismiss()
        let modal = Screen(name: "Modal")
        modal.passesTouchesThrough = true
        try h.app.present(modal, style: .fullScreen)
        _ = h.take()
        let nobody = try h.app.tap(x: 200, y: 720)
        #expect(nobody.receiver == nil)
        #expect(h.take() == ["Modal touchPassedThrough (200.0, 720.0)", "Application touchReceived (200.0, 720.0)"])
    }

    @Test func aTapOffTheScreenIsRefused() throws {
        let (h, _, _) = try app()
        #expect(throws: NotifyBusError("(400.0, 10.0) is off the screen (390.0 × 844.0 points)")) { try h.app.tap(x: 400, y: 10) }
        #expect(h.take().isEmpty)
    }

    @Test func scenarioTapsAndSubviewsParseAndRun() throws {
        let json = #"{"name": "s", "screens": {"Home": {"observers": [], "handles": ["buy"], "subviews": [{"name": "Buy", "frame": [0, 0, 100, 100], "action": "buy"}]}, "Card": {"observers": [], "passesTouchesThrough": true}}, "root": {"screen": "Home"}, "steps": [{"present": "Card", "style": "custom"}, {"tap": [50, 50]}]}"#
        let scenario = try Scenario.parse(Data(json.utf8))
        #expect(scenario.screens["Home"]?.subviews == [Subview(name: "Buy", frame: Rect(x: 0, y: 0, width: 100, height: 100), action: "buy")])
        #expect(scenario.steps.last == .tap(x: 50, y: 50))
        let h = Harness()
        let runner = ScenarioRunner(scenario: scenario, file: "s.json", bus: h.bus, clock: h.clock)
        try runner.run()
        #expect(h.take().suffix(3) == [
            "Card touchPassedThrough (50.0, 50.0)", "Home touchReceived (50.0, 50.0) on Buy", "action buy tried Home -> Home",
        ])
    }

    @Test(arguments: [
        (#"{"tap": [1]}"#, "steps[0].tap: expected [x, y]"),
        (#"{"tap": [1, -2]}"#, "steps[0].tap[1]: must be a finite number of points from 0 to 100000"),
        (#"{"tap": [1, 2e10]}"#, "steps[0].tap[1]: must be a finite number of points from 0 to 100000"),
        (#"{"tap": [1, "2"]}"#, "steps[0].tap[1]: expected a number"),
        (#"{"tap": [1000, 2]}"#, "steps[0].tap: (1000.0, 2.0) is off the screen"),
    ])
    func tapMistakesNameTheirPath(step: String, expected: String) {
        let json = #"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"screen": "Home"}, "steps": [\#(step)]}"#
        do {
            let h = Harness()
            let runner = ScenarioRunner(scenario: try Scenario.parse(Data(json.utf8)), file: "s.json", bus: h.bus, clock: h.clock)
            try runner.run()
            Issue.record("accepted \(step)")
        } catch {
            #expect(error.description.hasPrefix(expected), "got \(error.description)")
        }
    }

    @Test(arguments: [
        (#"{"name": "B", "frame": [0, 0, 1]}"#, "screens.Home.subviews[0].frame: expected [x, y, width, height]"),
        (#"{"name": "B", "frame": [0, 0, -1, 1]}"#, "screens.Home.subviews[0].frame[2]: must not be negative"),
        (#"{"name": "B", "frame": [0, 0, 1, 1], "alpha": 2}"#, "screens.Home.subviews[0].alpha: must be between 0 and 1"),
        (#"{"name": "B", "frame": [0, 0, 1, 1], "hidden": 1}"#, "screens.Home.subviews[0].hidden: expected true or false"),
        (#"{"name": "B", "frame": [0, 0, 1, 1], "colour": 1}"#, "screens.Home.subviews[0].colour: unknown key"),
    ])
    func subviewMistakesNameTheirPath(subview: String, expected: String) {
        let json = #"{"name": "s", "screens": {"Home": {"observers": [], "subviews": [\#(subview)]}}, "root": {"screen": "Home"}, "steps": []}"#
        #expect(throws: (any Error).self) { try Scenario.parse(Data(json.utf8)) }
        do { _ = try Scenario.parse(Data(json.utf8)) } catch {
            #expect(error.description.hasPrefix(expected), "got \(error.description)")
        }
    }
}
