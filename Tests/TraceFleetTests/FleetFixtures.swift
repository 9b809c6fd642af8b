import Foundation
import ScenarioTrace
import TestSupport
import TraceFleet
import TraceStore

/// Traces of example scenarios, recorded with a build and a start time each.
enum FleetFixtures {
    /// Records `scenario` (an example's name) into `path` as build `build`, started `minutes` after a fixed origin.
    @discardableResult
    static func record(_ scenario: String, to path: String, build: String, minutes: Int,
                       uuid: UUID = UUID(), test: String? = nil) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: example(scenario)))
        let start = Date(timeIntervalSince1970: 1_790_000_000 + Double(minutes) * 60)
        try ScenarioRecording.record(scenario: data, file: "\(scenario).json", to: path, startedAt: start,
                                     metadata: SessionMetadata(uuid: uuid, appVersion: "1.\(build)", build: build, os: "iOS 18.1",
                                                               deviceModel: "iPhone16,2", testName: test ?? scenario))
        return path
    }

    /// Marks every session of a trace as never ended, as a recorder killed before `close()` leaves it.
    static func unfinish(_ path: String) throws {
        let db = try Database(path: path, mode: .readWrite)
        try db.execute("UPDATE sessions SET ended_at = NULL, crashed_at = NULL")
    }

    /// Three builds: a leak in 100, fixed in 101, back in 102 with a second, new leak; a clean scenario in each.
    static func history(in directory: TemporaryDirectory) throws -> [String] {
        [
            try record("seed000-keyboard-leak", to: directory.file("b100-leak.trace"), build: "100", minutes: 0),
            try record("v2-keyboard-helper-leak-fixed", to: directory.file("b100-clean.trace"), build: "100", minutes: 1),
            try record("v2-keyboard-helper-leak-fixed", to: directory.file("b101-clean.trace"), build: "101", minutes: 10),
            try record("seed000-keyboard-leak", to: directory.file("b102-leak.trace"), build: "102", minutes: 20),
            try record("v2-popup-strong-block", to: directory.file("b102-block.trace"), build: "102", minutes: 21),
        ]
    }
}
