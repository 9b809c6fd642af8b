// libFuzzer target: arbitrary bytes as a scenario file.
//
// `Scenario.parse` must turn any input into a scenario or a `NotifyBusError`, and a
// parsed scenario must run through the lifecycle model to its end or to an error
// located at a step: never a trap. Scenarios are the input `tracectl record` takes
// from users, so every number, name and nesting in them is hostile.
import AppModel
import Foundation
import NotifyBus

/// Scenarios with more steps than this are parsed but not run, to keep each input fast.
private let maximumStepsRun = 256

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    let scenario: Scenario
    do {
        scenario = try Scenario.parse(data)
    } catch {
        return 0  // rejected with a located error: what bad input should get
    }
    guard scenario.steps.count <= maximumStepsRun else { return 0 }
    let sink = MemoryTraceSink()
    let clock = ManualClock()
    let bus = Bus(sink: sink, clock: clock.traceClock)
    let runner = ScenarioRunner(scenario: scenario, file: "fuzz.json", bus: bus, clock: clock)
    do {
        try runner.run()
    } catch {
        // A step that cannot apply is an error, not a crash.
    }
    bus.sweepReleasedOwners()
    // Events carry a contiguous sequence: a gap or a repeat is a bus bug.
    for (index, event) in sink.events.enumerated() where event.seq != UInt64(index + 1) {
        fatalError("event \(index) has seq \(event.seq)")
    }
    return 0
}
