import AppModel
import Foundation
import NotifyBus
import Testing

/// Issue 13, item 4: a wait or transition too long for the clock is an error naming its path, never a trap.
@Suite struct HostileScenarioTests {
    func scenario(steps: String) -> Data {
        Data("""
            {"name": "s", "screens": {"Home": {"observers": []}, "Login": {"observers": []}},
             "root": {"navigation": "Home"}, "steps": \(steps)}
            """.utf8)
    }

    func parseError(_ steps: String) -> NotifyBusError? {
        do {
            _ = try Scenario.parse(scenario(steps: steps))
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        (#"[{"wait": 2e10}]"#, "steps[0].wait"),
        (#"[{"push": "Login"}, {"present": "Login", "duration": 2e10}]"#, "steps[1].duration"),
        (#"[{"wait": 1e308}]"#, "steps[0].wait"),
    ])
    func aDurationTooLongForTheClockNamesItsPath(steps: String, path: String) throws {
        let error = try #require(parseError(steps))
        #expect(error.path == path, "\(error)")
    }

    @Test func aNumberBeyondDoubleIsInvalidJSON() throws {
        let error = try #require(parseError(#"[{"wait": 1e309}]"#))
        #expect(error.message.hasPrefix("invalid JSON"), "\(error)")
    }

    @Test func waitsThatAddUpBeyondTheClockAreRefusedAtTheStepThatOverflows() throws {
        // Each wait is the longest one step may take; together they pass the limit at one step.
        let step = AppModel.longestInterval
        let fitting = Int(Scenario.maximumDuration / step)
        let waits = { (count: Int) in "[" + Array(repeating: #"{"wait": \#(step)}"#, count: count).joined(separator: ",") + "]" }
        let error = try #require(parseError(waits(fitting + 1)))
        #expect(error.path == "steps[\(fitting)].wait", "\(error)")
        #expect(parseError(waits(fitting)) == nil)
    }

    @Test func theClockSaturatesInsteadOfTrapping() {
        let clock = ManualClock(start: .max - 10)
        clock.advance(bySeconds: 2e10)
        #expect(clock.now == .max)
        clock.advance(bySeconds: .infinity)
        clock.advance(bySeconds: .nan)
        #expect(clock.now == .max)
    }

    @Test func theModelRefusesATimeItCannotKeep() throws {
        let app = AppModel(bus: Bus())
        #expect(throws: NotifyBusError.self) { try app.wait(seconds: 2e10) }
        #expect(throws: NotifyBusError.self) { try app.wait(seconds: .nan) }
        #expect(app.clock.now == 0)
    }

    /// JSON is UTF-8: UTF-16 and UTF-32 (which Foundation would read) and Latin-1 are refused, so
    /// that the scenario a trace stores for replay is the file's text.
    @Test(arguments: [String.Encoding.utf16, .utf16LittleEndian, .utf16BigEndian, .utf32, .isoLatin1])
    func textThatIsNotUTF8IsRefused(encoding: String.Encoding) throws {
        let text = String(decoding: scenario(steps: #"[{"push": "Login"}]"#), as: UTF8.self).replacingOccurrences(of: "\"s\"", with: "\"café\"")
        let data = try #require(text.data(using: encoding))
        do {
            _ = try Scenario.parse(data)
            Issue.record("parsed \(encoding)")
        } catch {
            #expect(error.description.hasPrefix("not UTF-8 JSON"), "\(error.description)")
        }
        #expect(try Scenario.parse(Data(text.utf8)).name == "café")
    }

    /// A key given twice in one object is named with its path: JSON would keep only the last.
    @Test(arguments: [
        (#"{"name": "a", "name": "b", "screens": {}, "root": {"navigation": "Home"}, "steps": []}"#, "name"),
        (#"{"name": "s", "screens": {"Home": {"observers": [], "observers": []}}, "root": {"navigation": "Home"}, "steps": []}"#, "screens.Home.observers"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [{"push": "Home"}, {"wait": 1, "w\u0061it": 2}]}"#, "steps[1].wait"),
        (#"{"name": "s", "screens": {"Home": {"observers": []}, "Ho\"me": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [[{"a": 1}, {"b": [1, {"c": 1, "c": 2}]}]]}"#, "steps[0][1].b[1].c"),
    ])
    func aKeyGivenTwiceNamesItsPath(json: String, path: String) throws {
        do {
            _ = try Scenario.parse(Data(json.utf8))
            Issue.record("parsed")
        } catch {
            #expect(error.description == "\(path): duplicate key (JSON would keep only the last)")
        }
    }

    /// Equal strings that are not keys, and equal keys in different objects, are not duplicates.
    @Test func equalKeysInDifferentObjectsAreNotDuplicates() throws {
        let json = #"{"name": "name", "screens": {"Home": {"observers": []}, "Login": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [{"push": "Login"}, {"push": "Login"}]}"#
        #expect(try Scenario.parse(Data(json.utf8)).name == "name")
    }
}
