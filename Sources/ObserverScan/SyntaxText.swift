import SwiftParser
import SwiftSyntax

extension SyntaxProtocol {
    /// The node's source text without the leading trivia of its first token and the trailing trivia
    /// of its last: swift-syntax's `trimmedDescription`, which makes two copies of the tree to get
    /// it (a sixth of a large app's scan, by `perf`). This cuts the node's own text at the positions
    /// the tree already knows.
    var trimmedText: String {
        let full = description
        let start = positionAfterSkippingLeadingTrivia.utf8Offset - position.utf8Offset
        let end = endPositionBeforeTrailingTrivia.utf8Offset - position.utf8Offset
        let utf8 = full.utf8
        guard start >= 0, end >= start, end <= utf8.count else { return trimmedDescription }
        let from = utf8.index(utf8.startIndex, offsetBy: start), to = utf8.index(utf8.startIndex, offsetBy: end)
        return String(decoding: utf8[from..<to], as: UTF8.self)
    }
}

/// Every node of `source` whose ``SwiftSyntax/SyntaxProtocol/trimmedText`` differs from its
/// `trimmedDescription` (tests: the two must agree on every node of every fixture).
package func trimmedTextDisagreements(in source: String) -> [String] {
    final class Visitor: SyntaxAnyVisitor {
        var disagreements: [String] = []
        override func visitAny(_ node: Syntax) -> SyntaxVisitorContinueKind {
            if node.trimmedText != node.trimmedDescription { disagreements.append(node.trimmedDescription) }
            return .visitChildren
        }
    }
    let visitor = Visitor(viewMode: .sourceAccurate)
    visitor.walk(Parser.parse(source: source))
    return visitor.disagreements
}

extension StringProtocol {
    /// Without `characters` at either end: Foundation's `trimmingCharacters(in:)` without its trip
    /// through `NSString` (a twentieth of a large app's scan, by `perf`). `.whitespaces` is the
    /// white space of Unicode's `Zs` and the tab, as `CharacterSet.whitespaces` is.
    func trimming(_ characters: Set<Character>) -> String {
        guard let first = firstIndex(where: { !characters.contains($0) }) else { return "" }
        let last = lastIndex(where: { !characters.contains($0) })!
        return String(self[first...last])
    }

    func trimming(_ whitespace: WhiteSpace) -> String {
        guard let first = firstIndex(where: { !$0.isHorizontalWhiteSpace }) else { return "" }
        let last = lastIndex(where: { !$0.isHorizontalWhiteSpace })!
        return String(self[first...last])
    }
}

enum WhiteSpace { case whitespaces }

extension Character {
    /// A space or tab: Unicode's `Zs` and U+0009, what `CharacterSet.whitespaces` holds.
    var isHorizontalWhiteSpace: Bool {
        guard unicodeScalars.count == 1, let scalar = unicodeScalars.first else { return false }
        return scalar.value == 0x09 || scalar.properties.generalCategory == .spaceSeparator
    }
}

/// `text` without white space at either end, as the scanner trims it (tests compare it with Foundation's).
package func trimmedWhiteSpace(_ text: String) -> String { text.trimming(.whitespaces) }
