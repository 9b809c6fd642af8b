import Foundation
import AppModel
import NotifyBus
import Testing

/// Numbers too large for the clock or the screen are refused with their path, not trapped on.
@Suite struct NumberLimitTests {
    static func scenario(_ steps: String) -> String {
        #"{"name": "s", "screens": {"Home": {"observers": []}, "Card": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [\#(steps)]}"#
    }

    @Test(arguments: [
        (#"{"wait": 2e10}"#, "steps[0].wait: must be at most 1000000 seconds"),
        (#"{"wait": 1000000.5}"#, "steps[0].wait: must be at most 1000000 seconds"),
        (#"{"present": "Card", "duration": 2e10}"#, "steps[0].duration: must be at most 1000000 seconds"),
        (#"{"interactivePop": "cancel", "duration": 1e300}"#, "steps[0].duration: must be at most 1000000 seconds"),
        (#"{"keyboard": "show", "height": 1e300}"#, "steps[0].height: must be a positive number of points up to 100000"),
        (#"{"keyboard": "show", "height": 0}"#, "steps[0].height: must be a positive number of points up to 100000"),
        (#"{"selectTab": 1e300}"#, "steps[0].selectTab: expected a whole number"),
        (#"{"wait": -0.5}"#, "steps[0].wait: must not be negative"),
        (#"{"wait": 1e400}"#, "invalid JSON: Number 1e400 is not representable in Swift."),
    ])
    func outOfRangeNumbersNameTheirPath(step: String, expected: String) {
        do {
            _ = try Scenario.parse(Data(Self.scenario(step).utf8))
            Issue.record("accepted \(step)")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func theLongestIntervalIsAccepted() throws {
        let scenario = try Scenario.parse(Data(Self.scenario(#"{"wait": 1000000}, {"present": "Card", "duration": 1e6}"#).utf8))
        let h = Harness()
        let runner = ScenarioRunner(scenario: scenario, file: "s.json", bus: h.bus, clock: h.clock)
        try runner.run()
        #expect(h.clock.now == 2_000_000_000_000_000)
    }

    @Test func aClockPastOneHundredYearsIsRefusedAtTheStepThatWouldPassIt() throws {
        let waits = Array(repeating: #"{"wait": 1000000}"#, count: 3_200).joined(separator: ", ")
        // 100 years is 3,153.6 waits of 10^6 s: the 3,154th would pass it, refused as the file is read.
        #expect(throws: NotifyBusError.self) { try Scenario.parse(Data(Self.scenario(waits).utf8)) }
        do {
            _ = try Scenario.parse(Data(Self.scenario(waits).utf8))
        } catch {
            #expect(error.path == "steps[3153].wait", "\(error)")
        }
        // Driven from Swift, the model refuses the same step at run time.
        let h = Harness()
        for _ in 0..<3_153 { try h.app.wait(seconds: 1_000_000) }
        #expect(throws: NotifyBusError("the app's clock would pass 100 years")) { try h.app.wait(seconds: 1_000_000) }
        #expect(h.clock.now <= AppModel.clockLimit)
    }

    @Test func theSwiftAPIRefusesNonFiniteAndHugeIntervals() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        #expect(throws: NotifyBusError("a wait must be a finite number of seconds")) { try h.app.wait(seconds: .infinity) }
        #expect(throws: NotifyBusError("a wait must be a finite number of seconds")) { try h.app.wait(seconds: .nan) }
        #expect(throws: NotifyBusError("a wait must be at most 1000000 seconds")) { try h.app.wait(seconds: 2e10) }
        #expect(throws: NotifyBusError("a duration must be at most 1000000 seconds")) {
            try h.app.present(Screen(name: "Card"), duration: 2e10)
        }
        #expect(throws: NotifyBusError("the keyboard needs a positive height")) { try h.app.showKeyboard(height: .nan) }
        #expect(h.app.topLeaf?.name == "Home", "a refused present changes nothing")
    }
}
