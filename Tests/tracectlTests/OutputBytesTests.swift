import Foundation
import Testing
@testable import tracectl

/// `Output`'s byte writers give the bytes the `String` formatting they replace gave (issue 13).
@Suite struct OutputBytesTests {
    /// What an `Output` wrote, read back through a pipe.
    func written(_ body: (Output) -> Void) throws -> String {
        let pipe = Pipe()
        let out = Output(pipe.fileHandleForWriting)
        body(out)
        out.flush()
        try pipe.fileHandleForWriting.close()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Times near every half millisecond (where `%.3f` rounds by the `Double`), random ones, and huge ones.
    @Test func secondsAreWhatPrintfWrites() throws {
        var generator = SystemRandomNumberGenerator()
        var times: [UInt64] = [0, 1, 499_999, 500_000, 500_001, 1_500_000, 2_500_000, 999_999_999, 1 << 50, (1 << 50) - 1,
                               UInt64(Int64.max), UInt64.max]
        for _ in 0..<2000 {
            let base = UInt64.random(in: 0..<1_000_000_000_000, using: &generator) / 1_000_000 * 1_000_000
            times.append(base + 500_000 + UInt64.random(in: 0..<200, using: &generator) &- 100)
            times.append(UInt64.random(in: 0..<(1 << 52), using: &generator))
        }
        let text = try written { out in
            for time in times { out.appendSeconds(time, width: 10); out.endLine() }
        }
        let expected = times.map { seconds($0).leftPadded(10) + "\n" }.joined()
        #expect(text == expected)
    }

    /// JSON escaped scalar by scalar, as `JSON.rendered` did before it appended runs whole.
    static func referenceJSONString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `JSON.render(to:)`, which `export` writes with, gives `rendered`'s bytes, and `rendered`'s
    /// run-at-a-time escaping gives what escaping scalar by scalar gave.
    @Test func jsonWrittenAsBytesIsTheRenderedText() throws {
        var strings = ["", "plain", "quote \" backslash \\ slash /", "tab\tline\ncr\r", "\u{0}\u{1}\u{8}\u{C}\u{1F}\u{7F}",
                       "é ✓ 🙂 e\u{301}", "\"\"", "ends with \\", "\u{1F}é\"🙂\n"]
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "\"", "\\", "\n", "\u{1}", "é", "🙂", "\u{301}", " ", "\t", "/"]
        for _ in 0..<300 {
            strings.append(String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        for text in strings { #expect(JSON.string(text).rendered == Self.referenceJSONString(text), "\(text.debugDescription)") }
        let value = JSON.object(strings.enumerated().map { index, text in
            ("k\(index) \(text)", .array([.string(text), .int(-5), .int(Int64.min), .double(0.5), .double(.nan), .bool(true),
                                          .bool(false), .null, .raw("{\"x\":1}"), .object([])]))
        })
        let text = try written { value.render(to: $0) }
        #expect(text == value.rendered)
    }

    @Test func numbersAndJSONStringsAreWhatStringsGave() throws {
        let values: [UInt64] = [0, 7, 10, 99, 12_345, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max]
        let strings = ["", "plain", "quote \" backslash \\ slash /", "tab\tline\ncr\r", "\u{1}\u{1F}\u{7F}", "é ✓ 🙂 e\u{301}"]
        let text = try written { out in
            for value in values {
                out.append(value, width: 8); out.append(",")
                out.append(Int64(bitPattern: value)); out.endLine()
            }
            for string in strings { out.appendJSONString(string); out.endLine() }
        }
        let expected = values.map { String($0).leftPadded(8) + "," + String(Int64(bitPattern: $0)) + "\n" }.joined()
            + strings.map { JSON.string($0).rendered + "\n" }.joined()
        #expect(text == expected)
    }
}
