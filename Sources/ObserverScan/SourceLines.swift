import Foundation
import SwiftParser
import SwiftSyntax

/// Where each line of a file starts, read from its bytes: a node's line from its UTF-8 offset.
///
/// The same lines as swift-syntax's `SourceLocationConverter` (a line ends at `\n`, `\r\n` or a lone
/// `\r`), without its walk over every token of the tree (a twentieth of a large app's scan, by
/// `perf`). `sourceLinesAgreeWithTheConverter` holds the two together.
struct SourceLines: Sendable {
    /// The offset of the first byte of each line; line 1 starts at 0.
    private let starts: [Int]
    /// Added to every offset asked about: for a piece of the file parsed alone (``shifted(by:)``).
    private var base = 0

    /// The same lines, for offsets counted from `base` in the file (a body parsed alone).
    func shifted(by base: Int) -> SourceLines {
        var copy = self
        copy.base += base
        return copy
    }

    init(_ bytes: UnsafeRawBufferPointer) {
        var starts = [0]
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            index += 1
            if byte == 0x0A {
                starts.append(index)
            } else if byte == 0x0D {
                if index < count, bytes[index] == 0x0A { index += 1 }
                starts.append(index)
            }
        }
        self.starts = starts
    }

    /// The 1-based line of the byte at `offset`.
    func line(at offset: Int) -> Int {
        let offset = offset + base
        // The last line start at or before `offset`.
        var low = 0, high = starts.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if starts[middle] <= offset { low = middle } else { high = middle }
        }
        return low + 1
    }
}

/// Whether `bytes` hold any of `needles` (as bytes, anywhere: in code, comments or strings alike).
func containsAny(_ bytes: UnsafeRawBufferPointer, of needles: [[UInt8]]) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    for needle in needles where !needle.isEmpty && needle.count <= bytes.count {
        // Each place the first byte stands (`memchr`), compared whole there.
        var start = base
        let end = base + (bytes.count - needle.count + 1)
        while start < end, let hit = memchr(start, Int32(needle[0]), end - start) {
            if needle.withUnsafeBytes({ memcmp(hit, $0.baseAddress!, needle.count) }) == 0 { return true }
            start = UnsafeRawPointer(hit) + 1
        }
    }
    return false
}

/// Every token of `source` whose line by ``SourceLines`` differs from swift-syntax's
/// `SourceLocationConverter` (tests: the two must agree on every fixture and on odd line ends).
package func sourceLineDisagreements(in source: String) -> [String] {
    let tree = Parser.parse(source: source)
    let converter = SourceLocationConverter(fileName: "", tree: tree)
    let lines = Array(source.utf8).withUnsafeBytes { SourceLines($0) }
    var disagreements: [String] = []
    for token in tree.tokens(viewMode: .sourceAccurate) {
        for position in [token.position, token.positionAfterSkippingLeadingTrivia, token.endPositionBeforeTrailingTrivia] {
            let expected = converter.location(for: position).line
            let found = lines.line(at: position.utf8Offset)
            if expected != found { disagreements.append("\(token.text)@\(position.utf8Offset): \(found), not \(expected)") }
        }
    }
    return disagreements
}
