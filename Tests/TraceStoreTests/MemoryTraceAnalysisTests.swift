import AppModel
import Foundation
import NotifyBus
import ScenarioTrace
import Testing
import TestSupport
@testable import TraceStore

/// A session recorded in memory reads as its trace does (`RecordedEvent(_:session:)`, what
/// `tracectl scan`'s journeys analyse when their traces are not kept): every example scenario
/// recorded to a file and read back gives the same events, and the same findings, as the same
/// scenario recorded into a `MemoryTraceSink`.
@Suite struct MemoryTraceAnalysisTests {
    static let examples: [String] = {
        let folder = repositoryFile("Examples").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }()

    @Test func thereAreExamplesToCompare() {
        #expect(Self.examples.count >= 20)
    }

    @Test(arguments: examples)
    func aSessionInMemoryReadsAsItsTrace(_ name: String) throws {
        let dir = try TemporaryDirectory()
        let data = try Data(contentsOf: URL(fileURLWithPath: example(name)))
        let scenario = try Scenario.parse(data)
        let path = dir.file("\(name).trace")
        let summary = try ScenarioRecording.record(scenario: data, file: "\(name).json", to: path)
        let reader = try TraceReader(path: path)
        let cursor = try reader.events(session: summary.sessionID, payloads: false)
        var stored: [RecordedEvent] = []
        while let event = try cursor.next() { stored.append(event) }

        let events = try ScenarioRecording.events(of: scenario, file: "\(name).json", semantics: scenario.selectorSemantics)
        let inMemory = RecordedEvent.session(events, name: scenario.name, id: summary.sessionID)
        #expect(inMemory.count == stored.count)
        for (a, b) in zip(inMemory, stored) where a != b {
            Issue.record("seq \(b.seq): in memory \(a), stored \(b)")
            break
        }

        let configuration = LeakAnalyzer.Configuration(selectorSemantics: scenario.selectorSemantics)
        let fromFile = try LeakAnalyzer.analyze(reader, session: summary.sessionID, configuration: configuration)
        let fromMemory = LeakAnalyzer.analyze(recorded: inMemory, configuration: configuration)
        #expect(fromMemory == fromFile)
        if name.hasSuffix("-fixed") { #expect(fromMemory.isEmpty, "a fixed example has no findings") }
    }
}
