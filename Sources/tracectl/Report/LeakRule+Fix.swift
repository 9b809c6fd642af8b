import Foundation
import TraceStore

extension LeakRule {
    /// How to fix what the rule finds, in one line: the last sentence of its help, which the rule's one
    /// definition (``LeakRuleDefinition``) writes as "what it means. How to fix it."
    var fix: String {
        let help = self.help.trimmingCharacters(in: .whitespaces)
        var sentences: [Substring] = []
        var start = help.startIndex
        var index = help.startIndex
        while index < help.endIndex {
            let next = help.index(after: index)
            if help[index] == ".", next == help.endIndex || help[next] == " " {
                sentences.append(help[start...index])
                start = next == help.endIndex ? next : help.index(after: next)
            }
            index = next
        }
        if start < help.endIndex { sentences.append(help[start...]) }
        return String(sentences.last ?? Substring(help)).trimmingCharacters(in: .whitespaces)
    }
}
