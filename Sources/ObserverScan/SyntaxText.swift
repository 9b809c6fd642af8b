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
