import Foundation
import Testing
@testable import tracectl

/// The pieces `tracectl events` prints every event with (issue 13): the JSON time by integer
/// arithmetic, ids through a dense array, and the walk that prints deliveries inside SQLite.
@Suite struct EventPrinterTests {
    /// What an `Output` wrote, through a file (more than a pipe holds).
    func written(_ body: (Output) -> Void) throws -> String {
        let dir = try Scratch()
        let path = dir.file("out.txt")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let out = Output(handle)
        body(out)
        out.flush()
        try handle.close()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    /// `appendJSONSeconds` writes what `(Double(ns) / 1e9).description` wrote: at the ends of the
    /// integer range (10^-4 s, 2^23 s), whole seconds, trailing zeros, and random times of every size.
    @Test func jsonSecondsAreTheDoublesDescription() throws {
        var generator = SystemRandomNumberGenerator()
        let top: UInt64 = (1 << 23) * 1_000_000_000
        var times: [UInt64] = [0, 1, 99_999, 100_000, 100_001, 999_999, 1_000_000, 1_000_000_000, 43_817_000_000,
                               43_000_000_001, top - 1, top, top + 1, 1 << 53, UInt64(Int64.max), UInt64.max]
        for _ in 0..<20_000 {
            times.append(UInt64.random(in: 0..<top, using: &generator))
            times.append(UInt64.random(in: 0..<1_000_000_000_000, using: &generator) / 1_000_000 * 1_000_000)
            times.append(UInt64.random(in: 0..<(1 << UInt64.random(in: 1..<64, using: &generator)), using: &generator))
        }
        let text = try written { out in
            for time in times { out.appendJSONSeconds(time); out.endLine() }
        }
        let expected = times.map { (Double($0) / 1e9).description + "\n" }.joined()
        #expect(text == expected)
    }

    /// The time column copied from the last one written when the millisecond repeats: runs of equal
    /// milliseconds, a tie in between, other widths, and across a buffer's flush.
    @Test func repeatedMillisecondsAreWrittenAgain() throws {
        var times: [UInt64] = []
        var now: UInt64 = 43_817_000_000
        for step in 0..<60_000 {
            now += UInt64(step % 7) * 150_000
            times.append(now)
            if step % 1_000 == 0 { times.append(now / 1_000_000 * 1_000_000 + 500_000) }
        }
        for width in [10, 3, 16] {
            let text = try written { out in
                for time in times { out.appendSeconds(time, width: width); out.endLine() }
            }
            #expect(text == times.map { seconds($0).leftPadded(width) + "\n" }.joined(), "width \(width)")
        }
    }

    /// Padded numbers as `String.leftPadded` pads them, numbers wider than the column included.
    @Test func paddedNumbersAreLeftPaddedStrings() throws {
        var generator = SystemRandomNumberGenerator()
        var values: [UInt64] = [0, 9, 10, 99, 100, 12_345_678, 123_456_789, UInt64.max]
        for _ in 0..<5_000 { values.append(UInt64.random(in: 0..<(1 << UInt64.random(in: 1..<64, using: &generator)), using: &generator)) }
        for width in [0, 1, 8, 10, 25] {
            let text = try written { out in
                for value in values { out.append(value, width: width); out.endLine() }
            }
            #expect(text == values.map { String($0).leftPadded(width) + "\n" }.joined(), "width \(width)")
        }
    }

    /// Dense ids go to the array, a far one to the dictionary; both read back, and an overwrite wins.
    @Test func denseIDMapHoldsDenseAndSparseIDs() {
        var map = DenseIDMap<Int>()
        for id in UInt64(1)...1_000 { map.set(id, Int(id) * 2) }
        map.set(UInt64.max, -1)
        map.set(1 << 40, -2)
        map.set(7, 70)
        #expect(map[7] == 70)
        #expect(map[1_000] == 2_000)
        #expect(map[0] == nil)
        #expect(map[1_001] == nil)
        #expect(map[UInt64.max] == -1)
        #expect(map[1 << 40] == -2)
        #expect(map[(1 << 40) + 1] == nil)
    }

    /// A `seq` range and a limit on the walk that prints deliveries inside SQLite give the lines of
    /// the whole log in that range, up to the limit, whether it stops on a delivery or on another row.
    // (Fixtures whose labels hold no line break: the lines are split on them.)
    @Test(arguments: ["demo", "v2-audio-interruption-unowned"])
    func rangesAndLimitsCutTheWholeLog(trace: String) throws {
        let whole = try tracectl(["events", fixture(trace)])
        #expect(whole.status == 0, "\(whole.stderr)")
        let lines = whole.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        func seq(_ line: Substring) -> Int { Int(line.prefix(8).trimmingCharacters(in: .whitespaces)) ?? -1 }
        #expect(lines.count > 20)
        for (since, until, limit) in [(0, 1_000_000, 1), (3, 40, 5), (10, 30, nil), (25, 1_000_000, 2), (0, 5, 100)] as [(Int, Int, Int?)] {
            var arguments = ["events", fixture(trace), "--since", String(since), "--until", String(until)]
            if let limit { arguments += ["--limit", String(limit)] }
            let run = try tracectl(arguments)
            #expect(run.status == 0, "\(run.stderr)")
            let inRange = lines.filter { (since...until).contains(seq($0)) }
            let expected = inRange.prefix(limit ?? Int.max).map { $0 + "\n" }.joined()
            #expect(run.stdout == expected, "\(arguments)")
        }
    }
}
