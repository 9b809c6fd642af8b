import Foundation
import Testing
import TestSupport
import TraceStore
@testable import tracectl

/// `tracectl export --format chrome-trace` writes exactly what it wrote when every event was a
/// `JSON` value tree (issue 13): the golden files were made by that version. Observers, posts and
/// deliveries are now written as bytes field by field, so these pin every byte of them.
@Suite struct ExportGoldenTests {
    static let fixtures = ["events-golden/every-kind", "demo", "v2-audio-interruption-unowned", "v2-keyboard-helper-leak",
                           "seed000-keyboard-leak", "pagesheet-keyboard", "v1/seed000-keyboard-leak"]

    @Test(arguments: fixtures)
    func exportWritesTheGoldenDocument(trace: String) throws {
        let run = try tracectl("export", fixture(trace), "--format", "chrome-trace")
        #expect(run.status == 0, "\(run.stderr)")
        let golden = trace.replacingOccurrences(of: "/", with: "-")
        let expected = try Data(contentsOf: repositoryFile("Tests/Fixtures/export-golden/\(golden).json"))
        #expect(Data(run.stdout.utf8) == expected, "export \(trace) differs from export-golden/\(golden).json")
    }

    /// What the goldens do not hold: a message name that needs escaping, in an observer's slice and
    /// in its deliveries' names, and a removal with no reason recorded.
    @Test func namesAreEscapedAndAReasonlessRemovalIsRemoved() throws {
        let dir = try Scratch()
        let trace = dir.file("odd.trace")
        try FileManager.default.copyItem(atPath: fixture("events-golden/every-kind"), toPath: trace)
        let odd = "keyboard \"will\" \\ show\tnow\u{1}é"
        do {
            let db = try Database(path: trace, mode: .create)
            try db.execute("UPDATE strings SET value = '\(odd.replacingOccurrences(of: "'", with: "''"))' WHERE value = 'keyboardWillShow'")
            try db.execute("UPDATE events SET detail = NULL WHERE kind = \(EventKind.observerRemoved.rawValue)")
        }
        let run = try tracectl("export", trace, "--format", "chrome-trace")
        #expect(run.status == 0, "\(run.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let events = try #require(document["traceEvents"] as? [[String: Any]])
        let observers = events.filter { $0["cat"] as? String == "observer" }
        #expect(observers.contains { $0["name"] as? String == odd })
        #expect(events.contains { $0["cat"] as? String == "delivery" && $0["name"] as? String == "delivered \(odd)" })
        let endings = Set(observers.compactMap { ($0["args"] as? [String: Any])?["ending"] as? String })
        #expect(endings == ["removed", "still registered at the end"], "\(endings)")
    }

    /// Rows of observers: each goes to the lowest-numbered row free at its start, as a search of
    /// the rows in turn finds it (what the packer replaced), on random lifetimes, many alive at once.
    @Test func rowPackingIsFirstFit() {
        var generator = SplitMix(seed: 0x5EED)
        for round in 0..<200 {
            var start: UInt64 = 0
            var packer = RowPacker()
            var ends: [UInt64] = []
            for _ in 0..<(round % 50 + 1) * 4 {
                start += generator.next() % 3
                let interval = Timeline.Interval(start: start, end: start + generator.next() % (round % 7 == 0 ? 2 : 40))
                let expected = ends.firstIndex { $0 <= interval.start } ?? ends.count
                if expected == ends.count { ends.append(interval.end) } else { ends[expected] = interval.end }
                #expect(packer.place(interval) == expected)
            }
            #expect(packer.count == ends.count)
        }
    }
}

extension ExportGoldenTests {
    /// Observers' indexes by id agree with a dictionary filled in order, dense ids or far apart,
    /// repeated or missing.
    @Test func observerIndexIsADictionaryOfTheLastIndex() {
        var generator = SplitMix(seed: 0x1D5)
        let cases: [[UInt64]] = [[], [1, 2, 3], [3, 1, 3, 2], [0, UInt64.max, 7], [1, 1 << 40]]
            + (0..<50).map { round in (0..<(round * 3)).map { _ in generator.next() % (round % 2 == 0 ? 64 : UInt64.max) } }
        for ids in cases {
            var expected: [UInt64: Int] = [:]
            for (index, id) in ids.enumerated() { expected[id] = index }
            let index = ObserverIndex(ids)
            for id in Set(ids).union([0, 1, 2, 63, 64, 1 << 40, UInt64.max]) {
                #expect(index[id] == expected[id], "\(ids): \(id)")
            }
        }
    }
}

/// A small deterministic generator, so a failure repeats.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
