@testable import AppModel
import Foundation
import NotifyBus
import Testing

/// Scenarios read their steps one at a time (memory flat in the number of steps, BENCHMARKS.md
/// "Recording memory as a scenario grows"), with the same result and the same errors as one tree.
@Suite struct ScenarioStepSplitterTests {
    static let examples: [URL] = {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { directory.appendingPathComponent($0) }
    }()

    func scenario(steps: String, key: String = "steps") -> Data {
        Data("""
            {"name": "s", "screens": {"Home": {"observers": []}, "Login": {"observers": []}},
             "root": {"navigation": "Home"}, "\(key)": \(steps)}
            """.utf8)
    }

    func outcome(_ parse: () throws(NotifyBusError) -> Scenario) -> Result<Scenario, NotifyBusError> {
        do throws(NotifyBusError) { return .success(try parse()) } catch { return .failure(error) }
    }

    @Test func everyExampleSplitsAndParsesAsTheWholeTree() throws {
        #expect(Self.examples.count > 10)
        for url in Self.examples {
            let data = try Data(contentsOf: url)
            let split = try #require(ScenarioStepSplitter(data), "\(url.lastPathComponent)")
            let whole = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(split.steps.count == (whole?["steps"] as? [Any])?.count, "\(url.lastPathComponent)")
            #expect(try Scenario.parse(data) == Scenario.parseWhole(data), "\(url.lastPathComponent)")
        }
    }

    @Test(arguments: [
        #"[{"push": "Login"}, {"pop": true}, {"wait": 1.5}]"#,
        #"[ ]"#,
        #"[{"push": "Lo\"gin"}]"#,
        #"[{"push": "Login"}, {"push": 01}]"#,
        #"[{"push": "Login"},]"#,
        #"[{"push": "Nowhere"}]"#,
        #"[{"wait": -1}, {"wait": }]"#,
        #"[{"wait": 1}] trailing"#,
        #""steps""#,
        #"[[{"wait": 1}]]"#,
    ])
    func splitAndWholeAgree(steps: String) {
        let data = scenario(steps: steps)
        let split = outcome { () throws(NotifyBusError) in try Scenario.parse(data) }
        let whole = outcome { () throws(NotifyBusError) in try Scenario.parseWhole(data) }
        switch (split, whole) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a == b)
        default: Issue.record("split \(split) but whole \(whole)")
        }
    }

    @Test func aSplitStepNamesItsPath() throws {
        let data = scenario(steps: #"[{"push": "Login"}, {"push": "Nowhere"}]"#)
        #expect(ScenarioStepSplitter(data)?.steps.count == 2)
        #expect(throws: NotifyBusError.self) { try Scenario.parse(data) }
        do {
            _ = try Scenario.parse(data)
        } catch {
            #expect(error.path?.hasPrefix("steps[1]") == true)
        }
    }

    @Test func anEscapedOrRepeatedKeyIsLeftToTheWholeTree() {
        #expect(ScenarioStepSplitter(scenario(steps: "[]", key: #"st\u0065ps"#)) == nil)
        let twice = Data(#"{"steps": [], "name": "s", "steps": [{"wait": 1}]}"#.utf8)
        #expect(ScenarioStepSplitter(twice) == nil)
        #expect(ScenarioStepSplitter(Data("[1]".utf8)) == nil)
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(ScenarioStepSplitter(scenario(steps: "[\(deep)]")) == nil)
        #expect(ScenarioStepSplitter(scenario(steps: "[[[]]]"))?.steps.count == 1)
    }
}
